//! Which entries of a draw list's joint palette were written since the frame before, so that
//! the renderer uploads only those: a crowd's far NPCs animate at lower rates and keep their
//! palettes most frames, and a crowd's palettes are tens of megabytes.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// Gives every draw list its own number.
static LISTS: AtomicU64 = AtomicU64::new(1);

/// One frame of one draw list: the list's number and the frame's.
pub type PaletteStamp = (u64, u64);

/// The palette entries written in a draw list's current frame.
#[derive(Debug)]
pub struct PaletteChanges {
    list: u64,
    frame: u64,
    /// Written ranges, in order, neighbours merged.
    written: Vec<Range<u32>>,
}

/// What a renderer that holds some frame's palette must upload for this one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaletteUpload<'a> {
    /// The whole palette (the renderer holds another list's, or an older frame's).
    All,
    /// Only these ranges of entries (it holds the frame before).
    Ranges(&'a [Range<u32>]),
    /// Nothing (it holds this frame).
    Nothing,
}

impl Default for PaletteChanges {
    fn default() -> Self {
        Self {
            list: LISTS.fetch_add(1, Ordering::Relaxed),
            frame: 0,
            written: Vec::new(),
        }
    }
}

impl Clone for PaletteChanges {
    /// A copy is another list: a renderer never takes its palette for the original's.
    fn clone(&self) -> Self {
        Self {
            written: self.written.clone(),
            ..Self::default()
        }
    }
}

impl PaletteChanges {
    /// Starts the next frame: nothing written yet.
    pub fn next_frame(&mut self) {
        self.frame += 1;
        self.written.clear();
    }

    /// Entries `range` were written this frame.
    pub fn written(&mut self, range: Range<u32>) {
        if range.is_empty() {
            return;
        }
        match self.written.last_mut() {
            Some(last) if last.end == range.start => last.end = range.end,
            _ => self.written.push(range),
        }
    }

    /// This frame of this list.
    #[must_use]
    pub fn stamp(&self) -> PaletteStamp {
        (self.list, self.frame)
    }

    /// What to upload for a renderer holding the palette of frame `held` (`None`: none).
    #[must_use]
    pub fn since(&self, held: Option<PaletteStamp>) -> PaletteUpload<'_> {
        match held {
            Some((list, frame)) if list == self.list && frame == self.frame => {
                PaletteUpload::Nothing
            }
            Some((list, frame)) if list == self.list && frame + 1 == self.frame => {
                PaletteUpload::Ranges(&self.written)
            }
            _ => PaletteUpload::All,
        }
    }
}

/// `ranges` (in order) merged where less than `gap` entries lie between them: fewer, larger
/// copies.
#[must_use]
pub fn merged(ranges: &[Range<u32>], gap: u32) -> Vec<Range<u32>> {
    let mut out: Vec<Range<u32>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start < last.end.saturating_add(gap) => {
                last.end = last.end.max(r.end);
            }
            _ => out.push(r.clone()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_renderer_holding_the_frame_before_gets_only_what_was_written() {
        let mut changes = PaletteChanges::default();
        let first = changes.stamp();
        changes.next_frame();
        changes.written(0..4);
        changes.written(4..6);
        changes.written(10..12);
        changes.written(12..12);
        assert_eq!(
            changes.since(Some(first)),
            PaletteUpload::Ranges(&[0..6, 10..12])
        );
        assert_eq!(changes.since(Some(changes.stamp())), PaletteUpload::Nothing);
        assert_eq!(changes.since(None), PaletteUpload::All);
        // Two frames on, or another list: everything.
        let now = changes.stamp();
        changes.next_frame();
        changes.next_frame();
        assert_eq!(changes.since(Some(now)), PaletteUpload::All);
        let other = changes.clone();
        assert_eq!(other.since(Some(changes.stamp())), PaletteUpload::All);
    }

    #[test]
    fn ranges_closer_than_the_gap_merge() {
        assert_eq!(
            merged(&[0..2, 3..5, 9..10, 40..41], 4),
            [0..5, 9..10, 40..41]
        );
        assert_eq!(merged(&[0..2, 3..5], 0), [0..2, 3..5]);
        assert!(merged(&[], 8).is_empty());
    }
}
