//! Stage 2: frame-rate independent exponential smoothing.
//!
//! The filter is dy/dt = (x(t) - y) / tau. Per frame, `1 - exp(-dt / tau)` is exact only for a
//! target that stands still during the frame; lip-sync targets move within a frame, so a 30 fps
//! face would trail a 1000 fps one. Each frame is therefore integrated in steps of at most
//! `max_step_ms` along the moving target, with the exact solution for a target that moves in a
//! straight line across the step (a first-order hold). The result is the same curve at any
//! frame rate, and the weights stay in [0, 1] because each step is a convex mix of its inputs.

use super::settings::SmoothingSettings;
use crate::anim::pose::Pose;

/// The smoothed pose and what it needs to carry from one frame to the next.
#[derive(Clone, Debug)]
pub struct Smoother {
    displayed: Pose,
    /// The target at the end of the last step, where the next step's straight line starts.
    last_target: Option<Pose>,
}

impl Default for Smoother {
    fn default() -> Self {
        Self::new(Pose::NEUTRAL)
    }
}

impl Smoother {
    #[must_use]
    pub fn new(start: Pose) -> Self {
        Self {
            displayed: start,
            last_target: None,
        }
    }

    /// The smoothed pose after the last advance.
    #[must_use]
    pub fn displayed(&self) -> &Pose {
        &self.displayed
    }

    /// Advances by `dt_ms`. `target_at(u)` gives the target at fraction `u` in (0, 1] of the
    /// frame (1 = the end of the frame); it is called once per internal step.
    pub fn advance(
        &mut self,
        settings: &SmoothingSettings,
        dt_ms: f64,
        mut target_at: impl FnMut(f64) -> Pose,
    ) -> &Pose {
        let end_target = |f: &mut dyn FnMut(f64) -> Pose| f(1.0);
        let tau = f64::from(settings.time_constant_ms);
        if dt_ms.is_nan() || dt_ms <= 0.0 {
            // No time passed: nothing moves, but remember where the target is.
            if self.last_target.is_none() {
                self.last_target = Some(end_target(&mut target_at));
            }
            return &self.displayed;
        }
        if tau.is_nan() || tau <= 0.0 {
            let x = end_target(&mut target_at);
            self.displayed = x;
            self.last_target = Some(x);
            return &self.displayed;
        }
        let max_step = f64::from(settings.max_step_ms).max(0.1);
        let steps = (dt_ms / max_step).ceil().clamp(1.0, 10_000.0) as u32;
        let h = dt_ms / f64::from(steps);
        let a = h / tau;
        let decay = (-a).exp() as f32;
        // (1 - e^-a) / a: how much of the target's slope the filter lags by over the step.
        let slope_gain = (-(-a).exp_m1() / a) as f32;
        let mut x0 = match self.last_target {
            Some(x) => x,
            None => target_at(0.0),
        };
        for step in 1..=steps {
            let x1 = target_at(f64::from(step) / f64::from(steps));
            for ((y, &a0), &a1) in self.displayed.0.iter_mut().zip(&x0.0).zip(&x1.0) {
                let next = a1 + (*y - a0) * decay - (a1 - a0) * slope_gain;
                *y = next.clamp(0.0, 1.0);
            }
            x0 = x1;
        }
        self.last_target = Some(x0);
        &self.displayed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arkit::ArkitTarget;

    fn jaw(w: f32) -> Pose {
        Pose::from_pairs(&[(ArkitTarget::JawOpen, w)])
    }

    #[test]
    fn step_response_matches_the_closed_form_at_any_frame_rate() {
        let settings = SmoothingSettings::default();
        for fps in [30.0, 60.0, 240.0, 1000.0] {
            let mut s = Smoother::default();
            s.advance(&settings, 0.0, |_| jaw(1.0));
            let dt: f64 = 1000.0 / fps;
            let frames = (200.0 / dt).round() as usize;
            for _ in 0..frames {
                s.advance(&settings, dt, |_| jaw(1.0));
            }
            let t = frames as f64 * dt;
            let expected = 1.0 - (-t / 40.0).exp();
            let got = f64::from(s.displayed().get(ArkitTarget::JawOpen));
            assert!(
                (got - expected).abs() < 1e-4,
                "{fps} fps: {got} vs {expected}"
            );
        }
    }

    #[test]
    fn zero_time_constant_follows_the_target() {
        let settings = SmoothingSettings {
            time_constant_ms: 0.0,
            ..SmoothingSettings::default()
        };
        let mut s = Smoother::default();
        s.advance(&settings, 16.0, |_| jaw(0.7));
        assert_eq!(s.displayed().get(ArkitTarget::JawOpen), 0.7);
    }
}
