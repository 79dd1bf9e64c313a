//! The three sky cubemaps on the GPU and the bind group the sky pass reads them through.

use npc_core::asset::material::Texture;
use wgpu::util::DeviceExt;

use super::gpu::Gpu;

/// Six square faces (+X, -X, +Y, -Y, +Z, -Z) of one sky.
pub type CubeFaces = [Texture; 6];

/// Why a sky cannot be used.
fn check(faces: &CubeFaces) -> Result<u32, String> {
    let size = faces[0].width;
    for (i, f) in faces.iter().enumerate() {
        if f.width != size || f.height != size || size == 0 {
            return Err(format!(
                "face {i} is {}x{}; every face must be square and of one size ({size})",
                f.width, f.height
            ));
        }
        if f.rgba.len() as u64 != u64::from(size) * u64::from(size) * 4 {
            return Err(format!("face {i} does not hold {size}x{size} RGBA texels"));
        }
    }
    Ok(size)
}

fn cube(gpu: &Gpu, faces: &CubeFaces) -> Result<wgpu::TextureView, String> {
    let size = check(faces)?;
    let bytes: Vec<u8> = faces.iter().flat_map(|f| f.rgba.iter().copied()).collect();
    let texture = gpu.device.create_texture_with_data(
        &gpu.queue,
        &wgpu::TextureDescriptor {
            label: Some("sky"),
            size: wgpu::Extent3d {
                width: size,
                height: size,
                depth_or_array_layers: 6,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        &bytes,
    );
    Ok(texture.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::Cube),
        ..wgpu::TextureViewDescriptor::default()
    }))
}

/// Uploads the day, noon and night skies and binds them for the sky pass.
pub fn sky_bind_group(
    gpu: &Gpu,
    layout: &wgpu::BindGroupLayout,
    skies: &[CubeFaces; 3],
) -> Result<wgpu::BindGroup, String> {
    let names = ["day", "noon", "night"];
    let mut views = Vec::with_capacity(3);
    for (faces, name) in skies.iter().zip(names) {
        views.push(cube(gpu, faces).map_err(|e| format!("sky {name}: {e}"))?);
    }
    let sampler = gpu.device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("sky"),
        mag_filter: wgpu::FilterMode::Linear,
        min_filter: wgpu::FilterMode::Linear,
        ..wgpu::SamplerDescriptor::default()
    });
    Ok(gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("sky"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&views[0]),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(&views[1]),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::TextureView(&views[2]),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: wgpu::BindingResource::Sampler(&sampler),
            },
        ],
    }))
}
