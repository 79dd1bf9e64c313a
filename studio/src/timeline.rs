//! The timeline: a line (spoken from text, a recording, or a viseme file), its bake through
//! the one FaceAnimator with every stage kept, and the playhead. The line is baked as the
//! project's first NPC performs it live: its face seed, started by the same `LineCue`. Or,
//! listening to a recording: the person's voice played as the microphone, and the character
//! baked as it would listen live ([`npc_core::hearing::bake_listening`]).

use std::time::Instant;

use npc_core::ArkitTarget;
use npc_core::agent::cues::Behaviour;
use npc_core::anim::OwnShapes;
use npc_core::anim::face::FaceFrame;
use npc_core::anim::timeline::{Bake, BakeOptions, bake_with_shapes};
use npc_core::asset::clip_face::ClipFace;
use npc_core::body::BodyBake;
use npc_core::hearing::{ListenBake, ListenBakeOptions, bake_listening};
use npc_core::project::Project;
use npc_core::speech::LineSource;

use crate::comparison::Comparison;

/// Frames per second of the timeline's bake.
pub const FPS: f64 = 60.0;

/// The line on the timeline and its bake.
#[derive(Debug)]
pub struct Timeline {
    /// The text typed for offline speech.
    pub text: String,
    /// Where the current line came from ("text", a file name).
    pub label: String,
    pub source: Option<LineSource>,
    pub bake: Option<Bake>,
    /// The NPC the line is baked as (the project's first), when the roster has one.
    pub npc: Option<String>,
    /// Seed of gaze and blinks: that NPC's face seed.
    pub seed: u64,
    /// Whether the face is speaking (gaze looks away more) or listening.
    pub speaking: bool,
    /// What the line asks of its speaker besides the words, as an agent's line carries it:
    /// the emotion (face, bearing, gesture size and speed) and the gestures asked for.
    pub behaviour: Behaviour,
    pub playhead_ms: f64,
    pub playing: bool,
    /// Whether an opened WAV is aligned to `text` (its script).
    pub align_to_text: bool,
    /// Targets whose stages are plotted.
    pub plot_targets: Vec<ArkitTarget>,
    /// How long the last bake took, ms.
    pub bake_ms: f64,
    pub error: Option<String>,
    /// A real capture plotted under the line, when one is open.
    pub comparison: Option<Comparison>,
    /// A recording of the person the character listens to, instead of a line.
    pub person: Option<PersonRecording>,
    /// What the body's clips do to the face at each frame of the line (from the body's bake;
    /// empty when they do nothing).
    pub clip_faces: Vec<ClipFace>,
}

/// The person's voice the character listens to, and how it listened.
#[derive(Clone, Debug)]
pub struct PersonRecording {
    /// Mono samples in -1..1 and their rate.
    pub audio: (Vec<f32>, u32),
    /// The listener over it (face, nods, thinking, what was heard), once baked.
    pub listened: Option<ListenBake>,
}

impl Default for Timeline {
    fn default() -> Self {
        Self {
            text: "Welcome, traveler. What brings you here?".to_owned(),
            label: String::new(),
            source: None,
            bake: None,
            npc: None,
            seed: 0,
            speaking: true,
            behaviour: Behaviour::default(),
            playhead_ms: 0.0,
            playing: false,
            align_to_text: false,
            plot_targets: vec![
                ArkitTarget::JawOpen,
                ArkitTarget::MouthClose,
                ArkitTarget::MouthPucker,
                ArkitTarget::EyeBlinkLeft,
            ],
            bake_ms: 0.0,
            error: None,
            comparison: None,
            person: None,
            clip_faces: Vec::new(),
        }
    }
}

impl Timeline {
    /// Puts a new line on the timeline and bakes it (with the head's own shapes).
    pub fn set_source(
        &mut self,
        label: String,
        source: LineSource,
        project: &Project,
        shapes: &OwnShapes,
    ) {
        self.label = label;
        self.source = Some(source);
        self.person = None;
        self.playhead_ms = 0.0;
        let npc = self.npc.clone();
        self.rebake(project, npc.as_deref(), shapes);
    }

    /// Puts a recording of the person on the timeline, the character listening to it as
    /// `listened` says (baked by [`listen_bake`] off the UI thread, as `npc` with its face
    /// seed `project_seed`).
    pub fn put_person(
        &mut self,
        label: String,
        audio: (Vec<f32>, u32),
        listened: Result<ListenBake, String>,
        npc: Option<&str>,
        project_seed: u64,
    ) {
        self.label = label;
        self.source = None;
        self.playhead_ms = 0.0;
        self.npc = npc.map(str::to_owned);
        self.seed = project_seed;
        if !self.plot_targets.contains(&ArkitTarget::BrowInnerUp) {
            self.plot_targets.insert(0, ArkitTarget::BrowInnerUp);
        }
        let mut person = PersonRecording {
            audio,
            listened: None,
        };
        self.take_listened(&mut person, listened);
        self.person = Some(person);
    }

    /// Keeps the listener's bake (or says why there is none).
    fn take_listened(
        &mut self,
        person: &mut PersonRecording,
        listened: Result<ListenBake, String>,
    ) {
        match listened {
            Ok(l) => {
                self.bake = Some(l.face.clone());
                person.listened = Some(l);
                self.error = None;
            }
            Err(e) => {
                self.bake = None;
                person.listened = None;
                self.error = Some(e);
            }
        }
    }

    /// The sound the timeline plays: the line's, or the person's.
    #[must_use]
    pub fn audio(&self) -> Option<&(Vec<f32>, u32)> {
        self.source
            .as_ref()
            .and_then(|s| s.audio.as_ref())
            .or_else(|| self.person.as_ref().map(|p| &p.audio))
    }

    /// Bakes the line again (after a setting or a pose changed).
    pub fn rebake(&mut self, project: &Project, npc: Option<&str>, shapes: &OwnShapes) {
        self.npc = npc.map(str::to_owned);
        self.seed = project.face_seed(self.npc.as_deref().unwrap_or_default());
        let start = Instant::now();
        if let Some(mut person) = self.person.take() {
            let listened = listen_bake(&person.audio, project, self.npc.as_deref());
            self.take_listened(&mut person, listened);
            self.person = Some(person);
            self.bake_ms = start.elapsed().as_secs_f64() * 1000.0;
            return;
        }
        let Some(source) = &self.source else {
            self.bake = None;
            return;
        };
        let options = BakeOptions {
            fps: FPS,
            seed: self.seed,
            speaking: self.speaking,
            duration_ms: None,
            emotion: self.behaviour.emotion,
            clip_faces: self.clip_faces.clone(),
        };
        let face = self
            .npc
            .as_deref()
            .map_or(&project.face, |id| project.face_settings(id));
        match bake_with_shapes(face, shapes, &source.cue, &options) {
            Ok(b) => {
                self.bake = Some(b);
                self.error = None;
            }
            Err(e) => {
                self.bake = None;
                self.error = Some(format!("cannot bake the line: {e}"));
            }
        }
        self.bake_ms = start.elapsed().as_secs_f64() * 1000.0;
    }

    /// What `body`'s clips do to the face at each frame of the baked line (the body's frame at
    /// or before each, as the body is baked at its own rate); empty when they do nothing.
    #[must_use]
    pub fn clip_faces_from(&self, body: Option<&BodyBake>) -> Vec<ClipFace> {
        let (Some(body), Some(bake)) = (body, &self.bake) else {
            return Vec::new();
        };
        if body.faces.iter().all(ClipFace::is_none) {
            return Vec::new();
        }
        bake.times_ms
            .iter()
            .map(|&t| {
                let frame = (t * body.fps / 1000.0 + 1e-6).floor().max(0.0) as usize;
                body.faces
                    .get(frame.min(body.faces.len().saturating_sub(1)))
                    .copied()
                    .unwrap_or(ClipFace::NONE)
            })
            .collect()
    }

    /// Length of the timeline, ms: the baked line's, or the comparison's when longer.
    #[must_use]
    pub fn duration_ms(&self) -> f64 {
        let line = self
            .bake
            .as_ref()
            .and_then(|b| b.times_ms.last().copied())
            .unwrap_or(0.0);
        self.comparison
            .as_ref()
            .map_or(line, |c| line.max(c.duration_ms()))
    }

    /// Length of the baked line alone, ms.
    #[must_use]
    pub fn line_ms(&self) -> f64 {
        self.bake
            .as_ref()
            .and_then(|b| b.times_ms.last().copied())
            .unwrap_or(0.0)
    }

    /// Whether there is anything to play: a line or a comparison.
    #[must_use]
    pub fn has_content(&self) -> bool {
        self.bake.is_some() || self.comparison.is_some()
    }

    /// The own shapes' weights at `t_ms` (the last frame at or before it), when the bake has
    /// them.
    #[must_use]
    pub fn own_at(&self, t_ms: f64) -> Option<&[f32]> {
        let b = self.bake.as_ref()?;
        let i = b.times_ms.partition_point(|&t| t <= t_ms).saturating_sub(1);
        b.own.as_ref()?.weights.get(i).map(Vec::as_slice)
    }

    /// The baked frame at the playhead (the last frame at or before it).
    #[must_use]
    pub fn frame_at(&self, t_ms: f64) -> Option<&FaceFrame> {
        let b = self.bake.as_ref()?;
        let i = b.times_ms.partition_point(|&t| t <= t_ms).saturating_sub(1);
        b.frames.get(i)
    }

    /// Moves the playhead, kept inside the line.
    pub fn seek(&mut self, t_ms: f64) {
        let t = if t_ms.is_finite() { t_ms } else { 0.0 };
        self.playhead_ms = t.clamp(0.0, self.duration_ms());
    }

    /// Advances playback by `dt_s`; stops at the end.
    pub fn advance(&mut self, dt_s: f64) {
        if !self.playing {
            return;
        }
        let end = self.duration_ms();
        self.playhead_ms += dt_s * 1000.0;
        if self.playhead_ms >= end {
            self.playhead_ms = end;
            self.playing = false;
        }
    }
}

/// How `npc` (the project's defaults when none) listens to the person's `audio`, as it would
/// live; the error in words.
///
/// # Errors
/// The recording is empty or cannot be resampled.
pub fn listen_bake(
    audio: &(Vec<f32>, u32),
    project: &Project,
    npc: Option<&str>,
) -> Result<ListenBake, String> {
    let id = npc.unwrap_or_default();
    let (samples, rate) = audio;
    bake_listening(
        samples,
        *rate,
        &project.listen,
        project.face_settings(id),
        &project.body_settings(id).gestures,
        &ListenBakeOptions {
            fps: FPS,
            seed: project.face_seed(id),
            ..ListenBakeOptions::default()
        },
    )
    .map_err(|e| format!("cannot listen to the recording: {e}"))
}
