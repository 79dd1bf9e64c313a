//! Emotion in the body: how each emotion carries itself (a bearing: slumped or upright,
//! breathing slower or faster, gestures smaller or bigger, slower or quicker), part of a
//! character's body settings. The body eases into the line's emotion and back out after it,
//! as the face does.

use serde::{Deserialize, Serialize};

use super::settings::GestureSettings;
use crate::anim::emotion::Emotion;

/// How a body carries itself in one emotion.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Bearing {
    /// How far the spine bends forward and the head and shoulders drop, degrees (negative
    /// stands taller).
    pub slump_deg: f32,
    /// Breaths a minute, as a share of the character's own rate.
    pub breath_rate: f32,
    /// How far the hands travel into talking poses, as a share of the character's own size.
    pub gesture_size: f32,
    /// How quickly the hands move into and out of poses and beats, as a share of the
    /// character's own speed.
    pub gesture_speed: f32,
}

impl Default for Bearing {
    /// The neutral bearing: the character's own settings unchanged.
    fn default() -> Self {
        Self {
            slump_deg: 0.0,
            breath_rate: 1.0,
            gesture_size: 1.0,
            gesture_speed: 1.0,
        }
    }
}

impl Bearing {
    const fn new(slump_deg: f32, breath_rate: f32, gesture_size: f32, gesture_speed: f32) -> Self {
        Self {
            slump_deg,
            breath_rate,
            gesture_size,
            gesture_speed,
        }
    }

    /// The neutral bearing moved `amount` (0-1) of the way to this one.
    #[must_use]
    pub fn scaled(&self, amount: f32) -> Self {
        let a = amount.clamp(0.0, 1.0);
        let toward = |neutral: f32, full: f32| neutral + (full - neutral) * a;
        Self {
            slump_deg: toward(0.0, self.slump_deg),
            breath_rate: toward(1.0, self.breath_rate),
            gesture_size: toward(1.0, self.gesture_size),
            gesture_speed: toward(1.0, self.gesture_speed),
        }
    }
}

/// Each emotion's bearing and how fast the body takes it on and lets it go.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BodyEmotionSettings {
    pub enabled: bool,
    pub happy: Bearing,
    pub sad: Bearing,
    pub angry: Bearing,
    pub surprised: Bearing,
    pub thinking: Bearing,
    pub concerned: Bearing,
    /// Time constant of easing in and out, ms (a body changes more slowly than a face).
    pub ease_ms: f64,
}

impl Default for BodyEmotionSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            happy: Bearing::new(-2.0, 1.1, 1.3, 1.15),
            sad: Bearing::new(9.0, 0.8, 0.6, 0.75),
            angry: Bearing::new(-3.0, 1.35, 1.15, 1.3),
            surprised: Bearing::new(-3.0, 1.3, 1.3, 1.2),
            thinking: Bearing::new(2.0, 0.9, 0.7, 0.85),
            concerned: Bearing::new(4.0, 1.1, 0.7, 0.9),
            ease_ms: 600.0,
        }
    }
}

impl BodyEmotionSettings {
    /// The bearing of `emotion` at full intensity (neutral's is the default).
    #[must_use]
    pub fn of(&self, emotion: Emotion) -> Bearing {
        match emotion {
            Emotion::Neutral => Bearing::default(),
            Emotion::Happy => self.happy,
            Emotion::Sad => self.sad,
            Emotion::Angry => self.angry,
            Emotion::Surprised => self.surprised,
            Emotion::Thinking => self.thinking,
            Emotion::Concerned => self.concerned,
        }
    }

    /// The bearing of `emotion` to edit (none for neutral, which is the character's own).
    pub fn of_mut(&mut self, emotion: Emotion) -> Option<&mut Bearing> {
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

    /// The bearing while `shown` (an emotion and how much of it shows) shows; neutral when
    /// nothing does or the switch is off.
    #[must_use]
    pub fn bearing(&self, shown: Option<(Emotion, f32)>) -> Bearing {
        match shown {
            Some((emotion, amount)) if self.enabled => self.of(emotion).scaled(amount),
            _ => Bearing::default(),
        }
    }

    /// `gestures` for a line spoken in `emotion` at an intensity (0-1): their size and speed
    /// scaled by that emotion's bearing.
    #[must_use]
    pub fn gestures(
        &self,
        gestures: &GestureSettings,
        emotion: Option<(Emotion, f32)>,
    ) -> GestureSettings {
        let bearing = self.bearing(emotion);
        GestureSettings {
            size: gestures.size * bearing.gesture_size,
            speed: gestures.speed * bearing.gesture_speed,
            ..gestures.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intensity_moves_the_bearing_from_neutral_toward_the_emotion() {
        let settings = BodyEmotionSettings::default();
        let half = settings.bearing(Some((Emotion::Sad, 0.5)));
        assert!((half.slump_deg - 4.5).abs() < 1e-5);
        assert!((half.breath_rate - 0.9).abs() < 1e-5);
        assert_eq!(settings.bearing(None), Bearing::default());
        let off = BodyEmotionSettings {
            enabled: false,
            ..settings.clone()
        };
        assert_eq!(off.bearing(Some((Emotion::Sad, 1.0))), Bearing::default());
    }

    #[test]
    fn happy_gestures_are_bigger_and_quicker_sad_ones_smaller_and_slower() {
        let settings = BodyEmotionSettings::default();
        let base = GestureSettings::default();
        let happy = settings.gestures(&base, Some((Emotion::Happy, 1.0)));
        let sad = settings.gestures(&base, Some((Emotion::Sad, 1.0)));
        assert!(happy.size > base.size && happy.speed > base.speed);
        assert!(sad.size < base.size && sad.speed < base.speed);
        assert_eq!(settings.gestures(&base, None), base);
    }
}
