//! What the body's clips do to the face, played on the 52 weights: a VRM animation's
//! expressions through their ARKit faces (happy, sad, angry and surprised as the character's
//! emotion faces, relaxed as half of happy, the five vowels as the viseme table's mouths, the
//! blinks as eyeBlink), and its look-at track as the eyes' eyeLook weights, owning the eyes as
//! far as the clips' weight says.

use crate::anim::emotion::{Emotion, add_keeping_closures};
use crate::anim::face::FaceSettings;
use crate::anim::pose::Pose;
use crate::arkit::{ArkitTarget, EYE_LOOK_DOWN_DEG, EYE_LOOK_SIDE_DEG, EYE_LOOK_UP_DEG};
use crate::asset::clip_face::{ClipFace, Expression, Look};
use crate::viseme::VisemeId;

/// How much of the happy face shows for relaxed (VRM's calm smile).
const RELAXED_OF_HAPPY: f32 = 0.5;

/// The Azure viseme whose mouth each of VRM's vowels makes.
fn vowel_viseme(expression: Expression) -> Option<VisemeId> {
    let id = match expression {
        Expression::Aa => 2,
        Expression::Ee => 4,
        Expression::Ih => 6,
        Expression::Ou => 7,
        Expression::Oh => 8,
        _ => return None,
    };
    Some(VisemeId::new_or_silence(id))
}

/// The expression an emotion shows as, where the avatar may have a face of its own for it.
#[must_use]
pub fn expression_of(emotion: Emotion) -> Option<Expression> {
    match emotion {
        Emotion::Happy => Some(Expression::Happy),
        Emotion::Sad => Some(Expression::Sad),
        Emotion::Angry => Some(Expression::Angry),
        Emotion::Surprised => Some(Expression::Surprised),
        Emotion::Neutral | Emotion::Thinking | Emotion::Concerned => None,
    }
}

/// Adds the clips' expressions to `pose`, but those `own` says the avatar plays on faces of
/// its own.
pub fn express(
    face: &ClipFace,
    settings: &FaceSettings,
    own: impl Fn(Expression) -> bool,
    pose: &mut Pose,
) {
    let table = &settings.table;
    let rest = *table.pose(VisemeId::SILENCE);
    for expression in Expression::ALL {
        let w = face.get(expression);
        if w <= 0.0 || own(expression) {
            continue;
        }
        let emotion = match expression {
            Expression::Happy => Some((Emotion::Happy, 1.0)),
            Expression::Relaxed => Some((Emotion::Happy, RELAXED_OF_HAPPY)),
            Expression::Sad => Some((Emotion::Sad, 1.0)),
            Expression::Angry => Some((Emotion::Angry, 1.0)),
            Expression::Surprised => Some((Emotion::Surprised, 1.0)),
            _ => None,
        };
        if let Some((emotion, share)) = emotion {
            if let Some(shown) = settings.emotions.face(emotion) {
                add_keeping_closures(shown, w * share, table, pose);
            }
            continue;
        }
        if let Some(viseme) = vowel_viseme(expression) {
            // The vowel's mouth as it differs from the rest pose.
            let mouth = table.pose(viseme);
            for target in ArkitTarget::ALL {
                let delta = mouth.get(target) - rest.get(target);
                if delta != 0.0 {
                    pose.set(target, pose.get(target) + w * delta);
                }
            }
            continue;
        }
        let eyes: &[ArkitTarget] = match expression {
            Expression::Blink => &[ArkitTarget::EyeBlinkLeft, ArkitTarget::EyeBlinkRight],
            Expression::BlinkLeft => &[ArkitTarget::EyeBlinkLeft],
            Expression::BlinkRight => &[ArkitTarget::EyeBlinkRight],
            _ => &[],
        };
        for &eye in eyes {
            pose.set(eye, pose.get(eye) + w);
        }
    }
}

/// The eyeLook weights that turn both eyes `yaw_deg` toward the avatar's left and
/// `pitch_deg` down, each as far as the eyes reach.
#[must_use]
pub fn look_weights(yaw_deg: f32, pitch_deg: f32) -> [(ArkitTarget, f32); 8] {
    let left = (yaw_deg / EYE_LOOK_SIDE_DEG).clamp(0.0, 1.0);
    let right = (-yaw_deg / EYE_LOOK_SIDE_DEG).clamp(0.0, 1.0);
    let down = (pitch_deg / EYE_LOOK_DOWN_DEG).clamp(0.0, 1.0);
    let up = (-pitch_deg / EYE_LOOK_UP_DEG).clamp(0.0, 1.0);
    [
        (ArkitTarget::EyeLookOutLeft, left),
        (ArkitTarget::EyeLookInRight, left),
        (ArkitTarget::EyeLookOutRight, right),
        (ArkitTarget::EyeLookInLeft, right),
        (ArkitTarget::EyeLookUpLeft, up),
        (ArkitTarget::EyeLookUpRight, up),
        (ArkitTarget::EyeLookDownLeft, down),
        (ArkitTarget::EyeLookDownRight, down),
    ]
}

/// Turns the eyes in `pose` toward where the clips' look-at track says, as far as their
/// weight owns the eyes.
pub fn look(look: &Look, pose: &mut Pose) {
    let weight = look.weight.clamp(0.0, 1.0);
    if weight <= 0.0 || !look.yaw_deg.is_finite() || !look.pitch_deg.is_finite() {
        return;
    }
    for (target, w) in look_weights(look.yaw_deg, look.pitch_deg) {
        let own = pose.get(target);
        pose.set(target, own + (w - own) * weight);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::take::angles::eye_turns;

    #[test]
    fn a_happy_clip_smiles_and_a_blink_closes_the_eyes() {
        let settings = FaceSettings::default();
        let mut face = ClipFace::NONE;
        let mut pose = Pose::default();
        express(&face, &settings, |_| false, &mut pose);
        assert_eq!(pose, Pose::default());
        face.expressions[Expression::Happy.index()] = 1.0;
        face.expressions[Expression::BlinkLeft.index()] = 0.75;
        express(&face, &settings, |_| false, &mut pose);
        assert!(pose.get(ArkitTarget::MouthSmileLeft) > 0.2, "{pose:?}");
        assert!((pose.get(ArkitTarget::EyeBlinkLeft) - 0.75).abs() < 0.3);
        assert!(pose.get(ArkitTarget::EyeBlinkRight) < pose.get(ArkitTarget::EyeBlinkLeft));
    }

    #[test]
    fn an_aa_track_opens_the_jaw_as_the_tables_aa_does() {
        let settings = FaceSettings::default();
        let mut face = ClipFace::NONE;
        face.expressions[Expression::Aa.index()] = 1.0;
        let mut pose = *settings.table.pose(VisemeId::SILENCE);
        express(&face, &settings, |_| false, &mut pose);
        let aa = settings.table.pose(VisemeId::new_or_silence(2));
        assert!((pose.get(ArkitTarget::JawOpen) - aa.get(ArkitTarget::JawOpen)).abs() < 1e-5);
        assert!(aa.get(ArkitTarget::JawOpen) > 0.2);
    }

    #[test]
    fn the_look_at_track_turns_the_eyes_by_the_angles_it_gives() {
        let mut pose = Pose::default();
        look(
            &Look {
                yaw_deg: 14.0,
                pitch_deg: -11.0,
                weight: 1.0,
            },
            &mut pose,
        );
        let turns = eye_turns(&pose.0);
        for eye in [turns.left, turns.right] {
            assert!((eye.yaw_deg - 14.0).abs() < 1e-3, "{turns:?}");
            assert!((eye.pitch_deg + 11.0).abs() < 1e-3, "{turns:?}");
        }
        // Half owned: halfway from the gaze's own eyes.
        let mut half = Pose::default();
        look(
            &Look {
                yaw_deg: 14.0,
                pitch_deg: 0.0,
                weight: 0.5,
            },
            &mut half,
        );
        assert!((eye_turns(&half.0).left.yaw_deg - 7.0).abs() < 1e-3);
    }
}
