//! Waking up when the agent directory changes, in a build without file events (the `watch`
//! feature off): [`DirWatcher`] has the same interface as the event-driven one and wakes every
//! poll interval, so the directory is re-read on that beat.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// How often [`DirWatcher::wait`] returns at the latest, by default.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_millis(250);

/// Wake-ups every poll interval.
#[derive(Debug)]
pub struct DirWatcher {
    poll_interval: Duration,
}

impl DirWatcher {
    /// A watcher of nothing that polls: `dirs` are re-read by the directory on each wake.
    #[must_use]
    pub fn new(_dirs: &[PathBuf], poll_interval: Duration) -> Self {
        Self { poll_interval }
    }

    /// Names the runtime writes itself; nothing to ignore when nothing is watched.
    pub fn ignore_prefixes(&mut self, _prefixes: &[&str]) {}

    /// Another folder to watch; polling covers it already.
    pub fn add_dir(&mut self, _dir: &Path) {}

    /// Sleeps for the poll interval or `timeout`, whichever is shorter; never an event.
    pub fn wait(&mut self, timeout: Duration) -> bool {
        std::thread::sleep(timeout.min(self.poll_interval));
        false
    }

    /// No event source, no errors.
    pub fn take_errors(&mut self) -> Vec<String> {
        Vec::new()
    }
}
