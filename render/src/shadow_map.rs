//! The sun's shadow map: 16-bit depth (millimetre steps over the light's depth range, and
//! half the memory traffic of 32-bit depth when it is cleared each frame), read with a
//! comparison sampler.

/// Format of the shadow map.
pub const SHADOW_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth16Unorm;

/// The shadow map of a renderer.
#[derive(Debug)]
pub struct ShadowMap {
    pub size: u32,
    /// Drawn into by the rasterizer, or copied into from the compute raster.
    pub texture: wgpu::Texture,
    pub view: wgpu::TextureView,
    /// Compares depths, filtering 2x2 texels.
    pub sampler: wgpu::Sampler,
}

impl ShadowMap {
    /// A square map of `size` texels (clamped to what the device allows).
    pub fn new(device: &wgpu::Device, size: u32) -> Self {
        let size = size.clamp(256, device.limits().max_texture_dimension_2d);
        let texture = device.create_texture(&wgpu::TextureDescriptor {
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
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("shadow"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..wgpu::SamplerDescriptor::default()
        });
        Self {
            size,
            texture,
            view,
            sampler,
        }
    }
}
