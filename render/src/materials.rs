//! Material bind groups: the material's uniform, its textures by slot (glTF's five, the
//! specular and clear coat extensions', MToon's; colour ones sRGB, data linear, each with
//! mipmaps; a neutral texel where it has none) and a repeating trilinear, anisotropic sampler.

use npc_core::asset::material::{Material, Role, Surface, Texture, TextureRef, UvTransform};
use npc_core::asset::toon::OutlineWidth;
use wgpu::util::DeviceExt;

use super::gpu::Gpu;
use super::gpu_types::GpuMaterial;
use super::mip_chain::mip_chain;

/// A material's texture slots, in binding order after the uniform: glTF's five, then
/// `KHR_materials_specular`'s and `KHR_materials_clearcoat`'s, then MToon's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    BaseColor,
    MetallicRoughness,
    Normal,
    Occlusion,
    Emissive,
    Specular,
    SpecularColor,
    Clearcoat,
    ClearcoatRoughness,
    ClearcoatNormal,
    ToonShade,
    ToonShift,
    Matcap,
    Rim,
    OutlineWidth,
}

/// How many texture slots a material has.
pub const SLOTS: usize = 15;

/// The textures a material binds for fragments: all but the outline's width, read by vertices.
pub const FRAGMENT_TEXTURES: u32 = SLOTS as u32 - 1;

impl Slot {
    pub const ALL: [Self; SLOTS] = [
        Self::BaseColor,
        Self::MetallicRoughness,
        Self::Normal,
        Self::Occlusion,
        Self::Emissive,
        Self::Specular,
        Self::SpecularColor,
        Self::Clearcoat,
        Self::ClearcoatRoughness,
        Self::ClearcoatNormal,
        Self::ToonShade,
        Self::ToonShift,
        Self::Matcap,
        Self::Rim,
        Self::OutlineWidth,
    ];

    /// Whether the slot holds colour (sRGB) rather than data.
    #[must_use]
    pub fn srgb(self) -> bool {
        matches!(
            self,
            Self::BaseColor
                | Self::Emissive
                | Self::SpecularColor
                | Self::ToonShade
                | Self::Matcap
                | Self::Rim
        )
    }

    /// Its binding in group 1 (0 is the uniform, the sampler comes last).
    fn binding(self) -> u32 {
        self as u32 + 1
    }

    /// The stages that read it: the outline's width is read where its vertices are grown,
    /// the others where surfaces are shaded (the fragment stage or the compute resolve).
    fn visibility(self) -> wgpu::ShaderStages {
        if self == Self::OutlineWidth {
            wgpu::ShaderStages::VERTEX
        } else {
            wgpu::ShaderStages::FRAGMENT | wgpu::ShaderStages::COMPUTE
        }
    }

    /// The texel that changes nothing where a material has no texture: white multiplies the
    /// factors, the normal points straight out.
    fn neutral(self) -> [u8; 4] {
        match self {
            Self::Normal | Self::ClearcoatNormal => [128, 128, 255, 255],
            _ => [255; 4],
        }
    }

    /// Which texture `material` puts in this slot.
    #[must_use]
    pub fn of(self, material: &Material) -> Option<TextureRef> {
        let s = &material.surface;
        let coat = material.clearcoat();
        let coat = coat.as_ref();
        let toon = material.toon.as_ref();
        match self {
            Self::BaseColor => material.base_color_texture,
            Self::MetallicRoughness => s.metallic_roughness_texture,
            Self::Normal => s.normal_texture,
            Self::Occlusion => s.occlusion_texture,
            Self::Emissive => s.emissive_texture,
            Self::Specular => s.specular.texture,
            Self::SpecularColor => s.specular.color_texture,
            Self::Clearcoat => coat?.texture,
            Self::ClearcoatRoughness => coat?.roughness_texture,
            Self::ClearcoatNormal => coat?.normal_texture,
            Self::ToonShade => toon?.shade_texture,
            Self::ToonShift => toon?.shift_texture,
            Self::Matcap => toon?.matcap_texture,
            Self::Rim => toon?.rim_texture,
            Self::OutlineWidth => toon?.outline?.width_texture,
        }
    }
}

/// The binding of the sampler every material shares.
const SAMPLER_BINDING: u32 = SLOTS as u32 + 1;

/// The layout of group 1, the sampler every material shares and the neutral textures.
#[derive(Debug)]
pub struct MaterialLayout {
    pub layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
}

impl MaterialLayout {
    /// The layout and a sampler filtering up to `anisotropy` samples along a slope (1: none).
    #[must_use]
    pub fn new(device: &wgpu::Device, anisotropy: u16) -> Self {
        let texture = |slot: Slot| wgpu::BindGroupLayoutEntry {
            binding: slot.binding(),
            visibility: slot.visibility(),
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        };
        // The uniform is read by the outline's vertex stage too (its width).
        let mut entries = vec![wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::VERTEX_FRAGMENT | wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }];
        entries.extend(Slot::ALL.map(texture));
        entries.push(wgpu::BindGroupLayoutEntry {
            binding: SAMPLER_BINDING,
            visibility: wgpu::ShaderStages::VERTEX_FRAGMENT | wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            count: None,
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("material"),
            entries: &entries,
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("material"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            anisotropy_clamp: anisotropy.clamp(1, 16),
            ..wgpu::SamplerDescriptor::default()
        });
        Self { layout, sampler }
    }
}

/// The uniform of `material` (with `alpha_cutoff`) when its textures are `present` (by slot).
#[must_use]
pub fn gpu_material(material: &Material, alpha_cutoff: f32, present: [bool; SLOTS]) -> GpuMaterial {
    let s: &Surface = &material.surface;
    let toon = material.toon.clone().unwrap_or_default();
    let mut uv = [[0.0; 4]; 2 * SLOTS];
    for slot in Slot::ALL {
        let t = slot
            .of(material)
            .map_or(UvTransform::IDENTITY, |t| t.transform);
        let i = slot as usize;
        // w of the first row: whether the slot has a texture (the shader skips sampling the
        // neutral one).
        uv[2 * i] = [t.x[0], t.x[1], t.x[2], f32::from(u8::from(present[i]))];
        uv[2 * i + 1] = [t.y[0], t.y[1], t.y[2], 0.0];
    }
    GpuMaterial {
        base_color: material.base_color,
        emissive: [s.emissive[0], s.emissive[1], s.emissive[2], alpha_cutoff],
        surface: [
            s.metallic,
            s.roughness,
            if present[Slot::Normal as usize] {
                s.normal_scale
            } else {
                0.0
            },
            s.occlusion_strength,
        ],
        uv,
        role: [
            f32::from(u8::from(material.role() == Role::Eye)),
            f32::from(u8::from(material.role() == Role::Skin)),
            match (&material.toon, material.unlit) {
                (Some(_), _) => 1.0,
                (None, true) => 2.0,
                (None, false) => 0.0,
            },
            f32::from(u8::from(
                present[Slot::BaseColor as usize]
                    && toon.shade_texture.is_some()
                    && toon.shade_texture == material.base_color_texture,
            )),
        ],
        toon_shade: [toon.shade[0], toon.shade[1], toon.shade[2], toon.toony],
        toon_step: [
            toon.shift,
            toon.rim_power,
            toon.rim_lift,
            toon.rim_lighting_mix,
        ],
        toon_rim: [toon.rim[0], toon.rim[1], toon.rim[2], 0.0],
        dielectric: {
            let r = s.specular.ior_reflectance();
            let c = s.specular.color;
            [c[0] * r, c[1] * r, c[2] * r, s.specular.factor]
        },
        clearcoat: material.clearcoat().map_or([0.0; 4], |c| {
            let normal_scale = if present[Slot::ClearcoatNormal as usize] {
                c.normal_scale
            } else {
                0.0
            };
            [c.factor, c.roughness, normal_scale, 0.0]
        }),
        toon_outline: toon.outline.map_or([0.0; 4], |o| {
            [o.color[0], o.color[1], o.color[2], o.lighting_mix]
        }),
        outline_width: {
            let red = f32::from(u8::from(toon.outline.is_some_and(|o| o.width_in_red)));
            match toon.outline.map(|o| o.width) {
                Some(OutlineWidth::World(w)) => [w.max(0.0), 1.0, red, 0.0],
                Some(OutlineWidth::Screen(w)) => [w.max(0.0), 2.0, red, 0.0],
                None => [0.0; 4],
            }
        },
        toon_matcap: [
            toon.matcap[0],
            toon.matcap[1],
            toon.matcap[2],
            toon.shift_texture_scale,
        ],
    }
}

/// An RGBA8 texture with its mipmaps made (on the CPU, off the thread that uploads it): sRGB
/// colour or linear data.
#[derive(Clone, Debug)]
pub struct MipTexture {
    width: u32,
    height: u32,
    srgb: bool,
    levels: u32,
    /// Every level's texels, largest first.
    data: Vec<u8>,
}

impl MipTexture {
    /// Makes the mipmaps of `texture`, averaged in sRGB's linear light when `srgb`.
    #[must_use]
    pub fn new(texture: &Texture, srgb: bool) -> Self {
        let levels = mip_chain(texture, srgb);
        Self {
            width: texture.width.max(1),
            height: texture.height.max(1),
            srgb,
            levels: levels.len() as u32,
            data: levels.into_iter().flat_map(|l| l.2).collect(),
        }
    }

    /// Uploads it.
    #[must_use]
    pub fn upload(&self, gpu: &Gpu) -> wgpu::Texture {
        gpu.device.create_texture_with_data(
            &gpu.queue,
            &wgpu::TextureDescriptor {
                label: Some(if self.srgb { "colour" } else { "data" }),
                size: wgpu::Extent3d {
                    width: self.width,
                    height: self.height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: self.levels,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: if self.srgb {
                    wgpu::TextureFormat::Rgba8UnormSrgb
                } else {
                    wgpu::TextureFormat::Rgba8Unorm
                },
                usage: wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            },
            wgpu::util::TextureDataOrder::LayerMajor,
            &self.data,
        )
    }
}

/// Whether a texture's bytes match its size (one that does not is left out, not a failure).
#[must_use]
pub fn well_formed(texture: &Texture) -> bool {
    texture.rgba.len() as u64 == u64::from(texture.width) * u64::from(texture.height) * 4
}

/// The neutral texture of each slot, shared by every material without one there.
#[derive(Debug)]
pub struct NeutralTextures([wgpu::TextureView; SLOTS]);

impl NeutralTextures {
    #[must_use]
    pub fn new(gpu: &Gpu) -> Self {
        Self(Slot::ALL.map(|slot| {
            let texel = Texture {
                width: 1,
                height: 1,
                rgba: slot.neutral().to_vec(),
            };
            MipTexture::new(&texel, slot.srgb())
                .upload(gpu)
                .create_view(&wgpu::TextureViewDescriptor::default())
        }))
    }
}

/// The bind group of one material: its uniform and, by slot, its texture or the neutral one.
#[must_use]
pub fn material_bind_group(
    gpu: &Gpu,
    layout: &MaterialLayout,
    uniform: &GpuMaterial,
    textures: [Option<&wgpu::TextureView>; SLOTS],
    neutral: &NeutralTextures,
) -> wgpu::BindGroup {
    let buffer = gpu
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("material"),
            contents: bytemuck::bytes_of(uniform),
            usage: wgpu::BufferUsages::UNIFORM,
        });
    let mut entries = vec![wgpu::BindGroupEntry {
        binding: 0,
        resource: buffer.as_entire_binding(),
    }];
    for slot in Slot::ALL {
        let view = textures[slot as usize].unwrap_or(&neutral.0[slot as usize]);
        entries.push(wgpu::BindGroupEntry {
            binding: slot.binding(),
            resource: wgpu::BindingResource::TextureView(view),
        });
    }
    entries.push(wgpu::BindGroupEntry {
        binding: SAMPLER_BINDING,
        resource: wgpu::BindingResource::Sampler(&layout.sampler),
    });
    gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("material"),
        layout: &layout.layout,
        entries: &entries,
    })
}
