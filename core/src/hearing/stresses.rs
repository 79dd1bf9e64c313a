//! Stressed syllables of live speech, found as they are heard: a strong rise of loudness to
//! near the utterance's loudest, causal (only the frames heard so far), what a listener's nods
//! land on. The whole-line version for recordings is `anim::stresses::from_loudness`.

use std::collections::VecDeque;

use crate::anim::stresses::MIN_STRESS_GAP_MS;

/// The rise is measured from the quietest of this many frames before (16 ms each).
const LOOKBACK_FRAMES: usize = 6;
/// A stress rises at least this much over that dip, dB ...
const RISE_DB: f32 = 9.0;
/// ... to within this much of the loudest frame of the utterance so far, dB.
const NEAR_PEAK_DB: f32 = 12.0;
/// Frames quieter than this are silence whatever their rise, dBFS.
const FLOOR_DBFS: f32 = -55.0;

/// The loudness of the frames heard, and where the last stress was.
#[derive(Clone, Debug)]
pub(super) struct LiveStresses {
    recent: VecDeque<f32>,
    peak_db: f32,
    last_ms: f64,
}

impl Default for LiveStresses {
    fn default() -> Self {
        Self {
            recent: VecDeque::with_capacity(LOOKBACK_FRAMES + 1),
            peak_db: f32::NEG_INFINITY,
            last_ms: f64::NEG_INFINITY,
        }
    }
}

impl LiveStresses {
    /// A new utterance: its loudest so far starts again.
    pub(super) fn begin(&mut self) {
        self.peak_db = f32::NEG_INFINITY;
    }

    /// Hears one frame at `at_ms`; returns its start when it is a stressed syllable's onset
    /// (only in `speech`).
    pub(super) fn hear(&mut self, frame: &[f32], at_ms: f64, speech: bool) -> Option<f64> {
        let energy = frame.iter().map(|s| s * s).sum::<f32>() / frame.len().max(1) as f32;
        let db = 10.0 * energy.max(1e-12).log10();
        let dip = self.recent.iter().copied().fold(f32::INFINITY, f32::min);
        if self.recent.len() == LOOKBACK_FRAMES {
            self.recent.pop_front();
        }
        self.recent.push_back(db);
        if !speech {
            return None;
        }
        self.peak_db = self.peak_db.max(db);
        let stressed = db > FLOOR_DBFS
            && db - dip >= RISE_DB
            && db >= self.peak_db - NEAR_PEAK_DB
            && at_ms - self.last_ms >= MIN_STRESS_GAP_MS;
        if stressed {
            self.last_ms = at_ms;
        }
        stressed.then_some(at_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(amplitude: f32) -> Vec<f32> {
        (0..256)
            .map(|i| amplitude * (i as f32 * 0.3).sin())
            .collect()
    }

    #[test]
    fn a_strong_rise_is_a_stress_and_a_steady_level_is_not() {
        let mut s = LiveStresses::default();
        s.begin();
        let mut found = Vec::new();
        let mut t = 0.0;
        for amplitude in [0.01, 0.01, 0.01, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2] {
            if let Some(at) = s.hear(&frame(amplitude), t, true) {
                found.push(at);
            }
            t += 16.0;
        }
        assert_eq!(found, [48.0]);
        // Rises come no closer than the beat gap.
        let mut close = LiveStresses::default();
        let mut hits = 0;
        for (i, amplitude) in [0.01, 0.3, 0.01, 0.3].into_iter().enumerate() {
            hits += usize::from(
                close
                    .hear(&frame(amplitude), i as f64 * 16.0, true)
                    .is_some(),
            );
        }
        assert_eq!(hits, 1);
        // Not while silent.
        let mut quiet = LiveStresses::default();
        assert!(quiet.hear(&frame(0.01), 0.0, false).is_none());
        assert!(quiet.hear(&frame(0.3), 16.0, false).is_none());
    }
}
