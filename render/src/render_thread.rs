//! A render thread: the thread that animates fills the next frame's draw list while this one
//! uploads, records and submits the frame before. Two draw lists take turns, one being
//! filled and one being drawn, so the CPU's two halves of a frame overlap instead of running
//! one after the other.

use std::sync::mpsc;
use std::thread::JoinHandle;

use crate::DrawList;

use anyhow::Context;

/// What the render thread hands back when it is finished: its state and its lists.
type Finished<S> = anyhow::Result<(S, Vec<DrawList>)>;

/// A thread drawing the frames handed to it, one frame behind the thread filling them.
/// `S` is what it draws with (the renderer and its target), `F` what a frame brings besides
/// its draw list (the view, what is drawn over it).
#[derive(Debug)]
pub struct RenderThread<S, F> {
    frames: Option<mpsc::SyncSender<(DrawList, F)>>,
    lists: mpsc::Receiver<DrawList>,
    spare: Vec<DrawList>,
    handle: Option<JoinHandle<Finished<S>>>,
}

impl<S, F> RenderThread<S, F>
where
    S: Send + 'static,
    F: Send + 'static,
{
    /// Starts the thread with `state`, drawing each frame with `draw`. `list` is the draw list
    /// the caller filled so far; a second one like it (same deform budget) is made.
    ///
    /// # Errors
    /// The thread cannot be started.
    pub fn spawn(
        state: S,
        list: DrawList,
        mut draw: impl FnMut(&mut S, &DrawList, F) -> anyhow::Result<()> + Send + 'static,
    ) -> anyhow::Result<Self> {
        let mut second = DrawList::default();
        second.deform_budget = list.deform_budget;
        let (frames, incoming) = mpsc::sync_channel::<(DrawList, F)>(1);
        let (give_back, lists) = mpsc::channel();
        let handle = std::thread::Builder::new()
            .name("render".to_owned())
            .spawn(move || {
                let mut state = state;
                let mut kept = Vec::new();
                for (list, frame) in incoming {
                    draw(&mut state, &list, frame)?;
                    if let Err(mpsc::SendError(list)) = give_back.send(list) {
                        kept.push(list);
                    }
                }
                Ok((state, kept))
            })
            .context("cannot start the render thread")?;
        Ok(Self {
            frames: Some(frames),
            lists,
            spare: vec![second, list],
            handle: Some(handle),
        })
    }

    /// A draw list to fill: a spare one, or the one the render thread finishes with next
    /// (waiting for it). `None`: the thread has stopped ([`Self::finish`] says why).
    pub fn list(&mut self) -> Option<DrawList> {
        self.spare.pop().or_else(|| self.lists.recv().ok())
    }

    /// Hands a filled list and its frame to the render thread. False: the thread has stopped
    /// ([`Self::finish`] says why).
    pub fn draw(&mut self, list: DrawList, frame: F) -> bool {
        self.frames
            .as_ref()
            .is_some_and(|frames| frames.send((list, frame)).is_ok())
    }

    /// Waits for the frames handed over to be drawn and stops the thread; gives back its state
    /// and one of the lists (the other is dropped).
    ///
    /// # Errors
    /// A frame's drawing failed, or the thread panicked.
    pub fn finish(mut self) -> anyhow::Result<(S, DrawList)> {
        drop(self.frames.take());
        let stopped = || anyhow::anyhow!("the render thread stopped unexpectedly (see the log)");
        let handle = self.handle.take().ok_or_else(stopped)?;
        let (state, kept) = handle.join().map_err(|_| stopped())??;
        let list = kept
            .into_iter()
            .chain(self.lists.try_iter())
            .chain(self.spare.drain(..))
            .next()
            .unwrap_or_default();
        Ok((state, list))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// A fake renderer for these tests: notes the frames it was given and what their lists
    /// held.
    #[derive(Default)]
    struct FakeRenderer {
        drawn: Vec<(u32, usize)>,
    }

    fn filled(list: &mut DrawList, chunks: usize) {
        list.clear();
        list.chunks = vec![bytemuck::Zeroable::zeroed(); chunks];
    }

    #[test]
    fn frames_are_drawn_in_order_from_two_lists_taking_turns() {
        let mut first = DrawList::default();
        first.deform_budget = Some(99);
        let mut thread = RenderThread::spawn(
            FakeRenderer::default(),
            first,
            |fake: &mut FakeRenderer, list: &DrawList, frame: u32| {
                assert_eq!(
                    list.deform_budget,
                    Some(99),
                    "the second list keeps the budget"
                );
                fake.drawn.push((frame, list.chunks.len()));
                Ok(())
            },
        )
        .unwrap();
        for frame in 0..20u32 {
            let mut list = thread.list().expect("the render thread runs");
            filled(&mut list, frame as usize);
            assert!(thread.draw(list, frame));
        }
        let (fake, list) = thread.finish().unwrap();
        let expected: Vec<(u32, usize)> = (0..20).map(|f| (f, f as usize)).collect();
        assert_eq!(fake.drawn, expected);
        assert_eq!(list.deform_budget, Some(99));
    }

    #[test]
    fn a_failed_frame_stops_the_thread_and_says_why() {
        let mut thread = RenderThread::spawn(
            FakeRenderer::default(),
            DrawList::default(),
            |_: &mut FakeRenderer, _: &DrawList, frame: u32| {
                if frame == 3 {
                    Err(anyhow::anyhow!("frame {frame} failed"))
                } else {
                    Ok(())
                }
            },
        )
        .unwrap();
        let mut handed = 0;
        for frame in 0..50u32 {
            let Some(list) = thread.list() else { break };
            if !thread.draw(list, frame) {
                break;
            }
            handed += 1;
        }
        assert!(handed < 50, "the caller learns that the thread stopped");
        let why = thread.finish().err().expect("the frame's error");
        assert_eq!(why.to_string(), "frame 3 failed");
    }

    #[test]
    fn a_panic_on_the_render_thread_is_an_error_not_a_panic_here() {
        let mut thread = RenderThread::spawn(
            FakeRenderer::default(),
            DrawList::default(),
            |_: &mut FakeRenderer, _: &DrawList, frame: u32| {
                assert!(frame < 2, "the fake renderer gives up at frame {frame}");
                Ok(())
            },
        )
        .unwrap();
        for frame in 0..50u32 {
            let Some(list) = thread.list() else { break };
            if !thread.draw(list, frame) {
                break;
            }
        }
        let why = thread.finish().err().expect("an error");
        assert!(why.to_string().contains("stopped unexpectedly"), "{why}");
    }
}
