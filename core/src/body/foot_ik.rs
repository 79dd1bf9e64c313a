//! Feet on uneven ground: a body layer that moves each foot to the ground below it by
//! two-bone IK on the leg (hip, knee, ankle), lowering the hips when a foot must reach further
//! down than the leg allows. The clips are made on flat ground; this keeps their step and
//! adds the slope.

use crate::asset::Transform;
use glam::{Mat4, Quat, Vec3};

use super::layer::{BodyLayer, LayerInput};
use super::skeleton::Skeleton;

/// Furthest the hips are lowered, metres.
const MAX_HIP_DROP: f32 = 0.3;
/// Slack kept in a fully stretched leg, metres (a straight knee has no bend direction).
const STRETCH_SLACK: f32 = 0.002;

/// One leg's joints.
#[derive(Clone, Copy, Debug)]
struct Leg {
    hip: usize,
    knee: usize,
    ankle: usize,
}

/// The foot IK layer.
#[derive(Debug)]
pub struct FootIkLayer {
    pelvis: Option<usize>,
    legs: Vec<Leg>,
    world: Vec<Mat4>,
    /// How far the ground under each leg's foot lies above the clip's flat ground (reused
    /// each frame: the layer runs for every NPC every frame).
    lifts: Vec<f32>,
}

impl FootIkLayer {
    /// The layer for a skeleton with Mixamo-named legs (`LeftUpLeg`, `LeftLeg`, `LeftFoot`,
    /// the same on the right, and `Hips`); legs it cannot find are left alone.
    #[must_use]
    pub fn new(skeleton: &Skeleton) -> Self {
        let leg = |side: &str| {
            Some(Leg {
                hip: skeleton.find(&format!("{side}UpLeg"))?,
                knee: skeleton.find(&format!("{side}Leg"))?,
                ankle: skeleton.find(&format!("{side}Foot"))?,
            })
        };
        Self {
            pelvis: skeleton.find("Hips"),
            legs: ["Left", "Right"].into_iter().filter_map(leg).collect(),
            world: Vec::new(),
            lifts: Vec::new(),
        }
    }
}

impl BodyLayer for FootIkLayer {
    fn apply(&mut self, skeleton: &Skeleton, input: &LayerInput, locals: &mut [Transform]) {
        let Some(ground) = input.ground else { return };
        if self.legs.is_empty() {
            return;
        }
        skeleton.world_into(locals, &mut self.world);
        // How far each foot's ground lies above (+) or below (-) the flat ground the clip
        // was made on (the avatar's origin plane).
        self.lifts.clear();
        for leg in &self.legs {
            let lift = ground(self.world[leg.ankle].w_axis.truncate());
            self.lifts.push(if lift.is_finite() { lift } else { 0.0 });
        }
        let drop = self
            .lifts
            .iter()
            .copied()
            .fold(0.0_f32, f32::min)
            .max(-MAX_HIP_DROP);
        if let Some(pelvis) = self.pelvis
            && drop < 0.0
        {
            let parent = skeleton.parents[pelvis].map_or(Mat4::IDENTITY, |p| self.world[p]);
            let shift = parent
                .inverse()
                .transform_vector3(Vec3::new(0.0, drop, 0.0));
            if let Some(local) = locals.get_mut(pelvis) {
                local.translation += shift;
            }
            skeleton.world_into(locals, &mut self.world);
        }
        for (i, &leg) in self.legs.iter().enumerate() {
            let lift = self.lifts[i];
            let ankle = self.world[leg.ankle].w_axis.truncate();
            // Where the clip put the ankle, raised by the ground under it.
            let target = Vec3::new(ankle.x, ankle.y - drop + lift, ankle.z);
            let foot_rotation = skeleton.world_rotation(locals, leg.ankle);
            reach(skeleton, locals, &mut self.world, leg, target);
            keep_world_rotation(skeleton, locals, leg.ankle, foot_rotation);
        }
    }
}

/// Bends the knee and turns the hip so the ankle lands on `target` (as near as the leg
/// reaches), keeping the plane the knee bends in.
fn reach(
    skeleton: &Skeleton,
    locals: &mut [Transform],
    world: &mut Vec<Mat4>,
    leg: Leg,
    target: Vec3,
) {
    let position = |world: &[Mat4], j: usize| world[j].w_axis.truncate();
    let (a, b, c) = (
        position(world, leg.hip),
        position(world, leg.knee),
        position(world, leg.ankle),
    );
    let (upper, lower) = (a.distance(b), b.distance(c));
    if upper < 1e-4 || lower < 1e-4 {
        return;
    }
    // As straight as the clip has it at most, or just short of straight.
    let longest = (upper + lower - STRETCH_SLACK).max(a.distance(c));
    let wanted = a
        .distance(target)
        .clamp((upper - lower).abs() + STRETCH_SLACK, longest);
    // The knee angle that puts the ankle `wanted` from the hip (law of cosines).
    let angle = |ab: Vec3, cb: Vec3| ab.normalize().dot(cb.normalize()).clamp(-1.0, 1.0).acos();
    let now = angle(a - b, c - b);
    let cos_wanted = (upper * upper + lower * lower - wanted * wanted) / (2.0 * upper * lower);
    let then = cos_wanted.clamp(-1.0, 1.0).acos();
    let axis = (c - a).cross(b - a);
    let axis = if axis.length_squared() > 1e-12 {
        axis.normalize()
    } else {
        // A straight leg: bend the knee forward (about the hip's sideways axis).
        world[leg.hip]
            .transform_vector3(Vec3::X)
            .normalize_or(Vec3::X)
    };
    rotate_world(
        skeleton,
        locals,
        leg.knee,
        Quat::from_axis_angle(axis, then - now),
    );
    skeleton.world_into(locals, world);
    // Turn the whole leg at the hip so the ankle points at the target.
    let c = position(world, leg.ankle);
    let turn = Quat::from_rotation_arc((c - a).normalize(), (target - a).normalize_or(c - a));
    rotate_world(skeleton, locals, leg.hip, turn);
    skeleton.world_into(locals, world);
}

/// Adds the avatar-space rotation `turn` to joint `j`.
fn rotate_world(skeleton: &Skeleton, locals: &mut [Transform], j: usize, turn: Quat) {
    let parent = skeleton.parents[j].map_or(Quat::IDENTITY, |p| skeleton.world_rotation(locals, p));
    if let Some(local) = locals.get_mut(j) {
        let world = parent * local.rotation;
        local.rotation = (parent.inverse() * turn * world).normalize();
    }
}

/// Sets joint `j`'s local rotation so its avatar-space rotation is `world`.
fn keep_world_rotation(skeleton: &Skeleton, locals: &mut [Transform], j: usize, world: Quat) {
    let parent = skeleton.parents[j].map_or(Quat::IDENTITY, |p| skeleton.world_rotation(locals, p));
    if let Some(local) = locals.get_mut(j) {
        local.rotation = (parent.inverse() * world).normalize();
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
            activity: Activity::Idle,
            attention: None,
            ground: Some(&ground),
        };
        FootIkLayer::new(&skeleton).apply(&skeleton, &input, &mut locals);
        let after = left_knee(&skeleton, &locals);
        assert!(after.z > before.z + 0.05, "knee {before} -> {after}");
    }

    fn solve(ground: &dyn Fn(Vec3) -> f32) -> (Vec3, Vec3, Vec3, Vec3) {
        let skeleton = legs();
        let mut locals = skeleton.rest.clone();
        let (l0, r0) = ankles(&skeleton, &locals);
        let input = LayerInput {
            dt_s: 1.0 / 60.0,
            activity: Activity::Idle,
            attention: None,
            ground: Some(ground),
        };
        FootIkLayer::new(&skeleton).apply(&skeleton, &input, &mut locals);
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
