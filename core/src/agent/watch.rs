//! Waking up when the agent directory changes.
//!
//! [`DirWatcher`] watches folders (non-recursively) with `notify` and turns events into
//! wake-ups. It never fails: when events are unavailable it reports why (see
//! [`take_errors`](DirWatcher::take_errors)) and [`wait`](DirWatcher::wait) simply returns
//! every poll interval, so the consumer re-checks the files on its own (the fallback for
//! file systems where events do not come). Events about merely opening or reading files
//! (the runtime's own reads) and about ignored names (the runtime's own writes) do not wake.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode, EventKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};

/// How often [`DirWatcher::wait`] returns at the latest, by default.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_millis(250);

#[derive(Debug)]
struct Watched {
    dir: PathBuf,
    /// Identity of the folder when a watch was last set; `None` = not there (yet).
    identity: Option<(u64, u64)>,
}

#[cfg(unix)]
fn dir_identity(dir: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(dir)
        .ok()
        .filter(|m| m.is_dir())
        .map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn dir_identity(dir: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(dir)
        .ok()
        .filter(|m| m.is_dir())
        .map(|_| (0, 0))
}

/// Wake-ups on changes in a few folders, with a polling fallback.
#[derive(Debug)]
pub struct DirWatcher {
    rx: Receiver<notify::Result<notify::Event>>,
    watcher: Option<RecommendedWatcher>,
    dirs: Vec<Watched>,
    ignored_prefixes: Vec<String>,
    poll_interval: Duration,
    errors: Vec<String>,
}

impl DirWatcher {
    /// Starts watching `dirs` (those that do not exist yet are watched once they appear).
    pub fn new(dirs: &[PathBuf], poll_interval: Duration) -> Self {
        let (tx, rx) = mpsc::channel();
        let mut errors = Vec::new();
        let watcher = match notify::recommended_watcher(tx) {
            Ok(w) => Some(w),
            Err(e) => {
                errors.push(format!(
                    "file events are unavailable ({e}); checking every {} ms instead",
                    poll_interval.as_millis()
                ));
                None
            }
        };
        let mut this = Self {
            rx,
            watcher,
            dirs: Vec::new(),
            ignored_prefixes: Vec::new(),
            poll_interval: poll_interval.max(Duration::from_millis(1)),
            errors,
        };
        for d in dirs {
            this.add_dir(d);
        }
        this
    }

    /// Events only about files whose names start with one of these prefixes do not wake.
    pub fn ignore_prefixes(&mut self, prefixes: &[&str]) {
        self.ignored_prefixes = prefixes.iter().map(|p| (*p).to_owned()).collect();
    }

    /// Watches one more folder (no-op when already watched).
    pub fn add_dir(&mut self, dir: &Path) {
        if !self.dirs.iter().any(|w| w.dir == dir) {
            self.dirs.push(Watched {
                dir: dir.to_path_buf(),
                identity: None,
            });
        }
        self.refresh();
    }

    /// Sets watches on folders that appeared or were replaced since.
    fn refresh(&mut self) {
        let Some(watcher) = self.watcher.as_mut() else {
            return;
        };
        for w in &mut self.dirs {
            let now = dir_identity(&w.dir);
            if now == w.identity {
                continue;
            }
            if w.identity.is_some() {
                // Gone or replaced: the old watch is dead; errors here mean nothing.
                let _ = watcher.unwatch(&w.dir);
            }
            // Remembered even when the watch fails, so a failure is reported once.
            w.identity = now;
            if now.is_some() {
                match watcher.watch(&w.dir, RecursiveMode::NonRecursive) {
                    Ok(()) => {}
                    Err(e) => self.errors.push(format!(
                        "cannot watch {} ({e}); checking every {} ms instead",
                        w.dir.display(),
                        self.poll_interval.as_millis()
                    )),
                }
            }
        }
    }

    fn wakes(&mut self, event: notify::Result<notify::Event>) -> bool {
        match event {
            Err(e) => {
                self.errors.push(format!("file event error: {e}"));
                true
            }
            Ok(ev) => {
                if let EventKind::Access(kind) = ev.kind
                    && kind != AccessKind::Close(AccessMode::Write)
                {
                    return false;
                }
                let ignored = |p: &PathBuf| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| self.ignored_prefixes.iter().any(|i| n.starts_with(i)))
                };
                ev.paths.is_empty() || !ev.paths.iter().all(ignored)
            }
        }
    }

    /// Blocks until something changed, the poll interval passed, or `timeout` passed,
    /// whichever is first. Returns true when a file event came (false: poll anyway).
    pub fn wait(&mut self, timeout: Duration) -> bool {
        self.refresh();
        let mut left = timeout.min(self.poll_interval);
        loop {
            let started = std::time::Instant::now();
            match self.rx.recv_timeout(left) {
                Ok(ev) => {
                    let mut woke = self.wakes(ev);
                    while let Ok(ev) = self.rx.try_recv() {
                        woke |= self.wakes(ev);
                    }
                    if woke {
                        return true;
                    }
                    left = left.saturating_sub(started.elapsed());
                    if left.is_zero() {
                        return false;
                    }
                }
                Err(RecvTimeoutError::Timeout) => return false,
                Err(RecvTimeoutError::Disconnected) => {
                    // No event source: plain polling.
                    std::thread::sleep(left);
                    return false;
                }
            }
        }
    }

    /// Errors met since the last call (events unavailable, a folder that cannot be watched).
    pub fn take_errors(&mut self) -> Vec<String> {
        std::mem::take(&mut self.errors)
    }
}
