//! The default content, generated from scratch, loads through the glTF loader like any user
//! file, and the demo project checks clean against it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use npc_core::asset::Asset;
use npc_core::asset::inspect::Inspection;
use npc_core::procedural::generate::{generate, is_complete};
use npc_core::project::{Project, check_assets};

#[test]
fn generated_content_loads_and_the_demo_project_checks_clean() {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path().join("assets");
    assert!(!is_complete(&assets));
    let written = generate(&assets).unwrap();
    assert!(is_complete(&assets));
    assert_eq!(written.len(), 3 + 18);

    let head = Inspection::of(&Asset::load(&assets.join("head.glb")).unwrap());
    assert_eq!(head.arkit_coverage, 52, "missing {:?}", head.arkit_missing);

    let avatar = Asset::load(&assets.join("avatar.glb")).unwrap();
    let report = Inspection::of(&avatar);
    assert_eq!(report.arkit_coverage, 52);
    let joints = &report.skins[0].joint_names;
    for name in [
        "mixamorig:Hips",
        "mixamorig:Spine",
        "mixamorig:Neck",
        "mixamorig:Head",
        "mixamorig:LeftHand",
        "mixamorig:RightFoot",
    ] {
        assert!(joints.iter().any(|j| j == name), "no joint {name}");
    }
    let clips: Vec<&str> = report.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(clips, ["idle", "walk", "talk"]);

    let scene = Asset::load(&assets.join("scene.glb")).unwrap();
    assert!(
        scene.repeated_instances() >= 500,
        "{} instances",
        scene.repeated_instances()
    );
    assert!(!scene.collision_grid().is_empty());

    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("projects/demo.ron");
    let project_file = dir.path().join("demo.ron");
    std::fs::copy(&demo, &project_file).unwrap();
    let project = Project::load(&project_file).unwrap();
    let check = check_assets(&project, &project_file);
    assert!(check.is_ok(), "{:?}", check.problems);
    assert_eq!(project.npcs.len(), 3);
}

#[test]
fn generation_is_deterministic() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    generate(a.path()).unwrap();
    generate(b.path()).unwrap();
    for file in [
        "head.glb",
        "avatar.glb",
        "scene.glb",
        "sky/sky_night_pz.png",
    ] {
        assert_eq!(
            std::fs::read(a.path().join(file)).unwrap(),
            std::fs::read(b.path().join(file)).unwrap(),
            "{file} differs between runs"
        );
    }
}

#[test]
fn a_project_with_missing_assets_fails_its_check_with_one_line_each() {
    let dir = tempfile::tempdir().unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("projects/demo.ron");
    let project_file = dir.path().join("demo.ron");
    std::fs::copy(&demo, &project_file).unwrap();
    let project = Project::load(&project_file).unwrap();
    let check = check_assets(&project, &project_file);
    assert!(!check.is_ok());
    assert!(
        check
            .problems
            .iter()
            .any(|p| p.contains("scene assets/scene.glb")),
        "{:?}",
        check.problems
    );
    assert!(
        check
            .problems
            .iter()
            .any(|p| p.contains("npc Elara: body assets/avatar.glb")),
        "{:?}",
        check.problems
    );
    assert!(
        check.problems.iter().any(|p| p.contains("sky_day_px.png")),
        "{:?}",
        check.problems
    );
}
