//! The Python example agent (examples/answer_agent.py) beside the player: the person speaks
//! (`--mic-file`, a real recording), the agent reads `heard.jsonl`, has `npc-player say` speak
//! its reply and streams it into the directory as it plays, and the NPC speaks the streamed
//! reply to its end.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::npc_player;

fn librivox() -> Option<std::path::PathBuf> {
    common::fetched(
        "NPC_LIBRIVOX_CLIP",
        "librivox/sense_and_sensibility_01_austen_64kb-0880.wav",
    )
}

#[test]
fn the_python_example_answers_the_person_with_a_streamed_reply() {
    let Some(clip) = librivox() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    npc_core::procedural::generate::generate(&dir.join("assets")).unwrap();
    let project = dir.join("demo.ron");
    npc_core::project::demo_project().save(&project).unwrap();
    let agent = dir.join("agent");
    std::fs::create_dir_all(&agent).unwrap();
    // Half a second of silence, then the person speaks.
    let (mono, rate) = npc_core::speech::wav::read_mono(&clip).unwrap();
    let mut samples = vec![0.0; rate as usize / 2];
    samples.extend_from_slice(&mono);
    let person = dir.join("person.wav");
    let pcm: Vec<i16> = samples
        .iter()
        .map(|s| (s.clamp(-1.0, 1.0) * 32_767.0) as i16)
        .collect();
    npc_core::speech::wav::write(&person, &pcm, rate).unwrap();
    let spoken_s = samples.len() as f64 / f64::from(rate);
    let seconds = spoken_s + 9.0;
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/answer_agent.py");
    let python = Command::new("python3")
        .arg(&example)
        .arg(&agent)
        .args(["--seconds", &(seconds - 0.5).to_string()])
        .args(["--player", env!("CARGO_BIN_EXE_npc-player")])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let python = match python {
        Ok(child) => child,
        Err(e) => {
            common::not_run(&format!("no python3 ({e})"), "CI installs it");
            return;
        }
    };
    let events = dir.join("events.jsonl");
    let out = npc_player(&[
        "run",
        "--project",
        project.to_str().unwrap(),
        "--agent-dir",
        agent.to_str().unwrap(),
        "--headless",
        "--size",
        "32x24",
        "--closeup",
        "Elara",
        "--duration",
        &seconds.to_string(),
        "--mic-file",
        person.to_str().unwrap(),
        "--events",
        events.to_str().unwrap(),
    ]);
    let python = python.wait_with_output().unwrap();
    let agent_said = String::from_utf8_lossy(&python.stderr);
    assert!(python.status.success(), "{agent_said}");
    assert!(
        agent_said.is_empty(),
        "the agent spoke and streamed: {agent_said}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let events: Vec<serde_json::Value> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of_reply = |name: &str| {
        events
            .iter()
            .find(|e| e["event"] == name && e["conversation"] == "conversations/person.jsonl")
    };
    let started = of_reply("line_started").expect("the reply started");
    assert_eq!(started["npc"], "Elara", "{started}");
    assert_eq!(started["streamed"], true, "{started}");
    let finished = of_reply("line_finished").expect("the reply was spoken to its end");
    eprintln!(
        "the reply started {} ms into the run, {} ms after its first sound arrived; finished at \
         {} ms",
        started["t_ms"], started["first_chunk_to_sound_ms"], finished["t_ms"]
    );
    assert!(of_reply("line_incomplete").is_none());
    // It answered after the person spoke.
    assert!(started["t_ms"].as_f64().unwrap() > spoken_s * 1000.0 - 500.0);
}
