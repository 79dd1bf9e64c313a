//! `npc-core`: the animation engine shared by the studio and the player.
//!
//! Pure logic only: no GPU, no window, no audio device. Time and randomness are inputs.

pub mod agent;
pub mod arkit;
pub mod asset;
pub mod atomic;
pub mod blink;
pub mod body;
pub mod daylight;
pub mod face;
pub mod gaze;
pub mod line_cue;
pub mod lipsync;
pub mod pose;
pub mod procedural;
pub mod project;
pub mod speech;
pub mod timeline;
pub mod viseme;

pub use arkit::{ARKIT_TARGET_COUNT, ArkitTarget, OculusViseme};
pub use face::{FaceAnimator, FaceFrame, FaceSettings};
pub use line_cue::{LineCue, TAIL_MS, face_seed};
pub use pose::Pose;
pub use viseme::{VISEME_COUNT, VisemeId, VisemeTable};
