//! The phases of a gesture on the line's clock: preparation (moving in), stroke up to the
//! apex, hold, retraction. How much of the gesture shows at any moment is a pure function of
//! the time, so every frame rate draws the same motion.

use serde::Serialize;

use crate::body::idle::smoothstep;

/// When a gesture's phases begin and end, ms on the line's clock.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Phases {
    /// The preparation begins.
    pub start_ms: f64,
    /// The stroke reaches its apex: the gesture is fully there.
    pub apex_ms: f64,
    /// The hold ends and the retraction begins.
    pub hold_ms: f64,
    /// The retraction ends.
    pub end_ms: f64,
}

impl Phases {
    /// Phases in order, each at least as late as the one before.
    #[must_use]
    pub fn new(start_ms: f64, apex_ms: f64, hold_ms: f64, end_ms: f64) -> Self {
        let apex_ms = apex_ms.max(start_ms);
        let hold_ms = hold_ms.max(apex_ms);
        Self {
            start_ms,
            apex_ms,
            hold_ms,
            end_ms: end_ms.max(hold_ms),
        }
    }

    /// How much of the gesture shows at `t_ms`: 0 before and after, rising through the
    /// preparation and stroke, 1 in the hold, falling through the retraction (smoothstep
    /// ease, so two gestures handing over in the same window sum to 1).
    #[must_use]
    pub fn weight(&self, t_ms: f64) -> f32 {
        if t_ms <= self.start_ms || t_ms >= self.end_ms {
            0.0
        } else if t_ms < self.apex_ms {
            smoothstep(((t_ms - self.start_ms) / (self.apex_ms - self.start_ms)) as f32)
        } else if t_ms <= self.hold_ms {
            1.0
        } else {
            1.0 - smoothstep(((t_ms - self.hold_ms) / (self.end_ms - self.hold_ms)) as f32)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gesture_rises_holds_and_retracts() {
        let p = Phases::new(0.0, 200.0, 500.0, 800.0);
        assert_eq!(p.weight(-1.0), 0.0);
        assert!((p.weight(100.0) - 0.5).abs() < 1e-6);
        assert_eq!(p.weight(200.0), 1.0);
        assert_eq!(p.weight(400.0), 1.0);
        assert!((p.weight(650.0) - 0.5).abs() < 1e-6);
        assert_eq!(p.weight(800.0), 0.0);
    }

    #[test]
    fn a_handover_in_one_window_sums_to_one() {
        let a = Phases::new(0.0, 100.0, 500.0, 800.0);
        let b = Phases::new(500.0, 800.0, 1200.0, 1500.0);
        for t in (500..=800).step_by(25) {
            let sum = a.weight(f64::from(t)) + b.weight(f64::from(t));
            assert!((sum - 1.0).abs() < 1e-5, "{t}: {sum}");
        }
    }
}
