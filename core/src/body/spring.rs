//! Spring bones: hair, skirts, tails and accessories trailing the body's motion, as VRM
//! defines them (`crate::asset::spring_bones`). Each joint's tail is a point integrated by
//! Verlet steps (inertia less drag, a pull back toward the joint's posed direction, gravity),
//! held at the bone's length from the joint and pushed out of the colliders; the joint turns
//! toward it. Steps are fixed at 60 a second (the rate VRM's settings are authored for), the
//! tails shown between steps interpolated, so the motion is the same at 30 and at 1000 frames
//! a second.

use glam::{Mat3, Mat4, Quat, Vec3, Vec3A, Vec4};

use super::lanes::{Lanes3, LanesMat, LanesQuat};

use super::skeleton::Skeleton;
use crate::asset::Transform;
use crate::asset::spring_bones::{ColliderShape, SpringBones, SpringTip};

/// The simulation's step, s.
pub const STEP_S: f32 = 1.0 / 60.0;
/// Steps taken at most in one frame (a long stall does not make the hair whip).
const MAX_STEPS: u32 = 8;

/// One joint, ready to simulate.
#[derive(Clone, Debug)]
struct JointRig {
    node: usize,
    parent: Option<usize>,
    /// Toward the tail in the joint's space (unit) and how far, in its units.
    axis: Vec3A,
    length: f32,
    hit_radius: f32,
    stiffness: f32,
    gravity: Vec3A,
    drag: f32,
}

/// One chain's joints (a range of the rig's, root first) and the colliders they keep out of.
#[derive(Clone, Debug)]
struct ChainRig {
    joints: std::ops::Range<usize>,
    /// Indices into the rig's colliders.
    colliders: Vec<usize>,
    /// Every joint's parent is the joint before it, so every tail stays within the bones'
    /// total length of the root's head: colliders farther than that are passed over.
    linked: bool,
    /// The bones' total length in the root joint's units, and the largest hit radius.
    length: f32,
    hit_radius: f32,
}

/// An avatar's spring bones, ready to simulate (shared by every NPC wearing it).
#[derive(Clone, Debug, Default)]
pub struct SpringRig {
    /// Chain by chain, root first: a joint's parent comes before it.
    joints: Vec<JointRig>,
    chains: Vec<ChainRig>,
    colliders: Vec<(usize, ColliderShape)>,
    /// The joints in the order they are stepped, four at a time: by how many spring joints
    /// are above each, so the joints of one level do not wait on each other and are stepped
    /// side by side (chain by chain, each joint waits on the one before it). Every joint still
    /// comes after the joints it hangs from, as chain by chain.
    groups: Vec<Group>,
}

/// Up to four joints of one level, with their chains: stepped side by side.
#[derive(Clone, Debug, Default, PartialEq)]
struct Group {
    joints: [usize; 4],
    chains: [usize; 4],
    len: usize,
}

/// One NPC's tails, where they are and were a step ago, in the world.
#[derive(Clone, Debug, Default)]
pub struct SpringState {
    tails: Vec<Vec3A>,
    previous: Vec<Vec3A>,
    /// Each joint's head and posed direction at the last frame: steps between two frames see
    /// the body in between.
    heads: Vec<Vec3A>,
    directions: Vec<Vec3A>,
    /// Each bone's direction (head to tail) after the last step and the one before: what is
    /// shown between steps is turned between them (not moved: the body moves on meanwhile).
    stepped: Vec<(Vec3A, Vec3A)>,
    /// The colliders placed this frame (scratch).
    placed: Vec<Placed>,
    /// The colliders near each chain this frame (scratch): `near[near_of[chain]]`.
    near: Vec<Placed>,
    near_of: Vec<std::ops::Range<usize>>,
    /// Time not yet stepped, s.
    owed: f32,
}

impl SpringRig {
    /// The rig of `bones` on `skeleton` (its rest pose gives each bone's direction and
    /// length). A joint whose bone has no length is left out.
    #[must_use]
    pub fn new(bones: &SpringBones, skeleton: &Skeleton) -> Self {
        let rest_world = skeleton.rest_world();
        let mut joints: Vec<JointRig> = Vec::new();
        let mut chains = Vec::new();
        for chain in &bones.chains {
            let first = joints.len();
            let colliders: Vec<usize> = chain
                .collider_groups
                .iter()
                .filter_map(|&g| bones.groups.get(g))
                .flatten()
                .copied()
                .filter(|&c| c < bones.colliders.len())
                .collect();
            for (i, joint) in chain.joints.iter().enumerate() {
                let j = joint.node;
                let Some(&world) = rest_world.get(j) else {
                    continue;
                };
                // The tail in the joint's space: the next joint, the chain's tip node, or past
                // the end along the bone (VRM 0.x).
                let tail = match (chain.joints.get(i + 1), chain.tip) {
                    (Some(next), _) => local_of(&rest_world, j, next.node),
                    (None, SpringTip::Node(tip)) => local_of(&rest_world, j, tip),
                    (None, SpringTip::Extend(m)) => {
                        let t = skeleton.rest[j].translation;
                        Some(t.normalize_or(Vec3::Y) * m / world_scale(&world))
                    }
                };
                let Some(tail) = tail.filter(|t| t.length() > 1e-6) else {
                    continue;
                };
                joints.push(JointRig {
                    node: j,
                    parent: skeleton.parents[j],
                    axis: tail.normalize().into(),
                    length: tail.length(),
                    hit_radius: joint.hit_radius,
                    stiffness: joint.stiffness,
                    gravity: (joint.gravity_dir * joint.gravity_power).into(),
                    drag: joint.drag,
                });
            }
            let chain_joints = &joints[first..];
            if chain_joints.is_empty() {
                continue;
            }
            let root_scale = rest_world
                .get(chain_joints[0].node)
                .map_or(1.0, world_scale);
            chains.push(ChainRig {
                joints: first..joints.len(),
                colliders,
                linked: chain_joints
                    .windows(2)
                    .all(|w| w[1].parent == Some(w[0].node)),
                // In the world at rest, then back in the root's units (the frame's scale
                // is applied when the chain is stepped).
                length: chain_joints
                    .iter()
                    .map(|j| j.length * rest_world.get(j.node).map_or(1.0, world_scale))
                    .sum::<f32>()
                    / root_scale,
                hit_radius: chain_joints
                    .iter()
                    .map(|j| j.hit_radius)
                    .fold(0.0, f32::max),
            });
        }
        let groups = step_groups(&joints, &chains);
        Self {
            joints,
            chains,
            colliders: bones.colliders.iter().map(|c| (c.node, c.shape)).collect(),
            groups,
        }
    }

    /// Whether there is anything to simulate.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.joints.is_empty()
    }

    /// Joints simulated.
    #[must_use]
    pub fn joint_count(&self) -> usize {
        self.joints.len()
    }

    /// Moves the tails on by `dt_s` and turns the spring joints toward them in `locals` (the
    /// pose from the body, in place), given the model's world transform `model` and the
    /// pose's node transforms `world` (model space, from `locals` before this call; the spring
    /// joints' entries are updated as they turn, the rest of the chain's nodes are not: the
    /// caller works the world transforms out again).
    pub fn update(
        &self,
        state: &mut SpringState,
        model: Mat4,
        locals: &mut [Transform],
        world: &mut [Mat4],
        dt_s: f32,
    ) {
        if self.joints.is_empty() {
            return;
        }
        let fresh = state.tails.len() != self.joints.len();
        if fresh {
            let n = self.joints.len();
            state.tails = vec![Vec3A::ZERO; n];
            state.previous = vec![Vec3A::ZERO; n];
            state.heads = vec![Vec3A::ZERO; n];
            state.directions = vec![Vec3A::ZERO; n];
            state.stepped = vec![(Vec3A::ZERO, Vec3A::ZERO); n];
            state.near_of = vec![0..0; self.chains.len()];
            state.owed = 0.0;
        }
        state.near.clear();
        let dt_s = dt_s.max(0.0);
        // The first step falls this far into the frame, the others a step apart.
        let first = STEP_S - state.owed;
        state.owed += dt_s;
        let mut steps = (state.owed / STEP_S).floor() as u32;
        state.owed -= steps as f32 * STEP_S;
        if steps > MAX_STEPS {
            steps = MAX_STEPS;
            state.owed = 0.0;
        }
        let frame = Frame {
            steps,
            first,
            dt_s,
            between: state.owed / STEP_S,
        };
        // The colliders in the world this frame (their nodes are the body's, not springs).
        state.placed.clear();
        state
            .placed
            .extend(self.colliders.iter().map(|&(node, shape)| {
                let at = model * world.get(node).copied().unwrap_or(Mat4::IDENTITY);
                let scale = world_scale(&at);
                match shape {
                    ColliderShape::Sphere { offset, radius } => {
                        let c = at.transform_point3a(offset.into());
                        Placed::new(c, c, radius * scale)
                    }
                    ColliderShape::Capsule {
                        offset,
                        tail,
                        radius,
                    } => Placed::new(
                        at.transform_point3a(offset.into()),
                        at.transform_point3a(tail.into()),
                        radius * scale,
                    ),
                }
            }));
        let model = ModelFrame::new(model);
        for group in &self.groups {
            self.step_group(group, state, &frame, &model, locals, world, fresh);
        }
    }

    /// Steps the joints of `group` (up to four of one level: none waits on another) through
    /// the frame and turns each toward its tail. Their poses are carried and turned four at
    /// once, one joint to a SIMD lane (`super::lanes`); each one's steps and collisions are
    /// its own. A joint's head and bone are carried through its parent's transform as
    /// vectors, no matrix is built until its new world transform, and a direction is
    /// normalised only where its length matters.
    #[allow(clippy::too_many_arguments)]
    fn step_group(
        &self,
        group: &Group,
        state: &mut SpringState,
        frame: &Frame,
        model: &ModelFrame,
        locals: &mut [Transform],
        world: &mut [Mat4],
        fresh: bool,
    ) {
        let n = group.len;
        // Lanes past the group's joints repeat its last one and are not written back.
        let joint_of = |i: usize| &self.joints[group.joints[i.min(n - 1)]];
        let parent_of = |i: usize| {
            joint_of(i)
                .parent
                .map_or(Some(Mat4::IDENTITY), |p| world.get(p).copied())
        };
        let present: [bool; 4] = std::array::from_fn(|i| {
            locals.get(joint_of(i).node).is_some() && parent_of(i).is_some()
        });
        let local: [Transform; 4] = std::array::from_fn(|i| {
            locals
                .get(joint_of(i).node)
                .copied()
                .unwrap_or(Transform::IDENTITY)
        });
        let parent = LanesMat::from_fn(|i| parent_of(i).unwrap_or(Mat4::IDENTITY));
        let rotation = LanesQuat::from_fn(|i| local[i].rotation);
        let scale = Lanes3::from_fn(|i| local[i].scale.into());
        let axis = Lanes3::from_fn(|i| joint_of(i).axis);
        let bone_length = Vec4::from_array(std::array::from_fn(|i| joint_of(i).length));
        // The heads, and the bones as the pose holds them, in the model and then the world.
        let head_model = parent.transform_point(Lanes3::from_fn(|i| local[i].translation.into()));
        let bone_parent = rotation.rotate(scale.times(axis)).scale(bone_length);
        let heads = model.to_world.transform_point(head_model);
        let bones = model
            .to_world
            .transform_vector(parent.transform_vector(bone_parent));
        let lengths = bones.length();
        let mut shown = [Vec3A::ZERO; 4];
        for i in 0..n {
            if present[i] {
                // The chain root's scale in the world (the chain's length is in its units).
                let root = group.joints[i] == self.chains[group.chains[i]].joints.start;
                let parent_scale = if root {
                    world_scale(&parent_of(i).unwrap_or(Mat4::IDENTITY))
                } else {
                    0.0
                };
                shown[i] = self.step_one(
                    group.joints[i],
                    group.chains[i],
                    state,
                    frame,
                    (heads.lane(i), bones.lane(i), lengths[i]),
                    model.scale * parent_scale * local[i].scale.abs().element_sum() / 3.0,
                    fresh,
                );
            }
        }
        // The directions shown, taken back into each joint's own space (where its axis was
        // measured): through the model's inverse, the parent's (its adjugate, which is the
        // inverse times the determinant: the direction is all that matters), the joint's
        // rotation and its scale. Every step is linear, so no normalisation is needed before
        // the turn's own.
        let shown = model
            .to_model
            .transform_vector(Lanes3::from_fn(|i| shown[i.min(n - 1)]));
        let in_parent = parent.adjugate_times(shown);
        let inverse_scale = Lanes3 {
            x: scale.x.recip(),
            y: scale.y.recip(),
            z: scale.z.recip(),
        };
        let toward = rotation.rotate_back(in_parent).times(inverse_scale);
        let turned = rotation.then(&arc_lanes(axis, toward));
        let norm_sq = turned.length_squared();
        let [x, y, z] = turned.axes(norm_sq.recip());
        let columns = [
            parent.transform_vector(x.scale(scale.x)),
            parent.transform_vector(y.scale(scale.y)),
            parent.transform_vector(z.scale(scale.z)),
        ];
        let unit = norm_sq.sqrt().recip();
        for i in (0..n).filter(|&i| present[i]) {
            let j = self.joints[group.joints[i]].node;
            if let Some(w) = world.get_mut(j) {
                *w = Mat4::from_cols(
                    columns[0].lane(i).extend(0.0),
                    columns[1].lane(i).extend(0.0),
                    columns[2].lane(i).extend(0.0),
                    head_model.lane(i).extend(1.0),
                );
            }
            let mut moved = local[i];
            moved.rotation = turned.lane(i) * unit[i];
            locals[j] = moved;
        }
    }

    /// Steps joint `k` of chain `c` through the frame, its head, bone and the bone's length
    /// in the world as `posed` (and the chain root's scale in the world, `root_scale`): the
    /// direction to show, not normalised.
    #[allow(clippy::too_many_arguments)]
    fn step_one(
        &self,
        k: usize,
        c: usize,
        state: &mut SpringState,
        frame: &Frame,
        posed: (Vec3A, Vec3A, f32),
        root_scale: f32,
        fresh: bool,
    ) -> Vec3A {
        let (joint, chain) = (&self.joints[k], &self.chains[c]);
        let (head, bone, length) = posed;
        let rest_dir = if length > 0.0 {
            bone / length
        } else {
            Vec3A::ZERO
        };
        if fresh {
            let posed_tail = head + bone;
            state.tails[k] = posed_tail;
            state.previous[k] = posed_tail;
            state.heads[k] = head;
            state.directions[k] = rest_dir;
            state.stepped[k] = (rest_dir, rest_dir);
        }
        let (last_head, last_dir) = (state.heads[k], state.directions[k]);
        if k == chain.joints.start {
            let from = state.near.len();
            gather_near(chain, state, head, head.distance(last_head), root_scale);
            state.near_of[c] = from..state.near.len();
        }
        let near = state.near_of[c].clone();
        for step in 0..frame.steps {
            let f = frame.share(step);
            // At 60 frames a second the one step falls on the frame itself.
            let (head_then, dir_then) = if f >= 1.0 {
                (head, rest_dir)
            } else {
                (
                    last_head.lerp(head, f),
                    last_dir.lerp(rest_dir, f).normalize_or(rest_dir),
                )
            };
            let (tail, previous) = (state.tails[k], state.previous[k]);
            let mut next = tail
                + (tail - previous) * (1.0 - joint.drag)
                + dir_then * (joint.stiffness * STEP_S)
                + joint.gravity * STEP_S;
            next = head_then + (next - head_then).normalize_or(dir_then) * length;
            next = collide(joint, &state.near[near.clone()], head_then, length, next);
            state.previous[k] = tail;
            state.tails[k] = next;
            // The tail is held at the bone's length from the head (by the step and by every
            // collider), so dividing by the length makes it a unit vector.
            let dir = if length > 0.0 {
                (next - head_then) / length
            } else {
                dir_then
            };
            state.stepped[k] = (state.stepped[k].1, dir);
        }
        state.heads[k] = head;
        state.directions[k] = rest_dir;
        let (before, after) = state.stepped[k];
        before.lerp(after, frame.between)
    }
}

/// The colliders `chain` can reach this frame, added to `state.near`: within its bones'
/// length of the root's head, wherever the head was during the frame (`travel`, m).
fn gather_near(chain: &ChainRig, state: &mut SpringState, head: Vec3A, travel: f32, scale: f32) {
    let placed = &state.placed;
    let colliders = chain.colliders.iter().filter_map(|&c| placed.get(c));
    if !chain.linked {
        state.near.extend(colliders);
        return;
    }
    let reach = chain.length * scale * 1.1 + chain.hit_radius + travel;
    state.near.extend(colliders.filter(|p| {
        let within = reach + p.bound;
        p.middle.distance_squared(head) < within * within
    }));
}

/// The groups joints are stepped in (`SpringRig::groups`): by level, the number of spring
/// joints above each that come before it chain by chain, in the chains' order within a level;
/// four at most a group, none of one level with another, no node twice.
fn step_groups(joints: &[JointRig], chains: &[ChainRig]) -> Vec<Group> {
    let mut level = vec![0usize; joints.len()];
    for k in 0..joints.len() {
        if let Some(parent) = joints[k].parent
            && let Some(above) = joints[..k].iter().rposition(|j| j.node == parent)
        {
            level[k] = level[above] + 1;
        }
    }
    let mut order: Vec<(usize, usize)> = chains
        .iter()
        .enumerate()
        .flat_map(|(c, chain)| chain.joints.clone().map(move |k| (k, c)))
        .collect();
    order.sort_by_key(|&(k, _)| (level[k], k));
    let mut groups: Vec<Group> = Vec::new();
    for (k, c) in order {
        let fits = groups.last().is_some_and(|g| {
            g.len < 4
                && level[g.joints[0]] == level[k]
                && g.joints[..g.len]
                    .iter()
                    .all(|&other| joints[other].node != joints[k].node)
        });
        if !fits {
            groups.push(Group::default());
        }
        if let Some(g) = groups.last_mut() {
            g.joints[g.len] = k;
            g.chains[g.len] = c;
            g.len += 1;
        }
    }
    groups
}

/// The model's world transform, with what every joint needs of it worked out once a frame.
struct ModelFrame {
    to_world: LanesMat,
    /// A direction in the world taken into the model's space (up to scale).
    to_model: LanesMat,
    scale: f32,
}

impl ModelFrame {
    fn new(to_world: Mat4) -> Self {
        Self {
            to_world: LanesMat::splat(to_world),
            to_model: LanesMat::splat(Mat4::from_mat3(to_local(Mat3::from_mat4(to_world)))),
            scale: world_scale(&to_world),
        }
    }
}

/// The shortest rotation taking unit `from` toward `to` (of any length), as a quaternion
/// left unnormalised (normalising it would wait on a square root and a division, and the
/// next joint waits on this one). `to` of no length, or pointing back along `from` to within
/// float precision, gives no turn and a half-turn about a perpendicular axis.
fn arc_unnormalised(from: Vec3A, to: Vec3A) -> Quat {
    let n = to.length();
    let w = n + from.dot(to);
    if n.is_nan() || n <= 1e-12 {
        return Quat::IDENTITY;
    }
    if w <= n * 1e-6 {
        return Quat::from_axis_angle(
            Vec3::from(from).any_orthonormal_vector(),
            std::f32::consts::PI,
        );
    }
    // (from x to, n + from . to) is the half-way rotation scaled by sqrt(2 n w).
    let c = from.cross(to);
    Quat::from_xyzw(c.x, c.y, c.z, w)
}

/// `arc_unnormalised` in four lanes.
fn arc_lanes(from: Lanes3, to: Lanes3) -> LanesQuat {
    let n = to.length();
    let w = n + from.dot(to);
    let turn = LanesQuat {
        v: from.cross(to),
        w,
    };
    let plain = n.cmpgt(Vec4::splat(1e-12)) & w.cmpgt(n * 1e-6);
    if plain.all() {
        return turn;
    }
    let lanes: [Quat; 4] = std::array::from_fn(|i| {
        if plain.test(i) {
            turn.lane(i)
        } else {
            arc_unnormalised(from.lane(i), to.lane(i))
        }
    });
    LanesQuat::from_fn(|i| lanes[i])
}

/// The frame's steps: how many, and where they fall.
struct Frame {
    steps: u32,
    /// When the first step falls after the last frame, s.
    first: f32,
    dt_s: f32,
    /// Where the frame shown falls between the last two steps (0 to 1).
    between: f32,
}

impl Frame {
    /// Where step `k` falls between the last frame (0) and this one (1).
    fn share(&self, k: u32) -> f32 {
        if self.dt_s > 0.0 {
            ((self.first + k as f32 * STEP_S) / self.dt_s).clamp(0.0, 1.0)
        } else {
            1.0
        }
    }
}

/// A collider placed in the world this frame: a segment (a point for a sphere) and a radius.
#[derive(Clone, Copy, Debug, Default)]
struct Placed {
    a: Vec3A,
    ab: Vec3A,
    /// 1 / |ab|^2, or 0 for a sphere.
    inv_length_sq: f32,
    radius: f32,
    /// A ball holding it all: the segment's middle, and the radius plus half its length.
    middle: Vec3A,
    bound: f32,
}

impl Placed {
    fn new(a: Vec3A, b: Vec3A, radius: f32) -> Self {
        let ab = b - a;
        let length_sq = ab.length_squared();
        Self {
            a,
            ab,
            inv_length_sq: if length_sq > 1e-12 {
                1.0 / length_sq
            } else {
                0.0
            },
            radius,
            middle: a + ab * 0.5,
            bound: radius + 0.5 * length_sq.sqrt(),
        }
    }

    /// The point of the segment nearest `p`.
    fn nearest(&self, p: Vec3A) -> Vec3A {
        let s = ((p - self.a).dot(self.ab) * self.inv_length_sq).clamp(0.0, 1.0);
        self.a + self.ab * s
    }
}

/// `tail` pushed out of the colliders `near`, kept at `length` from `head`.
fn collide(joint: &JointRig, near: &[Placed], head: Vec3A, length: f32, mut tail: Vec3A) -> Vec3A {
    for collider in near {
        let centre = if collider.inv_length_sq == 0.0 {
            collider.a
        } else {
            collider.nearest(tail)
        };
        let reach = collider.radius + joint.hit_radius;
        let away = tail - centre;
        if away.length_squared() < reach * reach {
            tail = centre + away.normalize_or(Vec3A::Y) * reach;
            tail = head + (tail - head).normalize_or(Vec3A::Y) * length;
        }
    }
    tail
}

/// What takes a direction into the space `linear` (a world transform's linear part) maps
/// from, up to scale: its transpose when it is a rotation times one scale (orthogonal axes of
/// one length, as avatars' joints are), which costs a fraction of the inverse it equals then
/// (divided by the scale squared, which the callers' normalising takes out).
fn to_local(linear: Mat3) -> Mat3 {
    let (x, y, z) = (linear.x_axis, linear.y_axis, linear.z_axis);
    let scale_sq = x.length_squared();
    let tolerance = 1e-5 * scale_sq;
    let uniform = (y.length_squared() - scale_sq).abs() < tolerance
        && (z.length_squared() - scale_sq).abs() < tolerance
        && x.dot(y).abs() < tolerance
        && y.dot(z).abs() < tolerance
        && z.dot(x).abs() < tolerance;
    if uniform {
        linear.transpose()
    } else {
        linear.inverse()
    }
}

/// Where node `to` is in node `from`'s space, at rest.
fn local_of(rest_world: &[Mat4], from: usize, to: usize) -> Option<Vec3> {
    let (a, b) = (rest_world.get(from)?, rest_world.get(to)?);
    Some(a.inverse().transform_point3(b.w_axis.truncate()))
}

/// A transform's mean scale (the lengths of its axes).
fn world_scale(m: &Mat4) -> f32 {
    ((m.x_axis.truncate().length() + m.y_axis.truncate().length() + m.z_axis.truncate().length())
        / 3.0)
        .max(1e-6)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::asset::spring_bones::{SpringChain, SpringCollider, SpringJoint};

    /// A root, a head 1.5 m up, and a strand of three 10 cm bones hanging from the head along
    /// -Z (behind it, level), its tip at node 5.
    fn strand(gravity: f32, colliders: Vec<SpringCollider>) -> (Skeleton, SpringBones) {
        let at = |x: f32, y: f32, z: f32| Transform {
            translation: Vec3::new(x, y, z),
            ..Transform::IDENTITY
        };
        let skeleton = Skeleton::new(
            vec![None, Some(0), Some(1), Some(2), Some(3), Some(4)],
            (0..6).map(|i| format!("n{i}")).collect(),
            vec![
                Transform::IDENTITY,
                at(0.0, 1.5, 0.0),
                at(0.0, 0.0, -0.1),
                at(0.0, 0.0, -0.1),
                at(0.0, 0.0, -0.1),
                at(0.0, 0.0, -0.1),
            ],
        );
        let joint = |node| SpringJoint {
            node,
            hit_radius: 0.01,
            stiffness: 1.0,
            gravity_power: gravity,
            gravity_dir: Vec3::NEG_Y,
            drag: 0.4,
        };
        let groups = if colliders.is_empty() {
            vec![]
        } else {
            vec![(0..colliders.len()).collect()]
        };
        let bones = SpringBones {
            chains: vec![SpringChain {
                name: "hair".to_owned(),
                joints: vec![joint(2), joint(3), joint(4)],
                tip: SpringTip::Node(5),
                collider_groups: if groups.is_empty() { vec![] } else { vec![0] },
            }],
            colliders,
            groups,
        };
        (skeleton, bones)
    }

    /// Plays the strand with the model at `place(t)` for `seconds` at `fps`; the tip's world
    /// position at each of `at` (s).
    fn play(
        skeleton: &Skeleton,
        rig: &SpringRig,
        place: impl Fn(f32) -> Vec3,
        fps: f32,
        at: &[f32],
    ) -> Vec<Vec3> {
        let mut state = SpringState::default();
        let mut out = Vec::new();
        let frames = (at.iter().copied().fold(0.0, f32::max) * fps).round() as u32;
        for f in 0..=frames {
            let t = f as f32 / fps;
            let model = Mat4::from_translation(place(t));
            let mut locals = skeleton.rest.clone();
            let mut world = skeleton.world(&locals);
            rig.update(
                &mut state,
                model,
                &mut locals,
                &mut world,
                if f == 0 { 0.0 } else { 1.0 / fps },
            );
            if at.iter().any(|&a| (a * fps).round() as u32 == f) {
                let world = skeleton.world(&locals);
                out.push(model.transform_point3(world[5].w_axis.truncate()));
            }
        }
        out
    }

    fn rest_tip(skeleton: &Skeleton, place: Vec3) -> Vec3 {
        place + skeleton.rest_world()[5].w_axis.truncate()
    }

    #[test]
    fn a_strand_at_rest_stays_at_rest() {
        let (skeleton, bones) = strand(0.0, vec![]);
        let rig = SpringRig::new(&bones, &skeleton);
        assert_eq!(rig.joint_count(), 3);
        let tips = play(&skeleton, &rig, |_| Vec3::ZERO, 60.0, &[2.0]);
        assert!(
            tips[0].distance(rest_tip(&skeleton, Vec3::ZERO)) < 1e-4,
            "{tips:?}"
        );
    }

    #[test]
    fn a_strand_trails_a_move_and_settles_back() {
        // The head moves 1 m toward +X in half a second, then stops.
        let (skeleton, bones) = strand(0.0, vec![]);
        let rig = SpringRig::new(&bones, &skeleton);
        let place = |t: f32| Vec3::X * (t / 0.5).clamp(0.0, 1.0);
        let tips = play(&skeleton, &rig, place, 60.0, &[0.4, 4.0]);
        // Mid-move the tip lags behind (toward -X of where it rests).
        let lag = rest_tip(&skeleton, place(0.4)).x - tips[0].x;
        assert!(lag > 0.02, "lag {lag} m");
        // Long after, it is back at rest.
        assert!(
            tips[1].distance(rest_tip(&skeleton, place(4.0))) < 2e-3,
            "{tips:?}"
        );
    }

    #[test]
    fn gravity_hangs_a_level_strand_and_a_collider_holds_it_off() {
        let (skeleton, bones) = strand(2.0, vec![]);
        let rig = SpringRig::new(&bones, &skeleton);
        let hung = play(&skeleton, &rig, |_| Vec3::ZERO, 60.0, &[3.0])[0];
        assert!(hung.y < 1.5 - 0.05, "tip at {hung}");
        // A ball of 15 cm just below the strand's middle, on the head.
        let ball = SpringCollider {
            node: 1,
            shape: ColliderShape::Sphere {
                offset: Vec3::new(0.0, -0.16, -0.2),
                radius: 0.15,
            },
        };
        let (skeleton, bones) = strand(2.0, vec![ball]);
        let rig = SpringRig::new(&bones, &skeleton);
        let held = play(&skeleton, &rig, |_| Vec3::ZERO, 60.0, &[3.0])[0];
        let centre = Vec3::new(0.0, 1.5 - 0.16, -0.2);
        assert!(held.distance(centre) >= 0.15 + 0.01 - 1e-3, "tip at {held}");
        assert!(held.y > hung.y + 0.02, "held {held} hung {hung}");
    }

    #[test]
    fn the_motion_is_the_same_at_30_and_1000_frames_a_second() {
        let (skeleton, bones) = strand(0.5, vec![]);
        let rig = SpringRig::new(&bones, &skeleton);
        let place = |t: f32| Vec3::new(0.3 * (std::f32::consts::TAU * 0.8 * t).sin(), 0.0, 0.0);
        let at = [1.0, 1.5, 2.0, 2.5];
        let slow = play(&skeleton, &rig, place, 30.0, &at);
        let fast = play(&skeleton, &rig, place, 1000.0, &at);
        for (s, f) in slow.iter().zip(&fast) {
            // The same steps; only the interpolation between them and where the body was at
            // each step differ.
            assert!(s.distance(*f) < 0.01, "30 fps {s}, 1000 fps {f}");
        }
        // And the strand did swing.
        let still = rest_tip(&skeleton, place(1.5));
        assert!(slow[1].distance(still) > 0.02);
    }

    #[test]
    fn the_unnormalised_turn_is_the_shortest_arc() {
        let from = Vec3A::new(0.2, -0.9, 0.3).normalize();
        let tos = [
            Vec3A::new(1.0, 2.0, -0.5),
            Vec3A::new(-0.3, 0.1, 4.0),
            from * 3.0,
            -from * 2.0,
        ];
        let lanes = arc_lanes(Lanes3::splat(from), Lanes3::from_fn(|i| tos[i]));
        for (i, to) in tos.into_iter().enumerate() {
            for q in [arc_unnormalised(from, to), lanes.lane(i)] {
                let turned = q.normalize() * from;
                assert!(
                    turned.distance(to.normalize()) < 1e-5,
                    "{from} to {to}: {turned}"
                );
            }
        }
    }

    #[test]
    fn every_joint_is_stepped_after_the_joints_it_hangs_from() {
        let (skeleton, mut bones) = strand(0.0, vec![]);
        // A second chain hanging from the first one's last joint.
        bones.chains.push(SpringChain {
            name: "bead".to_owned(),
            joints: vec![bones.chains[0].joints[2]],
            tip: SpringTip::Node(5),
            collider_groups: vec![],
        });
        bones.chains[0].joints.truncate(2);
        let rig = SpringRig::new(&bones, &skeleton);
        let nodes: Vec<usize> = rig
            .groups
            .iter()
            .flat_map(|g| g.joints[..g.len].iter().map(|&k| rig.joints[k].node))
            .collect();
        assert_eq!(nodes, vec![2, 3, 4]);
        assert_eq!(rig.groups.len(), 3, "one joint a level");
        // Two chains side by side are stepped level by level, a joint of each together; the
        // same nodes twice are never in one group.
        let (skeleton, mut bones) = strand(0.0, vec![]);
        let mut other = bones.chains[0].clone();
        other.name = "other".to_owned();
        other.joints = vec![other.joints[0]];
        other.tip = SpringTip::Node(3);
        bones.chains.push(other);
        let mut bones_apart = bones.clone();
        bones_apart.chains[1].joints[0].node = 1;
        bones_apart.chains[1].tip = SpringTip::Node(2);
        let rig = SpringRig::new(&bones_apart, &skeleton);
        let groups: Vec<(Vec<usize>, Vec<usize>)> = rig
            .groups
            .iter()
            .map(|g| (g.joints[..g.len].to_vec(), g.chains[..g.len].to_vec()))
            .collect();
        assert_eq!(
            groups,
            vec![
                (vec![0, 3], vec![0, 1]),
                (vec![1], vec![0]),
                (vec![2], vec![0])
            ]
        );
        let rig = SpringRig::new(&bones, &skeleton);
        assert!(rig.groups.iter().all(|g| g.len == 1), "{:?}", rig.groups);
    }
}
