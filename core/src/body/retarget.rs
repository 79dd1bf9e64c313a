//! Clips made on one rig played on another: the project's idle, walk and talk on any avatar
//! its humanoid map covers. Each bone's motion is taken as the avatar-space rotation from the
//! source rig's rest pose to the clip's pose; on the target it starts from the target's rest
//! with each limb bone first turned to point where the source's points at rest (so an A-pose
//! rig plays a T-pose clip), and the facing of the two rigs is matched. The hips' movement is
//! scaled by the ratio of leg lengths, and a walk plays slower on longer legs so the stride
//! matches the ground covered.

use glam::{Mat4, Quat, Vec3};

use super::humanoid::{ARMS, FINGERS, HumanoidBone, HumanoidMap, LEGS};
use super::skeleton::Skeleton;
use crate::asset::Transform;

/// A rig whose clips other rigs play: its skeleton, humanoid map and clips.
#[derive(Debug)]
pub struct ClipRig {
    pub skeleton: Skeleton,
    pub map: HumanoidMap,
    pub clips: Vec<crate::asset::animation::Clip>,
}

impl ClipRig {
    #[must_use]
    pub fn new(skeleton: Skeleton, clips: Vec<crate::asset::animation::Clip>) -> Self {
        let map = HumanoidMap::of(&skeleton);
        Self {
            skeleton,
            map,
            clips,
        }
    }
}

/// One bone found on both rigs.
#[derive(Clone, Copy, Debug)]
struct Pair {
    source: usize,
    /// Inverse of the source's rest world rotation, then the facing change, the target's
    /// rest correction and its rest world rotation: the posed world rotation is the facing
    /// change times the source's posed world rotation times this.
    after: Quat,
}

/// How a source rig's poses become a target rig's.
#[derive(Debug)]
pub struct Retarget {
    /// Target joints in parent-first order, each with its pair when mapped.
    order: Vec<(usize, Option<Pair>)>,
    /// Source avatar space to target avatar space (a turn about up).
    facing: Quat,
    /// Source and target hips, the source's rest hips position, the target's hips rest
    /// translation and its parent's inverse rest world matrix.
    hips: Option<(usize, usize, Vec3, Vec3, Mat4)>,
    /// Target leg length over the source's.
    pub scale: f32,
    source_rotations: Vec<Quat>,
    target_rotations: Vec<Quat>,
}

/// Each limb bone and the bone its direction points to.
fn limb_chains() -> Vec<(HumanoidBone, HumanoidBone)> {
    let mut chains = Vec::new();
    for side in 0..2 {
        let [shoulder, upper, lower, hand] = ARMS[side];
        chains.extend([(shoulder, upper), (upper, lower), (lower, hand)]);
        chains.push((hand, FINGERS[side][2][0]));
        let [thigh, shin, foot, toes] = LEGS[side];
        chains.extend([(thigh, shin), (shin, foot), (foot, toes)]);
        for finger in FINGERS[side] {
            chains.extend([(finger[0], finger[1]), (finger[1], finger[2])]);
        }
    }
    chains
}

/// Length of a rig's left leg (hip to ankle) at rest, when it has one.
fn leg_length(map: &HumanoidMap, rest: &[Mat4]) -> Option<f32> {
    let at = |b| map.joint(b).map(|j| rest[j].w_axis.truncate());
    let [upper, lower, foot, _] = LEGS[0];
    Some(at(upper)?.distance(at(lower)?) + at(lower)?.distance(at(foot)?))
}

impl Retarget {
    /// The source rig's hips joint, when both rigs have hips.
    #[must_use]
    pub fn source_hips(&self) -> Option<usize> {
        self.hips.map(|h| h.0)
    }

    /// The target joints [`Self::apply`] turns (those paired with a source joint), parents
    /// first.
    #[must_use]
    pub fn posed_joints(&self) -> Vec<usize> {
        self.order
            .iter()
            .filter_map(|&(j, pair)| pair.map(|_| j))
            .collect()
    }

    /// The target's hips joint, whose translation [`Self::apply`] moves, when both rigs have
    /// hips.
    #[must_use]
    pub fn target_hips(&self) -> Option<usize> {
        self.hips.map(|h| h.1)
    }

    /// How `source`'s poses play on `target` (its skeleton and map).
    #[must_use]
    pub fn new(source: &ClipRig, target: &Skeleton, target_map: &HumanoidMap) -> Self {
        let source_rest = source.skeleton.rest_world();
        let target_rest = target.rest_world();
        let facing = Quat::from_rotation_arc(source.map.front, target_map.front);
        let rotation = |m: &Mat4| m.to_scale_rotation_translation().1;
        let position = |m: &Mat4| m.w_axis.truncate();
        let chains = limb_chains();
        // Each paired target joint's own rest correction, where its limb chain continues on
        // both rigs.
        let mut paired = std::collections::HashMap::new();
        for &(bone, s) in source.map.bones() {
            let Some(t) = target_map.joint(bone) else {
                continue;
            };
            // Turn the target's limb bone to point where the source's points at rest.
            let own = chains
                .iter()
                .find(|(b, _)| *b == bone)
                .and_then(|&(_, child)| {
                    let (sc, tc) = (source.map.joint(child)?, target_map.joint(child)?);
                    let from =
                        (position(&target_rest[tc]) - position(&target_rest[t])).try_normalize()?;
                    let to = facing
                        * (position(&source_rest[sc]) - position(&source_rest[s]))
                            .try_normalize()?;
                    Some(Quat::from_rotation_arc(from, to))
                });
            paired.insert(t, (s, own));
        }
        // A bone without its own correction (a hand whose fingers the source lacks) takes
        // its nearest ancestor's, so it stays in line with the limb it ends.
        let mut corrections = vec![Quat::IDENTITY; target.len()];
        let mut order = Vec::with_capacity(target.len());
        for &t in target.order() {
            let inherited = target.parents[t].map_or(Quat::IDENTITY, |p| corrections[p]);
            let pair = paired.get(&t).map(|&(s, own)| {
                let correction = own.unwrap_or(inherited);
                corrections[t] = correction;
                Pair {
                    source: s,
                    after: rotation(&source_rest[s]).inverse()
                        * facing.inverse()
                        * correction
                        * rotation(&target_rest[t]),
                }
            });
            if pair.is_none() {
                corrections[t] = inherited;
            }
            order.push((t, pair));
        }
        let scale = match (
            leg_length(target_map, &target_rest),
            leg_length(&source.map, &source_rest),
        ) {
            (Some(t), Some(s)) if s > 1e-4 => t / s,
            _ => 1.0,
        };
        let hips = match (
            source.map.joint(HumanoidBone::Hips),
            target_map.joint(HumanoidBone::Hips),
        ) {
            (Some(s), Some(t)) => Some((
                s,
                t,
                position(&source_rest[s]),
                target.rest[t].translation,
                target.parents[t]
                    .map_or(Mat4::IDENTITY, |p| target_rest[p])
                    .inverse(),
            )),
            _ => None,
        };
        Self {
            order,
            facing,
            hips,
            scale,
            source_rotations: Vec::new(),
            target_rotations: Vec::new(),
        }
    }

    /// Poses the target (`locals`, starting from anything) as `source_locals` poses the
    /// source rig: every joint starts from its rest transform, paired ones take the source's
    /// rotation, the hips its movement.
    pub fn apply(
        &mut self,
        source: &Skeleton,
        source_locals: &[Transform],
        target: &Skeleton,
        locals: &mut [Transform],
    ) {
        source.world_rotations_into(source_locals, &mut self.source_rotations);
        self.target_rotations.resize(target.len(), Quat::IDENTITY);
        for &(j, pair) in &self.order {
            let parent = target.parents[j].map_or(Quat::IDENTITY, |p| self.target_rotations[p]);
            let rest = target.rest.get(j).copied().unwrap_or(Transform::IDENTITY);
            let (world, rotation) = match pair {
                Some(pair) => {
                    let world =
                        (self.facing * self.source_rotations[pair.source] * pair.after).normalize();
                    (world, (parent.inverse() * world).normalize())
                }
                // A joint without a pair keeps its rest transform and follows its parent.
                None => (parent * rest.rotation, rest.rotation),
            };
            if let Some(local) = locals.get_mut(j) {
                *local = Transform { rotation, ..rest };
            }
            self.target_rotations[j] = world;
        }
        if let Some((s, t, source_rest, target_rest, parent_inverse)) = self.hips {
            let moved = source.world_of(source_locals, s).w_axis.truncate() - source_rest;
            if let Some(local) = locals.get_mut(t) {
                local.translation = target_rest
                    + parent_inverse.transform_vector3(self.facing * moved * self.scale);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::procedural::body::clip_rig;

    /// The avatar-space positions of `bones` under `locals`.
    fn positions(skeleton: &Skeleton, map: &HumanoidMap, locals: &[Transform]) -> Vec<Vec3> {
        let world = skeleton.world(locals);
        map.bones()
            .iter()
            .map(|&(_, j)| world[j].w_axis.truncate())
            .collect()
    }

    /// The built-in rig posed by its walk clip a third of the way through.
    fn walking(rig: &ClipRig) -> Vec<Transform> {
        let mut locals = rig.skeleton.rest.clone();
        let mut weights = vec![Vec::new(); locals.len()];
        let walk = rig.clips.iter().find(|c| c.name == "walk").unwrap();
        walk.sample(0.33, true, &mut locals, &mut weights);
        locals
    }

    #[test]
    fn a_rig_retargeted_onto_itself_takes_the_same_pose() {
        let rig = clip_rig();
        let source = walking(&rig);
        let mut retarget = Retarget::new(&rig, &rig.skeleton, &rig.map);
        assert!((retarget.scale - 1.0).abs() < 1e-6);
        let mut locals = rig.skeleton.rest.clone();
        retarget.apply(&rig.skeleton, &source, &rig.skeleton, &mut locals);
        let (want, got) = (
            positions(&rig.skeleton, &rig.map, &source),
            positions(&rig.skeleton, &rig.map, &locals),
        );
        for (w, g) in want.iter().zip(&got) {
            assert!(w.distance(*g) < 1e-4, "{w} vs {g}");
        }
    }

    #[test]
    fn a_t_pose_rig_points_its_limbs_where_the_arms_down_source_does() {
        let rig = clip_rig();
        // The same rig with its arms raised to a T at rest (a quarter turn at the shoulders).
        let mut rest = rig.skeleton.rest.clone();
        for (side, sign) in [(0, 1.0_f32), (1, -1.0)] {
            let upper = rig.map.joint(ARMS[side][1]).unwrap();
            rest[upper].rotation =
                Quat::from_rotation_z(sign * std::f32::consts::FRAC_PI_2) * rest[upper].rotation;
        }
        let t_pose = Skeleton::new(
            rig.skeleton.parents.clone(),
            rig.skeleton.names.clone(),
            rest,
        );
        let t_map = HumanoidMap::of(&t_pose);
        assert_eq!(t_map.rest, crate::body::RestPose::T);
        let source = walking(&rig);
        let mut retarget = Retarget::new(&rig, &t_pose, &t_map);
        let mut locals = t_pose.rest.clone();
        retarget.apply(&rig.skeleton, &source, &t_pose, &mut locals);
        let direction = |skeleton: &Skeleton, map: &HumanoidMap, locals: &[Transform], a, b| {
            let world = skeleton.world(locals);
            let at = |bone| world[map.joint(bone).unwrap()].w_axis.truncate();
            (at(b) - at(a)).normalize()
        };
        for [_, upper, lower, hand] in ARMS {
            for (a, b) in [(upper, lower), (lower, hand)] {
                let want = direction(&rig.skeleton, &rig.map, &source, a, b);
                let got = direction(&t_pose, &t_map, &locals, a, b);
                assert!(want.dot(got) > 0.9999, "{a:?}: {want} vs {got}");
            }
        }
    }
}
