//! End to end: a hostile agent directory (an escaping path, a file that appears late and is
//! replaced, partial / garbage / binary / oversized / duplicate lines, an unknown speaker, a
//! gap, an `npc_state.json` of the wrong types) never crashes the headless runtime, and every
//! valid line is still spoken, once, in order.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use npc_player::{RunOptions, run_until};
use serde_json::Value;

const GOOD: &str = "conversations/good.jsonl";
const OUTSIDE: &str = "../outside.jsonl";
const MISSING: &str = "conversations/missing.jsonl";

fn line(seq: u64, who: &str, text: &str) -> String {
    format!(r#"{{"seq": {seq}, "speaker_id": "{who}", "text": "{text}"}}"#) + "\n"
}

fn append(path: &Path, bytes: &[u8]) {
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    f.write_all(bytes).unwrap();
    f.flush().unwrap();
}

fn pause(ms: u64) {
    thread::sleep(Duration::from_millis(ms));
}

fn spoken(agent: &Path, conv: &str) -> Option<u64> {
    let v: Value =
        serde_json::from_str(&fs::read_to_string(agent.join("spoken.json")).ok()?).ok()?;
    v["conversations"][conv]["last_seq"].as_u64()
}

fn of<'a>(events: &'a [Value], conv: &str, kind: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["conversation"] == conv && e["event"] == kind)
        .collect()
}

fn seqs(events: &[&Value]) -> Vec<u64> {
    events.iter().map(|e| e["seq"].as_u64().unwrap()).collect()
}

#[test]
fn a_hostile_agent_directory_never_crashes_the_runtime_and_valid_lines_still_play() {
    let started_at = Instant::now();
    let common::Setup {
        tmp,
        project,
        agent,
        events: events_path,
    } = common::setup();
    fs::create_dir_all(agent.join("conversations")).unwrap();
    let good: PathBuf = agent.join(GOOD);
    let missing: PathBuf = agent.join(MISSING);
    // A valid conversation just outside the agent directory: must never be read.
    fs::write(tmp.path().join("outside.jsonl"), line(0, "Elara", "Out.")).unwrap();
    fs::write(
        agent.join("active.json"),
        format!(
            r#"{{"conversations": [
                {{"file": "{GOOD}", "speakers": ["Elara", "Bram"]}},
                {{"file": "{OUTSIDE}", "speakers": ["Elara", "Bram"]}},
                {{"file": "{MISSING}", "speakers": ["Elara", "Bram"]}}]}}"#
        ),
    )
    .unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let runtime = {
        let opts = RunOptions {
            project,
            agent_dir: agent.clone(),
            duration: Some(Duration::from_secs(90)),
            events: Some(events_path.clone()),
            // Short, so the skipped seq 4 is waited out quickly.
            gap_timeout: Duration::from_millis(500),
            synthesis_deadline: npc_player::SYNTHESIS_DEADLINE,
            sound: false,
        };
        let stop = stop.clone();
        thread::spawn(move || run_until(&opts, &stop))
    };
    pause(200);

    // Wrong types everywhere in npc_state.json.
    fs::write(
        agent.join("npc_state.json"),
        r#"{"time_of_day": "noon", "npcs": [{"id": 5}]}"#,
    )
    .unwrap();
    // File line 1: seq 0.
    append(&good, line(0, "Elara", "Hi.").as_bytes());
    pause(150);
    // File line 2: seq 1, written in two halves.
    let seq1 = line(1, "Bram", "Yes.");
    let (a, b) = seq1.split_at(seq1.len() / 2);
    append(&good, a.as_bytes());
    pause(300);
    append(&good, b.as_bytes());
    pause(150);
    // missing.jsonl appears half-written, disappears, and comes back with a valid line.
    append(&missing, br#"{"seq": 0, "speak"#);
    pause(300);
    fs::remove_file(&missing).unwrap();
    pause(300);
    fs::write(&missing, line(0, "Bram", "Hi.")).unwrap();
    // File line 3: not JSON.
    append(&good, b"{not json\n");
    pause(100);
    // File line 4: binary, invalid UTF-8 and NUL, no newline inside.
    let binary: Vec<u8> = [0x00, 0xff, 0xfe, 0x80, 0xc3, 0x28, 0x01, 0x7f, 0x00, 0xed]
        .into_iter()
        .chain(
            (0u16..500)
                .map(|i| (i * 37 % 256) as u8)
                .filter(|&b| b != b'\n'),
        )
        .chain([b'\n'])
        .collect();
    append(&good, &binary);
    pause(100);
    // File line 5: 10 MB.
    let mut huge = vec![b'x'; 10 * 1024 * 1024];
    huge.push(b'\n');
    append(&good, &huge);
    drop(huge);
    pause(150);
    // File lines 6-9: seq 2, a duplicate seq 2, an unknown speaker, then a gap (no seq 4).
    append(&good, line(2, "Elara", "Ok.").as_bytes());
    pause(100);
    append(&good, line(2, "Bram", "No!").as_bytes());
    pause(100);
    append(&good, line(3, "Ghost", "Boo.").as_bytes());
    pause(100);
    append(&good, line(5, "Elara", "Bye.").as_bytes());

    // The gap waits the default gap timeout (3 s: not settable through RunOptions).
    let deadline = Instant::now() + Duration::from_secs(60);
    while !(spoken(&agent, GOOD) == Some(5) && spoken(&agent, MISSING) == Some(0)) {
        if Instant::now() > deadline || runtime.is_finished() {
            break;
        }
        pause(50);
    }
    let (good_last, missing_last) = (spoken(&agent, GOOD), spoken(&agent, MISSING));
    stop.store(true, Ordering::Relaxed);
    let joined = runtime.join();
    assert!(joined.is_ok(), "the runtime thread panicked");
    joined.unwrap().expect("the runtime returned an error");
    assert_eq!(good_last, Some(5), "{GOOD} last_seq in spoken.json");
    assert_eq!(missing_last, Some(0), "{MISSING} last_seq in spoken.json");

    let text = fs::read_to_string(&events_path).unwrap();
    let events: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let started = of(&events, GOOD, "line_started");
    let finished = of(&events, GOOD, "line_finished");
    // Every valid seq once, in order; seq 2 once (its duplicate ignored).
    assert_eq!(seqs(&started), [0, 1, 2, 3, 5], "events: {events:#?}");
    assert_eq!(seqs(&finished), [0, 1, 2, 3, 5], "events: {events:#?}");
    assert_eq!(started[2]["speaker_id"], "Elara", "the first seq 2 wins");
    assert_eq!(
        started[3]["speaker_id"], "Ghost",
        "the unknown speaker still speaks"
    );
    assert_eq!(seqs(&of(&events, MISSING, "line_started")), [0]);
    // One at a time: each line of good.jsonl finishes before the next starts.
    let order: Vec<(&str, u64)> = events
        .iter()
        .filter(|e| e["conversation"] == GOOD && e["seq"].is_u64())
        .map(|e| (e["event"].as_str().unwrap(), e["seq"].as_u64().unwrap()))
        .collect();
    let expected: Vec<(&str, u64)> = [0, 1, 2, 3, 5]
        .into_iter()
        .flat_map(|s| [("line_started", s), ("line_finished", s)])
        .collect();
    assert_eq!(order, expected, "events: {events:#?}");

    // The garbage, binary and oversized lines (file lines 3, 4, 5) are rejected, nothing else.
    let rejected = of(&events, GOOD, "line_rejected");
    let reason = |n: u32| -> String {
        let at = format!("{GOOD}:{n}");
        let hits: Vec<&&Value> = rejected.iter().filter(|e| e["file_line"] == at).collect();
        assert_eq!(hits.len(), 1, "one line_rejected for {at}: {rejected:#?}");
        hits[0]["reason"].as_str().unwrap().to_owned()
    };
    let (garbage, binary, oversized) = (reason(3), reason(4), reason(5));
    assert!(binary.contains("UTF-8"), "binary: {binary}");
    assert!(oversized.contains("longer than"), "oversized: {oversized}");
    assert_eq!(rejected.len(), 3, "rejected: {rejected:#?}");

    // The escaping conversation never shows up.
    assert!(
        !text.contains("outside"),
        "an event mentions the outside file"
    );
    assert_eq!(spoken(&agent, OUTSIDE), None);

    eprintln!(
        "hostile agent dir: {} events; good.jsonl started {:?}; missing.jsonl last_seq {:?}; \
         rejected: [3] {garbage:?} [4] {binary:?} [5] {oversized:?}; took {:.1} s",
        events.len(),
        seqs(&started),
        missing_last,
        started_at.elapsed().as_secs_f64()
    );
}
