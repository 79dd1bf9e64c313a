//! The shadow map's far casters rasterized in compute: each texel's nearest biased depth kept
//! by a 32-bit atomic (raster.wgsl's shadow runs), merged with what the rasterizer drew into
//! the map and packed as its 16-bit rows (`raster_shadow.wgsl`), then copied into it.

use super::bindings::{bind, depth_texture, entry, storage, u32s_buffer, uniform, uniform_buffer};
use crate::gpu::Gpu;
use crate::shaders;

#[derive(Debug)]
pub(super) struct ShadowRaster {
    size: u32,
    /// Per texel, the nearest biased depth's bits inverted; 0 where none.
    pub(super) nearest: wgpu::Buffer,
    /// The map's rows, two texels a word.
    packed: wgpu::Buffer,
    params: wgpu::Buffer,
    layout: wgpu::BindGroupLayout,
    pack: wgpu::ComputePipeline,
}

impl ShadowRaster {
    pub(super) fn new(device: &wgpu::Device) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("shadow pack"),
            entries: &[
                entry(0, storage(false)),
                entry(1, storage(false)),
                entry(2, uniform()),
                entry(3, depth_texture()),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("shadow pack"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("shadow pack"),
            source: wgpu::ShaderSource::Wgsl(shaders::raster_shadow().into()),
        });
        let pack = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("shadow pack"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("cs_pack"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            cache: None,
        });
        Self {
            size: 0,
            nearest: u32s_buffer(device, "shadow nearest", 0),
            packed: packed_buffer(device, 0),
            params: uniform_buffer(device, "shadow pack params"),
            layout,
            pack,
        }
    }

    /// Sizes the buffers for a map of `size` x `size` texels.
    pub(super) fn prepare(&mut self, gpu: &Gpu, size: u32) {
        if size != self.size {
            let texels = u64::from(size) * u64::from(size);
            self.nearest = u32s_buffer(&gpu.device, "shadow nearest", texels);
            self.packed = packed_buffer(&gpu.device, texels);
            self.size = size;
            gpu.queue
                .write_buffer(&self.params, 0, bytemuck::cast_slice(&[size, 0, 0, 0]));
        }
    }

    /// Records the pack in `pass`: the nearer of what the raster found and `drawn` (the
    /// map as the rasterizer drew it) per texel.
    pub(super) fn pack(
        &self,
        device: &wgpu::Device,
        pass: &mut wgpu::ComputePass<'_>,
        drawn: &wgpu::TextureView,
    ) {
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("shadow pack"),
            layout: &self.layout,
            entries: &[
                bind(0, self.nearest.as_entire_binding()),
                bind(1, self.packed.as_entire_binding()),
                bind(2, self.params.as_entire_binding()),
                bind(3, wgpu::BindingResource::TextureView(drawn)),
            ],
        });
        let words = self.size * self.size / 2;
        let (x, y) = super::dispatch_size(words);
        pass.set_pipeline(&self.pack);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(x, y, 1);
    }

    /// Copies the packed rows into `map` (after the pass holding [`Self::pack`] ended).
    pub(super) fn copy_to(&self, encoder: &mut wgpu::CommandEncoder, map: &wgpu::Texture) {
        encoder.copy_buffer_to_texture(
            wgpu::TexelCopyBufferInfo {
                buffer: &self.packed,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.size * 2),
                    rows_per_image: Some(self.size),
                },
            },
            wgpu::TexelCopyTextureInfo {
                texture: map,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::DepthOnly,
            },
            wgpu::Extent3d {
                width: self.size,
                height: self.size,
                depth_or_array_layers: 1,
            },
        );
    }
}

fn packed_buffer(device: &wgpu::Device, texels: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("shadow packed"),
        size: (texels * 2).max(256),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}
