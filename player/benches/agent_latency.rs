//! Line appended -> first audio of that line, over 50 lines through a real agent directory:
//! the headless runtime and the agent simulator run in this process on their own threads,
//! with the offline speech engine. Prints p50 / p95 / max of the latency the runtime records,
//! and of audio end -> spoken.json handed to its writer (the write follows on its own thread).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use npc_player::{RunOptions, run_until};
use serde_json::{Value, json};

/// Lines measured by `cargo bench`; `cargo test` runs the same path on a few as a smoke test.
const LINES: usize = 50;
const SMOKE_LINES: usize = 4;

fn main() {
    let count = if std::env::args().any(|a| a == "--bench") {
        LINES
    } else {
        SMOKE_LINES
    };
    let dir = tempfile::tempdir().unwrap();
    let agent = dir.path().join("agent");
    std::fs::create_dir(&agent).unwrap();
    let project = dir.path().join("demo.ron");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo.ron"),
        &project,
    )
    .unwrap();
    let texts = [
        "Yes.",
        "Good morning.",
        "The road is long.",
        "We leave at dawn.",
        "Indeed.",
    ];
    let lines: Vec<Value> = (0..count)
        .map(|i| {
            let (speaker, gender) = if i % 2 == 0 { ("Elara", "female") } else { ("Bram", "male") };
            json!({"speaker_id": speaker, "gender": gender, "phase": "talk", "text": texts[i % texts.len()]})
        })
        .collect();
    let script = dir.path().join("script.json");
    let body = json!({"conversation": "conversations/bench.jsonl", "speakers": ["Elara", "Bram"], "lines": lines});
    std::fs::write(&script, body.to_string()).unwrap();

    let events = dir.path().join("events.jsonl");
    let stop = Arc::new(AtomicBool::new(false));
    let options = RunOptions {
        project,
        agent_dir: agent.clone(),
        duration: Some(Duration::from_secs(600)),
        events: Some(events.clone()),
        gap_timeout: Duration::from_secs(3),
        synthesis_deadline: npc_player::SYNTHESIS_DEADLINE,
        sound: false,
    };
    let runtime = {
        let stop = stop.clone();
        thread::spawn(move || run_until(&options, &stop))
    };
    thread::sleep(Duration::from_millis(200));
    npc_player::run_agent_sim(&agent, Some(&script), 1.0).unwrap();
    stop.store(true, Ordering::SeqCst);
    runtime.join().unwrap().unwrap();

    let log = std::fs::read_to_string(&events).unwrap();
    let field = |event: &str, key: &str| -> Vec<f64> {
        let mut v: Vec<f64> = log
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|e| e["event"] == event)
            .filter_map(|e| e[key].as_f64())
            .collect();
        v.sort_by(f64::total_cmp);
        v
    };
    let report = |what: &str, v: &[f64]| {
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        println!(
            "{what} over {} lines: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
            v.len(),
            at(0.5),
            at(0.95),
            at(1.0)
        );
    };
    let appended = field("line_started", "append_latency_ms");
    assert_eq!(appended.len(), count, "every line started once");
    report("line appended -> first audio", &appended);
    // The last line may still be playing when the simulator is done.
    let spoken = field("line_finished", "spoken_latency_ms");
    assert!(spoken.len() + 1 >= count, "{} lines finished", spoken.len());
    report("audio end -> spoken.json handed to its writer", &spoken);
}
