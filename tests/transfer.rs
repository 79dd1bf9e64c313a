//! `npc-player transfer` end to end on real avatars from other tools: the written file keeps
//! what the avatar had, carries the 52 ARKit targets on the parts that follow them, loads back
//! with a face that moves and passes the Khronos validator; what a user can get wrong gets a
//! clear message and writes nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use std::path::Path;

use common::shared_asset;
use common::validator::{assert_valid, validator};
use npc_core::asset::Asset;
use serde_json::Value;

/// Runs `npc-player transfer ARGS`; the error as the command prints it.
fn run(args: &[&str]) -> Result<(), String> {
    let mut all = vec!["npc-player", "transfer"];
    all.extend_from_slice(args);
    npc_player::run_from(all).map_err(|e| format!("{e:#}"))
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// ARKit targets the loaded face rig drives.
fn arkit_coverage(asset: &Asset) -> usize {
    asset.face_rig.arkit_coverage()
}

#[test]
fn a_quaternius_avatar_gets_a_face_and_keeps_the_rest() {
    let Some(avatar) = shared_asset("avatars/Quaternius_Superhero_Male.glb") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("hero.glb");
    let report = dir.path().join("report.json");
    run(&[
        "--target",
        path(&avatar),
        "--out",
        path(&out),
        "--report",
        path(&report),
    ])
    .unwrap();
    let before = Asset::load(&avatar).unwrap();
    let after = Asset::load(&out).unwrap();
    assert_eq!(arkit_coverage(&before), 0);
    assert_eq!(arkit_coverage(&after), 52);
    assert_eq!(after.nodes.len(), before.nodes.len());
    assert_eq!(after.skins.len(), before.skins.len());
    assert_eq!(after.materials.len(), before.materials.len());
    assert_eq!(
        after.meshes[2].primitives[0].positions,
        before.meshes[2].primitives[0].positions
    );
    let report: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(
        report["target_landmarks"].as_object().unwrap().len(),
        17,
        "{report}"
    );
    assert_eq!(report["seam"]["lips_part"], true, "{report}");
    if let Some(validator) = validator() {
        assert_valid(&validator, &[out]);
    }
}

#[test]
fn a_valid_avatar_can_trade_its_own_shapes_for_arkit_ones() {
    let Some(avatar) = shared_asset("avatars/VALID_White_M_1_Casual.glb") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let kept = dir.path().join("kept.glb");
    let replaced = dir.path().join("replaced.glb");
    run(&["--target", path(&avatar), "--out", path(&kept)]).unwrap();
    run(&[
        "--target",
        path(&avatar),
        "--out",
        path(&replaced),
        "--replace-shapes",
    ])
    .unwrap();
    let kept_asset = Asset::load(&kept).unwrap();
    let replaced_asset = Asset::load(&replaced).unwrap();
    // The head: its 65 own shapes and the 52 new ones, or the new ones alone.
    assert_eq!(kept_asset.meshes[0].target_count(), 65 + 52);
    assert_eq!(replaced_asset.meshes[0].target_count(), 52);
    assert_eq!(arkit_coverage(&replaced_asset), 52);
    if let Some(validator) = validator() {
        assert_valid(&validator, &[kept, replaced]);
    }
}

#[test]
fn what_a_user_gets_wrong_is_named_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.glb");
    let Some(fox) = shared_asset("gltf-samples/Fox/Fox.glb") else {
        return;
    };
    let error = run(&["--target", path(&fox), "--out", path(&out)]).unwrap_err();
    assert!(error.contains("no eyeballs found"), "{error}");
    assert!(!out.exists());

    let Some(avatar) = shared_asset("avatars/Quaternius_Superhero_Female.glb") else {
        return;
    };
    let landmarks = dir.path().join("landmarks.json");
    std::fs::write(&landmarks, "{\"target\": {\"nose_tip\": [0, 1]}}").unwrap();
    let error = run(&[
        "--target",
        path(&avatar),
        "--out",
        path(&out),
        "--landmarks",
        path(&landmarks),
    ])
    .unwrap_err();
    assert!(
        error.contains("landmarks.json: not a landmark file"),
        "{error}"
    );
    assert!(!out.exists());
}
