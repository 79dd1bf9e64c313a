//! Heard utterances written by a thread of their own, in order, so that neither the ear nor
//! the recognizer waits on the disk. An utterance the disk refuses (full, the folder gone)
//! waits, with every one after it, and is tried again every [`HEARD_RETRY`] until it lands:
//! none is dropped or written twice, and the seq numbers stay in the order spoken. What waits
//! when the writer is dropped is tried once more before it goes.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::mpsc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::heard::{Heard, HeardLine, HeardLog};
use crate::disk::Disk;

/// How often an utterance the disk refused is tried again.
pub const HEARD_RETRY: Duration = Duration::from_millis(500);

/// What became of the utterances handed to a [`HeardWriter`].
#[derive(Debug)]
pub enum HeardWritten {
    /// One is in `heard.jsonl`: its line, when it landed there, and what someone else wrote
    /// into the file (a warning), if anything.
    Line {
        line: HeardLine,
        at: Instant,
        warning: Option<String>,
    },
    /// The disk refused one (said once for a run of refusals): it waits to be tried again.
    Refused(String),
    /// The disk took them again after refusing.
    Recovered,
    /// The writer stopped with `count` utterances the disk never took.
    Unwritten { count: usize, why: String },
}

/// One utterance waiting for the disk.
#[derive(Debug)]
struct Waiting {
    heard: Heard,
    pcm: Vec<i16>,
    sample_rate: u32,
}

/// The thread that writes `heard.jsonl` and `heard/`.
#[derive(Debug)]
pub struct HeardWriter {
    utterances: Option<mpsc::Sender<Waiting>>,
    thread: Option<JoinHandle<()>>,
}

impl HeardWriter {
    /// Writes into the agent directory `dir` through `disk`, numbering on after the lines
    /// already there; `tell` is called on the writer's thread with each outcome.
    ///
    /// # Errors
    /// The system refused a thread.
    pub fn start(
        dir: &Path,
        disk: Disk,
        tell: impl Fn(HeardWritten) + Send + 'static,
    ) -> std::io::Result<Self> {
        let log = HeardLog::open(dir, disk);
        let (utterances, received) = mpsc::channel();
        let thread = thread::Builder::new()
            .name("heard-writer".to_owned())
            .spawn(move || run(log, &received, &tell))?;
        Ok(Self {
            utterances: Some(utterances),
            thread: Some(thread),
        })
    }

    /// Hands one utterance over: `pcm` (mono, `sample_rate`) and its line.
    pub fn submit(&self, heard: Heard, pcm: Vec<i16>, sample_rate: u32) {
        let waiting = Waiting {
            heard,
            pcm,
            sample_rate,
        };
        if self
            .utterances
            .as_ref()
            .is_none_or(|u| u.send(waiting).is_err())
        {
            tracing::warn!("the thread that writes heard.jsonl stopped");
        }
    }
}

impl Drop for HeardWriter {
    /// What was handed over is written (when the disk takes it) before the writer goes.
    fn drop(&mut self) {
        self.utterances = None;
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::warn!("the thread that writes heard.jsonl panicked");
        }
    }
}

fn run(mut log: HeardLog, utterances: &mpsc::Receiver<Waiting>, tell: &dyn Fn(HeardWritten)) {
    let mut waiting: VecDeque<Waiting> = VecDeque::new();
    let mut refused: Option<String> = None;
    loop {
        let next = if waiting.is_empty() {
            utterances
                .recv()
                .map_err(|_| mpsc::RecvTimeoutError::Disconnected)
        } else {
            utterances.recv_timeout(HEARD_RETRY)
        };
        let closed = match next {
            Ok(w) => {
                waiting.push_back(w);
                waiting.extend(utterances.try_iter());
                false
            }
            Err(mpsc::RecvTimeoutError::Timeout) => false,
            Err(mpsc::RecvTimeoutError::Disconnected) => true,
        };
        while let Some(w) = waiting.front() {
            match log.write(w.heard.clone(), &w.pcm, w.sample_rate) {
                Ok((line, warning)) => {
                    waiting.pop_front();
                    if refused.take().is_some() {
                        tell(HeardWritten::Recovered);
                    }
                    let at = Instant::now();
                    tell(HeardWritten::Line { line, at, warning });
                }
                Err(e) => {
                    let why = e.to_string();
                    if refused.is_none() {
                        tell(HeardWritten::Refused(format!(
                            "{why}; the utterance waits and is tried again every {} ms",
                            HEARD_RETRY.as_millis()
                        )));
                    }
                    refused = Some(why);
                    break;
                }
            }
        }
        if closed {
            if !waiting.is_empty() {
                let why = refused.unwrap_or_default();
                tracing::warn!(
                    "{} heard utterances could not be written: {why}",
                    waiting.len()
                );
                tell(HeardWritten::Unwritten {
                    count: waiting.len(),
                    why,
                });
            }
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fs::File;
    use std::io::{self, Write};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::disk::Storage;

    /// A fake disk for these tests: refuses every write while `full` is set.
    #[derive(Debug, Default)]
    struct FakeFullDisk {
        full: AtomicBool,
        refusals: Mutex<usize>,
    }

    impl FakeFullDisk {
        fn refuse(&self) -> io::Result<()> {
            if self.full.load(Ordering::SeqCst) {
                *self.refusals.lock().expect("count") += 1;
                return Err(io::ErrorKind::StorageFull.into());
            }
            Ok(())
        }
    }

    impl Storage for FakeFullDisk {
        fn write_atomically(&self, path: &Path, bytes: &[u8], prefix: &str) -> io::Result<()> {
            self.refuse()?;
            crate::atomic::write_atomically_via(path, bytes, prefix)
        }

        fn append(&self, file: &mut File, bytes: &[u8]) -> io::Result<usize> {
            self.refuse()?;
            file.write(bytes)
        }
    }

    fn said(i: u32) -> Heard {
        Heard {
            to: Some("Elara".to_owned()),
            start_ms: f64::from(i) * 1000.0,
            end_ms: f64::from(i) * 1000.0 + 500.0,
            text: Some(format!("utterance {i}")),
            words: None,
        }
    }

    #[test]
    fn utterances_refused_by_a_full_disk_land_in_order_when_it_has_room_again() {
        let dir = tempfile::tempdir().expect("temp");
        let storage = Arc::new(FakeFullDisk::default());
        storage.full.store(true, Ordering::SeqCst);
        let (tx, outcomes) = mpsc::channel();
        let writer = HeardWriter::start(
            dir.path(),
            Disk::new(Arc::clone(&storage) as Arc<dyn Storage>),
            move |o| tx.send(o).expect("test listens"),
        )
        .expect("start");
        for i in 0..3 {
            writer.submit(said(i), vec![0; 160], 16_000);
        }
        // Refused, said once, while it is full.
        let first = outcomes
            .recv_timeout(Duration::from_secs(5))
            .expect("outcome");
        assert!(
            matches!(&first, HeardWritten::Refused(why) if why.contains("tried again")),
            "{first:?}"
        );
        while *storage.refusals.lock().expect("count") < 3 {
            thread::sleep(Duration::from_millis(20));
        }
        assert!(
            outcomes
                .try_iter()
                .all(|o| !matches!(o, HeardWritten::Line { .. }))
        );
        writer.submit(said(3), vec![0; 160], 16_000);
        storage.full.store(false, Ordering::SeqCst);
        drop(writer);
        let rest: Vec<HeardWritten> = outcomes.try_iter().collect();
        assert!(
            matches!(rest.first(), Some(HeardWritten::Recovered)),
            "{rest:?}"
        );
        let seqs: Vec<(u64, String)> = rest
            .iter()
            .filter_map(|o| match o {
                HeardWritten::Line { line, .. } => Some((line.seq, line.audio.clone())),
                _ => None,
            })
            .collect();
        let expected: Vec<(u64, String)> =
            (0..4).map(|i| (i, format!("heard/{i:04}.wav"))).collect();
        assert_eq!(seqs, expected);
        let file = std::fs::read_to_string(dir.path().join("heard.jsonl")).expect("file");
        let texts: Vec<String> = file
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).expect("whole lines")["text"]
                    .as_str()
                    .expect("text")
                    .to_owned()
            })
            .collect();
        assert_eq!(
            texts,
            ["utterance 0", "utterance 1", "utterance 2", "utterance 3"]
        );
    }

    #[test]
    fn what_the_disk_never_took_is_counted_when_the_writer_stops() {
        let dir = tempfile::tempdir().expect("temp");
        let storage = Arc::new(FakeFullDisk::default());
        storage.full.store(true, Ordering::SeqCst);
        let (tx, outcomes) = mpsc::channel();
        let writer = HeardWriter::start(dir.path(), Disk::new(storage), move |o| {
            tx.send(o).expect("test listens");
        })
        .expect("start");
        writer.submit(said(0), vec![0; 16], 16_000);
        writer.submit(said(1), vec![0; 16], 16_000);
        drop(writer);
        let last = outcomes.try_iter().last().expect("outcomes");
        assert!(
            matches!(last, HeardWritten::Unwritten { count: 2, ref why } if why.contains("heard/0000.wav")),
            "{last:?}"
        );
    }
}
