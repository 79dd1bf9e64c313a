//! The gestures an agent asks for with a line, added to the speaker's plan: each starts at
//! the word it names (the line's start otherwise) and replaces the phrase's own pose for the
//! hands it uses; nods and head shakes go to the head.

use super::phases::Phases;
use super::plan::{Nod, Stroke, TalkPlan};
use super::poses::{Hands, TalkPose};
use crate::agent::cues::{GestureCue, GestureName};
use crate::anim::LineCue;

/// A requested pose's preparation starts this long before its word, ms.
const LEAD_MS: f64 = 300.0;
/// ... it is there this long after the word starts, ms.
const APEX_MS: f64 = 250.0;
/// ... it holds this long, ms.
const HOLD_MS: f64 = 1200.0;
/// ... and retracts over this long, ms.
const RETRACTION_MS: f64 = 600.0;
/// A requested nod, degrees.
const NOD_DEG: f32 = 10.0;
/// A head shake lasts this long, ms.
const SHAKE_MS: f64 = 1100.0;

impl TalkPlan {
    /// Adds `requests` over the line `cue`; `pointing_hand(i)` says which hand points at
    /// request `i`'s target (the one on the target's side).
    #[must_use]
    pub fn with_requests(
        mut self,
        requests: &[GestureCue],
        cue: &LineCue,
        pointing_hand: impl Fn(usize) -> Hands,
    ) -> Self {
        for (i, request) in requests.iter().enumerate() {
            let at = request
                .word
                .and_then(|w| cue.words_ms.get(w).copied())
                .or_else(|| cue.phrases_ms().first().map(|p| p.0))
                .unwrap_or(0.0);
            let start = (at - LEAD_MS).max(0.0);
            match request.name {
                GestureName::Nod => self.nods.push(Nod {
                    phases: Phases::new(start, at + APEX_MS, at + APEX_MS + 80.0, at + 800.0),
                    deg: NOD_DEG,
                }),
                GestureName::Headshake => {
                    self.shakes.push(Phases::new(
                        at,
                        at + 200.0,
                        at + SHAKE_MS - 250.0,
                        at + SHAKE_MS,
                    ));
                }
                name => {
                    let (pose, hands) = match name {
                        GestureName::Point => (TalkPose::Point, pointing_hand(i)),
                        GestureName::Shrug => (TalkPose::Shrug, Hands::Both),
                        GestureName::OpenPalms => (TalkPose::OpenPalms, Hands::Both),
                        GestureName::Thinking => (TalkPose::Thinking, Hands::Right),
                        _ => (TalkPose::Wave, Hands::Right),
                    };
                    let phases = Phases::new(
                        start,
                        at + APEX_MS,
                        at + APEX_MS + HOLD_MS,
                        at + APEX_MS + HOLD_MS + RETRACTION_MS,
                    );
                    let shares = |h: Hands| (0..2).any(|side| h.has(side) && hands.has(side));
                    self.strokes.retain(|s| {
                        s.requested
                            || !shares(s.hands)
                            || s.phases.end_ms <= phases.start_ms
                            || s.phases.start_ms >= phases.end_ms
                    });
                    self.strokes.push(Stroke {
                        pose,
                        hands,
                        phases,
                        requested: true,
                    });
                }
            }
        }
        self.finish()
    }

    /// How far the head is turned aside in a shake at `t_ms`, degrees (+ to its left).
    #[must_use]
    pub fn shake_deg(&self, t_ms: f64) -> f32 {
        self.shakes
            .iter()
            .map(|p| {
                let cycle = ((t_ms - p.start_ms) / 380.0 * std::f64::consts::TAU).sin() as f32;
                12.0 * p.weight(t_ms) * cycle
            })
            .sum()
    }
}
