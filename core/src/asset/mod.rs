//! glTF assets on the CPU (and FBX files' skeletons and clips): meshes with morph targets,
//! the face rig that drives them by ARKit name, skins and animation clips, the scene with
//! instanced meshes, materials and textures, and a collision grid for ground height. No GPU
//! here: the player uploads what this loads.

mod accessor;
pub mod amend;
pub mod animation;
mod animation_pointer;
mod bin_chunk;
pub mod clip_face;
pub mod collision;
mod compression;
mod draco;
mod error;
pub mod extensions;
pub mod face_rig;
mod fbx;
pub mod glb;
pub mod inspect;
mod ktx2;
mod load;
pub mod lod;
pub mod material;
pub mod mesh;
pub mod rest_pose;
pub mod scene;
pub mod skin;
mod source;
pub mod spring_bones;
pub mod tangents;
mod texture_ref;
pub mod toon;
mod transform;
pub mod vrm;
pub mod writer;

pub use accessor::Reader;
pub use error::{AssetError, Result};
pub use face_rig::{FaceRig, TargetRef};
pub use load::{Asset, SUPPORTED_REQUIRED_EXTENSIONS};
pub use source::Source;
pub use transform::Transform;
pub use vrm::VrmExpressions;
