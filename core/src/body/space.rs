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
