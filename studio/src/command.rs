//! Everything a panel can ask for. Panels read the state and emit commands; the studio applies
//! them in one place ([`crate::state::Studio::apply`]), which also keeps the undo history.

use std::path::PathBuf;

use npc_core::ArkitTarget;
use npc_core::VisemeId;
use npc_core::agent::cues::GestureCue;
use npc_core::anim::blink::BlinkSettings;
use npc_core::anim::brows::BrowSettings;
use npc_core::anim::emotion::Emotion;
use npc_core::anim::gaze::GazeSettings;
use npc_core::anim::lipsync::LipSyncSettings;
use npc_core::asset::VrmExpressions;
use npc_core::body::{BodySettings, HumanoidBone};
use npc_core::project::{Npc, SceneSettings, ScreenSettings, SpeechEngine};
use npc_core::transfer::Aspect;

use crate::transfer_wizard::Head;

/// What a line is exported as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// Live Link Face's CSV (Unreal's MetaHuman pipeline, Maya, Blender).
    LivelinkCsv,
    /// The first NPC's avatar GLB with the line as one more animation clip.
    Gltf,
}

/// A request from the interface.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    // Edits (undoable).
    SetPoseWeight {
        target: ArkitTarget,
        weight: f32,
    },
    ResetPose,
    MirrorPose,
    SetVisemeWeight {
        viseme: VisemeId,
        target: ArkitTarget,
        weight: f32,
    },
    ResetViseme(VisemeId),
    /// Copies the pose editor's pose into a viseme.
    PoseToViseme(VisemeId),
    /// Sets one of the avatar's own targets in a viseme (the first NPC's `avatar.shapes`).
    SetOwnVisemeWeight {
        viseme: VisemeId,
        target: String,
        weight: f32,
    },
    SetGaze(GazeSettings),
    /// How the NPCs listen to the person in front of the player (the project's).
    SetListen(npc_core::hearing::ListenSettings),
    /// Gives the first NPC a face profile of its own (a copy of the project's), or back.
    SetOwnFaceProfile(bool),
    SetBody(BodySettings),
    SetBlink(BlinkSettings),
    SetBrows(BrowSettings),
    /// The face emotions' switch and easing (their poses come from the pose editor).
    SetFaceEmotions {
        enabled: bool,
        ease_ms: f64,
    },
    /// Copies the pose editor's pose into an emotion's face.
    PoseToEmotion(Emotion),
    /// Puts an emotion's face into the pose editor, to edit it there.
    EmotionToPose(Emotion),
    SetLipSync(LipSyncSettings),
    SetScene(SceneSettings),
    /// What the player draws over the world: subtitles, names.
    SetScreen(ScreenSettings),
    SetRoster(Vec<Npc>),
    SetAgentDir(PathBuf),
    SetSpeech(SpeechEngine),
    Undo,
    Redo,
    // Viewing.
    /// The morph targets of the head now shown (after it loads), by their names in the file,
    /// and its VRM expressions: its own shapes come from them.
    HeadTargets {
        names: Vec<String>,
        vrm: VrmExpressions,
    },
    SelectViseme(Option<VisemeId>),
    /// Show and edit this character (its id).
    SelectCharacter(String),
    SetPlotTarget {
        target: ArkitTarget,
        shown: bool,
    },
    SetPreviewSpeaking(bool),
    SetBodyPlotBone {
        bone: HumanoidBone,
        shown: bool,
    },
    // The timeline.
    SetLineText(String),
    /// The emotion the timeline's line is spoken in, and its intensity (0-1).
    SetLineEmotion(Option<(Emotion, f32)>),
    /// Asks for a gesture with the timeline's line (as an agent's line would).
    AddLineGesture(GestureCue),
    /// Drops the line's requested gesture at this index.
    RemoveLineGesture(usize),
    /// Moves the line's requested gesture at `index` to start at `word` (the line's start
    /// for none).
    SetLineGestureWord {
        index: usize,
        word: Option<usize>,
    },
    SpeakLine,
    OpenWav(PathBuf),
    /// Plays a recording as the person speaking to the character, which listens as it would
    /// live (its brow flash, nods, thinking face) on the timeline.
    ListenTo(PathBuf),
    /// Stops waiting for the long work running (lines being made, the shape transfer): what
    /// it makes is dropped.
    CancelJobs,
    /// Whether a WAV opened from now on is aligned to the line's text (its script) rather than
    /// lip-synced from its sound alone.
    SetAlignToText(bool),
    OpenVisemes(PathBuf),
    Seek(f64),
    TogglePlay,
    StepFrames(i32),
    /// Lays a capture (Live Link Face CSV, glTF weights animation) under the line.
    OpenComparison(PathBuf),
    CloseComparison,
    /// Whether the head shows the capture rather than the line.
    ShowComparison(bool),
    /// Writes the line on the timeline (face, and the first NPC's body) out of the tool.
    ExportLine {
        format: ExportFormat,
        path: PathBuf,
    },
    // Files.
    New,
    Open(PathBuf),
    Save,
    SaveAs(PathBuf),
    OpenHead(PathBuf),
    /// Give the character's head the project's 52 face shapes, written to this GLB, which the
    /// character then wears (npc-player transfer).
    TransferShapes(PathBuf),
    /// Opens the transfer wizard on the character's head: both heads from the front, with
    /// their landmarks shown and movable.
    OpenTransferWizard,
    CloseTransferWizard,
    /// Turns the wizard's heads to be seen from the front or the side.
    SeeHeadsFrom(Aspect),
    /// Moves a landmark of one of the wizard's heads to where it was dropped: `to` as seen
    /// from `seen` (from the front the head frame's x to its left and y up; from the side its
    /// z forward and y up; metres from between the eyes).
    MoveLandmark {
        head: Head,
        name: String,
        to: [f32; 2],
        seen: Aspect,
    },
    /// Puts the wizard's landmarks on one head back where they were found.
    ResetLandmarks(Head),
    RunInPlayer {
        simulator: bool,
    },
    /// Streams what the 3D view shows (the character's face) to another engine, or stops:
    /// `vmc://HOST:PORT` or `livelink://HOST:PORT` (docs/live-link.md).
    StreamTo(Option<String>),
    /// Listens for a live capture (`livelink://HOST:PORT` or `vmc://HOST:PORT`) and lays it
    /// under the timeline as it arrives, or stops listening (the capture stays).
    ListenForCapture(Option<String>),
    /// Frames of the live capture that arrived (times from its first face, ms), under `label`.
    CaptureArrived {
        label: String,
        frames: Vec<(f64, npc_io::Heard)>,
    },
}

impl Command {
    /// Whether the command changes the document (and so is recorded for undo and rebakes
    /// what was baked). Every command is named here, so a new one must be sorted.
    #[must_use]
    pub fn is_edit(&self) -> bool {
        match self {
            Self::SetPoseWeight { .. }
            | Self::ResetPose
            | Self::MirrorPose
            | Self::SetVisemeWeight { .. }
            | Self::ResetViseme(..)
            | Self::PoseToViseme(..)
            | Self::SetOwnVisemeWeight { .. }
            | Self::SetGaze(..)
            | Self::SetListen(..)
            | Self::SetOwnFaceProfile(..)
            | Self::SetBody(..)
            | Self::SetBlink(..)
            | Self::SetBrows(..)
            | Self::SetFaceEmotions { .. }
            | Self::PoseToEmotion(..)
            | Self::EmotionToPose(..)
            | Self::SetLipSync(..)
            | Self::SetScene(..)
            | Self::SetScreen(..)
            | Self::SetRoster(..)
            | Self::SetAgentDir(..)
            | Self::SetSpeech(..) => true,
            Self::Undo
            | Self::Redo
            | Self::HeadTargets { .. }
            | Self::SelectViseme(..)
            | Self::SelectCharacter(..)
            | Self::SetPlotTarget { .. }
            | Self::SetPreviewSpeaking(..)
            | Self::SetBodyPlotBone { .. }
            | Self::SetLineText(..)
            | Self::SetLineEmotion(..)
            | Self::AddLineGesture(..)
            | Self::RemoveLineGesture(..)
            | Self::SetLineGestureWord { .. }
            | Self::SpeakLine
            | Self::OpenWav(..)
            | Self::ListenTo(..)
            | Self::CancelJobs
            | Self::SetAlignToText(..)
            | Self::OpenVisemes(..)
            | Self::Seek(..)
            | Self::TogglePlay
            | Self::StepFrames(..)
            | Self::OpenComparison(..)
            | Self::CloseComparison
            | Self::ShowComparison(..)
            | Self::ExportLine { .. }
            | Self::New
            | Self::Open(..)
            | Self::Save
            | Self::SaveAs(..)
            | Self::OpenHead(..)
            | Self::TransferShapes(..)
            | Self::OpenTransferWizard
            | Self::CloseTransferWizard
            | Self::SeeHeadsFrom(..)
            | Self::MoveLandmark { .. }
            | Self::ResetLandmarks(..)
            | Self::RunInPlayer { .. }
            | Self::StreamTo(..)
            | Self::ListenForCapture(..)
            | Self::CaptureArrived { .. } => false,
        }
    }
}
