//! Body animation as a stack of layers over the skeleton's local transforms: first the clips
//! (idle, walk, talk, cross-blended), then procedural layers in order: posture, weight shifts,
//! sway, breathing, hanging arms, relaxed hands (idle life), talking hands and nods, feet to
//! the ground, the head toward what the NPC attends to. Further layers implement [`BodyLayer`]
//! and go on the stack; the skeleton code does not change. Every layer finds its joints through the
//! humanoid map, so the same stack runs on any rig.

use glam::Vec3;

use super::clips::{ClipSource, Clips};
use super::emotion::{Bearing, BodyEmotionSettings};
use super::foot_ik::FootIkLayer;
use super::humanoid::HumanoidMap;
use super::idle::{ArmLayer, BreathingLayer, HandLayer, PostureLayer, SwayLayer, WeightShiftLayer};
use super::look_at::LookAtLayer;
use super::settings::BodySettings;
use super::skeleton::Skeleton;
use super::talk::{GestureLayer, TalkMoment};
use crate::anim::emotion::{Emotion, EmotionState};
use crate::asset::Transform;

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
    /// The body's clock: seconds since it was made (set by [`Body::update`]).
    pub time_s: f64,
    /// Whether a clip poses the body this frame (set by [`Body::update`]); the posture layer
    /// stands in only for a body no clip poses.
    pub clip_pose: bool,
    /// A phrase of the line being spoken begins shortly: take a quick breath.
    pub inhale: bool,
    pub activity: Activity,
    /// Where the NPC attends to, in the avatar's own space (metres; +Z is its front).
    pub attention: Option<Vec3>,
    /// The line being spoken or listened to, and where its clock is (gestures and nods).
    pub talk: Option<TalkMoment<'a>>,
    /// How the body carries itself in the emotion showing now (set by [`Body::update`]).
    pub bearing: Bearing,
    /// How much of the body is worked out for how large it is on screen.
    pub detail: BodyDetail,
    /// Height of the ground below a point, both in the avatar's own space (0 where the
    /// avatar stands); `None` where there is no ground to follow.
    pub ground: Option<&'a dyn Fn(Vec3) -> f32>,
}

/// How much of a body is worked out: all of it, or for a body a few dozen pixels tall, what
/// shows at that size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BodyDetail {
    /// Every layer, as the bake works it out.
    #[default]
    Full,
    /// The fingers stay as the clip poses them (neither relaxed nor shaped for gestures): a
    /// hand is a pixel or two wide; and the feet as the clip has them, not set on the
    /// ground's slope (its centimetres are under a pixel). The player also leaves spring bones
    /// (hair, skirts) hanging as the clip poses them.
    Far,
}

impl std::fmt::Debug for LayerInput<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LayerInput")
            .field("dt_s", &self.dt_s)
            .field("time_s", &self.time_s)
            .field("clip_pose", &self.clip_pose)
            .field("inhale", &self.inhale)
            .field("activity", &self.activity)
            .field("attention", &self.attention)
            .field("talk", &self.talk)
            .field("bearing", &self.bearing)
            .field("detail", &self.detail)
            .field("ground", &self.ground.is_some())
            .finish()
    }
}

/// One layer of body animation: changes the local transforms the layers below produced.
pub trait BodyLayer: std::fmt::Debug + Send + Sync {
    /// The layer's name in bakes and plots (`breathing`).
    fn name(&self) -> &'static str;
    fn apply(&mut self, skeleton: &Skeleton, input: &LayerInput, locals: &mut [Transform]);
}

/// How long before a phrase starts its breath is taken, ms.
pub const INHALE_LEAD_MS: f64 = 300.0;

/// The breaths of a line: when each phrase starts on the line's audio clock, and which have
/// been taken. The player and `bake --body` both ask it, frame by frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inhales {
    starts_ms: Vec<f64>,
    next: usize,
}

impl Inhales {
    /// The breaths before phrases starting at `starts_ms` (ascending).
    #[must_use]
    pub fn new(starts_ms: Vec<f64>) -> Self {
        Self { starts_ms, next: 0 }
    }

    /// Whether a breath is due at `audio_ms` (each phrase's once, [`INHALE_LEAD_MS`] early).
    pub fn due(&mut self, audio_ms: f64) -> bool {
        let mut due = false;
        while let Some(&start) = self.starts_ms.get(self.next) {
            if audio_ms + INHALE_LEAD_MS < start {
                break;
            }
            self.next += 1;
            due = true;
        }
        due
    }
}

/// Start phases are spread over this many steps of this many seconds (by seed).
const PHASE_STEPS: u64 = 997;
const PHASE_STEP_S: f32 = 0.0137;

/// The name the clips go by in bakes and plots.
pub const CLIPS_LAYER: &str = "clips";

/// The layer stack of one NPC.
#[derive(Debug)]
pub struct Body {
    pub clips: Clips,
    /// Procedural layers applied after the clips, in order.
    pub layers: Vec<Box<dyn BodyLayer>>,
    pub locals: Vec<Transform>,
    /// Seconds since the body was made.
    pub time_s: f64,
    /// How each emotion carries the body, and the emotion showing now.
    emotions: BodyEmotionSettings,
    emotion: EmotionState,
}

impl Body {
    /// The stack for a rig with humanoid `map`, playing `clips`, living by `settings`;
    /// `seed` seeds idle life and `start_phase_s` offsets the clips.
    #[must_use]
    pub fn new(
        skeleton: &Skeleton,
        map: &HumanoidMap,
        clips: ClipSource<'_>,
        settings: &BodySettings,
        seed: u64,
        start_phase_s: f32,
    ) -> Self {
        Self {
            clips: Clips::new(clips, map, start_phase_s),
            layers: vec![
                Box::new(PostureLayer::new(skeleton, map, &settings.posture)),
                Box::new(WeightShiftLayer::new(map, &settings.weight_shift, seed)),
                Box::new(SwayLayer::new(skeleton, map, &settings.sway, seed)),
                Box::new(BreathingLayer::new(
                    skeleton,
                    map,
                    &settings.breathing,
                    seed,
                )),
                Box::new(ArmLayer::new(map, &settings.arms, &settings.sway, seed)),
                Box::new(HandLayer::new(skeleton, map, &settings.hands, seed)),
                Box::new(GestureLayer::new(
                    skeleton,
                    map,
                    &settings.gestures,
                    &settings.hands,
                )),
                Box::new(FootIkLayer::new(map)),
                Box::new(LookAtLayer::new(map)),
            ],
            locals: skeleton.rest.clone(),
            time_s: 0.0,
            emotions: settings.emotions.clone(),
            emotion: EmotionState::default(),
        }
    }

    /// Carries the body in `emotion` at an intensity (0-1) from now on, easing in; `None`
    /// eases back to neutral.
    pub fn set_emotion(&mut self, emotion: Option<(Emotion, f32)>) {
        self.emotion.set(emotion);
    }

    /// The emotion the body shows now and how much of it shows (0-1).
    #[must_use]
    pub fn emotion(&self) -> Option<(Emotion, f32)> {
        self.emotion.shown()
    }

    /// How the body carries itself now.
    #[must_use]
    pub fn bearing(&self) -> Bearing {
        self.emotions.bearing(self.emotion.shown())
    }

    /// Where in its clips a body seeded with `seed` starts, seconds: spread over the seeds so
    /// NPCs do not breathe in step.
    #[must_use]
    pub fn start_phase_s(seed: u64) -> f32 {
        (seed % PHASE_STEPS) as f32 * PHASE_STEP_S
    }

    /// Advances every layer by one frame.
    pub fn update(&mut self, skeleton: &Skeleton, input: &LayerInput) {
        self.update_traced(skeleton, input, &mut |_, _| {});
    }

    /// The layers' names in stack order, the clips first.
    #[must_use]
    pub fn layer_names(&self) -> Vec<&'static str> {
        std::iter::once(CLIPS_LAYER)
            .chain(self.layers.iter().map(|l| l.name()))
            .collect()
    }

    /// Advances every layer by one frame, showing `trace` the pose after the clips and after
    /// each layer (what `bake --body` writes and the studio plots).
    pub fn update_traced(
        &mut self,
        skeleton: &Skeleton,
        input: &LayerInput,
        trace: &mut dyn FnMut(&'static str, &[Transform]),
    ) {
        let dt = if input.dt_s.is_finite() {
            input.dt_s.max(0.0)
        } else {
            0.0
        };
        self.time_s += f64::from(dt);
        self.emotion
            .ease(f64::from(dt) * 1000.0, self.emotions.ease_ms);
        let input = LayerInput {
            dt_s: dt,
            time_s: self.time_s,
            clip_pose: self.clips.poses(input.activity),
            bearing: self.bearing(),
            ..*input
        };
        self.clips.apply(skeleton, &input, &mut self.locals);
        trace(CLIPS_LAYER, &self.locals);
        for layer in &mut self.layers {
            layer.apply(skeleton, &input, &mut self.locals);
            trace(layer.name(), &self.locals);
        }
    }
}
