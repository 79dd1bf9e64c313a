//! Slow seeded wobbles: the irregular rhythms idle life moves on. Each is two sines of
//! incommensurate periods with seeded phases, a pure function of time, so the same seed gives
//! the same motion at any frame rate.

use std::f64::consts::TAU;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Ratio of a wobble's second period to its first (the golden ratio: never in step).
const SECOND_PERIOD: f64 = 1.618_034;

/// A slow wobble in -1..1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wobble {
    period_s: f64,
    phases: [f64; 2],
}

impl Wobble {
    /// A wobble whose main period is `period_s` (stretched by up to 20% by the seed).
    pub fn new(rng: &mut impl Rng, period_s: f32) -> Self {
        let stretch = rng.random_range(0.8..1.2);
        Self {
            period_s: (f64::from(period_s) * stretch).max(0.05),
            phases: [rng.random_range(0.0..TAU), rng.random_range(0.0..TAU)],
        }
    }

    /// The wobble at time `t_s`.
    #[must_use]
    pub fn at(&self, t_s: f64) -> f32 {
        let a = (TAU * t_s / self.period_s + self.phases[0]).sin();
        let b = (TAU * t_s / (self.period_s * SECOND_PERIOD) + self.phases[1]).sin();
        (0.6 * a + 0.4 * b) as f32
    }
}

/// The random stream of one layer: the body's seed and the layer's own stream number, so a
/// layer's draws do not depend on which other layers are on.
#[must_use]
pub fn stream(seed: u64, layer: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(layer);
    rng
}

/// The torso's sideways lean as a wobble: the sway layer leans by it and the arms hang
/// against it, so both draw it from the same stream.
#[must_use]
pub fn lean(seed: u64, period_s: f32) -> Wobble {
    Wobble::new(&mut stream(seed, LEAN_STREAM), period_s)
}

/// Stream numbers of the layers.
pub const LEAN_STREAM: u64 = 1;
pub const SWAY_STREAM: u64 = 2;
pub const BREATH_STREAM: u64 = 3;
pub const ARM_STREAM: u64 = 4;
pub const SHIFT_STREAM: u64 = 5;
pub const HAND_STREAM: u64 = 6;
pub const TALK_STREAM: u64 = 7;
pub const LISTEN_STREAM: u64 = 8;

/// Smooth 0-1 ease of `x` (clamped).
#[must_use]
pub fn smoothstep(x: f32) -> f32 {
    let x = x.clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}
