//! Baking: the same [`FaceAnimator`] the player runs, stepped over a time range, with every
//! stage kept for plots and reports.

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq};
use thiserror::Error;

use crate::anim::LineCue;
pub use crate::anim::TAIL_MS;
use crate::anim::emotion::Emotion;
use crate::anim::face::{FaceAnimator, FaceFrame, FaceSettings, Stage};
use crate::anim::lipsync::{VisemeEvent, VisemeTrack};
use crate::anim::own_shapes::OwnShapes;
use crate::anim::pose::Pose;
use crate::arkit::ArkitTarget;
use crate::asset::clip_face::ClipFace;
use crate::viseme::{VisemeId, VisemeTable};
/// Highest frame rate a bake accepts.
pub const MAX_FPS: f64 = 10_000.0;
/// Most frames one bake may hold (about 1.4 GB would be needed for 1e6).
pub const MAX_FRAMES: usize = 1_000_000;

/// How to bake.
#[derive(Clone, Debug, PartialEq)]
pub struct BakeOptions {
    pub fps: f64,
    pub seed: u64,
    /// Whether the face is the speaker (gaze averts more) or a listener.
    pub speaking: bool,
    /// Length of the bake; by default [`LineCue::baked_ms`].
    pub duration_ms: Option<f64>,
    /// The emotion the line is spoken in, and its intensity (0-1).
    pub emotion: Option<(Emotion, f32)>,
    /// What the body's clips do to the face at each frame (a body bake's
    /// [`crate::body::BodyBake::faces`] over the same frames); empty: nothing.
    pub clip_faces: Vec<ClipFace>,
}

impl Default for BakeOptions {
    fn default() -> Self {
        Self {
            fps: 60.0,
            seed: 0,
            speaking: true,
            duration_ms: None,
            emotion: None,
            clip_faces: Vec::new(),
        }
    }
}

/// Why a bake was refused.
#[derive(Debug, Error, PartialEq)]
pub enum BakeError {
    #[error("fps must be a number in (0, {MAX_FPS}] (got {0})")]
    BadFps(f64),
    #[error("duration must be a number >= 0 ms (got {0})")]
    BadDuration(f64),
    #[error("the bake would have {0} frames; at most {MAX_FRAMES} are allowed")]
    TooManyFrames(usize),
    #[error("frame times must be finite and must not decrease (frame {0})")]
    BadTimes(usize),
}

/// Frame times `i * 1000 / fps` for `i = 0..`, up to and including `duration_ms`.
pub fn frame_times(fps: f64, duration_ms: f64) -> Result<Vec<f64>, BakeError> {
    if !(fps > 0.0 && fps <= MAX_FPS) {
        return Err(BakeError::BadFps(fps));
    }
    if !(duration_ms.is_finite() && duration_ms >= 0.0) {
        return Err(BakeError::BadDuration(duration_ms));
    }
    let count = (duration_ms * fps / 1000.0 + 1e-9).floor() as usize + 1;
    if count > MAX_FRAMES {
        return Err(BakeError::TooManyFrames(count));
    }
    Ok((0..count).map(|i| i as f64 * 1000.0 / fps).collect())
}

/// A baked timeline: every stage at every frame.
#[derive(Clone, Debug)]
pub struct Bake {
    pub times_ms: Vec<f64>,
    pub frames: Vec<FaceFrame>,
    /// The avatar's own shapes at every frame, when it has some.
    pub own: Option<OwnBake>,
}

/// The avatar's own shapes over a bake.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OwnBake {
    /// The targets, by their names in the avatar's file.
    pub targets: Vec<String>,
    /// `weights[frame][target]`.
    pub weights: Vec<Vec<f32>>,
}

impl Bake {
    /// One target's weight in one stage, frame by frame.
    pub fn series(&self, stage: Stage, target: ArkitTarget) -> impl Iterator<Item = f32> + '_ {
        self.frames.iter().map(move |f| f.stage(stage).get(target))
    }
}

/// Bakes the line `cue` at a fixed frame rate, started as the live player starts it.
pub fn bake(
    settings: &FaceSettings,
    cue: &LineCue,
    options: &BakeOptions,
) -> Result<Bake, BakeError> {
    bake_with_shapes(settings, &OwnShapes::default(), cue, options)
}

/// Bakes as [`bake`] does, with the avatar's own shapes driven too (as the player drives
/// them for an avatar with `shapes`).
pub fn bake_with_shapes(
    settings: &FaceSettings,
    shapes: &OwnShapes,
    cue: &LineCue,
    options: &BakeOptions,
) -> Result<Bake, BakeError> {
    let duration = options.duration_ms.unwrap_or_else(|| cue.baked_ms());
    let times = frame_times(options.fps, duration)?;
    run(settings, shapes, cue, times, options)
}

/// Bakes the line `cue` at the given frame times (audio clock, ms), which may be irregular.
pub fn bake_at(
    settings: &FaceSettings,
    cue: &LineCue,
    times_ms: Vec<f64>,
    seed: u64,
    speaking: bool,
) -> Result<Bake, BakeError> {
    let options = BakeOptions {
        seed,
        speaking,
        ..BakeOptions::default()
    };
    run(settings, &OwnShapes::default(), cue, times_ms, &options)
}

fn run(
    settings: &FaceSettings,
    shapes: &OwnShapes,
    cue: &LineCue,
    times_ms: Vec<f64>,
    options: &BakeOptions,
) -> Result<Bake, BakeError> {
    if let Some(bad) = times_ms
        .iter()
        .enumerate()
        .position(|(i, &t)| !t.is_finite() || (i > 0 && t < times_ms[i - 1]))
    {
        return Err(BakeError::BadTimes(bad));
    }
    if times_ms.len() > MAX_FRAMES {
        return Err(BakeError::TooManyFrames(times_ms.len()));
    }
    let mut face = FaceAnimator::new(settings.clone(), options.seed);
    face.set_own_shapes(shapes);
    face.start_line(cue);
    face.set_emotion(options.emotion);
    let mut own = face.own().map(|o| OwnBake {
        targets: o.names().to_vec(),
        weights: Vec::with_capacity(times_ms.len()),
    });
    if !options.speaking {
        face.set_speaking(false);
    }
    let mut frames = Vec::with_capacity(times_ms.len());
    let mut previous = times_ms.first().copied().unwrap_or(0.0);
    for (i, &t) in times_ms.iter().enumerate() {
        let dt = t - previous;
        previous = t;
        if let Some(&clips) = options.clip_faces.get(i) {
            face.set_clip_face(clips);
        }
        // A complete track has no stream to report on, so the update cannot fail.
        let _ = face.update(t, dt);
        frames.push(*face.frame());
        if let (Some(own), Some(o)) = (&mut own, face.own()) {
            own.weights.push(o.weights().to_vec());
        }
    }
    Ok(Bake {
        times_ms,
        frames,
        own,
    })
}

/// The JSON report of a bake, as `npc-player bake` prints it.
#[derive(Debug, Serialize)]
pub struct BakeReport<'a> {
    pub fps: f64,
    pub duration_ms: f64,
    pub seed: u64,
    pub targets: Vec<&'static str>,
    pub visemes: &'a [VisemeEvent],
    pub table: TableReport<'a>,
    pub times_ms: &'a [f64],
    pub stages: StagesReport<'a>,
    /// The audio the track belongs to, when the bake spoke or read one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audio: Option<String>,
    /// The NPC the line was baked as (`bake --npc`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub npc: Option<String>,
    /// The NPC's body over the same frames, per layer (`bake --body`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<crate::body::BodyBake>,
    /// The avatar's own shapes over the same frames (`bake --npc` of an avatar with shapes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub own: Option<&'a OwnBake>,
}

impl<'a> BakeReport<'a> {
    #[must_use]
    pub fn new(
        bake: &'a Bake,
        track: &'a VisemeTrack,
        table: &'a VisemeTable,
        options: &BakeOptions,
    ) -> Self {
        Self {
            fps: options.fps,
            duration_ms: bake.times_ms.last().copied().unwrap_or(0.0),
            seed: options.seed,
            targets: ArkitTarget::ALL.iter().map(|t| t.name()).collect(),
            visemes: track.events(),
            table: TableReport(table),
            times_ms: &bake.times_ms,
            stages: StagesReport(&bake.frames),
            audio: None,
            npc: None,
            body: None,
            own: bake.own.as_ref(),
        }
    }
}

/// The viseme table as `{"0": {"eyeBlinkLeft": 0.0, ...}, ...}`, ids in order, all 52 weights.
#[derive(Debug)]
pub struct TableReport<'a>(&'a VisemeTable);

impl Serialize for TableReport<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(crate::viseme::VISEME_COUNT))?;
        for id in VisemeId::all() {
            map.serialize_entry(&id.get().to_string(), &FullPose(self.0.pose(id)))?;
        }
        map.end()
    }
}

struct FullPose<'a>(&'a Pose);

impl Serialize for FullPose<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(ArkitTarget::ALL.len()))?;
        for target in ArkitTarget::ALL {
            map.serialize_entry(target.name(), &self.0.get(target))?;
        }
        map.end()
    }
}

/// Every stage as `{"target": [[52 floats] per frame], ...}`, in stage order.
#[derive(Debug)]
pub struct StagesReport<'a>(&'a [FaceFrame]);

impl Serialize for StagesReport<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Frames<'a>(&'a [FaceFrame], Stage);
        impl Serialize for Frames<'_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
                for frame in self.0 {
                    seq.serialize_element(&frame.stage(self.1).0[..])?;
                }
                seq.end()
            }
        }
        let mut map = serializer.serialize_map(Some(Stage::ALL.len()))?;
        for stage in Stage::ALL {
            map.serialize_entry(stage.name(), &Frames(self.0, stage))?;
        }
        map.end()
    }
}
