//! The microphone: the person in front of the player, as 16 kHz mono chunks on a thread of
//! its own. From the sound device (`--mic [DEVICE]`, through rodio's cpal input), or a WAV
//! played in at real-time pace as if spoken into it (`--mic-file`: tests, demos, machines
//! without a sound card). Each chunk says when its last sample was heard, so utterances get
//! times on the player's clock.

mod device;
mod file;
mod watch;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::Instant;

pub use npc_core::hearing::VOICE_RATE;
pub use watch::DeviceWatch;

/// Where the person's voice comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MicSource {
    /// A sound device: the default input, or the one whose name contains this.
    Device(Option<String>),
    /// A recording played in at real-time pace.
    File(PathBuf),
}

/// Sound the microphone heard.
#[derive(Clone, Debug, PartialEq)]
pub struct MicChunk {
    /// 16 kHz mono, -1..1.
    pub samples: Vec<f32>,
    /// When its last sample was heard.
    pub heard_at: Instant,
}

/// What comes from the microphone's thread.
#[derive(Clone, Debug, PartialEq)]
pub enum MicMessage {
    Chunk(MicChunk),
    /// The device went away (unplugged, its server stopped): said once, nothing more comes.
    Lost(String),
    /// The recording played to its end.
    Ended,
}

/// A microphone listening on its own thread until dropped.
#[derive(Debug)]
pub struct Mic {
    messages: mpsc::Receiver<MicMessage>,
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
    description: String,
}

impl Mic {
    /// Starts listening now.
    ///
    /// # Errors
    /// No such device, no sound card, or a recording that cannot be read: the reason.
    pub fn open(source: &MicSource) -> Result<Self, String> {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        let (thread, description) = match source {
            MicSource::File(path) => file::start(path, tx, Arc::clone(&stop))?,
            MicSource::Device(name) => device::start(name.as_deref(), tx, Arc::clone(&stop))?,
        };
        Ok(Self {
            messages: rx,
            stop,
            thread: Some(thread),
            description,
        })
    }

    /// What it listens to, in words.
    #[must_use]
    pub fn describe(&self) -> &str {
        &self.description
    }

    /// The next message waiting, if any.
    #[must_use]
    pub fn try_recv(&self) -> Option<MicMessage> {
        self.messages.try_recv().ok()
    }

    /// The next message, waiting up to `timeout` for it.
    ///
    /// # Errors
    /// None came in time, or the microphone's thread has ended.
    pub fn recv_timeout(
        &self,
        timeout: std::time::Duration,
    ) -> Result<MicMessage, mpsc::RecvTimeoutError> {
        self.messages.recv_timeout(timeout)
    }
}

/// How long the microphone's thread is waited for at the end: a device that hangs in a read
/// is left behind rather than holding up the end of the run.
const JOIN_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

impl Drop for Mic {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let Some(thread) = self.thread.take() else {
            return;
        };
        let asked = Instant::now();
        while !thread.is_finished() && asked.elapsed() < JOIN_WAIT {
            thread::sleep(std::time::Duration::from_millis(5));
        }
        if !thread.is_finished() {
            tracing::warn!("the microphone's thread did not stop (its device hangs); left behind");
        } else if thread.join().is_err() {
            tracing::warn!("the microphone thread panicked");
        }
    }
}
