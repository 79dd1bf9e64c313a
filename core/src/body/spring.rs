//! Spring bones: hair, skirts, tails and accessories trailing the body's motion, as VRM
//! defines them (`crate::asset::spring_bones`). Each joint's tail is a point integrated by
//! Verlet steps (inertia less drag, a pull back toward the joint's posed direction, gravity),
//! held at the bone's length from the joint and pushed out of the colliders; the joint turns
//! toward it. Steps are fixed at 60 a second (the rate VRM's settings are authored for), the
//! tails shown between steps interpolated, so the motion is the same at 30 and at 1000 frames
//! a second.

use glam::{Mat4, Quat, Vec3};

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
    /// Indices into the rig's colliders this joint keeps out of.
    colliders: Vec<usize>,
}

/// An avatar's spring bones, ready to simulate (shared by every NPC wearing it).
#[derive(Clone, Debug, Default)]
pub struct SpringRig {
    /// Chain by chain, root first: a joint's parent comes before it.
    joints: Vec<JointRig>,
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
    placed: Vec<(Vec3, Vec3, f32)>,
    /// Time not yet stepped, s.
    owed: f32,
}

impl SpringRig {
    /// The rig of `bones` on `skeleton` (its rest pose gives each bone's direction and
    /// length). A joint whose bone has no length is left out.
    #[must_use]
    pub fn new(bones: &SpringBones, skeleton: &Skeleton) -> Self {
        let rest_world = skeleton.rest_world();
        let mut joints = Vec::new();
        for chain in &bones.chains {
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
                    colliders: colliders.clone(),
                });
            }
        }
        Self {
            joints,
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
        // Where each step falls between the last frame (0) and this one (1).
        let share = |k: u32| {
            if dt_s > 0.0 {
                ((first + k as f32 * STEP_S) / dt_s).clamp(0.0, 1.0)
            } else {
                1.0
            }
        };
        let between = state.owed / STEP_S;
        let to_model = model.inverse();
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
                        (c, c, radius * scale)
                    }
                    ColliderShape::Capsule {
                        offset,
                        tail,
                        radius,
                    } => (
                        at.transform_point3(offset),
                        at.transform_point3(tail),
                        radius * scale,
                    ),
                }
            }));
        for (k, joint) in self.joints.iter().enumerate() {
            let j = joint.node;
            let (Some(local), Some(parent)) = (
                locals.get(j).copied(),
                joint
                    .parent
                    .map_or(Some(Mat4::IDENTITY), |p| world.get(p).copied()),
            ) else {
                continue;
            };
            let parent = model * parent;
            let posed = parent * local.to_mat4();
            let head = posed.w_axis.truncate();
            let posed_tail = posed.transform_point3(joint.axis * joint.length);
            let length = (posed_tail - head).length();
            let rest_dir = (posed_tail - head).normalize_or_zero();
            if fresh {
                state.tails.push(posed_tail);
                state.previous.push(posed_tail);
                state.heads.push(head);
                state.directions.push(rest_dir);
                state.stepped.push((rest_dir, rest_dir));
            }
            let (last_head, last_dir) = (state.heads[k], state.directions[k]);
            for step in 0..steps {
                let f = share(step);
                let head_then = last_head.lerp(head, f);
                let dir_then = last_dir.lerp(rest_dir, f).normalize_or(rest_dir);
                let (tail, previous) = (state.tails[k], state.previous[k]);
                let mut next = tail
                    + (tail - previous) * (1.0 - joint.drag)
                    + dir_then * (joint.stiffness * STEP_S)
                    + joint.gravity * STEP_S;
                next = head_then + (next - head_then).normalize_or(dir_then) * length;
                next = collide(joint, &state.placed, head_then, length, next);
                state.previous[k] = tail;
                state.tails[k] = next;
                let dir = (next - head_then).normalize_or(dir_then);
                state.stepped[k] = (state.stepped[k].1, dir);
            }
            state.heads[k] = head;
            state.directions[k] = rest_dir;
            let (before, after) = state.stepped[k];
            let shown = head + before.lerp(after, between).normalize_or(after) * length;
            // Turn the joint so its bone points at the tail shown.
            let (_, rotation, _) = posed.to_scale_rotation_translation();
            let toward = (rotation.inverse() * (shown - head)).normalize_or(joint.axis);
            let turned = local.rotation * Quat::from_rotation_arc(joint.axis, toward);
            let mut moved = local;
            moved.rotation = turned.normalize();
            locals[j] = moved;
            if let Some(w) = world.get_mut(j) {
                *w = to_model * parent * moved.to_mat4();
            }
        }
    }
}

/// `tail` pushed out of the joint's colliders (`placed`: each one's segment ends, the same
/// point for a sphere, and radius, in the world), kept at `length` from `head`.
fn collide(
    joint: &JointRig,
    placed: &[(Vec3, Vec3, f32)],
    head: Vec3,
    length: f32,
    mut tail: Vec3,
) -> Vec3 {
    for &c in &joint.colliders {
        let Some(&(a, b, radius)) = placed.get(c) else {
            continue;
        };
        let ab = b - a;
        let s = if ab.length_squared() > 1e-12 {
            ((tail - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let centre = a + ab * s;
        let reach = radius + joint.hit_radius;
        let away = tail - centre;
        if away.length_squared() < reach * reach {
            tail = centre + away.normalize_or(Vec3::Y) * reach;
            tail = head + (tail - head).normalize_or(Vec3::Y) * length;
        }
    }
    tail
}

/// Where node `to` is in node `from`'s space, at rest.
fn local_of(rest_world: &[Mat4], from: usize, to: usize) -> Option<Vec3> {
    let (a, b) = (rest_world.get(from)?, rest_world.get(to)?);
    Some(a.inverse().transform_point3(b.w_axis.truncate()))
}

/// A transform's mean scale.
fn world_scale(m: &Mat4) -> f32 {
    let (s, _, _) = m.to_scale_rotation_translation();
    ((s.x.abs() + s.y.abs() + s.z.abs()) / 3.0).max(1e-6)
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
