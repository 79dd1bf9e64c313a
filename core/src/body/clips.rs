//! Where a body's clips come from: its own file, or another rig's clips retargeted onto it
//! (the project's idle, walk and talk on an avatar that brings none).

use std::sync::Arc;

use super::clip_layer::ClipLayer;
use super::humanoid::HumanoidMap;
use super::layer::{Activity, BodyLayer, LayerInput};
use super::retarget::{ClipRig, Retarget};
use super::skeleton::Skeleton;
use crate::asset::Transform;
use crate::asset::animation::Clip;

/// The clips a body is made with.
#[derive(Clone, Copy, Debug)]
pub enum ClipSource<'a> {
    /// Clips on the body's own nodes.
    Own(&'a [Clip]),
    /// Another rig's clips, retargeted through both humanoid maps.
    Retargeted(&'a Arc<ClipRig>),
}

/// The clip layer of a body: its own clips, or another rig's played on it.
#[derive(Debug)]
pub enum Clips {
    Own(ClipLayer),
    Retargeted {
        rig: Arc<ClipRig>,
        layer: ClipLayer,
        retarget: Box<Retarget>,
        /// The source rig's pose this frame.
        source_locals: Vec<Transform>,
    },
}

impl Clips {
    #[must_use]
    pub fn new(
        source: ClipSource<'_>,
        skeleton: &Skeleton,
        map: &HumanoidMap,
        start_phase_s: f32,
    ) -> Self {
        match source {
            ClipSource::Own(clips) => Self::Own(ClipLayer::new(clips, start_phase_s)),
            ClipSource::Retargeted(rig) => {
                let retarget = Retarget::new(rig, skeleton, map);
                // Longer legs take longer strides: walk slower so the feet keep pace with
                // the ground covered.
                let layer = ClipLayer::new(&rig.clips, start_phase_s)
                    .with_walk_rate(1.0 / retarget.scale.max(0.1));
                Self::Retargeted {
                    source_locals: rig.skeleton.rest.clone(),
                    rig: Arc::clone(rig),
                    layer,
                    retarget: Box::new(retarget),
                }
            }
        }
    }

    /// Whether a clip poses the body for `activity`.
    #[must_use]
    pub fn poses(&self, activity: Activity) -> bool {
        match self {
            Self::Own(layer) | Self::Retargeted { layer, .. } => layer.poses(activity),
        }
    }

    /// Poses `locals` for this frame.
    pub fn apply(&mut self, skeleton: &Skeleton, input: &LayerInput, locals: &mut [Transform]) {
        match self {
            Self::Own(layer) => layer.apply(skeleton, input, locals),
            Self::Retargeted {
                rig,
                layer,
                retarget,
                source_locals,
            } => {
                if !layer.poses(input.activity) {
                    locals.copy_from_slice(&skeleton.rest[..locals.len().min(skeleton.rest.len())]);
                    return;
                }
                layer.apply(&rig.skeleton, input, source_locals);
                retarget.apply(&rig.skeleton, source_locals, skeleton, locals);
            }
        }
    }
}
