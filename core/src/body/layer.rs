//! Body animation as a stack of layers over the skeleton's local transforms: first the clips
//! (idle, walk, talk, cross-blended), then procedural layers in order: feet to the ground, the
//! head toward what the NPC attends to. Further layers (idle life, gestures) implement
//! [`BodyLayer`] and go on the stack; the skeleton code does not change.

use glam::Vec3;

use super::clip_layer::ClipLayer;
use super::foot_ik::FootIkLayer;
use super::look_at::LookAtLayer;
use super::skeleton::Skeleton;
use crate::asset::Transform;
use crate::asset::animation::Clip;

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
