//! Shared setup for the end-to-end runtime tests.

#![allow(dead_code, clippy::unwrap_used)]

use std::fs;
use std::path::{Path, PathBuf};

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
