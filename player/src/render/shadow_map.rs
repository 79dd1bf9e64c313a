//! The sun's shadow map, and a kept copy of the unchanging scene's shadows. The scene's
//! shadow casters (plants, rocks) are drawn into the kept map only when the light's view
//! changes; each frame starts from a copy of it and adds what moves (the NPCs).

use glam::Mat4;

use super::pipelines::{DEPTH_FORMAT, Layouts};

/// The shadow map of a renderer.
#[derive(Debug)]
pub struct ShadowMap {
    pub size: u32,
    live: wgpu::Texture,
    pub live_view: wgpu::TextureView,
    kept: wgpu::Texture,
    pub kept_view: wgpu::TextureView,
    /// The light view the kept map was drawn for.
    kept_for: Option<Mat4>,
    pub group: wgpu::BindGroup,
}

fn depth_texture(
    device: &wgpu::Device,
    label: &str,
    size: u32,
    usage: wgpu::TextureUsages,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: size,
            height: size,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: DEPTH_FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | usage,
        view_formats: &[],
    })
}

impl ShadowMap {
    /// A square map of `size` texels (clamped to what the device allows).
    pub fn new(device: &wgpu::Device, layouts: &Layouts, size: u32) -> Self {
        let size = size.clamp(256, device.limits().max_texture_dimension_2d);
        let live = depth_texture(
            device,
            "shadow map",
            size,
            wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        );
        let kept = depth_texture(
            device,
            "scene shadow map",
            size,
            wgpu::TextureUsages::COPY_SRC,
        );
        let live_view = live.create_view(&wgpu::TextureViewDescriptor::default());
        let kept_view = kept.create_view(&wgpu::TextureViewDescriptor::default());
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
                    resource: wgpu::BindingResource::TextureView(&live_view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&sampler),
                },
            ],
        });
        Self {
            size,
            live,
            live_view,
            kept,
            kept_view,
            kept_for: None,
            group,
        }
    }

    /// Whether the kept scene shadows must be drawn again for `light` (and notes that they
    /// will be).
    pub fn needs_scene(&mut self, light: Mat4) -> bool {
        if self.kept_for == Some(light) {
            return false;
        }
        self.kept_for = Some(light);
        true
    }

    /// Forgets the kept scene shadows (the scene's meshes changed).
    pub fn forget_scene(&mut self) {
        self.kept_for = None;
    }

    /// Starts this frame's map from the kept scene shadows.
    pub fn copy_scene(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.copy_texture_to_texture(
            self.kept.as_image_copy(),
            self.live.as_image_copy(),
            wgpu::Extent3d {
                width: self.size,
                height: self.size,
                depth_or_array_layers: 1,
            },
        );
    }
}
