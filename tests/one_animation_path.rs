//! The bake command prints exactly what the shared face animator computes: one code path.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use npc_core::LineCue;
use npc_core::anim::face::FaceSettings;
use npc_core::anim::timeline::{BakeOptions, BakeReport, bake};
use npc_core::project::Project;
use npc_core::speech::LineSource;
use npc_player::{Conductor, ConductorOptions, Cue};

#[test]
fn cli_bake_equals_the_core_bake_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let line = Path::new(env!("CARGO_MANIFEST_DIR")).join("projects/demo-line.json");
    let project_path = dir.path().join("tuned.ron");
    let mut project = Project::default();
    project.face.lipsync.lead_ms = 40.0;
    project.face.gaze.avert_chance_speaking = 0.9;
    project.save(&project_path).unwrap();
    let out = dir.path().join("bake.json");

    npc_player::run_from([
        "npc-player",
        "bake",
        "--visemes",
        line.to_str().unwrap(),
        "--project",
        project_path.to_str().unwrap(),
        "--fps",
        "50",
        "--seed",
        "11",
        "--out",
        out.to_str().unwrap(),
    ])
    .unwrap();

    let track = npc_core::speech::read_track(&line).unwrap();
    let cue = LineCue::from_track(track.clone());
    let settings: FaceSettings = project.face;
    let options = BakeOptions {
        fps: 50.0,
        seed: 11,
        speaking: true,
        duration_ms: None,
        emotion: None,
        clip_faces: Vec::new(),
    };
    let baked = bake(&settings, &cue, &options).unwrap();
    let expected =
        serde_json::to_vec(&BakeReport::new(&baked, &track, &settings.table, &options)).unwrap();
    assert_eq!(fs::read(&out).unwrap(), expected);

    // And the project's settings really reached the animator.
    let defaults = bake(&FaceSettings::default(), &cue, &options).unwrap();
    let default_json = serde_json::to_vec(&BakeReport::new(
        &defaults,
        &track,
        &FaceSettings::default().table,
        &options,
    ))
    .unwrap();
    assert_ne!(default_json, expected);
}

/// A recorded line that carries its script is performed live as `bake --audio --transcript`
/// performs it: the conductor's cue is the one `LineSource` makes (visemes aligned to the
/// script, stresses from its phonemes, and the words' starts a gesture asked for at a word is
/// timed to), not one rebuilt from the sound alone.
#[test]
fn a_recorded_line_with_its_script_is_cued_live_as_it_is_baked() {
    const SCRIPT: &str = "And you always want to see it in the superlative degree.";
    let Some(wav) = common::shared_asset("speech/arctic_a0007.wav") else {
        return;
    };
    let d = common::world_demo();
    fs::create_dir_all(d.agent.join("lines")).unwrap();
    fs::copy(&wav, d.agent.join("lines/0000.wav")).unwrap();
    fs::write(
        d.agent.join("conversations/c.jsonl"),
        format!(
            "{{\"seq\": 0, \"speaker_id\": \"Elara\", \"audio\": \"lines/0000.wav\", \
             \"text\": \"{SCRIPT}\", \"gestures\": [\"nod\"]}}\n"
        ),
    )
    .unwrap();
    let project = Project::load(&d.project).unwrap();
    let mut conductor = Conductor::open(
        &project,
        &ConductorOptions {
            agent_dir: d.agent.clone(),
            events: None,
            gap_timeout: Duration::from_secs(3),
            synthesis_deadline: npc_player::SYNTHESIS_DEADLINE,
            wait_for_synthesis: true,
            sound: false,
            line_audio: None,
            disk: npc_core::disk::Disk::local(),
        },
    )
    .unwrap();
    let start = Instant::now();
    let live = loop {
        let mut cues = Vec::new();
        conductor.step(Instant::now(), &mut cues).unwrap();
        if let Some(cue) = cues.into_iter().find_map(|c| match c {
            Cue::Speak { cue, .. } => Some(cue),
            _ => None,
        }) {
            break cue;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the line never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let elara = project.npcs.iter().find(|n| n.id == "Elara").unwrap();
    let baked = LineSource::from_wav_and_script(&wav, SCRIPT, &elara.voice)
        .unwrap()
        .cue;
    assert!(
        live.words_ms.len() >= 10,
        "the live cue knows the words' starts: {:?}",
        live.words_ms
    );
    assert_eq!(live.words_ms.len(), baked.words_ms.len());
    assert_eq!(live.stresses_ms.len(), baked.stresses_ms.len());
    let ms_apart = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max)
    };
    assert!(ms_apart(&live.words_ms, &baked.words_ms) <= 2.0);
    assert!(ms_apart(&live.stresses_ms, &baked.stresses_ms) <= 2.0);
    let ids = |c: &LineCue| -> Vec<_> { c.track.events().iter().map(|e| e.id).collect() };
    assert_eq!(ids(&live), ids(&baked), "the same visemes");
    assert_eq!(live.audio_ms, baked.audio_ms);
}
