//! A streamed line (protocol 1.1): its recording read as the agent writes it, played as it
//! arrives, and lip-synced as it arrives: with its `text`, the script followed through the
//! sound by the acoustic model (each phoneme's visemes sent once the search has settled where
//! it was heard, [`StreamedAlignment`]); without, block by block from its sound
//! ([`super::BlockLipSync`]), 200 ms behind what has arrived. A thread of
//! its own reads and analyses; the conductor moves the line's clock on each step, never past
//! what has arrived.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use npc_core::anim::lipsync::TrackSender;
use npc_core::project::Voice;
use npc_core::speech::growing_wav::GrowingWav;
use npc_core::speech::{OfflineEngine, SpeechEngine};

use super::block_lips::{BLOCK_MS, LOOKAHEAD_MS};
use super::stream_lips::StreamLipSync;
use rodio::buffer::SamplesBuffer;
use rodio::{ChannelCount, Player, SampleRate};

/// A line with a script starts once this much of it has arrived (or it ended sooner), ms: the
/// script is followed through the sound, and the sound's blocks fill in without look-ahead.
pub const START_AFTER_MS: f64 = 100.0;
/// A line without one starts once its first block and that block's look-ahead have arrived,
/// so the mouth is not behind the sound.
pub const START_FROM_SOUND_AFTER_MS: f64 = BLOCK_MS + LOOKAHEAD_MS;
/// The file is looked at this often, ms.
const POLL: Duration = Duration::from_millis(10);
/// A stream that has not grown for this long is starving the player: the mouth rests at the
/// end of the sound there is until more comes.
const UNDERRUN: Duration = Duration::from_millis(150);
/// A stream that has not grown for this long without its end marker ends incomplete.
pub const STALL: Duration = Duration::from_secs(5);

/// How a streamed line ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamEnd {
    /// Its end marker came and everything before it was played.
    Complete,
    /// It stopped growing, broke or outgrew the limit: what arrived was played.
    Incomplete(String),
}

/// What the reading thread has received so far.
#[derive(Debug, Default)]
struct Received {
    samples: Vec<f32>,
    sample_rate: u32,
    /// When the first samples arrived.
    first_at: Option<Instant>,
    end: Option<StreamEnd>,
}

/// One streamed line: its reading thread, its clock, its sound.
pub struct StreamedLine {
    received: Arc<Mutex<Received>>,
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
    /// Played so far (ms), and when the clock last moved; `None` until it starts.
    clock: Cell<Option<(f64, Instant)>>,
    /// Played so far, ms (an f64's bits), for the reading thread.
    played: Arc<AtomicU64>,
    sound: Option<Player>,
    /// Samples handed to the sound device so far.
    handed: usize,
    volume: f32,
    /// It starts once this much has arrived, ms.
    start_after_ms: f64,
}

impl std::fmt::Debug for StreamedLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamedLine")
            .field("clock", &self.clock.get())
            .finish_non_exhaustive()
    }
}

impl StreamedLine {
    /// Starts reading `path` (and watching for `path.done`), spoken by `voice`, sending the
    /// visemes heard to `track`: `script`'s when it has words, else the sound's.
    pub fn open(
        path: &Path,
        script: &str,
        voice: &Voice,
        track: TrackSender,
    ) -> Result<Self, String> {
        let received = Arc::new(Mutex::new(Received::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let played = Arc::new(AtomicU64::new(0));
        let reader = Reader {
            path: path.to_owned(),
            marker: marker_of(path),
            language: voice.language.clone(),
            script: (!script.trim().is_empty()).then(|| (script.to_owned(), voice.clone())),
            received: Arc::clone(&received),
            stop: Arc::clone(&stop),
            track,
            played: Arc::clone(&played),
        };
        let thread = thread::Builder::new()
            .name("npc-stream".to_owned())
            .spawn(move || reader.run())
            .map_err(|e| format!("cannot start the thread that reads a streamed line: {e}"))?;
        Ok(Self {
            received,
            stop,
            thread: Some(thread),
            clock: Cell::new(None),
            played,
            sound: None,
            handed: 0,
            volume: 1.0,
            start_after_ms: if script.trim().is_empty() {
                START_FROM_SOUND_AFTER_MS
            } else {
                START_AFTER_MS
            },
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Received> {
        self.received
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Arrived so far, ms; whether the stream has ended; when its first samples came.
    fn arrived(&self) -> (f64, bool, Option<Instant>) {
        let r = self.lock();
        let ms = if r.sample_rate == 0 {
            0.0
        } else {
            r.samples.len() as f64 * 1000.0 / f64::from(r.sample_rate)
        };
        (ms, r.end.is_some(), r.first_at)
    }

    /// Whether enough has arrived to start (or the stream ended before that).
    #[must_use]
    pub fn ready(&self) -> bool {
        let (ms, ended, _) = self.arrived();
        ms >= self.start_after_ms || ended
    }

    /// When its first samples arrived.
    #[must_use]
    pub fn first_sound_arrived(&self) -> Option<Instant> {
        self.arrived().2
    }

    /// Starts playing at `now`, through `sound` when there is a device.
    pub fn start(&mut self, now: Instant, sound: Option<Player>) {
        self.clock.set(Some((0.0, now)));
        self.sound = sound;
        self.hand_over();
    }

    /// Gives the sound device what arrived since the last step.
    pub fn hand_over(&mut self) {
        let Some(player) = &self.sound else {
            return;
        };
        let r = self
            .received
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let (Some(rate), true) = (
            SampleRate::new(r.sample_rate),
            r.samples.len() > self.handed,
        ) {
            player.append(SamplesBuffer::new(
                ChannelCount::MIN,
                rate,
                r.samples[self.handed..].to_vec(),
            ));
            self.handed = r.samples.len();
        }
    }

    /// Where playback is at `now`, ms: it moves with time, never past what has arrived (an
    /// underrun holds it until more comes).
    #[must_use]
    pub fn position_ms(&self, now: Instant) -> f64 {
        let Some((pos, last)) = self.clock.get() else {
            return 0.0;
        };
        let (arrived, _, _) = self.arrived();
        let pos = (pos + now.saturating_duration_since(last).as_secs_f64() * 1000.0)
            .min(arrived)
            .max(pos);
        self.clock.set(Some((pos, now)));
        self.played.store(pos.to_bits(), Ordering::Relaxed);
        pos
    }

    /// How it ended, once all of it that arrived has been played.
    #[must_use]
    pub fn finished(&self, now: Instant) -> Option<StreamEnd> {
        let pos = self.position_ms(now);
        let (arrived, _, _) = self.arrived();
        let r = self.lock();
        r.end.clone().filter(|_| pos >= arrived)
    }

    pub fn set_volume(&mut self, volume: f32) {
        self.volume = npc_io::unit_volume(volume);
        if let Some(player) = &self.sound {
            player.set_volume(self.volume);
        }
    }

    /// Stops the sound now (barge-in) and the reading.
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(player) = &self.sound {
            player.set_volume(0.0);
            player.stop();
        }
    }
}

impl Drop for StreamedLine {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::warn!("the thread reading a streamed line panicked");
        }
    }
}

/// The end marker of a streamed recording: `lines/0007.wav.done` for `lines/0007.wav`.
#[must_use]
pub fn marker_of(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".done");
    PathBuf::from(name)
}

/// The reading thread.
struct Reader {
    path: PathBuf,
    marker: PathBuf,
    language: String,
    /// The line's script and voice, when it has one.
    script: Option<(String, Voice)>,
    received: Arc<Mutex<Received>>,
    stop: Arc<AtomicBool>,
    track: TrackSender,
    /// Played so far, ms (an f64's bits).
    played: Arc<AtomicU64>,
}

impl Reader {
    fn run(self) {
        let mut wav = GrowingWav::new(&self.path);
        let mut new = Vec::new();
        let mut grew_at = Instant::now();
        // Made once the first sound is in, so that speaking the script does not hold it back.
        let mut lips = None;
        let mut resting = false;
        let end = loop {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            // The marker is looked at before the file, so nothing written before it is missed.
            let marked = self.marker.exists();
            new.clear();
            let polled = wav.poll(&mut new);
            if !new.is_empty() {
                grew_at = Instant::now();
                resting = false;
                let mut r = self.lock();
                r.sample_rate = wav.format().map_or(0, |f| f.sample_rate);
                r.first_at.get_or_insert_with(Instant::now);
                r.samples.extend_from_slice(&new);
            }
            if let Err(e) = polled {
                break StreamEnd::Incomplete(e.to_string());
            }
            if marked {
                break StreamEnd::Complete;
            }
            if grew_at.elapsed() >= STALL {
                break StreamEnd::Incomplete(format!(
                    "{}: no more sound for {} s and no {} marker; ended where it stopped",
                    self.path.display(),
                    STALL.as_secs(),
                    self.marker.display()
                ));
            }
            if !resting && grew_at.elapsed() >= UNDERRUN {
                // Everything there is lip-synced (the script as far as it is settled), then
                // the mouth at rest where it ends.
                let whole = lips
                    .as_ref()
                    .is_none_or(|l: &StreamLipSync| !l.follows_script());
                self.analyse(&mut lips, whole);
                self.rest(&mut lips);
                resting = true;
            } else if !new.is_empty() {
                self.analyse(&mut lips, false);
            }
            thread::sleep(POLL);
        };
        self.analyse(&mut lips, true);
        self.track.finish();
        self.lock().end = Some(end);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Received> {
        self.received
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The line's lip sync: its script spoken by the offline engine and followed, when it
    /// has one and the engine speaks; else the sound.
    fn lips(&self) -> StreamLipSync {
        let Some((script, voice)) = &self.script else {
            return StreamLipSync::from_sound(&self.language);
        };
        match OfflineEngine::new()
            .map_err(|e| e.to_string())
            .and_then(|engine| engine.synthesize(script, voice).map_err(|e| e.to_string()))
        {
            Ok(synthesis) => StreamLipSync::from_script(synthesis, &self.language),
            Err(why) => {
                tracing::warn!(
                    "{}: lip sync from the sound alone: its script cannot be spoken ({why})",
                    self.path.display()
                );
                StreamLipSync::from_sound_filling_in(&self.language)
            }
        }
    }

    /// Lip-syncs what has arrived (all of it when `last`) and sends the visemes settled.
    fn analyse(&self, lips: &mut Option<StreamLipSync>, last: bool) {
        let (samples, rate) = {
            let r = self.lock();
            (r.samples.clone(), r.sample_rate)
        };
        if rate == 0 {
            return;
        }
        let played = f64::from_bits(self.played.load(Ordering::Relaxed));
        let lips = lips.get_or_insert_with(|| self.lips());
        for e in lips.visemes(&samples, rate, played, last) {
            self.track.send(e);
        }
    }

    /// The mouth at rest where the sound that has arrived ends (an underrun).
    fn rest(&self, lips: &mut Option<StreamLipSync>) {
        let (samples, rate) = {
            let r = self.lock();
            (r.samples.len(), r.sample_rate)
        };
        if let (Some(lips), true) = (lips.as_mut(), rate > 0)
            && let Some(rest) = lips.rest(samples as f64 * 1000.0 / f64::from(rate))
        {
            self.track.send(rest);
        }
    }
}
