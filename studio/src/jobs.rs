//! Long work off the UI thread: speaking a line, aligning or lip-syncing a recording, giving a
//! head the face shapes. Each runs on a thread of its own while the window keeps drawing and
//! answering; the studio takes what it made on a later frame and applies it there, so state
//! changes on the UI thread only. Starting a job of a kind that is already running replaces
//! it: what the older one makes is dropped when it comes (the newest request wins).

use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// One kind of job: the one running, if any.
#[derive(Debug)]
pub struct Job<T> {
    running: Option<Running<T>>,
}

#[derive(Debug)]
struct Running<T> {
    /// What it does, for the status bar ("speaking the line").
    what: String,
    since: Instant,
    made: mpsc::Receiver<T>,
}

impl<T> Default for Job<T> {
    fn default() -> Self {
        Self { running: None }
    }
}

impl<T: Send + 'static> Job<T> {
    /// Starts `work` on a thread of its own, described as `what`, in place of the job
    /// running.
    ///
    /// # Errors
    /// The system refused a thread.
    pub fn start(
        &mut self,
        what: impl Into<String>,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<(), String> {
        let what = what.into();
        let (tx, made) = mpsc::channel();
        thread::Builder::new()
            .name("studio-job".to_owned())
            .spawn(move || {
                // The studio may have gone (or started a newer job): nothing waits then.
                let _ = tx.send(work());
            })
            .map_err(|e| format!("cannot start {what}: {e}"))?;
        self.running = Some(Running {
            what,
            since: Instant::now(),
            made,
        });
        Ok(())
    }
}

impl<T> Job<T> {
    /// What the job made, once it is done; `Err` when its thread died without a result.
    pub fn take(&mut self) -> Option<Result<T, String>> {
        let running = self.running.as_ref()?;
        let result = match running.made.try_recv() {
            Ok(made) => Ok(made),
            Err(mpsc::TryRecvError::Empty) => return None,
            Err(mpsc::TryRecvError::Disconnected) => Err(format!("{} failed", running.what)),
        };
        self.running = None;
        Some(result)
    }

    /// Waits for the job to end (the command line and tests); what it made, if one ran.
    pub fn wait(&mut self) -> Option<Result<T, String>> {
        let running = self.running.take()?;
        Some(
            running
                .made
                .recv()
                .map_err(|_| format!("{} failed", running.what)),
        )
    }

    /// Stops waiting for the job running: what it makes is dropped when it comes (its thread
    /// runs to its end on its own; the work it does cannot be interrupted midway). What was
    /// cancelled, if anything ran.
    pub fn cancel(&mut self) -> Option<String> {
        self.running.take().map(|r| r.what)
    }

    /// What is running and for how long.
    #[must_use]
    pub fn running(&self) -> Option<(&str, Duration)> {
        self.running
            .as_ref()
            .map(|r| (r.what.as_str(), r.since.elapsed()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_newer_job_replaces_the_one_running_and_its_result_is_the_one_taken() {
        let mut job: Job<u32> = Job::default();
        let (release, gate) = mpsc::channel::<()>();
        job.start("slow", move || {
            let _ = gate.recv();
            1
        })
        .expect("start");
        assert!(job.take().is_none(), "still running");
        assert_eq!(job.running().map(|r| r.0), Some("slow"));
        job.start("fast", || 2).expect("start");
        drop(release);
        assert_eq!(job.wait(), Some(Ok(2)));
        assert!(job.running().is_none());
        assert_eq!(job.take(), None);
    }

    #[test]
    fn a_cancelled_job_is_no_longer_running_and_what_it_makes_is_dropped() {
        let mut job: Job<u32> = Job::default();
        let (release, gate) = mpsc::channel::<()>();
        job.start("slow", move || {
            let _ = gate.recv();
            1
        })
        .expect("start");
        assert_eq!(job.cancel().as_deref(), Some("slow"));
        assert!(job.running().is_none());
        drop(release);
        assert_eq!(job.wait(), None, "nothing to wait for");
        assert_eq!(job.take(), None);
        assert_eq!(job.cancel(), None);
    }

    #[test]
    fn a_job_whose_thread_dies_says_so() {
        let mut job: Job<u32> = Job::default();
        job.start("doomed", || -> u32 {
            // A fake failure for this test: the thread ends without a result.
            std::panic::resume_unwind(Box::new("test"))
        })
        .expect("start");
        assert_eq!(job.wait(), Some(Err("doomed failed".to_owned())));
    }
}
