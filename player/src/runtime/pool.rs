//! The synthesis pool: lines are synthesised (or a recording aligned) by several worker threads,
//! two more than the machine has cores (four to eight: a line waiting on a cloud engine holds a
//! worker but no core), so one slow line (a long alignment, a cloud engine waiting out its
//! timeout, an engine that hangs) holds only its own worker while the other conversations go
//! on. Jobs are taken in the order they are handed in; results come
//! back as they finish.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::thread;
use std::time::{Duration, Instant};

/// How long dropping the pool waits for its workers before leaving them behind (one may be
/// stuck in an engine that hangs; the process ends without it).
const JOIN_WAIT: Duration = Duration::from_secs(2);

/// Workers for a machine with `cores` cores.
#[must_use]
pub(super) fn workers_for(cores: usize) -> usize {
    (cores + 2).clamp(4, 8)
}

/// Counts a worker out when it ends, however it ends.
struct Alive(Arc<AtomicUsize>);

impl Drop for Alive {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Worker threads that turn jobs `J` into results `D`.
pub(super) struct WorkerPool<J, D> {
    jobs: Option<mpsc::Sender<J>>,
    done: mpsc::Receiver<D>,
    alive: Arc<AtomicUsize>,
    workers: usize,
}

impl<J, D> std::fmt::Debug for WorkerPool<J, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerPool")
            .field("workers", &self.workers)
            .field("alive", &self.alive.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl<J: Send + 'static, D: Send + 'static> WorkerPool<J, D> {
    /// Starts `workers` threads named `name`: the first runs `warm_up` before any job is
    /// taken (the engine's first use loads its data), then starts the others.
    pub(super) fn start(
        name: &str,
        workers: usize,
        warm_up: impl FnOnce() + Send + 'static,
        work: impl Fn(J) -> D + Send + Sync + 'static,
    ) -> std::io::Result<Self> {
        let workers = workers.max(1);
        let (jobs, queue) = mpsc::channel::<J>();
        let (results, done) = mpsc::channel::<D>();
        let queue = Arc::new(Mutex::new(queue));
        let work = Arc::new(work);
        let alive = Arc::new(AtomicUsize::new(workers));
        let spawn = {
            let (name, queue, work, results, alive) = (
                name.to_owned(),
                Arc::clone(&queue),
                Arc::clone(&work),
                results.clone(),
                Arc::clone(&alive),
            );
            move |i: usize| {
                // Counted out when the thread ends, or at once when it cannot start.
                let guard = Alive(Arc::clone(&alive));
                let (queue, work, results) =
                    (Arc::clone(&queue), Arc::clone(&work), results.clone());
                thread::Builder::new()
                    .name(format!("{name}-{i}"))
                    .spawn(move || {
                        let _guard = guard;
                        serve(&queue, work.as_ref(), &results);
                    })
            }
        };
        let first = Alive(Arc::clone(&alive));
        thread::Builder::new()
            .name(format!("{name}-0"))
            .spawn(move || {
                let _guard = first;
                warm_up();
                for i in 1..workers {
                    if let Err(e) = spawn(i) {
                        tracing::warn!("cannot start synthesis worker {i}: {e}");
                    }
                }
                serve(&queue, work.as_ref(), &results);
            })?;
        Ok(Self {
            jobs: Some(jobs),
            done,
            alive,
            workers,
        })
    }

    /// Hands a job in; false when the workers are gone.
    pub(super) fn send(&self, job: J) -> bool {
        self.jobs.as_ref().is_some_and(|j| j.send(job).is_ok())
    }

    /// A finished job, if one is ready.
    pub(super) fn try_recv(&self) -> Option<D> {
        self.done.try_recv().ok()
    }

    /// The next finished job, waiting for it.
    pub(super) fn recv(&self) -> Option<D> {
        self.done.recv().ok()
    }
}

impl<J, D> Drop for WorkerPool<J, D> {
    /// Closing the queue ends each worker after its job; one still busy after [`JOIN_WAIT`]
    /// (an engine that hangs) is left behind, said once.
    fn drop(&mut self) {
        self.jobs = None;
        let deadline = Instant::now() + JOIN_WAIT;
        // Results nobody will take are dropped as they come, so no worker waits on them.
        while self.alive.load(Ordering::Acquire) > 0 && Instant::now() < deadline {
            while self.done.try_recv().is_ok() {}
            thread::sleep(Duration::from_millis(5));
        }
        let left = self.alive.load(Ordering::Acquire);
        if left > 0 {
            tracing::warn!("{left} synthesis worker(s) still busy at exit; left behind");
        }
    }
}

/// A worker's loop: the next job in the queue, its result sent back, until the queue closes.
fn serve<J, D>(queue: &Mutex<mpsc::Receiver<J>>, work: &dyn Fn(J) -> D, results: &mpsc::Sender<D>) {
    loop {
        let job = queue.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok(job) = job else { return };
        if results.send(work(job)).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_job_that_hangs_holds_only_its_own_worker() {
        let release = Arc::new(Mutex::new(()));
        let held = release.lock().unwrap();
        let gate = Arc::clone(&release);
        let pool = WorkerPool::start(
            "test-pool",
            2,
            || {},
            move |job: u32| {
                if job == 0 {
                    // Hangs until the test lets it go.
                    drop(gate.lock().unwrap());
                }
                job
            },
        )
        .unwrap();
        assert!(pool.send(0));
        for job in 1..=5 {
            assert!(pool.send(job));
        }
        let mut done: Vec<u32> = (0..5).map(|_| pool.recv().unwrap()).collect();
        done.sort_unstable();
        assert_eq!(done, [1, 2, 3, 4, 5], "the others went on");
        drop(held);
        assert_eq!(pool.recv(), Some(0));
    }

    #[test]
    fn workers_follow_the_machine_within_bounds() {
        assert_eq!(workers_for(1), 4);
        assert_eq!(workers_for(2), 4);
        assert_eq!(workers_for(4), 6);
        assert_eq!(workers_for(16), 8);
    }
}
