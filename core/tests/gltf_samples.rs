//! The Khronos sample models in ../shared load, and what inspect reports matches the files.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::PathBuf;

use npc_core::asset::Asset;
use npc_core::asset::inspect::Inspection;

fn samples_dir() -> Option<PathBuf> {
    // Run from the package's folder (core/) of the checkout under test.
    let here =
        std::env::current_dir().unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    let dir = here.join("../../shared/assets/gltf-samples");
    if dir.is_dir() {
        return Some(dir);
    }
    common::not_run(
        &format!("no sample models at {}", dir.display()),
        "the workspace's ../shared folder holds them",
    );
    None
}

fn inspect(relative: &str) -> Option<(Asset, Inspection)> {
    let path = samples_dir()?.join(relative);
    let asset = Asset::load(&path).unwrap_or_else(|e| panic!("{relative}: {e}"));
    let report = Inspection::of(&asset);
    Some((asset, report))
}

#[test]
fn morph_stress_test_has_eight_named_targets() {
    let Some((_, report)) = inspect("MorphStressTest/MorphStressTest.gltf") else {
        return;
    };
    let with_targets: Vec<_> = report
        .meshes
        .iter()
        .filter(|m| !m.targets.is_empty())
        .collect();
    assert_eq!(with_targets.len(), 1);
    assert_eq!(with_targets[0].targets.len(), 8);
    assert!(with_targets[0].targets.iter().all(|t| t.name.is_some()));
    assert_eq!(report.target_names.len(), 8);
    assert_eq!(report.arkit_coverage, 0);
}

#[test]
fn animated_morph_cube_has_two_unnamed_targets_and_a_weights_clip() {
    let Some((asset, report)) = inspect("AnimatedMorphCube/AnimatedMorphCube.gltf") else {
        return;
    };
    assert_eq!(report.meshes.len(), 1);
    assert_eq!(report.meshes[0].primitives[0].targets, 2);
    assert_eq!(asset.clips.len(), 1);
    assert!(asset.clips[0].duration_s > 0.0);
}

#[test]
fn morph_primitives_test_shares_a_target_across_two_primitives() {
    let Some((_, report)) = inspect("MorphPrimitivesTest/MorphPrimitivesTest.gltf") else {
        return;
    };
    let mesh = report
        .meshes
        .iter()
        .find(|m| m.primitives.len() == 2)
        .expect("a mesh with two primitives");
    assert!(mesh.primitives.iter().all(|p| p.targets == 1));
}

#[test]
fn fox_has_24_joints_and_three_clips() {
    let Some((asset, report)) = inspect("Fox/Fox.glb") else {
        return;
    };
    assert_eq!(report.skins.len(), 1);
    assert_eq!(report.skins[0].joints, 24);
    let names: Vec<&str> = report.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Survey", "Walk", "Run"]);
    assert!(report.clips.iter().all(|c| c.duration_s > 0.5));
    assert!(
        asset.meshes[0].primitives[0].joints.len() == asset.meshes[0].primitives[0].positions.len()
    );
    assert!(
        asset.textures.iter().flatten().count() >= 1,
        "the fox's texture decodes"
    );
}

#[test]
fn simple_skin_has_two_joints() {
    let Some((_, report)) = inspect("SimpleSkin/SimpleSkin.gltf") else {
        return;
    };
    assert_eq!(report.skins.len(), 1);
    assert_eq!(report.skins[0].joints, 2);
    assert_eq!(report.clips.len(), 1);
}

#[test]
fn simple_instancing_places_125_instances() {
    let Some((_, report)) = inspect("SimpleInstancing/simple-instancing.glb") else {
        return;
    };
    assert_eq!(report.instances, 125);
    assert!(
        report
            .extensions_used
            .iter()
            .any(|e| e == "EXT_mesh_gpu_instancing")
    );
}

#[test]
fn simple_morph_loads() {
    let Some((asset, _)) = inspect("SimpleMorph/SimpleMorph.gltf") else {
        return;
    };
    assert_eq!(asset.meshes[0].target_count(), 2);
    assert_eq!(asset.meshes[0].default_weights, vec![0.5, 0.5]);
}
