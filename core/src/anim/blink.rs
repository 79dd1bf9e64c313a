//! Blinks on their own timer, shaped like human blinks: a fast close, a brief hold, a slower
//! open. Intervals are a refractory gap plus an exponential wait, so the rate matches the
//! setting (about 26 a minute in conversation) without a metronome.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::anim::lipsync::smoothstep;
use crate::anim::pose::Pose;
use crate::arkit::ArkitTarget;

/// Blink parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BlinkSettings {
    /// Average blinks per minute (people: about 17 at rest, 26 in conversation).
    pub rate_per_min: f64,
    /// Shortest time between two blink starts, ms.
    pub min_interval_ms: f64,
    /// Lid closing time, ms.
    pub close_ms: f64,
    /// Time fully closed, ms.
    pub hold_ms: f64,
    /// Lid opening time, ms (slower than closing).
    pub open_ms: f64,
}

impl Default for BlinkSettings {
    fn default() -> Self {
        Self {
            rate_per_min: 26.0,
            min_interval_ms: 500.0,
            close_ms: 60.0,
            hold_ms: 20.0,
            open_ms: 140.0,
        }
    }
}

impl BlinkSettings {
    /// Length of one blink, ms.
    #[must_use]
    pub fn duration_ms(&self) -> f64 {
        self.close_ms.max(0.0) + self.hold_ms.max(0.0) + self.open_ms.max(0.0)
    }

    /// Mean time between blink starts, ms.
    #[must_use]
    pub fn mean_interval_ms(&self) -> f64 {
        if self.rate_per_min > 0.0 {
            (60_000.0 / self.rate_per_min).max(self.min_interval_ms)
        } else {
            f64::INFINITY
        }
    }

    /// Lid closure (0 open, 1 shut) at `since_start_ms` into a blink.
    #[must_use]
    pub fn closure(&self, since_start_ms: f64) -> f32 {
        let t = since_start_ms;
        let (close, hold, open) = (
            self.close_ms.max(0.0),
            self.hold_ms.max(0.0),
            self.open_ms.max(0.0),
        );
        if t < 0.0 || t >= close + hold + open {
            0.0
        } else if t < close {
            smoothstep((t / close) as f32)
        } else if t < close + hold {
            1.0
        } else {
            1.0 - smoothstep(((t - close - hold) / open) as f32)
        }
    }

    /// Problems with these settings, one sentence each (empty when all is well).
    #[must_use]
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (name, v) in [
            ("rate_per_min", self.rate_per_min),
            ("min_interval_ms", self.min_interval_ms),
            ("close_ms", self.close_ms),
            ("hold_ms", self.hold_ms),
            ("open_ms", self.open_ms),
        ] {
            if !v.is_finite() || v < 0.0 {
                out.push(format!("blink.{name} must be a number >= 0 (got {v})"));
            }
        }
        if self.min_interval_ms < self.duration_ms() {
            out.push(format!(
                "blink.min_interval_ms ({}) must be at least one blink long ({} ms)",
                self.min_interval_ms,
                self.duration_ms()
            ));
        }
        out
    }
}

/// The blink timer of one face.
#[derive(Clone, Debug)]
pub struct Blinker {
    rng: ChaCha8Rng,
    last_start_ms: f64,
    next_start_ms: f64,
    count: u64,
}

impl Blinker {
    #[must_use]
    pub fn new(settings: &BlinkSettings, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(2);
        let mut blinker = Self {
            rng,
            last_start_ms: f64::NEG_INFINITY,
            next_start_ms: 0.0,
            count: 0,
        };
        blinker.next_start_ms = blinker.interval(settings);
        blinker
    }

    /// Blinks started so far.
    #[must_use]
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Advances to `now_ms` on the face's clock and returns the lid closure there.
    pub fn advance(&mut self, settings: &BlinkSettings, now_ms: f64) -> f32 {
        while self.next_start_ms <= now_ms {
            self.last_start_ms = self.next_start_ms;
            self.count += 1;
            self.next_start_ms = self.last_start_ms + self.interval(settings);
        }
        settings.closure(now_ms - self.last_start_ms)
    }

    /// Closes both eyelids by `closure` (never opening lids another layer closed).
    pub fn apply(closure: f32, pose: &mut Pose) {
        for lid in [ArkitTarget::EyeBlinkLeft, ArkitTarget::EyeBlinkRight] {
            pose.set(lid, pose.get(lid).max(closure));
        }
    }

    fn interval(&mut self, settings: &BlinkSettings) -> f64 {
        let gap = settings
            .min_interval_ms
            .max(settings.duration_ms())
            .max(1.0);
        let mean = settings.mean_interval_ms();
        if !mean.is_finite() {
            return f64::INFINITY;
        }
        let wait = (mean - gap).max(0.0);
        // Exponential wait: -ln(1 - u) * mean, with u in [0, 1).
        let u: f64 = self.rng.random();
        gap - (1.0 - u).ln() * wait
    }
}
