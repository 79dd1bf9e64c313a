//! How NPCs hear and listen to the person in front of them; part of a project file
//! (`listen: (...)`), tuned in the studio.

use serde::{Deserialize, Serialize};

/// How the person's speech is cut into utterances.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VoiceSettings {
    /// The voice detector's score from which a 16 ms frame is speech (0-1).
    pub threshold: f32,
    /// Speech for this long starts an utterance (its onset is the first voiced frame), ms.
    pub onset_ms: f64,
    /// Silence for this long ends an utterance (its end is the last voiced frame), ms.
    pub end_hang_ms: f64,
    /// Utterances shorter than this are noise (a cough, a click) and are dropped, ms.
    pub min_utterance_ms: f64,
    /// An utterance this long is cut here and a new one begins, ms.
    pub max_utterance_ms: f64,
    /// Sound kept before the onset in the utterance's recording, ms.
    pub preroll_ms: f64,
}

impl Default for VoiceSettings {
    fn default() -> Self {
        Self {
            threshold: 0.5,
            onset_ms: 48.0,
            end_hang_ms: 160.0,
            min_utterance_ms: 200.0,
            max_utterance_ms: 30_000.0,
            preroll_ms: 200.0,
        }
    }
}

/// How the NPCs listen to the person.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ListenSettings {
    pub voice: VoiceSettings,
    /// The person speaks to an NPC in front of the camera within this distance, metres.
    pub address_reach_m: f32,
    /// ... and within this angle of where the camera looks, degrees.
    pub address_cone_deg: f32,
    /// The NPC the person last spoke with stays the one addressed this long after the last
    /// exchange, while it is within reach (even outside the cone), ms.
    pub conversation_hold_ms: f64,
    /// Other NPCs this close glance at the person when they start speaking, metres.
    pub earshot_m: f32,
    /// How long their glance lasts, ms.
    pub glance_ms: f64,
    /// The addressed NPC's brows flash this long after the person's first sound, ms.
    pub brow_lag_ms: f64,
    /// Share of the person's stressed syllables (loudness onsets) the listener nods on (0-1).
    pub nod_share: f32,
    /// How far a listener's nod pitches the head, degrees.
    pub nod_deg: f32,
    /// After the person stops, the listener shows it is thinking if no reply has started
    /// within this long, ms.
    pub thinking_after_ms: f64,
    /// How much the thinking face shows (0-1).
    pub thinking_intensity: f32,
    /// When the person starts speaking while the addressed NPC talks, the NPC stops.
    pub barge_in: bool,
    /// How long the stopping NPC's voice fades out, ms.
    pub barge_in_fade_ms: f64,
}

impl Default for ListenSettings {
    fn default() -> Self {
        Self {
            voice: VoiceSettings::default(),
            address_reach_m: 4.0,
            address_cone_deg: 30.0,
            conversation_hold_ms: 20_000.0,
            earshot_m: 10.0,
            glance_ms: 1_200.0,
            brow_lag_ms: 60.0,
            nod_share: 0.4,
            nod_deg: 5.0,
            thinking_after_ms: 1_000.0,
            thinking_intensity: 0.7,
            barge_in: true,
            barge_in_fade_ms: 60.0,
        }
    }
}

impl ListenSettings {
    /// Problems with these settings, one sentence each (empty when all is well).
    #[must_use]
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let v = &self.voice;
        if !(0.0..=1.0).contains(&v.threshold) {
            out.push(format!(
                "listen.voice.threshold must be in [0, 1] (got {})",
                v.threshold
            ));
        }
        for (name, ms) in [
            ("voice.onset_ms", v.onset_ms),
            ("voice.end_hang_ms", v.end_hang_ms),
            ("voice.min_utterance_ms", v.min_utterance_ms),
            ("voice.preroll_ms", v.preroll_ms),
            ("conversation_hold_ms", self.conversation_hold_ms),
            ("glance_ms", self.glance_ms),
            ("brow_lag_ms", self.brow_lag_ms),
            ("thinking_after_ms", self.thinking_after_ms),
            ("barge_in_fade_ms", self.barge_in_fade_ms),
        ] {
            if !ms.is_finite() || ms < 0.0 {
                out.push(format!("listen.{name} must be a number >= 0 (got {ms})"));
            }
        }
        if !(v.max_utterance_ms.is_finite() && v.max_utterance_ms >= 1_000.0) {
            out.push(format!(
                "listen.voice.max_utterance_ms must be at least 1000 (got {})",
                v.max_utterance_ms
            ));
        }
        for (name, x) in [
            ("address_reach_m", self.address_reach_m),
            ("earshot_m", self.earshot_m),
            ("nod_deg", self.nod_deg),
        ] {
            if !x.is_finite() || x < 0.0 {
                out.push(format!("listen.{name} must be a number >= 0 (got {x})"));
            }
        }
        if !(0.0..=180.0).contains(&self.address_cone_deg) {
            out.push(format!(
                "listen.address_cone_deg must be in [0, 180] (got {})",
                self.address_cone_deg
            ));
        }
        for (name, x) in [
            ("nod_share", self.nod_share),
            ("thinking_intensity", self.thinking_intensity),
        ] {
            if !(0.0..=1.0).contains(&x) {
                out.push(format!("listen.{name} must be in [0, 1] (got {x})"));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_bad_values_are_named() {
        assert!(ListenSettings::default().problems().is_empty());
        let bad = ListenSettings {
            address_cone_deg: 400.0,
            nod_share: 2.0,
            voice: VoiceSettings {
                threshold: -1.0,
                end_hang_ms: f64::NAN,
                ..VoiceSettings::default()
            },
            ..ListenSettings::default()
        };
        let problems = bad.problems().join("\n");
        for name in ["address_cone_deg", "nod_share", "threshold", "end_hang_ms"] {
            assert!(problems.contains(name), "{name} not named in {problems}");
        }
    }
}
