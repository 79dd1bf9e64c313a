//! The visibility pass's far objects rasterized in compute (`raster.wgsl`): one thread a
//! triangle, each pixel keeping its nearest by a 64-bit atomic, then merged with what the
//! rasterizer drew (`raster_merge.wgsl`) into the ids and a depth the resolve reads.
//!
//! Why: far NPCs' triangles are a few pixels each, and on GPUs whose graphics units are a
//! small part of the chip (NVIDIA's H100 and H200) the rasterizer's rate set the visibility
//! pass's pace for crowds (docs/performance.md); compute runs on every unit. Needs the
//! device's 64-bit integers and their atomic min and max (`SHADER_INT64`,
//! `SHADER_INT64_ATOMIC_MIN_MAX`: Vulkan's `shaderInt64` and `VK_KHR_shader_atomic_int64`).

use super::gpu::Gpu;
use super::pipelines::{DEPTH_FORMAT, Layouts};
use super::shaders;

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
/// Workgroups taking a run's large triangles in turn (each one's threads its pixels).
const LARGE_GROUPS: u32 = 2048;
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

/// Whether `device` has what the compute raster needs.
#[must_use]
pub fn supported(device: &wgpu::Device) -> bool {
    device
        .features()
        .contains(wgpu::Features::SHADER_INT64 | wgpu::Features::SHADER_INT64_ATOMIC_MIN_MAX)
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

/// What one target size needs.
#[derive(Debug)]
struct Screen {
    width: u32,
    height: u32,
    nearest: wgpu::Buffer,
    depth: wgpu::TextureView,
}

/// The compute raster's pipelines and buffers.
#[derive(Debug)]
pub struct ComputeRaster {
    raster_layout: wgpu::BindGroupLayout,
    merge_layout: wgpu::BindGroupLayout,
    raster: wgpu::ComputePipeline,
    raster_masked: wgpu::ComputePipeline,
    /// The large triangles a run left, a workgroup each.
    raster_large: wgpu::ComputePipeline,
    raster_large_masked: wgpu::ComputePipeline,
    merge: wgpu::ComputePipeline,
    depth_layout: wgpu::BindGroupLayout,
    /// Lays the merged depth into the depth attachment of a pass drawing into the target.
    depth: wgpu::RenderPipeline,
    items: wgpu::Buffer,
    params: wgpu::Buffer,
    /// Each run's first triangle and count, one uniform slot (`run_stride` bytes) each.
    runs: wgpu::Buffer,
    run_stride: u64,
    /// The frame's runs (after [`ComputeRaster::prepare`]).
    frame_runs: Vec<RasterRun>,
    /// The large triangles' numbers (room for every triangle) and each run's count of them.
    large: wgpu::Buffer,
    large_counts: wgpu::Buffer,
    screen: Option<Screen>,
}

fn entry(binding: u32, ty: wgpu::BindingType) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty,
        count: None,
    }
}

fn storage(read_only: bool) -> wgpu::BindingType {
    wgpu::BindingType::Buffer {
        ty: wgpu::BufferBindingType::Storage { read_only },
        has_dynamic_offset: false,
        min_binding_size: None,
    }
}

fn uniform() -> wgpu::BindingType {
    wgpu::BindingType::Buffer {
        ty: wgpu::BufferBindingType::Uniform,
        has_dynamic_offset: false,
        min_binding_size: None,
    }
}

/// A run's slot: one `vec4<u32>` at a dynamic offset.
fn run_uniform() -> wgpu::BindingType {
    wgpu::BindingType::Buffer {
        ty: wgpu::BufferBindingType::Uniform,
        has_dynamic_offset: true,
        min_binding_size: wgpu::BufferSize::new(16),
    }
}

fn u32s_buffer(device: &wgpu::Device, label: &str, count: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: count.max(64).next_power_of_two() * 4,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

fn runs_buffer(device: &wgpu::Device, runs: u64, stride: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("raster runs"),
        size: runs.max(8).next_power_of_two() * stride,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

fn storage_texture(format: wgpu::TextureFormat) -> wgpu::BindingType {
    wgpu::BindingType::StorageTexture {
        access: wgpu::StorageTextureAccess::WriteOnly,
        format,
        view_dimension: wgpu::TextureViewDimension::D2,
    }
}

fn bind(binding: u32, resource: wgpu::BindingResource<'_>) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry { binding, resource }
}

fn items_buffer(device: &wgpu::Device, items: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("raster items"),
        size: items.max(64).next_power_of_two() * size_of::<RasterItem>() as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// The depth the classify pass and the resolve read after the merge.
pub const MERGED_DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R32Float;

impl ComputeRaster {
    /// The compute raster, where `device` has what it needs (`layouts`: the frame's, group 0
    /// of the raster, and the materials', group 1; `color_format`: the target's, which the
    /// passes drawn over the resolve draw into).
    #[must_use]
    pub fn new(
        device: &wgpu::Device,
        layouts: &Layouts,
        color_format: wgpu::TextureFormat,
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
            ],
        });
        let merge_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("compute raster merge"),
            entries: &[
                entry(0, storage(true)),
                entry(1, storage(true)),
                entry(
                    2,
                    wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Depth,
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                ),
                entry(3, storage_texture(wgpu::TextureFormat::Rg32Uint)),
                entry(4, storage_texture(MERGED_DEPTH_FORMAT)),
                entry(5, uniform()),
            ],
        });
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
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                cache: None,
            })
        };
        let raster_layouts = [
            Some(&layouts.frame),
            Some(&layouts.material.layout),
            Some(&raster_layout),
        ];
        let source = shaders::raster();
        let raster = pipeline(
            "compute raster",
            &raster_layouts,
            source.clone().into(),
            "cs_raster",
        );
        let raster_masked = pipeline(
            "compute raster masked",
            &raster_layouts,
            source.clone().into(),
            "cs_raster_masked",
        );
        let raster_large = pipeline(
            "compute raster large",
            &raster_layouts,
            source.clone().into(),
            "cs_raster_large",
        );
        let raster_large_masked = pipeline(
            "compute raster large masked",
            &raster_layouts,
            source.into(),
            "cs_raster_large_masked",
        );
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
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("compute raster params"),
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let run_stride = u64::from(device.limits().min_uniform_buffer_offset_alignment).max(16);
        Some(Self {
            raster_layout,
            merge_layout,
            raster,
            raster_masked,
            raster_large,
            raster_large_masked,
            merge,
            depth_layout,
            depth,
            items: items_buffer(device, 0),
            params,
            runs: runs_buffer(device, 0, run_stride),
            run_stride,
            frame_runs: Vec::new(),
            large: u32s_buffer(device, "raster large triangles", 0),
            large_counts: u32s_buffer(device, "raster large counts", 0),
            screen: None,
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
        let device = &gpu.device;
        if self
            .screen
            .as_ref()
            .is_none_or(|s| (s.width, s.height) != (width, height))
        {
            self.screen = Some(Screen::new(device, width, height));
        }
        let bytes: &[u8] = bytemuck::cast_slice(items);
        if bytes.len() as u64 > self.items.size() {
            self.items = items_buffer(device, items.len() as u64);
        }
        if !bytes.is_empty() {
            gpu.queue.write_buffer(&self.items, 0, bytes);
        }
        let count = u32::try_from(items.len()).unwrap_or(u32::MAX);
        gpu.queue.write_buffer(
            &self.params,
            0,
            bytemuck::cast_slice(&[width, height, count, triangles]),
        );
        if runs.len() as u64 * self.run_stride > self.runs.size() {
            self.runs = runs_buffer(device, runs.len() as u64, self.run_stride);
        }
        if u64::from(triangles) * 4 > self.large.size() {
            self.large = u32s_buffer(device, "raster large triangles", triangles.into());
        }
        if runs.len() as u64 * 4 > self.large_counts.size() {
            self.large_counts = u32s_buffer(device, "raster large counts", runs.len() as u64);
        }
        let stride = usize::try_from(self.run_stride).unwrap_or(256);
        let mut slots = vec![0u8; runs.len() * stride];
        for (i, (slot, run)) in slots.chunks_exact_mut(stride).zip(runs).enumerate() {
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            slot[..12].copy_from_slice(bytemuck::cast_slice(&[run.first, run.count, index]));
        }
        if !slots.is_empty() {
            gpu.queue.write_buffer(&self.runs, 0, &slots);
        }
        self.frame_runs.clear();
        self.frame_runs.extend_from_slice(runs);
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
        encoder.clear_buffer(&screen.nearest, 0, None);
        encoder.clear_buffer(&self.large_counts, 0, None);
        let raster_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("compute raster"),
            layout: &self.raster_layout,
            entries: &[
                bind(0, self.items.as_entire_binding()),
                bind(1, indices.as_entire_binding()),
                bind(2, screen.nearest.as_entire_binding()),
                bind(3, self.params.as_entire_binding()),
                bind(
                    4,
                    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &self.runs,
                        offset: 0,
                        size: wgpu::BufferSize::new(16),
                    }),
                ),
                bind(5, self.large.as_entire_binding()),
                bind(6, self.large_counts.as_entire_binding()),
            ],
        });
        let merge_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("compute raster merge"),
            layout: &self.merge_layout,
            entries: &[
                bind(0, self.items.as_entire_binding()),
                bind(1, screen.nearest.as_entire_binding()),
                bind(2, wgpu::BindingResource::TextureView(drawn_depth)),
                bind(3, wgpu::BindingResource::TextureView(ids)),
                bind(4, wgpu::BindingResource::TextureView(&screen.depth)),
                bind(5, self.params.as_entire_binding()),
            ],
        });
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("compute raster"),
            timestamp_writes: timestamps,
        });
        pass.set_bind_group(0, frame, &[]);
        for (i, run) in self.frame_runs.iter().enumerate() {
            let (x, y) = dispatch_size(run.count);
            // The opaque run reads no material: any serves its layout.
            let material = materials.get(run.material.unwrap_or(0) as usize);
            let (Some(material), Ok(offset)) =
                (material, u32::try_from(i as u64 * self.run_stride))
            else {
                continue;
            };
            if x == 0 {
                continue;
            }
            let masked = run.material.is_some();
            pass.set_pipeline(if masked {
                &self.raster_masked
            } else {
                &self.raster
            });
            pass.set_bind_group(1, material, &[]);
            pass.set_bind_group(2, &raster_group, &[offset]);
            pass.dispatch_workgroups(x, y, 1);
            pass.set_pipeline(if masked {
                &self.raster_large_masked
            } else {
                &self.raster_large
            });
            pass.dispatch_workgroups(run.count.min(LARGE_GROUPS), 1, 1);
        }
        pass.set_pipeline(&self.merge);
        pass.set_bind_group(0, &merge_group, &[]);
        pass.dispatch_workgroups(screen.width.div_ceil(8), screen.height.div_ceil(8), 1);
    }
}

/// The pipeline laying the merged depth into a depth attachment, the target's colour left
/// as it is.
fn depth_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    color_format: wgpu::TextureFormat,
) -> wgpu::RenderPipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("merged depth"),
        source: wgpu::ShaderSource::Wgsl(shaders::raster_depth().into()),
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("merged depth"),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("merged depth"),
        layout: Some(&pipeline_layout),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs_screen"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            buffers: &[],
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Always),
            stencil: wgpu::StencilState::default(),
            bias: wgpu::DepthBiasState::default(),
        }),
        multisample: wgpu::MultisampleState::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs_merged_depth"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format: color_format,
                blend: None,
                write_mask: wgpu::ColorWrites::empty(),
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

impl Screen {
    fn new(device: &wgpu::Device, width: u32, height: u32) -> Self {
        let nearest = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("compute raster nearest"),
            size: u64::from(width) * u64::from(height) * 8,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let depth = device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("merged depth"),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: MERGED_DEPTH_FORMAT,
                usage: wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            })
            .create_view(&wgpu::TextureViewDescriptor::default());
        Self {
            width,
            height,
            nearest,
            depth,
        }
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
