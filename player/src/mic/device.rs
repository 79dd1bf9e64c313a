//! `--mic [DEVICE]`: the sound device's input, through rodio's microphone (cpal), on a thread
//! that owns the stream (it may not move between threads).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::Instant;

use npc_core::speech::StreamResampler;
use rodio::Source as _;
use rodio::microphone::{MicrophoneBuilder, available_inputs};

use super::{MicChunk, MicMessage, VOICE_RATE};

/// Samples taken from the device at a time, per channel (10 ms at 48 kHz).
const BLOCK: usize = 480;

/// Opens the default input device, or the first whose name contains `name`.
pub(super) fn start(
    name: Option<&str>,
    tx: mpsc::Sender<MicMessage>,
    stop: Arc<AtomicBool>,
) -> Result<(thread::JoinHandle<()>, String), String> {
    if let Some(why) = npc_io::plainly_absent() {
        return Err(why);
    }
    let name = name.map(str::to_owned);
    let (opened_tx, opened_rx) = mpsc::channel::<Result<String, String>>();
    let thread = thread::Builder::new()
        .name("npc-mic".to_owned())
        .spawn(move || listen(name.as_deref(), &tx, &stop, &opened_tx))
        .map_err(|e| format!("cannot start the microphone thread: {e}"))?;
    match opened_rx.recv() {
        Ok(Ok(description)) => Ok((thread, description)),
        Ok(Err(why)) => {
            let _ = thread.join();
            Err(why)
        }
        Err(_) => {
            let _ = thread.join();
            Err("the microphone thread stopped while opening the device".to_owned())
        }
    }
}

fn listen(
    name: Option<&str>,
    tx: &mpsc::Sender<MicMessage>,
    stop: &AtomicBool,
    opened: &mpsc::Sender<Result<String, String>>,
) {
    let builder = MicrophoneBuilder::new();
    let device = match name {
        None | Some("default") => builder.default_device().map_err(|e| e.to_string()),
        Some(wanted) => match available_inputs() {
            Ok(inputs) => {
                let names: Vec<String> = inputs.iter().map(ToString::to_string).collect();
                match inputs.into_iter().find(|i| i.to_string().contains(wanted)) {
                    Some(input) => builder.device(input).map_err(|e| e.to_string()),
                    None => Err(format!(
                        "no input device named {wanted:?} (there are: {})",
                        if names.is_empty() {
                            "none".to_owned()
                        } else {
                            names.join(", ")
                        }
                    )),
                }
            }
            Err(e) => Err(e.to_string()),
        },
    };
    let mic = device
        .and_then(|d| d.default_config().map_err(|e| e.to_string()))
        .and_then(|d| d.open_stream().map_err(|e| e.to_string()));
    let mut mic = match mic {
        Ok(mic) => mic,
        Err(why) => {
            let _ = opened.send(Err(format!("cannot open the microphone: {why}")));
            return;
        }
    };
    let channels = usize::from(mic.channels().get());
    let rate = mic.sample_rate().get();
    let mut resampler = match StreamResampler::new(rate, VOICE_RATE) {
        Ok(r) => r,
        Err(why) => {
            let _ = opened.send(Err(why));
            return;
        }
    };
    let _ = opened.send(Ok(format!(
        "the sound device's input ({rate} Hz, {channels} channel(s))"
    )));
    let mut frame = Vec::with_capacity(channels);
    let mut mono = Vec::with_capacity(BLOCK);
    while !stop.load(Ordering::Relaxed) {
        mono.clear();
        while mono.len() < BLOCK {
            let Some(sample) = mic.next() else {
                let _ = tx.send(MicMessage::Lost(
                    "the microphone stopped (unplugged, or its sound server went away)".to_owned(),
                ));
                return;
            };
            frame.push(sample);
            if frame.len() == channels {
                mono.push(frame.iter().sum::<f32>() / channels as f32);
                frame.clear();
            }
        }
        let mut samples = Vec::with_capacity(BLOCK);
        resampler.push(&mono, &mut samples);
        let message = MicMessage::Chunk(MicChunk {
            samples,
            heard_at: Instant::now(),
        });
        if tx.send(message).is_err() {
            return;
        }
    }
}
