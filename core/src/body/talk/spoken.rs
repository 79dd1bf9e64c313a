//! What a line sets going in a body, made one way for the player's NPCs and `bake --body`: the
//! breaths before its phrases and the plan of its hands (the emotion's gesture set, and the
//! gestures the agent asked for at their words, each pointing with the hand on its target's
//! side).

use glam::Vec3;

use super::plan::TalkPlan;
use super::poses::Hands;
use crate::agent::cues::GestureCue;
use crate::anim::LineCue;
use crate::anim::emotion::Emotion;
use crate::asset::animation::Clip;
use crate::body::emotion::BodyEmotionSettings;
use crate::body::layer::Inhales;
use crate::body::settings::GestureSettings;

/// A line's body: its breaths and its hands' plan.
#[derive(Debug)]
pub struct SpokenBody {
    pub inhales: Inhales,
    pub plan: TalkPlan,
    /// The requests it could not play (no such clip), one line each.
    pub warnings: Vec<String>,
}

impl SpokenBody {
    /// The body of `cue` spoken with `emotion` by a body seeded `seed`: `gestures` as
    /// `emotions` shade them, and `requests` at their words; `targets[i]` is where request
    /// `i` points, in the avatar's own space (None: no target, or none known, as in a bake);
    /// `clips` are the body's, which requests may name.
    #[must_use]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        cue: &LineCue,
        gestures: &GestureSettings,
        emotions: &BodyEmotionSettings,
        emotion: Option<(Emotion, f32)>,
        requests: &[GestureCue],
        targets: &[Option<Vec3>],
        clips: &[Clip],
        seed: u64,
    ) -> Self {
        let shaded = emotions.gestures(gestures, emotion);
        let mut warnings = Vec::new();
        let plan = TalkPlan::speaking(cue, &shaded, seed).with_requests(
            requests,
            cue,
            |i| pointing_hand(targets.get(i).copied().flatten()),
            clips,
            &mut warnings,
        );
        Self {
            inhales: Inhales::new(cue.phrase_starts_ms()),
            plan,
            warnings,
        }
    }
}

/// The hand that points at `target` (the avatar's own space, the body facing +Z): the left
/// for a target on its left (+X), else the right.
#[must_use]
pub fn pointing_hand(target: Option<Vec3>) -> Hands {
    match target {
        Some(p) if p.x > 0.0 => Hands::Left,
        _ => Hands::Right,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hand_on_the_targets_side_points() {
        assert_eq!(pointing_hand(Some(Vec3::new(0.5, 1.0, 2.0))), Hands::Left);
        assert_eq!(pointing_hand(Some(Vec3::new(-0.5, 1.0, 2.0))), Hands::Right);
        assert_eq!(pointing_hand(None), Hands::Right);
    }
}
