//! Posing joints in the avatar's own space whatever their local axes are: rigs from different
//! tools point their bones along different local axes, so layers turn and move joints by
//! avatar-space rotations and offsets and let these helpers express them locally.

use glam::{Mat4, Quat, Vec3};

use super::skeleton::Skeleton;
use crate::asset::Transform;

/// The avatar-space position of node `j` under the world matrices `world`.
#[must_use]
pub fn position(world: &[Mat4], j: usize) -> Vec3 {
    world.get(j).map_or(Vec3::ZERO, |m| m.w_axis.truncate())
}

/// The avatar-space rotation of the parent of `j` (identity for a root).
fn parent_rotation(skeleton: &Skeleton, locals: &[Transform], j: usize) -> Quat {
    skeleton
        .parents
        .get(j)
        .copied()
        .flatten()
        .map_or(Quat::IDENTITY, |p| skeleton.world_rotation(locals, p))
}

/// Adds the avatar-space rotation `turn` to joint `j` (about the joint itself).
pub fn rotate_world(skeleton: &Skeleton, locals: &mut [Transform], j: usize, turn: Quat) {
    let parent = parent_rotation(skeleton, locals, j);
    if let Some(local) = locals.get_mut(j) {
        let world = parent * local.rotation;
        local.rotation = (parent.inverse() * turn * world).normalize();
    }
}

/// Adds `turn` to each joint of `chain` (each a child of the one before, the first a child of
/// `base` whose avatar-space rotation is `base_rotation`), from the base outward: the parents'
/// rotations are carried down the chain instead of walked up to the root for every joint. A
/// joint that is not the child of the one before falls back to [`rotate_world`].
pub fn rotate_chain(
    skeleton: &Skeleton,
    locals: &mut [Transform],
    base: (usize, Quat),
    chain: impl IntoIterator<Item = (usize, Quat)>,
) {
    let mut above = Some(base);
    for (j, turn) in chain {
        let parent = match (above, skeleton.parents.get(j).copied().flatten()) {
            (Some((p, rotation)), Some(q)) if p == q => rotation,
            _ => parent_rotation(skeleton, locals, j),
        };
        above = locals.get_mut(j).map(|local| {
            let world = parent * local.rotation;
            local.rotation = (parent.inverse() * turn * world).normalize();
            (j, parent * local.rotation)
        });
    }
}

/// Sets joint `j`'s local rotation so its avatar-space rotation is `world`.
pub fn set_world_rotation(skeleton: &Skeleton, locals: &mut [Transform], j: usize, world: Quat) {
    let parent = parent_rotation(skeleton, locals, j);
    if let Some(local) = locals.get_mut(j) {
        local.rotation = (parent.inverse() * world).normalize();
    }
}

/// Moves joint `j` by the avatar-space offset `by` (metres), in its parent's frame (scale
/// included).
pub fn move_world(skeleton: &Skeleton, locals: &mut [Transform], j: usize, by: Vec3) {
    let parent = skeleton
        .parents
        .get(j)
        .copied()
        .flatten()
        .map_or(Mat4::IDENTITY, |p| skeleton.world_of(locals, p));
    if let Some(local) = locals.get_mut(j) {
        local.translation += parent.inverse().transform_vector3(by);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A root and a chain of three joints bent about different axes.
    fn chain() -> Skeleton {
        let t = |x: f32, axis: Vec3| Transform {
            translation: Vec3::new(x, 0.1, 0.0),
            rotation: Quat::from_axis_angle(axis.normalize(), 0.3),
            ..Transform::IDENTITY
        };
        Skeleton::new(
            vec![None, Some(0), Some(1), Some(2)],
            (0..4).map(|i| format!("j{i}")).collect(),
            vec![
                t(0.0, Vec3::Y),
                t(0.1, Vec3::X),
                t(0.1, Vec3::new(1.0, 1.0, 0.0)),
                t(0.1, Vec3::Z),
            ],
        )
    }

    #[test]
    fn a_chain_turns_as_its_joints_turned_one_by_one() {
        let skeleton = chain();
        let turns = [
            (1, Quat::from_rotation_z(0.4)),
            (2, Quat::from_rotation_x(-0.2)),
            (3, Quat::from_rotation_y(0.7)),
        ];
        let mut one_by_one = skeleton.rest.clone();
        for (j, turn) in turns {
            rotate_world(&skeleton, &mut one_by_one, j, turn);
        }
        let mut chained = skeleton.rest.clone();
        let base = skeleton.world_rotation(&chained, 0);
        rotate_chain(&skeleton, &mut chained, (0, base), turns);
        // And from a wrong base: every joint falls back to its own walk.
        let mut fallback = skeleton.rest.clone();
        rotate_chain(&skeleton, &mut fallback, (3, Quat::IDENTITY), turns);
        for ((a, b), c) in one_by_one.iter().zip(&chained).zip(&fallback) {
            assert!(a.rotation.angle_between(b.rotation) < 1e-5);
            assert!(a.rotation.angle_between(c.rotation) < 1e-5);
        }
        assert!(
            one_by_one[2]
                .rotation
                .angle_between(skeleton.rest[2].rotation)
                > 0.1
        );
    }
}
