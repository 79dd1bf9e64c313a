//! Feet on uneven ground: a body layer that moves each foot to the ground below it by
//! two-bone IK on the leg (hip, knee, ankle), lowering the hips when a foot must reach further
//! down than the leg allows. The clips are made on flat ground; this keeps their step and
//! adds the slope.

use crate::asset::Transform;
use glam::Vec3;

use super::humanoid::{HumanoidBone, HumanoidMap};
use super::layer::{BodyDetail, BodyLayer, LayerInput};
use super::skeleton::Skeleton;
use super::space::{move_world, set_world_rotation};
use super::two_bone::{Limb, LimbAt, bend_pole, reach};

/// Furthest the hips are lowered, metres.
const MAX_HIP_DROP: f32 = 0.3;

/// The foot IK layer.
#[derive(Debug)]
pub struct FootIkLayer {
    pelvis: Option<usize>,
    legs: Vec<Limb>,
    front: Vec3,
    /// How far the ground under each leg's foot lies above the clip's flat ground (reused
    /// each frame: the layer runs for every NPC every frame).
    lifts: Vec<f32>,
}

impl FootIkLayer {
    /// The layer for the legs of a rig with humanoid `map`; legs it lacks are left alone.
    #[must_use]
    pub fn new(map: &HumanoidMap) -> Self {
        Self {
            pelvis: map.joint(HumanoidBone::Hips),
            legs: Limb::legs(map),
            front: map.front,
            lifts: Vec::new(),
        }
    }
}

impl BodyLayer for FootIkLayer {
    fn name(&self) -> &'static str {
        "foot_ik"
    }

    fn apply(&mut self, skeleton: &Skeleton, input: &LayerInput, locals: &mut [Transform]) {
        let Some(ground) = input.ground else { return };
        // A far body's feet stand as the clip has them (a slope's centimetres are under a
        // pixel there).
        if self.legs.is_empty() || input.detail == BodyDetail::Far {
            return;
        }
        // How far each foot's ground lies above (+) or below (-) the flat ground the clip
        // was made on (the avatar's origin plane).
        self.lifts.clear();
        for leg in &self.legs {
            let ankle = skeleton.world_of(locals, leg.end).w_axis.truncate();
            let lift = ground(ankle);
            self.lifts.push(if lift.is_finite() { lift } else { 0.0 });
        }
        if self.lifts.iter().all(|l| l.abs() < 1e-5) {
            return;
        }
        let drop = self
            .lifts
            .iter()
            .copied()
            .fold(0.0_f32, f32::min)
            .max(-MAX_HIP_DROP);
        let lowered = if let Some(pelvis) = self.pelvis
            && drop < 0.0
        {
            move_world(skeleton, locals, pelvis, Vec3::Y * drop);
            Vec3::Y * drop
        } else {
            Vec3::ZERO
        };
        for (i, &leg) in self.legs.iter().enumerate() {
            let lift = self.lifts[i];
            // The joints where the lowered hips put them.
            let mut at = LimbAt::of(skeleton, locals, leg);
            // Where the clip put the ankle, raised by the ground under it.
            let target = at.end - lowered + Vec3::Y * lift;
            let foot_rotation = skeleton.world_rotation(locals, leg.end);
            let pole = bend_pole(&at, self.front);
            reach(skeleton, locals, leg, &mut at, target, pole);
            set_world_rotation(skeleton, locals, leg.end, foot_rotation);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::Activity;

    /// Hips 1 m up; each leg: hip 0.1 m to the side, knee 0.45 m down (bent a little
    /// forward), ankle 0.45 m further down, foot ahead.
    fn legs() -> Skeleton {
        let t = |x: f32, y: f32, z: f32| Transform {
            translation: Vec3::new(x, y, z),
            ..Transform::IDENTITY
        };
        let names = [
            "Hips",
            "LeftUpLeg",
            "LeftLeg",
            "LeftFoot",
            "RightUpLeg",
            "RightLeg",
            "RightFoot",
        ];
        Skeleton::new(
            vec![None, Some(0), Some(1), Some(2), Some(0), Some(4), Some(5)],
            names.iter().map(|n| format!("mixamorig:{n}")).collect(),
            vec![
                t(0.0, 0.95, 0.0),
                t(0.1, -0.05, 0.0),
                t(0.0, -0.45, 0.02),
                t(0.0, -0.43, -0.02),
                t(-0.1, -0.05, 0.0),
                t(0.0, -0.45, 0.02),
                t(0.0, -0.43, -0.02),
            ],
        )
    }

    fn ankles(skeleton: &Skeleton, locals: &[Transform]) -> (Vec3, Vec3) {
        let mut world = Vec::new();
        skeleton.world_into(locals, &mut world);
        (world[3].w_axis.truncate(), world[6].w_axis.truncate())
    }

    fn left_knee(skeleton: &Skeleton, locals: &[Transform]) -> Vec3 {
        let mut world = Vec::new();
        skeleton.world_into(locals, &mut world);
        world[2].w_axis.truncate()
    }

    #[test]
    fn a_raised_foot_bends_its_knee_forward() {
        let skeleton = legs();
        let mut locals = skeleton.rest.clone();
        let before = left_knee(&skeleton, &locals);
        let ground = |p: Vec3| if p.x > 0.0 { 0.15 } else { 0.0 };
        let input = LayerInput {
            dt_s: 1.0 / 60.0,
            time_s: 0.0,
            clip_pose: true,
            inhale: false,
            activity: Activity::Idle,
            attention: None,
            talk: None,
            bearing: crate::body::Bearing::default(),
            detail: BodyDetail::Full,
            ground: Some(&ground),
        };
        FootIkLayer::new(&HumanoidMap::of(&skeleton)).apply(&skeleton, &input, &mut locals);
        let after = left_knee(&skeleton, &locals);
        assert!(after.z > before.z + 0.05, "knee {before} -> {after}");
    }

    fn solve(ground: &dyn Fn(Vec3) -> f32) -> (Vec3, Vec3, Vec3, Vec3) {
        let skeleton = legs();
        let mut locals = skeleton.rest.clone();
        let (l0, r0) = ankles(&skeleton, &locals);
        let input = LayerInput {
            dt_s: 1.0 / 60.0,
            time_s: 0.0,
            clip_pose: true,
            inhale: false,
            activity: Activity::Idle,
            attention: None,
            talk: None,
            bearing: crate::body::Bearing::default(),
            detail: BodyDetail::Full,
            ground: Some(ground),
        };
        FootIkLayer::new(&HumanoidMap::of(&skeleton)).apply(&skeleton, &input, &mut locals);
        let (l1, r1) = ankles(&skeleton, &locals);
        (l0, r0, l1, r1)
    }

    #[test]
    fn flat_ground_changes_nothing() {
        let (l0, r0, l1, r1) = solve(&|_| 0.0);
        assert!(l0.distance(l1) < 1e-4 && r0.distance(r1) < 1e-4);
    }

    #[test]
    fn a_foot_on_higher_ground_is_lifted_and_the_other_stays() {
        // A step 8 cm up under the left foot (+x).
        let (l0, r0, l1, r1) = solve(&|p| if p.x > 0.0 { 0.08 } else { 0.0 });
        assert!((l1 - (l0 + Vec3::Y * 0.08)).length() < 1e-3, "{l0} -> {l1}");
        assert!(r0.distance(r1) < 1e-3, "{r0} -> {r1}");
    }

    #[test]
    fn a_foot_on_lower_ground_is_reached_by_lowering_the_hips() {
        // The ground falls 12 cm under the right foot (-x); the leg is nearly straight.
        let (l0, r0, l1, r1) = solve(&|p| if p.x < 0.0 { -0.12 } else { 0.0 });
        assert!((r1 - (r0 - Vec3::Y * 0.12)).length() < 1e-3, "{r0} -> {r1}");
        assert!(l0.distance(l1) < 1e-3, "{l0} -> {l1}");
    }
}
