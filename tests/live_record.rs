//! One animation path, end to end: a line spoken live in the drawn world and recorded with
//! `render --record` is what `bake --npc` computes for that NPC and line; the speaker is marked
//! speaking and the listeners are not.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::PathBuf;

use common::{world_demo, write_lines};
use npc_core::arkit::{ArkitTarget, Region};
use serde_json::Value;

const LINE: &str = "Welcome, traveler. What brings you here?";

fn is_spoken_part(target: ArkitTarget) -> bool {
    matches!(
        target.region(),
        Region::Mouth | Region::Jaw | Region::Cheeks | Region::Tongue
    )
}

/// A bake's frame times, ms.
fn frame_times(bake: &Value) -> Vec<f64> {
    bake["times_ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_f64().unwrap())
        .collect()
}

#[test]
fn a_line_recorded_live_equals_bake_npc_of_the_same_line() {
    let d = world_demo();
    write_lines(&d.agent, &[("Elara", LINE)]);
    let record = d.tmp.path().join("record.jsonl");
    let fps = 30.0;
    common::render_recorded(&d, 110, &record);
    let baked = d.tmp.path().join("bake.json");
    common::bake_elara(&d.project, LINE, &baked);
    let bake: Value = serde_json::from_slice(&fs::read(&baked).unwrap()).unwrap();
    let times = frame_times(&bake);
    let finals = bake["stages"]["final"].as_array().unwrap();
    let names: Vec<&str> = bake["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    let compared: Vec<usize> = ArkitTarget::ALL
        .iter()
        .filter(|t| is_spoken_part(**t))
        .map(|t| names.iter().position(|n| *n == t.name()).unwrap())
        .collect();

    let lines: Vec<Value> = fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 110 * 3, "one line per NPC per frame");
    let mut spoken_frames = 0;
    let (mut worst, mut sum, mut n) = (0.0_f64, 0.0, 0);
    for l in &lines {
        let npc = l["npc"].as_str().unwrap();
        assert_eq!(l["weights"].as_array().unwrap().len(), 52);
        assert!(
            l["joints"]["head"][1].as_f64().unwrap() > l["joints"]["hips"][1].as_f64().unwrap()
        );
        if npc != "Elara" {
            assert_eq!(l["speaking"], false, "listener {npc} marked speaking: {l}");
            assert!(l["line"].is_null());
            continue;
        }
        let Some(audio_ms) = l["line"]["audio_ms"].as_f64() else {
            continue;
        };
        assert_eq!(
            l["speaking"], true,
            "the speaker is not marked speaking: {l}"
        );
        assert_eq!(
            l["seed"], bake["seed"],
            "the live face and the bake have other seeds"
        );
        spoken_frames += 1;
        // The bake at 1000 fps has a frame at every whole millisecond.
        let i = times
            .partition_point(|&t| t < audio_ms - 0.5)
            .min(times.len() - 1);
        assert!((times[i] - audio_ms).abs() <= 0.5, "{audio_ms} ms");
        let live = l["weights"].as_array().unwrap();
        let baked = finals[i].as_array().unwrap();
        for &k in &compared {
            let d = (live[k].as_f64().unwrap() - baked[k].as_f64().unwrap()).abs();
            assert!(
                d <= 0.03,
                "{} at {audio_ms} ms: live {} vs bake {}",
                names[k],
                live[k],
                baked[k]
            );
            worst = worst.max(d);
            sum += d;
            n += 1;
        }
    }
    assert!(
        spoken_frames as f64 > 1.5 * fps,
        "only {spoken_frames} frames of the line"
    );
    let mean = sum / f64::from(n);
    assert!(mean <= 0.005, "mean difference {mean} (worst {worst})");
}

/// A head without ARKit names (a VALID avatar, DAZ-style shapes) talks on its own shapes live
/// as `bake --npc` computes them.
#[test]
fn own_shapes_recorded_live_equal_the_bake() {
    let Some(avatar) = common::shared_asset("avatars/VALID_Black_F_1_Busi.glb") else {
        return;
    };
    let d = world_demo().with_elara_as(&avatar);
    write_lines(&d.agent, &[("Elara", LINE)]);
    let record = d.tmp.path().join("record.jsonl");
    common::render_recorded(&d, 90, &record);
    let baked = d.tmp.path().join("bake.json");
    common::bake_elara(&d.project, LINE, &baked);
    let bake: Value = serde_json::from_slice(&fs::read(&baked).unwrap()).unwrap();
    let targets = bake["own"]["targets"].as_array().unwrap();
    assert!(
        targets.iter().any(|t| t == "h_expressions.MPB_Up_h"),
        "{targets:?}"
    );
    let times = frame_times(&bake);
    let own = bake["own"]["weights"].as_array().unwrap();
    let (mut frames, mut worst, mut opened) = (0, 0.0_f64, 0.0_f64);
    for line in fs::read_to_string(&record).unwrap().lines() {
        let l: Value = serde_json::from_str(line).unwrap();
        if l["npc"] != "Elara" {
            continue;
        }
        let Some(audio_ms) = l["line"]["audio_ms"].as_f64() else {
            continue;
        };
        let i = times
            .partition_point(|&t| t < audio_ms - 0.5)
            .min(times.len() - 1);
        let live = l["own"].as_array().unwrap();
        assert_eq!(live.len(), targets.len());
        for (k, (a, b)) in live.iter().zip(own[i].as_array().unwrap()).enumerate() {
            let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            assert!(
                (a - b).abs() <= 0.03 || audio_ms < 1.0,
                "{} at {audio_ms} ms: live {a} vs bake {b}",
                targets[k]
            );
            if audio_ms >= 1.0 {
                worst = worst.max((a - b).abs());
            }
            opened = opened.max(a);
        }
        frames += 1;
    }
    assert!(frames > 40, "{frames} frames of the line");
    assert!(opened > 0.5, "the mouth opens on its own shapes ({opened})");
    // The line's first live frame has smoothed a frame step toward it, which the bake's first
    // frame (no time passed) has not: from the next frame on they agree.
    assert!(worst <= 0.03, "live and bake differ by {worst}");
}

/// The demo world with the CMU ARCTIC sentence at `lines/0000.wav` of its agent directory and
/// `conversation` as its lines, drawn for `frames` frames: the world (its temporary folder
/// lives as long as it does) and its record; None without ../shared.
fn play_recording(conversation: &str, frames: u32) -> Option<(common::WorldDemo, PathBuf)> {
    let wav = common::shared_asset("speech/arctic_a0007.wav")?;
    let d = world_demo();
    fs::create_dir_all(d.agent.join("lines")).unwrap();
    fs::copy(&wav, d.agent.join("lines/0000.wav")).unwrap();
    fs::write(d.agent.join("conversations/c.jsonl"), conversation).unwrap();
    let path = d.tmp.path().join("record.jsonl");
    common::render_recorded(&d, frames, &path);
    Some((d, path))
}

/// A line an agent gives as a recording (a real CMU ARCTIC sentence) is played instead of
/// synthesised and lip-synced from its sound; the conversation goes on after it.
#[test]
fn a_recorded_line_from_an_agent_plays_with_its_mouth() {
    let Some((_world, record)) = play_recording(
        "{\"seq\": 0, \"speaker_id\": \"Elara\", \"audio\": \"lines/0000.wav\"}\n\
         {\"seq\": 1, \"speaker_id\": \"Bram\", \"text\": \"Good day.\"}\n",
        150,
    ) else {
        return;
    };
    let lines: Vec<Value> = fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let jaw = ArkitTarget::JawOpen.index();
    let elara: Vec<&Value> = lines
        .iter()
        .filter(|l| l["npc"] == "Elara" && l["line"]["seq"] == 0)
        .collect();
    let heard = elara
        .iter()
        .filter_map(|l| l["line"]["audio_ms"].as_f64())
        .fold(0.0, f64::max);
    assert!(heard > 2000.0, "the recording plays ({heard} ms heard)");
    let opened = elara
        .iter()
        .map(|l| l["weights"][jaw].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(opened > 0.1, "the jaw follows the recording ({opened})");
    assert!(
        lines
            .iter()
            .any(|l| l["npc"] == "Bram" && l["line"]["seq"] == 1),
        "the conversation goes on"
    );
}

/// A recorded line that carries its text is aligned to it: the lips close for the p of
/// "superlative" in the recording's stop (its silence is at 2310-2420 ms, docs/align.md).
#[test]
fn a_recorded_line_with_its_text_closes_the_lips_at_its_stop() {
    let Some((_world, record)) = play_recording(
        "{\"seq\": 0, \"speaker_id\": \"Elara\", \"audio\": \"lines/0000.wav\", \"text\": \
         \"And you always want to see it in the superlative degree.\"}\n",
        110,
    ) else {
        return;
    };
    // The lips press together for the p (the table's closed pose), and the jaw opens for the
    // vowel after it.
    let (press, jaw) = (
        ArkitTarget::MouthPressLeft.index(),
        ArkitTarget::JawOpen.index(),
    );
    let elara: Vec<(f64, f64, f64)> = fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["npc"] == "Elara")
        .filter_map(|l| {
            Some((
                l["line"]["audio_ms"].as_f64()?,
                l["weights"][press].as_f64()?,
                l["weights"][jaw].as_f64()?,
            ))
        })
        .collect();
    let within = |from: f64, to: f64| elara.iter().filter(move |(t, ..)| (from..=to).contains(t));
    let pressed = within(2280.0, 2430.0).map(|p| p.1).fold(0.0, f64::max);
    let open = within(2430.0, 2600.0).map(|p| p.2).fold(0.0, f64::max);
    assert!(
        pressed >= 0.3 && open >= 0.25,
        "mouthPressLeft {pressed} at the p, jawOpen {open} after it"
    );
}
