//! Jaw amount from loudness (after JALI): the same vowel opens the jaw wider when it is said
//! louder than the rest of the line, and less when it is quieter. Loudness is measured per
//! clip as a z-score (level against the clip's mean and spread), so a whisper and a shout
//! each use the table's poses around their own average.

use serde::{Deserialize, Serialize};

use crate::anim::pose::Pose;
use crate::arkit::ArkitTarget;

/// How much loudness moves the jaw.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JawSettings {
    /// Change of jawOpen per standard deviation of loudness, as a fraction (0 = off).
    pub gain: f32,
    /// Smallest and largest scale of jawOpen.
    pub min_scale: f32,
    pub max_scale: f32,
}

impl Default for JawSettings {
    fn default() -> Self {
        Self {
            gain: 0.2,
            min_scale: 0.6,
            max_scale: 1.4,
        }
    }
}

/// Loudness of a clip over time as z-scores, one per `hop_ms`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Loudness {
    pub hop_ms: f64,
    pub z: Vec<f32>,
}

impl Loudness {
    /// Measures mono samples in [-1, 1]: RMS level in dB over 30 ms windows every 10 ms; the
    /// mean and spread come from the voiced frames (within 40 dB of the loudest); quieter
    /// frames count as silence (no jaw change).
    #[must_use]
    pub fn from_samples(samples: &[f32], sample_rate: u32) -> Self {
        let rate = f64::from(sample_rate.max(1));
        let hop = ((rate * 0.010) as usize).max(1);
        let window = ((rate * 0.030) as usize).max(1);
        let mut levels = Vec::new();
        let mut start = 0;
        while start < samples.len() {
            let end = (start + window).min(samples.len());
            let frame = &samples[start..end];
            let power = frame.iter().map(|s| s * s).sum::<f32>() / frame.len().max(1) as f32;
            levels.push(10.0 * (power + 1e-12).log10());
            start += hop;
        }
        let loudest = levels.iter().copied().fold(f32::MIN, f32::max);
        let voiced: Vec<f32> = levels
            .iter()
            .copied()
            .filter(|&l| l > loudest - 40.0)
            .collect();
        let n = voiced.len().max(1) as f32;
        let mean = voiced.iter().sum::<f32>() / n;
        let spread = (voiced.iter().map(|l| (l - mean) * (l - mean)).sum::<f32>() / n)
            .sqrt()
            .max(1.0);
        let z = levels
            .iter()
            .map(|&l| {
                if l > loudest - 40.0 {
                    (l - mean) / spread
                } else {
                    0.0
                }
            })
            .collect();
        Self {
            hop_ms: hop as f64 * 1000.0 / rate,
            z,
        }
    }

    /// The z-score at `t_ms` (linear between frames, 0 outside the clip).
    #[must_use]
    pub fn at(&self, t_ms: f64) -> f32 {
        if self.z.is_empty() || self.hop_ms <= 0.0 || t_ms < 0.0 {
            return 0.0;
        }
        let x = t_ms / self.hop_ms;
        let i = x.floor() as usize;
        let (Some(&a), b) = (self.z.get(i), self.z.get(i + 1).copied()) else {
            return 0.0;
        };
        let b = b.unwrap_or(a);
        a + (b - a) * (x - x.floor()) as f32
    }
}

/// How much the loudness at `track_ms` scales the jaw's opening.
#[must_use]
pub fn jaw_scale(loudness: &Loudness, settings: &JawSettings, track_ms: f64) -> f32 {
    (1.0 + settings.gain * loudness.at(track_ms)).clamp(
        settings.min_scale.min(settings.max_scale),
        settings.max_scale.max(settings.min_scale),
    )
}

/// Scales jawOpen of `pose` by the loudness at `track_ms`.
pub fn jaw_amount(pose: &mut Pose, loudness: &Loudness, settings: &JawSettings, track_ms: f64) {
    let jaw = pose.get(ArkitTarget::JawOpen);
    pose.set(
        ArkitTarget::JawOpen,
        jaw * jaw_scale(loudness, settings, track_ms),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn louder_frames_open_the_jaw_wider() {
        // One second quiet, one second loud, both voiced.
        let rate = 16_000;
        let samples: Vec<f32> = (0..2 * rate)
            .map(|i| {
                let amp = if i < rate { 0.05 } else { 0.4 };
                amp * (i as f32 * 0.05).sin()
            })
            .collect();
        let loudness = Loudness::from_samples(&samples, rate as u32);
        assert!(loudness.at(500.0) < -0.5, "{}", loudness.at(500.0));
        assert!(loudness.at(1500.0) > 0.5, "{}", loudness.at(1500.0));
        let settings = JawSettings::default();
        let mut quiet = Pose::from_pairs(&[(ArkitTarget::JawOpen, 0.5)]);
        let mut loud = quiet;
        jaw_amount(&mut quiet, &loudness, &settings, 500.0);
        jaw_amount(&mut loud, &loudness, &settings, 1500.0);
        assert!(quiet.get(ArkitTarget::JawOpen) < 0.5);
        assert!(loud.get(ArkitTarget::JawOpen) > 0.5);
        assert_eq!(Loudness::default().at(100.0), 0.0);
    }
}
