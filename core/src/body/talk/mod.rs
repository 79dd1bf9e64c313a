//! Bodies that talk: a line's gestures planned ahead from its track ([`TalkPlan`]: talking
//! poses per phrase, beats on stressed syllables, nods; listeners' nods), and the body layer
//! that plays them ([`GestureLayer`]).

mod layer;
mod phases;
mod plan;
mod poses;
mod requests;
mod spoken;

pub use layer::{GestureLayer, TalkMoment};
pub use phases::Phases;
pub use plan::{Beat, Nod, Stroke, TalkPlan};
pub use poses::{HandPlace, HandShape, Hands, TalkPose};
pub use spoken::{SpokenBody, pointing_hand};
