//! Shared setup for the end-to-end runtime tests.

#![allow(dead_code, clippy::unwrap_used)]

mod shared_asset;
#[allow(unused_imports)]
pub use shared_asset::{cache_dir, facecap, fetched, not_run, shared_asset, vrm_avatar};

pub mod validator;

use std::fs;
use std::path::{Path, PathBuf};

use npc_core::project::demo_project;

/// A temp folder with a copy of the demo project (without its assets: the runtime must not
/// need them), an empty agent directory and a path for the events file.
#[derive(Debug)]
pub struct Setup {
    pub tmp: tempfile::TempDir,
    pub project: PathBuf,
    pub agent: PathBuf,
    pub events: PathBuf,
}

pub fn setup() -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("demo.ron");
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("projects/demo.ron"),
        &project,
    )
    .unwrap();
    let agent = tmp.path().join("agent");
    fs::create_dir(&agent).unwrap();
    let events = tmp.path().join("events.jsonl");
    Setup {
        tmp,
        project,
        agent,
        events,
    }
}

/// A temp folder with the demo project, its generated assets and an agent directory whose
/// `active.json` plays `conversations/c.jsonl` between Elara and Bram.
pub struct WorldDemo {
    pub tmp: tempfile::TempDir,
    pub project: PathBuf,
    pub agent: PathBuf,
}

pub fn world_demo() -> WorldDemo {
    let tmp = tempfile::tempdir().unwrap();
    npc_core::procedural::generate::generate(&tmp.path().join("assets")).unwrap();
    let project = tmp.path().join("demo.ron");
    demo_project().save(&project).unwrap();
    let agent = tmp.path().join("agent");
    fs::create_dir_all(agent.join("conversations")).unwrap();
    fs::write(
        agent.join("active.json"),
        r#"{"conversation": "conversations/c.jsonl", "speakers": ["Elara", "Bram"]}"#,
    )
    .unwrap();
    WorldDemo {
        tmp,
        project,
        agent,
    }
}

impl WorldDemo {
    /// Gives Elara (the roster's first NPC) `avatar` as her body.
    pub fn with_elara_as(self, avatar: &Path) -> Self {
        let demo = fs::read_to_string(&self.project).unwrap();
        fs::write(
            &self.project,
            demo.replacen("assets/avatar.glb", avatar.to_str().unwrap(), 1),
        )
        .unwrap();
        self
    }
}

/// Writes the conversation `conversations/c.jsonl` of the demo's agent directory.
pub fn write_lines(agent: &Path, lines: &[(&str, &str)]) {
    let text: String = lines
        .iter()
        .enumerate()
        .map(|(seq, (speaker, text))| {
            format!("{{\"seq\": {seq}, \"speaker_id\": \"{speaker}\", \"text\": \"{text}\"}}\n")
        })
        .collect();
    fs::write(agent.join("conversations/c.jsonl"), text).unwrap();
}

/// Draws `frames` frames of the demo world at 30 fps (tiny, no shadows) with its agent
/// directory's lines, recording them to `record`.
pub fn render_recorded(d: &WorldDemo, frames: u32, record: &Path) {
    render_recorded_at(d, frames, 30, record);
}

/// [`render_recorded`] at `fps` frames a second.
pub fn render_recorded_at(d: &WorldDemo, frames: u32, fps: u32, record: &Path) {
    let frames = frames.to_string();
    let fps = fps.to_string();
    npc_player::run_from([
        "npc-player",
        "render",
        "--project",
        d.project.to_str().unwrap(),
        "--agent-dir",
        d.agent.to_str().unwrap(),
        "--frames",
        &frames,
        "--fps",
        &fps,
        "--size",
        "32x18",
        "--no-shadows",
        "--record",
        record.to_str().unwrap(),
        "--out",
        d.tmp.path().join("frames").to_str().unwrap(),
    ])
    .unwrap();
}

/// Bakes `line` as Elara of `project` performs it, at 1000 fps, into `out`.
pub fn bake_elara(project: &Path, line: &str, out: &Path) {
    npc_player::run_from([
        "npc-player",
        "bake",
        "--project",
        project.to_str().unwrap(),
        "--npc",
        "Elara",
        "--text",
        line,
        "--fps",
        "1000",
        "--out",
        out.to_str().unwrap(),
    ])
    .unwrap();
}
