//! `npc-player generate-assets` and `npc-player check` as a user runs them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use common::{npc_player, one_line_failure};

#[test]
fn the_demo_project_checks_clean_against_generated_content() {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path().join("assets");
    let out = npc_player(&["generate-assets", "--out", assets.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo.ron");
    let project = dir.path().join("demo.ron");
    std::fs::copy(demo, &project).unwrap();
    let out = npc_player(&["check", "--project", project.to_str().unwrap()]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("ok (3 NPCs)"), "{stdout}");
    assert!(!stdout.contains("problem:"), "{stdout}");
}

#[test]
fn a_bad_project_lists_each_problem_on_its_own_line() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("bad.ron");
    std::fs::write(
        &project,
        "(version: 1,\n  scene: (fog: (start: 10.0, end: 5.0)),\n  npcs: [(id: \"A\", avatar: (body: \"x.glb\"), spawn: (2.0, 0.5))],\n)\n",
    )
    .unwrap();
    let out = npc_player(&["check", "--project", project.to_str().unwrap()]);
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    let stderr = one_line_failure(&out);
    assert!(stderr.contains("2 problem(s)"), "{stderr}");
    let problems: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("problem:"))
        .collect();
    assert_eq!(problems.len(), 2, "{stdout}");
    assert!(problems[0].contains("scene.fog"), "{stdout}");
    assert!(problems[1].contains("spawn"), "{stdout}");

    std::fs::write(&project, "(version: 1, colour: 3)").unwrap();
    let out = npc_player(&["check", "--project", project.to_str().unwrap()]);
    let stderr = one_line_failure(&out);
    assert!(
        stderr.contains("bad.ron:1:") && stderr.contains("colour"),
        "{stderr}"
    );
}

/// A real head without ARKit names talks on its own shapes: `check` says a starting table plays
/// them, and refuses a shapes table naming a target the avatar lacks.
#[test]
fn own_shapes_are_checked_against_the_avatar() {
    let Some(avatar) = common::shared_asset("avatars/VALID_White_M_1_Casual.glb") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let project = common::demo_with_avatar(dir.path(), &avatar);
    let demo = std::fs::read_to_string(&project).unwrap();
    let out = npc_player(&["check", "--project", project.to_str().unwrap()]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("a starting table plays its DAZ-style expressions"),
        "{stdout}"
    );
    let tuned = demo.replacen(
        &format!("body: {avatar:?},"),
        &format!(
            "body: {avatar:?}, shapes: Some((visemes: {{21: {{\"h_expressions.MPB_Up_h\": 1.0, \"Nope\": 0.5}}}})),"
        ),
        1,
    );
    std::fs::write(&project, tuned).unwrap();
    let out = npc_player(&["check", "--project", project.to_str().unwrap()]);
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    one_line_failure(&out);
    assert!(
        stdout.contains("avatar.shapes names the target \"Nope\", which the avatar does not have"),
        "{stdout}"
    );
}

/// `check` opens the clips file an avatar names as the world does: one that cannot be read (a
/// damaged FBX file) is a problem here, not a refusal at load.
#[test]
fn a_clips_file_that_cannot_be_read_is_a_problem() {
    let dir = tempfile::tempdir().unwrap();
    let project = common::demo_with_avatar(dir.path(), "assets/avatar.glb");
    let ron = std::fs::read_to_string(&project).unwrap();
    std::fs::write(dir.path().join("Idle.fbx"), b"Kaydara FBX Binary  \x00").unwrap();
    let with_clips = ron.replacen("head: None,", "head: None, clips: Some(\"Idle.fbx\"),", 1);
    assert_ne!(
        with_clips, ron,
        "the demo's first avatar has no head of its own"
    );
    std::fs::write(&project, with_clips).unwrap();
    let out = npc_player(&["check", "--project", project.to_str().unwrap()]);
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    let stderr = one_line_failure(&out);
    assert!(stderr.contains("1 problem(s)"), "{stdout}{stderr}");
    assert!(
        stdout.lines().any(|l| l.starts_with("problem:")
            && l.contains("avatar.clips")
            && l.contains("Idle.fbx")),
        "{stdout}"
    );
}
