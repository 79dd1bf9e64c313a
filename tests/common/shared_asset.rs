//! The one lookup of third-party test files, under ../shared/assets beside the workspace or
//! fetched into the cache by scripts/setup.sh, for every package's tests (included by path
//! where a package cannot reach this module).

// Each package's tests use some of these.
#![allow(dead_code)]

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

/// One of the VRM test avatars (`NPC_VRM_AVATARS`, else where `scripts/setup.sh` caches
/// them), or None when they have not been fetched (a failure under CI).
pub fn vrm_avatar(file: &str) -> Option<PathBuf> {
    let path = std::env::var_os("NPC_VRM_AVATARS")
        .map(PathBuf::from)
        .or_else(|| Some(cache_dir()?.join("vrm")))?
        .join(file);
    assert!(
        path.exists() || std::env::var("CI").as_deref() != Ok("true"),
        "missing {} (scripts/setup.sh fetches it)",
        path.display()
    );
    path.exists().then_some(path)
}

/// The folder `scripts/setup.sh` caches test tools and files in.
pub fn cache_dir() -> Option<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(cache.join("living-npc"))
}

/// The Face Cap head with its real ARKit capture (`NPC_FACECAP`, else where
/// `scripts/setup.sh` caches it), or None when it has not been fetched (a failure under CI).
pub fn facecap() -> Option<PathBuf> {
    let path = std::env::var_os("NPC_FACECAP")
        .map(PathBuf::from)
        .or_else(|| Some(cache_dir()?.join("captures/facecap.glb")))?;
    assert!(
        path.exists() || std::env::var("CI").as_deref() != Ok("true"),
        "missing {} (scripts/setup.sh fetches it)",
        path.display()
    );
    path.exists().then_some(path)
}
