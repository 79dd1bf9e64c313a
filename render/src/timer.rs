//! GPU timestamps around a frame's passes (where the adapter has them): how long the GPU
//! spent on the shadow and main passes, read back after the frame.

use super::gpu::Gpu;

/// Timestamps of two passes (begin and end of each).
#[derive(Debug)]
pub struct GpuTimer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    period_ns: f32,
}

/// Begin and end of the deform, shadow and main passes; where the main pass is resolved in
/// compute, the ends of its visibility pass, tile sorting and resolve and the beginning of what
/// is drawn over it.
const QUERIES: u32 = 10;

impl GpuTimer {
    /// A timer, when the device can write timestamps inside passes.
    #[must_use]
    pub fn new(gpu: &Gpu) -> Option<Self> {
        if !gpu.timestamps {
            return None;
        }
        let queries = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("frame timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: QUERIES,
        });
        let size = u64::from(QUERIES) * 8;
        let resolve = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamps"),
            size,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let readback = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamps readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Some(Self {
            queries,
            resolve,
            readback,
            period_ns: gpu.queue.get_timestamp_period(),
        })
    }

    /// The writes for render pass `pass` (0 shadow, 1 main).
    #[must_use]
    pub fn pass_writes(&self, pass: u32) -> wgpu::RenderPassTimestampWrites<'_> {
        wgpu::RenderPassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(2 + pass * 2),
            end_of_pass_write_index: Some(3 + pass * 2),
        }
    }

    /// The visibility pass: the main pass's beginning, and its own end.
    #[must_use]
    pub fn visibility_writes(&self) -> wgpu::RenderPassTimestampWrites<'_> {
        wgpu::RenderPassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(4),
            end_of_pass_write_index: Some(6),
        }
    }

    /// The end of the compute pass `step` of the resolve (0 the tile sorting, 1 the resolve).
    #[must_use]
    pub fn resolve_writes(&self, step: u32) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: None,
            end_of_pass_write_index: Some(7 + step),
        }
    }

    /// What is drawn over the resolve: its beginning, and the main pass's end.
    #[must_use]
    pub fn over_writes(&self) -> wgpu::RenderPassTimestampWrites<'_> {
        wgpu::RenderPassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(9),
            end_of_pass_write_index: Some(5),
        }
    }

    /// The writes for the deform pass.
    #[must_use]
    pub fn compute_writes(&self) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: Some(1),
        }
    }

    /// Records the copy of the timestamps (after the passes).
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.queries, 0..QUERIES, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, u64::from(QUERIES) * 8);
    }

    /// GPU milliseconds of the last resolved frame's passes. Waits for the GPU. `deform` and
    /// `shadows` tell whether those passes ran, `resolved` whether the main pass was resolved
    /// in compute.
    #[must_use]
    pub fn read(
        &self,
        gpu: &Gpu,
        deform: bool,
        shadows: bool,
        resolved: bool,
    ) -> Option<PassTimes> {
        let slice = self.readback.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        gpu.device.poll(wgpu::PollType::wait_indefinitely()).ok()?;
        let ticks: Vec<u64> = {
            let data = slice.get_mapped_range().ok()?;
            bytemuck::cast_slice::<u8, u64>(&data).to_vec()
        };
        self.readback.unmap();
        let ms = |a: u64, b: u64| b.saturating_sub(a) as f64 * f64::from(self.period_ns) / 1e6;
        let first = if deform {
            ticks[0]
        } else if shadows {
            ticks[2]
        } else {
            ticks[4]
        };
        Some(PassTimes {
            deform: if deform { ms(ticks[0], ticks[1]) } else { 0.0 },
            shadow: if shadows { ms(ticks[2], ticks[3]) } else { 0.0 },
            main: ms(ticks[4], ticks[5]),
            total: ms(first, ticks[5]),
            resolve: resolved.then(|| ResolveTimes {
                visibility: ms(ticks[4], ticks[6]),
                classify: ms(ticks[6], ticks[7]),
                resolve: ms(ticks[7], ticks[8]),
                over: ms(ticks[8], ticks[5]),
            }),
        })
    }
}

/// GPU time of each pass of a frame, ms.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PassTimes {
    pub deform: f64,
    pub shadow: f64,
    pub main: f64,
    /// First pass begin to main pass end.
    pub total: f64,
    /// The main pass's steps, where it was resolved in compute.
    pub resolve: Option<ResolveTimes>,
}

/// GPU time of the steps of a main pass resolved in compute, ms: each from the end of the one
/// before (the visibility pass from the main pass's beginning).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ResolveTimes {
    pub visibility: f64,
    pub classify: f64,
    pub resolve: f64,
    /// The copy of the resolved image and what is drawn over it.
    pub over: f64,
}
