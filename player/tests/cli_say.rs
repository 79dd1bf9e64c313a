//! `npc-player say` and `bake --text`: real audio from the offline engine, with its visemes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{npc_player, one_line_failure, shared_asset};
use serde_json::Value;

#[test]
fn say_writes_a_wav_and_its_visemes() {
    let dir = tempfile::tempdir().unwrap();
    let wav = dir.path().join("line.wav");
    let json = dir.path().join("line.json");
    let out = npc_player(&[
        "say",
        "--text",
        "Good morning. Lovely weather for a walk.",
        "--gender",
        "male",
        "--out",
        wav.to_str().unwrap(),
        "--visemes-out",
        json.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reader = hound::WavReader::open(&wav).unwrap();
    let spec = reader.spec();
    assert_eq!((spec.channels, spec.bits_per_sample), (1, 16));
    let seconds = reader.duration() as f64 / f64::from(spec.sample_rate);
    assert!((1.5..4.0).contains(&seconds), "{seconds} s");
    let visemes: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let visemes = visemes.as_array().unwrap();
    assert!(visemes.len() > 15);
    let last = visemes.last().unwrap();
    assert_eq!(last["id"], 0, "ends in silence");
    assert!((last["offset_ms"].as_f64().unwrap() / 1000.0 - seconds).abs() < 0.01);
}

#[test]
fn bake_text_speaks_and_records_the_audio() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bake.json");
    let result = npc_player(&[
        "bake",
        "--text",
        "Hello there.",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let json: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let audio = json["audio"].as_str().unwrap();
    assert!(audio.ends_with("bake.wav"));
    assert!(std::path::Path::new(audio).is_file());
    assert!(json["visemes"].as_array().unwrap().len() > 5);
}

#[test]
fn an_unknown_voice_is_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let wav = dir.path().join("x.wav");
    let out = npc_player(&[
        "say",
        "--text",
        "Hi.",
        "--voice",
        "no-such-voice",
        "--out",
        wav.to_str().unwrap(),
    ]);
    let stderr = one_line_failure(&out);
    assert!(stderr.contains("no-such-voice"), "{stderr}");
    assert!(!wav.exists());
}

#[test]
fn bake_audio_lip_syncs_a_recording_over_its_whole_length() {
    let Some(wav) = shared_asset("speech/arctic_a0007.wav") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bake.json");
    let result = npc_player(&["bake", "--audio", &wav, "--out", out.to_str().unwrap()]);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let json: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(json["audio"].as_str().unwrap(), wav);
    assert!(json["duration_ms"].as_f64().unwrap() >= 4000.0);
    let jaw: Vec<f64> = json["stages"]["final"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f[17].as_f64().unwrap())
        .collect();
    assert!(
        jaw.iter().cloned().fold(0.0, f64::max) > 0.2,
        "the jaw moves with the voice"
    );
}

#[test]
fn azure_without_a_key_is_a_clear_error() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_npc-player"))
        .args([
            "say",
            "--text",
            "Hello",
            "--engine",
            "azure",
            "--out",
            "/nonexistent/x.wav",
        ])
        .env_remove("AZURE_SPEECH_KEY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("AZURE_SPEECH_KEY"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
