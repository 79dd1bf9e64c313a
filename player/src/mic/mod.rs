//! The microphone: the person in front of the player, as 16 kHz mono chunks on a thread of
//! its own. From the sound device (`--mic [DEVICE]`, through rodio's cpal input), or a WAV
//! played in at real-time pace as if spoken into it (`--mic-file`: tests, demos, machines
//! without a sound card), or sound the embedding program sends itself ([`MicFeed`]). Each
//! chunk says when its last sample was heard, so utterances get times on the player's clock.

mod device;
mod file;
mod watch;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
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
    /// Sound the embedding program hears itself (a game's voice chat, another capture
    /// library, a scripted person), sent as it is heard.
    Feed(MicFeed),
}

/// The listening end of a [`MicSource::Feed`]: the program sends [`MicMessage`]s (16 kHz mono
/// chunks, each with the time its last sample was heard, then `Ended`) into its sender. One
/// microphone listens to it; a copy opened again is refused.
#[derive(Clone, Debug)]
pub struct MicFeed(Arc<Mutex<Option<mpsc::Receiver<MicMessage>>>>);

impl MicFeed {
    /// A feed and the sender its sound goes into.
    #[must_use]
    pub fn new() -> (mpsc::Sender<MicMessage>, Self) {
        let (tx, rx) = mpsc::channel();
        (tx, Self(Arc::new(Mutex::new(Some(rx)))))
    }

    fn take(&self) -> Result<mpsc::Receiver<MicMessage>, String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .ok_or_else(|| "this microphone feed is already listened to".to_owned())
    }
}

impl PartialEq for MicFeed {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for MicFeed {}

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
        let (messages, thread, description) = match source {
            MicSource::Feed(feed) => (feed.take()?, None, "sound sent by the program".to_owned()),
            MicSource::File(path) => {
                let (tx, rx) = mpsc::channel();
                let (thread, description) = file::start(path, tx, Arc::clone(&stop))?;
                (rx, Some(thread), description)
            }
            MicSource::Device(name) => {
                let (tx, rx) = mpsc::channel();
                let (thread, description) = device::start(name.as_deref(), tx, Arc::clone(&stop))?;
                (rx, Some(thread), description)
            }
        };
        Ok(Self {
            messages,
            stop,
            thread,
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_feed_hands_its_sound_to_one_microphone_only() {
        let (tx, feed) = MicFeed::new();
        let source = MicSource::Feed(feed.clone());
        let mic = Mic::open(&source).unwrap();
        let chunk = MicChunk {
            samples: vec![0.25; 4],
            heard_at: Instant::now(),
        };
        tx.send(MicMessage::Chunk(chunk.clone())).unwrap();
        tx.send(MicMessage::Ended).unwrap();
        assert_eq!(mic.try_recv(), Some(MicMessage::Chunk(chunk)));
        assert_eq!(mic.try_recv(), Some(MicMessage::Ended));
        let again = Mic::open(&MicSource::Feed(feed)).unwrap_err();
        assert!(again.contains("already listened to"), "{again}");
    }
}
