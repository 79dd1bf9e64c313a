//! GPU timestamps around a frame's passes (where the adapter has them): how long the GPU
//! spent on the deform, shadow and main passes (and the main pass's steps where it is resolved
//! in compute), read back after the frame. Only the timestamps a frame wrote are resolved: on
//! some drivers resolving one never written waits forever.

use std::cell::Cell;

use super::gpu::Gpu;

/// The frame's timestamps, by index.
#[derive(Debug)]
pub struct GpuTimer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    period_ns: f32,
    /// Which queries this frame's passes were given to write (bit i: query i).
    written: Cell<u16>,
    /// Which queries the last [`GpuTimer::resolve`] copied out.
    resolved: Cell<u16>,
}

/// Begin and end of the deform, shadow and main passes; where the main pass is resolved in
/// compute, the ends of its visibility pass, tile sorting and resolve and the beginning of what
/// is drawn over it.
const QUERIES: u32 = 11;
const DEFORM: (u32, u32) = (0, 1);
const SHADOW: (u32, u32) = (2, 3);
const MAIN: (u32, u32) = (4, 5);
const VISIBILITY_END: u32 = 6;
const TILES_END: u32 = 7;
const RESOLVE_END: u32 = 8;
const OVER_BEGIN: u32 = 9;
const RASTER_END: u32 = 10;
/// Bytes between resolved queries (the alignment `resolve_query_set` asks of its offset).
const SLOT: u64 = wgpu::QUERY_RESOLVE_BUFFER_ALIGNMENT;

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
        let resolve = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamps"),
            size: u64::from(QUERIES) * SLOT,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let readback = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamps readback"),
            size: u64::from(QUERIES) * 8,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Some(Self {
            queries,
            resolve,
            readback,
            period_ns: gpu.queue.get_timestamp_period(),
            written: Cell::new(0),
            resolved: Cell::new(0),
        })
    }

    /// Notes that `index` is written this frame and gives it back.
    fn write(&self, index: Option<u32>) -> Option<u32> {
        if let Some(i) = index {
            self.written.set(self.written.get() | (1 << i));
        }
        index
    }

    fn render(&self, begin: Option<u32>, end: Option<u32>) -> wgpu::RenderPassTimestampWrites<'_> {
        wgpu::RenderPassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: self.write(begin),
            end_of_pass_write_index: self.write(end),
        }
    }

    fn compute(
        &self,
        begin: Option<u32>,
        end: Option<u32>,
    ) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: self.write(begin),
            end_of_pass_write_index: self.write(end),
        }
    }

    /// The writes for render pass `pass` (0 shadow, 1 main).
    #[must_use]
    pub fn pass_writes(&self, pass: u32) -> wgpu::RenderPassTimestampWrites<'_> {
        let (begin, end) = if pass == 0 { SHADOW } else { MAIN };
        self.render(Some(begin), Some(end))
    }

    /// The shadow map's render pass: its beginning, and its end unless the compute raster
    /// follows it (`last`: nothing follows).
    #[must_use]
    pub fn shadow_writes(&self, last: bool) -> wgpu::RenderPassTimestampWrites<'_> {
        self.render(Some(SHADOW.0), last.then_some(SHADOW.1))
    }

    /// The end of the shadow map's compute raster (the shadow pass's end).
    #[must_use]
    pub fn shadow_raster_writes(&self) -> wgpu::ComputePassTimestampWrites<'_> {
        self.compute(None, Some(SHADOW.1))
    }

    /// The visibility pass: the main pass's beginning, and its own end.
    #[must_use]
    pub fn visibility_writes(&self) -> wgpu::RenderPassTimestampWrites<'_> {
        self.render(Some(MAIN.0), Some(VISIBILITY_END))
    }

    /// The end of the compute raster and its merge.
    #[must_use]
    pub fn raster_writes(&self) -> wgpu::ComputePassTimestampWrites<'_> {
        self.compute(None, Some(RASTER_END))
    }

    /// The end of the resolve's tile sorting.
    #[must_use]
    pub fn tiles_writes(&self) -> wgpu::ComputePassTimestampWrites<'_> {
        self.compute(None, Some(TILES_END))
    }

    /// The end of the resolve; `last`: nothing is drawn over it, so the main pass ends here.
    #[must_use]
    pub fn resolve_writes(&self, last: bool) -> wgpu::ComputePassTimestampWrites<'_> {
        self.compute(None, Some(if last { MAIN.1 } else { RESOLVE_END }))
    }

    /// What is drawn over the resolve: its beginning, and the main pass's end.
    #[must_use]
    pub fn over_writes(&self) -> wgpu::RenderPassTimestampWrites<'_> {
        self.render(Some(OVER_BEGIN), Some(MAIN.1))
    }

    /// The writes for the deform pass.
    #[must_use]
    pub fn compute_writes(&self) -> wgpu::ComputePassTimestampWrites<'_> {
        self.compute(Some(DEFORM.0), Some(DEFORM.1))
    }

    /// Records the copy of the timestamps the frame wrote (after the passes).
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        let written = self.written.replace(0);
        self.resolved.set(written);
        for i in (0..QUERIES).filter(|i| written & (1 << i) != 0) {
            let at = u64::from(i) * SLOT;
            encoder.resolve_query_set(&self.queries, i..i + 1, &self.resolve, at);
            encoder.copy_buffer_to_buffer(&self.resolve, at, &self.readback, u64::from(i) * 8, 8);
        }
    }

    /// GPU milliseconds of the last resolved frame's passes (those it drew). Waits for the
    /// GPU.
    #[must_use]
    pub fn read(&self, gpu: &Gpu) -> Option<PassTimes> {
        let resolved = self.resolved.get();
        let slice = self.readback.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        gpu.device.poll(wgpu::PollType::wait_indefinitely()).ok()?;
        let ticks: Vec<u64> = {
            let data = slice.get_mapped_range().ok()?;
            bytemuck::cast_slice::<u8, u64>(&data).to_vec()
        };
        self.readback.unmap();
        let has = |i: u32| resolved & (1 << i) != 0;
        let tick = |i: u32| has(i).then(|| ticks[i as usize]);
        let ms = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) => b.saturating_sub(a) as f64 * f64::from(self.period_ns) / 1e6,
            _ => 0.0,
        };
        let span = |(a, b): (u32, u32)| ms(tick(a), tick(b));
        let first = [DEFORM.0, SHADOW.0, MAIN.0].into_iter().find(|&i| has(i))?;
        Some(PassTimes {
            deform: span(DEFORM),
            shadow: span(SHADOW),
            main: span(MAIN),
            total: span((first, MAIN.1)),
            resolve: has(VISIBILITY_END).then(|| {
                let resolve_end = tick(RESOLVE_END).or(tick(MAIN.1));
                ResolveTimes {
                    visibility: span((MAIN.0, VISIBILITY_END)),
                    raster: ms(tick(VISIBILITY_END), tick(RASTER_END)),
                    classify: ms(tick(RASTER_END).or(tick(VISIBILITY_END)), tick(TILES_END)),
                    resolve: ms(tick(TILES_END), resolve_end),
                    over: ms(tick(RESOLVE_END), tick(MAIN.1)),
                }
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
    /// The far objects' compute raster and its merge (0 where none).
    pub raster: f64,
    pub classify: f64,
    pub resolve: f64,
    /// The copy of the resolved image and what is drawn over it.
    pub over: f64,
}
