//! `npc-io`: what the studio and the player share at the machine's edges, kept apart from the
//! world and the editor so that each tool takes only these: sound output (lines played on the
//! sound device, or on an offline clock at real-time pace without one, with the position lip
//! sync reads), a face streamed to another engine (VMC, Unreal's Live Link Face) and the URLs
//! that name such streams, and live captures listened for (an iPhone's Live Link Face, any VMC
//! sender).

pub mod audio;
pub mod capture;
pub mod face_sender;
pub mod stream;

pub use audio::{AudioOut, PlayingLine, distance_volume, plainly_absent, unit_volume};
pub use capture::{CaptureListener, CaptureTake, Heard};
pub use face_sender::{BodyFrame, FaceSender};
pub use stream::{Stream, StreamTarget, parse_stream};
