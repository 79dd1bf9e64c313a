//! The visibility pass's objects rasterized in compute (`raster.wgsl`): one thread a small
//! triangle and a workgroup a large one, each pixel keeping its nearest by a 64-bit atomic,
//! then merged with what the rasterizer drew (`raster_merge.wgsl`) into the ids and a depth
//! the resolve reads; and the shadow map's casters the same way (`shadow`).
//!
//! Why: far NPCs' triangles are a few pixels each, and on GPUs whose graphics units are a
//! small part of the chip (NVIDIA's H100 and H200) the rasterizer's rate set the visibility
//! pass's pace for crowds (docs/performance.md); compute runs on every unit. Needs the
//! device's 64-bit integers and their atomic min and max (`SHADER_INT64`,
//! `SHADER_INT64_ATOMIC_MIN_MAX`: Vulkan's `shaderInt64` and `VK_KHR_shader_atomic_int64`).

mod bindings;
mod frame;
mod lists;
mod screen;
mod shadow;

use bindings::{
    bind, depth_texture, entry, run_uniform, storage, storage_texture, u32s_buffer, uniform,
};
use frame::{RasterFrame, RasterPipelines};
pub use lists::{Gathered, RasterLists};
use screen::{Screen, depth_pipeline};
use shadow::ShadowRaster;

use crate::gpu::Gpu;
use crate::pipelines::Layouts;
use crate::shaders;

/// A run of one object's triangles to rasterize. Mirrors `RasterItem` in `raster.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct RasterItem {
    /// Its index among the frame's objects (the visibility pass's instance).
    pub object: u32,
    /// The first index of its triangles at the level drawn.
    pub first: u32,
    /// Its first triangle's number among all the frame's rasterized triangles.
    pub start: u32,
    /// Its triangles.
    pub count: u32,
}

/// One dispatch's triangles, numbered one after another: the opaque surfaces' (no material)
/// or one masked material's, whose alpha test reads its textures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RasterRun {
    /// The masked surfaces' material (index into the store's), or `None` for opaque ones.
    pub material: Option<u32>,
    /// Its first triangle's number.
    pub first: u32,
    /// Its triangles.
    pub count: u32,
}

/// The items' triangles are numbered one after another: each item's `start` set, and the
/// total returned.
pub fn number(items: &mut [RasterItem]) -> u32 {
    let mut start = 0u32;
    for item in items {
        item.start = start;
        start = start.saturating_add(item.count);
    }
    start
}

/// Threads of one raster workgroup (`raster.wgsl`).
const WORKGROUP: u32 = 64;
/// Workgroups a dispatch's dimension may have.
const MAX_GROUPS: u32 = 65_535;

/// The raster dispatch's workgroups for `triangles` (x, y), x at most the device's limit.
#[must_use]
pub fn dispatch_size(triangles: u32) -> (u32, u32) {
    let groups = triangles.div_ceil(WORKGROUP);
    if groups <= MAX_GROUPS {
        (groups, 1)
    } else {
        (MAX_GROUPS, groups.div_ceil(MAX_GROUPS))
    }
}

/// Storage buffers the raster binds in one stage: six of the frame's group, six of its own.
const RASTER_STORAGE_BUFFERS: u32 = 12;

/// Whether `device` has what the compute raster needs.
#[must_use]
pub fn supported(device: &wgpu::Device) -> bool {
    device
        .features()
        .contains(wgpu::Features::SHADER_INT64 | wgpu::Features::SHADER_INT64_ATOMIC_MIN_MAX)
        && device.limits().max_storage_buffers_per_shader_stage >= RASTER_STORAGE_BUFFERS
}

/// The features the compute raster asks of an adapter that has them.
#[must_use]
pub fn wanted(adapter: wgpu::Features) -> wgpu::Features {
    let needed = wgpu::Features::SHADER_INT64 | wgpu::Features::SHADER_INT64_ATOMIC_MIN_MAX;
    if adapter.contains(needed) {
        needed
    } else {
        wgpu::Features::empty()
    }
}

/// The depth the classify pass and the resolve read after the merge.
pub const MERGED_DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R32Float;

/// The compute raster's pipelines and buffers.
#[derive(Debug)]
pub struct ComputeRaster {
    pipelines: RasterPipelines,
    merge_layout: wgpu::BindGroupLayout,
    merge: wgpu::ComputePipeline,
    depth_layout: wgpu::BindGroupLayout,
    /// Lays the merged depth into the depth attachment of a pass drawing into the target.
    depth: wgpu::RenderPipeline,
    /// The camera's frame and target.
    main: RasterFrame,
    screen: Option<Screen>,
    /// The shadow map's frame and texels.
    shadow_frame: RasterFrame,
    shadow: ShadowRaster,
    /// Bound where a raster's target is the other one's (never written).
    unused: wgpu::Buffer,
}

impl ComputeRaster {
    /// The compute raster, where `device` has what it needs (`layouts`: the frame's, group 0
    /// of the raster, and the materials', group 1; `color_format`: the target's, which the
    /// passes drawn over the resolve draw into).
    #[must_use]
    pub fn new(
        device: &wgpu::Device,
        layouts: &Layouts,
        color_format: wgpu::TextureFormat,
        shares: RasterShares,
    ) -> Option<Self> {
        if !supported(device) {
            return None;
        }
        let raster_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("compute raster"),
            entries: &[
                entry(0, storage(true)),
                entry(1, storage(true)),
                entry(2, storage(false)),
                entry(3, uniform()),
                entry(4, run_uniform()),
                entry(5, storage(false)),
                entry(6, storage(false)),
                entry(7, storage(false)),
            ],
        });
        let merge_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("compute raster merge"),
            entries: &[
                entry(0, storage(true)),
                entry(1, storage(false)),
                entry(2, depth_texture()),
                entry(3, storage_texture(wgpu::TextureFormat::Rg32Uint)),
                entry(4, storage_texture(MERGED_DEPTH_FORMAT)),
                entry(5, uniform()),
            ],
        });
        let constants = shares.constants();
        let pipeline = |label: &str, layouts: &[Option<&wgpu::BindGroupLayout>], source, entry| {
            let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: layouts,
                immediate_size: 0,
            });
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(source),
            });
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: Some(&layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    // Only the raster's shader has the constant.
                    constants: if entry.starts_with("cs_raster") {
                        &constants
                    } else {
                        &[]
                    },
                    ..wgpu::PipelineCompilationOptions::default()
                },
                cache: None,
            })
        };
        let raster_layouts = [
            Some(&layouts.frame),
            Some(&layouts.material.layout),
            Some(&raster_layout),
        ];
        let source = shaders::raster();
        let raster = |label, entry| pipeline(label, &raster_layouts, source.clone().into(), entry);
        let pipelines = RasterPipelines {
            opaque: raster("compute raster", "cs_raster"),
            masked: raster("compute raster masked", "cs_raster_masked"),
            large: raster("compute raster large", "cs_raster_large"),
            large_masked: raster("compute raster large masked", "cs_raster_large_masked"),
            layout: raster_layout,
        };
        let merge = pipeline(
            "compute raster merge",
            &[Some(&merge_layout)],
            shaders::raster_merge().into(),
            "cs_merge",
        );
        let depth_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("merged depth"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: false },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            }],
        });
        let depth = depth_pipeline(device, &depth_layout, color_format);
        Some(Self {
            pipelines,
            merge_layout,
            merge,
            depth_layout,
            depth,
            main: RasterFrame::new(device),
            screen: None,
            shadow_frame: RasterFrame::new(device),
            shadow: ShadowRaster::new(device),
            unused: u32s_buffer(device, "compute raster unused", 0),
        })
    }

    /// Sizes the buffers for a `width` x `height` target and uploads the frame's `items`
    /// (numbered, [`number`]) with their `triangles`, dispatched in `runs`.
    pub fn prepare(
        &mut self,
        gpu: &Gpu,
        (width, height): (u32, u32),
        items: &[RasterItem],
        triangles: u32,
        runs: &[RasterRun],
    ) {
        if self
            .screen
            .as_ref()
            .is_none_or(|s| (s.width, s.height) != (width, height))
        {
            self.screen = Some(Screen::new(&gpu.device, width, height));
        }
        self.main
            .prepare(gpu, (width, height), items, triangles, runs, false);
    }

    /// [`Self::prepare`] for the shadow map's casters, into a map of `size` x `size` texels.
    pub fn prepare_shadow(
        &mut self,
        gpu: &Gpu,
        size: u32,
        items: &[RasterItem],
        triangles: u32,
        runs: &[RasterRun],
    ) {
        self.shadow.prepare(gpu, size);
        self.shadow_frame
            .prepare(gpu, (size, size), items, triangles, runs, true);
    }

    /// Draws the merged depth into `pass`'s depth attachment (a pass drawing into the
    /// target, its depth test always passing for this draw).
    pub fn lay_depth(&self, device: &wgpu::Device, pass: &mut wgpu::RenderPass<'_>) {
        let Some(screen) = &self.screen else {
            return;
        };
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("merged depth"),
            layout: &self.depth_layout,
            entries: &[bind(0, wgpu::BindingResource::TextureView(&screen.depth))],
        });
        pass.set_pipeline(&self.depth);
        pass.set_bind_group(0, &group, &[]);
        pass.draw(0..3, 0..1);
    }

    /// The depth the merge writes (after [`Self::prepare`]).
    #[must_use]
    pub fn merged_depth(&self) -> Option<&wgpu::TextureView> {
        self.screen.as_ref().map(|s| &s.depth)
    }

    /// Records the raster of the prepared runs and the merge with what the rasterizer drew
    /// (`drawn_depth`, `ids`); `frame`: the frame's bind group, `indices` the mesh store's,
    /// `materials` its materials' bind groups.
    #[allow(clippy::too_many_arguments)]
    pub fn encode(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        frame: &wgpu::BindGroup,
        indices: &wgpu::Buffer,
        materials: &[wgpu::BindGroup],
        drawn_depth: &wgpu::TextureView,
        ids: &wgpu::TextureView,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) {
        let Some(screen) = &self.screen else {
            return;
        };
        // No clear of `nearest`: made zeroed, and the merge zeroes each pixel it reads.
        self.main.clear(encoder);
        let layout = &self.pipelines.layout;
        let raster_group = self
            .main
            .group(device, layout, indices, &screen.nearest, &self.unused);
        let merge_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("compute raster merge"),
            layout: &self.merge_layout,
            entries: &[
                bind(0, self.main.items.as_entire_binding()),
                bind(1, screen.nearest.as_entire_binding()),
                bind(2, wgpu::BindingResource::TextureView(drawn_depth)),
                bind(3, wgpu::BindingResource::TextureView(ids)),
                bind(4, wgpu::BindingResource::TextureView(&screen.depth)),
                bind(5, self.main.params.as_entire_binding()),
            ],
        });
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("compute raster"),
            timestamp_writes: timestamps,
        });
        pass.set_bind_group(0, frame, &[]);
        self.main
            .dispatch(&mut pass, &self.pipelines, materials, &raster_group);
        pass.set_pipeline(&self.merge);
        pass.set_bind_group(0, &merge_group, &[]);
        pass.dispatch_workgroups(screen.width.div_ceil(8), screen.height.div_ceil(8), 1);
    }

    /// Records the raster of the prepared shadow casters into `map` (its texture and view),
    /// kept where nearer than what the rasterizer drew there.
    #[allow(clippy::too_many_arguments)]
    pub fn encode_shadow(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        frame: &wgpu::BindGroup,
        indices: &wgpu::Buffer,
        materials: &[wgpu::BindGroup],
        (map, map_view): (&wgpu::Texture, &wgpu::TextureView),
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) {
        // No clear of the texels: made zeroed, and the pack zeroes each one it reads.
        self.shadow_frame.clear(encoder);
        let layout = &self.pipelines.layout;
        let raster_group =
            self.shadow_frame
                .group(device, layout, indices, &self.unused, &self.shadow.nearest);
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("shadow raster"),
                timestamp_writes: timestamps,
            });
            pass.set_bind_group(0, frame, &[]);
            self.shadow_frame
                .dispatch(&mut pass, &self.pipelines, materials, &raster_group);
            self.shadow.pack(device, &mut pass, map_view);
        }
        self.shadow.copy_to(encoder, map);
    }
}

/// How the compute raster shares a triangle's pixels out, by the pixels of its bounds: from
/// `large_pixels` on a workgroup takes it (not one thread), from `huge_pixels` on several
/// workgroups do (one for each 1024 pixels). `None`: the shader's own (64 and 4096).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RasterShares {
    pub large_pixels: Option<u32>,
    pub huge_pixels: Option<u32>,
}

impl RasterShares {
    /// `NPC_RASTER_LARGE_PIXELS` and `NPC_RASTER_HUGE_PIXELS` where set, for timing.
    #[must_use]
    pub fn from_env() -> Self {
        let read = |name| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse().ok())
                .filter(|&p: &u32| p > 0)
        };
        Self {
            large_pixels: read("NPC_RASTER_LARGE_PIXELS"),
            huge_pixels: read("NPC_RASTER_HUGE_PIXELS"),
        }
    }

    /// The raster shader's override constants.
    fn constants(self) -> Vec<(&'static str, f64)> {
        [
            ("LARGE_PIXELS", self.large_pixels),
            ("HUGE_PIXELS", self.huge_pixels),
        ]
        .into_iter()
        .filter_map(|(name, pixels)| pixels.map(|p| (name, f64::from(p))))
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_numbered_one_after_another() {
        let mut items = [
            RasterItem {
                count: 5,
                ..RasterItem::default()
            },
            RasterItem {
                count: 0,
                ..RasterItem::default()
            },
            RasterItem {
                count: 7,
                ..RasterItem::default()
            },
        ];
        assert_eq!(number(&mut items), 12);
        let starts: Vec<u32> = items.iter().map(|i| i.start).collect();
        assert_eq!(starts, [0, 5, 5]);
    }

    #[test]
    fn a_large_raster_spreads_over_two_dimensions() {
        assert_eq!(dispatch_size(0), (0, 1));
        assert_eq!(dispatch_size(64), (1, 1));
        assert_eq!(dispatch_size(65), (2, 1));
        let (x, y) = dispatch_size(10_000_000);
        assert_eq!(x, MAX_GROUPS);
        assert!(u64::from(x) * u64::from(y) * 64 >= 10_000_000);
    }
}
