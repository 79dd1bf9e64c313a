//! Every GLB the project writes passes the Khronos glTF-Validator with no errors: the default
//! content (`generate-assets`) here, exports in tests/exports.rs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::PathBuf;

use common::validator::{assert_valid, validator};

#[test]
fn the_default_content_passes_the_khronos_validator() {
    let Some(validator) = validator() else { return };
    let dir = tempfile::tempdir().unwrap();
    let written = npc_core::procedural::generate::generate(dir.path()).unwrap();
    let glbs: Vec<PathBuf> = written
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "glb"))
        .collect();
    assert_eq!(glbs.len(), 3, "head, avatar and scene");
    assert_valid(&validator, &glbs);
}
