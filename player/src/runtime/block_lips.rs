//! Lip sync from a sound as it arrives, without its script: in blocks of [`BLOCK_MS`], each read
//! by the network that hears the sound alone over the two seconds before it and
//! [`LOOKAHEAD_MS`] after it. The network is language-independent, so every language streams
//! the same way (docs/align.md, "Streamed lines without text").

use npc_core::anim::lipsync::VisemeEvent;
use npc_core::speech::unscripted::by_sound_alone;
use npc_core::viseme::VisemeId;

/// The sound is lip-synced in blocks this long, ms.
pub const BLOCK_MS: f64 = 100.0;
/// Each block is heard with this much of the sound after it, ms: a block's visemes are given
/// once this much more has arrived. With the block, the mouth's look-ahead is 200 ms (the most
/// issue 34 allows a stream). Chosen on MBROLA sentences and festvox-ru's validation
/// sentences: none, 50, 100, 200 and 400 ms (docs/align.md).
pub const LOOKAHEAD_MS: f64 = 100.0;
/// Each block is heard with this much of the sound before it, ms: the network normalises its
/// cepstra over what it is given. Streamed MBROLA French, German and Spanish: 60.6-67.0% of
/// frames right with 150 ms, 81.4-86.8% with 1000 ms, against 82.9-84.5% read whole
/// (tests/streamed_lip_sync.rs); with the two networks averaged (2026-12-07), 81.7, 78.9 and
/// 84.4% with 1000 ms and 79.3, 82.4 and 85.2% with 2000 ms, against 83.7, 85.9 and 87.2% read
/// whole.
const CONTEXT_MS: f64 = 2000.0;

/// Lip sync from the sound, block by block, each block heard with some sound before and after
/// it.
#[derive(Debug)]
pub struct BlockLipSync {
    /// Samples lip-synced so far.
    done: usize,
    /// The last event sent, ms.
    last_ms: f64,
    /// The viseme of the last event sent: a block starting with it in force sends nothing.
    last_id: Option<VisemeId>,
    /// How much of the sound after a block it is heard with, ms.
    lookahead_ms: f64,
}

impl Default for BlockLipSync {
    /// Lip sync with [`LOOKAHEAD_MS`].
    fn default() -> Self {
        Self {
            done: 0,
            last_ms: 0.0,
            last_id: None,
            lookahead_ms: LOOKAHEAD_MS,
        }
    }
}

impl BlockLipSync {
    /// Lip sync that fills in where another source lags (a streamed script being followed):
    /// each block as soon as it has arrived, heard without the sound after it.
    #[must_use]
    pub fn filling_in() -> Self {
        Self {
            lookahead_ms: 0.0,
            ..Self::default()
        }
    }

    /// [`Self::filling_in`] from `at_ms` of a sound at `rate` (another source gave the visemes
    /// before, and the line is already playing).
    #[must_use]
    pub fn after(at_ms: f64, rate: u32) -> Self {
        let mut sync = Self::filling_in();
        sync.skip_to(at_ms, rate);
        sync
    }

    /// Goes on from `at_ms` of a sound at `rate`, if that is further than it has got.
    pub fn skip_to(&mut self, at_ms: f64, rate: u32) {
        let at = (at_ms * f64::from(rate) / 1000.0) as usize;
        if at > self.done {
            // Another source spoke in between: the viseme in force is not known to be ours.
            self.last_id = None;
        }
        self.done = self.done.max(at);
        self.last_ms = self.last_ms.max(at_ms);
    }

    /// The visemes of all of `samples` lip-synced as they would be if they arrived
    /// `piece_ms` at a time (a stream's pace does not change what is heard, only when).
    #[must_use]
    pub fn as_arriving(samples: &[f32], rate: u32, piece_ms: f64) -> Vec<VisemeEvent> {
        let mut lips = Self::default();
        let piece = ((piece_ms * f64::from(rate) / 1000.0) as usize).max(1);
        let mut events = Vec::new();
        let mut arrived = 0;
        while arrived < samples.len() {
            arrived = (arrived + piece).min(samples.len());
            let last = arrived == samples.len();
            events.extend(lips.blocks(&samples[..arrived], rate, last));
        }
        events
    }

    /// The viseme events of the whole blocks of `samples` not yet done whose look-ahead has
    /// arrived (all of it when `last`), in order.
    pub fn blocks(&mut self, samples: &[f32], rate: u32, last: bool) -> Vec<VisemeEvent> {
        let mut out = Vec::new();
        if rate == 0 {
            return out;
        }
        let at = |ms: f64| (ms * f64::from(rate) / 1000.0) as usize;
        let ms = |at: usize| at as f64 * 1000.0 / f64::from(rate);
        let (block, ahead, context) = (at(BLOCK_MS).max(1), at(self.lookahead_ms), at(CONTEXT_MS));
        while samples.len().saturating_sub(self.done) >= block + ahead
            || (last && samples.len() > self.done)
        {
            let to = (self.done + block).min(samples.len());
            let heard_to = (to + ahead).min(samples.len());
            let from = self.done.saturating_sub(context);
            let (block_ms, to_ms) = (ms(self.done), ms(to));
            let heard = by_sound_alone(&samples[from..heard_to], rate);
            // The viseme in force as the block starts, then the ones inside it (those heard
            // in the look-ahead wait for their own block).
            let shifted: Vec<VisemeEvent> = heard
                .visemes
                .iter()
                .map(|e| VisemeEvent::new(e.id, e.offset_ms + ms(from)))
                .filter(|e| heard_to == to || e.offset_ms < to_ms)
                .collect();
            let first = shifted.iter().rposition(|e| e.offset_ms <= block_ms);
            for (i, e) in shifted.iter().enumerate() {
                let inside = e.offset_ms > block_ms || Some(i) == first;
                let at = e.offset_ms.max(block_ms).max(self.last_ms);
                let change = self.last_id != Some(e.id);
                if inside && change && (out.is_empty() && self.done == 0 || at >= self.last_ms) {
                    out.push(VisemeEvent::new(e.id, at));
                    self.last_ms = at;
                    self.last_id = Some(e.id);
                }
            }
            self.done = to;
        }
        out
    }
}
