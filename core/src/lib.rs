//! `npc-core`: the animation engine shared by the studio and the player.
//!
//! Pure logic only: no GPU, no window, no audio device. Time and randomness are inputs.
//!
//! - [`anim`]: the face animator (lip sync, gaze, blinks), poses, line cues, bakes
//! - [`body`]: skeletons, humanoid bones, the body layer stack
//! - [`caption`]: subtitles, a line's words shown as they are heard
//! - [`arkit`], [`viseme`]: the 52 ARKit targets and the 22 Azure visemes with their table
//! - [`asset`]: glTF loading and writing; [`procedural`]: the project's own default content
//! - [`project`]: RON project files; [`agent`]: the agent-directory protocol
//! - [`hearing`]: the person's speech cut into utterances, whom each is for, how NPCs listen
//! - [`link`]: live links to other engines (the VMC protocol, Unreal's Live Link Face)
//! - [`speech`]: offline (espeak-ng) and Azure speech, audio analysis, WAV
//! - [`take`]: a line's performance as frames, to and from Live Link Face CSV and glTF clips
//! - [`transfer`]: blend-shape transfer, giving other heads the 52 ARKit shapes
//! - [`disk`]: the storage the live runtime's files are written through
//! - [`user_config`]: the user's configuration folder (what outlives a run)
//!
//! Features (all on by default): `espeak` (the offline engine, a C library), `azure` (TLS),
//! `watch` (file events for the agent directory). Without them the animator builds alone.

pub mod agent;
pub mod anim;
pub mod arkit;
pub mod asset;
pub mod atomic;
pub mod body;
pub mod caption;
pub mod daylight;
pub mod disk;
pub mod hearing;
pub mod link;
pub mod procedural;
pub mod project;
pub mod speech;
pub mod take;
pub mod transfer;
pub mod user_config;
pub mod viseme;

pub use anim::{FaceAnimator, FaceFrame, FaceSettings, LineCue, Pose, TAIL_MS, face_seed};
pub use arkit::{ARKIT_TARGET_COUNT, ArkitTarget, OculusViseme};
pub use viseme::{VISEME_COUNT, VisemeId, VisemeTable};
