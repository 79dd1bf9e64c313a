//! `npc-studio`: the editor where faces are made to talk well. It poses the 22 visemes, plots
//! every layer of the lip sync over a line while scrubbing, tunes gaze and the scene, saves RON
//! projects, exports lines (Live Link Face CSV, glTF clips), lays real captures under them for
//! comparison, and runs projects in the player. It animates with the same `FaceAnimator` and draws
//! with the same renderer as the player, so what it shows is what the player plays.
//!
//! State ([`state::Studio`]) is apart from drawing ([`panels`], [`app`]): panels read it and
//! emit [`command::Command`]s, applied in one place that also keeps undo history.

pub mod app;
pub mod body_preview;
pub mod character;
pub mod command;
pub mod comparison;
pub mod document;
pub mod file_dialog;
pub mod head_scene;
pub mod jobs;
pub mod panels;
pub mod playback;
pub mod player_child;
pub mod recent;
pub mod state;
pub mod timeline;
pub mod transfer_wizard;
pub mod unsaved;
pub mod viewport;
