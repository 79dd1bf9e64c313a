//! Spring bones: hair, skirts, tails and accessories trailing the body's motion, as VRM
//! defines them (`crate::asset::spring_bones`). Each joint's tail is a point integrated by
//! Verlet steps (inertia less drag, a pull back toward the joint's posed direction, gravity),
//! held at the bone's length from the joint and pushed out of the colliders; the joint turns
//! toward it. Steps are fixed at 60 a second (the rate VRM's settings are authored for), the
//! tails shown between steps interpolated, so the motion is the same at 30 and at 1000 frames
//! a second.

use glam::{Mat3, Mat4, Quat, Vec3, Vec3A};

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
    /// (joint, its chain), in the order they are stepped: by how many spring joints are above
    /// each, so the joints of one level do not wait for each other and the processor overlaps
    /// them (one chain at a time, each joint waits for the one before it). Every joint still
    /// comes after the joints it hangs from, as chain by chain.
    order: Vec<(usize, usize)>,
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
        let order = step_order(&joints, &chains);
        Self {
            joints,
            chains,
            colliders: bones.colliders.iter().map(|c| (c.node, c.shape)).collect(),
            order,
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
        for &(k, c) in &self.order {
            self.step_joint(k, c, state, &frame, &model, locals, world, fresh);
        }
    }

    /// Steps joint `k` of `chain` through the frame and turns it toward its tail.
    ///
    /// Written for speed (every joint waits for the one above it): the joint's head and bone
    /// are carried through its parent's transform as vectors, no matrix is built for the
    /// joint until its new world transform, and a direction is normalised only where its
    /// length matters.
    #[allow(clippy::too_many_arguments)]
    fn step_joint(
        &self,
        k: usize,
        c: usize,
        state: &mut SpringState,
        frame: &Frame,
        model: &ModelFrame,
        locals: &mut [Transform],
        world: &mut [Mat4],
        fresh: bool,
    ) {
        let joint = &self.joints[k];
        let chain = &self.chains[c];
        let j = joint.node;
        let (Some(local), Some(parent)) = (
            locals.get(j).copied(),
            joint
                .parent
                .map_or(Some(Mat4::IDENTITY), |p| world.get(p).copied()),
        ) else {
            return;
        };
        // The head, and the bone as the pose holds it, in the model and then in the world.
        let scale = Vec3A::from(local.scale);
        let head_model = parent.transform_point3a(local.translation.into());
        let bone_parent = local.rotation * (scale * joint.axis);
        let head = model.to_world.transform_point3a(head_model);
        let bone = model
            .to_world
            .transform_vector3a(parent.transform_vector3a(bone_parent * joint.length));
        let length = bone.length();
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
            // The root's scale in the world (the chain's length is in its units).
            let scale = model.scale * world_scale(&parent) * local.scale.abs().element_sum() / 3.0;
            let from = state.near.len();
            gather_near(chain, state, head, head.distance(last_head), scale);
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
        // The direction shown, taken back into the joint's own space (where its axis was
        // measured): through the model's inverse, the parent's (its adjugate, which is the
        // inverse times the determinant: the direction is all that matters), the joint's
        // rotation and its scale. Every step is linear, so one normalisation at the end does.
        let shown = model.to_model.mul_vec3a(before.lerp(after, frame.between));
        let in_parent = adjugate_times(&parent, shown);
        let toward = local.rotation.inverse() * in_parent * scale.recip();
        let turned = local.rotation * arc_unnormalised(joint.axis, toward);
        let norm_sq = turned.length_squared();
        // The joint's new world transform comes first: the next joint waits for it.
        if let Some(w) = world.get_mut(j) {
            let (x, y, z) = rotation_axes(turned, norm_sq.recip());
            *w = Mat4::from_cols(
                parent * (x * local.scale.x).extend(0.0),
                parent * (y * local.scale.y).extend(0.0),
                parent * (z * local.scale.z).extend(0.0),
                head_model.extend(1.0),
            );
        }
        let mut moved = local;
        moved.rotation = turned * norm_sq.sqrt().recip();
        locals[j] = moved;
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

/// The order joints are stepped in (`SpringRig::order`): by level, the number of spring
/// joints above each that come before it chain by chain; in the chains' order within a level.
fn step_order(joints: &[JointRig], chains: &[ChainRig]) -> Vec<(usize, usize)> {
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
    order
}

/// The model's world transform, with what every joint needs of it worked out once a frame.
struct ModelFrame {
    to_world: Mat4,
    /// A direction in the world taken into the model's space (up to scale).
    to_model: Mat3,
    scale: f32,
}

impl ModelFrame {
    fn new(to_world: Mat4) -> Self {
        Self {
            to_world,
            to_model: to_local(Mat3::from_mat4(to_world)),
            scale: world_scale(&to_world),
        }
    }
}

/// `m`'s linear part's adjugate times `v`: its inverse times `v`, times its determinant's
/// magnitude (the sign kept, so a mirrored parent turns the right way).
fn adjugate_times(m: &Mat4, v: Vec3A) -> Vec3A {
    let (x, y, z) = (
        Vec3A::from_vec4(m.x_axis),
        Vec3A::from_vec4(m.y_axis),
        Vec3A::from_vec4(m.z_axis),
    );
    let (yz, zx, xy) = (y.cross(z), z.cross(x), x.cross(y));
    let turned = Vec3A::new(yz.dot(v), zx.dot(v), xy.dot(v));
    if x.dot(yz) < 0.0 { -turned } else { turned }
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

/// The rotation matrix's columns of quaternion `q` of any length, given 1 / |q|^2.
fn rotation_axes(q: Quat, inv_norm_sq: f32) -> (Vec3A, Vec3A, Vec3A) {
    let (x, y, z, w) = (q.x, q.y, q.z, q.w);
    let (xx, yy, zz, ww) = (x * x, y * y, z * z, w * w);
    let (xy, xz, yz, wx, wy, wz) = (x * y, x * z, y * z, w * x, w * y, w * z);
    let s = inv_norm_sq;
    (
        Vec3A::new(ww + xx - yy - zz, 2.0 * (xy + wz), 2.0 * (xz - wy)) * s,
        Vec3A::new(2.0 * (xy - wz), ww - xx + yy - zz, 2.0 * (yz + wx)) * s,
        Vec3A::new(2.0 * (xz + wy), 2.0 * (yz - wx), ww - xx - yy + zz) * s,
    )
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
        for to in [
            Vec3A::new(1.0, 2.0, -0.5),
            Vec3A::new(-0.3, 0.1, 4.0),
            from * 3.0,
            -from * 2.0,
        ] {
            let q = arc_unnormalised(from, to);
            let norm_sq = q.length_squared();
            let (x, y, z) = rotation_axes(q, norm_sq.recip());
            let turned = x * from.x + y * from.y + z * from.z;
            assert!(
                turned.distance(to.normalize()) < 1e-5,
                "{from} to {to}: {turned}"
            );
            let unit = q * norm_sq.sqrt().recip();
            let expected = Mat3::from_quat(unit);
            assert!(
                (Mat3::from_cols(x.into(), y.into(), z.into()) - expected)
                    .abs_diff_eq(Mat3::ZERO, 1e-5)
            );
        }
    }

    #[test]
    fn the_adjugate_undoes_a_sheared_or_mirrored_parent_up_to_a_positive_scale() {
        let parents = [
            Mat4::from_scale_rotation_translation(
                Vec3::new(1.0, 2.0, 0.5),
                Quat::from_rotation_z(0.7),
                Vec3::ONE,
            ),
            Mat4::from_rotation_x(0.4) * Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)),
            Mat4::from_rotation_y(1.2)
                * Mat4::from_scale(Vec3::new(3.0, 1.0, 1.0))
                * Mat4::from_rotation_z(0.5),
        ];
        let v = Vec3A::new(0.3, -0.4, 0.8);
        for parent in parents {
            let expected = Mat3::from_mat4(parent).inverse().mul_vec3a(v);
            let got = adjugate_times(&parent, v);
            assert!(got.dot(expected) > 0.0, "{parent}");
            assert!(
                got.normalize().distance(expected.normalize()) < 1e-5,
                "{parent}: {got} against {expected}"
            );
        }
    }

    #[test]
    fn every_joint_is_stepped_after_the_joints_it_hangs_from() {
        let (skeleton, mut bones) = strand(0.0, vec![]);
        // A second chain hanging from the first one's middle joint.
        bones.chains.push(SpringChain {
            name: "bead".to_owned(),
            joints: vec![bones.chains[0].joints[2]],
            tip: SpringTip::Node(5),
            collider_groups: vec![],
        });
        bones.chains[0].joints.truncate(2);
        let rig = SpringRig::new(&bones, &skeleton);
        let nodes: Vec<usize> = rig.order.iter().map(|&(k, _)| rig.joints[k].node).collect();
        assert_eq!(nodes, vec![2, 3, 4]);
        // Two chains side by side are stepped level by level.
        let (skeleton, mut bones) = strand(0.0, vec![]);
        let mut other = bones.chains[0].clone();
        other.name = "other".to_owned();
        bones.chains.push(other);
        let rig = SpringRig::new(&bones, &skeleton);
        let order: Vec<(usize, usize)> = rig.order.clone();
        assert_eq!(order, vec![(0, 0), (3, 1), (1, 0), (4, 1), (2, 0), (5, 1)]);
    }
}
