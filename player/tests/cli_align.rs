//! `npc-player align` and `bake --audio --transcript`: a real recording's script aligned to
//! its sound; what cannot be aligned is refused in one line, and nothing is written.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{npc_player, one_line_failure, shared_asset};
use serde_json::Value;

const SCRIPT: &str = "And you always want to see it in the superlative degree.";

#[test]
fn a_recordings_words_and_phones_come_in_order_inside_it() {
    let Some(wav) = shared_asset("speech/arctic_a0007.wav") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("aligned.json");
    let out = npc_player(&[
        "align",
        "--audio",
        &wav,
        "--text",
        SCRIPT,
        "--out",
        json.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let words: Vec<&str> = v["words"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["text"].as_str().unwrap())
        .collect();
    // The engine's words, in the script's order (it reports no event for some short ones,
    // "the" here).
    let mut script = SCRIPT.trim_end_matches('.').split(' ');
    for w in &words {
        assert!(script.any(|s| s == *w), "{w} out of order in {words:?}");
    }
    assert!(words.len() >= 9, "{words:?}");
    // Speech starts about 0.41 s in (the recording's own silence before it).
    let first = v["words"][0]["start_ms"].as_f64().unwrap();
    assert!((300.0..=450.0).contains(&first), "first word at {first} ms");
    let duration = v["duration_ms"].as_f64().unwrap();
    let mut last = 0.0;
    for p in v["phones"].as_array().unwrap() {
        let (start, end) = (
            p["start_ms"].as_f64().unwrap(),
            p["end_ms"].as_f64().unwrap(),
        );
        assert!(start >= last && end >= start && end <= duration, "{p}");
        last = start;
    }
    // The same through bake: the face animator over the aligned line.
    let bake = dir.path().join("bake.json");
    let out = npc_player(&[
        "bake",
        "--audio",
        &wav,
        "--transcript",
        SCRIPT,
        "--out",
        bake.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let b: Value = serde_json::from_slice(&std::fs::read(&bake).unwrap()).unwrap();
    let closed = b["visemes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["id"] == 21);
    assert!(closed, "the p of superlative closes the lips");
}

#[test]
fn a_missing_recording_or_an_empty_script_is_refused_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("aligned.json");
    let missing = dir.path().join("none.wav");
    let out = npc_player(&[
        "align",
        "--audio",
        missing.to_str().unwrap(),
        "--text",
        SCRIPT,
        "--out",
        json.to_str().unwrap(),
    ]);
    let line = one_line_failure(&out);
    assert!(line.contains("cannot read audio"), "{line}");
    assert!(!json.exists());
    let Some(wav) = shared_asset("speech/arctic_a0007.wav") else {
        return;
    };
    let out = npc_player(&[
        "align",
        "--audio",
        &wav,
        "--text",
        "   ",
        "--out",
        json.to_str().unwrap(),
    ]);
    let line = one_line_failure(&out);
    assert!(line.contains("script is empty"), "{line}");
    assert!(!json.exists());
}
