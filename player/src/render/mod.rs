//! The renderer on wgpu (Vulkan): one mesh pipeline with morph targets (compact lists of the
//! active targets), skinning and instancing, a shadow map from the sun, three blended sky
//! cubemaps and distance fog. Windowed and offscreen drawing share all of it.

pub mod deform_check;
pub mod draw_list;
pub mod frame_buffers;
pub mod frustum;
pub mod gpu;
pub mod gpu_types;
pub mod grow_buffer;
pub mod materials;
pub mod mesh_store;
pub mod mip_chain;
pub mod offscreen;
pub mod pipelines;
pub mod renderer;
pub mod shaders;
pub mod shadow_map;
pub mod sky_textures;
pub mod timer;
pub mod view;

pub use draw_list::{Batch, DrawList, MorphRange, Passes};
pub use gpu::{Gpu, GpuError};
pub use mesh_store::{MeshStore, MeshStoreBuilder, PrimitiveId, StoredAsset};
pub use offscreen::Offscreen;
pub use renderer::{Renderer, Target};
pub use view::{Camera, FrameView, ShadowReach};
