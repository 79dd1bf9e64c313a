//! The Khronos glTF-Validator (npm `gltf-validator`, run with node): `scripts/setup.sh`
//! installs it into a cache folder and tells the tests where (`NPC_GLTF_VALIDATOR`).

#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr
)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the validator package is: `NPC_GLTF_VALIDATOR`, else the cache folder setup.sh uses.
pub fn validator() -> Option<PathBuf> {
    let dir = std::env::var_os("NPC_GLTF_VALIDATOR")
        .map(PathBuf::from)
        .or_else(|| Some(super::cache_dir()?.join("gltf-validator/node_modules/gltf-validator")))?;
    if dir.join("package.json").exists() {
        return Some(dir);
    }
    super::not_run(
        &format!("the glTF validator is not installed at {}", dir.display()),
        "scripts/setup.sh installs it",
    );
    None
}

/// The validator's report on each file: (file, errors, warnings, first error messages).
pub fn validate(validator: &Path, files: &[PathBuf]) -> Vec<serde_json::Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/validate_gltf.js");
    let out = Command::new("node")
        .arg(script)
        .arg(validator)
        .args(files)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "the validator failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Validates `files` and asserts that none has an error.
pub fn assert_valid(validator: &Path, files: &[PathBuf]) {
    let reports = validate(validator, files);
    assert_eq!(reports.len(), files.len(), "{reports:?}");
    for report in reports {
        eprintln!("{report}");
        assert_eq!(report["errors"], 0, "{report}");
    }
}
