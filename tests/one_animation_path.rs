//! The bake command prints exactly what the shared face animator computes: one code path.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;

use npc_core::LineCue;
use npc_core::anim::face::FaceSettings;
use npc_core::anim::timeline::{BakeOptions, BakeReport, bake};
use npc_core::project::Project;

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
