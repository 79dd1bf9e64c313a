//! The three sky cubemaps on the GPU, with their mipmaps (the image-based light reads them
//! blurred), and the bind group the sky pass reads them through.

use npc_core::asset::material::Texture;
use wgpu::util::DeviceExt;

use super::gpu::Gpu;
use super::mip_chain::mip_chain;
use npc_core::procedural::sky::face_direction;

/// The day, noon and night skies on the GPU.
#[derive(Debug)]
pub struct SkyCubes {
    /// Cube views of the day, noon and night skies, every mip.
    pub views: [wgpu::TextureView; 3],
    /// Texels along a side of each sky's faces.
    pub sizes: [u32; 3],
    /// Each sky's mean luminance above the horizon (linear light): the diffuse light a white
    /// matte surface facing up gets from a sky as bright everywhere.
    pub mean_luminance: [f32; 3],
}

/// The mean luminance of `faces` above the horizon in linear light, each texel weighted by the
/// solid angle it covers.
#[must_use]
pub fn mean_luminance(faces: &CubeFaces) -> f32 {
    let mut linear = [0.0_f32; 256];
    for (i, l) in linear.iter_mut().enumerate() {
        let s = i as f32 / 255.0;
        *l = if s <= 0.040_45 {
            s / 12.92
        } else {
            ((s + 0.055) / 1.055).powf(2.4)
        };
    }
    let (mut sum, mut area) = (0.0_f64, 0.0_f64);
    for (side, face) in faces.iter().enumerate() {
        let size = face.width.max(1) as f32;
        for (i, texel) in face.rgba.chunks_exact(4).enumerate() {
            let (x, y) = (
                (i as u32 % face.width.max(1)) as f32,
                (i as u32 / face.width.max(1)) as f32,
            );
            let sc = 2.0 * (x + 0.5) / size - 1.0;
            let tc = 2.0 * (y + 0.5) / size - 1.0;
            if face_direction(side, sc, tc).y <= 0.0 {
                continue;
            }
            let solid_angle = f64::from((1.0 + sc * sc + tc * tc).powf(-1.5));
            let [r, g, b] = [0, 1, 2].map(|c| linear[usize::from(texel[c])]);
            sum += solid_angle * f64::from(0.2126 * r + 0.7152 * g + 0.0722 * b);
            area += solid_angle;
        }
    }
    if area > 0.0 { (sum / area) as f32 } else { 0.0 }
}

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

/// One sky with its mipmaps (made in linear light), and its size.
fn cube(gpu: &Gpu, faces: &CubeFaces) -> Result<(wgpu::TextureView, u32), String> {
    let size = check(faces)?;
    let chains: Vec<_> = faces.iter().map(|f| mip_chain(f, true)).collect();
    let levels = chains[0].len() as u32;
    // Layer-major: each face's levels in turn.
    let bytes: Vec<u8> = chains
        .iter()
        .flat_map(|chain| chain.iter().flat_map(|(_, _, rgba)| rgba.iter().copied()))
        .collect();
    let texture = gpu.device.create_texture_with_data(
        &gpu.queue,
        &wgpu::TextureDescriptor {
            label: Some("sky"),
            size: wgpu::Extent3d {
                width: size,
                height: size,
                depth_or_array_layers: 6,
            },
            mip_level_count: levels,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        &bytes,
    );
    let view = texture.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::Cube),
        ..wgpu::TextureViewDescriptor::default()
    });
    Ok((view, size))
}

impl SkyCubes {
    /// Uploads the day, noon and night skies.
    ///
    /// # Errors
    /// A sky's faces are not square and of one size.
    pub fn new(gpu: &Gpu, skies: &[CubeFaces; 3]) -> Result<Self, String> {
        let names = ["day", "noon", "night"];
        let mut views = Vec::with_capacity(3);
        let mut sizes = [0; 3];
        for ((faces, name), size) in skies.iter().zip(names).zip(&mut sizes) {
            let (view, s) = cube(gpu, faces).map_err(|e| format!("sky {name}: {e}"))?;
            views.push(view);
            *size = s;
        }
        let mean_luminance = skies.each_ref().map(mean_luminance);
        let views = views
            .try_into()
            .map_err(|_| "three skies are needed".to_owned())?;
        Ok(Self {
            views,
            sizes,
            mean_luminance,
        })
    }
}

/// Binds the skies for the sky pass.
pub fn sky_bind_group(
    gpu: &Gpu,
    layout: &wgpu::BindGroupLayout,
    skies: &SkyCubes,
) -> wgpu::BindGroup {
    let views = &skies.views;
    let sampler = gpu.device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("sky"),
        mag_filter: wgpu::FilterMode::Linear,
        min_filter: wgpu::FilterMode::Linear,
        ..wgpu::SamplerDescriptor::default()
    });
    gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sky(texel: [u8; 4], size: u32) -> CubeFaces {
        std::array::from_fn(|_| Texture {
            width: size,
            height: size,
            rgba: texel.repeat((size * size) as usize),
        })
    }

    #[test]
    fn a_uniform_sky_has_its_texels_luminance() {
        // sRGB 188 is about half the light.
        let l = mean_luminance(&sky([188, 188, 188, 255], 16));
        assert!((l - 0.5).abs() < 0.01, "{l}");
        assert!(mean_luminance(&sky([0, 0, 0, 255], 4)) < 1e-6);
    }

    #[test]
    fn the_ground_below_the_horizon_does_not_count() {
        let mut faces = sky([188, 188, 188, 255], 8);
        // The face below (-Y) black: the same mean.
        faces[3].rgba.fill(0);
        let l = mean_luminance(&faces);
        assert!((l - 0.5).abs() < 0.01, "{l}");
        // The face above black: a sixth of the sphere, but more of the sky above the horizon.
        faces[2].rgba.fill(0);
        let l = mean_luminance(&faces);
        assert!(l < 0.5 * 0.75, "{l}");
    }

    #[test]
    fn texels_at_a_face_corner_count_less_than_at_its_centre() {
        // A sky bright at the centre of its faces is brighter than one bright at the corners
        // by more than the count of texels says, as centre texels cover more of the sphere.
        let pattern = |bright_centre: bool| -> CubeFaces {
            std::array::from_fn(|_| {
                let size = 8u32;
                let mut rgba = Vec::new();
                for y in 0..size {
                    for x in 0..size {
                        let centre = (2..6).contains(&x) && (2..6).contains(&y);
                        let v = if centre == bright_centre { 255 } else { 0 };
                        rgba.extend_from_slice(&[v, v, v, 255]);
                    }
                }
                Texture {
                    width: size,
                    height: size,
                    rgba,
                }
            })
        };
        let centre = mean_luminance(&pattern(true));
        let rest = mean_luminance(&pattern(false));
        // 16 of 64 texels at the centre cover more than a quarter of the sphere.
        assert!(
            centre > 0.3 && (centre + rest - 1.0).abs() < 1e-3,
            "{centre} {rest}"
        );
    }
}
