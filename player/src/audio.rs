//! Playing lines and the clocks lip sync reads. Each playing line has its own position: the
//! face of the NPC saying it samples its viseme track at that position, not at the wall
//! clock, so lips stay on the sound however frames fall.
//!
//! This build plays on an offline clock at real-time pace (the position advances with time
//! from the moment the line starts); output through a sound device is not wired in yet, so a
//! machine with one also runs on the offline clock, and the runtime says so once.

use std::time::Instant;

/// Full volume within this distance, metres.
pub const FULL_VOLUME_DISTANCE: f32 = 5.0;
/// Silent beyond this distance, metres.
pub const SILENT_DISTANCE: f32 = 30.0;

/// Volume for a listener `distance` metres away: 1 within 5 m, 0 from 30 m, falling as the
/// square of a linear ramp in between.
#[must_use]
pub fn distance_volume(distance: f32) -> f32 {
    let t = ((distance - FULL_VOLUME_DISTANCE) / (SILENT_DISTANCE - FULL_VOLUME_DISTANCE))
        .clamp(0.0, 1.0);
    let v = 1.0 - t;
    if v.is_finite() { v * v } else { 0.0 }
}

/// One line being played.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayingLine {
    started: Instant,
    duration_ms: f64,
    volume: f32,
}

impl PlayingLine {
    /// Where playback is, ms into the line (never past its end).
    #[must_use]
    pub fn position_ms(&self, now: Instant) -> f64 {
        let elapsed = now.saturating_duration_since(self.started).as_secs_f64() * 1000.0;
        elapsed.min(self.duration_ms)
    }

    /// When the last sample is heard.
    #[must_use]
    pub fn ends_at(&self) -> Instant {
        self.started + std::time::Duration::from_secs_f64(self.duration_ms.max(0.0) / 1000.0)
    }

    /// Whether the whole line has been played.
    #[must_use]
    pub fn is_finished(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.started).as_secs_f64() * 1000.0 >= self.duration_ms
    }

    #[must_use]
    pub fn duration_ms(&self) -> f64 {
        self.duration_ms
    }

    #[must_use]
    pub fn volume(&self) -> f32 {
        self.volume
    }

    pub fn set_volume(&mut self, volume: f32) {
        self.volume = volume.clamp(0.0, 1.0);
    }
}

/// Where lines are played. Several lines can play at once, each with its own volume.
#[derive(Debug, Default)]
pub struct AudioOut {
    told_offline: bool,
}

impl AudioOut {
    /// Audio output for this machine (the offline clock in this build).
    #[must_use]
    pub fn open() -> Self {
        Self::default()
    }

    /// Starts playing `pcm` at `now`. Returns the line's clock.
    pub fn play(
        &mut self,
        pcm: &[i16],
        sample_rate: u32,
        volume: f32,
        now: Instant,
    ) -> PlayingLine {
        if !self.told_offline {
            tracing::warn!(
                "no sound output in this build: lines play on an offline clock at real-time pace"
            );
            self.told_offline = true;
        }
        let duration_ms = if sample_rate == 0 {
            0.0
        } else {
            pcm.len() as f64 * 1000.0 / f64::from(sample_rate)
        };
        let mut line = PlayingLine {
            started: now,
            duration_ms,
            volume: 1.0,
        };
        line.set_volume(volume);
        line
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn volume_falls_with_distance_as_specified() {
        assert_eq!(distance_volume(0.0), 1.0);
        assert_eq!(distance_volume(5.0), 1.0);
        assert!((distance_volume(17.5) - 0.25).abs() < 1e-6);
        assert_eq!(distance_volume(30.0), 0.0);
        assert_eq!(distance_volume(100.0), 0.0);
        assert_eq!(distance_volume(f32::NAN), 0.0);
    }

    #[test]
    fn the_clock_runs_at_real_time_pace_and_stops_at_the_end() {
        let mut out = AudioOut::open();
        let start = Instant::now();
        let line = out.play(&vec![0; 22_050], 22_050, 0.5, start);
        assert_eq!(line.position_ms(start), 0.0);
        assert!((line.position_ms(start + Duration::from_millis(250)) - 250.0).abs() < 1e-6);
        assert!(!line.is_finished(start + Duration::from_millis(999)));
        assert!(line.is_finished(start + Duration::from_millis(1000)));
        assert_eq!(line.position_ms(start + Duration::from_secs(5)), 1000.0);
        assert_eq!(line.volume(), 0.5);
    }
}
