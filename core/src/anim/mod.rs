//! Face animation: the [`FaceAnimator`] and its stages (the layered lip-sync sampler over a
//! viseme track, conversational gaze, blinks), the 52-weight [`Pose`] they produce, the
//! [`LineCue`] that starts a line on a face, baking a line into every stage's timeline, and
//! lip sync on an avatar's own shapes ([`OwnShapes`]).

pub mod blink;
pub mod brows;
pub mod clip_face;
pub mod emotion;
pub mod face;
pub mod gaze;
mod line_cue;
pub mod lipsync;
mod own_lipsync;
mod own_roles;
pub mod own_shapes;
pub mod pose;
pub mod stresses;
pub mod timeline;

pub use face::{FaceAnimator, FaceDetail, FaceFrame, FaceSettings, Stage};
pub use line_cue::{LineCue, TAIL_MS, face_seed};
pub use own_lipsync::OwnLipSync;
pub use own_roles::Role;
pub use own_shapes::{OwnShapes, ShapeSet};
pub use pose::Pose;
