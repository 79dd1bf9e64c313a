//! Reads back what the GPU's morph and skin path makes of one object's vertices (the same
//! `deform` function the vertex shader calls), for comparison with a CPU reference.

use glam::Vec3;
use wgpu::util::DeviceExt;

use super::gpu::Gpu;
use super::gpu_types::CheckParams;
use super::renderer::Renderer;
use super::shaders;

/// World positions of vertices `first_vertex ..  first_vertex + count` (indices into the
/// store's vertex buffer) as object `object` of the last prepared draw list deforms them.
pub fn deformed_positions(
    gpu: &Gpu,
    renderer: &Renderer,
    object: u32,
    first_vertex: u32,
    count: u32,
) -> anyhow::Result<Vec<Vec3>> {
    let device = &gpu.device;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("deform check"),
        source: wgpu::ShaderSource::Wgsl(shaders::deform_check().into()),
    });
    let check_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("deform check"),
        entries: &[
            wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 1,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: false },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            },
        ],
    });
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("deform check"),
        bind_group_layouts: &[Some(renderer.compute_layout()), Some(&check_layout)],
        immediate_size: 0,
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("deform check"),
        layout: Some(&layout),
        module: &module,
        entry_point: Some("cs_deform"),
        compilation_options: wgpu::PipelineCompilationOptions::default(),
        cache: None,
    });
    let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("deform check params"),
        contents: bytemuck::bytes_of(&CheckParams {
            object,
            first_vertex,
            vertex_count: count,
            pad: 0,
        }),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let size = u64::from(count.max(1)) * 16;
    let output = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("deformed"),
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("deformed readback"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("deform check"),
        layout: &check_layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: params.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: output.as_entire_binding(),
            },
        ],
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, renderer.compute_bind_group(), &[]);
        pass.set_bind_group(1, &group, &[]);
        pass.dispatch_workgroups(count.div_ceil(64), 1, 1);
    }
    encoder.copy_buffer_to_buffer(&output, 0, &readback, 0, size);
    gpu.queue.submit([encoder.finish()]);
    let slice = readback.slice(..);
    slice.map_async(wgpu::MapMode::Read, |_| {});
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| anyhow::anyhow!("the GPU did not finish: {e}"))?;
    let positions = {
        let data = slice
            .get_mapped_range()
            .map_err(|e| anyhow::anyhow!("cannot read back: {e}"))?;
        bytemuck::cast_slice::<u8, [f32; 4]>(&data)
            .iter()
            .take(count as usize)
            .map(|p| Vec3::new(p[0], p[1], p[2]))
            .collect()
    };
    readback.unmap();
    Ok(positions)
}
