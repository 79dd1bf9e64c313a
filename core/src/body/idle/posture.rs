//! Standing posture: for a body no clip poses, the arms brought down from the rest pose (T, A
//! or anything else) to hang at the sides, clear of the hips, elbows a little bent, so no
//! T-pose ever shows; for every body, the slump (or the straightening) of the emotion it is in:
//! the spine bending forward, the head and the shoulders dropping.

use glam::{Quat, Vec3};

use crate::asset::Transform;
use crate::body::humanoid::{ARMS, HumanoidBone, HumanoidMap, LEGS};
use crate::body::layer::{BodyLayer, LayerInput};
use crate::body::settings::PostureSettings;
use crate::body::skeleton::Skeleton;
use crate::body::space::{position, rotate_world};
use crate::body::two_bone::{Limb, LimbAt};

/// Room left between a hanging hand and the hip joint's side, as a share of the leg's
/// length (a thigh's half width plus a little air).
const HIP_CLEARANCE: f32 = 0.13;
/// Most the arms spread to clear the hips, degrees.
const MAX_SPREAD_DEG: f32 = 25.0;
/// Shares of a slump the neck takes (the head hangs), and each shoulder drops and rolls
/// forward; the spine takes the slump itself.
const SLUMP_NECK: f32 = 0.5;
const SLUMP_SHOULDER_DROP: f32 = 0.5;
const SLUMP_SHOULDER_ROLL: f32 = 0.4;

/// One arm's joints and how far it spreads.
#[derive(Clone, Copy, Debug)]
struct Arm {
    upper: usize,
    lower: usize,
    hand: usize,
    /// +1 on the left, -1 on the right.
    sign: f32,
    spread: f32,
}

/// The posture layer.
#[derive(Debug)]
pub struct PostureLayer {
    pub settings: PostureSettings,
    arms: Vec<Arm>,
    /// Spine, chest, upper chest: the ones the rig has.
    spine: Vec<usize>,
    neck: Option<usize>,
    /// Collarbones and their sign (+1 left).
    shoulders: Vec<(usize, f32)>,
    left: Vec3,
    front: Vec3,
}

impl PostureLayer {
    #[must_use]
    pub fn new(skeleton: &Skeleton, map: &HumanoidMap, settings: &PostureSettings) -> Self {
        let rest = skeleton.rest_world();
        let left = map.left();
        let hips = map.joint(HumanoidBone::Hips).map(|j| position(&rest, j));
        let mut arms = Vec::new();
        for (s, [_, upper, lower, hand]) in ARMS.into_iter().enumerate() {
            let (Some(upper), Some(lower), Some(hand)) =
                (map.joint(upper), map.joint(lower), map.joint(hand))
            else {
                continue;
            };
            let sign = if s == 0 { 1.0 } else { -1.0 };
            let side = left * sign;
            let length = position(&rest, upper).distance(position(&rest, lower))
                + position(&rest, lower).distance(position(&rest, hand));
            // Spread enough that the hand hangs outside the hip.
            let [hip, _, foot, _] = LEGS[s];
            let clearance = match (hips, map.joint(hip), map.joint(foot)) {
                (Some(h), Some(hip), Some(foot)) => {
                    let leg = position(&rest, hip).distance(position(&rest, foot));
                    let need = (position(&rest, hip) - h).dot(side) + HIP_CLEARANCE * leg;
                    let have = (position(&rest, upper) - h).dot(side);
                    ((need - have) / length.max(1e-4)).clamp(0.0, 1.0).asin()
                }
                _ => 0.0,
            };
            arms.push(Arm {
                upper,
                lower,
                hand,
                sign,
                spread: clearance.min(MAX_SPREAD_DEG.to_radians()),
            });
        }
        use HumanoidBone as B;
        Self {
            settings: settings.clone(),
            arms,
            spine: [B::Spine, B::Chest, B::UpperChest]
                .iter()
                .filter_map(|b| map.joint(*b))
                .collect(),
            neck: map.joint(B::Neck),
            shoulders: ARMS
                .iter()
                .zip([1.0, -1.0])
                .filter_map(|([shoulder, ..], sign)| map.joint(*shoulder).map(|j| (j, sign)))
                .collect(),
            left,
            front: map.front,
        }
    }

    /// Bends the spine forward by `deg` (back for negative), the neck after it, and drops
    /// and rolls the shoulders forward.
    fn slump(&self, skeleton: &Skeleton, deg: f32, locals: &mut [Transform]) {
        let angle = deg.to_radians();
        if angle == 0.0 {
            return;
        }
        // Forward is positive about the left axis.
        if !self.spine.is_empty() {
            let step = Quat::from_axis_angle(self.left, angle / self.spine.len() as f32);
            for &j in &self.spine {
                rotate_world(skeleton, locals, j, step);
            }
        }
        if let Some(j) = self.neck {
            rotate_world(
                skeleton,
                locals,
                j,
                Quat::from_axis_angle(self.left, SLUMP_NECK * angle),
            );
        }
        for &(j, sign) in &self.shoulders {
            let drop = Quat::from_axis_angle(self.front, -sign * SLUMP_SHOULDER_DROP * angle);
            let roll = Quat::from_axis_angle(Vec3::Y, -sign * SLUMP_SHOULDER_ROLL * angle);
            rotate_world(skeleton, locals, j, roll * drop);
        }
    }
}

impl BodyLayer for PostureLayer {
    fn name(&self) -> &'static str {
        "posture"
    }

    fn apply(&mut self, skeleton: &Skeleton, input: &LayerInput, locals: &mut [Transform]) {
        if !self.settings.enabled {
            return;
        }
        self.slump(skeleton, input.bearing.slump_deg, locals);
        if input.clip_pose || self.arms.is_empty() {
            return;
        }
        let forward = self.settings.arm_forward_deg.to_radians();
        let bend = self.settings.elbow_bend_deg.to_radians();
        for arm in &self.arms {
            let spread = arm.spread.max(self.settings.arm_spread_deg.to_radians());
            let side = self.left * arm.sign;
            let down = (-Vec3::Y * spread.cos() + side * spread.sin()) * forward.cos()
                + self.front * forward.sin();
            let limb = Limb {
                root: arm.upper,
                mid: arm.lower,
                end: arm.hand,
            };
            let LimbAt {
                root: s,
                mid: e,
                end: w,
            } = LimbAt::of(skeleton, locals, limb);
            let Some(upper_dir) = (e - s).try_normalize() else {
                continue;
            };
            let turn = Quat::from_rotation_arc(upper_dir, down.normalize());
            rotate_world(skeleton, locals, arm.upper, turn);
            let forearm = (turn * (w - e)).normalize_or(down);
            // Bend the elbow forward: the forearm turns toward the front.
            let axis = forearm.cross(self.front).normalize_or(self.left);
            rotate_world(
                skeleton,
                locals,
                arm.lower,
                Quat::from_axis_angle(axis, bend),
            );
        }
    }
}
