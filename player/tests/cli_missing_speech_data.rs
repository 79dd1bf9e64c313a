//! Without espeak-ng's data, speaking says what is missing and how to get it; the live player
//! refuses each line with that reason in the events file, passes over it, and keeps running.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::process::{Command, Output};

use common::one_line_failure;
use npc_core::project::demo_project;

/// Runs `npc-player` with espeak-ng pointed at an empty data folder.
fn without_speech_data(data: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_npc-player"))
        .args(args)
        .env("ESPEAK_DATA_PATH", data)
        .env("RUST_LOG", "off")
        .output()
        .expect("run npc-player")
}

#[test]
fn missing_speech_data_is_named_and_the_runtime_keeps_going() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    fs::create_dir_all(data.join("espeak-ng-data")).unwrap();

    let wav = dir.path().join("line.wav");
    let out = without_speech_data(
        &data,
        &[
            "say",
            "--text",
            "Hello there.",
            "--out",
            wav.to_str().unwrap(),
        ],
    );
    let line = one_line_failure(&out);
    assert!(
        line.contains("phontab") && line.contains("espeak-ng-data"),
        "{line}"
    );
    assert!(
        !wav.exists(),
        "no audio file for a line that was not spoken"
    );

    let project = dir.path().join("demo.ron");
    demo_project().save(&project).unwrap();
    let agent = dir.path().join("agent");
    fs::create_dir_all(agent.join("conversations")).unwrap();
    fs::write(
        agent.join("active.json"),
        r#"{"conversation": "conversations/c.jsonl", "speakers": ["Elara"]}"#,
    )
    .unwrap();
    fs::write(
        agent.join("conversations/c.jsonl"),
        "{\"seq\": 0, \"speaker_id\": \"Elara\", \"text\": \"Hello there.\"}\n\
         {\"seq\": 1, \"speaker_id\": \"Elara\", \"text\": \"Anyone?\"}\n",
    )
    .unwrap();
    let events = dir.path().join("events.jsonl");
    let out = without_speech_data(
        &data,
        &[
            "run",
            "--project",
            project.to_str().unwrap(),
            "--agent-dir",
            agent.to_str().unwrap(),
            "--headless",
            "--no-render",
            "--duration",
            "1.5",
            "--events",
            events.to_str().unwrap(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rejected: Vec<serde_json::Value> = fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|e: &serde_json::Value| e["event"] == "line_rejected")
        .collect();
    assert_eq!(rejected.len(), 2, "both lines refused: {rejected:?}");
    for e in &rejected {
        assert!(
            e["reason"].as_str().unwrap().contains("espeak-ng-data"),
            "{e}"
        );
    }
    let spoken = fs::read_to_string(agent.join("spoken.json")).unwrap();
    assert!(spoken.contains("\"last_seq\": 1"), "{spoken}");
}
