//! The sun's shadow map: 16-bit depth (millimetre steps over the light's depth range, and
//! half the memory traffic of 32-bit depth when it is cleared each frame), read with a
//! comparison sampler.

use super::pipelines::Layouts;

/// Format of the shadow map.
pub const SHADOW_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth16Unorm;

/// The shadow map of a renderer.
#[derive(Debug)]
pub struct ShadowMap {
    pub size: u32,
    pub view: wgpu::TextureView,
    pub group: wgpu::BindGroup,
}

impl ShadowMap {
    /// A square map of `size` texels (clamped to what the device allows).
    pub fn new(device: &wgpu::Device, layouts: &Layouts, size: u32) -> Self {
        let size = size.clamp(256, device.limits().max_texture_dimension_2d);
        let view = device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("shadow map"),
                size: wgpu::Extent3d {
                    width: size,
                    height: size,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: SHADOW_FORMAT,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                    | wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            })
            .create_view(&wgpu::TextureViewDescriptor::default());
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("shadow"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..wgpu::SamplerDescriptor::default()
        });
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("shadow map"),
            layout: &layouts.shadow,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&sampler),
                },
            ],
        });
        Self { size, view, group }
    }
}
