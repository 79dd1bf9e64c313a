//! Running the `npc-player` binary and finding shared test files.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

#[path = "../../../tests/common/shared_asset.rs"]
mod shared;

#[allow(unused_imports)]
pub use shared::{facecap, fetched, not_run, vrm_avatar};

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs `npc-player` with `args`.
pub fn npc_player(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_npc-player"))
        .args(args)
        .output()
        .expect("run npc-player")
}

/// A file under ../shared/assets as a command-line argument, or None (a failure under CI) when
/// it is missing.
pub fn shared_asset(relative: &str) -> Option<String> {
    shared::shared_asset(relative).map(|p| p.display().to_string())
}

/// Asserts a failed run: exit 1, one line on stderr, no panic; returns that line.
pub fn one_line_failure(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

/// The demo project in `dir` beside its generated assets, with Elara's body replaced by
/// `avatar`; returns the project file.
pub fn demo_with_avatar(dir: &std::path::Path, avatar: &str) -> PathBuf {
    let assets = dir.join("assets");
    assert!(
        npc_player(&["generate-assets", "--out", assets.to_str().unwrap()])
            .status
            .success()
    );
    let demo = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../projects/demo.ron"),
    )
    .unwrap();
    let project = dir.join("p.ron");
    std::fs::write(&project, demo.replacen("assets/avatar.glb", avatar, 1)).unwrap();
    project
}
