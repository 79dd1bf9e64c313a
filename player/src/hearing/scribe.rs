//! The scribe: a thread of its own that searches the words of the utterance under way as its
//! sound comes, and writes each utterance for the agents when it ends. The ear hands it sound
//! and never waits for it, so the voice detector keeps time however slow the search is.

use std::path::PathBuf;
use std::sync::mpsc;
use std::thread;

use npc_core::agent::heard_writer::HeardWriter;
use npc_core::disk::Disk;
use npc_core::speech::acoustic::{AcousticModel, WordRecognizer};

use super::PersonEvent;
use super::writer::{self, Utterance};

/// One ended utterance, times on the run's clock.
#[derive(Debug)]
pub(super) struct Ended {
    pub to: Option<String>,
    pub start_ms: f64,
    pub end_ms: f64,
    pub samples: Vec<f32>,
    pub audio_start_ms: f64,
}

/// What the ear tells the scribe.
#[derive(Debug)]
pub(super) enum Note {
    /// An utterance starts: its sound follows.
    Begin,
    /// More of its sound (16 kHz).
    Sound(Vec<f32>),
    /// It was noise: forget it.
    Drop,
    /// It ended: write it (the rest of its sound was sent before).
    End(Ended),
}

/// The scribe's thread.
#[derive(Debug)]
pub(super) struct Scribe {
    notes: Option<mpsc::Sender<Note>>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Scribe {
    pub(super) fn start(
        agent_dir: PathBuf,
        disk: Disk,
        language: String,
        events: mpsc::Sender<PersonEvent>,
    ) -> Result<Self, String> {
        let (notes, rx) = mpsc::channel::<Note>();
        let thread = thread::Builder::new()
            .name("npc-scribe".to_owned())
            .spawn(move || run(&agent_dir, disk, &language, &rx, &events))
            .map_err(|e| format!("cannot start the thread that writes heard.jsonl: {e}"))?;
        Ok(Self {
            notes: Some(notes),
            thread: Some(thread),
        })
    }

    pub(super) fn note(&self, note: Note) {
        if self.notes.as_ref().is_none_or(|n| n.send(note).is_err()) {
            tracing::warn!("the thread that writes heard.jsonl stopped");
        }
    }
}

impl Drop for Scribe {
    fn drop(&mut self) {
        // Closing the channel lets it write what it has, then end.
        self.notes = None;
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::warn!("the thread that writes heard.jsonl panicked");
        }
    }
}

fn run(
    agent_dir: &std::path::Path,
    disk: Disk,
    language: &str,
    notes: &mpsc::Receiver<Note>,
    events: &mpsc::Sender<PersonEvent>,
) {
    let mut recognizer = recognizer(language);
    // The writer's outcomes go straight to the frame loop, as the ear's own events do (the
    // frame loop is gone when the run ends: nothing waits for them then).
    let forward = events.clone();
    let writer = match HeardWriter::start(agent_dir, disk, move |outcome| {
        let _ = forward.send(PersonEvent::Written(outcome));
    }) {
        Ok(w) => w,
        Err(e) => {
            tracing::warn!(
                "cannot start the thread that writes heard.jsonl ({e}); the person is not heard"
            );
            return;
        }
    };
    let mut listening = false;
    for note in notes {
        match note {
            Note::Begin => {
                listening = recognizer.as_mut().is_some_and(|r| {
                    r.begin()
                        .map_err(|why| tracing::warn!("the recognizer cannot start: {why}"))
                        .is_ok()
                });
            }
            Note::Sound(samples) => {
                if listening
                    && let Some(r) = recognizer.as_mut()
                    && let Err(why) = r.feed(&samples)
                {
                    tracing::warn!("the recognizer stopped: {why}");
                    listening = false;
                }
            }
            Note::Drop => {
                if listening && let Some(r) = recognizer.as_mut() {
                    let _ = r.finish();
                }
                listening = false;
            }
            Note::End(ended) => {
                let words = if listening {
                    recognizer.as_mut().and_then(|r| {
                        r.finish()
                            .map_err(|why| tracing::warn!("an utterance was not recognised: {why}"))
                            .ok()
                    })
                } else {
                    None
                };
                listening = false;
                writer::submit(
                    &writer,
                    Utterance {
                        to: ended.to,
                        start_ms: ended.start_ms,
                        end_ms: ended.end_ms,
                        samples: &ended.samples,
                        audio_start_ms: ended.audio_start_ms,
                        words,
                    },
                );
            }
        }
    }
}

/// The word recognizer for `language`, or None (said once) where the machine has none.
fn recognizer(language: &str) -> Option<WordRecognizer> {
    match AcousticModel::for_language(language).and_then(|m| m.words()) {
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
