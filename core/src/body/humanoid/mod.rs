//! The humanoid bones of VRM 1.0 and where they are on a rig: what `--record` names joints
//! by and what body layers drive on any avatar. Mixamo, Unreal/Quaternius, VRoid and Blender
//! namings are read; structure confirms them, and a project may override bones.

mod bone;
mod map;
mod names;

pub use bone::{ARMS, CORE_BONES, EYES, FINGERS, HumanoidBone, LEGS, Side};
pub use map::{HumanoidMap, RestPose};
