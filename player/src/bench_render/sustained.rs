//! `bench-render`'s sustained frames: the same work as a render loop, the GPU drawing one
//! frame while the CPU records the next (at most two in flight), either on a render thread
//! that records a frame while the next is prepared (the player's way) or on one thread, one
//! after the other (for comparison).

use std::collections::VecDeque;
use std::time::Instant;

use npc_render::{DrawList, FrameView, Headless, RenderThread};

use super::{Shot, Spent, animate, spread};
use crate::record::Recorder;
use crate::world::World;

/// What the sustained frames measured.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sustained {
    /// Mean wall time a frame.
    pub frame_ms: f64,
    /// Medians of preparing a frame, recording and submitting it, and waiting for the GPU.
    pub phases_ms: [f64; 3],
    /// Medians of the recording's uploads, encoding and submit.
    pub record_ms: [f64; 3],
}

/// The offscreen renderer with the frames it has in flight and the times it took.
struct Drawing {
    headless: Headless,
    in_flight: VecDeque<wgpu::SubmissionIndex>,
    recording: Vec<f64>,
    parts: [Vec<f64>; 3],
    waiting: Vec<f64>,
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn wait(headless: &Headless, index: Option<wgpu::SubmissionIndex>) -> anyhow::Result<()> {
    let poll = match index {
        Some(index) => wgpu::PollType::Wait {
            submission_index: Some(index),
            timeout: None,
        },
        None => wgpu::PollType::wait_indefinitely(),
    };
    headless
        .gpu
        .device
        .poll(poll)
        .map(|_| ())
        .map_err(|e| anyhow::anyhow!("the GPU did not finish: {e}"))
}

impl Drawing {
    fn new(headless: Headless) -> Self {
        Self {
            headless,
            in_flight: VecDeque::new(),
            recording: Vec::new(),
            parts: Default::default(),
            waiting: Vec::new(),
        }
    }

    /// Records and submits a frame, then waits for the GPU to finish the frame two before.
    fn draw(&mut self, list: &DrawList, view: &FrameView) -> anyhow::Result<()> {
        let recording = Instant::now();
        let (index, times) = self.headless.submit_untimed(list, view);
        self.in_flight.push_back(index);
        self.recording.push(ms_since(recording));
        for (all, ms) in
            self.parts
                .iter_mut()
                .zip([times.upload_ms, times.encode_ms, times.submit_ms])
        {
            all.push(ms);
        }
        let waiting = Instant::now();
        if self.in_flight.len() > 2 {
            wait(&self.headless, self.in_flight.pop_front())?;
        }
        self.waiting.push(ms_since(waiting));
        Ok(())
    }

    /// Waits for every frame in flight; the figures, given the frames' preparing times and
    /// their wall time from `start`.
    fn finish(
        mut self,
        mut preparing: Vec<f64>,
        start: Instant,
        frames: u32,
    ) -> anyhow::Result<(Headless, Sustained)> {
        wait(&self.headless, None)?;
        let frame_ms = ms_since(start) / f64::from(frames.max(1));
        let median = |v: &mut Vec<f64>| spread(v).map_or(0.0, |s| s.median);
        let sustained = Sustained {
            frame_ms,
            phases_ms: [
                median(&mut preparing),
                median(&mut self.recording),
                median(&mut self.waiting),
            ],
            record_ms: self.parts.each_mut().map(median),
        };
        Ok((self.headless, sustained))
    }
}

/// The frames' times from `first_frame` on, each recorded after it is prepared, on this thread.
pub(super) fn on_one_thread(
    headless: Headless,
    mut list: DrawList,
    world: &mut World,
    shot: &Shot<'_>,
    first_frame: u32,
    recorder: &mut Option<Recorder>,
) -> anyhow::Result<(Headless, DrawList, Sustained)> {
    let frames = shot.options.frames;
    let primitives = headless.renderer.store.primitives.clone();
    let mut drawing = Drawing::new(headless);
    let mut preparing = Vec::with_capacity(frames as usize);
    let start = Instant::now();
    for frame in first_frame..first_frame + frames {
        let t_ms = f64::from(frame) * f64::from(super::DT) * 1000.0;
        let prepared = Instant::now();
        let view = animate(
            world,
            &primitives,
            shot,
            t_ms,
            &mut list,
            recorder.as_mut(),
            &mut Spent::default(),
        )?;
        preparing.push(ms_since(prepared));
        drawing.draw(&list, &view)?;
    }
    let (headless, sustained) = drawing.finish(preparing, start, frames)?;
    Ok((headless, list, sustained))
}

/// The frames' times from `first_frame` on, each recorded on a render thread while this
/// thread prepares the next.
pub(super) fn on_render_thread(
    headless: Headless,
    list: DrawList,
    world: &mut World,
    shot: &Shot<'_>,
    first_frame: u32,
    recorder: &mut Option<Recorder>,
) -> anyhow::Result<(Headless, DrawList, Sustained)> {
    let frames = shot.options.frames;
    let primitives = headless.renderer.store.primitives.clone();
    let mut thread = RenderThread::spawn(
        Drawing::new(headless),
        list,
        |drawing: &mut Drawing, list: &DrawList, view: FrameView| drawing.draw(list, &view),
    )?;
    let mut preparing = Vec::with_capacity(frames as usize);
    let start = Instant::now();
    let mut prepared = Ok(());
    for frame in first_frame..first_frame + frames {
        let t_ms = f64::from(frame) * f64::from(super::DT) * 1000.0;
        let Some(mut list) = thread.list() else {
            break;
        };
        let preparing_start = Instant::now();
        let view = animate(
            world,
            &primitives,
            shot,
            t_ms,
            &mut list,
            recorder.as_mut(),
            &mut Spent::default(),
        );
        preparing.push(ms_since(preparing_start));
        match view {
            Ok(view) => {
                if !thread.draw(list, view) {
                    break;
                }
            }
            Err(e) => {
                prepared = Err(e);
                break;
            }
        }
    }
    let (drawing, list) = thread.finish()?;
    prepared?;
    let (headless, sustained) = drawing.finish(preparing, start, frames)?;
    Ok((headless, list, sustained))
}
