//! Where a line's stressed syllables fall, on its audio clock: what beats, nods and brow
//! flashes are timed to. A synthesised line says so itself (espeak-ng marks its stressed
//! vowels); a recording shows it in its loudness: a stressed syllable is a strong rise to a
//! prominent peak.

use super::lipsync::Loudness;
use crate::speech::{PhonemeTiming, Stress};

/// Two stresses closer than this are one beat, ms.
pub const MIN_STRESS_GAP_MS: f64 = 220.0;
/// A loudness peak is a syllable's only when it stands this far (z-score) over the dip before.
const PROMINENCE_Z: f32 = 1.0;
/// ... and is at least this loud (z-score: above the line's mean level).
const PEAK_Z: f32 = 0.4;

/// The starts of the primarily stressed vowels among `phonemes`, ascending.
#[must_use]
pub fn from_phonemes(phonemes: &[PhonemeTiming]) -> Vec<f64> {
    let mut out: Vec<f64> = Vec::new();
    for p in phonemes.iter().filter(|p| p.stress == Stress::Primary) {
        if out
            .last()
            .is_none_or(|&last| p.offset_ms - last >= MIN_STRESS_GAP_MS)
        {
            out.push(p.offset_ms);
        }
    }
    out
}

/// The onsets of a recording's prominent loudness peaks, ascending: where the rise to each
/// peak passes halfway up from the dip before it.
#[must_use]
pub fn from_loudness(loudness: &Loudness) -> Vec<f64> {
    let z = smoothed(&loudness.z);
    let hop = loudness.hop_ms;
    if hop <= 0.0 {
        return Vec::new();
    }
    // (onset ms, peak z)
    let mut found: Vec<(f64, f32)> = Vec::new();
    let mut dip = (0usize, f32::INFINITY);
    for i in 0..z.len() {
        if z[i] < dip.1 {
            dip = (i, z[i]);
        }
        let is_peak = i > 0
            && z[i] >= z[i - 1]
            && z.get(i + 1).is_none_or(|&next| z[i] > next)
            && z[i] >= PEAK_Z
            && z[i] - dip.1 >= PROMINENCE_Z;
        if !is_peak {
            continue;
        }
        let half = dip.1 + 0.5 * (z[i] - dip.1);
        // The last crossing of the halfway level on the way up to this peak.
        let onset = (dip.0..=i)
            .rev()
            .find(|&k| z[k] < half)
            .map_or(dip.0, |k| k + 1);
        let at = onset as f64 * hop;
        match found.last_mut() {
            Some(last) if at - last.0 < MIN_STRESS_GAP_MS => {
                if z[i] > last.1 {
                    *last = (last.0, z[i]);
                }
            }
            _ => found.push((at, z[i])),
        }
        dip = (i, z[i]);
    }
    found.into_iter().map(|(at, _)| at).collect()
}

/// A three-frame moving average (30 ms at the loudness' 10 ms hop).
fn smoothed(z: &[f32]) -> Vec<f32> {
    (0..z.len())
        .map(|i| {
            let from = i.saturating_sub(1);
            let to = (i + 2).min(z.len());
            z[from..to].iter().sum::<f32>() / (to - from) as f32
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phoneme(ipa: &str, offset_ms: f64, stress: Stress) -> PhonemeTiming {
        PhonemeTiming {
            ipa: ipa.to_owned(),
            offset_ms,
            stress,
        }
    }

    #[test]
    fn primary_stresses_are_kept_and_near_ones_merged() {
        let phonemes = [
            phoneme("b", 0.0, Stress::None),
            phoneme("ɑː", 50.0, Stress::Primary),
            phoneme("eɪ", 150.0, Stress::Primary),
            phoneme("ə", 400.0, Stress::Secondary),
            phoneme("uː", 600.0, Stress::Primary),
        ];
        assert_eq!(from_phonemes(&phonemes), [50.0, 600.0]);
    }

    #[test]
    fn syllables_are_found_as_loudness_rises() {
        // Three syllables of 200 ms each, the middle one quiet, in silence.
        let mut z = vec![-2.0_f32; 100];
        for (start, level) in [(10, 1.5_f32), (40, 0.1), (70, 1.2)] {
            z[start..start + 20].fill(level);
        }
        let loudness = Loudness { hop_ms: 10.0, z };
        let got = from_loudness(&loudness);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!((got[0] - 100.0).abs() <= 20.0, "{got:?}");
        assert!((got[1] - 700.0).abs() <= 20.0, "{got:?}");
    }
}
