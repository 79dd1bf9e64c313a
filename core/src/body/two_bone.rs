//! Two-bone IK (hip, knee, ankle or shoulder, elbow, wrist): the end lands on a target as
//! near as the limb reaches, the middle joint bending toward a pole so knees and elbows bend
//! only their own way. Positions are carried through analytically, so a solve needs no
//! world-matrix pass.

use glam::{Quat, Vec3};

use super::humanoid::{HumanoidMap, LEGS};
use super::skeleton::Skeleton;
use super::space::rotate_world;
use crate::asset::Transform;

/// Slack kept in a fully stretched limb, metres (a straight joint has no bend direction).
const STRETCH_SLACK: f32 = 0.002;

/// The three joints of a limb, root to end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limb {
    pub root: usize,
    pub mid: usize,
    pub end: usize,
}

impl Limb {
    /// The legs (hip, knee, ankle) of a rig with humanoid `map`, left then right; a leg the
    /// rig lacks a joint of is left out.
    #[must_use]
    pub fn legs(map: &HumanoidMap) -> Vec<Self> {
        LEGS.iter()
            .filter_map(|[upper, lower, foot, _]| {
                Some(Self {
                    root: map.joint(*upper)?,
                    mid: map.joint(*lower)?,
                    end: map.joint(*foot)?,
                })
            })
            .collect()
    }
}

/// Where a limb's joints are (avatar space).
#[derive(Clone, Copy, Debug)]
pub struct LimbAt {
    pub root: Vec3,
    pub mid: Vec3,
    pub end: Vec3,
}

impl LimbAt {
    /// Where `limb`'s joints are under `locals`: the root from its chain of parents, the middle
    /// and end joints from the joint above them, so a large rig costs a few joints, not a
    /// world pass.
    #[must_use]
    pub fn of(skeleton: &Skeleton, locals: &[Transform], limb: Limb) -> Self {
        let root = skeleton.world_of(locals, limb.root);
        let mid = skeleton.world_under(locals, limb.root, root, limb.mid);
        let end = skeleton.world_under(locals, limb.mid, mid, limb.end);
        Self {
            root: root.w_axis.truncate(),
            mid: mid.w_axis.truncate(),
            end: end.w_axis.truncate(),
        }
    }
}

/// Turns `limb`'s root and middle joints so its end lands on `target` (as near as the limb
/// reaches), the middle joint bending toward `pole` (avatar space, any length). `at` holds
/// the joints' current positions and is updated to the solved ones.
pub fn reach(
    skeleton: &Skeleton,
    locals: &mut [Transform],
    limb: Limb,
    at: &mut LimbAt,
    target: Vec3,
    pole: Vec3,
) {
    let (a, b, c) = (at.root, at.mid, at.end);
    let (upper, lower) = (a.distance(b), b.distance(c));
    if upper < 1e-5 || lower < 1e-5 || !target.is_finite() {
        return;
    }
    let to_target = target - a;
    let Some(dir) = to_target.try_normalize() else {
        return;
    };
    let longest = upper + lower - STRETCH_SLACK * (upper + lower);
    let shortest = (upper - lower).abs() + STRETCH_SLACK * (upper + lower);
    let d = to_target.length().clamp(shortest, longest.max(shortest));
    // The middle joint's distance along the root-target line, and off it (law of cosines).
    let along = (upper * upper - lower * lower + d * d) / (2.0 * d);
    let off = (upper * upper - along * along).max(0.0).sqrt();
    let side = (pole - dir * pole.dot(dir))
        .try_normalize()
        .or_else(|| (b - a - dir * (b - a).dot(dir)).try_normalize())
        .unwrap_or_else(|| dir.any_orthonormal_vector());
    let mid = a + dir * along + side * off;
    let end = a + dir * d;
    // Root: the upper bone onto the new middle; the lower bone goes along.
    let turn_root = Quat::from_rotation_arc((b - a).normalize_or(dir), (mid - a).normalize_or(dir));
    rotate_world(skeleton, locals, limb.root, turn_root);
    let c_turned = a + turn_root * (c - a);
    // Middle: the lower bone onto the end.
    let turn_mid = Quat::from_rotation_arc(
        (c_turned - mid).normalize_or(dir),
        (end - mid).normalize_or(dir),
    );
    rotate_world(skeleton, locals, limb.mid, turn_mid);
    *at = LimbAt { root: a, mid, end };
}

/// The pole a knee (or elbow) bends toward: its own bend when it has one on the `toward` side,
/// else `toward`.
#[must_use]
pub fn bend_pole(at: &LimbAt, toward: Vec3) -> Vec3 {
    let line = (at.end - at.root).normalize_or_zero();
    let bend = at.mid - at.root - line * (at.mid - at.root).dot(line);
    let reach = at.root.distance(at.mid).max(1e-5);
    if bend.length() > 0.02 * reach && bend.dot(toward) > 0.0 {
        bend
    } else {
        toward
    }
}
