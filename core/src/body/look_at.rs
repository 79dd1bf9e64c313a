//! The head turning toward what the NPC attends to, within human limits.

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
/// The share of the turn the neck takes; the head takes the rest.
const NECK_SHARE: f32 = 1.0 / 3.0;

/// Turns the neck and head toward the point of attention, within human limits, easing in and
/// out so the head does not snap.
#[derive(Debug)]
pub struct LookAtLayer {
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
        // Share the turn between the neck and the head.
        let parts: [(Option<usize>, f32); 2] = match self.neck {
            Some(_) => [(self.neck, NECK_SHARE), (Some(head), 1.0)],
            None => [(None, 0.0), (Some(head), 1.0)],
        };
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
