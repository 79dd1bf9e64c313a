//! `npc-player run` and `render` from the command line: clear errors for what a user can get
//! wrong, and frames on disk when all is there.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

use common::npc_player;

#[test]
fn without_a_display_run_says_so_and_suggests_render() {
    let tmp = tempfile::tempdir().unwrap();
    npc_core::procedural::generate::generate(&tmp.path().join("assets")).unwrap();
    let project = tmp.path().join("demo.ron");
    npc_core::project::demo_project().save(&project).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_npc-player"))
        .args(["run", "--project", project.to_str().unwrap()])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("no display"), "{stderr}");
    assert!(stderr.contains("npc-player render"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn render_writes_frames_and_explains_missing_assets_and_npcs() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("demo.ron");
    npc_core::project::demo_project().save(&project).unwrap();
    let out_dir = tmp.path().join("frames");
    let args = |extra: &[&str]| {
        let mut a = vec![
            "render",
            "--project",
            project.to_str().unwrap(),
            "--size",
            "64x48",
            "--out",
            out_dir.to_str().unwrap(),
        ];
        a.extend_from_slice(extra);
        a.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        npc_player(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    // No assets yet: one clear line naming the file and how to make it.
    let out = run(&[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("scene.glb") && stderr.contains("generate-assets"),
        "{stderr}"
    );
    npc_core::procedural::generate::generate(&tmp.path().join("assets")).unwrap();
    let out = run(&["--closeup", "Nobody"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Nobody") && stderr.contains("Elara"),
        "{stderr}"
    );
    let out = run(&["--frames", "2", "--time-of-day", "0.5"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in ["frame_0000.png", "frame_0001.png"] {
        let image = image::open(out_dir.join(name)).unwrap();
        assert_eq!((image.width(), image.height()), (64, 48));
    }
}

#[test]
fn run_refuses_an_unknown_npc_to_frame_and_render_a_time_of_day_out_of_range() {
    let tmp = tempfile::tempdir().unwrap();
    npc_core::procedural::generate::generate(&tmp.path().join("assets")).unwrap();
    let project = tmp.path().join("demo.ron");
    npc_core::project::demo_project().save(&project).unwrap();
    let project = project.to_str().unwrap();
    let agents = tmp.path().join("agents");
    let out = npc_player(&[
        "run",
        "--project",
        project,
        "--agent-dir",
        agents.to_str().unwrap(),
        "--headless",
        "--mute",
        "--duration",
        "1",
        "--closeup",
        "Nobody",
    ]);
    let stderr = common::one_line_failure(&out);
    assert!(
        stderr.contains("--closeup Nobody") && stderr.contains("Elara"),
        "{stderr}"
    );
    let frames = tmp.path().join("frames");
    let out = npc_player(&[
        "render",
        "--project",
        project,
        "--time-of-day",
        "1.5",
        "--out",
        frames.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("0.5 is noon"), "{stderr}");
    assert!(!frames.exists(), "nothing drawn");
}
