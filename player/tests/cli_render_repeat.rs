//! The same project, agent lines and seed give the same record and the same frames byte for
//! byte, talking gestures, brow flashes and emotion included: two fresh `npc-player render`
//! processes. One record line, mid-line, is pinned as a golden file (docs/record.md's contract:
//! its fields and their numbers); `UPDATE_GOLDEN=1` writes it again when the
//! animation is meant to change.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The pinned line: Elara, frame 45 (1.53 s into the run, speaking her line).
const GOLDEN: &str = "tests/golden/record_elara_frame45.json";
const GOLDEN_FRAME: u64 = 45;
/// Numbers may move by this much (float printing and summation order); the shape may not.
const GOLDEN_TOLERANCE: f64 = 1e-4;

/// Whether `actual` has `expected`'s keys, its strings and booleans, and its
/// numbers within [`GOLDEN_TOLERANCE`]; the first difference's path when not.
fn differs(expected: &Value, actual: &Value, path: &str) -> Option<String> {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            let (ek, ak): (Vec<_>, Vec<_>) = (e.keys().collect(), a.keys().collect());
            if ek != ak {
                return Some(format!("{path}: keys {ek:?} became {ak:?}"));
            }
            e.iter()
                .find_map(|(k, v)| differs(v, &a[k], &format!("{path}.{k}")))
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                return Some(format!("{path}: {} items became {}", e.len(), a.len()));
            }
            e.iter()
                .zip(a)
                .enumerate()
                .find_map(|(i, (x, y))| differs(x, y, &format!("{path}[{i}]")))
        }
        (Value::Number(e), Value::Number(a)) => {
            let (e, a) = (e.as_f64().unwrap(), a.as_f64().unwrap());
            ((e - a).abs() > GOLDEN_TOLERANCE).then(|| format!("{path}: {e} became {a}"))
        }
        _ => (expected != actual).then(|| format!("{path}: {expected} became {actual}")),
    }
}

fn check_golden(record: &[u8]) {
    let line = String::from_utf8_lossy(record)
        .lines()
        .find(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["frame"] == GOLDEN_FRAME && v["npc"] == "Elara"
        })
        .expect("Elara's golden frame in the record")
        .to_owned();
    let actual: Value = serde_json::from_str(&line).unwrap();
    assert!(
        actual["line"].is_object(),
        "Elara speaks in the golden frame"
    );
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("{line}\n")).unwrap();
        return;
    }
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    if let Some(difference) = differs(&expected, &actual, "line") {
        panic!(
            "the record's line for Elara, frame {GOLDEN_FRAME}, is not the pinned one \
             ({GOLDEN}): {difference}. If the change is meant, run again with UPDATE_GOLDEN=1 \
             and say why in the commit."
        );
    }
}

fn render(project: &Path, agent: &Path, record: &Path, out: &Path) {
    let run = common::npc_player(&[
        "render",
        "--project",
        project.to_str().unwrap(),
        "--agent-dir",
        agent.to_str().unwrap(),
        "--frames",
        "90",
        "--fps",
        "30",
        "--size",
        "32x18",
        "--no-shadows",
        "--record",
        record.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn a_talking_line_renders_the_same_bytes_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let project = common::demo_with_avatar(tmp.path(), "assets/avatar.glb");
    let agent = tmp.path().join("agent");
    std::fs::create_dir_all(agent.join("conversations")).unwrap();
    std::fs::write(
        agent.join("active.json"),
        r#"{"conversation": "conversations/c.jsonl", "speakers": ["Elara", "Bram"]}"#,
    )
    .unwrap();
    let line = r#"{"seq": 0, "speaker_id": "Elara", "text": "Welcome, traveller. The inn is over there.", "emotion": "happy", "gestures": ["point@Bram", "nod"]}"#;
    let mut records = Vec::new();
    for name in ["a", "b"] {
        std::fs::write(agent.join("conversations/c.jsonl"), format!("{line}\n")).unwrap();
        let _ = std::fs::remove_file(agent.join("spoken.json"));
        let record = tmp.path().join(format!("{name}.jsonl"));
        render(&project, &agent, &record, &tmp.path().join(name));
        records.push(std::fs::read(&record).unwrap());
    }
    assert!(records[0].len() > 10_000);
    check_golden(&records[0]);
    assert!(
        records[0] == records[1],
        "two renders of the same line differ"
    );
    // The pictures too, every PNG's bytes.
    let frames = |name: &str| -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<_> = std::fs::read_dir(tmp.path().join(name))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        files
            .iter()
            .map(|f| {
                let name = f.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(f).unwrap())
            })
            .collect()
    };
    let (a, b) = (frames("a"), frames("b"));
    assert_eq!(a.len(), 90);
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{name} differs between the two renders");
    }
}
