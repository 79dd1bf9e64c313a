//! The one lookup of third-party test files, under ../shared/assets beside the workspace or
//! fetched into the cache by scripts/setup.sh, for every package's tests (included by path
//! where a package cannot reach this module), and the one policy for a test whose data or tool
//! is missing: [`not_run`].

// Each package's tests use some of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Whether every test must run: `NPC_REQUIRE_DATA=1` (or `CI=true`, as before).
pub fn data_required() -> bool {
    std::env::var("NPC_REQUIRE_DATA").as_deref() == Ok("1")
        || std::env::var("CI").as_deref() == Ok("true")
}

/// Says that the running test cannot run: `what` is missing, `how` gets it. A failure when
/// every test must run ([`data_required`]); otherwise one line on stderr naming the test, and
/// the same line appended to `NPC_SKIP_LOG` (scripts/test.sh lists them all at the end), so a
/// test that could not run never passes silently.
pub fn not_run(what: &str, how: &str) {
    let thread = std::thread::current();
    // A test runs on a thread named after it; a benchmark's smoke run is its binary's main.
    let test = thread
        .name()
        .filter(|n| *n != "main")
        .map_or_else(String::new, |n| format!("::{n}"));
    let line = format!(
        "{} {}{test}: NOT RUN, {what} ({how})",
        env!("CARGO_PKG_NAME"),
        env!("CARGO_CRATE_NAME")
    );
    assert!(!data_required(), "{line}; NPC_REQUIRE_DATA=1 needs it");
    eprintln!("{line}");
    if let Some(log) = std::env::var_os("NPC_SKIP_LOG") {
        use std::io::Write;
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .and_then(|mut f| writeln!(f, "{line}"));
        if let Err(e) = written {
            eprintln!("cannot add to {}: {e}", Path::new(&log).display());
        }
    }
}

/// A file that exists, or None after saying the test cannot run without it.
fn present(path: PathBuf, how: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    not_run(&format!("no {}", path.display()), how);
    None
}

/// A file under ../shared/assets, or None when it is missing (see [`not_run`]).
pub fn shared_asset(relative: &str) -> Option<PathBuf> {
    // The checkout the tests run in: cargo runs them from their package's folder. (The
    // folder the binary was compiled in may be another checkout sharing the target folder.)
    let here =
        std::env::current_dir().unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    let workspace = here
        .ancestors()
        .find(|d| d.join("Cargo.lock").exists())
        .unwrap_or(&here)
        .to_owned();
    present(
        workspace.join("../shared/assets").join(relative),
        "the workspace's ../shared folder holds it",
    )
}

/// One of the VRM test avatars (`NPC_VRM_AVATARS`, else where `scripts/setup.sh` caches
/// them), or None when they have not been fetched (see [`not_run`]).
pub fn vrm_avatar(file: &str) -> Option<PathBuf> {
    let path = std::env::var_os("NPC_VRM_AVATARS")
        .map(PathBuf::from)
        .or_else(|| Some(cache_dir()?.join("vrm")))?
        .join(file);
    present(path, "scripts/setup.sh fetches it")
}

/// A file `scripts/setup.sh` fetches into its cache: the path in the environment variable
/// `var`, else `relative` in the cache; None when it is not there (see [`not_run`]).
pub fn fetched(var: &str, relative: &str) -> Option<PathBuf> {
    let path = std::env::var_os(var)
        .map(PathBuf::from)
        .or_else(|| Some(cache_dir()?.join(relative)))?;
    present(path, "scripts/setup.sh fetches it")
}

/// The folder `scripts/setup.sh` caches test tools and files in.
pub fn cache_dir() -> Option<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(cache.join("living-npc"))
}

/// The Face Cap head with its real ARKit capture (`NPC_FACECAP`, else where
/// `scripts/setup.sh` caches it), or None when it has not been fetched (see [`not_run`]).
pub fn facecap() -> Option<PathBuf> {
    fetched("NPC_FACECAP", "captures/facecap.glb")
}
