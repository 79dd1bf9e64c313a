//! Parameters of the lip-sync stages, serialisable into a project file.

use serde::{Deserialize, Serialize};

use super::jaw::JawSettings;

/// All lip-sync parameters. Defaults follow the original engine's tuning.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LipSyncSettings {
    /// How far ahead of the audio clock the track is read, in ms. Cancels the smoothing lag;
    /// a mouth slightly ahead of the sound reads as natural, one behind reads as dubbed.
    pub lead_ms: f64,
    pub target: TargetSettings,
    pub jaw: JawSettings,
    pub smoothing: SmoothingSettings,
    pub bilabial: BilabialSettings,
    pub anticipation: AnticipationSettings,
}

impl Default for LipSyncSettings {
    fn default() -> Self {
        Self {
            lead_ms: 60.0,
            target: TargetSettings::default(),
            jaw: JawSettings::default(),
            smoothing: SmoothingSettings::default(),
            bilabial: BilabialSettings::default(),
            anticipation: AnticipationSettings::default(),
        }
    }
}

/// Stage 1: the raw target pose.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TargetSettings {
    /// Fraction of the gap between two visemes during which the current pose is held at its
    /// apex before the transition to the next one starts (0 = always in transition).
    pub apex_hold: f32,
}

impl Default for TargetSettings {
    fn default() -> Self {
        Self { apex_hold: 0.6 }
    }
}

/// Stage 2: exponential smoothing, alpha = 1 - exp(-dt / time constant).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SmoothingSettings {
    /// Time constant of the filter in ms (0 = no smoothing).
    pub time_constant_ms: f32,
    /// Longest internal integration step in ms. A long frame is integrated in several steps
    /// along the moving target so 30 fps and 1000 fps give the same curve.
    pub max_step_ms: f32,
}

impl Default for SmoothingSettings {
    fn default() -> Self {
        Self {
            time_constant_ms: 40.0,
            max_step_ms: 4.0,
        }
    }
}

/// Stage 3: bilabial (p, b, m) closure, an envelope around each apex that pulls the displayed
/// pose to the closed pose after smoothing, so smoothing cannot soften the closure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BilabialSettings {
    /// Ramp before the apex, in ms.
    pub onset_ms: f64,
    /// Full closure held from the apex on, in ms. A bare triangle peaks for one instant,
    /// which a 30 fps frame misses by up to 17 ms; a held closure is also what lips do.
    pub hold_ms: f64,
    /// Ramp after the hold, in ms.
    pub release_ms: f64,
}

impl Default for BilabialSettings {
    fn default() -> Self {
        Self {
            onset_ms: 80.0,
            hold_ms: 40.0,
            release_ms: 120.0,
        }
    }
}

/// Stage 4: lip-rounding anticipation for rounded visemes (ids 3, 7, 8, 9, 10, 16).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AnticipationSettings {
    /// How long before a rounded viseme's apex the rounding starts, in ms.
    pub onset_ms: f64,
    /// How long the rounding lingers after the rounded viseme ends, in ms.
    pub release_ms: f64,
}

impl Default for AnticipationSettings {
    fn default() -> Self {
        Self {
            onset_ms: 150.0,
            release_ms: 120.0,
        }
    }
}

impl LipSyncSettings {
    /// Problems with these settings, one sentence each (empty when all is well).
    #[must_use]
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut non_negative = |name: &str, v: f64| {
            if !v.is_finite() || v < 0.0 {
                out.push(format!("lipsync.{name} must be a number >= 0 (got {v})"));
            }
        };
        non_negative("lead_ms", self.lead_ms);
        non_negative(
            "smoothing.time_constant_ms",
            f64::from(self.smoothing.time_constant_ms),
        );
        non_negative("bilabial.onset_ms", self.bilabial.onset_ms);
        non_negative("bilabial.hold_ms", self.bilabial.hold_ms);
        non_negative("bilabial.release_ms", self.bilabial.release_ms);
        non_negative("anticipation.onset_ms", self.anticipation.onset_ms);
        non_negative("anticipation.release_ms", self.anticipation.release_ms);
        let jaw = &self.jaw;
        if !(jaw.gain >= 0.0 && jaw.min_scale >= 0.0 && jaw.min_scale <= jaw.max_scale) {
            out.push(format!(
                "lipsync.jaw needs gain >= 0 and 0 <= min_scale <= max_scale (got {}, {}, {})",
                jaw.gain, jaw.min_scale, jaw.max_scale
            ));
        }
        if !(0.0..1.0).contains(&self.target.apex_hold) {
            out.push(format!(
                "lipsync.target.apex_hold must be in [0, 1) (got {})",
                self.target.apex_hold
            ));
        }
        if !(self.smoothing.max_step_ms.is_finite() && self.smoothing.max_step_ms >= 0.1) {
            out.push(format!(
                "lipsync.smoothing.max_step_ms must be >= 0.1 (got {})",
                self.smoothing.max_step_ms
            ));
        }
        out
    }
}
