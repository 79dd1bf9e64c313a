//! One raster's frame (the camera's or the shadow map's): its items, its runs' slots, the
//! large triangles they leave to workgroups, and the dispatches over them.

use super::bindings::{RUN_BYTES, bind, items_buffer, runs_buffer, u32s_buffer, uniform_buffer};
use super::{RasterItem, RasterRun, dispatch_size};
use crate::gpu::Gpu;

/// Workgroups taking a run's large triangles in turn (each one's threads its pixels), then
/// sharing each huge one's pixels.
const LARGE_GROUPS: u32 = 2048;

/// The raster pipelines a frame's runs dispatch.
#[derive(Debug)]
pub(super) struct RasterPipelines {
    pub(super) layout: wgpu::BindGroupLayout,
    pub(super) opaque: wgpu::ComputePipeline,
    pub(super) masked: wgpu::ComputePipeline,
    pub(super) large: wgpu::ComputePipeline,
    pub(super) large_masked: wgpu::ComputePipeline,
}

#[derive(Debug)]
pub(super) struct RasterFrame {
    pub(super) items: wgpu::Buffer,
    /// The target's size, the items and triangles (`raster` in raster.wgsl).
    pub(super) params: wgpu::Buffer,
    runs: wgpu::Buffer,
    run_stride: u64,
    frame_runs: Vec<RasterRun>,
    /// The large and huge triangles' numbers (room for every triangle) and each run's counts
    /// of them.
    large: wgpu::Buffer,
    large_counts: wgpu::Buffer,
}

impl RasterFrame {
    pub(super) fn new(device: &wgpu::Device) -> Self {
        let run_stride =
            u64::from(device.limits().min_uniform_buffer_offset_alignment).max(RUN_BYTES);
        Self {
            items: items_buffer(device, 0),
            params: uniform_buffer(device, "compute raster params"),
            runs: runs_buffer(device, 0, run_stride),
            run_stride,
            frame_runs: Vec::new(),
            large: u32s_buffer(device, "raster large triangles", 0),
            large_counts: u32s_buffer(device, "raster large counts", 0),
        }
    }

    /// Uploads the frame's `items` (numbered) with their `triangles`, dispatched in `runs`
    /// into a `width` x `height` target (`shadow`: the shadow map).
    pub(super) fn prepare(
        &mut self,
        gpu: &Gpu,
        (width, height): (u32, u32),
        items: &[RasterItem],
        triangles: u32,
        runs: &[RasterRun],
        shadow: bool,
    ) {
        let device = &gpu.device;
        let bytes: &[u8] = bytemuck::cast_slice(items);
        if bytes.len() as u64 > self.items.size() {
            self.items = items_buffer(device, items.len() as u64);
        }
        if !bytes.is_empty() {
            gpu.queue.write_buffer(&self.items, 0, bytes);
        }
        let count = u32::try_from(items.len()).unwrap_or(u32::MAX);
        gpu.queue.write_buffer(
            &self.params,
            0,
            bytemuck::cast_slice(&[width, height, count, triangles]),
        );
        if runs.len() as u64 * self.run_stride > self.runs.size() {
            self.runs = runs_buffer(device, runs.len() as u64, self.run_stride);
        }
        // A word a triangle for the large ones, then two for the huge ones.
        if u64::from(triangles) * 12 > self.large.size() {
            self.large = u32s_buffer(device, "raster large triangles", 3 * u64::from(triangles));
        }
        // Two counts a run: its large triangles and its huge ones.
        if runs.len() as u64 * 8 > self.large_counts.size() {
            self.large_counts = u32s_buffer(device, "raster large counts", 2 * runs.len() as u64);
        }
        let stride = usize::try_from(self.run_stride).unwrap_or(256);
        let mut slots = vec![0u8; runs.len() * stride];
        for (i, (slot, run)) in slots.chunks_exact_mut(stride).zip(runs).enumerate() {
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            let words = [
                run.first,
                run.count,
                index,
                u32::from(shadow),
                width,
                height,
            ];
            slot[..24].copy_from_slice(bytemuck::cast_slice(&words));
        }
        if !slots.is_empty() {
            gpu.queue.write_buffer(&self.runs, 0, &slots);
        }
        self.frame_runs.clear();
        self.frame_runs.extend_from_slice(runs);
    }

    /// The raster's bind group (group 2): `indices` the mesh store's, `nearest` the camera's
    /// per-pixel nearest (64-bit), `shadow_nearest` the shadow map's (32-bit).
    pub(super) fn group(
        &self,
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        indices: &wgpu::Buffer,
        nearest: &wgpu::Buffer,
        shadow_nearest: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("compute raster"),
            layout,
            entries: &[
                bind(0, self.items.as_entire_binding()),
                bind(1, indices.as_entire_binding()),
                bind(2, nearest.as_entire_binding()),
                bind(3, self.params.as_entire_binding()),
                bind(
                    4,
                    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &self.runs,
                        offset: 0,
                        size: wgpu::BufferSize::new(RUN_BYTES),
                    }),
                ),
                bind(5, self.large.as_entire_binding()),
                bind(6, self.large_counts.as_entire_binding()),
                bind(7, shadow_nearest.as_entire_binding()),
            ],
        })
    }

    /// Zeroes the runs' counts of large triangles (before [`Self::dispatch`]).
    pub(super) fn clear(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.clear_buffer(&self.large_counts, 0, None);
    }

    /// Each run's dispatches: a thread a triangle, then a workgroup a large one and all of
    /// them a huge one.
    /// `materials`: the store's materials' bind groups (group 1; the opaque runs read none,
    /// any serves their layout), `group` from [`Self::group`]; group 0 already set.
    pub(super) fn dispatch(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        pipelines: &RasterPipelines,
        materials: &[wgpu::BindGroup],
        group: &wgpu::BindGroup,
    ) {
        for (i, run) in self.frame_runs.iter().enumerate() {
            let (x, y) = dispatch_size(run.count);
            let material = materials.get(run.material.unwrap_or(0) as usize);
            let (Some(material), Ok(offset)) =
                (material, u32::try_from(i as u64 * self.run_stride))
            else {
                continue;
            };
            if x == 0 {
                continue;
            }
            let masked = run.material.is_some();
            pass.set_bind_group(1, material, &[]);
            pass.set_bind_group(2, group, &[offset]);
            pass.set_pipeline(if masked {
                &pipelines.masked
            } else {
                &pipelines.opaque
            });
            pass.dispatch_workgroups(x, y, 1);
            pass.set_pipeline(if masked {
                &pipelines.large_masked
            } else {
                &pipelines.large
            });
            pass.dispatch_workgroups(run.count.min(LARGE_GROUPS), 1, 1);
        }
    }
}
