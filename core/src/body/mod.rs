//! Bodies: one [`Skeleton`] type for every rig, the humanoid bones found on it, and body
//! animation as an ordered stack of layers (clips, idle life, foot IK, look-at) over its local
//! transforms.
//! Pure CPU code, so the player, the studio and `bake` run the same bodies.

mod avatar_rig;
mod bake;
mod clip_layer;
mod clips;
mod emotion;
mod foot_ik;
mod hand_rig;
pub mod humanoid;
mod humanoid_pose;
mod idle;
mod lanes;
mod layer;
mod look_at;
mod named_springs;
mod retarget;
mod retargeted;
mod settings;
mod skeleton;
mod space;
pub mod spring;
pub mod talk;
mod two_bone;

pub use avatar_rig::AvatarRig;
pub use bake::{BodyBake, BodyBakeOptions, bake_body};
pub use clip_layer::{CROSS_BLEND_S, ClipLayer};
pub use clips::{AvatarClips, ClipLibrary, ClipSource, Clips, has_activity_clip};
pub use emotion::{Bearing, BodyEmotionSettings};
pub use foot_ik::FootIkLayer;
pub use humanoid::{HumanoidBone, HumanoidMap, RestPose, Side};
pub use humanoid_pose::{HumanoidPose, PoseReader, joint_locals};
pub use idle::{ArmLayer, BreathingLayer, HandLayer, PostureLayer, SwayLayer, WeightShiftLayer};
pub use layer::{
    Activity, Body, BodyDetail, BodyLayer, CLIPS_LAYER, INHALE_LEAD_MS, Inhales, LayerInput,
};
pub use look_at::LookAtLayer;
pub use named_springs::{NamedChain, NamedCollider, NamedSprings, avatar_springs};
pub use retarget::{ClipRig, Retarget};
pub use retargeted::{MAX_KEY_GAP_S, RetargetedClips};
pub use settings::{
    ArmSettings, BodySettings, BreathingSettings, GestureSettings, HandSettings, PostureSettings,
    SwaySettings, WeightShiftSettings,
};
pub use skeleton::Skeleton;
