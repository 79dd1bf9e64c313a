//! One NPC's attention to the person in front of the player, as a listener's: when the person
//! starts speaking to it, its brows flash and its own gestures hold still; on some of the
//! person's stressed syllables it nods; when they stop and its reply is slow, it shows that it
//! is thinking. NPCs the person did not address glance at them. The live player and the
//! studio's "listen to a recording" both run this.

use crate::anim::face::FaceAnimator;
use crate::body::GestureSettings;
use crate::body::talk::TalkPlan;

use super::ListenSettings;

/// The gestures of the line an NPC speaks or listens to, and where that line's clock is.
pub type Talk = Option<(TalkPlan, f64)>;

/// An NPC's attention to the person.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PersonAttention {
    /// The person speaks to it.
    listening: bool,
    /// The person stopped speaking to it this long ago and its reply has not started, ms.
    waiting_ms: Option<f64>,
    /// It glances at the person (who spoke to another) for this much longer, ms.
    glance_ms: f64,
    /// Stressed syllables heard so far (each draws whether it gets a nod).
    stresses: u64,
}

/// A draw in [0, 1) from a seed and a count (splitmix64): the same NPC nods on the same
/// syllables every run.
fn draw(seed: u64, n: u64) -> f32 {
    let mut z = seed ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 40) as f32 / (1u64 << 24) as f32
}

impl PersonAttention {
    /// The person starts speaking to it: its brows flash a little after their first sound,
    /// and, when it is not speaking a line itself, it listens with its hands still.
    pub fn started(
        &mut self,
        settings: &ListenSettings,
        gestures: &GestureSettings,
        face: &mut FaceAnimator,
        talk: &mut Talk,
        speaking: bool,
    ) {
        self.listening = true;
        self.waiting_ms = None;
        face.think(false, 0.0);
        face.addressed_after(settings.brow_lag_ms);
        if !speaking {
            *talk = Some((TalkPlan::listening_live(gestures), 0.0));
        }
    }

    /// A stressed syllable of the person speaking to it: a nod, on a seeded share of them.
    /// Whether it nodded.
    pub fn stress(&mut self, settings: &ListenSettings, seed: u64, talk: &mut Talk) -> bool {
        if !self.listening {
            return false;
        }
        self.stresses += 1;
        if draw(seed, self.stresses) >= settings.nod_share {
            return false;
        }
        match talk.as_mut().filter(|(p, _)| p.listening) {
            Some((plan, at_ms)) => {
                plan.nod_at(*at_ms, settings.nod_deg);
                true
            }
            None => false,
        }
    }

    /// The person stopped speaking to it: it waits for its reply (unless `noise`: it was not
    /// speech after all, or it is `speaking` already).
    pub fn stopped(&mut self, noise: bool, speaking: bool, talk: &mut Talk) {
        if !self.listening {
            return;
        }
        self.listening = false;
        self.waiting_ms = (!noise && !speaking).then_some(0.0);
        if let Some((plan, at_ms)) = talk.as_mut().filter(|(p, _)| p.listening) {
            plan.close_at(*at_ms);
        }
    }

    /// Its reply (or any line of its own) starts: it no longer listens or waits.
    pub fn speaks(&mut self) {
        self.listening = false;
        self.waiting_ms = None;
    }

    /// The person spoke to another NPC nearby: it glances at them.
    pub fn glance(&mut self, settings: &ListenSettings) {
        self.glance_ms = settings.glance_ms;
    }

    /// Moves its attention on by `dt_ms`: glances end, a slow reply shows as thought.
    pub fn attend(&mut self, settings: &ListenSettings, face: &mut FaceAnimator, dt_ms: f64) {
        self.glance_ms = (self.glance_ms - dt_ms).max(0.0);
        if let Some(waited) = self.waiting_ms.as_mut() {
            *waited += dt_ms;
            if *waited >= settings.thinking_after_ms && !face.thinking() {
                face.think(true, settings.thinking_intensity);
            }
        }
    }

    /// Whether it attends to the person (listening, waiting to reply, glancing).
    #[must_use]
    pub fn attends(&self) -> bool {
        self.listening || self.waiting_ms.is_some() || self.glance_ms > 0.0
    }

    /// Whether the person is speaking to it now.
    #[must_use]
    pub fn listening(&self) -> bool {
        self.listening
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::anim::face::FaceSettings;

    #[test]
    fn a_listener_nods_on_some_stresses_then_thinks_when_the_reply_is_slow() {
        let settings = ListenSettings {
            nod_share: 0.5,
            ..ListenSettings::default()
        };
        let gestures = GestureSettings::default();
        let mut face = FaceAnimator::new(FaceSettings::default(), 3);
        let mut talk: Talk = None;
        let mut attention = PersonAttention::default();
        assert!(
            !attention.stress(&settings, 3, &mut talk),
            "not spoken to yet"
        );
        attention.started(&settings, &gestures, &mut face, &mut talk, false);
        assert!(attention.listening() && attention.attends());
        let nods = (0..40)
            .filter(|_| attention.stress(&settings, 3, &mut talk))
            .count();
        assert!((10..=30).contains(&nods), "{nods} of 40 at a share of 0.5");
        assert_eq!(talk.as_ref().unwrap().0.nods.len(), nods);
        attention.stopped(false, false, &mut talk);
        attention.attend(&settings, &mut face, settings.thinking_after_ms - 1.0);
        assert!(!face.thinking());
        attention.attend(&settings, &mut face, 2.0);
        assert!(face.thinking(), "the reply is slow");
        attention.speaks();
        assert!(!attention.attends());
    }
}
