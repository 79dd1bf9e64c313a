//! `npc-player run` and `render` from the command line: clear errors for what a user can get
//! wrong, and frames on disk when all is there.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

use common::npc_player;

#[test]
fn without_a_display_run_says_so_and_suggests_render() {
    let tmp = tempfile::tempdir().unwrap();
    npc_core::procedural::generate::generate(&tmp.path().join("assets")).unwrap();
    let project = tmp.path().join("demo.ron");
    npc_core::project::demo_project().save(&project).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_npc-player"))
        .args(["run", "--project", project.to_str().unwrap()])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("no display"), "{stderr}");
    assert!(stderr.contains("npc-player render"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn render_writes_frames_and_explains_missing_assets_and_npcs() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("demo.ron");
    npc_core::project::demo_project().save(&project).unwrap();
    let out_dir = tmp.path().join("frames");
    let args = |extra: &[&str]| {
        let mut a = vec![
            "render",
            "--project",
            project.to_str().unwrap(),
            "--size",
            "64x48",
            "--out",
            out_dir.to_str().unwrap(),
        ];
        a.extend_from_slice(extra);
        a.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        npc_player(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    // No assets yet: one clear line naming the file and how to make it.
    let out = run(&[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("scene.glb") && stderr.contains("generate-assets"),
        "{stderr}"
    );
    npc_core::procedural::generate::generate(&tmp.path().join("assets")).unwrap();
    let out = run(&["--closeup", "Nobody"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Nobody") && stderr.contains("Elara"),
        "{stderr}"
    );
    let out = run(&["--frames", "2", "--time-of-day", "0.5"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in ["frame_0000.png", "frame_0001.png"] {
        let image = image::open(out_dir.join(name)).unwrap();
        assert_eq!((image.width(), image.height()), (64, 48));
    }
}

#[test]
fn run_refuses_an_unknown_npc_to_frame_and_render_a_time_of_day_out_of_range() {
    let tmp = tempfile::tempdir().unwrap();
    npc_core::procedural::generate::generate(&tmp.path().join("assets")).unwrap();
    let project = tmp.path().join("demo.ron");
    npc_core::project::demo_project().save(&project).unwrap();
    let project = project.to_str().unwrap();
    let agents = tmp.path().join("agents");
    let out = npc_player(&[
        "run",
        "--project",
        project,
        "--agent-dir",
        agents.to_str().unwrap(),
        "--headless",
        "--mute",
        "--duration",
        "1",
        "--closeup",
        "Nobody",
    ]);
    let stderr = common::one_line_failure(&out);
    assert!(
        stderr.contains("--closeup Nobody") && stderr.contains("Elara"),
        "{stderr}"
    );
    let frames = tmp.path().join("frames");
    let out = npc_player(&[
        "render",
        "--project",
        project,
        "--time-of-day",
        "1.5",
        "--out",
        frames.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("0.5 is noon"), "{stderr}");
    assert!(!frames.exists(), "nothing drawn");
}

#[test]
fn a_line_whose_speech_engine_hangs_is_passed_over_at_its_deadline() {
    // A speech server that takes every connection and never answers.
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = server.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in server.incoming() {
            held.push(stream);
        }
    });
    let tmp = tempfile::tempdir().unwrap();
    let demo = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo.ron"),
    )
    .unwrap();
    assert!(demo.contains("speech: Offline"));
    let project = tmp.path().join("azure.ron");
    std::fs::write(
        &project,
        demo.replace("speech: Offline", "speech: Azure(region: \"westeurope\")"),
    )
    .unwrap();
    let agent = tmp.path().join("agent");
    std::fs::create_dir_all(agent.join("conversations")).unwrap();
    std::fs::write(
        agent.join("active.json"),
        r#"{"conversation": "conversations/c.jsonl", "speakers": ["Elara", "Bram"]}"#,
    )
    .unwrap();
    std::fs::write(
        agent.join("conversations/c.jsonl"),
        "{\"seq\": 0, \"speaker_id\": \"Elara\", \"text\": \"Hello there.\"}\n",
    )
    .unwrap();
    let events = tmp.path().join("events.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_npc-player"))
        .args([
            "run",
            "--headless",
            "--no-render",
            "--mute",
            "--project",
            project.to_str().unwrap(),
            "--agent-dir",
            agent.to_str().unwrap(),
            "--events",
            events.to_str().unwrap(),
            "--duration",
            "4",
            "--synthesis-deadline",
            "1",
        ])
        .env("AZURE_SPEECH_KEY", "a-key-for-a-server-that-never-answers")
        .env(
            "AZURE_SPEECH_ENDPOINT",
            format!("ws://127.0.0.1:{port}/cognitiveservices/websocket/v1"),
        )
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let log = std::fs::read_to_string(&events).unwrap();
    let events: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let refused = events
        .iter()
        .find(|e| e["event"] == "line_rejected" && e["seq"] == 0)
        .unwrap_or_else(|| panic!("seq 0 is passed over: {log}"));
    assert!(
        refused["reason"]
            .as_str()
            .unwrap()
            .contains("not synthesised within 1 s"),
        "{refused}"
    );
    // Passed over at its deadline, not at the engine's own 10 s timeout (the run lasts 4 s).
    assert!(
        !events
            .iter()
            .any(|e| e["event"] == "line_started" && e["seq"] == 0),
        "{log}"
    );
    let spoken = std::fs::read_to_string(agent.join("spoken.json")).unwrap();
    assert!(
        spoken.contains("\"last_seq\": 0"),
        "the agent hears it was passed over: {spoken}"
    );
}
