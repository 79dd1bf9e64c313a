//! What a clip does to the face: a VRM animation file's (`VRMC_vrm_animation`) expression
//! tracks, each a node whose translation's X is the expression's weight, and its look-at
//! track, a node whose rotation is the eyes' direction (yaw and pitch, read as extrinsic
//! Z-X-Y Euler angles). Read out of the clips at load, they travel with each clip wherever it
//! is retargeted, and are sampled beside its pose ([`ClipFace`]).

use glam::EulerRot;
use serde_json::Value;

use super::animation::{Channel, Clip, Property};

/// An expression a VRM animation can animate: VRM 1.0's presets, but the four that look
/// (those are the look-at track's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Expression {
    Happy,
    Angry,
    Sad,
    Relaxed,
    Surprised,
    Aa,
    Ih,
    Ou,
    Ee,
    Oh,
    Blink,
    BlinkLeft,
    BlinkRight,
    Neutral,
}

/// How many expressions a clip can animate.
pub const EXPRESSION_COUNT: usize = 14;

impl Expression {
    pub const ALL: [Self; EXPRESSION_COUNT] = [
        Self::Happy,
        Self::Angry,
        Self::Sad,
        Self::Relaxed,
        Self::Surprised,
        Self::Aa,
        Self::Ih,
        Self::Ou,
        Self::Ee,
        Self::Oh,
        Self::Blink,
        Self::BlinkLeft,
        Self::BlinkRight,
        Self::Neutral,
    ];

    /// The preset's name as VRM 1.0 spells it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Happy => "happy",
            Self::Angry => "angry",
            Self::Sad => "sad",
            Self::Relaxed => "relaxed",
            Self::Surprised => "surprised",
            Self::Aa => "aa",
            Self::Ih => "ih",
            Self::Ou => "ou",
            Self::Ee => "ee",
            Self::Oh => "oh",
            Self::Blink => "blink",
            Self::BlinkLeft => "blinkLeft",
            Self::BlinkRight => "blinkRight",
            Self::Neutral => "neutral",
        }
    }

    /// The expression a preset name stands for.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Its place in [`ClipFace::expressions`].
    #[must_use]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// A clip's face tracks (none for a clip from any file but a VRM animation).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FaceTracks {
    /// Each animated expression and the translation keys whose X is its weight.
    pub expressions: Vec<(Expression, Channel)>,
    /// The rotation keys that turn the eyes.
    pub look_at: Option<Channel>,
}

/// Where the eyes look, and how much of them the clips own (0: the face's own gaze).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Look {
    /// Degrees toward the avatar's left.
    pub yaw_deg: f32,
    /// Degrees down.
    pub pitch_deg: f32,
    pub weight: f32,
}

/// What the clips playing now do to the face.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClipFace {
    /// Each expression's weight (0-1), by [`Expression::index`].
    pub expressions: [f32; EXPRESSION_COUNT],
    pub look: Look,
}

impl ClipFace {
    /// Nothing: no expression, the face's own gaze.
    pub const NONE: Self = Self {
        expressions: [0.0; EXPRESSION_COUNT],
        look: Look {
            yaw_deg: 0.0,
            pitch_deg: 0.0,
            weight: 0.0,
        },
    };

    /// `t` (0-1) of the way from `a` to `b`: the weights in between, the eyes where the two
    /// looks' weights put them.
    #[must_use]
    pub fn mix(a: &Self, b: &Self, t: f32) -> Self {
        let t = t.clamp(0.0, 1.0);
        let expressions =
            std::array::from_fn(|i| a.expressions[i] + (b.expressions[i] - a.expressions[i]) * t);
        let (wa, wb) = (a.look.weight * (1.0 - t), b.look.weight * t);
        let weight = wa + wb;
        let look = if weight > 0.0 {
            Look {
                yaw_deg: (a.look.yaw_deg * wa + b.look.yaw_deg * wb) / weight,
                pitch_deg: (a.look.pitch_deg * wa + b.look.pitch_deg * wb) / weight,
                weight,
            }
        } else {
            Look::default()
        };
        Self { expressions, look }
    }

    /// The weight of `expression`.
    #[must_use]
    pub fn get(&self, expression: Expression) -> f32 {
        self.expressions[expression.index()]
    }

    /// Whether it changes nothing.
    #[must_use]
    pub fn is_none(&self) -> bool {
        self.look.weight <= 0.0 && self.expressions.iter().all(|&w| w <= 0.0)
    }
}

impl FaceTracks {
    /// Whether the clip does nothing to the face.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.expressions.is_empty() && self.look_at.is_none()
    }

    /// The face at `t_s` seconds into the clip (already wrapped or clamped as its pose is):
    /// weights clamped to 0-1 as the format asks.
    #[must_use]
    pub fn sample(&self, t_s: f32) -> ClipFace {
        let mut face = ClipFace::NONE;
        for (expression, channel) in &self.expressions {
            let w = channel.component_at(t_s, 0);
            face.expressions[expression.index()] = if w.is_finite() {
                w.clamp(0.0, 1.0)
            } else {
                0.0
            };
        }
        if let Some(channel) = &self.look_at {
            // Extrinsic Z-X-Y is intrinsic Y-X-Z: yaw about +Y (toward +X, the avatar's left),
            // then pitch about +X (+Z toward -Y: down).
            let (yaw, pitch, _) = channel.rotation_at(t_s).to_euler(EulerRot::YXZ);
            face.look = Look {
                yaw_deg: yaw.to_degrees(),
                pitch_deg: pitch.to_degrees(),
                weight: 1.0,
            };
        }
        face
    }

    /// The face tracks a VRM animation file's extension (`animation`) gives `clip`: each
    /// preset expression's translation keys and the look-at node's rotation keys.
    #[must_use]
    pub fn of(animation: &Value, clip: &Clip) -> Self {
        let channel_of = |node: Option<u64>, property: Property| {
            let node = usize::try_from(node?).ok()?;
            clip.channels
                .iter()
                .find(|c| c.node == node && c.property == property)
                .cloned()
        };
        let mut expressions: Vec<(Expression, Channel)> = animation
            .pointer("/expressions/preset")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(name, entry)| {
                let expression = Expression::from_name(name)?;
                let node = entry.get("node").and_then(Value::as_u64);
                Some((expression, channel_of(node, Property::Translation)?))
            })
            .collect();
        expressions.sort_by_key(|(e, _)| e.index());
        let look_at = channel_of(
            animation.pointer("/lookAt/node").and_then(Value::as_u64),
            Property::Rotation,
        );
        Self {
            expressions,
            look_at,
        }
    }
}

/// Gives each of `clips` the face tracks of a VRM animation file's extension (`animation`), and
/// says in one warning which of its tracks are not played: custom expressions (their faces are
/// the avatar's own, by name) and presets this format does not let a clip animate.
pub fn attach(animation: &Value, clips: &mut [Clip], warnings: &mut Vec<String>) {
    for clip in clips.iter_mut() {
        clip.face = FaceTracks::of(animation, clip);
    }
    let mut not_played: Vec<String> = animation
        .pointer("/expressions/custom")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|o| o.keys().map(|k| format!("{k} (custom)")))
        .chain(
            animation
                .pointer("/expressions/preset")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|o| o.keys())
                .filter(|k| Expression::from_name(k).is_none())
                .cloned(),
        )
        .collect();
    not_played.sort_unstable();
    if !not_played.is_empty() {
        warnings.push(format!(
            "this VRM animation's expression tracks {} are not played (only VRM's preset \
             expressions are)",
            not_played.join(", ")
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_index_their_slot() {
        for (i, e) in Expression::ALL.into_iter().enumerate() {
            assert_eq!(Expression::from_name(e.name()), Some(e));
            assert_eq!(e.index(), i);
        }
        assert_eq!(Expression::from_name("lookUp"), None);
    }

    #[test]
    fn a_mix_moves_the_weights_and_keeps_the_look_of_the_clip_that_has_one() {
        let mut happy = ClipFace::NONE;
        happy.expressions[Expression::Happy.index()] = 1.0;
        happy.look = Look {
            yaw_deg: 20.0,
            pitch_deg: -5.0,
            weight: 1.0,
        };
        let half = ClipFace::mix(&ClipFace::NONE, &happy, 0.5);
        assert!((half.get(Expression::Happy) - 0.5).abs() < 1e-6);
        assert!((half.look.yaw_deg - 20.0).abs() < 1e-4);
        assert!((half.look.weight - 0.5).abs() < 1e-6);
        assert!(ClipFace::mix(&happy, &ClipFace::NONE, 1.0).is_none());
    }
}
