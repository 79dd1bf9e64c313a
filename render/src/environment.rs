//! Image-based light from the skies: each sky's prefiltered specular cubemap and diffuse light
//! made on the GPU once, when the skies are uploaded, the split-sum table beside them, and the
//! three blended by the time of day into the cubemaps the main pass reads, again only when
//! the sky's weights change, with the diffuse light straight up beside them (shaders:
//! `environment.wgsl`).

use wgpu::util::DeviceExt;

use super::gpu::Gpu;
use super::shaders;
use super::sky_textures::SkyCubes;

/// Texels along a side of the specular cubemap's sharpest level.
pub const SPECULAR_SIZE: u32 = 128;
/// Levels of the specular cubemap: roughness 0, 0.2, .. 1 (the main pass reads level
/// roughness x 5).
pub const SPECULAR_LEVELS: u32 = 6;
/// Texels along a side of the diffuse light's cubemap (it changes slowly with the normal).
pub const IRRADIANCE_SIZE: u32 = 8;
/// Texels along each side of the split-sum table (n.v across, roughness down).
pub const BRDF_TABLE_SIZE: u32 = 32;
/// Side of the compute passes' workgroups.
const WORKGROUP: u32 = 8;
const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;

/// The image-based light the main pass reads.
#[derive(Debug)]
pub struct Environment {
    /// The blended specular cubemap, every level.
    pub specular: wgpu::TextureView,
    /// The blended diffuse light.
    pub irradiance: wgpu::TextureView,
    /// Its texture, six layers (read back by the tests).
    #[cfg(test)]
    irradiance_texture: wgpu::Texture,
    /// The split-sum table.
    pub brdf_table: wgpu::TextureView,
    /// Trilinear, clamped.
    pub sampler: wgpu::Sampler,
    /// The blended diffuse light straight up (rgba, 16 bytes): what the ground bounces.
    pub above: wgpu::Buffer,
    blend_pipeline: wgpu::ComputePipeline,
    above_pipeline: wgpu::ComputePipeline,
    above_group: wgpu::BindGroup,
    /// A bind group per blended level (specular levels, then the diffuse light) and its size.
    blend_groups: Vec<(wgpu::BindGroup, u32)>,
    /// The blend's uniform for the specular levels and for the diffuse light.
    specular_weights: wgpu::Buffer,
    diffuse_weights: wgpu::Buffer,
    /// Each sky's mean luminance.
    mean_luminance: [f32; 3],
    /// The weights last blended with.
    blended: Option<[f32; 4]>,
}

/// Below this mean luminance a sky is taken as black: its diffuse light has no direction to
/// keep, and is the same from everywhere.
const DARKEST_SKY: f32 = 1e-5;

/// The blend's uniform (mirrors `Blend` in environment.wgsl) for the specular levels and for
/// the diffuse light, from the sky's weights (day, noon, night, warm tint) and each sky's mean
/// luminance: the diffuse light of each sky is divided by its mean, so the blend has a mean
/// luminance of 1 whatever the skies' brightness (a sky darker than [`DARKEST_SKY`] gives
/// light of 1 from everywhere).
#[must_use]
fn blend_uniforms(weights: [f32; 4], mean_luminance: [f32; 3]) -> ([f32; 8], [f32; 8]) {
    let specular = [
        weights[0], weights[1], weights[2], weights[3], 0.0, 0.0, 0.0, 0.0,
    ];
    let mut diffuse = [0.0, 0.0, 0.0, weights[3], 0.0, 0.0, 0.0, 0.0];
    let mut uniform = 0.0;
    for sky in 0..3 {
        if mean_luminance[sky] > DARKEST_SKY {
            diffuse[sky] = weights[sky] / mean_luminance[sky];
        } else {
            uniform += weights[sky];
        }
    }
    diffuse[4..7].fill(uniform);
    (specular, diffuse)
}

/// A texture of `layers` square layers of `size` texels and `levels` mips, written by compute
/// passes and sampled.
fn layered(
    device: &wgpu::Device,
    label: &str,
    size: u32,
    levels: u32,
    layers: u32,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: size,
            height: size,
            depth_or_array_layers: layers,
        },
        mip_level_count: levels,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: FORMAT,
        usage: wgpu::TextureUsages::STORAGE_BINDING
            | wgpu::TextureUsages::TEXTURE_BINDING
            | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}

/// One level of `texture` as an array of its layers.
fn level_view(texture: &wgpu::Texture, level: u32) -> wgpu::TextureView {
    texture.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        base_mip_level: level,
        mip_level_count: Some(1),
        ..wgpu::TextureViewDescriptor::default()
    })
}

fn cube_view(texture: &wgpu::Texture) -> wgpu::TextureView {
    texture.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::Cube),
        ..wgpu::TextureViewDescriptor::default()
    })
}

fn compute(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    entry: &str,
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: None,
        module,
        entry_point: Some(entry),
        compilation_options: wgpu::PipelineCompilationOptions::default(),
        cache: None,
    })
}

/// Workgroups covering `size` texels.
fn groups(size: u32) -> u32 {
    size.div_ceil(WORKGROUP)
}

/// The filter pass's uniform: which sky, where its faces go, the level's roughness and the
/// sky's size (mirrors `Filter` in environment.wgsl).
fn filter_uniform(
    device: &wgpu::Device,
    sky: u32,
    roughness: f32,
    source_size: u32,
) -> wgpu::Buffer {
    let mut bytes = Vec::with_capacity(16);
    bytes.extend_from_slice(&sky.to_le_bytes());
    bytes.extend_from_slice(&(6 * sky).to_le_bytes());
    bytes.extend_from_slice(&roughness.to_le_bytes());
    bytes.extend_from_slice(&(source_size as f32).to_le_bytes());
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("environment filter"),
        contents: &bytes,
        usage: wgpu::BufferUsages::UNIFORM,
    })
}

/// Which filter pass makes a level.
#[derive(Clone, Copy)]
enum Made {
    Specular { roughness: f32 },
    Irradiance,
}

impl Made {
    fn roughness(self) -> f32 {
        match self {
            Self::Specular { roughness } => roughness,
            Self::Irradiance => 1.0,
        }
    }
}

/// Records the dispatches that make `level` of `per_sky` for each sky with `pipeline`.
fn filter_level(
    device: &wgpu::Device,
    pass: &mut wgpu::ComputePass<'_>,
    pipeline: &wgpu::ComputePipeline,
    skies: &SkyCubes,
    how: Made,
    per_sky: &wgpu::Texture,
    level: u32,
) {
    let layout = pipeline.get_bind_group_layout(0);
    let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("sky for filtering"),
        mag_filter: wgpu::FilterMode::Linear,
        min_filter: wgpu::FilterMode::Linear,
        mipmap_filter: wgpu::MipmapFilterMode::Linear,
        ..wgpu::SamplerDescriptor::default()
    });
    let target = level_view(per_sky, level);
    let size = (per_sky.width() >> level).max(1);
    let view = wgpu::BindingResource::TextureView;
    pass.set_pipeline(pipeline);
    for (sky, &source_size) in (0u32..).zip(&skies.sizes) {
        let uniform = filter_uniform(device, sky, how.roughness(), source_size);
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("environment filter"),
            layout: &layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: uniform.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: view(&skies.views[0]),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: view(&skies.views[1]),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: view(&skies.views[2]),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: wgpu::BindingResource::Sampler(&sampler),
                },
                wgpu::BindGroupEntry {
                    binding: 5,
                    resource: view(&target),
                },
            ],
        });
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(groups(size), groups(size), 6);
    }
}

/// Records the dispatch that makes the split-sum table into `table`.
fn make_table(
    device: &wgpu::Device,
    pass: &mut wgpu::ComputePass<'_>,
    pipeline: &wgpu::ComputePipeline,
    table: &wgpu::Texture,
) {
    let table_view = table.create_view(&wgpu::TextureViewDescriptor::default());
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("split-sum table"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 9,
            resource: wgpu::BindingResource::TextureView(&table_view),
        }],
    });
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, &group, &[]);
    pass.dispatch_workgroups(groups(BRDF_TABLE_SIZE), groups(BRDF_TABLE_SIZE), 1);
}

impl Environment {
    /// Filters `skies` into each one's specular levels and diffuse light and makes the
    /// split-sum table (submitted at once; the GPU does it before the first frame).
    #[must_use]
    pub fn new(gpu: &Gpu, skies: &SkyCubes) -> Self {
        let device = &gpu.device;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("environment"),
            source: wgpu::ShaderSource::Wgsl(shaders::environment().into()),
        });
        let specular_pipeline = compute(device, &module, "cs_specular");
        let irradiance_pipeline = compute(device, &module, "cs_irradiance");
        let table_pipeline = compute(device, &module, "cs_brdf_table");
        let blend_pipeline = compute(device, &module, "cs_blend");
        let above_pipeline = compute(device, &module, "cs_above");
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("environment"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..wgpu::SamplerDescriptor::default()
        });

        let per_sky_specular = layered(
            device,
            "specular per sky",
            SPECULAR_SIZE,
            SPECULAR_LEVELS,
            18,
        );
        let per_sky_irradiance = layered(device, "irradiance per sky", IRRADIANCE_SIZE, 1, 18);
        let specular = layered(device, "specular", SPECULAR_SIZE, SPECULAR_LEVELS, 6);
        let irradiance = layered(device, "irradiance", IRRADIANCE_SIZE, 1, 6);
        let table = layered(device, "split-sum table", BRDF_TABLE_SIZE, 1, 1);

        // Every level made: (what makes it, its per-sky texture, the blended one, mip level).
        let mut made: Vec<(Made, &wgpu::Texture, &wgpu::Texture, u32)> = (0..SPECULAR_LEVELS)
            .map(|level| {
                let roughness = level as f32 / (SPECULAR_LEVELS - 1) as f32;
                (
                    Made::Specular { roughness },
                    &per_sky_specular,
                    &specular,
                    level,
                )
            })
            .collect();
        made.push((Made::Irradiance, &per_sky_irradiance, &irradiance, 0));

        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("environment"),
        });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("environment filter"),
                timestamp_writes: None,
            });
            for &(how, per_sky, _, level) in &made {
                let pipeline = match how {
                    Made::Specular { .. } => &specular_pipeline,
                    Made::Irradiance => &irradiance_pipeline,
                };
                filter_level(device, &mut pass, pipeline, skies, how, per_sky, level);
            }
            make_table(device, &mut pass, &table_pipeline, &table);
        }
        gpu.queue.submit([encoder.finish()]);

        let weights_buffer = || {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("environment blend"),
                size: 32,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let specular_weights = weights_buffer();
        let diffuse_weights = weights_buffer();
        let blend_layout = blend_pipeline.get_bind_group_layout(0);
        let blend_groups = made
            .iter()
            .map(|&(how, per_sky, out, level)| {
                let weights = match how {
                    Made::Specular { .. } => &specular_weights,
                    Made::Irradiance => &diffuse_weights,
                };
                let input = level_view(per_sky, level);
                let output = level_view(out, level);
                let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("environment blend"),
                    layout: &blend_layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 6,
                            resource: weights.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 7,
                            resource: wgpu::BindingResource::TextureView(&input),
                        },
                        wgpu::BindGroupEntry {
                            binding: 8,
                            resource: wgpu::BindingResource::TextureView(&output),
                        },
                    ],
                });
                (group, (out.width() >> level).max(1))
            })
            .collect();
        let above = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("diffuse light straight up"),
            size: 16,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::UNIFORM
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let irradiance_per_sky = level_view(&per_sky_irradiance, 0);
        let above_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("diffuse light straight up"),
            layout: &above_pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 6,
                    resource: diffuse_weights.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 7,
                    resource: wgpu::BindingResource::TextureView(&irradiance_per_sky),
                },
                wgpu::BindGroupEntry {
                    binding: 10,
                    resource: above.as_entire_binding(),
                },
            ],
        });
        Self {
            specular: cube_view(&specular),
            irradiance: cube_view(&irradiance),
            #[cfg(test)]
            irradiance_texture: irradiance.clone(),
            brdf_table: table.create_view(&wgpu::TextureViewDescriptor::default()),
            sampler,
            above,
            blend_pipeline,
            above_pipeline,
            above_group,
            blend_groups,
            specular_weights,
            diffuse_weights,
            mean_luminance: skies.mean_luminance,
            blended: None,
        }
    }

    /// Blends the skies' light by `weights` (day, noon, night, warm tint: the sky pass's) into
    /// the cubemaps the main pass reads, when they differ from the last blend's: the
    /// reflections as the sky is drawn (less its brightness), the diffuse light with a mean
    /// luminance of 1, for the main pass to scale to the day's ambient level.
    pub fn blend(
        &mut self,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        weights: [f32; 4],
    ) {
        if self.blended == Some(weights) {
            return;
        }
        self.blended = Some(weights);
        let (specular, diffuse) = blend_uniforms(weights, self.mean_luminance);
        let bytes =
            |values: [f32; 8]| -> Vec<u8> { values.iter().flat_map(|w| w.to_le_bytes()).collect() };
        queue.write_buffer(&self.specular_weights, 0, &bytes(specular));
        queue.write_buffer(&self.diffuse_weights, 0, &bytes(diffuse));
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("environment blend"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.blend_pipeline);
        for (group, size) in &self.blend_groups {
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(groups(*size), groups(*size), 6);
        }
        pass.set_pipeline(&self.above_pipeline);
        pass.set_bind_group(0, &self.above_group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used, clippy::unwrap_used)]

    use super::*;
    use npc_core::procedural::sky::{SkyKind, cubemap};

    /// Copies `bytes` of `source` into a buffer the CPU reads.
    fn read_back(
        gpu: &Gpu,
        bytes: u64,
        copy: impl FnOnce(&mut wgpu::CommandEncoder, &wgpu::Buffer),
    ) -> Vec<u8> {
        let back = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        copy(&mut encoder, &back);
        gpu.queue.submit([encoder.finish()]);
        back.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .unwrap();
        back.slice(..).get_mapped_range().unwrap().to_vec()
    }

    /// An IEEE half-precision float's value (normal and zero values; the light has no others).
    fn from_half(bits: u16) -> f32 {
        let sign = if bits >> 15 == 1 { -1.0 } else { 1.0 };
        let exponent = i32::from((bits >> 10) & 0x1f);
        let fraction = f32::from(bits & 0x3ff) / 1024.0;
        if exponent == 0 {
            return sign * fraction * 2f32.powi(-14);
        }
        sign * (1.0 + fraction) * 2f32.powi(exponent - 15)
    }

    #[test]
    fn the_light_straight_up_is_what_the_blended_light_gives_there() {
        // The main pass reads the ground's bounced light from the buffer the blend fills; it
        // must be what a linear sampler reads from the blended cubemap straight up: the mean
        // of the +Y face's four middle texels (stored in half floats, so within their step).
        let gpu = Gpu::headless().expect("a Vulkan adapter (mesa-vulkan-drivers in CI)");
        let skies = [SkyKind::Day, SkyKind::Noon, SkyKind::Night].map(|k| cubemap(k, 32));
        let cubes = SkyCubes::new(&gpu, &skies).unwrap();
        let mut environment = Environment::new(&gpu, &cubes);
        for weights in [[0.2, 0.7, 0.1, 0.3], [0.0, 0.0, 1.0, 0.0]] {
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            environment.blend(&gpu.queue, &mut encoder, weights);
            gpu.queue.submit([encoder.finish()]);
            let above = read_back(&gpu, 16, |encoder, back| {
                encoder.copy_buffer_to_buffer(&environment.above, 0, back, 0, 16);
            });
            let above: Vec<f32> = above
                .chunks(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            let size = IRRADIANCE_SIZE;
            let row = 256;
            let texels = read_back(&gpu, u64::from(row * size), |encoder, back| {
                encoder.copy_texture_to_buffer(
                    wgpu::TexelCopyTextureInfo {
                        texture: &environment.irradiance_texture,
                        mip_level: 0,
                        origin: wgpu::Origin3d { x: 0, y: 0, z: 2 },
                        aspect: wgpu::TextureAspect::All,
                    },
                    wgpu::TexelCopyBufferInfo {
                        buffer: back,
                        layout: wgpu::TexelCopyBufferLayout {
                            offset: 0,
                            bytes_per_row: Some(row),
                            rows_per_image: Some(size),
                        },
                    },
                    wgpu::Extent3d {
                        width: size,
                        height: size,
                        depth_or_array_layers: 1,
                    },
                );
            });
            let texel = |x: u32, y: u32, c: usize| {
                let at = (y * row + x * 8) as usize + 2 * c;
                from_half(u16::from_le_bytes([texels[at], texels[at + 1]]))
            };
            let middle = [size / 2 - 1, size / 2];
            for (c, &stored) in above.iter().take(3).enumerate() {
                let sampled: f32 = middle
                    .iter()
                    .flat_map(|&y| middle.iter().map(move |&x| (x, y)))
                    .map(|(x, y)| texel(x, y, c))
                    .sum::<f32>()
                    / 4.0;
                assert!(
                    sampled > 0.0 && (stored - sampled).abs() <= sampled * 2e-3,
                    "weights {weights:?}, channel {c}: {stored} in the buffer, {sampled} sampled"
                );
            }
        }
    }

    #[test]
    fn the_diffuse_blend_divides_each_sky_by_its_mean_and_a_black_sky_is_uniform() {
        let (specular, diffuse) = blend_uniforms([0.25, 0.75, 0.0, 0.5], [0.5, 0.25, 0.01]);
        assert_eq!(specular, [0.25, 0.75, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(diffuse, [0.5, 3.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0]);
        let (_, night) = blend_uniforms([0.0, 0.0, 1.0, 0.0], [0.5, 0.25, 0.0]);
        assert_eq!(night, [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0]);
    }
}
