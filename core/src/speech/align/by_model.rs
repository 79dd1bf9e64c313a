//! Alignment by the acoustic model: each phoneme of the synthesis stretched over the span the
//! model heard it in.

use super::{Utterance, warped};
use crate::speech::acoustic::{AcousticModel, Heard, ScriptPhone};
use crate::speech::loudness::with_pauses;

/// `synthesis` with its timing carried onto the recording where `model` hears its phones:
/// each phoneme spans what the model heard of it, and the mouth rests through each silence
/// the model heard between words.
///
/// # Errors
/// The model's reason, in words, when it could not follow the script.
pub fn align_by_model(
    model: &AcousticModel,
    samples: &[f32],
    sample_rate: u32,
    synthesis: &Utterance,
) -> Result<Utterance, String> {
    let script = script_phones(synthesis);
    let heard = model.align(samples, sample_rate, &script)?;
    let recording_ms = samples.len() as f64 * 1000.0 / f64::from(sample_rate);
    let map = PhoneMap::new(synthesis, &heard, recording_ms);
    let mut aligned = warped(synthesis, &|t| map.map(t), samples, sample_rate);
    aligned.visemes = with_pauses(aligned.visemes, &heard.silences);
    Ok(aligned)
}

/// The synthesis's phonemes, each marked where it begins a word.
pub(super) fn script_phones(synthesis: &Utterance) -> Vec<ScriptPhone<'_>> {
    let mut words = synthesis
        .words
        .iter()
        .filter(|w| !w.text.trim().is_empty())
        .map(|w| w.offset_ms)
        .peekable();
    synthesis
        .phonemes
        .iter()
        .map(|p| {
            // A word begins at the first phoneme at or after its start (1 ms of slack).
            let mut starts_word = false;
            while words.next_if(|&w| w <= p.offset_ms + 1.0).is_some() {
                starts_word = true;
            }
            ScriptPhone {
                ipa: &p.ipa,
                starts_word,
            }
        })
        .collect()
}

/// The synthesis's time mapped onto the recording's, phoneme by phoneme: each phoneme's span
/// in the synthesis stretched over the span the model heard it in.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct PhoneMap {
    /// (synthesis start, synthesis end, recording start, recording end) ms, in order.
    spans: Vec<(f64, f64, f64, f64)>,
    recording_ms: f64,
}

impl PhoneMap {
    pub(super) fn new(synthesis: &Utterance, heard: &Heard, recording_ms: f64) -> Self {
        let phonemes = &synthesis.phonemes;
        let speech_end = synthesis.duration_ms();
        let mut spans = Vec::with_capacity(phonemes.len());
        let mut heard_until = 0.0;
        for (i, p) in phonemes.iter().enumerate() {
            let parts = heard.phones.get(i).map_or(&[][..], Vec::as_slice);
            let end = match phonemes.get(i + 1) {
                Some(next) => next.offset_ms.max(p.offset_ms),
                // The last phoneme runs to the synthesis's end, which is mostly silence: it
                // keeps the length the model heard.
                None => match (parts.first(), parts.last()) {
                    (Some(first), Some(last)) => p.offset_ms + (last.1 - first.0),
                    _ => speech_end.max(p.offset_ms),
                },
            };
            if parts.is_empty() {
                // A phoneme the model has no phone for takes no time in the recording.
                spans.push((p.offset_ms, end, heard_until, heard_until));
                continue;
            }
            // Each of its model phones ("ɔːɹ": AO, R) takes an equal share of the
            // phoneme's synthesis, as the engine shares its visemes.
            let share = (end - p.offset_ms) / parts.len() as f64;
            for (k, &(from, to)) in parts.iter().enumerate() {
                let start = p.offset_ms + share * k as f64;
                spans.push((start, start + share, from, to));
                heard_until = to;
            }
        }
        Self {
            spans,
            recording_ms,
        }
    }

    pub(super) fn map(&self, t: f64) -> f64 {
        let i = self.spans.partition_point(|s| s.0 <= t);
        let mapped = match i.checked_sub(1).map(|k| self.spans[k]) {
            None => {
                // Before the first phoneme: its start stretched back to 0.
                let first = self.spans.first().copied().unwrap_or((0.0, 0.0, 0.0, 0.0));
                if first.0 > 0.0 {
                    t / first.0 * first.2
                } else {
                    first.2
                }
            }
            Some((s0, s1, r0, r1)) if t < s1 => r0 + (t - s0) / (s1 - s0) * (r1 - r0),
            Some((_, s1, _, r1)) => r1 + (t - s1),
        };
        mapped.clamp(0.0, self.recording_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::speech::PhonemeTiming;

    #[test]
    fn each_phoneme_is_stretched_over_where_the_model_heard_it() {
        let phoneme = |ipa: &str, offset_ms| PhonemeTiming {
            ipa: ipa.to_owned(),
            offset_ms,
            stress: crate::speech::Stress::None,
        };
        // Two phonemes of 100 ms each, then 200 ms of trailing silence, at 1 kHz.
        let synthesis = Utterance {
            pcm: vec![0; 400],
            sample_rate: 1000,
            phonemes: vec![phoneme("m", 0.0), phoneme("aɪ", 100.0)],
            ..Utterance::default()
        };
        // Heard after 500 ms of silence: the m over 100 ms, the aɪ as AY over 300 ms, heard
        // as two parts here (100 and 200 ms) to stand for a phoneme of two model phones.
        let heard = Heard {
            phones: vec![vec![(500.0, 600.0)], vec![(600.0, 700.0), (700.0, 900.0)]],
            silences: vec![(0.0, 500.0)],
        };
        let map = PhoneMap::new(&synthesis, &heard, 1000.0);
        assert_eq!(map.map(0.0), 500.0);
        assert_eq!(map.map(50.0), 550.0);
        assert_eq!(map.map(100.0), 600.0);
        // The aɪ keeps the 300 ms the model heard, its halves over its two parts.
        assert_eq!(map.map(175.0), 650.0);
        assert_eq!(map.map(250.0), 700.0);
        assert_eq!(map.map(325.0), 800.0);
        // Past the last phoneme's heard span, time runs on at its own pace, within the
        // recording.
        assert_eq!(map.map(400.0), 900.0);
        assert_eq!(map.map(450.0), 950.0);
        assert_eq!(map.map(10_000.0), 1000.0);
    }
}
