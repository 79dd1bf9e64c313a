//! Brow flashes: the quick raise of both brows (about a fifth of a second) people give as
//! they take the turn and on some stressed syllables. Planned ahead from the line's track like
//! the body's beats, seeded, and read at the line's clock, so every frame rate shows the same.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::LineCue;
use super::pose::Pose;
use crate::arkit::ArkitTarget;

/// The flash peaks this long after it begins, so it peaks on the syllable, ms.
const PEAK_LEAD_MS: f64 = 50.0;
/// Share of a flash spent rising, and holding at the top (the rest falls).
const RISE_SHARE: f64 = 0.25;
const HOLD_SHARE: f64 = 0.35;
/// How far the outer brows go with the inner (share).
const OUTER_SHARE: f32 = 0.8;

/// How brows flash; part of a character's face settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BrowSettings {
    pub enabled: bool,
    /// Share of stressed syllables that get a flash (0-1); every turn start gets one.
    pub stress_share: f32,
    /// How long a flash lasts, ms.
    pub flash_ms: f64,
    /// How high the brows go (browInnerUp at the top; the outer brows a little less).
    pub amount: f32,
}

impl Default for BrowSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            stress_share: 0.3,
            flash_ms: 200.0,
            amount: 0.5,
        }
    }
}

/// The flashes of one line: where each begins, ms on the line's clock.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BrowFlashes {
    starts_ms: Vec<f64>,
}

impl BrowFlashes {
    /// The flashes for `cue`: one as the turn starts (its first sound), and one on a seeded
    /// share of its stressed syllables.
    #[must_use]
    pub fn plan(cue: &LineCue, settings: &BrowSettings, seed: u64) -> Self {
        if !settings.enabled {
            return Self::default();
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(4);
        let flash = settings.flash_ms.max(1.0);
        let mut starts_ms = cue
            .phrases_ms()
            .first()
            .map_or_else(Vec::new, |&(first, _)| Self::turn(first).starts_ms);
        for &stress in &cue.stresses_ms {
            let drawn = rng.random::<f32>() < settings.stress_share;
            let start = (stress - PEAK_LEAD_MS).max(0.0);
            if drawn && starts_ms.last().is_none_or(|&last| start >= last + flash) {
                starts_ms.push(start);
            }
        }
        Self { starts_ms }
    }

    /// The flash as a turn starts with its first sound at `first_sound_ms` (all a streamed
    /// line, whose stresses are not known ahead, gets).
    #[must_use]
    pub fn turn(first_sound_ms: f64) -> Self {
        Self {
            starts_ms: vec![(first_sound_ms - PEAK_LEAD_MS).max(0.0)],
        }
    }

    /// Room for `n` flashes, so a streamed line's turn flash is set without allocating.
    #[must_use]
    pub fn with_capacity(n: usize) -> Self {
        Self {
            starts_ms: Vec::with_capacity(n),
        }
    }

    /// Keeps only the flash of a turn whose first sound is at `first_sound_ms`, in the room
    /// already held.
    pub fn set_turn(&mut self, first_sound_ms: f64) {
        self.starts_ms.clear();
        self.starts_ms
            .push((first_sound_ms - PEAK_LEAD_MS).max(0.0));
    }

    /// No flashes (the room is kept).
    pub fn clear(&mut self) {
        self.starts_ms.clear();
    }

    /// Where the flashes begin, ms.
    #[must_use]
    pub fn starts_ms(&self) -> &[f64] {
        &self.starts_ms
    }

    /// How far up the brows are at `t_ms` (0-1).
    #[must_use]
    pub fn at(&self, settings: &BrowSettings, t_ms: f64) -> f32 {
        self.starts_ms
            .iter()
            .map(|&start| Self::flash(settings, start, t_ms))
            .fold(0.0, f32::max)
    }

    /// How far up the brows are at `t_ms` (0-1) in one flash beginning at `start_ms`.
    #[must_use]
    pub fn flash(settings: &BrowSettings, start_ms: f64, t_ms: f64) -> f32 {
        let x = (t_ms - start_ms) / settings.flash_ms.max(1.0);
        let up = if !(0.0..1.0).contains(&x) {
            0.0
        } else if x < RISE_SHARE {
            x / RISE_SHARE
        } else if x < RISE_SHARE + HOLD_SHARE {
            1.0
        } else {
            (1.0 - x) / (1.0 - RISE_SHARE - HOLD_SHARE)
        };
        super::lipsync::smoothstep(up as f32)
    }

    /// Raises the brows of `pose` by `up` (0-1) of `settings.amount`.
    pub fn apply(settings: &BrowSettings, up: f32, pose: &mut Pose) {
        let lift = settings.amount.clamp(0.0, 1.0) * up;
        if lift <= 0.0 {
            return;
        }
        let raise = |pose: &mut Pose, target, by: f32| {
            pose.set(target, (pose.get(target) + by).min(1.0));
        };
        raise(pose, ArkitTarget::BrowInnerUp, lift);
        raise(pose, ArkitTarget::BrowOuterUpLeft, lift * OUTER_SHARE);
        raise(pose, ArkitTarget::BrowOuterUpRight, lift * OUTER_SHARE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::lipsync::{VisemeEvent, VisemeTrack};
    use crate::viseme::VisemeId;

    fn cue() -> LineCue {
        let id = |n| VisemeId::new(n).unwrap_or(VisemeId::SILENCE);
        let mut cue = LineCue::from_track(
            VisemeTrack::from_events(vec![
                VisemeEvent::new(id(0), 0.0),
                VisemeEvent::new(id(2), 300.0),
                VisemeEvent::new(id(0), 2000.0),
            ])
            .unwrap_or_default(),
        );
        cue.stresses_ms = vec![400.0, 900.0, 1400.0];
        cue
    }

    #[test]
    fn the_turn_starts_with_a_flash_of_about_a_fifth_of_a_second() {
        let settings = BrowSettings {
            stress_share: 0.0,
            ..BrowSettings::default()
        };
        let flashes = BrowFlashes::plan(&cue(), &settings, 1);
        assert_eq!(flashes.starts_ms(), [250.0]);
        assert_eq!(flashes.at(&settings, 249.0), 0.0);
        assert_eq!(flashes.at(&settings, 300.0), 1.0);
        assert!(flashes.at(&settings, 400.0) > 0.0);
        assert_eq!(flashes.at(&settings, 450.0), 0.0);
        let mut pose = Pose::default();
        BrowFlashes::apply(&settings, 1.0, &mut pose);
        assert_eq!(pose.get(ArkitTarget::BrowInnerUp), 0.5);
        assert_eq!(pose.get(ArkitTarget::BrowOuterUpLeft), 0.4);
    }

    #[test]
    fn every_stress_flashes_at_full_share_and_none_when_off() {
        let all = BrowSettings {
            stress_share: 1.0,
            ..BrowSettings::default()
        };
        assert_eq!(
            BrowFlashes::plan(&cue(), &all, 1).starts_ms(),
            [250.0, 850.0, 1350.0],
            "the stress at 400 ms falls inside the turn's flash"
        );
        let off = BrowSettings {
            enabled: false,
            ..all
        };
        assert!(BrowFlashes::plan(&cue(), &off, 1).starts_ms().is_empty());
    }
}
