//! `npc-render`: the renderer on wgpu (Vulkan), shared by the player and the studio. One mesh
//! pipeline with morph targets (compact lists of the active targets) and skinning deformed once
//! per frame in compute, instancing and levels of detail, a shadow map from the sun, three
//! blended sky cubemaps with the image-based light made from them, and distance fog. Windowed and offscreen drawing share all of it.
//!
//! What it draws is a [`DrawList`] of primitives from a [`MeshStore`]: the player's world and
//! the studio's head fill one each frame; the renderer knows nothing of NPCs.

mod active_morphs;
mod bind_shape;
mod compute_raster;
mod deform_check;
mod draw_list;
mod environment;
mod frame_buffers;
mod frustum;
mod gpu;
mod gpu_types;
mod grow_buffer;
mod headless;
mod materials;
mod mesh_store;
mod mip_chain;
mod object_blocks;
mod octahedral;
mod offscreen;
mod palette_changes;
mod pipelines;
mod render_thread;
mod renderer;
mod reused_list;
mod shaders;
mod shading;
mod shadow_map;
mod sky_textures;
mod timer;
mod uploads;
mod view;
mod visibility;

pub use active_morphs::ActiveMorphs;
pub use compute_raster::RasterShares;
pub use deform_check::deformed_positions;
pub use draw_list::{
    Batch, DrawList, MorphRange, Passes, Room, RoomSize, deformed_count, split_lengths,
    triangles_drawn,
};
pub use frustum::Frustum;
pub use gpu::{Gpu, GpuError, instance, quiet_display_probe};
pub use headless::{Headless, RecordTimes, SAMPLES as OFFSCREEN_SAMPLES};
pub use mesh_store::{
    GpuPrimitive, IndexRange, LOD_COUNT, MeshStore, MeshStoreBuilder, PrimitiveId, StoreError,
    StoredAsset, Surface,
};
pub use object_blocks::{ObjectBlock, ObjectPlacement};
pub use offscreen::{OFFSCREEN_FORMAT, OFFSCREEN_OVERLAY_FORMAT, Offscreen, parse_size};
pub use palette_changes::{PaletteChanges, PaletteStamp, PaletteUpload};
pub use pipelines::DepthPrepass;
pub use render_thread::RenderThread;
pub use renderer::{Renderer, RendererError, Target};
pub use reused_list::ReusedList;
pub use shaders::all as shader_modules;
pub use shading::{FAR_LOD, Shading};
pub use sky_textures::CubeFaces;
pub use timer::{GpuTimer, PassTimes, ResolveTimes};
pub use view::{Camera, FrameView, ShadowReach};
