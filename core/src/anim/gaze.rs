//! Conversational gaze: a FOCUS / AVERT state machine after S3 (Pan et al., SIGGRAPH 2024).
//!
//! In FOCUS the eyes rest on the conversation partner, with microsaccades (tiny shifts) every
//! few hundred ms so the stare is not dead. At the end of each FOCUS episode the eyes look away
//! (AVERT) with a chance that is higher while speaking than while listening, as speakers break
//! eye contact more than listeners. Every transition happens at its own scheduled time, not at
//! a frame boundary, so the same seed gives the same gaze at any frame rate.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::anim::pose::Pose;
use crate::arkit::ArkitTarget;

/// A range of values drawn uniformly.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Span {
    pub min: f64,
    pub max: f64,
}

impl Span {
    #[must_use]
    pub const fn new(min: f64, max: f64) -> Self {
        Self { min, max }
    }

    /// A uniform draw in [min, max] (never panics, whatever the bounds).
    pub fn sample(&self, rng: &mut impl Rng) -> f64 {
        self.min + rng.random::<f64>() * (self.max - self.min)
    }

    fn is_valid(&self) -> bool {
        self.min.is_finite() && self.max.is_finite() && self.min >= 0.0 && self.min <= self.max
    }
}

/// Gaze parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GazeSettings {
    /// Chance of looking away at the end of a FOCUS episode while speaking.
    pub avert_chance_speaking: f64,
    /// The same while listening.
    pub avert_chance_listening: f64,
    /// Length of a FOCUS episode, ms.
    pub focus_ms: Span,
    /// Length of an AVERT episode, ms.
    pub avert_ms: Span,
    /// Time between microsaccades during FOCUS, ms.
    pub microsaccade_interval_ms: Span,
    /// Size of a microsaccade as a fraction of an aversion.
    pub microsaccade_scale: f64,
    /// How far an aversion turns the eyes, as eyeLook* weight.
    pub aversion_amount: Span,
    /// Vertical aversions are smaller than horizontal ones by this factor.
    pub vertical_scale: f64,
    /// Time constant of the eye movement, ms (the mouth's filter, applied to the eyes).
    pub smoothing_ms: f64,
}

impl Default for GazeSettings {
    fn default() -> Self {
        Self {
            avert_chance_speaking: 0.6,
            avert_chance_listening: 0.3,
            focus_ms: Span::new(1000.0, 2000.0),
            avert_ms: Span::new(700.0, 1600.0),
            microsaccade_interval_ms: Span::new(200.0, 400.0),
            microsaccade_scale: 0.05,
            aversion_amount: Span::new(0.35, 0.7),
            vertical_scale: 0.5,
            smoothing_ms: 40.0,
        }
    }
}

impl GazeSettings {
    /// Problems with these settings, one sentence each (empty when all is well).
    #[must_use]
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (name, p) in [
            ("avert_chance_speaking", self.avert_chance_speaking),
            ("avert_chance_listening", self.avert_chance_listening),
        ] {
            if !(0.0..=1.0).contains(&p) {
                out.push(format!("gaze.{name} must be in [0, 1] (got {p})"));
            }
        }
        for (name, span) in [
            ("focus_ms", self.focus_ms),
            ("avert_ms", self.avert_ms),
            ("microsaccade_interval_ms", self.microsaccade_interval_ms),
        ] {
            if !span.is_valid() || span.min < 10.0 {
                out.push(format!(
                    "gaze.{name} needs 10 <= min <= max (got {} to {})",
                    span.min, span.max
                ));
            }
        }
        if !self.aversion_amount.is_valid() || self.aversion_amount.max > 1.0 {
            out.push("gaze.aversion_amount needs 0 <= min <= max <= 1".to_owned());
        }
        for (name, v) in [
            ("microsaccade_scale", self.microsaccade_scale),
            ("vertical_scale", self.vertical_scale),
            ("smoothing_ms", self.smoothing_ms),
        ] {
            if !v.is_finite() || v < 0.0 {
                out.push(format!("gaze.{name} must be a number >= 0 (got {v})"));
            }
        }
        out
    }
}

/// Where the eyes are meant to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GazeState {
    Focus,
    Avert,
}

/// The gaze state machine of one face.
#[derive(Clone, Debug)]
pub struct Gaze {
    rng: ChaCha8Rng,
    state: GazeState,
    /// Time of the next FOCUS/AVERT decision, ms on the face's clock.
    next_transition_ms: f64,
    next_microsaccade_ms: f64,
    /// Where the eyes are heading: x to the face's right, y up, in eyeLook* weight units.
    aim: [f64; 2],
    /// Where the eyes are now (the aim, smoothed).
    eyes: [f64; 2],
    now_ms: f64,
    avert_ms_total: f64,
    /// Thinking: the eyes held up and to one side until it ends.
    thinking: bool,
}

/// Where a thinking face's eyes go: up and to the side (eyeLook* weight units).
const THINKING_SIDE: f64 = 0.45;
const THINKING_UP: f64 = 0.4;

/// Longest stretch between two scheduled events; guards against settings of zero length.
const MIN_EPISODE_MS: f64 = 10.0;

impl Gaze {
    #[must_use]
    pub fn new(settings: &GazeSettings, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(1);
        let next_transition_ms = settings.focus_ms.sample(&mut rng).max(MIN_EPISODE_MS);
        let next_microsaccade_ms = settings
            .microsaccade_interval_ms
            .sample(&mut rng)
            .max(MIN_EPISODE_MS);
        Self {
            rng,
            state: GazeState::Focus,
            next_transition_ms,
            next_microsaccade_ms,
            aim: [0.0; 2],
            eyes: [0.0; 2],
            now_ms: 0.0,
            avert_ms_total: 0.0,
            thinking: false,
        }
    }

    #[must_use]
    pub fn state(&self) -> GazeState {
        self.state
    }

    /// Total time spent in AVERT so far, ms.
    #[must_use]
    pub fn avert_ms_total(&self) -> f64 {
        self.avert_ms_total
    }

    /// Advances to `now_ms` on the face's clock, handling every scheduled event on the way at
    /// its own time.
    pub fn advance(&mut self, settings: &GazeSettings, now_ms: f64, speaking: bool) {
        if self.thinking {
            self.move_eyes(settings, now_ms);
            return;
        }
        loop {
            let microsaccade_due = self.state == GazeState::Focus
                && self.next_microsaccade_ms <= self.next_transition_ms;
            let next_event = if microsaccade_due {
                self.next_microsaccade_ms
            } else {
                self.next_transition_ms
            };
            if next_event > now_ms {
                break;
            }
            self.move_eyes(settings, next_event);
            if microsaccade_due {
                self.microsaccade(settings);
            } else {
                self.transition(settings, speaking);
            }
        }
        self.move_eyes(settings, now_ms);
    }

    /// Starts or ends thinking: the eyes turn up and to a side (drawn from the seed) and stay
    /// there, an aversion held until it ends; then they come back to the partner and the
    /// FOCUS / AVERT rhythm starts again from `now_ms`.
    pub fn think(&mut self, settings: &GazeSettings, thinking: bool, now_ms: f64) {
        if thinking == self.thinking {
            return;
        }
        self.move_eyes(settings, now_ms);
        self.thinking = thinking;
        if thinking {
            let side = if self.rng.random::<bool>() { 1.0 } else { -1.0 };
            self.state = GazeState::Avert;
            self.aim = [side * THINKING_SIDE, THINKING_UP];
        } else {
            self.state = GazeState::Focus;
            self.aim = [0.0; 2];
            self.next_transition_ms =
                now_ms + settings.focus_ms.sample(&mut self.rng).max(MIN_EPISODE_MS);
            self.next_microsaccade_ms = now_ms
                + settings
                    .microsaccade_interval_ms
                    .sample(&mut self.rng)
                    .max(MIN_EPISODE_MS);
        }
    }

    /// Whether the eyes are held away in thought.
    #[must_use]
    pub fn thinking(&self) -> bool {
        self.thinking
    }

    /// The eyeLook* weights for the current eye direction.
    pub fn apply(&self, pose: &mut Pose) {
        let [x, y] = self.eyes.map(|v| v as f32);
        let right = x.max(0.0);
        let left = (-x).max(0.0);
        let up = y.max(0.0);
        let down = (-y).max(0.0);
        pose.set(ArkitTarget::EyeLookOutRight, right);
        pose.set(ArkitTarget::EyeLookInLeft, right);
        pose.set(ArkitTarget::EyeLookOutLeft, left);
        pose.set(ArkitTarget::EyeLookInRight, left);
        pose.set(ArkitTarget::EyeLookUpLeft, up);
        pose.set(ArkitTarget::EyeLookUpRight, up);
        pose.set(ArkitTarget::EyeLookDownLeft, down);
        pose.set(ArkitTarget::EyeLookDownRight, down);
    }

    fn move_eyes(&mut self, settings: &GazeSettings, to_ms: f64) {
        let dt = to_ms - self.now_ms;
        if dt <= 0.0 {
            return;
        }
        if self.state == GazeState::Avert {
            self.avert_ms_total += dt;
        }
        let keep = if settings.smoothing_ms > 0.0 {
            (-dt / settings.smoothing_ms).exp()
        } else {
            0.0
        };
        for (eye, aim) in self.eyes.iter_mut().zip(self.aim) {
            *eye = aim + (*eye - aim) * keep;
        }
        self.now_ms = to_ms;
    }

    fn transition(&mut self, settings: &GazeSettings, speaking: bool) {
        let avert_chance = if speaking {
            settings.avert_chance_speaking
        } else {
            settings.avert_chance_listening
        };
        let now = self.next_transition_ms;
        if self.state == GazeState::Focus && self.rng.random::<f64>() < avert_chance {
            self.state = GazeState::Avert;
            self.aim = self.aversion(settings, 1.0);
            self.next_transition_ms =
                now + settings.avert_ms.sample(&mut self.rng).max(MIN_EPISODE_MS);
        } else {
            self.state = GazeState::Focus;
            self.aim = [0.0; 2];
            self.next_transition_ms =
                now + settings.focus_ms.sample(&mut self.rng).max(MIN_EPISODE_MS);
            self.next_microsaccade_ms = now
                + settings
                    .microsaccade_interval_ms
                    .sample(&mut self.rng)
                    .max(MIN_EPISODE_MS);
        }
    }

    fn microsaccade(&mut self, settings: &GazeSettings) {
        let now = self.next_microsaccade_ms;
        self.aim = self.aversion(settings, settings.microsaccade_scale);
        self.next_microsaccade_ms = now
            + settings
                .microsaccade_interval_ms
                .sample(&mut self.rng)
                .max(MIN_EPISODE_MS);
    }

    /// A random direction away from the partner, `scale` times a full aversion.
    fn aversion(&mut self, settings: &GazeSettings, scale: f64) -> [f64; 2] {
        let angle = self.rng.random::<f64>() * std::f64::consts::TAU;
        let amount = settings.aversion_amount.sample(&mut self.rng) * scale;
        [
            amount * angle.cos(),
            amount * angle.sin() * settings.vertical_scale,
        ]
    }
}
