//! The camera's raster target (the pixels' nearest and the merged depth) and the pipeline
//! laying that depth into a depth attachment.

use super::MERGED_DEPTH_FORMAT;
use crate::pipelines::DEPTH_FORMAT;
use crate::shaders;

/// What one target size needs: each pixel's nearest (64-bit) and the merged depth.
#[derive(Debug)]
pub(super) struct Screen {
    pub(super) width: u32,
    pub(super) height: u32,
    pub(super) nearest: wgpu::Buffer,
    pub(super) depth: wgpu::TextureView,
}

/// The pipeline laying the merged depth into a depth attachment, the target's colour left
/// as it is.
pub(super) fn depth_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    color_format: wgpu::TextureFormat,
) -> wgpu::RenderPipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("merged depth"),
        source: wgpu::ShaderSource::Wgsl(shaders::raster_depth().into()),
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("merged depth"),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("merged depth"),
        layout: Some(&pipeline_layout),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs_screen"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            buffers: &[],
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Always),
            stencil: wgpu::StencilState::default(),
            bias: wgpu::DepthBiasState::default(),
        }),
        multisample: wgpu::MultisampleState::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs_merged_depth"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format: color_format,
                blend: None,
                write_mask: wgpu::ColorWrites::empty(),
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

impl Screen {
    pub(super) fn new(device: &wgpu::Device, width: u32, height: u32) -> Self {
        let nearest = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("compute raster nearest"),
            size: u64::from(width) * u64::from(height) * 8,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let depth = device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("merged depth"),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: MERGED_DEPTH_FORMAT,
                usage: wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            })
            .create_view(&wgpu::TextureViewDescriptor::default());
        Self {
            width,
            height,
            nearest,
            depth,
        }
    }
}
