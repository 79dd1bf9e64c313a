//! Frames without a window: draw lists drawn offscreen and read back as images. Used by
//! `npc-player render`, `bench-render` and the tests; the window shares the same renderer.

use std::time::Instant;

use image::RgbaImage;

use crate::offscreen::OFFSCREEN_FORMAT;
use crate::sky_textures::CubeFaces;
use crate::timer::{GpuTimer, PassTimes};
use crate::{DrawList, FrameView, Gpu, MeshStoreBuilder, Offscreen, Renderer};

/// Where the calling thread's time went in [`Headless::submit_untimed`], in milliseconds:
/// the draw list's uploads, encoding the passes, and the queue's submit.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RecordTimes {
    pub upload_ms: f64,
    pub encode_ms: f64,
    pub submit_ms: f64,
}

/// Samples per pixel of offscreen frames.
pub const SAMPLES: u32 = 4;

/// A GPU, a renderer and an offscreen target of one size.
#[derive(Debug)]
pub struct Headless {
    pub gpu: Gpu,
    pub renderer: Renderer,
    pub offscreen: Offscreen,
    pub list: DrawList,
    pub timer: Option<GpuTimer>,
}

impl Headless {
    /// Opens the GPU and uploads `meshes` and `skies`; frames have [`SAMPLES`] samples.
    pub fn new(
        meshes: MeshStoreBuilder,
        skies: &[CubeFaces; 3],
        width: u32,
        height: u32,
        shadow_size: u32,
    ) -> anyhow::Result<Self> {
        Self::with_samples(meshes, skies, width, height, shadow_size, SAMPLES)
    }

    /// As [`Self::new`] with `samples` samples per pixel (1 or 4).
    pub fn with_samples(
        meshes: MeshStoreBuilder,
        skies: &[CubeFaces; 3],
        width: u32,
        height: u32,
        shadow_size: u32,
        samples: u32,
    ) -> anyhow::Result<Self> {
        let samples = if samples >= 4 { 4 } else { 1 };
        let gpu = Gpu::headless()?;
        let renderer = Renderer::new(&gpu, meshes, skies, OFFSCREEN_FORMAT, samples, shadow_size)?;
        let offscreen = Offscreen::new(&gpu, width, height, samples);
        let timer = GpuTimer::new(&gpu);
        let mut list = DrawList::default();
        list.deform_budget = Some(gpu.deform_budget());
        Ok(Self {
            gpu,
            renderer,
            offscreen,
            list,
            timer,
        })
    }

    /// Records one frame of `list` (with timestamps when `timed`).
    fn record(&mut self, list: &DrawList, view: &FrameView, timed: bool) -> wgpu::CommandEncoder {
        let aspect = self.offscreen.width as f32 / self.offscreen.height as f32;
        self.renderer.prepare(&self.gpu, view, list, aspect);
        self.encoder(list, view, timed)
    }

    /// Encodes one frame of `list`, its uploads made ([`Renderer::prepare`]).
    fn encoder(&mut self, list: &DrawList, view: &FrameView, timed: bool) -> wgpu::CommandEncoder {
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("frame"),
            });
        let target = self.offscreen.target();
        let timer = if timed { self.timer.as_ref() } else { None };
        self.renderer
            .encode(&self.gpu, &mut encoder, &target, view, list, timer);
        encoder
    }

    /// Records and submits one frame of `list` without reading it back; returns the GPU
    /// time of its passes when the adapter has timestamps.
    pub fn submit(&mut self, list: &DrawList, view: &FrameView) -> Option<PassTimes> {
        let mut encoder = self.record(list, view, true);
        if let Some(t) = &self.timer {
            t.resolve(&mut encoder);
        }
        self.gpu.queue.submit([encoder.finish()]);
        self.timer.as_ref().and_then(|t| t.read(&self.gpu))
    }

    /// Records and submits a frame without timestamps and without waiting for it; says where
    /// the calling thread's time went.
    pub fn submit_untimed(
        &mut self,
        list: &DrawList,
        view: &FrameView,
    ) -> (wgpu::SubmissionIndex, RecordTimes) {
        let ms_since = |t: Instant| t.elapsed().as_secs_f64() * 1000.0;
        let start = Instant::now();
        let aspect = self.offscreen.width as f32 / self.offscreen.height as f32;
        self.renderer.prepare(&self.gpu, view, list, aspect);
        let upload_ms = ms_since(start);
        let encoding = Instant::now();
        let encoder = self.encoder(list, view, false);
        let command = encoder.finish();
        let encode_ms = ms_since(encoding);
        let submitting = Instant::now();
        let index = self.gpu.queue.submit([command]);
        let times = RecordTimes {
            upload_ms,
            encode_ms,
            submit_ms: ms_since(submitting),
        };
        (index, times)
    }

    /// Draws `list`, then what `over` draws onto the finished (resolved) frame, given the GPU,
    /// the frame's view ([`crate::OFFSCREEN_OVERLAY_FORMAT`]) and its size in pixels (the player's screen: subtitles, names), and
    /// reads the frame back.
    pub fn draw_list_over(
        &mut self,
        list: &DrawList,
        view: &FrameView,
        over: impl FnOnce(&Gpu, &wgpu::TextureView, [u32; 2]),
    ) -> anyhow::Result<RgbaImage> {
        let encoder = self.record(list, view, false);
        self.gpu.queue.submit([encoder.finish()]);
        let size = [self.offscreen.width, self.offscreen.height];
        over(&self.gpu, self.offscreen.overlay_view(), size);
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("read back"),
            });
        self.offscreen.copy_out(&mut encoder);
        self.gpu.queue.submit([encoder.finish()]);
        self.offscreen.read(&self.gpu)
    }

    /// Draws `list` and reads the frame back.
    pub fn draw_list(&mut self, list: &DrawList, view: &FrameView) -> anyhow::Result<RgbaImage> {
        let mut encoder = self.record(list, view, false);
        self.offscreen.copy_out(&mut encoder);
        self.gpu.queue.submit([encoder.finish()]);
        self.offscreen.read(&self.gpu)
    }
}
