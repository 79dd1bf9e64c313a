//! Material bind groups: the material's uniform, its base-colour texture (sRGB with mipmaps; a
//! white texel when it has none) and a repeating trilinear, anisotropic sampler.

use npc_core::asset::material::Texture;
use wgpu::util::DeviceExt;

use super::gpu::Gpu;
use super::gpu_types::GpuMaterial;
use super::mip_chain::mip_chain;

/// The layout of group 1 and the sampler every material shares.
#[derive(Debug)]
pub struct MaterialLayout {
    pub layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
}

impl MaterialLayout {
    /// The layout and a sampler filtering up to `anisotropy` samples along a slope (1: none).
    #[must_use]
    pub fn new(device: &wgpu::Device, anisotropy: u16) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("material"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("base colour"),
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

/// Uploads an RGBA8 sRGB texture with its mipmaps.
#[must_use]
pub fn upload_texture(gpu: &Gpu, texture: &Texture) -> wgpu::Texture {
    let levels = mip_chain(texture);
    let data: Vec<u8> = levels.iter().flat_map(|l| l.2.iter().copied()).collect();
    gpu.device.create_texture_with_data(
        &gpu.queue,
        &wgpu::TextureDescriptor {
            label: Some("base colour"),
            size: wgpu::Extent3d {
                width: texture.width.max(1),
                height: texture.height.max(1),
                depth_or_array_layers: 1,
            },
            mip_level_count: levels.len() as u32,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        &data,
    )
}

/// The bind group of one material.
#[must_use]
pub fn material_bind_group(
    gpu: &Gpu,
    layout: &MaterialLayout,
    uniform: &GpuMaterial,
    texture: Option<&Texture>,
) -> wgpu::BindGroup {
    let white = Texture {
        width: 1,
        height: 1,
        rgba: vec![255; 4],
    };
    // A texture whose bytes do not match its size is drawn white rather than failing.
    let texture = texture
        .filter(|t| t.rgba.len() as u64 == u64::from(t.width) * u64::from(t.height) * 4)
        .unwrap_or(&white);
    let view = upload_texture(gpu, texture).create_view(&wgpu::TextureViewDescriptor::default());
    let buffer = gpu
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("material"),
            contents: bytemuck::bytes_of(uniform),
            usage: wgpu::BufferUsages::UNIFORM,
        });
    gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("material"),
        layout: &layout.layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: buffer.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(&view),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::Sampler(&layout.sampler),
            },
        ],
    })
}
