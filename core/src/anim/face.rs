//! The face animator: lip sync + gaze + blinks -> 52 weights, one animator per NPC.
//!
//! Every frame runs the same stages in the same order, and keeps the pose after each one in a
//! [`FaceFrame`], so the studio's plots, the `bake` command and the live player all see the
//! same numbers. Two clocks come in: the audio clock of the current utterance (the lip sync
//! reads the viseme track at that time) and the frame's dt (which drives smoothing, gaze and
//! blinks, and keeps running between utterances).

use serde::{Deserialize, Serialize};

use crate::anim::LineCue;
use crate::anim::blink::{BlinkSettings, Blinker};
use crate::anim::brows::{BrowFlashes, BrowSettings};
use crate::anim::clip_face;
use crate::anim::emotion::{Emotion, EmotionSettings, EmotionState};
use crate::anim::gaze::{Gaze, GazeSettings, GazeState};
use crate::anim::lipsync::{
    LipSyncSettings, Loudness, Smoother, SmoothingSettings, TrackError, TrackReceiver, VisemeTrack,
    anticipation, bilabial, jaw_amount, target,
};
use crate::anim::own_lipsync::OwnLipSync;
use crate::anim::own_shapes::OwnShapes;
use crate::anim::pose::Pose;
use crate::asset::clip_face::{ClipFace, Expression};
use crate::viseme::{VisemeId, VisemeTable};

/// Everything that shapes a face's animation; part of a project file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FaceSettings {
    pub table: VisemeTable,
    pub lipsync: LipSyncSettings,
    pub gaze: GazeSettings,
    pub blink: BlinkSettings,
    pub brows: BrowSettings,
    pub emotions: EmotionSettings,
}

impl FaceSettings {
    /// Problems with these settings, one sentence each (empty when all is well).
    #[must_use]
    pub fn problems(&self) -> Vec<String> {
        let mut out = self.lipsync.problems();
        out.extend(self.gaze.problems());
        out.extend(self.blink.problems());
        out
    }
}

/// The animation stages, in the order they run. Each stage's pose includes the ones before.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The viseme track read at the lead-compensated time: apex hold + smoothstep.
    Target,
    /// After frame-rate independent exponential smoothing.
    Smoothed,
    /// After p/b/m closure.
    Bilabial,
    /// After lip-rounding anticipation: the finished mouth.
    Anticipation,
    /// The mouth plus the emotion's baseline (closures kept).
    Emotion,
    /// Plus brow flashes (the turn's start, some stressed syllables).
    Brows,
    /// Plus the expressions the body's clips play (VRM animations' expression tracks).
    Expressions,
    /// The mouth plus the eyes' gaze (turned where a clip's look-at track says, as far as
    /// the clips own the eyes).
    Gaze,
    /// The mouth, gaze and blinks.
    Blink,
    /// What is drawn: every layer, clamped to [0, 1].
    Final,
}

impl Stage {
    pub const ALL: [Self; 10] = [
        Self::Target,
        Self::Smoothed,
        Self::Bilabial,
        Self::Anticipation,
        Self::Emotion,
        Self::Brows,
        Self::Expressions,
        Self::Gaze,
        Self::Blink,
        Self::Final,
    ];

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Target => "target",
            Self::Smoothed => "smoothed",
            Self::Bilabial => "bilabial",
            Self::Anticipation => "anticipation",
            Self::Emotion => "emotion",
            Self::Brows => "brows",
            Self::Expressions => "expressions",
            Self::Gaze => "gaze",
            Self::Blink => "blink",
            Self::Final => "final",
        }
    }
}

/// The pose after every stage for one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FaceFrame {
    stages: [Pose; Stage::ALL.len()],
}

impl FaceFrame {
    #[must_use]
    pub fn stage(&self, stage: Stage) -> &Pose {
        &self.stages[stage as usize]
    }

    /// The weights to draw.
    #[must_use]
    pub fn final_pose(&self) -> &Pose {
        self.stage(Stage::Final)
    }

    fn set(&mut self, stage: Stage, pose: Pose) {
        self.stages[stage as usize] = pose;
    }
}

/// A listener's brows flash this long after it is spoken to, ms.
const ADDRESSED_LAG_MS: f64 = 150.0;

/// Room reserved for a streamed line's brow flash.
const BROW_CAPACITY: usize = 4;

/// Room reserved for a streamed track so that appending events does not reallocate mid-line.
const STREAM_CAPACITY: usize = 512;

/// How finely a face is worked out for how large it is on screen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FaceDetail {
    /// Every stage as the bake works it out.
    #[default]
    Full,
    /// A face a few pixels tall: the mouth's smoothing takes the whole update in one step
    /// (exact while the target moves in a straight line across it) instead of steps of at most
    /// `max_step_ms` along it.
    Far,
}

/// The animated face of one NPC.
#[derive(Debug)]
pub struct FaceAnimator {
    settings: FaceSettings,
    track: VisemeTrack,
    feed: Option<TrackReceiver>,
    /// Loudness of the utterance's audio, when known: scales the jaw.
    loudness: Option<Loudness>,
    speaking: bool,
    smoother: Smoother,
    gaze: Gaze,
    blinker: Blinker,
    /// The face's own clock (sum of dt), which gaze and blinks run on.
    life_ms: f64,
    /// Audio time of the previous frame, for the smoother's in-frame steps.
    last_audio_ms: Option<f64>,
    frame: FaceFrame,
    /// Lip sync on the avatar's own shapes, when it has some.
    own: Option<OwnLipSync>,
    /// The brow flashes of the line being spoken.
    brows: BrowFlashes,
    /// The emotion shown.
    emotion: EmotionState,
    /// When (on the face's own clock) it was last spoken to: its brows flash.
    addressed_ms: Option<f64>,
    /// What the body's clips do to the face this frame.
    clip_face: ClipFace,
    seed: u64,
}

impl FaceAnimator {
    /// A face at rest. The same settings and seed always animate the same way.
    #[must_use]
    pub fn new(settings: FaceSettings, seed: u64) -> Self {
        let gaze = Gaze::new(&settings.gaze, seed);
        let blinker = Blinker::new(&settings.blink, seed);
        let rest = *settings.table.pose(VisemeId::SILENCE);
        Self {
            settings,
            track: VisemeTrack::growing(STREAM_CAPACITY),
            feed: None,
            loudness: None,
            speaking: false,
            smoother: Smoother::new(rest),
            gaze,
            blinker,
            life_ms: 0.0,
            last_audio_ms: None,
            frame: FaceFrame::default(),
            own: None,
            brows: BrowFlashes::with_capacity(BROW_CAPACITY),
            emotion: EmotionState::default(),
            addressed_ms: None,
            clip_face: ClipFace::NONE,
            seed,
        }
    }

    /// Drives the avatar's own shapes too (`avatar.shapes`): their visemes through the same
    /// lip-sync stages. Empty shapes drive none.
    pub fn set_own_shapes(&mut self, shapes: &OwnShapes) {
        self.own = OwnLipSync::new(shapes);
    }

    /// The own shapes' lip sync, with the weights of the last frame.
    #[must_use]
    pub fn own(&self) -> Option<&OwnLipSync> {
        self.own.as_ref()
    }

    #[must_use]
    pub fn settings(&self) -> &FaceSettings {
        &self.settings
    }

    /// Replaces the settings; the face keeps its state and continues smoothly.
    pub fn set_settings(&mut self, settings: FaceSettings) {
        self.settings = settings;
    }

    /// Starts performing a line: its track on a fresh audio clock, the jaw on its loudness
    /// (when it has audio), and the face marked as the speaker (speakers look away more than
    /// listeners). Every path that speaks calls this, so they animate alike.
    pub fn start_line(&mut self, cue: &LineCue) {
        self.gaze.think(&self.settings.gaze, false, self.life_ms);
        self.track.clear();
        for event in cue.track.events() {
            // The source track is already validated, so pushing cannot fail.
            let _ = self.track.push(*event);
        }
        self.track.finish();
        self.feed = None;
        self.loudness = cue.loudness.clone();
        self.brows = BrowFlashes::plan(cue, &self.settings.brows, self.seed);
        self.last_audio_ms = None;
        self.speaking = true;
    }

    /// Starts performing a line whose track arrives in pieces through `feed` (a streaming
    /// speech engine); the face is the speaker, as with [`Self::start_line`].
    pub fn start_streamed_line(&mut self, feed: TrackReceiver) {
        self.gaze.think(&self.settings.gaze, false, self.life_ms);
        self.track.clear();
        self.brows.clear();
        self.feed = Some(feed);
        self.loudness = None;
        self.last_audio_ms = None;
        self.speaking = true;
    }

    /// Ends the line: the mouth eases back to rest and the face listens again.
    pub fn end_line(&mut self) {
        self.track.clear();
        self.feed = None;
        self.loudness = None;
        self.brows.clear();
        self.emotion.set(None);
        self.last_audio_ms = None;
        self.speaking = false;
    }

    /// Shows `emotion` at an intensity (0-1), easing in; `None` eases back to neutral. A line
    /// that ends eases its emotion out.
    pub fn set_emotion(&mut self, emotion: Option<(Emotion, f32)>) {
        self.emotion.set(emotion);
    }

    /// Plays what the body's clips do to the face from the next update on (their expressions'
    /// weights and look-at): the player and the bakes give it the body's every frame.
    pub fn set_clip_face(&mut self, face: ClipFace) {
        self.clip_face = face;
    }

    /// Someone starts speaking to this face: its brows flash, as a listener's do.
    pub fn addressed(&mut self) {
        self.addressed_after(ADDRESSED_LAG_MS);
    }

    /// As [`Self::addressed`], the flash beginning `lag_ms` from now (the person's voice is
    /// heard a little after it began).
    pub fn addressed_after(&mut self, lag_ms: f64) {
        if self.settings.brows.enabled {
            self.addressed_ms = Some(self.life_ms + lag_ms.max(0.0));
        }
    }

    /// Starts or ends showing that it is thinking: the thinking face at `intensity` and the
    /// eyes held up and to the side (an aversion), until a line starts or it is ended.
    pub fn think(&mut self, thinking: bool, intensity: f32) {
        self.gaze.think(&self.settings.gaze, thinking, self.life_ms);
        if thinking {
            self.emotion.set(Some((Emotion::Thinking, intensity)));
        } else if !self.speaking {
            self.emotion.set(None);
        }
    }

    /// Whether it shows that it is thinking.
    #[must_use]
    pub fn thinking(&self) -> bool {
        self.gaze.thinking()
    }

    /// The emotion shown and how much of it shows.
    #[must_use]
    pub fn emotion(&self) -> Option<(Emotion, f32)> {
        self.emotion.shown()
    }

    /// Marks the face as speaker or listener without changing its line: for tuning a
    /// listener's gaze over a line in `bake --speaking false` and the studio.
    pub fn set_speaking(&mut self, speaking: bool) {
        self.speaking = speaking;
    }

    /// Whether this face is the one talking.
    #[must_use]
    pub fn is_speaking(&self) -> bool {
        self.speaking
    }

    /// The track being spoken (possibly still growing).
    #[must_use]
    pub fn track(&self) -> &VisemeTrack {
        &self.track
    }

    #[must_use]
    pub fn gaze_state(&self) -> GazeState {
        self.gaze.state()
    }

    #[must_use]
    pub fn gaze(&self) -> &Gaze {
        &self.gaze
    }

    #[must_use]
    pub fn blinker(&self) -> &Blinker {
        &self.blinker
    }

    /// The last frame computed.
    #[must_use]
    pub fn frame(&self) -> &FaceFrame {
        &self.frame
    }

    /// Moves the face on by `dt_ms` to audio time `audio_ms` of the current utterance and
    /// returns every stage of the new frame. Does not allocate, and never blocks on the speech
    /// thread. A bad streamed event is dropped and reported; the frame is still computed.
    pub fn update(&mut self, audio_ms: f64, dt_ms: f64) -> Result<&FaceFrame, TrackError> {
        self.update_in_detail(audio_ms, dt_ms, FaceDetail::Full)
    }

    /// [`Self::update`], worked out in `detail`.
    pub fn update_in_detail(
        &mut self,
        audio_ms: f64,
        dt_ms: f64,
        detail: FaceDetail,
    ) -> Result<&FaceFrame, TrackError> {
        let fed = match &self.feed {
            Some(feed) => feed.drain_into(&mut self.track).map(|_| ()),
            None => Ok(()),
        };
        if self.feed.is_some()
            && self.settings.brows.enabled
            && self.brows.starts_ms().is_empty()
            && let Some(first) = self
                .track
                .events()
                .iter()
                .find(|e| e.id != VisemeId::SILENCE)
        {
            self.brows.set_turn(first.offset_ms);
        }
        self.step(audio_ms, dt_ms.max(0.0), detail);
        fed.map(|()| &self.frame)
    }

    fn step(&mut self, audio_ms: f64, dt_ms: f64, detail: FaceDetail) {
        let settings = &self.settings;
        let lipsync = &settings.lipsync;
        let smoothing = match detail {
            FaceDetail::Full => lipsync.smoothing,
            FaceDetail::Far => SmoothingSettings {
                max_step_ms: lipsync.smoothing.max_step_ms.max(dt_ms as f32),
                ..lipsync.smoothing
            },
        };
        let table = &settings.table;
        let lead = lipsync.lead_ms;
        let track = &self.track;
        let loudness = self.loudness.as_ref();
        let target_at = |t: f64| {
            let mut pose = target(track, table, &lipsync.target, t);
            if let Some(loudness) = loudness {
                jaw_amount(&mut pose, loudness, &lipsync.jaw, t);
            }
            pose
        };

        let from_ms = self.last_audio_ms.unwrap_or(audio_ms - dt_ms);
        let track_ms = audio_ms + lead;
        let raw = target_at(track_ms);
        // Before its audio starts (the part of a line's first frame that came before it) the
        // line is not playing yet: the face was at rest, live as in a bake starting at 0.
        let rest = *table.pose(VisemeId::SILENCE);
        let smoothed = *self.smoother.advance(&smoothing, dt_ms, |u| {
            let audio_at = from_ms + (audio_ms - from_ms) * u;
            if audio_at < 0.0 {
                rest
            } else {
                target_at(audio_at + lead)
            }
        });
        if let Some(own) = &mut self.own {
            own.step(
                track,
                loudness,
                lipsync,
                &smoothing,
                (from_ms, audio_ms),
                dt_ms,
            );
        }
        self.last_audio_ms = Some(audio_ms);

        let mut pose = smoothed;
        bilabial(&mut pose, track, table, &lipsync.bilabial, track_ms);
        let after_bilabial = pose;
        anticipation(&mut pose, track, table, &lipsync.anticipation, track_ms);
        let after_anticipation = pose;
        // An emotion the avatar has a face of its own for shows on that face (below), not on
        // the ARKit one.
        let own_face = |e: Option<Expression>| {
            e.is_some_and(|e| self.own.as_ref().is_some_and(|o| o.covers(e)))
        };
        let shown = self.emotion.shown();
        if own_face(shown.and_then(|(e, _)| clip_face::expression_of(e))) {
            self.emotion.ease(dt_ms, settings.emotions.ease_ms);
        } else {
            self.emotion
                .apply(&settings.emotions, table, dt_ms, &mut pose);
        }
        let after_emotion = pose;
        self.life_ms += dt_ms;
        let mut up = self.brows.at(&settings.brows, audio_ms);
        if let Some(at) = self.addressed_ms {
            // A listener's flash runs on the face's own clock.
            up = up.max(BrowFlashes::flash(&settings.brows, at, self.life_ms));
        }
        BrowFlashes::apply(&settings.brows, up, &mut pose);
        let after_brows = pose;
        clip_face::express(&self.clip_face, settings, |e| own_face(Some(e)), &mut pose);
        let after_expressions = pose;
        if let Some(own) = &mut self.own {
            let shown = self
                .emotion
                .shown()
                .filter(|_| settings.emotions.enabled)
                .and_then(|(e, w)| Some((clip_face::expression_of(e)?, w)));
            let clips = &self.clip_face;
            own.express(|e| {
                let felt = shown.filter(|(s, _)| *s == e).map_or(0.0, |(_, w)| w);
                felt + clips.get(e)
            });
        }

        self.gaze
            .advance(&settings.gaze, self.life_ms, self.speaking);
        self.gaze.apply(&mut pose);
        clip_face::look(&self.clip_face.look, &mut pose);
        let after_gaze = pose;
        let closure = self.blinker.advance(&settings.blink, self.life_ms);
        Blinker::apply(closure, &mut pose);
        let after_blink = pose;
        pose.clamp_unit();

        let frame = &mut self.frame;
        frame.set(Stage::Target, raw);
        frame.set(Stage::Smoothed, smoothed);
        frame.set(Stage::Bilabial, after_bilabial);
        frame.set(Stage::Anticipation, after_anticipation);
        frame.set(Stage::Emotion, after_emotion);
        frame.set(Stage::Brows, after_brows);
        frame.set(Stage::Expressions, after_expressions);
        frame.set(Stage::Gaze, after_gaze);
        frame.set(Stage::Blink, after_blink);
        frame.set(Stage::Final, pose);
    }
}
