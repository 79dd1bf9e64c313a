//! The studio's panels. Each reads the state and returns the commands its widgets asked for;
//! none changes the state itself.

pub mod body;
pub mod character_picker;
pub mod gaze;
pub mod heard_lane;
pub mod lanes;
pub mod listener_lane;
pub mod listening;
pub mod menu;
pub mod pose;
pub mod scene;
pub mod timeline;
pub mod transfer;
pub mod visemes;
