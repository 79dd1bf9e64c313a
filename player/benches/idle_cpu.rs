//! CPU used by the headless runtime with nothing to say: an agent directory with an active
//! conversation and no lines, watched for 10 s (2 s under `cargo test`). Reads the process's
//! CPU time from /proc/self/stat before and after, so it needs Linux.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use npc_player::{RunOptions, run_until};

/// User + system CPU seconds of this process, from /proc/self/stat (clock ticks of 1/100 s).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

fn main() {
    let seconds = if std::env::args().any(|a| a == "--bench") {
        10
    } else {
        2
    };
    let dir = tempfile::tempdir().unwrap();
    let agent = dir.path().join("agent");
    std::fs::create_dir_all(agent.join("conversations")).unwrap();
    std::fs::write(
        agent.join("active.json"),
        r#"{"conversations": [{"file": "conversations/c.jsonl", "speakers": ["Elara", "Bram"]}]}"#,
    )
    .unwrap();
    std::fs::write(agent.join("conversations/c.jsonl"), "").unwrap();
    let project = dir.path().join("demo.ron");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo.ron"),
        &project,
    )
    .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let options = RunOptions {
        project,
        agent_dir: agent,
        duration: None,
        events: None,
        gap_timeout: Duration::from_secs(3),
        synthesis_deadline: npc_player::SYNTHESIS_DEADLINE,
        sound: false,
    };
    let runtime = {
        let stop = stop.clone();
        thread::spawn(move || run_until(&options, &stop))
    };
    // Let it start (engine, watcher), then measure.
    thread::sleep(Duration::from_millis(500));
    let Some(before) = cpu_seconds() else {
        println!("idle CPU: /proc/self/stat is not readable here; not measured");
        stop.store(true, Ordering::SeqCst);
        runtime.join().unwrap().unwrap();
        return;
    };
    let start = Instant::now();
    thread::sleep(Duration::from_secs(seconds));
    let used = cpu_seconds().unwrap() - before;
    let wall = start.elapsed().as_secs_f64();
    stop.store(true, Ordering::SeqCst);
    runtime.join().unwrap().unwrap();
    println!(
        "idle CPU of the headless runtime over {wall:.1} s: {:.2}% of one core ({used:.2} s)",
        100.0 * used / wall
    );
}
