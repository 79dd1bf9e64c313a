//! Idle life: procedural body layers that make any humanoid stand, breathe and shift its
//! weight like a person. Seeded, driven by the body's clock (time is an input), the same at
//! any frame rate; each has its settings and a switch (`BodySettings`).

mod arms;
mod breathing;
mod hands;
mod posture;
mod rhythm;
mod sway;
mod weight_shift;

pub use arms::ArmLayer;
pub use breathing::BreathingLayer;
pub use hands::HandLayer;
pub use posture::PostureLayer;
pub(crate) use rhythm::{LISTEN_STREAM, TALK_STREAM, smoothstep, stream};
pub use sway::SwayLayer;
pub use weight_shift::WeightShiftLayer;
