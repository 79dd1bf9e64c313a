//! Bodies: one [`Skeleton`] type for every rig, the humanoid bones found on it, and body
//! animation as an ordered stack of layers (clips, foot IK, look-at) over its local transforms.
//! Pure CPU code, so the player, the studio and `bake` run the same bodies.

mod clip_layer;
mod foot_ik;
pub mod humanoid;
mod layer;
mod look_at;
mod skeleton;

pub use clip_layer::{CROSS_BLEND_S, ClipLayer};
pub use foot_ik::FootIkLayer;
pub use humanoid::{HumanoidBone, HumanoidMap};
pub use layer::{Activity, Body, BodyLayer, LayerInput};
pub use look_at::LookAtLayer;
pub use skeleton::Skeleton;
