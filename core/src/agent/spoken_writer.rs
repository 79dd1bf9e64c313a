//! `spoken.json` written by a thread of its own, so that the frame that ends a line never waits
//! on the disk (an atomic write syncs the file: milliseconds on a good disk, far more on a slow
//! or full one). Each state handed over replaces the one not yet written (the file is a whole
//! snapshot, so only the newest matters); a write that fails (a full disk, the folder gone) is
//! tried again every [`SPOKEN_RETRY`] until it lands; what is handed over before the writer is
//! dropped is written before it goes.

use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::protocol::Spoken;
use super::spoken;
use crate::disk::Disk;

/// How often a failed write of `spoken.json` is tried again.
pub const SPOKEN_RETRY: Duration = Duration::from_millis(500);

/// What passes between the directory and its writer.
#[derive(Debug, Default)]
struct State {
    /// The newest state not yet on disk, and its number.
    pending: Option<(u64, Spoken)>,
    /// How many states were handed over, and the number of the last on disk.
    submitted: u64,
    written: u64,
    /// Why the last write failed, while the disk is behind.
    failing: Option<String>,
    /// What the directory should say (failures, recoveries), oldest first.
    reports: Vec<String>,
    stop: bool,
}

#[derive(Debug, Default)]
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The thread that writes `spoken.json`.
#[derive(Debug)]
pub(crate) struct SpokenWriter {
    path: PathBuf,
    disk: Disk,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl SpokenWriter {
    /// A writer of `path`. Without a thread (the system refused one), states are written
    /// on the caller's thread instead.
    pub(crate) fn new(path: PathBuf, disk: Disk) -> Self {
        let shared = Arc::new(Shared::default());
        let theirs = Arc::clone(&shared);
        let file = path.clone();
        let their_disk = disk.clone();
        let thread = thread::Builder::new()
            .name("spoken-writer".to_owned())
            .spawn(move || run(&their_disk, &file, &theirs));
        let thread = match thread {
            Ok(t) => Some(t),
            Err(e) => {
                tracing::warn!("cannot start the spoken.json writer ({e}); writing it inline");
                None
            }
        };
        Self {
            path,
            disk,
            shared,
            thread,
        }
    }

    /// Hands `spoken` over to be written (replacing a state not yet written).
    pub(crate) fn submit(&self, spoken: &Spoken) {
        let mut state = self.shared.lock();
        state.submitted += 1;
        let n = state.submitted;
        if self.thread.is_none() {
            drop(state);
            let result = spoken::write_atomic(&self.disk, &self.path, spoken);
            let mut state = self.shared.lock();
            settle(&mut state, n, result.map_err(|e| e.to_string()), &self.path);
            return;
        }
        state.pending = Some((n, spoken.clone()));
        self.shared.changed.notify_all();
    }

    /// Whether the disk is behind the last state handed over.
    pub(crate) fn behind(&self) -> bool {
        let state = self.shared.lock();
        state.written < state.submitted
    }

    /// What the writer has to say since the last call.
    pub(crate) fn take_reports(&self) -> Vec<String> {
        std::mem::take(&mut self.shared.lock().reports)
    }

    /// Waits up to `timeout` for the disk to hold the last state handed over; whether it
    /// does.
    pub(crate) fn flush(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut state = self.shared.lock();
        while state.written < state.submitted {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            state = self
                .shared
                .changed
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        true
    }
}

impl Drop for SpokenWriter {
    /// The last state reaches the disk before the writer goes, when the disk takes it.
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.changed.notify_all();
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::warn!("the spoken.json writer panicked");
        }
    }
}

/// Records the outcome of writing state `n`.
fn settle(state: &mut State, n: u64, result: Result<(), String>, path: &std::path::Path) {
    match result {
        Ok(()) => {
            state.written = state.written.max(n);
            if state.failing.take().is_some() {
                state.reports.push(format!(
                    "{} written again: the lines heard while it could not be are recorded",
                    path.display()
                ));
            }
        }
        Err(why) => {
            if state.failing.is_none() {
                state.reports.push(format!(
                    "cannot write {}: {why}; trying again every {} ms",
                    path.display(),
                    SPOKEN_RETRY.as_millis()
                ));
            }
            state.failing = Some(why);
        }
    }
}

fn run(disk: &Disk, path: &std::path::Path, shared: &Shared) {
    let mut state = shared.lock();
    loop {
        let stopping = state.stop;
        let Some((n, spoken)) = state.pending.take() else {
            if stopping {
                return;
            }
            state = shared
                .changed
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
            continue;
        };
        drop(state);
        let result = spoken::write_atomic(disk, path, &spoken).map_err(|e| e.to_string());
        let failed = result.is_err();
        state = shared.lock();
        settle(&mut state, n, result, path);
        if failed && state.pending.is_none() {
            state.pending = Some((n, spoken));
        }
        shared.changed.notify_all();
        if failed {
            if stopping {
                // The last try at exit: the disk did not take it (said in the reports).
                tracing::warn!(
                    "{} is behind: {}",
                    path.display(),
                    state.failing.as_deref().unwrap_or("the write failed")
                );
                return;
            }
            // Wait out the retry interval, unless a newer state or the stop comes first.
            let deadline = Instant::now() + SPOKEN_RETRY;
            while !state.stop && state.pending.as_ref().is_some_and(|(m, _)| *m == n) {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                state = shared
                    .changed
                    .wait_timeout(state, left)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
        }
    }
}
