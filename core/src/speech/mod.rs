//! Speech: text + voice -> audio with the visemes (and words) that go with it.
//!
//! The offline engine ([`OfflineEngine`], espeak-ng) works with no account and no network and
//! is the default. Engines may deliver an utterance in chunks ([`SpeechChunk`]) so playback
//! and lip sync can start before synthesis ends.

pub mod acoustic;
pub mod align;
pub mod analysis;
#[cfg(feature = "azure")]
pub mod azure;
#[cfg(feature = "espeak")]
mod espeak;
pub mod eval;
pub mod formants;
pub mod growing_wav;
mod heard_closures;
pub mod ipa;
mod letters;
mod line_source;
mod loudness;
pub mod mbrola;
mod mfcc;
pub mod mouth_net;
mod resample;
mod stress;
#[cfg(test)]
mod test_sounds;
pub mod unscripted;
pub mod wav;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::anim::lipsync::VisemeEvent;
use crate::project::Voice;

#[cfg(feature = "espeak")]
pub use espeak::OfflineEngine;
pub use ipa::{PhonemeVisemes, visemes_for_ipa, visemes_for_ipa_in};
pub use letters::unreadable_letters;
pub use line_source::{LineSource, LineSourceError, read_track};
pub use resample::{StreamResampler, resample};
pub use stress::StressMarks;

/// One word of an utterance and when it is heard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WordTiming {
    pub text: String,
    pub offset_ms: f64,
    pub duration_ms: f64,
}

/// One phoneme of an utterance as the engine spoke it (IPA) and when it starts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhonemeTiming {
    pub ipa: String,
    pub offset_ms: f64,
    /// The stress the engine put on it: vowels of stressed syllables carry one.
    #[serde(default, skip_serializing_if = "Stress::is_none")]
    pub stress: Stress,
}

/// How strongly a syllable is stressed (espeak-ng's ˈ and ˌ marks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stress {
    #[default]
    None,
    Secondary,
    Primary,
}

impl Stress {
    #[must_use]
    pub fn is_none(&self) -> bool {
        *self == Self::None
    }
}

/// A synthesised line: mono 16-bit audio and its timing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Utterance {
    pub pcm: Vec<i16>,
    pub sample_rate: u32,
    /// Azure-style viseme events, offsets into the audio.
    pub visemes: Vec<VisemeEvent>,
    pub words: Vec<WordTiming>,
    /// The phonemes spoken (the offline engine reports them; Azure does not).
    pub phonemes: Vec<PhonemeTiming>,
}

impl Utterance {
    /// Length of the audio, ms.
    #[must_use]
    pub fn duration_ms(&self) -> f64 {
        if self.sample_rate == 0 {
            0.0
        } else {
            self.pcm.len() as f64 * 1000.0 / f64::from(self.sample_rate)
        }
    }
}

/// A piece of an utterance as synthesis produces it.
#[derive(Clone, Debug, PartialEq)]
pub enum SpeechChunk {
    /// The sample rate of the audio to come (sent first).
    Start {
        sample_rate: u32,
    },
    /// More audio, continuing where the last chunk ended.
    Audio(Vec<i16>),
    /// A viseme event (offsets never decrease).
    Viseme(VisemeEvent),
    Word(WordTiming),
    Phoneme(PhonemeTiming),
}

/// Why a line could not be spoken.
#[derive(Debug, Error)]
pub enum SpeechError {
    #[error("the offline speech engine could not start: {0}")]
    EngineUnavailable(String),
    #[error("the voice `{0}` is not available")]
    UnknownVoice(String),
    #[error("speech synthesis failed: {0}")]
    Synthesis(String),
    #[error("there is no text to speak")]
    EmptyText,
    #[error("Azure speech: {0}")]
    Azure(String),
}

/// Something that turns text into speech.
pub trait SpeechEngine: Send + Sync {
    /// Synthesises `text`, handing each piece to `sink` as it is made.
    fn synthesize_streaming(
        &self,
        text: &str,
        voice: &Voice,
        sink: &mut dyn FnMut(SpeechChunk),
    ) -> Result<(), SpeechError>;

    /// Synthesises `text` whole.
    fn synthesize(&self, text: &str, voice: &Voice) -> Result<Utterance, SpeechError> {
        let mut utterance = Utterance::default();
        self.synthesize_streaming(text, voice, &mut |chunk| match chunk {
            SpeechChunk::Start { sample_rate } => utterance.sample_rate = sample_rate,
            SpeechChunk::Audio(samples) => utterance.pcm.extend_from_slice(&samples),
            SpeechChunk::Viseme(v) => utterance.visemes.push(v),
            SpeechChunk::Word(w) => utterance.words.push(w),
            SpeechChunk::Phoneme(p) => utterance.phonemes.push(p),
        })?;
        Ok(utterance)
    }
}
