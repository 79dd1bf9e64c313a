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
            "brows",
            "emotion",
            "expressions",
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

/// `bake --body` writes the NPC's body over the same frames, layer by layer: the built-in
/// clips played on a Quaternius rig, then each idle-life layer's own change.
#[test]
fn bake_body_writes_every_layer_of_every_frame() {
    let Some(avatar) = common::shared_asset("avatars/Quaternius_Superhero_Female.glb") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let project = common::demo_with_avatar(dir.path(), &avatar);
    let out = dir.path().join("bake.json");
    let result = npc_player(&[
        "bake",
        "--project",
        project.to_str().unwrap(),
        "--npc",
        "Elara",
        "--body",
        "--visemes",
        &demo_line(),
        "--fps",
        "30",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let json: Value = serde_json::from_slice(&fs::read(&out).unwrap()).unwrap();
    let body = &json["body"];
    let layers: Vec<&str> = body["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert_eq!(layers.first(), Some(&"clips"));
    assert!(layers.contains(&"breathing") && layers.contains(&"weight_shift"));
    let frames = body["rotations"].as_array().unwrap();
    assert_eq!(frames.len(), json["times_ms"].as_array().unwrap().len());
    let bones: Vec<&str> = body["bones"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap())
        .collect();
    let chest = bones.iter().position(|b| *b == "upperChest").unwrap();
    let arm = bones.iter().position(|b| *b == "leftUpperArm").unwrap();
    let rotation = |frame: usize, layer: &str, bone: usize| -> Vec<f64> {
        let l = layers.iter().position(|n| *n == layer).unwrap();
        serde_json::from_value(frames[frame][l][bone].clone()).unwrap()
    };
    // The clips bring the T-pose arm down (a quarter turn and more from its rest).
    let w = rotation(0, "clips", arm)[3].abs();
    assert!(2.0 * w.acos().to_degrees() > 60.0, "arm turned {w}");
    // Breathing changes the upper chest in some frame beyond what the sway left.
    let changed = (0..frames.len()).any(|f| {
        let (a, b) = (rotation(f, "sway", chest), rotation(f, "breathing", chest));
        a.iter().zip(&b).any(|(x, y)| (x - y).abs() > 1e-4)
    });
    assert!(changed, "breathing left the upper chest as the sway had it");
    // --body needs the NPC whose body it is.
    let refused = npc_player(&[
        "bake",
        "--body",
        "--visemes",
        &demo_line(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && err.contains("--npc"), "{err}");
}

/// `bake --text` writes the spoken line's audio beside the JSON, or where `--audio-out` says;
/// an `--out` that names a WAV is refused before anything is written over it.
#[test]
fn a_spoken_lines_audio_never_replaces_the_bake_or_the_other_way_round() {
    let dir = tempfile::tempdir().unwrap();
    let wav = dir.path().join("line.wav");
    fs::write(&wav, "a recording kept").unwrap();
    let err = one_line_failure(&npc_player(&[
        "bake",
        "--text",
        "Hello there.",
        "--out",
        wav.to_str().unwrap(),
    ]));
    assert!(
        err.contains("ends in .wav") && err.contains("--audio-out"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&wav).unwrap(), "a recording kept");
    let json = dir.path().join("bake.json");
    let audio = dir.path().join("sound").join("hello.wav");
    fs::create_dir_all(audio.parent().unwrap()).unwrap();
    let out = npc_player(&[
        "bake",
        "--text",
        "Hello there.",
        "--out",
        json.to_str().unwrap(),
        "--audio-out",
        audio.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (samples, rate) = npc_core::speech::wav::read_mono(&audio).unwrap();
    assert!(
        samples.len() as f64 / f64::from(rate) > 0.5,
        "the line's audio"
    );
    assert!(
        !dir.path().join("bake.wav").exists(),
        "nothing beside the JSON"
    );
    let bake: Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
    assert!(bake.is_object());
}
