//! The main pass by visibility, for one sample per pixel: the rasterizer writes each pixel's
//! object and triangle and nothing else (`visibility.wgsl`); a compute pass sorts the screen's
//! 8x8 tiles by the list (a material at one set of shading needs, or the sky) that shows in
//! each (`classify.wgsl`); one indirect dispatch per list shades its tiles (`resolve.wgsl`,
//! `sky.wgsl`) into a storage image copied to the target. What still needs the rasterizer's
//! shading (MToon outlines, see-through surfaces) is drawn over it by the mesh pipelines.
//!
//! Why: on GPUs whose graphics units are a small part of the chip (NVIDIA's H100 and H200
//! run fragment shaders on a few of their 132 units), shading in the fragment stage took most
//! of the main pass; the compute resolve runs on all of them. Every pixel is also shaded once,
//! where the rasterizer shades 2x2 quads: small far triangles cost no more than they show.

use std::collections::BTreeMap;

use super::compute_raster::{ComputeRaster, RasterShares};
use super::gpu::Gpu;
use super::mesh_store::{GpuPrimitive, Surface};
use super::pipelines::{DEPTH_FORMAT, Layouts};
use super::shaders;
use super::shading::Shading;

/// Pixels on a side of a tile (the workgroups of `classify.wgsl` and the resolve).
pub const TILE: u32 = 8;
/// Lists the classify pass tells apart (its workgroup's bit set in `classify.wgsl`).
pub const MAX_LISTS: u32 = 256;
/// Tiles one list can hold: an indirect dispatch's x is at most this (1440p has 57,600).
const MAX_TILES: u32 = 65_535;
/// Each pixel's object and triangle.
const ID_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rg32Uint;
/// The resolve's image: display light, sRGB-encoded by the resolve itself (storage images
/// cannot be sRGB), copied into the sRGB target.
const SHADED_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// The list the resolve shades a primitive's pixels with at level `lod`: its material, at the
/// shading needs of that level (far levels leave out normal maps).
#[must_use]
pub fn list_of(p: &GpuPrimitive, lod: u8, far_lod: u8) -> u32 {
    p.material * 2 + u32::from(p.shading.at_lod(lod, far_lod) != p.shading)
}

/// How many lists a store of `materials` materials needs: two per material and the sky's.
#[must_use]
pub fn list_count(materials: usize) -> u32 {
    u32::try_from(materials * 2 + 1).unwrap_or(u32::MAX)
}

/// Whether a `width` x `height` target with `lists` lists can be drawn by visibility.
#[must_use]
pub fn fits(width: u32, height: u32, lists: u32) -> bool {
    width.div_ceil(TILE) * height.div_ceil(TILE) <= MAX_TILES && lists <= MAX_LISTS
}

/// The pipelines and bind group layouts of the visibility path.
#[derive(Debug)]
pub struct Visibility {
    tiles_layout: wgpu::BindGroupLayout,
    classify_layout: wgpu::BindGroupLayout,
    pub opaque: wgpu::RenderPipeline,
    pub masked: wgpu::RenderPipeline,
    classify: wgpu::ComputePipeline,
    resolve_module: wgpu::ShaderModule,
    resolve_layout: wgpu::PipelineLayout,
    resolve: BTreeMap<Shading, wgpu::ComputePipeline>,
    sky: wgpu::ComputePipeline,
    object_draws: wgpu::Buffer,
    screen: Option<Screen>,
    /// The far objects' compute raster, where the device has it and it is on.
    pub raster: Option<ComputeRaster>,
}

/// Storage buffers the resolve binds in one stage: six of group 0, three of group 3.
const RESOLVE_STORAGE_BUFFERS: u32 = 9;

/// What one target size and list count needs.
#[derive(Debug)]
struct Screen {
    width: u32,
    height: u32,
    lists: u32,
    /// u32s per list in `tiles`.
    stride: u32,
    ids: wgpu::TextureView,
    depth: wgpu::TextureView,
    shaded: wgpu::Texture,
    shaded_view: wgpu::TextureView,
    tiles: wgpu::Buffer,
    dispatches: wgpu::Buffer,
    /// Each list's dispatch before the classify pass counts its tiles: (0, 1, 1).
    dispatch_reset: Vec<u8>,
    layout: wgpu::Buffer,
}

/// The bind groups of one frame.
#[derive(Debug)]
pub struct Groups {
    pub classify: wgpu::BindGroup,
    pub tiles: wgpu::BindGroup,
}

fn entry(binding: u32, ty: wgpu::BindingType) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty,
        count: None,
    }
}

fn storage(read_only: bool, dynamic: bool) -> wgpu::BindingType {
    wgpu::BindingType::Buffer {
        ty: wgpu::BufferBindingType::Storage { read_only },
        has_dynamic_offset: dynamic,
        min_binding_size: None,
    }
}

fn ids_texture() -> wgpu::BindingType {
    wgpu::BindingType::Texture {
        sample_type: wgpu::TextureSampleType::Uint,
        view_dimension: wgpu::TextureViewDimension::D2,
        multisampled: false,
    }
}

/// The visibility pass's depth (a depth texture) or its merge with the compute raster's (an
/// R32Float one), read as floats.
fn depth_texture() -> wgpu::BindingType {
    wgpu::BindingType::Texture {
        sample_type: wgpu::TextureSampleType::Float { filterable: false },
        view_dimension: wgpu::TextureViewDimension::D2,
        multisampled: false,
    }
}

fn object_draws_buffer(device: &wgpu::Device, objects: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("object draws"),
        size: (objects.max(32).next_power_of_two()) * 8,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

impl Visibility {
    /// The visibility path, where the device writes primitive indices and binds the buffers
    /// the resolve reads (else `None`: the mesh passes shade alone). (Drawn without an index
    /// buffer instead, each corner reading its index and the triangle its number over three,
    /// the pass took half as long again on an H100: three times the vertex shading on its few
    /// graphics units.)
    #[must_use]
    pub fn new(
        device: &wgpu::Device,
        layouts: &Layouts,
        color_format: wgpu::TextureFormat,
    ) -> Option<Self> {
        if !device.features().contains(wgpu::Features::PRIMITIVE_INDEX)
            || device.limits().max_storage_buffers_per_shader_stage < RESOLVE_STORAGE_BUFFERS
        {
            return None;
        }
        let tiles_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("resolve tiles"),
            entries: &[
                entry(0, ids_texture()),
                entry(1, depth_texture()),
                entry(2, storage(true, true)),
                entry(
                    3,
                    wgpu::BindingType::StorageTexture {
                        access: wgpu::StorageTextureAccess::WriteOnly,
                        format: SHADED_FORMAT,
                        view_dimension: wgpu::TextureViewDimension::D2,
                    },
                ),
                entry(4, storage(true, false)),
                entry(5, storage(true, false)),
            ],
        });
        let classify_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("classify"),
            entries: &[
                entry(0, ids_texture()),
                entry(1, depth_texture()),
                entry(2, storage(true, false)),
                entry(3, storage(false, false)),
                entry(4, storage(false, false)),
                entry(
                    5,
                    wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                ),
            ],
        });
        let module = |label: &str, source: String| {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            })
        };
        let raster = module("visibility", shaders::visibility());
        let raster_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("visibility"),
            bind_group_layouts: &[Some(&layouts.frame), Some(&layouts.material.layout)],
            immediate_size: 0,
        });
        let raster_pipeline = |masked: bool| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(if masked {
                    "visibility masked"
                } else {
                    "visibility opaque"
                }),
                layout: Some(&raster_layout),
                vertex: wgpu::VertexState {
                    module: &raster,
                    entry_point: Some(if masked {
                        "vs_visibility_masked"
                    } else {
                        "vs_visibility"
                    }),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    buffers: &[],
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    cull_mode: None,
                    ..wgpu::PrimitiveState::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: wgpu::StencilState::default(),
                    bias: wgpu::DepthBiasState::default(),
                }),
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &raster,
                    entry_point: Some(if masked {
                        "fs_visibility_masked"
                    } else {
                        "fs_visibility"
                    }),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    targets: &[Some(ID_FORMAT.into())],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let compute = |label: &str,
                       layout: &wgpu::PipelineLayout,
                       module: &wgpu::ShaderModule,
                       entry: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: Some(layout),
                module,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                cache: None,
            })
        };
        let classify_pipeline_layout =
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("classify"),
                bind_group_layouts: &[Some(&classify_layout)],
                immediate_size: 0,
            });
        let classify = compute(
            "classify",
            &classify_pipeline_layout,
            &module("classify", shaders::classify()),
            "cs_classify",
        );
        let resolve_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("resolve"),
            bind_group_layouts: &[
                Some(&layouts.frame),
                Some(&layouts.material.layout),
                Some(&layouts.light),
                Some(&tiles_layout),
            ],
            immediate_size: 0,
        });
        let sky_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("resolve sky"),
            bind_group_layouts: &[
                Some(&layouts.frame),
                Some(&layouts.sky),
                None,
                Some(&tiles_layout),
            ],
            immediate_size: 0,
        });
        let sky = compute(
            "resolve sky",
            &sky_layout,
            &module("sky", shaders::sky()),
            "cs_sky",
        );
        Some(Self {
            opaque: raster_pipeline(false),
            masked: raster_pipeline(true),
            tiles_layout,
            classify_layout,
            classify,
            resolve_module: module("resolve", shaders::resolve()),
            resolve_layout,
            resolve: BTreeMap::new(),
            sky,
            object_draws: object_draws_buffer(device, 0),
            screen: None,
            raster: compute_raster_from_env()
                .then(|| {
                    ComputeRaster::new(device, layouts, color_format, RasterShares::from_env())
                })
                .flatten(),
        })
    }

    /// Rasterizes far objects in compute where the device can (`on`), or draws them all with
    /// the rasterizer.
    pub fn set_compute_raster(
        &mut self,
        device: &wgpu::Device,
        layouts: &Layouts,
        color_format: wgpu::TextureFormat,
        on: bool,
    ) {
        if !on {
            self.raster = None;
        } else if self.raster.is_none() {
            self.raster =
                ComputeRaster::new(device, layouts, color_format, RasterShares::from_env());
        }
    }

    /// Makes the compute raster anew (where the device can) sharing triangles' pixels out as
    /// `shares` says.
    pub fn set_raster_shares(
        &mut self,
        device: &wgpu::Device,
        layouts: &Layouts,
        color_format: wgpu::TextureFormat,
        shares: RasterShares,
    ) {
        self.raster = ComputeRaster::new(device, layouts, color_format, shares);
    }

    /// The raster pipeline of `surface` (opaque or masked) for the visibility pass.
    #[must_use]
    pub fn raster_for(&self, surface: Surface) -> &wgpu::RenderPipeline {
        if surface == Surface::Opaque {
            &self.opaque
        } else {
            &self.masked
        }
    }

    /// Makes the resolve pipeline for `shading` if there is none yet.
    pub fn prepare_shading(&mut self, device: &wgpu::Device, shading: Shading) {
        if self.resolve.contains_key(&shading) {
            return;
        }
        let constants = shading.constants();
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(&format!("resolve {shading:?}")),
            layout: Some(&self.resolve_layout),
            module: &self.resolve_module,
            entry_point: Some("cs_resolve"),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: &constants,
                ..wgpu::PipelineCompilationOptions::default()
            },
            cache: None,
        });
        self.resolve.insert(shading, pipeline);
    }

    /// The resolve pipeline for `shading` (made by [`Self::prepare_shading`]).
    #[must_use]
    pub fn resolve_for(&self, shading: Shading) -> Option<&wgpu::ComputePipeline> {
        self.resolve.get(&shading)
    }

    /// The sky's resolve pipeline.
    #[must_use]
    pub fn sky(&self) -> &wgpu::ComputePipeline {
        &self.sky
    }

    /// The classify pass's pipeline.
    #[must_use]
    pub fn classify(&self) -> &wgpu::ComputePipeline {
        &self.classify
    }

    /// Sizes the targets for `width` x `height` and `lists` lists, uploads each object's
    /// (first index, list) and resets the dispatches; returns the frame's bind groups, which
    /// read the compute raster's merged depth if `merged` (else the visibility pass's).
    pub fn prepare(
        &mut self,
        gpu: &Gpu,
        (width, height): (u32, u32),
        lists: u32,
        object_draws: &[[u32; 2]],
        indices: &wgpu::Buffer,
        merged: bool,
    ) -> Groups {
        let device = &gpu.device;
        if self
            .screen
            .as_ref()
            .is_none_or(|s| (s.width, s.height, s.lists) != (width, height, lists))
        {
            self.screen = Some(Screen::new(device, width, height, lists));
        }
        let bytes: &[u8] = bytemuck::cast_slice(object_draws);
        if bytes.len() as u64 > self.object_draws.size() {
            self.object_draws = object_draws_buffer(device, object_draws.len() as u64);
        }
        if !bytes.is_empty() {
            gpu.queue.write_buffer(&self.object_draws, 0, bytes);
        }
        let Some(screen) = &self.screen else {
            unreachable!("made above")
        };
        gpu.queue
            .write_buffer(&screen.dispatches, 0, &screen.dispatch_reset);
        let texture = wgpu::BindingResource::TextureView;
        let depth = match self.raster.as_ref().and_then(ComputeRaster::merged_depth) {
            Some(view) if merged => view,
            _ => &screen.depth,
        };
        let classify = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("classify"),
            layout: &self.classify_layout,
            entries: &[
                bind(0, texture(&screen.ids)),
                bind(1, texture(depth)),
                bind(2, self.object_draws.as_entire_binding()),
                bind(3, screen.tiles.as_entire_binding()),
                bind(4, screen.dispatches.as_entire_binding()),
                bind(5, screen.layout.as_entire_binding()),
            ],
        });
        let tiles = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("resolve tiles"),
            layout: &self.tiles_layout,
            entries: &[
                bind(0, texture(&screen.ids)),
                bind(1, texture(depth)),
                bind(
                    2,
                    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &screen.tiles,
                        offset: 0,
                        size: wgpu::BufferSize::new(u64::from(screen.stride) * 4),
                    }),
                ),
                bind(3, texture(&screen.shaded_view)),
                bind(4, indices.as_entire_binding()),
                bind(5, self.object_draws.as_entire_binding()),
            ],
        });
        Groups { classify, tiles }
    }

    /// The ids and depth the visibility pass draws into (after [`Self::prepare`]).
    #[must_use]
    pub fn attachments(&self) -> Option<(&wgpu::TextureView, &wgpu::TextureView)> {
        self.screen.as_ref().map(|s| (&s.ids, &s.depth))
    }

    /// Byte offset of list `list` in the tiles buffer (group 3's dynamic offset).
    #[must_use]
    pub fn list_offset(&self, list: u32) -> u32 {
        self.screen.as_ref().map_or(0, |s| list * s.stride * 4)
    }

    /// Byte offset of list `list`'s indirect dispatch.
    #[must_use]
    pub fn dispatch_offset(list: u32) -> u64 {
        u64::from(list) * 12
    }

    /// The indirect dispatches (after [`Self::prepare`]).
    #[must_use]
    pub fn dispatches(&self) -> Option<&wgpu::Buffer> {
        self.screen.as_ref().map(|s| &s.dispatches)
    }

    /// Tiles across and down the screen.
    #[must_use]
    pub fn tiles(&self) -> (u32, u32) {
        self.screen.as_ref().map_or((0, 0), |s| {
            (s.width.div_ceil(TILE), s.height.div_ceil(TILE))
        })
    }

    /// Records the copy of the resolved image into `target` (an sRGB or linear RGBA8 texture
    /// of the same size).
    pub fn copy_to(&self, encoder: &mut wgpu::CommandEncoder, target: &wgpu::Texture) {
        if let Some(s) = &self.screen {
            encoder.copy_texture_to_texture(
                s.shaded.as_image_copy(),
                target.as_image_copy(),
                wgpu::Extent3d {
                    width: s.width,
                    height: s.height,
                    depth_or_array_layers: 1,
                },
            );
        }
    }
}

fn bind(binding: u32, resource: wgpu::BindingResource<'_>) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry { binding, resource }
}

impl Screen {
    fn new(device: &wgpu::Device, width: u32, height: u32, lists: u32) -> Self {
        let texture = |label: &str, format, usage| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let read = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING;
        let view = |t: &wgpu::Texture| t.create_view(&wgpu::TextureViewDescriptor::default());
        // The compute raster's merge writes the far objects' ids.
        let ids = view(&texture(
            "visibility ids",
            ID_FORMAT,
            read | wgpu::TextureUsages::STORAGE_BINDING,
        ));
        let depth = view(&texture("visibility depth", DEPTH_FORMAT, read));
        let shaded = texture(
            "resolved",
            SHADED_FORMAT,
            wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_SRC,
        );
        let shaded_view = view(&shaded);
        let across = width.div_ceil(TILE);
        let count = across * height.div_ceil(TILE);
        // Lists start at the device's storage offset alignment.
        let align = (device.limits().min_storage_buffer_offset_alignment / 4).max(1);
        let stride = (count + 1).div_ceil(align) * align;
        let mut words = vec![0u32; (stride * lists) as usize];
        for list in 0..lists {
            words[(list * stride) as usize] = list;
        }
        let tiles = wgpu::util::DeviceExt::create_buffer_init(
            device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("resolve tiles"),
                contents: bytemuck::cast_slice(&words),
                usage: wgpu::BufferUsages::STORAGE,
            },
        );
        let reset: Vec<u32> = (0..lists).flat_map(|_| [0, 1, 1]).collect();
        let dispatches = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("resolve dispatches"),
            size: u64::from(lists) * 12,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let layout = wgpu::util::DeviceExt::create_buffer_init(
            device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("classify lists"),
                contents: bytemuck::cast_slice(&[stride, lists - 1, across, 0]),
                usage: wgpu::BufferUsages::UNIFORM,
            },
        );
        Self {
            width,
            height,
            lists,
            stride,
            ids,
            depth,
            shaded,
            shaded_view,
            tiles,
            dispatches,
            dispatch_reset: bytemuck::cast_slice(&reset).to_vec(),
            layout,
        }
    }
}

/// Whether the visibility pass's far objects are rasterized in compute where the device can:
/// unless `NPC_COMPUTE_RASTER=off` (for comparing the two). On an H100, VALID's 1000 NPCs took
/// 1.90 ms of GPU a frame with it against 4.00 ms without (docs/performance.md).
fn compute_raster_from_env() -> bool {
    std::env::var("NPC_COMPUTE_RASTER").as_deref() != Ok("off")
}
