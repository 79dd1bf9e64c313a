//! A body baked over a line: the same layer stack the player runs, stepped at a fixed frame
//! rate with flat ground and nothing to attend to, talking while the line lasts, recording
//! after each layer every humanoid bone's rotation away from its rest pose. What
//! `npc-player bake --body` writes and the studio plots.

use serde::Serialize;

use super::clips::ClipSource;
use super::humanoid::HumanoidMap;
use super::humanoid_pose::PoseReader;
use super::layer::{Activity, Body, Inhales, LayerInput};
use super::settings::BodySettings;
use super::skeleton::Skeleton;
use super::talk::{SpokenBody, TalkMoment, TalkPlan};
use crate::agent::cues::GestureCue;
use crate::anim::LineCue;
use crate::anim::emotion::Emotion;
use crate::asset::Transform;
use crate::asset::clip_face::ClipFace;

/// What to bake.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyBakeOptions {
    /// Frames per second; frame `i` is at `i * 1000 / fps` ms.
    pub fps: f64,
    pub duration_ms: f64,
    /// The body talks until then (the line's length), and idles after.
    pub talking_ms: f64,
    /// Seeds idle life (the player uses the NPC's face seed).
    pub seed: u64,
    /// The line spoken from 0 ms, if any: a breath before each of its phrases, its talking
    /// poses, beats and nods (what the player plans from the same cue).
    pub line: Option<LineCue>,
    /// The emotion the line is spoken in (the body's bearing and the gestures' size and
    /// speed), eased out once the talking ends.
    pub emotion: Option<(Emotion, f32)>,
    /// Gestures asked for with the line, as an agent asks for them (a pointing hand aims
    /// ahead: a bake has no world to aim into).
    pub gestures: Vec<GestureCue>,
}

/// Every frame's per-layer rotations.
#[derive(Clone, Debug, Serialize)]
pub struct BodyBake {
    pub fps: f64,
    /// The layers in stack order, `clips` first.
    pub layers: Vec<&'static str>,
    /// The humanoid bones recorded (VRM 1.0 names), in the order of each frame's rotations.
    pub bones: Vec<&'static str>,
    pub times_ms: Vec<f64>,
    /// `rotations[frame][layer][bone]`: the bone's avatar-space rotation away from its rest
    /// pose after that layer, as a quaternion (x, y, z, w).
    pub rotations: Vec<Vec<Vec<[f32; 4]>>>,
    /// Where the hips stand after the last layer in every frame, in the avatar's space
    /// (metres); empty when the rig has no hips.
    pub hips_position: Vec<[f32; 3]>,
    /// How much of the line's emotion the body shows in every frame (0-1; 0 without one).
    pub emotion: Vec<f32>,
    /// The line's talking plan: its strokes (poses and requested gestures), beats, nods and
    /// head shakes, ms on the line's clock; absent without a line.
    pub talk: Option<TalkPlan>,
    /// Gestures asked for that the body cannot make (no clip of that name), one line each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Every frame's node transforms after the last layer (what the player would draw).
    #[serde(skip)]
    pub poses: Vec<Vec<Transform>>,
    /// What the clips do to the face in every frame (a VRM animation's expressions and
    /// look-at): what the face bake of the same frames plays.
    #[serde(skip)]
    pub faces: Vec<ClipFace>,
}

impl BodyBake {
    /// How far `bone` is turned from rest after `layer` in every frame, degrees.
    #[must_use]
    pub fn angles_deg(&self, layer: &str, bone: &str) -> Option<Vec<f32>> {
        let l = self.layers.iter().position(|n| *n == layer)?;
        let b = self.bones.iter().position(|n| *n == bone)?;
        Some(
            self.rotations
                .iter()
                .map(|frame| {
                    let [_, _, _, w] = frame[l][b];
                    2.0 * w.abs().clamp(0.0, 1.0).acos().to_degrees()
                })
                .collect(),
        )
    }
}

/// Bakes the body of a rig (`skeleton`, `map`, its spring bones `springs`) playing `clips` by
/// `settings`, standing where it was modelled (as a standing NPC, whose spring bones swing alike
/// wherever it stands).
#[must_use]
pub fn bake_body(
    skeleton: &Skeleton,
    map: &HumanoidMap,
    springs: &super::spring::SpringRig,
    clips: ClipSource<'_>,
    settings: &BodySettings,
    options: &BodyBakeOptions,
) -> BodyBake {
    let seed = options.seed;
    let mut body = Body::new(
        skeleton,
        map,
        clips,
        settings,
        seed,
        Body::start_phase_s(seed),
    );
    let fps = if options.fps.is_finite() && options.fps > 0.0 {
        options.fps
    } else {
        60.0
    };
    let frames = (options.duration_ms.max(0.0) * fps / 1000.0).floor() as usize + 1;
    let reader = PoseReader::new(skeleton, map);
    let ground = |_: glam::Vec3| 0.0;
    let mut times_ms = Vec::with_capacity(frames);
    let mut rotations = Vec::with_capacity(frames);
    let mut poses = Vec::with_capacity(frames);
    let mut hips_position = Vec::new();
    let line = options.line.as_ref();
    body.set_emotion(options.emotion);
    // No other NPC stands in a bake: a gesture's target is unknown, and the right hand points.
    let spoken = line.map(|cue| {
        SpokenBody::new(
            cue,
            &settings.gestures,
            &settings.emotions,
            options.emotion,
            &options.gestures,
            &[],
            body.clips.all(),
            seed,
        )
    });
    let (mut inhales, plan, warnings) = match spoken {
        Some(s) => (s.inhales, Some(s.plan), s.warnings),
        None => (Inhales::default(), None, Vec::new()),
    };
    let mut emotion = Vec::with_capacity(frames);
    let mut faces = Vec::with_capacity(frames);
    let mut spring_state = super::spring::SpringState::default();
    let mut world = Vec::new();
    for i in 0..frames {
        let t_ms = i as f64 * 1000.0 / fps;
        let talking = t_ms < options.talking_ms;
        if !talking {
            // The line is over: its emotion eases out, as the player's does.
            body.set_emotion(None);
        }
        let input = LayerInput {
            dt_s: if i == 0 { 0.0 } else { (1.0 / fps) as f32 },
            time_s: 0.0,
            clip_pose: false,
            inhale: inhales.due(t_ms),
            activity: if talking {
                Activity::Talk
            } else {
                Activity::Idle
            },
            attention: None,
            talk: plan.as_ref().map(|plan| TalkMoment {
                plan,
                at_ms: t_ms,
                point_at: None,
            }),
            bearing: super::emotion::Bearing::default(),
            detail: crate::body::BodyDetail::Full,
            ground: Some(&ground),
        };
        let mut layers = Vec::new();
        body.update_traced(skeleton, &input, &mut |_, locals| {
            layers.push(reader.rotations(skeleton, locals));
        });
        if settings.spring_bones && !springs.is_empty() {
            skeleton.world_into(&body.locals, &mut world);
            springs.update(
                &mut spring_state,
                glam::Mat4::IDENTITY,
                &mut body.locals,
                &mut world,
                input.dt_s,
            );
        }
        if let Some(hips) = reader.hips_position(skeleton, &body.locals) {
            hips_position.push(hips.to_array());
        }
        times_ms.push(t_ms);
        emotion.push(body.emotion().map_or(0.0, |e| e.1));
        rotations.push(layers);
        poses.push(body.locals.clone());
        faces.push(*body.clips.face());
    }
    BodyBake {
        fps,
        layers: body.layer_names(),
        bones: reader.bones().iter().map(|(b, _)| b.name()).collect(),
        times_ms,
        rotations,
        hips_position,
        emotion,
        talk: plan,
        warnings,
        poses,
        faces,
    }
}
