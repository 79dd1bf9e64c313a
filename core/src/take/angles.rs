//! Head and eye turns as yaw, pitch and roll, in the avatar's frame (+Y up, +Z its front, +X
//! its left): yaw turns toward its left, pitch tips its face down, roll tilts the top of the
//! head toward its right shoulder. Degrees.

use glam::{EulerRot, Quat};

use crate::arkit::{
    ARKIT_TARGET_COUNT, ArkitTarget, EYE_LOOK_DOWN_DEG, EYE_LOOK_SIDE_DEG, EYE_LOOK_UP_DEG,
};

/// A turn as yaw, pitch and roll, degrees.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HeadTurn {
    pub yaw_deg: f32,
    pub pitch_deg: f32,
    pub roll_deg: f32,
}

/// Both eyes' turns.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EyeTurns {
    pub left: HeadTurn,
    pub right: HeadTurn,
}

/// The yaw, pitch and roll of an avatar-space rotation (yaw applied first).
#[must_use]
pub fn head_turn(rotation: Quat) -> HeadTurn {
    let (yaw, pitch, roll) = rotation.to_euler(EulerRot::YXZ);
    HeadTurn {
        yaw_deg: yaw.to_degrees(),
        pitch_deg: pitch.to_degrees(),
        roll_deg: roll.to_degrees(),
    }
}

/// The eyes' turns that eyeLook weights stand for (eyes do not roll).
#[must_use]
pub fn eye_turns(weights: &[f32; ARKIT_TARGET_COUNT]) -> EyeTurns {
    let w = |t: ArkitTarget| weights[t.index()];
    let eye = |toward_left: f32, down: f32, up: f32| HeadTurn {
        yaw_deg: toward_left * EYE_LOOK_SIDE_DEG,
        pitch_deg: down * EYE_LOOK_DOWN_DEG - up * EYE_LOOK_UP_DEG,
        roll_deg: 0.0,
    };
    EyeTurns {
        // The left eye looks out toward the avatar's left, the right eye in.
        left: eye(
            w(ArkitTarget::EyeLookOutLeft) - w(ArkitTarget::EyeLookInLeft),
            w(ArkitTarget::EyeLookDownLeft),
            w(ArkitTarget::EyeLookUpLeft),
        ),
        right: eye(
            w(ArkitTarget::EyeLookInRight) - w(ArkitTarget::EyeLookOutRight),
            w(ArkitTarget::EyeLookDownRight),
            w(ArkitTarget::EyeLookUpRight),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn yaw_turns_the_face_toward_the_avatars_left() {
        let turn = head_turn(Quat::from_rotation_y(20f32.to_radians()));
        assert!((turn.yaw_deg - 20.0).abs() < 1e-4, "{turn:?}");
        // The face (+Z) now points toward +X, the avatar's left.
        assert!((Quat::from_rotation_y(20f32.to_radians()) * Vec3::Z).x > 0.0);
        let down = head_turn(Quat::from_rotation_x(10f32.to_radians()));
        assert!((down.pitch_deg - 10.0).abs() < 1e-4, "{down:?}");
        assert!((Quat::from_rotation_x(10f32.to_radians()) * Vec3::Z).y < 0.0);
    }

    #[test]
    fn eyes_looking_to_the_avatars_left_both_yaw_left() {
        let mut weights = [0.0; ARKIT_TARGET_COUNT];
        weights[ArkitTarget::EyeLookOutLeft.index()] = 0.5;
        weights[ArkitTarget::EyeLookInRight.index()] = 0.5;
        weights[ArkitTarget::EyeLookUpLeft.index()] = 1.0;
        let eyes = eye_turns(&weights);
        assert_eq!(eyes.left.yaw_deg, 0.5 * EYE_LOOK_SIDE_DEG);
        assert_eq!(eyes.right.yaw_deg, 0.5 * EYE_LOOK_SIDE_DEG);
        assert_eq!(eyes.left.pitch_deg, -EYE_LOOK_UP_DEG);
        assert_eq!(eyes.right.pitch_deg, 0.0);
    }
}
