//! Writing heard utterances for the agents on a thread of its own: the words recognised
//! (PocketSphinx's language model, where the machine has it), then `heard/NNNN.wav` and the
//! line in `heard.jsonl`. The frame loop never waits for either.

use std::path::PathBuf;
use std::sync::mpsc;
use std::thread;
use std::time::Instant;

use npc_core::agent::heard::{Heard, HeardLine, HeardLog, HeardWord};
use npc_core::hearing::VOICE_RATE;
use npc_core::speech::acoustic::{AcousticModel, WordRecognizer};

/// One utterance to write.
#[derive(Debug)]
pub(super) struct Job {
    pub to: Option<String>,
    pub start_ms: f64,
    pub end_ms: f64,
    /// Its sound (16 kHz) and where it starts, ms on the run's clock.
    pub samples: Vec<f32>,
    pub audio_start_ms: f64,
}

/// What became of one utterance.
#[derive(Debug)]
pub(crate) enum Written {
    Line {
        line: HeardLine,
        /// When the line was in the file.
        at: Instant,
        warning: Option<String>,
    },
    Failed(String),
}

/// The writer thread.
#[derive(Debug)]
pub(super) struct Writer {
    jobs: Option<mpsc::Sender<Job>>,
    done: mpsc::Receiver<Written>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Writer {
    pub(super) fn start(agent_dir: PathBuf, language: String) -> Result<Self, String> {
        let (jobs, job_rx) = mpsc::channel::<Job>();
        let (done_tx, done) = mpsc::channel();
        let thread = thread::Builder::new()
            .name("npc-heard".to_owned())
            .spawn(move || {
                let mut log = HeardLog::open(&agent_dir);
                let mut recognizer = recognizer(&language);
                for job in job_rx {
                    let written = write(&mut log, recognizer.as_mut(), job);
                    if done_tx.send(written).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| format!("cannot start the thread that writes heard.jsonl: {e}"))?;
        Ok(Self {
            jobs: Some(jobs),
            done,
            thread: Some(thread),
        })
    }

    pub(super) fn send(&self, job: Job) {
        if self.jobs.as_ref().is_none_or(|j| j.send(job).is_err()) {
            tracing::warn!("the thread that writes heard.jsonl stopped; an utterance is lost");
        }
    }

    pub(super) fn try_recv(&self) -> Option<Written> {
        self.done.try_recv().ok()
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        // Closing the job channel lets the thread finish what it has, then end.
        self.jobs = None;
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::warn!("the thread that writes heard.jsonl panicked");
        }
    }
}

/// The word recognizer for `language`, or None (said once) where the machine has none.
fn recognizer(language: &str) -> Option<WordRecognizer> {
    let made = AcousticModel::for_language(language).and_then(|m| m.words());
    match made {
        Ok(r) => Some(r),
        Err(why) => {
            tracing::warn!(
                "heard utterances have no text ({why}); agents run their own speech-to-text on \
                 heard/*.wav"
            );
            None
        }
    }
}

fn write(log: &mut HeardLog, recognizer: Option<&mut WordRecognizer>, job: Job) -> Written {
    let words = recognizer.and_then(|r| match r.recognize(&job.samples, VOICE_RATE) {
        Ok(words) => Some(
            words
                .into_iter()
                .map(|w| HeardWord {
                    word: w.word,
                    start_ms: job.audio_start_ms + w.start_ms,
                    end_ms: job.audio_start_ms + w.end_ms,
                })
                .collect::<Vec<_>>(),
        ),
        Err(why) => {
            tracing::warn!("an utterance could not be recognised: {why}");
            None
        }
    });
    let text = words.as_ref().map(|w| {
        w.iter()
            .map(|w| w.word.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    });
    let pcm: Vec<i16> = job
        .samples
        .iter()
        .map(|&s| (s.clamp(-1.0, 1.0) * 32_767.0).round() as i16)
        .collect();
    let heard = Heard {
        to: job.to,
        start_ms: job.start_ms,
        end_ms: job.end_ms,
        text,
        words,
    };
    match log.write(heard, &pcm, VOICE_RATE) {
        Ok((line, warning)) => Written::Line {
            line,
            at: Instant::now(),
            warning,
        },
        Err(e) => Written::Failed(format!("{e}; the utterance is not passed to the agents")),
    }
}
