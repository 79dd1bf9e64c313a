//! Playing lines and the clocks lip sync reads. Each playing line has its own position: the
//! face of the NPC saying it samples its viseme track at that position, not at the wall
//! clock, so lips stay on the sound however frames fall.
//!
//! With a sound device, lines are mixed by rodio (several at once, each with its own volume)
//! and a line's position is how much of it the device has taken. Without one (or when asked
//! for silence), a line's position advances with time at real-time pace from the moment it
//! starts: the offline clock.

mod device;
mod line;

use std::time::Instant;

use rodio::buffer::SamplesBuffer;
use rodio::mixer::Mixer;
use rodio::{ChannelCount, Player, SampleRate};

pub use device::plainly_absent;
pub use line::{PlayingLine, unit_volume};

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

/// Where lines go.
enum Output {
    /// Nowhere: positions come from the offline clock.
    Offline,
    /// Into a mixer that a sound device (or, in tests, the test itself) pulls samples from.
    Mixer {
        mixer: Mixer,
        _device: Option<device::DeviceThread>,
    },
}

/// Where lines are played. Several lines can play at once, each with its own volume.
pub struct AudioOut {
    output: Output,
}

impl std::fmt::Debug for AudioOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AudioOut")
            .field("sound", &self.has_sound())
            .finish_non_exhaustive()
    }
}

impl AudioOut {
    /// The default sound device; when there is none, the offline clock, said once in the log.
    #[must_use]
    pub fn open() -> Self {
        match device::DeviceThread::open() {
            Ok((thread, mixer)) => {
                tracing::info!("sound output: {}", thread.describe());
                Self {
                    output: Output::Mixer {
                        mixer,
                        _device: Some(thread),
                    },
                }
            }
            Err(e) => {
                tracing::warn!(
                    "no sound device ({e}): lines play silently on an offline clock at \
                     real-time pace"
                );
                Self::offline()
            }
        }
    }

    /// The offline clock: no sound; positions advance with the `now` given to the lines.
    #[must_use]
    pub fn offline() -> Self {
        Self {
            output: Output::Offline,
        }
    }

    /// Plays into `mixer`, whose samples someone else pulls (the way a device does).
    #[must_use]
    pub fn into_mixer(mixer: Mixer) -> Self {
        Self {
            output: Output::Mixer {
                mixer,
                _device: None,
            },
        }
    }

    /// Whether lines are heard (a mixer takes them) rather than timed by the offline clock.
    #[must_use]
    pub fn has_sound(&self) -> bool {
        matches!(self.output, Output::Mixer { .. })
    }

    /// A player for a line whose sound arrives as it plays (appended to it piece by piece);
    /// `None` on the offline clock.
    #[must_use]
    pub fn stream_player(&self) -> Option<Player> {
        match &self.output {
            Output::Mixer { mixer, .. } => Some(Player::connect_new(mixer)),
            Output::Offline => None,
        }
    }

    /// Starts playing mono 16-bit `pcm` at `now` with `volume` (0..1). Returns the line's
    /// clock.
    pub fn play(
        &mut self,
        pcm: &[i16],
        sample_rate: u32,
        volume: f32,
        now: Instant,
    ) -> PlayingLine {
        let samples = if self.has_sound() {
            pcm.iter().map(|&s| f32::from(s) / 32_768.0).collect()
        } else {
            Vec::new()
        };
        self.start(samples, pcm.len(), sample_rate, volume, now)
    }

    /// Starts playing mono `samples` (-1..1) at `now` with `volume` (0..1).
    pub fn play_samples(
        &mut self,
        samples: Vec<f32>,
        sample_rate: u32,
        volume: f32,
        now: Instant,
    ) -> PlayingLine {
        let len = samples.len();
        self.start(samples, len, sample_rate, volume, now)
    }

    fn start(
        &mut self,
        samples: Vec<f32>,
        len: usize,
        sample_rate: u32,
        volume: f32,
        now: Instant,
    ) -> PlayingLine {
        let duration_ms = if sample_rate == 0 {
            0.0
        } else {
            len as f64 * 1000.0 / f64::from(sample_rate)
        };
        let sound = match (&self.output, SampleRate::new(sample_rate)) {
            (Output::Mixer { mixer, .. }, Some(rate)) if !samples.is_empty() => {
                let player = Player::connect_new(mixer);
                player.append(SamplesBuffer::new(ChannelCount::MIN, rate, samples));
                Some(player)
            }
            _ => None,
        };
        let mut line = PlayingLine::new(now, duration_ms, sound);
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
    fn the_offline_clock_runs_at_real_time_pace_and_stops_at_the_end() {
        let mut out = AudioOut::offline();
        assert!(!out.has_sound());
        let start = Instant::now();
        let line = out.play(&vec![0; 22_050], 22_050, 0.5, start);
        assert_eq!(line.position_ms(start), 0.0);
        assert!((line.position_ms(start + Duration::from_millis(250)) - 250.0).abs() < 1e-6);
        assert!(!line.is_finished(start + Duration::from_millis(999)));
        assert!(line.is_finished(start + Duration::from_millis(1000)));
        assert_eq!(line.position_ms(start + Duration::from_secs(5)), 1000.0);
        assert_eq!(line.volume(), 0.5);
    }

    /// A stand-in for a sound device (test fake): the test pulls the mixer's samples itself.
    fn pulled_mixer(rate: u32) -> (AudioOut, rodio::mixer::MixerSource) {
        let rate = SampleRate::new(rate).expect("rate");
        let (mixer, source) = rodio::mixer::mixer(ChannelCount::MIN, rate);
        (AudioOut::into_mixer(mixer), source)
    }

    fn pull(source: &mut rodio::mixer::MixerSource, n: usize) -> Vec<f32> {
        (0..n).map(|_| source.next().unwrap_or(0.0)).collect()
    }

    #[test]
    fn lines_mix_with_their_own_volumes() {
        let (mut out, mut source) = pulled_mixer(8_000);
        assert!(out.has_sound());
        let now = Instant::now();
        let a = out.play(&vec![8_192; 4_000], 8_000, 1.0, now);
        let mut b = out.play(&vec![8_192; 8_000], 8_000, 1.0, now);
        b.set_volume(0.5);
        let mixed = pull(&mut source, 12_000);
        // While both play: 0.25 + 0.5 * 0.25; after the first ends: 0.5 * 0.25; then silence.
        // (Volume changes reach the mixer within 5 ms of audio, so skip the first 100 samples.)
        assert!((mixed[1_000] - 0.375).abs() < 1e-3, "{}", mixed[1_000]);
        assert!((mixed[6_000] - 0.125).abs() < 1e-3, "{}", mixed[6_000]);
        assert!(mixed[10_000].abs() < 1e-6, "{}", mixed[10_000]);
        // The lines play until dropped.
        drop((a, b));
    }

    #[test]
    fn a_mixed_line_is_where_the_device_has_pulled_it() {
        let (mut out, mut source) = pulled_mixer(8_000);
        let start = Instant::now();
        let line = out.play(&vec![100; 8_000], 8_000, 1.0, start);
        // The wall clock says 900 ms, but the device has only taken 250 ms of samples.
        pull(&mut source, 2_000);
        let later = start + Duration::from_millis(900);
        let pos = line.position_ms(later);
        assert!((240.0..=300.0).contains(&pos), "position {pos} ms");
        assert!(!line.is_finished(later));
        pull(&mut source, 6_100);
        let end = later + Duration::from_millis(10);
        assert!(line.is_finished(end));
        assert_eq!(line.position_ms(end), 1000.0);
    }
}
