//! The head turning toward what the NPC attends to, within human limits: the upper torso a
//! little, the neck some, the head the rest.

use glam::{Quat, Vec3};

use super::humanoid::{HumanoidBone, HumanoidMap};
use super::layer::{BodyLayer, LayerInput};
use super::skeleton::Skeleton;
use crate::asset::Transform;

/// Most the head turns away from the body's front, sideways and up or down.
const MAX_YAW_DEG: f32 = 70.0;
const MAX_PITCH_DEG: f32 = 30.0;
/// Time constant of the easing toward the wanted turn, seconds.
const EASE_TAU_S: f32 = 0.25;
/// A point this far behind the shoulders (as a share of its distance to the side) is not
/// turned to at all.
const BEHIND: f32 = 0.2;
/// The eyes are this far above the head joint, metres.
const EYES_ABOVE_HEAD_M: f32 = 0.08;
/// The share of the turn the upper torso takes (a person turning to someone turns their
/// chest a little: about 10 degrees of a 70 degree turn).
const TORSO_SHARE: f32 = 0.15;
/// The share of the turn the torso and neck take together; the head takes the rest.
const NECK_SHARE: f32 = 0.4;

/// Turns the neck and head toward the point of attention, within human limits, easing in and
/// out so the head does not snap.
#[derive(Debug)]
pub struct LookAtLayer {
    /// The upper chest, else the chest, else the spine.
    torso: Option<usize>,
    neck: Option<usize>,
    head: Option<usize>,
    /// The rotation currently applied (eased toward the wanted one).
    applied: Quat,
    /// The avatar's front and left in its own space.
    front: Vec3,
    left: Vec3,
    /// Most yaw and pitch away from the body's front, radians.
    pub max_yaw: f32,
    pub max_pitch: f32,
    /// Time constant of the easing, seconds.
    pub tau_s: f32,
}

impl LookAtLayer {
    #[must_use]
    pub fn new(map: &HumanoidMap) -> Self {
        Self {
            torso: map
                .joint(HumanoidBone::UpperChest)
                .or_else(|| map.joint(HumanoidBone::Chest))
                .or_else(|| map.joint(HumanoidBone::Spine)),
            neck: map.joint(HumanoidBone::Neck),
            head: map.joint(HumanoidBone::Head),
            applied: Quat::IDENTITY,
            front: map.front,
            left: map.left(),
            max_yaw: MAX_YAW_DEG.to_radians(),
            max_pitch: MAX_PITCH_DEG.to_radians(),
            tau_s: EASE_TAU_S,
        }
    }

    /// The turn (in avatar space) that points the front toward `dir`, clamped.
    fn wanted(&self, dir: Vec3) -> Quat {
        let (ahead, aside) = (dir.dot(self.front), dir.dot(self.left));
        let level = ahead.hypot(aside);
        if level < 1e-4 || ahead < -BEHIND * level {
            // Behind: do not try.
            return Quat::IDENTITY;
        }
        let yaw = aside.atan2(ahead).clamp(-self.max_yaw, self.max_yaw);
        let pitch = (-dir.y).atan2(level).clamp(-self.max_pitch, self.max_pitch);
        Quat::from_axis_angle(Vec3::Y, yaw) * Quat::from_axis_angle(self.left, pitch)
    }
}

impl BodyLayer for LookAtLayer {
    fn name(&self) -> &'static str {
        "look_at"
    }

    fn apply(&mut self, skeleton: &Skeleton, input: &LayerInput, locals: &mut [Transform]) {
        let Some(head) = self.head else {
            return;
        };
        let target_turn = match input.attention {
            Some(point) => {
                let eye = skeleton
                    .world_of(locals, head)
                    .transform_point3(Vec3::Y * EYES_ABOVE_HEAD_M);
                self.wanted(point - eye)
            }
            None => Quat::IDENTITY,
        };
        let dt = if input.dt_s.is_finite() {
            input.dt_s.max(0.0)
        } else {
            0.0
        };
        let k = 1.0 - (-dt / self.tau_s.max(1e-3)).exp();
        self.applied = self.applied.slerp(target_turn, k).normalize();
        // Share the turn between the torso, the neck and the head (each share is of the
        // whole turn, counted from the body up).
        let parts: [(Option<usize>, f32); 3] = [
            (self.torso, TORSO_SHARE),
            (self.neck, NECK_SHARE),
            (Some(head), 1.0),
        ];
        let mut done = Quat::IDENTITY;
        for (joint, share) in parts {
            let Some(j) = joint else { continue };
            let part = Quat::IDENTITY.slerp(self.applied, share);
            // The extra turn this joint adds, in avatar space.
            let extra = part * done.inverse();
            done = part;
            let parent_rot =
                skeleton.parents[j].map_or(Quat::IDENTITY, |p| skeleton.world_rotation(locals, p));
            let Some(local) = locals.get_mut(j) else {
                continue;
            };
            // New world rotation = extra * old world rotation, expressed locally.
            let world_rot = parent_rot * local.rotation;
            local.rotation = (parent_rot.inverse() * extra * world_rot).normalize();
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::body::{Activity, Bearing};

    /// How far `joint` is turned about the vertical from rest, degrees (+ to its left).
    fn yaw_deg(skeleton: &Skeleton, locals: &[Transform], joint: usize) -> f32 {
        let now = skeleton.world_rotation(locals, joint);
        let rest = skeleton.world_rotation(&skeleton.rest, joint);
        let front = (now * rest.inverse()) * Vec3::Z;
        front.x.atan2(front.z).to_degrees()
    }

    #[test]
    fn turning_to_someone_the_head_takes_most_the_chest_a_little() {
        let skeleton = crate::procedural::body::clip_rig().skeleton;
        let map = HumanoidMap::of(&skeleton);
        let mut layer = LookAtLayer::new(&map);
        let (torso, head) = (layer.torso.unwrap(), layer.head.unwrap());
        // Someone 40 degrees to its left, at eye height, 2 m away.
        let eye = skeleton
            .world_of(&skeleton.rest, head)
            .transform_point3(Vec3::Y * EYES_ABOVE_HEAD_M);
        let angle = 40f32.to_radians();
        let point = eye + Vec3::new(angle.sin(), 0.0, angle.cos()) * 2.0;
        let mut locals = skeleton.rest.clone();
        for _ in 0..240 {
            locals.clone_from(&skeleton.rest);
            let input = LayerInput {
                dt_s: 1.0 / 60.0,
                time_s: 0.0,
                clip_pose: true,
                inhale: false,
                activity: Activity::Idle,
                attention: Some(point),
                talk: None,
                bearing: Bearing::default(),
                detail: crate::body::BodyDetail::Full,
                ground: None,
            };
            layer.apply(&skeleton, &input, &mut locals);
        }
        let (chest, face) = (
            yaw_deg(&skeleton, &locals, torso),
            yaw_deg(&skeleton, &locals, head),
        );
        assert!(
            (face - 40.0).abs() < 2.0,
            "the head faces them: {face} degrees"
        );
        assert!(
            (4.0..=8.0).contains(&chest),
            "the chest turns a little: {chest} degrees"
        );
    }
}
