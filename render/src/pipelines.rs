//! The long-lived GPU state: bind group layouts and the three render pipelines (main, shadow,
//! sky) for one colour format.

use std::collections::BTreeMap;

use super::materials::{FRAGMENT_TEXTURES, MaterialLayout};
use super::mesh_store::Surface;
use super::shaders;
use super::shading::Shading;
use super::shadow_map::SHADOW_FORMAT;

/// Depth format of the main pass.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

fn storage(
    binding: u32,
    visibility: wgpu::ShaderStages,
    read_only: bool,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn uniform(binding: u32, visibility: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// Group 0 as the render passes see it (`with_deformed`: binding 6, the deform pass's output)
/// or as compute passes do (without it, since they write it).
fn frame_layout(
    device: &wgpu::Device,
    stages: wgpu::ShaderStages,
    with_deformed: bool,
) -> wgpu::BindGroupLayout {
    let mut entries = vec![uniform(0, stages | wgpu::ShaderStages::FRAGMENT)];
    entries.extend((1..=5).map(|b| storage(b, stages, true)));
    if with_deformed {
        entries.push(storage(6, stages, true));
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(if with_deformed {
            "frame"
        } else {
            "frame (compute)"
        }),
        entries: &entries,
    })
}

/// Where the light and the sky are read: the fragment stage or the compute resolve.
const SHADING_STAGES: wgpu::ShaderStages =
    wgpu::ShaderStages::FRAGMENT.union(wgpu::ShaderStages::COMPUTE);

fn texture(
    binding: u32,
    view_dimension: wgpu::TextureViewDimension,
    depth: bool,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: SHADING_STAGES,
        ty: wgpu::BindingType::Texture {
            sample_type: if depth {
                wgpu::TextureSampleType::Depth
            } else {
                wgpu::TextureSampleType::Float { filterable: true }
            },
            view_dimension,
            multisampled: false,
        },
        count: None,
    }
}

/// The textures the light group binds: the shadow map, the sky's two cubemaps, the split-sum
/// table.
const LIGHT_TEXTURES: u32 = 4;

/// The sampled textures the main pass's fragment stage binds: its material's and the light's.
/// More than WebGPU's minimum (16): a device is asked for its adapter's own limits.
pub const MAIN_PASS_TEXTURES: u32 = FRAGMENT_TEXTURES + LIGHT_TEXTURES;

/// The bind group layouts.
#[derive(Debug)]
pub struct Layouts {
    /// Group 0 of the render passes: globals, vertices, deltas, objects, morphs, palette and
    /// the deformed vertices.
    pub frame: wgpu::BindGroupLayout,
    /// Group 0 of compute passes: the same without the deformed vertices.
    pub frame_compute: wgpu::BindGroupLayout,
    /// Group 1 of the deform pass: chunks, deformed vertices (written), chunk count.
    pub deform: wgpu::BindGroupLayout,
    /// Group 1 of the mesh passes.
    pub material: MaterialLayout,
    /// Group 2 of the main pass, the scene's light: the shadow map and its comparison
    /// sampler, the sky's diffuse light, its prefiltered specular cubemap, the split-sum table,
    /// their sampler and the diffuse light straight up.
    pub light: wgpu::BindGroupLayout,
    /// Group 1 of the sky pass: three cubemaps and a sampler.
    pub sky: wgpu::BindGroupLayout,
}

impl Layouts {
    #[must_use]
    pub fn new(device: &wgpu::Device, anisotropy: u16) -> Self {
        // Read by the compute resolve too (the deform pass has its own: it writes binding 6).
        let frame = frame_layout(
            device,
            wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::COMPUTE,
            true,
        );
        let frame_compute = frame_layout(device, wgpu::ShaderStages::COMPUTE, false);
        let deform = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("deform pass"),
            entries: &[
                storage(0, wgpu::ShaderStages::COMPUTE, true),
                storage(1, wgpu::ShaderStages::COMPUTE, false),
                uniform(2, wgpu::ShaderStages::COMPUTE),
            ],
        });
        let light = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("light"),
            entries: &[
                texture(0, wgpu::TextureViewDimension::D2, true),
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: SHADING_STAGES,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
                    count: None,
                },
                texture(2, wgpu::TextureViewDimension::Cube, false),
                texture(3, wgpu::TextureViewDimension::Cube, false),
                texture(4, wgpu::TextureViewDimension::D2, false),
                wgpu::BindGroupLayoutEntry {
                    binding: 5,
                    visibility: SHADING_STAGES,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
                uniform(6, SHADING_STAGES),
            ],
        });
        let sky = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("sky"),
            entries: &[
                texture(0, wgpu::TextureViewDimension::Cube, false),
                texture(1, wgpu::TextureViewDimension::Cube, false),
                texture(2, wgpu::TextureViewDimension::Cube, false),
                wgpu::BindGroupLayoutEntry {
                    binding: 3,
                    visibility: SHADING_STAGES,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        Self {
            frame,
            frame_compute,
            deform,
            material: MaterialLayout::new(device, anisotropy),
            light,
            sky,
        }
    }
}

/// Which surfaces the main pass lays down depth for before it shades them: with their depth
/// in place first, each pixel of them is shaded once (the depth test `Equal`, the shading
/// without discard, so the test runs before it), where an alpha-masked surface's discard
/// otherwise keeps the depth test after the shading and every hidden layer is shaded too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepthPrepass {
    Off,
    Masked,
    All,
}

impl DepthPrepass {
    /// Whether `surface` has its depth laid down first.
    #[must_use]
    pub fn covers(self, surface: Surface) -> bool {
        match self {
            Self::Off => false,
            Self::Masked => surface == Surface::Masked,
            Self::All => surface != Surface::Blended,
        }
    }

    /// The setting `NPC_DEPTH_PREPASS` names (`off`, `masked`, `all`); masked by default.
    #[must_use]
    pub fn from_env() -> Self {
        match std::env::var("NPC_DEPTH_PREPASS").as_deref() {
            Ok("off") => Self::Off,
            Ok("all") => Self::All,
            _ => Self::Masked,
        }
    }
}

/// The render pipelines.
#[derive(Debug)]
pub struct Pipelines {
    pub deform: wgpu::ComputePipeline,
    /// The main pass's pipelines for every material ([`Shading::FULL`]).
    pub main: MeshPipelines,
    /// The main pass's pipelines made for one material's needs, by surface and needs.
    pub specialized: BTreeMap<(Surface, Shading), wgpu::RenderPipeline>,
    /// What making a specialized main pipeline takes.
    maker: MainMaker,
    pub shadow: MeshPipelines,
    /// The main pass's depth-only pipelines for the surfaces [`Self::prepass`] covers.
    pub depth: MeshPipelines,
    pub prepass: DepthPrepass,
    /// The main pass's MToon outlines: opaque surfaces' (no discard, so the depth test
    /// rejects the hidden inside of the grown surface before shading) and masked ones'.
    pub outline: MeshPipelines,
    pub sky: wgpu::RenderPipeline,
    pub color_format: wgpu::TextureFormat,
    pub samples: u32,
}

/// A pass's pipelines for opaque surfaces (early depth test), alpha-masked ones (discard) and
/// blended ones (the main pass only; the shadow pass draws them as masks).
#[derive(Debug)]
pub struct MeshPipelines {
    pub opaque: wgpu::RenderPipeline,
    pub masked: wgpu::RenderPipeline,
    pub blended: Option<wgpu::RenderPipeline>,
}

impl MeshPipelines {
    #[must_use]
    pub fn for_surface(&self, surface: Surface) -> &wgpu::RenderPipeline {
        match surface {
            Surface::Opaque => &self.opaque,
            Surface::Masked => &self.masked,
            Surface::Blended => self.blended.as_ref().unwrap_or(&self.masked),
        }
    }
}

/// What a main-pass pipeline is made from, kept to make ones for new needs.
#[derive(Debug)]
struct MainMaker {
    module: wgpu::ShaderModule,
    layout: wgpu::PipelineLayout,
    color_format: wgpu::TextureFormat,
    samples: u32,
    prepass: DepthPrepass,
}

impl MainMaker {
    /// The main-pass pipeline drawing `surface` with the shader's parts `shading` needs
    /// (`constants`: its override constants; none for every part).
    fn make(
        &self,
        device: &wgpu::Device,
        label: &str,
        surface: Surface,
        constants: &[(&str, f64)],
    ) -> wgpu::RenderPipeline {
        let blended = surface == Surface::Blended;
        let prepassed = self.prepass.covers(surface);
        let color = [Some(wgpu::ColorTargetState {
            format: self.color_format,
            blend: blended.then_some(wgpu::BlendState::ALPHA_BLENDING),
            write_mask: wgpu::ColorWrites::ALL,
        })];
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(label),
            layout: Some(&self.layout),
            vertex: wgpu::VertexState {
                module: &self.module,
                entry_point: Some("vs_main"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                buffers: &[],
            },
            primitive: mesh_primitive(),
            // See-through surfaces test depth but do not hide what is drawn after them; a
            // surface whose depth is already laid down is shaded where it is the nearest.
            depth_stencil: Some(if prepassed {
                wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(false),
                    depth_compare: Some(wgpu::CompareFunction::Equal),
                    stencil: wgpu::StencilState::default(),
                    bias: wgpu::DepthBiasState::default(),
                }
            } else {
                depth_test(DEPTH_FORMAT, wgpu::DepthBiasState::default(), !blended)
            }),
            multisample: wgpu::MultisampleState {
                count: self.samples,
                ..wgpu::MultisampleState::default()
            },
            fragment: Some(wgpu::FragmentState {
                module: &self.module,
                entry_point: Some(match surface {
                    Surface::Opaque => "fs_main",
                    // Its holes are already in the depth: no discard, so the test comes first.
                    Surface::Masked if prepassed => "fs_main",
                    Surface::Masked => "fs_masked",
                    Surface::Blended => "fs_blended",
                }),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants,
                    ..wgpu::PipelineCompilationOptions::default()
                },
                targets: &color,
            }),
            multiview_mask: None,
            cache: None,
        })
    }
}

impl MainMaker {
    /// The main pass's pipelines for every material.
    fn make_main(&self, device: &wgpu::Device) -> MeshPipelines {
        MeshPipelines {
            opaque: self.make(device, "main opaque", Surface::Opaque, &[]),
            masked: self.make(device, "main masked", Surface::Masked, &[]),
            blended: Some(self.make(device, "main blended", Surface::Blended, &[])),
        }
    }

    /// The main pass's depth-only pipeline for `surface`: no colour written, the holes of
    /// masked surfaces cut as the shadow pass cuts them.
    fn make_depth(&self, device: &wgpu::Device, surface: Surface) -> wgpu::RenderPipeline {
        let masked = surface != Surface::Opaque;
        let color = [Some(wgpu::ColorTargetState {
            format: self.color_format,
            blend: None,
            write_mask: wgpu::ColorWrites::empty(),
        })];
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(if masked {
                "depth masked"
            } else {
                "depth opaque"
            }),
            layout: Some(&self.layout),
            vertex: wgpu::VertexState {
                module: &self.module,
                entry_point: Some("vs_main"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                buffers: &[],
            },
            primitive: mesh_primitive(),
            depth_stencil: Some(depth_test(
                DEPTH_FORMAT,
                wgpu::DepthBiasState::default(),
                true,
            )),
            multisample: wgpu::MultisampleState {
                count: self.samples,
                ..wgpu::MultisampleState::default()
            },
            fragment: Some(wgpu::FragmentState {
                module: &self.module,
                entry_point: Some(if masked {
                    "fs_depth_masked"
                } else {
                    "fs_depth"
                }),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                targets: &color,
            }),
            multiview_mask: None,
            cache: None,
        })
    }

    /// The outline pipeline: the grown surface's inside faces only (glTF's front faces wind
    /// counter-clockwise), pushed back one depth step and its slope so it never covers the
    /// surface it grows from.
    fn make_outline(&self, device: &wgpu::Device, surface: Surface) -> wgpu::RenderPipeline {
        let masked = surface != Surface::Opaque;
        // Shaded as a toon material with none of the other parts: the band's light is the
        // surface's toon light (its normal map, metal and such make no visible difference).
        let toon = Shading {
            toon: true,
            ..Shading::MIN
        }
        .constants();
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(if masked {
                "main outline masked"
            } else {
                "main outline opaque"
            }),
            layout: Some(&self.layout),
            vertex: wgpu::VertexState {
                module: &self.module,
                entry_point: Some("vs_outline"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::TriangleList,
                cull_mode: Some(wgpu::Face::Front),
                ..wgpu::PrimitiveState::default()
            },
            depth_stencil: Some(depth_test(
                DEPTH_FORMAT,
                wgpu::DepthBiasState {
                    constant: 1,
                    slope_scale: 1.0,
                    clamp: 0.0,
                },
                true,
            )),
            multisample: wgpu::MultisampleState {
                count: self.samples,
                ..wgpu::MultisampleState::default()
            },
            fragment: Some(wgpu::FragmentState {
                module: &self.module,
                entry_point: Some(if masked {
                    "fs_outline_masked"
                } else {
                    "fs_outline"
                }),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &toon,
                    ..wgpu::PipelineCompilationOptions::default()
                },
                targets: &[Some(self.color_format.into())],
            }),
            multiview_mask: None,
            cache: None,
        })
    }
}

/// Triangles, either winding drawn: double-sided foliage and heads of either winding.
fn mesh_primitive() -> wgpu::PrimitiveState {
    wgpu::PrimitiveState {
        topology: wgpu::PrimitiveTopology::TriangleList,
        cull_mode: None,
        ..wgpu::PrimitiveState::default()
    }
}

fn depth_test(
    format: wgpu::TextureFormat,
    bias: wgpu::DepthBiasState,
    write: bool,
) -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        format,
        depth_write_enabled: Some(write),
        depth_compare: Some(wgpu::CompareFunction::Less),
        stencil: wgpu::StencilState::default(),
        bias,
    }
}

fn module(device: &wgpu::Device, label: &str, source: String) -> wgpu::ShaderModule {
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    })
}

impl Pipelines {
    /// Pipelines drawing into `color_format` with `samples` samples per pixel.
    #[must_use]
    pub fn new(
        device: &wgpu::Device,
        layouts: &Layouts,
        color_format: wgpu::TextureFormat,
        samples: u32,
    ) -> Self {
        let mesh = module(device, "mesh", shaders::mesh());
        let deform_module = module(device, "deform pass", shaders::deform_pass());
        let deform_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("deform pass"),
            bind_group_layouts: &[Some(&layouts.frame_compute), Some(&layouts.deform)],
            immediate_size: 0,
        });
        let deform = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("deform pass"),
            layout: Some(&deform_layout),
            module: &deform_module,
            entry_point: Some("cs_deform_pass"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            cache: None,
        });
        let sky = module(device, "sky", shaders::sky());
        let main_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("main"),
            bind_group_layouts: &[
                Some(&layouts.frame),
                Some(&layouts.material.layout),
                Some(&layouts.light),
            ],
            immediate_size: 0,
        });
        let shadow_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("shadow"),
            bind_group_layouts: &[Some(&layouts.frame), Some(&layouts.material.layout)],
            immediate_size: 0,
        });
        let sky_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("sky"),
            bind_group_layouts: &[Some(&layouts.frame), Some(&layouts.sky)],
            immediate_size: 0,
        });
        let multisample = wgpu::MultisampleState {
            count: samples,
            ..wgpu::MultisampleState::default()
        };
        let shadow_pipeline = |label: &str, fragment: Option<&str>| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&shadow_layout),
                vertex: wgpu::VertexState {
                    module: &mesh,
                    entry_point: Some("vs_shadow"),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    buffers: &[],
                },
                primitive: mesh_primitive(),
                depth_stencil: Some(depth_test(
                    SHADOW_FORMAT,
                    wgpu::DepthBiasState {
                        constant: 2,
                        slope_scale: 2.0,
                        clamp: 0.0,
                    },
                    true,
                )),
                multisample: wgpu::MultisampleState::default(),
                fragment: fragment.map(|entry| wgpu::FragmentState {
                    module: &mesh,
                    entry_point: Some(entry),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    targets: &[],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let shadow = MeshPipelines {
            // Depth only: no fragment stage at all.
            opaque: shadow_pipeline("shadow opaque", None),
            masked: shadow_pipeline("shadow masked", Some("fs_shadow_masked")),
            blended: None,
        };
        let maker = MainMaker {
            module: mesh,
            layout: main_layout,
            color_format,
            samples,
            prepass: DepthPrepass::from_env(),
        };
        let depth = MeshPipelines {
            opaque: maker.make_depth(device, Surface::Opaque),
            masked: maker.make_depth(device, Surface::Masked),
            blended: None,
        };
        let outline = MeshPipelines {
            opaque: maker.make_outline(device, Surface::Opaque),
            masked: maker.make_outline(device, Surface::Masked),
            blended: None,
        };
        let main = maker.make_main(device);
        let sky = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("sky"),
            layout: Some(&sky_layout),
            vertex: wgpu::VertexState {
                module: &sky,
                entry_point: Some("vs_sky"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(false),
                depth_compare: Some(wgpu::CompareFunction::LessEqual),
                stencil: wgpu::StencilState::default(),
                bias: wgpu::DepthBiasState::default(),
            }),
            multisample,
            fragment: Some(wgpu::FragmentState {
                module: &sky,
                entry_point: Some("fs_sky"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                targets: &[Some(color_format.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        Self {
            deform,
            main,
            specialized: BTreeMap::new(),
            prepass: maker.prepass,
            maker,
            shadow,
            depth,
            outline,
            sky,
            color_format,
            samples,
        }
    }

    /// Makes a main-pass pipeline for each (surface, needs) in `keys` that has none yet.
    pub fn specialize(
        &mut self,
        device: &wgpu::Device,
        keys: impl IntoIterator<Item = (Surface, Shading)>,
    ) {
        for key in keys {
            if key.1 == Shading::FULL || self.specialized.contains_key(&key) {
                continue;
            }
            let label = format!("main {:?} {:?}", key.0, key.1);
            let pipeline = self.maker.make(device, &label, key.0, &key.1.constants());
            self.specialized.insert(key, pipeline);
        }
    }

    /// Rebuilds the main pass's pipelines to shade after `prepass` (the same needs as before).
    pub fn set_prepass(&mut self, device: &wgpu::Device, prepass: DepthPrepass) {
        if prepass == self.prepass {
            return;
        }
        self.prepass = prepass;
        self.maker.prepass = prepass;
        self.main = self.maker.make_main(device);
        let keys: Vec<_> = std::mem::take(&mut self.specialized).into_keys().collect();
        self.specialize(device, keys);
    }

    /// The main-pass pipeline for `surface` and the needs `shading`: its own where one was
    /// made, else the one for every material.
    #[must_use]
    pub fn main_for(&self, surface: Surface, shading: Shading) -> &wgpu::RenderPipeline {
        self.specialized
            .get(&(surface, shading))
            .unwrap_or_else(|| self.main.for_surface(surface))
    }
}
