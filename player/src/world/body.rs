//! Body animation as a stack of layers over the skeleton's local transforms: first the clips
//! (idle, walk, talk, with 0.3 s cross-blends), then procedural layers such as the head turning
//! toward what the NPC attends to. Further layers (idle life, gestures, foot IK) implement
//! [`BodyLayer`] and go on the stack; the skeleton code does not change.

use glam::{Quat, Vec3};
use npc_core::asset::Transform;
use npc_core::asset::animation::{Clip, blend};

use super::foot_ik::FootIkLayer;
use super::skeleton::Skeleton;

/// What an NPC's body is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activity {
    Idle,
    Walk,
    Talk,
}

/// What layers may read this frame.
#[derive(Clone, Copy)]
pub struct LayerInput<'a> {
    pub dt_s: f32,
    pub activity: Activity,
    /// Where the NPC attends to, in the avatar's own space (metres; +Z is its front).
    pub attention: Option<Vec3>,
    /// Height of the ground below a point, both in the avatar's own space (0 where the
    /// avatar stands); `None` where there is no ground to follow.
    pub ground: Option<&'a dyn Fn(Vec3) -> f32>,
}

impl std::fmt::Debug for LayerInput<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LayerInput")
            .field("dt_s", &self.dt_s)
            .field("activity", &self.activity)
            .field("attention", &self.attention)
            .field("ground", &self.ground.is_some())
            .finish()
    }
}

/// One layer of body animation: changes the local transforms the layers below produced.
pub trait BodyLayer: std::fmt::Debug + Send {
    fn apply(&mut self, skeleton: &Skeleton, input: &LayerInput, locals: &mut [Transform]);
}

/// Cross-blend length between clips, seconds.
pub const CROSS_BLEND_S: f32 = 0.3;

/// The clips of the three activities, cross-blended on change.
#[derive(Debug)]
pub struct ClipLayer {
    clips: [Option<Clip>; 3],
    current: Activity,
    previous: Activity,
    /// Time in the current and previous clips.
    t_current: f32,
    t_previous: f32,
    /// Progress of the blend from previous to current, 0-1.
    blend: f32,
    scratch_a: Vec<Transform>,
    scratch_b: Vec<Transform>,
    weights: Vec<Vec<f32>>,
}

fn index(a: Activity) -> usize {
    match a {
        Activity::Idle => 0,
        Activity::Walk => 1,
        Activity::Talk => 2,
    }
}

impl ClipLayer {
    /// Picks the clips named like "idle", "walk" and "talk" (case ignored) from `clips`;
    /// an activity without a clip falls back to idle, and idle to the rest pose.
    #[must_use]
    pub fn new(clips: &[Clip], start_phase_s: f32) -> Self {
        let find = |name: &str| {
            clips
                .iter()
                .find(|c| c.name.to_lowercase().contains(name))
                .cloned()
        };
        Self {
            clips: [find("idle"), find("walk"), find("talk")],
            current: Activity::Idle,
            previous: Activity::Idle,
            t_current: start_phase_s,
            t_previous: start_phase_s,
            blend: 1.0,
            scratch_a: Vec::new(),
            scratch_b: Vec::new(),
            weights: Vec::new(),
        }
    }

    fn clip(clips: &[Option<Clip>; 3], a: Activity) -> Option<&Clip> {
        clips[index(a)].as_ref().or(clips[0].as_ref())
    }

    /// The activity shown (the one blended toward).
    #[must_use]
    pub fn activity(&self) -> Activity {
        self.current
    }
}

impl BodyLayer for ClipLayer {
    fn apply(&mut self, skeleton: &Skeleton, input: &LayerInput, locals: &mut [Transform]) {
        let dt = if input.dt_s.is_finite() {
            input.dt_s.max(0.0)
        } else {
            0.0
        };
        if input.activity != self.current {
            self.previous = self.current;
            self.t_previous = self.t_current;
            self.current = input.activity;
            self.t_current = 0.0;
            self.blend = 0.0;
        }
        self.t_current += dt;
        self.t_previous += dt;
        self.blend = (self.blend + dt / CROSS_BLEND_S).min(1.0);
        self.scratch_a.clear();
        self.scratch_a.extend_from_slice(&skeleton.rest);
        self.weights.resize(skeleton.len(), Vec::new());
        if let Some(clip) = Self::clip(&self.clips, self.current) {
            clip.sample(self.t_current, true, &mut self.scratch_a, &mut self.weights);
        }
        if self.blend < 1.0 {
            self.scratch_b.clear();
            self.scratch_b.extend_from_slice(&skeleton.rest);
            if let Some(clip) = Self::clip(&self.clips, self.previous) {
                clip.sample(
                    self.t_previous,
                    true,
                    &mut self.scratch_b,
                    &mut self.weights,
                );
            }
            // Smooth in and out of the blend.
            let b = self.blend;
            blend(
                &self.scratch_b,
                &self.scratch_a,
                b * b * (3.0 - 2.0 * b),
                locals,
            );
        } else {
            for (out, t) in locals.iter_mut().zip(&self.scratch_a) {
                *out = *t;
            }
        }
    }
}

/// Turns the neck and head toward the point of attention, within human limits, easing in and
/// out so the head does not snap.
#[derive(Debug)]
pub struct LookAtLayer {
    neck: Option<usize>,
    head: Option<usize>,
    /// The rotation currently applied (eased toward the wanted one).
    applied: Quat,
    world: Vec<glam::Mat4>,
    /// Most yaw and pitch away from the body's front, radians.
    pub max_yaw: f32,
    pub max_pitch: f32,
    /// Time constant of the easing, seconds.
    pub tau_s: f32,
}

impl LookAtLayer {
    #[must_use]
    pub fn new(skeleton: &Skeleton) -> Self {
        Self {
            neck: skeleton.find("Neck"),
            head: skeleton.find("Head"),
            applied: Quat::IDENTITY,
            world: Vec::new(),
            max_yaw: 70_f32.to_radians(),
            max_pitch: 30_f32.to_radians(),
            tau_s: 0.25,
        }
    }

    /// The turn (in avatar space) that points the front (+Z) toward `dir`, clamped.
    fn wanted(&self, dir: Vec3) -> Quat {
        let flat = Vec3::new(dir.x, 0.0, dir.z);
        if flat.length_squared() < 1e-8 || dir.z < -0.2 * flat.length() {
            // Behind: do not try.
            return Quat::IDENTITY;
        }
        let yaw = dir.x.atan2(dir.z).clamp(-self.max_yaw, self.max_yaw);
        let pitch = (-dir.y)
            .atan2(flat.length())
            .clamp(-self.max_pitch, self.max_pitch);
        Quat::from_rotation_y(yaw) * Quat::from_rotation_x(pitch)
    }
}

impl BodyLayer for LookAtLayer {
    fn apply(&mut self, skeleton: &Skeleton, input: &LayerInput, locals: &mut [Transform]) {
        let Some(head) = self.head else {
            return;
        };
        let target_turn = match input.attention {
            Some(point) => {
                skeleton.world_into(locals, &mut self.world);
                let eye = self.world[head].transform_point3(Vec3::new(0.0, 0.08, 0.0));
                self.wanted(point - eye)
            }
            None => Quat::IDENTITY,
        };
        let dt = if input.dt_s.is_finite() {
            input.dt_s.max(0.0)
        } else {
            0.0
        };
        let k = 1.0 - (-dt / self.tau_s.max(1e-3)).exp();
        self.applied = self.applied.slerp(target_turn, k).normalize();
        // Share the turn: a third in the neck, the rest in the head.
        let parts: [(Option<usize>, f32); 2] = match self.neck {
            Some(_) => [(self.neck, 1.0 / 3.0), (Some(head), 1.0)],
            None => [(None, 0.0), (Some(head), 1.0)],
        };
        let mut done = Quat::IDENTITY;
        for (joint, share) in parts {
            let Some(j) = joint else { continue };
            let part = Quat::IDENTITY.slerp(self.applied, share);
            // The extra turn this joint adds, in avatar space.
            let extra = part * done.inverse();
            done = part;
            let parent_rot =
                skeleton.parents[j].map_or(Quat::IDENTITY, |p| skeleton.world_rotation(locals, p));
            let Some(local) = locals.get_mut(j) else {
                continue;
            };
            // New world rotation = extra * old world rotation, expressed locally.
            let world_rot = parent_rot * local.rotation;
            local.rotation = (parent_rot.inverse() * extra * world_rot).normalize();
        }
    }
}

/// The layer stack of one NPC.
#[derive(Debug)]
pub struct Body {
    pub clips: ClipLayer,
    /// Procedural layers applied after the clips, in order.
    pub layers: Vec<Box<dyn BodyLayer>>,
    pub locals: Vec<Transform>,
}

impl Body {
    #[must_use]
    pub fn new(skeleton: &Skeleton, clips: &[Clip], start_phase_s: f32) -> Self {
        Self {
            clips: ClipLayer::new(clips, start_phase_s),
            layers: vec![
                Box::new(FootIkLayer::new(skeleton)),
                Box::new(LookAtLayer::new(skeleton)),
            ],
            locals: skeleton.rest.clone(),
        }
    }

    /// Advances every layer by one frame.
    pub fn update(&mut self, skeleton: &Skeleton, input: &LayerInput) {
        self.clips.apply(skeleton, input, &mut self.locals);
        for layer in &mut self.layers {
            layer.apply(skeleton, input, &mut self.locals);
        }
    }
}
