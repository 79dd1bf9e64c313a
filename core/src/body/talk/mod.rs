//! Bodies that talk: a line's gestures planned ahead from its track ([`TalkPlan`]: talking
//! poses per phrase, beats on stressed syllables, nods, clips asked for as gestures; listeners'
//! nods), and the body layer that plays them ([`GestureLayer`]; the clips layer plays the clips).

mod layer;
mod phases;
mod plan;
mod poses;
mod requests;
mod spoken;

pub use layer::{GestureLayer, TalkMoment};
pub use phases::Phases;
pub use plan::{Beat, ClipStroke, Nod, Stroke, TalkPlan};
pub use poses::{HandPlace, HandShape, Hands, TalkPose};
pub use requests::clip_named;
pub use spoken::{SpokenBody, pointing_hand};
