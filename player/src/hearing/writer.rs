//! One heard utterance handed to the writer of `heard/NNNN.wav` and its line in `heard.jsonl`,
//! with the words the recognizer heard (times on the run's clock).

use npc_core::agent::heard::{Heard, HeardWord};
use npc_core::agent::heard_writer::HeardWriter;
use npc_core::hearing::VOICE_RATE;
use npc_core::speech::acoustic;

/// One utterance to write: times on the run's clock.
#[derive(Debug)]
pub(super) struct Utterance<'a> {
    pub to: Option<String>,
    pub start_ms: f64,
    pub end_ms: f64,
    /// Its sound (16 kHz) and where that starts on the run's clock.
    pub samples: &'a [f32],
    pub audio_start_ms: f64,
    /// What the recognizer heard (times from the sound's start), if it could.
    pub words: Option<Vec<acoustic::HeardWord>>,
}

pub(super) fn submit(writer: &HeardWriter, u: Utterance<'_>) {
    let words: Option<Vec<HeardWord>> = u.words.map(|words| {
        words
            .into_iter()
            .map(|w| HeardWord {
                word: w.word,
                start_ms: round(u.audio_start_ms + w.start_ms),
                end_ms: round(u.audio_start_ms + w.end_ms),
            })
            .collect()
    });
    let text = words.as_ref().map(|w| {
        w.iter()
            .map(|w| w.word.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    });
    let pcm: Vec<i16> = u
        .samples
        .iter()
        .map(|&s| (s.clamp(-1.0, 1.0) * 32_767.0).round() as i16)
        .collect();
    let heard = Heard {
        to: u.to,
        start_ms: u.start_ms,
        end_ms: u.end_ms,
        text,
        words,
    };
    writer.submit(heard, pcm, VOICE_RATE);
}

fn round(ms: f64) -> f64 {
    (ms * 10.0).round() / 10.0
}
