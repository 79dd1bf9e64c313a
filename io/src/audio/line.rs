//! The clock of one playing line.

use std::cell::Cell;
use std::time::{Duration, Instant};

use rodio::Player;

/// How far a mixed line's position may run ahead of what the device last reported: the
/// device takes samples in bursts (a buffer at a time, reported every 5 ms of audio), and
/// between them the position moves on with the wall clock by at most this much.
const MAX_EXTRAPOLATION: Duration = Duration::from_millis(40);

/// `volume` made a volume: 0 to 1, silence for what is not a number.
#[must_use]
pub fn unit_volume(volume: f32) -> f32 {
    if volume.is_finite() {
        volume.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// One line being played: heard through a mixer, or timed by the offline clock.
pub struct PlayingLine {
    started: Instant,
    duration_ms: f64,
    volume: f32,
    sound: Option<Player>,
    /// Last reported device position and when it was first seen.
    reported: Cell<(Duration, Instant)>,
    /// Last position handed out, so the clock never runs backwards.
    last_ms: Cell<f64>,
}

impl std::fmt::Debug for PlayingLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlayingLine")
            .field("started", &self.started)
            .field("duration_ms", &self.duration_ms)
            .field("volume", &self.volume)
            .field("heard", &self.sound.is_some())
            .finish_non_exhaustive()
    }
}

impl PlayingLine {
    pub(super) fn new(started: Instant, duration_ms: f64, sound: Option<Player>) -> Self {
        Self {
            started,
            duration_ms,
            volume: 1.0,
            sound,
            reported: Cell::new((Duration::ZERO, started)),
            last_ms: Cell::new(0.0),
        }
    }

    /// Where playback is, ms into the line (never past its end, never backwards).
    #[must_use]
    pub fn position_ms(&self, now: Instant) -> f64 {
        let ms = match &self.sound {
            None => now.saturating_duration_since(self.started).as_secs_f64() * 1000.0,
            Some(player) if player.empty() => self.duration_ms,
            Some(player) => {
                let pos = player.get_pos();
                let (seen, at) = self.reported.get();
                let at = if pos == seen {
                    at
                } else {
                    self.reported.set((pos, now));
                    now
                };
                let ahead = now.saturating_duration_since(at).min(MAX_EXTRAPOLATION);
                (pos + ahead).as_secs_f64() * 1000.0
            }
        };
        let ms = ms.min(self.duration_ms).max(self.last_ms.get());
        self.last_ms.set(ms);
        ms
    }

    /// When the last sample is heard (estimated for a mixed line).
    #[must_use]
    pub fn ends_at(&self) -> Instant {
        self.started + Duration::from_secs_f64(self.duration_ms.max(0.0) / 1000.0)
    }

    /// Whether the whole line has been played.
    #[must_use]
    pub fn is_finished(&self, now: Instant) -> bool {
        match &self.sound {
            None => {
                now.saturating_duration_since(self.started).as_secs_f64() * 1000.0
                    >= self.duration_ms
            }
            Some(player) => player.empty(),
        }
    }

    /// Stops the sound now (barge-in): the device plays nothing more of it.
    pub fn stop(&mut self) {
        if let Some(player) = &self.sound {
            player.set_volume(0.0);
            player.stop();
        }
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
        self.volume = unit_volume(volume);
        if let Some(player) = &self.sound {
            player.set_volume(self.volume);
        }
    }
}
