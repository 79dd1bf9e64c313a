//! Emotion on the face: a baseline pose per emotion (smile, frown, brows, eye openness),
//! added under the finished mouth at the line's intensity and eased in and out. Channels that
//! open the mouth fade out while the lips close for p, b and m, so no emotion weakens a
//! closure.

use serde::{Deserialize, Serialize};

use super::pose::Pose;
use crate::arkit::ArkitTarget;
use crate::viseme::{VisemeId, VisemeTable};

/// An emotion the face and body show through a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emotion {
    Neutral,
    Happy,
    Sad,
    Angry,
    Surprised,
    Thinking,
    Concerned,
}

impl Emotion {
    pub const ALL: [Self; 7] = [
        Self::Neutral,
        Self::Happy,
        Self::Sad,
        Self::Angry,
        Self::Surprised,
        Self::Thinking,
        Self::Concerned,
    ];

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Neutral => "neutral",
            Self::Happy => "happy",
            Self::Sad => "sad",
            Self::Angry => "angry",
            Self::Surprised => "surprised",
            Self::Thinking => "thinking",
            Self::Concerned => "concerned",
        }
    }

    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }
}

/// The face of each emotion, and how fast it comes and goes; part of a character's face
/// settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EmotionSettings {
    pub enabled: bool,
    pub happy: Pose,
    pub sad: Pose,
    pub angry: Pose,
    pub surprised: Pose,
    pub thinking: Pose,
    pub concerned: Pose,
    /// Time constant of easing in and out, ms.
    pub ease_ms: f64,
}

impl Default for EmotionSettings {
    fn default() -> Self {
        use ArkitTarget as T;
        let both = |l: T, r: T, w: f32| [(l, w), (r, w)];
        let pose = |pairs: &[&[(T, f32)]]| Pose::from_pairs(&pairs.concat());
        Self {
            enabled: true,
            happy: pose(&[
                &both(T::MouthSmileLeft, T::MouthSmileRight, 0.45),
                &both(T::CheekSquintLeft, T::CheekSquintRight, 0.3),
                &both(T::EyeSquintLeft, T::EyeSquintRight, 0.15),
            ]),
            sad: pose(&[
                &both(T::MouthFrownLeft, T::MouthFrownRight, 0.4),
                &[(T::BrowInnerUp, 0.5)],
                &both(T::EyeSquintLeft, T::EyeSquintRight, 0.1),
            ]),
            angry: pose(&[
                &both(T::BrowDownLeft, T::BrowDownRight, 0.6),
                &both(T::EyeSquintLeft, T::EyeSquintRight, 0.3),
                &both(T::NoseSneerLeft, T::NoseSneerRight, 0.25),
                &both(T::MouthPressLeft, T::MouthPressRight, 0.25),
            ]),
            surprised: pose(&[
                &[(T::BrowInnerUp, 0.6), (T::JawOpen, 0.12)],
                &both(T::BrowOuterUpLeft, T::BrowOuterUpRight, 0.6),
                &both(T::EyeWideLeft, T::EyeWideRight, 0.5),
            ]),
            thinking: pose(&[
                &[(T::BrowDownLeft, 0.35), (T::BrowInnerUp, 0.2)],
                &[(T::EyeSquintLeft, 0.15), (T::MouthLeft, 0.15)],
            ]),
            concerned: pose(&[
                &[(T::BrowInnerUp, 0.55)],
                &both(T::BrowDownLeft, T::BrowDownRight, 0.2),
                &both(T::MouthFrownLeft, T::MouthFrownRight, 0.2),
                &both(T::MouthStretchLeft, T::MouthStretchRight, 0.1),
            ]),
            ease_ms: 250.0,
        }
    }
}

impl EmotionSettings {
    /// The baseline of `emotion` to edit (none for neutral).
    pub fn face_mut(&mut self, emotion: Emotion) -> Option<&mut Pose> {
        match emotion {
            Emotion::Neutral => None,
            Emotion::Happy => Some(&mut self.happy),
            Emotion::Sad => Some(&mut self.sad),
            Emotion::Angry => Some(&mut self.angry),
            Emotion::Surprised => Some(&mut self.surprised),
            Emotion::Thinking => Some(&mut self.thinking),
            Emotion::Concerned => Some(&mut self.concerned),
        }
    }

    /// The baseline of `emotion` (none for neutral).
    #[must_use]
    pub fn face(&self, emotion: Emotion) -> Option<&Pose> {
        match emotion {
            Emotion::Neutral => None,
            Emotion::Happy => Some(&self.happy),
            Emotion::Sad => Some(&self.sad),
            Emotion::Angry => Some(&self.angry),
            Emotion::Surprised => Some(&self.surprised),
            Emotion::Thinking => Some(&self.thinking),
            Emotion::Concerned => Some(&self.concerned),
        }
    }
}

/// Targets that open the lips: an emotion's share of them yields to a p/b/m closure.
const OPENING: [ArkitTarget; 9] = [
    ArkitTarget::JawOpen,
    ArkitTarget::MouthFunnel,
    ArkitTarget::MouthUpperUpLeft,
    ArkitTarget::MouthUpperUpRight,
    ArkitTarget::MouthLowerDownLeft,
    ArkitTarget::MouthLowerDownRight,
    ArkitTarget::MouthStretchLeft,
    ArkitTarget::MouthStretchRight,
    ArkitTarget::MouthPucker,
];

/// An emotion shown on a face: which, how strongly it is wanted, how much of it shows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EmotionState {
    emotion: Option<Emotion>,
    wanted: f32,
    shown: f32,
}

impl EmotionState {
    /// Shows `emotion` at `intensity` (0-1) from now on, easing in.
    pub fn set(&mut self, emotion: Option<(Emotion, f32)>) {
        match emotion {
            Some((e, intensity)) => {
                if self.emotion != Some(e) {
                    // A new emotion starts from nothing shown.
                    self.shown = 0.0;
                }
                self.emotion = Some(e);
                self.wanted = intensity.clamp(0.0, 1.0);
            }
            None => self.wanted = 0.0,
        }
    }

    /// How much of which emotion shows now.
    #[must_use]
    pub fn shown(&self) -> Option<(Emotion, f32)> {
        self.emotion.map(|e| (e, self.shown))
    }

    /// Eases what shows toward what is wanted over `dt_ms` with time constant `ease_ms`.
    pub fn ease(&mut self, dt_ms: f64, ease_ms: f64) {
        let k = 1.0 - (-dt_ms.max(0.0) / ease_ms.max(1.0)).exp();
        self.shown += (self.wanted - self.shown) * k as f32;
    }

    /// Eases toward what is wanted over `dt_ms`, then adds the baseline under `pose`, the
    /// opening channels scaled down by how closed the lips are (`table`'s p/b/m pose).
    pub fn apply(
        &mut self,
        settings: &EmotionSettings,
        table: &VisemeTable,
        dt_ms: f64,
        pose: &mut Pose,
    ) {
        self.ease(dt_ms, settings.ease_ms);
        let Some(face) = self.emotion.and_then(|e| settings.face(e)) else {
            return;
        };
        if !settings.enabled || self.shown <= 0.0 {
            return;
        }
        add_keeping_closures(face, self.shown, table, pose);
    }
}

/// Adds `amount` of `face` under `pose`, the channels that open the mouth scaled down by how
/// closed its lips are (`table`'s p/b/m pose): what an emotion's face does to a finished mouth.
pub fn add_keeping_closures(face: &Pose, amount: f32, table: &VisemeTable, pose: &mut Pose) {
    let closed = table
        .pose(VisemeId::BILABIAL)
        .get(ArkitTarget::MouthClose)
        .max(1e-3);
    let closure = (pose.get(ArkitTarget::MouthClose) / closed).clamp(0.0, 1.0);
    for (target, weight) in face.active() {
        let keep = if OPENING.contains(&target) {
            1.0 - closure
        } else {
            1.0
        };
        pose.set(target, pose.get(target) + amount * weight * keep);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surprise_opens_the_jaw_only_while_the_lips_are_open() {
        let settings = EmotionSettings::default();
        let table = VisemeTable::default();
        let mut state = EmotionState::default();
        state.set(Some((Emotion::Surprised, 1.0)));
        // Long past the ease, on an open mouth and on the closed p/b/m pose.
        let mut open = Pose::default();
        state.apply(&settings, &table, 10_000.0, &mut open);
        assert!((open.get(ArkitTarget::JawOpen) - 0.12).abs() < 1e-4);
        assert!(open.get(ArkitTarget::EyeWideLeft) > 0.45);
        let closed = *table.pose(VisemeId::BILABIAL);
        let mut shut = closed;
        state.apply(&settings, &table, 10_000.0, &mut shut);
        assert_eq!(
            shut.get(ArkitTarget::JawOpen),
            closed.get(ArkitTarget::JawOpen)
        );
        assert_eq!(
            shut.get(ArkitTarget::MouthClose),
            closed.get(ArkitTarget::MouthClose)
        );
        // Ending eases back to nothing.
        state.set(None);
        let mut after = Pose::default();
        state.apply(&settings, &table, 10_000.0, &mut after);
        assert!(after.get(ArkitTarget::EyeWideLeft) < 1e-3);
    }

    #[test]
    fn names_round_trip() {
        for e in Emotion::ALL {
            assert_eq!(Emotion::from_name(e.name()), Some(e));
        }
        assert_eq!(Emotion::from_name("smug"), None);
    }
}
