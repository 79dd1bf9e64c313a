//! The one lookup of third-party test files under ../shared/assets beside the workspace, for
//! every package's tests (included by path where a package cannot reach this module).

use std::path::{Path, PathBuf};

/// A file under ../shared/assets, or None when it is missing (a failure under CI).
pub fn shared_asset(relative: &str) -> Option<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = manifest
        .ancestors()
        .find(|d| d.join("Cargo.lock").exists())
        .unwrap_or(manifest);
    let path = workspace.join("../shared/assets").join(relative);
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "missing {}",
        path.display()
    );
    None
}
