//! Spring bones: hair, skirts, tails and accessories trailing the body's motion, as VRM
//! defines them (`crate::asset::spring_bones`). Each joint's tail is a point integrated by
//! Verlet steps (inertia less drag, a pull back toward the joint's posed direction, gravity),
//! held at the bone's length from the joint and pushed out of the colliders; the joint turns
//! toward it. Steps are fixed at 60 a second (the rate VRM's settings are authored for), the
//! tails shown between steps interpolated, so the motion is the same at 30 and at 1000 frames
//! a second.

use glam::{Mat3, Mat4, Quat, Vec3};

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
    axis: Vec3,
    length: f32,
    hit_radius: f32,
    stiffness: f32,
    gravity: Vec3,
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
}

/// One NPC's tails, where they are and were a step ago, in the world.
#[derive(Clone, Debug, Default)]
pub struct SpringState {
    tails: Vec<Vec3>,
    previous: Vec<Vec3>,
    /// Each joint's head and posed direction at the last frame: steps between two frames see
    /// the body in between.
    heads: Vec<Vec3>,
    directions: Vec<Vec3>,
    /// Each bone's direction (head to tail) after the last step and the one before: what is
    /// shown between steps is turned between them (not moved: the body moves on meanwhile).
    stepped: Vec<(Vec3, Vec3)>,
    /// The colliders placed this frame (scratch).
    placed: Vec<Placed>,
    /// The colliders near the chain being stepped (scratch).
    near: Vec<usize>,
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
                    axis: tail.normalize(),
                    length: tail.length(),
                    hit_radius: joint.hit_radius,
                    stiffness: joint.stiffness,
                    gravity: joint.gravity_dir * joint.gravity_power,
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
        Self {
            joints,
            chains,
            colliders: bones.colliders.iter().map(|c| (c.node, c.shape)).collect(),
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
            state.tails.clear();
            state.previous.clear();
            state.heads.clear();
            state.directions.clear();
            state.stepped.clear();
            state.owed = 0.0;
        }
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
                        let c = at.transform_point3(offset);
                        Placed::new(c, c, radius * scale)
                    }
                    ColliderShape::Capsule {
                        offset,
                        tail,
                        radius,
                    } => Placed::new(
                        at.transform_point3(offset),
                        at.transform_point3(tail),
                        radius * scale,
                    ),
                }
            }));
        for chain in &self.chains {
            for k in chain.joints.clone() {
                self.step_joint(k, chain, state, &frame, model, locals, world, fresh);
            }
        }
    }

    /// Steps joint `k` of `chain` through the frame and turns it toward its tail.
    #[allow(clippy::too_many_arguments)]
    fn step_joint(
        &self,
        k: usize,
        chain: &ChainRig,
        state: &mut SpringState,
        frame: &Frame,
        model: Mat4,
        locals: &mut [Transform],
        world: &mut [Mat4],
        fresh: bool,
    ) {
        let joint = &self.joints[k];
        let j = joint.node;
        let (Some(local), Some(parent_model)) = (
            locals.get(j).copied(),
            joint
                .parent
                .map_or(Some(Mat4::IDENTITY), |p| world.get(p).copied()),
        ) else {
            return;
        };
        let posed_model = parent_model * local.to_mat4();
        let posed = model * posed_model;
        let head = posed.w_axis.truncate();
        let posed_tail = posed.transform_point3(joint.axis * joint.length);
        let bone = posed_tail - head;
        let length = bone.length();
        let rest_dir = if length > 0.0 {
            bone / length
        } else {
            Vec3::ZERO
        };
        if fresh {
            state.tails.push(posed_tail);
            state.previous.push(posed_tail);
            state.heads.push(head);
            state.directions.push(rest_dir);
            state.stepped.push((rest_dir, rest_dir));
        }
        let (last_head, last_dir) = (state.heads[k], state.directions[k]);
        if k == chain.joints.start {
            // The colliders this chain can reach this frame: within its bones' length of the
            // root's head, wherever the head was during the frame.
            state.near.clear();
            if chain.linked {
                let reach = chain.length * world_scale(&posed) * 1.1
                    + chain.hit_radius
                    + head.distance(last_head);
                state
                    .near
                    .extend(chain.colliders.iter().copied().filter(|&c| {
                        state
                            .placed
                            .get(c)
                            .is_some_and(|p| p.distance_to(head) < reach + p.radius)
                    }));
            } else {
                state.near.extend_from_slice(&chain.colliders);
            }
        }
        for step in 0..frame.steps {
            let f = frame.share(step);
            let head_then = last_head.lerp(head, f);
            let dir_then = last_dir.lerp(rest_dir, f).normalize_or(rest_dir);
            let (tail, previous) = (state.tails[k], state.previous[k]);
            let mut next = tail
                + (tail - previous) * (1.0 - joint.drag)
                + dir_then * (joint.stiffness * STEP_S)
                + joint.gravity * STEP_S;
            next = head_then + (next - head_then).normalize_or(dir_then) * length;
            next = collide(joint, &state.near, &state.placed, head_then, length, next);
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
        let shown = before.lerp(after, frame.between).normalize_or(after);
        // Turn the joint so its bone points at the tail shown: the direction in the joint's
        // own space (its inverse linear part, scale included, as the axis was measured).
        let toward = (to_local(Mat3::from_mat4(posed)) * shown).normalize_or(joint.axis);
        let turned = local.rotation * Quat::from_rotation_arc(joint.axis, toward);
        let mut moved = local;
        moved.rotation = turned.normalize();
        locals[j] = moved;
        if let Some(w) = world.get_mut(j) {
            *w = parent_model * moved.to_mat4();
        }
    }
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
    a: Vec3,
    ab: Vec3,
    /// 1 / |ab|^2, or 0 for a sphere.
    inv_length_sq: f32,
    radius: f32,
}

impl Placed {
    fn new(a: Vec3, b: Vec3, radius: f32) -> Self {
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
        }
    }

    /// The point of the segment nearest `p`.
    fn nearest(&self, p: Vec3) -> Vec3 {
        let s = ((p - self.a).dot(self.ab) * self.inv_length_sq).clamp(0.0, 1.0);
        self.a + self.ab * s
    }

    fn distance_to(&self, p: Vec3) -> f32 {
        self.nearest(p).distance(p)
    }
}

/// `tail` pushed out of the colliders `near` (of `placed`), kept at `length` from `head`.
fn collide(
    joint: &JointRig,
    near: &[usize],
    placed: &[Placed],
    head: Vec3,
    length: f32,
    mut tail: Vec3,
) -> Vec3 {
    for &c in near {
        let Some(collider) = placed.get(c) else {
            continue;
        };
        let centre = collider.nearest(tail);
        let reach = collider.radius + joint.hit_radius;
        let away = tail - centre;
        if away.length_squared() < reach * reach {
            tail = centre + away.normalize_or(Vec3::Y) * reach;
            tail = head + (tail - head).normalize_or(Vec3::Y) * length;
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
}
