//! Animation level of detail: an NPC far from the camera that does not attend to the person in
//! front of the player animates at a lower rate (a far talker's mouth is a pixel or two), each
//! on its own beat so that every frame carries an even share of the crowd. The time it skipped is passed
//! on whole at its next update, so its clocks (breath, idle life, walking) never fall behind,
//! and the moment it comes near it updates every frame again.

use npc_core::anim::FaceDetail;
use npc_core::body::BodyDetail;

/// Beyond these distances from the camera (metres), an NPC animates at most once per this
/// many seconds: 30 times a second past 12 m (an NPC about 140 pixels tall in a 1080p image
/// with a 60 degree lens), 15 times past 30 m (about 55 pixels).
pub const RATES: [(f32, f32); 2] = [(12.0, 1.0 / 30.0), (30.0, 1.0 / 15.0)];

/// How much of an NPC animating once per `interval_s` is worked out: on any reduced rate its
/// mouth smooths in one step an update (at 30 or 15 updates a second, a few steps fewer
/// per second than at full rate, where it steps every 4 ms; the face is a few pixels tall);
/// at the farthest rate its fingers rest as the clip poses them (a hand is a pixel or two).
#[must_use]
pub fn detail(interval_s: f32) -> (BodyDetail, FaceDetail) {
    let farthest = RATES.iter().map(|r| r.1).fold(0.0, f32::max);
    let body = if interval_s >= farthest {
        BodyDetail::Far
    } else {
        BodyDetail::Full
    };
    let face = if interval_s > 0.0 {
        FaceDetail::Far
    } else {
        FaceDetail::Full
    };
    (body, face)
}

/// Time within which an update falls due early (a frame's clock in `f32` adds up unevenly).
pub const EARLY_S: f32 = 1e-4;

/// Seconds between updates of an NPC `distance` metres from the camera; 0 (every frame) for
/// one that must move with every frame.
#[must_use]
pub fn interval_s(distance: f32, full_rate: bool) -> f32 {
    if full_rate {
        return 0.0;
    }
    RATES
        .iter()
        .filter(|&&(beyond, _)| distance > beyond)
        .map(|&(_, interval)| interval)
        .fold(0.0, f32::max)
}

/// When an NPC animates: the time it has not yet been animated for, and how much sooner than
/// a whole interval its first reduced-rate update comes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AnimationBeat {
    lag_s: f32,
    head_start_s: f32,
    animated: bool,
}

impl AnimationBeat {
    /// A beat whose first reduced-rate update comes `phase` (0-1) of the longest interval
    /// early: NPCs of different phases share out the frames.
    #[must_use]
    pub fn with_phase(phase: f32) -> Self {
        let longest = RATES.iter().map(|r| r.1).fold(0.0, f32::max);
        Self {
            lag_s: 0.0,
            head_start_s: phase.clamp(0.0, 1.0) * longest,
            animated: false,
        }
    }

    /// Adds a frame of `dt_s`; returns the time to animate now (everything not yet animated),
    /// or `None` while the NPC holds its pose. The first frame always animates.
    pub fn tick(&mut self, dt_s: f32, interval_s: f32) -> Option<f32> {
        self.lag_s += if dt_s.is_finite() { dt_s.max(0.0) } else { 0.0 };
        if self.animated && self.lag_s + self.head_start_s.min(interval_s) + EARLY_S < interval_s {
            return None;
        }
        if self.animated && interval_s > 0.0 {
            self.head_start_s = 0.0;
        }
        self.animated = true;
        Some(std::mem::take(&mut self.lag_s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn far_npcs_smooth_their_mouths_coarsely_and_the_farthest_rest_their_fingers() {
        assert_eq!(detail(0.0), (BodyDetail::Full, FaceDetail::Full));
        assert_eq!(
            detail(interval_s(20.0, false)),
            (BodyDetail::Full, FaceDetail::Far)
        );
        assert_eq!(
            detail(interval_s(80.0, false)),
            (BodyDetail::Far, FaceDetail::Far)
        );
        assert_eq!(detail(interval_s(80.0, true)).0, BodyDetail::Full);
    }

    #[test]
    fn the_speaker_and_near_npcs_animate_every_frame_and_far_ones_less_often() {
        assert_eq!(interval_s(50.0, true), 0.0);
        assert_eq!(interval_s(5.0, false), 0.0);
        assert_eq!(interval_s(20.0, false), 1.0 / 30.0);
        assert_eq!(interval_s(80.0, false), 1.0 / 15.0);
    }

    /// Frames at 60 per second: which of the first `n` animate, and the time each takes.
    fn beats(mut beat: AnimationBeat, interval: f32, n: usize) -> Vec<(usize, f32)> {
        (0..n)
            .filter_map(|f| beat.tick(1.0 / 60.0, interval).map(|dt| (f, dt)))
            .collect()
    }

    #[test]
    fn a_far_npc_animates_every_fourth_frame_with_all_the_time_it_skipped() {
        let updates = beats(AnimationBeat::default(), 1.0 / 15.0, 13);
        let frames: Vec<usize> = updates.iter().map(|u| u.0).collect();
        assert_eq!(frames, [0, 4, 8, 12]);
        for &(_, dt) in &updates[1..] {
            assert!((dt - 4.0 / 60.0).abs() < 1e-6, "{dt}");
        }
        // Every frame's time is animated once: none lost, none twice.
        let mut beat = AnimationBeat::default();
        let animated: f32 = (0..600)
            .filter_map(|_| beat.tick(1.0 / 60.0, 1.0 / 15.0))
            .sum();
        assert!(
            (animated - 600.0 / 60.0).abs() < 4.0 / 60.0 + 1e-3,
            "{animated}"
        );
    }

    #[test]
    fn phases_share_out_the_frames_and_a_near_npc_animates_at_once() {
        let firsts: Vec<usize> = (0..4)
            .map(|k| beats(AnimationBeat::with_phase(k as f32 / 4.0), 1.0 / 15.0, 8)[1].0)
            .collect();
        assert_eq!(firsts, [4, 3, 2, 1]);
        // Held for a frame, then near: the next frame animates both frames' time.
        let mut beat = AnimationBeat::default();
        beat.tick(1.0 / 60.0, 1.0 / 15.0);
        assert_eq!(beat.tick(1.0 / 60.0, 1.0 / 15.0), None);
        let dt = beat.tick(1.0 / 60.0, 0.0);
        assert!(
            dt.is_some_and(|dt| (dt - 2.0 / 60.0).abs() < 1e-6),
            "{dt:?}"
        );
    }
}
