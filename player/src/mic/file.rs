//! `--mic-file`: a recording played into the microphone's path at real-time pace.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use npc_core::hearing::FRAME;
use npc_core::speech::{resample, wav};

use super::{MicChunk, MicMessage, VOICE_RATE};

/// Starts playing `path` in; its first sample is heard now.
pub(super) fn start(
    path: &Path,
    tx: mpsc::Sender<MicMessage>,
    stop: Arc<AtomicBool>,
) -> Result<(thread::JoinHandle<()>, String), String> {
    let (samples, rate) = wav::read_mono(path)
        .map_err(|e| format!("{}: cannot be read as WAV ({e})", path.display()))?;
    if rate == 0 {
        return Err(format!("{}: its sample rate is 0", path.display()));
    }
    let samples =
        resample(&samples, rate, VOICE_RATE).map_err(|e| format!("{}: {e}", path.display()))?;
    let description = format!(
        "{} ({:.1} s, {rate} Hz, played in at real-time pace)",
        path.display(),
        samples.len() as f64 / f64::from(VOICE_RATE)
    );
    let thread = thread::Builder::new()
        .name("npc-mic-file".to_owned())
        .spawn(move || play(&samples, &tx, &stop))
        .map_err(|e| format!("cannot start the microphone thread: {e}"))?;
    Ok((thread, description))
}

/// Sends 16 ms chunks, each when its last sample would have been spoken.
fn play(samples: &[f32], tx: &mpsc::Sender<MicMessage>, stop: &AtomicBool) {
    let start = Instant::now();
    let mut sent = 0usize;
    for chunk in samples.chunks(FRAME) {
        sent += chunk.len();
        let heard_at = start + Duration::from_secs_f64(sent as f64 / f64::from(VOICE_RATE));
        if let Some(wait) = heard_at.checked_duration_since(Instant::now()) {
            thread::sleep(wait);
        }
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let message = MicMessage::Chunk(MicChunk {
            samples: chunk.to_vec(),
            heard_at,
        });
        if tx.send(message).is_err() {
            return;
        }
    }
    let _ = tx.send(MicMessage::Ended);
}
