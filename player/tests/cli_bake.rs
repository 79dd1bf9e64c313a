//! `npc-player bake` as a user runs it: the JSON contract, and one clear line for bad input.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::Path;

use common::{npc_player, one_line_failure};
use serde_json::Value;

fn demo_line() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../projects/demo-line.json")
        .display()
        .to_string()
}

#[test]
fn bake_writes_every_stage_for_every_frame() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bake.json");
    let result = npc_player(&[
        "bake",
        "--visemes",
        &demo_line(),
        "--fps",
        "30",
        "--seed",
        "4",
        "--speaking",
        "false",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let json: Value = serde_json::from_slice(&fs::read(&out).unwrap()).unwrap();
    assert_eq!(json["fps"], 30.0);
    assert_eq!(json["seed"], 4);
    let targets = json["targets"].as_array().unwrap();
    assert_eq!(targets.len(), 52);
    assert_eq!(targets[0], "eyeBlinkLeft");
    assert_eq!(json["visemes"].as_array().unwrap().len(), 30);
    assert_eq!(
        json["visemes"][6],
        serde_json::json!({"id": 21, "offset_ms": 430.0})
    );
    let table = json["table"].as_object().unwrap();
    assert_eq!(table.len(), 22);
    assert_eq!(table["21"].as_object().unwrap().len(), 52);
    let duration = json["duration_ms"].as_f64().unwrap();
    let frames = (duration * 30.0 / 1000.0).round() as usize + 1;
    let stages = json["stages"].as_object().unwrap();
    let names: Vec<&String> = stages.keys().collect();
    assert_eq!(
        names,
        [
            "anticipation",
            "bilabial",
            "blink",
            "final",
            "gaze",
            "smoothed",
            "target"
        ]
    );
    for (name, stage) in stages {
        let stage = stage.as_array().unwrap();
        assert_eq!(stage.len(), frames, "{name}");
        assert!(
            stage.iter().all(|f| f.as_array().unwrap().len() == 52),
            "{name}"
        );
    }
}

/// Runs a bake that must fail, and returns its stderr.
fn failing_bake(visemes_json: Option<&str>, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("visemes.json");
    if let Some(text) = visemes_json {
        fs::write(&input, text).unwrap();
    }
    let out = dir.path().join("bake.json");
    fs::write(&out, "earlier result").unwrap();
    let mut args = vec![
        "bake",
        "--visemes",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let stderr = one_line_failure(&npc_player(&args));
    assert_eq!(
        fs::read_to_string(&out).unwrap(),
        "earlier result",
        "output kept"
    );
    stderr
}

#[test]
fn bad_input_gives_one_clear_line_and_keeps_earlier_output() {
    let err = failing_bake(
        Some(r#"[{"id": 0, "offset_ms": 0}, {"id": 22, "offset_ms": 80}]"#),
        &[],
    );
    assert!(err.contains("viseme id 22 is out of range"), "{err}");
    assert!(err.contains(":1:"), "names the place: {err}");

    let err = failing_bake(
        Some(r#"[{"id": 1, "offset_ms": 100}, {"id": 2, "offset_ms": 50}]"#),
        &[],
    );
    assert!(err.contains("before the previous event"), "{err}");

    let err = failing_bake(Some("[]"), &[]);
    assert!(err.contains("empty"), "{err}");

    let err = failing_bake(None, &[]);
    assert!(err.contains("cannot read viseme file"), "{err}");

    let err = failing_bake(Some(r#"[{"id": 1, "offset_ms": 100"#), &[]);
    assert!(err.contains("EOF"), "{err}");

    let err = failing_bake(Some(r#"[{"id": 1, "offset_ms": 0}]"#), &["--fps", "0"]);
    assert!(err.contains("fps"), "{err}");

    let err = failing_bake(
        Some(r#"[{"id": 1, "offset_ms": 0}]"#),
        &["--project", "/no/such.ron"],
    );
    assert!(err.contains("/no/such.ron"), "{err}");
}
