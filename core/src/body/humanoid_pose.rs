//! A body's pose in rig-independent terms: how far each humanoid bone is turned from its rest
//! pose in the avatar's space, and where the hips stand. Bakes and records write poses this
//! way; exports turn them back into the joint transforms of a rig.

use glam::{Mat4, Quat, Vec3};

use super::humanoid::{HumanoidBone, HumanoidMap};
use super::skeleton::Skeleton;
use crate::asset::Transform;

/// One frame of a body.
#[derive(Clone, Debug, PartialEq)]
pub struct HumanoidPose {
    /// Each bone's avatar-space rotation away from rest, in the order of the reader's bones.
    pub rotations: Vec<Quat>,
    /// The hips' position in the avatar's space (metres), when the rig has hips.
    pub hips_position: Option<Vec3>,
}

/// Reads [`HumanoidPose`]s off a rig's local transforms.
#[derive(Clone, Debug)]
pub struct PoseReader {
    bones: Vec<(HumanoidBone, usize)>,
    /// World rotation of each node at rest.
    rest: Vec<Quat>,
    hips: Option<usize>,
}

impl PoseReader {
    #[must_use]
    pub fn new(skeleton: &Skeleton, map: &HumanoidMap) -> Self {
        let mut rest = Vec::new();
        skeleton.world_rotations_into(&skeleton.rest, &mut rest);
        Self {
            bones: map.bones().to_vec(),
            rest,
            hips: map.joint(HumanoidBone::Hips),
        }
    }

    /// The bones read, in pose order.
    #[must_use]
    pub fn bones(&self) -> &[(HumanoidBone, usize)] {
        &self.bones
    }

    /// Each bone's avatar-space turn from rest under `locals`, as (x, y, z, w).
    #[must_use]
    pub fn rotations(&self, skeleton: &Skeleton, locals: &[Transform]) -> Vec<[f32; 4]> {
        let (mut world, mut turns) = (Vec::new(), Vec::new());
        self.rotations_into(skeleton, locals, &mut world, &mut turns);
        turns.iter().map(Quat::to_array).collect()
    }

    /// [`Self::rotations`] into `turns`, with `world` as scratch: once both have grown to the
    /// rig, nothing is allocated.
    pub fn rotations_into(
        &self,
        skeleton: &Skeleton,
        locals: &[Transform],
        world: &mut Vec<Quat>,
        turns: &mut Vec<Quat>,
    ) {
        skeleton.world_rotations_into(locals, world);
        turns.clear();
        turns.extend(
            self.bones
                .iter()
                .map(|&(_, j)| (world[j] * self.rest[j].inverse()).normalize()),
        );
    }

    /// `bone`'s avatar-space turn from rest under `locals`, when the rig has it.
    #[must_use]
    pub fn rotation_of(
        &self,
        skeleton: &Skeleton,
        locals: &[Transform],
        bone: HumanoidBone,
    ) -> Option<Quat> {
        let &(_, j) = self.bones.iter().find(|&&(b, _)| b == bone)?;
        let rest = self.rest.get(j)?;
        Some((skeleton.world_rotation(locals, j) * rest.inverse()).normalize())
    }

    /// The hips' avatar-space position under `locals`.
    #[must_use]
    pub fn hips_position(&self, skeleton: &Skeleton, locals: &[Transform]) -> Option<Vec3> {
        self.hips
            .map(|h| skeleton.world_of(locals, h).transform_point3(Vec3::ZERO))
    }
}

/// The local transforms that put `skeleton` in `pose`, whose rotations belong to `bones`:
/// every other joint keeps its rest transform relative to its parent, the hips move to the
/// pose's position. The inverse of [`PoseReader`] on the same rig.
#[must_use]
pub fn joint_locals(
    skeleton: &Skeleton,
    bones: &[(HumanoidBone, usize)],
    pose: &HumanoidPose,
) -> Vec<Transform> {
    let mut rest_world = Vec::new();
    skeleton.world_rotations_into(&skeleton.rest, &mut rest_world);
    let mut turn: Vec<Option<Quat>> = vec![None; skeleton.len()];
    for (&(_, j), q) in bones.iter().zip(&pose.rotations) {
        if let Some(slot) = turn.get_mut(j) {
            *slot = Some(*q);
        }
    }
    let mut locals = skeleton.rest.clone();
    let mut world = vec![Quat::IDENTITY; skeleton.len()];
    for &j in skeleton.order() {
        let parent = skeleton.parents[j].map_or(Quat::IDENTITY, |p| world[p]);
        world[j] = match turn[j] {
            Some(q) => (q * rest_world[j]).normalize(),
            None => parent * skeleton.rest[j].rotation,
        };
        locals[j].rotation = (parent.inverse() * world[j]).normalize();
    }
    let hips = bones.iter().find(|(b, _)| *b == HumanoidBone::Hips);
    if let (Some(&(_, h)), Some(at)) = (hips, pose.hips_position) {
        let parent = skeleton.parents[h].map_or(Mat4::IDENTITY, |p| skeleton.world_of(&locals, p));
        locals[h].translation = parent.inverse().transform_point3(at);
    }
    locals
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The project's own rig under an extra root, scaled and turned as Mixamo exports are.
    fn rig() -> (Skeleton, HumanoidMap) {
        let own = crate::procedural::body::clip_rig().skeleton;
        let mut parents = vec![None];
        parents.extend(own.parents.iter().map(|p| Some(p.map_or(0, |p| p + 1))));
        let mut names = vec!["Armature".to_owned()];
        names.extend(own.names.iter().cloned());
        let mut rest = vec![Transform {
            translation: Vec3::new(0.5, 0.0, 0.0),
            rotation: Quat::from_rotation_y(0.7),
            scale: Vec3::splat(0.01),
        }];
        rest.extend(own.rest.iter().map(|t| Transform {
            translation: t.translation * 100.0,
            ..*t
        }));
        let skeleton = Skeleton::new(parents, names, rest);
        let map = HumanoidMap::of(&skeleton);
        (skeleton, map)
    }

    #[test]
    fn locals_rebuilt_from_a_read_pose_are_the_pose() {
        let (skeleton, map) = rig();
        let joint = |b| map.joint(b).expect("the own rig has the bone");
        let (hips, spine, head) = (
            joint(HumanoidBone::Hips),
            joint(HumanoidBone::Spine),
            joint(HumanoidBone::Head),
        );
        let mut posed = skeleton.rest.clone();
        posed[hips].translation += Vec3::new(3.0, -2.0, 1.0);
        posed[hips].rotation = Quat::from_rotation_y(0.9) * posed[hips].rotation;
        posed[spine].rotation = Quat::from_rotation_x(0.4) * posed[spine].rotation;
        posed[head].rotation = Quat::from_rotation_z(-0.6);
        let reader = PoseReader::new(&skeleton, &map);
        let pose = HumanoidPose {
            rotations: reader
                .rotations(&skeleton, &posed)
                .into_iter()
                .map(Quat::from_array)
                .collect(),
            hips_position: reader.hips_position(&skeleton, &posed),
        };
        let rebuilt = joint_locals(&skeleton, reader.bones(), &pose);
        assert!(reader.bones().len() > 20, "{:?}", reader.bones());
        for (a, b) in rebuilt.iter().zip(&posed) {
            assert!(
                a.rotation.dot(b.rotation).abs() > 1.0 - 1e-6,
                "{a:?} vs {b:?}"
            );
            assert!(
                (a.translation - b.translation).length() < 1e-3,
                "{a:?} vs {b:?}"
            );
        }
    }

    #[test]
    fn the_rest_pose_reads_as_no_turn() {
        let (skeleton, map) = rig();
        let reader = PoseReader::new(&skeleton, &map);
        for q in reader.rotations(&skeleton, &skeleton.rest) {
            assert!(Quat::from_array(q).angle_between(Quat::IDENTITY) < 1e-4);
        }
        let hips = reader
            .hips_position(&skeleton, &skeleton.rest)
            .expect("the rig has hips");
        assert!(
            hips.y > 0.8 && hips.y < 1.2,
            "hips in metres under a 0.01 root: {hips}"
        );
    }
}
