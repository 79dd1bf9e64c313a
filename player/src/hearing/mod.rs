//! Hearing the person in front of the player. A thread of its own (the ear) takes the
//! microphone's sound as it comes, cuts it into utterances (`npc_core::hearing`), decides whom
//! each is for from the latest scene the frame loop published, recognises the words as they
//! are spoken, and writes each utterance for the agents (`heard.jsonl`, protocol 1.1) the
//! moment it ends. The frame loop only publishes the scene and takes the ear's events; it
//! never waits for either.

mod ear;
mod scribe;
mod writer;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::Instant;

use glam::Vec3;
use npc_core::agent::heard_writer::HeardWritten;
use npc_core::disk::Disk;
use npc_core::hearing::{ListenSettings, Person};

use crate::mic::MicSource;

/// What the person did, on the wall clock, and whom it was for.
#[derive(Debug)]
pub(crate) enum PersonEvent {
    /// The microphone's first sample was heard at `at`: its stream's clock starts.
    MicStarted { at: Instant },
    /// Started speaking to `to`; `at` is when the first voiced sound was heard.
    Onset { at: Instant, to: Option<String> },
    /// A stressed syllable of what is said to `to`.
    Stress { at: Instant, to: Option<String> },
    /// Stopped: one utterance, from its first to its last voiced sound (it is being written).
    Stopped {
        start: Instant,
        end: Instant,
        to: Option<String>,
    },
    /// What began as speech to `to` was noise after all.
    Dropped { to: Option<String> },
    /// An utterance was written for the agents (or could not be).
    Written(HeardWritten),
}

/// What the ear needs to know of the world, as of the last frame.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scene {
    /// The run's clock: `None` until the first frame.
    pub origin: Option<Instant>,
    pub person: Option<Person>,
    /// Each NPC and where its head is.
    pub listeners: Vec<(String, Vec3)>,
    /// The last NPC that answered the person, and when its line started.
    pub answered: Option<(String, Instant)>,
}

/// The ear's thread and what passes between it and the frame loop.
#[derive(Debug)]
pub(crate) struct Hearing {
    scene: Arc<Mutex<Scene>>,
    events: mpsc::Receiver<PersonEvent>,
    speaking: Arc<AtomicBool>,
    meter: Arc<Meter>,
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

/// The microphone as the screen shows it: whether it is open, and how loud it is now.
#[derive(Debug, Default)]
pub(crate) struct Meter {
    open: AtomicBool,
    /// The last chunk's loudness, 0-1, as f32 bits.
    level: AtomicU32,
}

impl Meter {
    /// The microphone opened (`true`) or stopped.
    pub(crate) fn set_open(&self, open: bool) {
        self.open.store(open, Ordering::Relaxed);
        if !open {
            self.level.store(0, Ordering::Relaxed);
        }
    }

    /// The loudness of the latest chunk: its RMS on a 60 dB scale, 0 (-60 dBFS or quieter)
    /// to 1 (full scale).
    pub(crate) fn heard(&self, samples: &[f32]) {
        if samples.is_empty() {
            return;
        }
        let mean_square = samples.iter().map(|s| s * s).sum::<f32>() / samples.len() as f32;
        let db = 10.0 * mean_square.max(1e-12).log10();
        let level = ((db + 60.0) / 60.0).clamp(0.0, 1.0);
        self.level.store(level.to_bits(), Ordering::Relaxed);
    }
}

impl Hearing {
    /// Starts the ear on `source` (the microphone opens once the first frame has published
    /// the scene); utterances are written into `agent_dir`.
    pub(crate) fn new(
        source: MicSource,
        agent_dir: PathBuf,
        disk: Disk,
        settings: &ListenSettings,
        language: &str,
    ) -> anyhow::Result<Self> {
        let scene = Arc::new(Mutex::new(Scene::default()));
        let speaking = Arc::new(AtomicBool::new(false));
        let meter = Arc::new(Meter::default());
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, events) = mpsc::channel();
        let ear = ear::Ear {
            source,
            agent_dir,
            disk,
            settings: settings.clone(),
            language: language.to_owned(),
            scene: Arc::clone(&scene),
            speaking: Arc::clone(&speaking),
            meter: Arc::clone(&meter),
            stop: Arc::clone(&stop),
            events: tx,
        };
        let thread = thread::Builder::new()
            .name("npc-ear".to_owned())
            .spawn(move || ear.run())
            .map_err(|e| anyhow::anyhow!("cannot start the hearing thread: {e}"))?;
        Ok(Self {
            scene,
            events,
            speaking,
            meter,
            stop,
            thread: Some(thread),
        })
    }

    /// Tells the ear where everyone is now.
    pub(crate) fn publish(&self, update: impl FnOnce(&mut Scene)) {
        match self.scene.lock() {
            Ok(mut scene) => update(&mut scene),
            Err(poisoned) => update(&mut poisoned.into_inner()),
        }
    }

    /// Whether the person is speaking now.
    #[must_use]
    pub(crate) fn person_speaking(&self) -> bool {
        self.speaking.load(Ordering::Relaxed)
    }

    /// Whether the microphone is open and heard.
    #[must_use]
    pub(crate) fn mic_open(&self) -> bool {
        self.meter.open.load(Ordering::Relaxed)
    }

    /// How loud the microphone is now, 0-1.
    #[must_use]
    pub(crate) fn level(&self) -> f32 {
        f32::from_bits(self.meter.level.load(Ordering::Relaxed))
    }

    /// The events since the last poll.
    pub(crate) fn poll(&self, out: &mut Vec<PersonEvent>) {
        out.extend(self.events.try_iter());
    }
}

impl Drop for Hearing {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::warn!("the hearing thread panicked");
        }
    }
}
