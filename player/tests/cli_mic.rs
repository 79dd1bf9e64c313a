//! `npc-player run` with a microphone, from the command line: a recording of any rate and
//! channel count is heard (heard.jsonl), a machine without a sound card says so once and runs
//! on, and what cannot work is one clear line.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use std::path::Path;

use common::{npc_player, one_line_failure};

fn demo(dir: &Path) -> String {
    npc_core::procedural::generate::generate(&dir.join("assets")).unwrap();
    let project = dir.join("demo.ron");
    npc_core::project::demo_project().save(&project).unwrap();
    project.display().to_string()
}

fn librivox() -> Option<std::path::PathBuf> {
    common::fetched(
        "NPC_LIBRIVOX_CLIP",
        "librivox/sense_and_sensibility_01_austen_64kb-0880.wav",
    )
}

#[test]
fn a_stereo_44k_float_recording_is_heard_as_the_person() {
    let Some(clip) = librivox() else {
        eprintln!("a_stereo_44k_float_recording_is_heard_as_the_person: NOT RUN, no LibriVox clip");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let project = demo(tmp.path());
    // The clip as a 44.1 kHz stereo float WAV, half a second of silence first.
    let (mono, rate) = npc_core::speech::wav::read_mono(&clip).unwrap();
    let mut up = npc_core::speech::resample(&mono, rate, 44_100).unwrap();
    let mut samples = vec![0.0; 22_050];
    samples.append(&mut up);
    let wav = tmp.path().join("person.wav");
    let spec = hound::WavSpec {
        channels: 2,
        sample_rate: 44_100,
        bits_per_sample: 32,
        sample_format: hound::SampleFormat::Float,
    };
    let mut w = hound::WavWriter::create(&wav, spec).unwrap();
    for s in &samples {
        w.write_sample(*s).unwrap();
        w.write_sample(*s).unwrap();
    }
    w.finalize().unwrap();
    let agent = tmp.path().join("agent");
    let seconds = (samples.len() as f64 / 44_100.0 + 1.5).to_string();
    let out = npc_player(&[
        "run",
        "--project",
        &project,
        "--agent-dir",
        agent.to_str().unwrap(),
        "--headless",
        "--size",
        "32x24",
        "--closeup",
        "Elara",
        "--duration",
        &seconds,
        "--mic-file",
        wav.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let heard = std::fs::read_to_string(agent.join("heard.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = heard
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{heard}");
    assert_eq!(lines[0]["to"], "Elara");
    let (recorded, rate) =
        npc_core::speech::wav::read_mono(&agent.join(lines[0]["audio"].as_str().unwrap())).unwrap();
    assert_eq!(rate, 16_000);
    assert!(recorded.len() > 16_000, "{} samples", recorded.len());
}

#[test]
fn without_a_sound_card_mic_says_so_once_and_the_run_goes_on() {
    let cards = std::fs::read_to_string("/proc/asound/cards").unwrap_or_default();
    if !cards.is_empty() && !cards.contains("no soundcards") {
        eprintln!(
            "without_a_sound_card_mic_says_so_once_and_the_run_goes_on: NOT RUN, this machine has a sound card"
        );
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let project = demo(tmp.path());
    let agent = tmp.path().join("agent");
    let out = npc_player(&[
        "run",
        "--project",
        &project,
        "--agent-dir",
        agent.to_str().unwrap(),
        "--headless",
        "--size",
        "32x24",
        "--duration",
        "1",
        "--mic",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr.matches("no microphone").count(), 1, "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn what_cannot_be_heard_is_one_clear_line() {
    let tmp = tempfile::tempdir().unwrap();
    let project = demo(tmp.path());
    let missing = tmp.path().join("nope.wav");
    let out = npc_player(&[
        "run",
        "--project",
        &project,
        "--headless",
        "--mic-file",
        missing.to_str().unwrap(),
    ]);
    let line = one_line_failure(&out);
    assert!(line.contains("nope.wav") && line.contains("WAV"), "{line}");
    let text = tmp.path().join("notes.wav");
    std::fs::write(&text, "not a recording").unwrap();
    let out = npc_player(&[
        "run",
        "--project",
        &project,
        "--headless",
        "--mic-file",
        text.to_str().unwrap(),
    ]);
    let line = one_line_failure(&out);
    assert!(line.contains("notes.wav"), "{line}");
    let out = npc_player(&[
        "run",
        "--project",
        &project,
        "--headless",
        "--no-render",
        "--mic",
    ]);
    let line = one_line_failure(&out);
    assert!(line.contains("--no-render"), "{line}");
}
