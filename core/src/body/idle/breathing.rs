//! Breathing: the chest rises a few millimetres and the upper spine straightens a little on
//! each inhale, the collarbones barely lift, the head stays level; the exhale takes longer
//! than the inhale.

use glam::{Quat, Vec3};
use rand::Rng;

use super::rhythm::{BREATH_STREAM, smoothstep, stream};
use crate::asset::Transform;
use crate::body::humanoid::{ARMS, HumanoidBone, HumanoidMap};
use crate::body::layer::{BodyLayer, LayerInput};
use crate::body::settings::BreathingSettings;
use crate::body::skeleton::Skeleton;
use crate::body::space::rotate_world;

/// Share of the chest's straightening the neck gives back, so the head stays level.
const NECK_GIVES_BACK: f32 = 0.8;
/// A breath taken before a phrase fills the lungs in this long, s.
const SPEECH_INHALE_S: f64 = 0.35;
/// Speaking, the lungs empty over this long after a breath, s (to a floor of
/// [`SPEECH_EMPTY`]).
const SPEECH_EXHALE_S: f64 = 4.0;
const SPEECH_EMPTY: f32 = 0.15;
/// After the last breath before a phrase, the rhythm of quiet breathing comes back from this
/// long on, over [`BACK_TO_RHYTHM_S`], s.
const SPEECH_HOLD_S: f64 = 5.0;
const BACK_TO_RHYTHM_S: f64 = 1.5;

/// The breathing layer.
#[derive(Debug)]
pub struct BreathingLayer {
    pub settings: BreathingSettings,
    /// The joint the breath lifts (chest, else spine) and "up" in its parent's frame per metre.
    lift: Option<(usize, Vec3)>,
    /// The joint that straightens (upper chest, else chest, else spine).
    bend: Option<usize>,
    neck: Option<usize>,
    /// Collarbones and their sign (+1 left).
    shoulders: Vec<(usize, f32)>,
    left: Vec3,
    front: Vec3,
    /// Where in its breath the body starts (0-1).
    phase: f64,
    /// The last breath before a phrase: when it began and how full the lungs were then.
    speech_breath: Option<(f64, f32)>,
    /// How far the quiet rhythm's clock has run ahead of the body's (behind, negative), s:
    /// an emotion's bearing breathes faster or slower.
    ahead_s: f64,
}

impl BreathingLayer {
    #[must_use]
    pub fn new(
        skeleton: &Skeleton,
        map: &HumanoidMap,
        settings: &BreathingSettings,
        seed: u64,
    ) -> Self {
        use HumanoidBone as B;
        let rest = skeleton.rest_world();
        let first = |bones: &[B]| bones.iter().find_map(|b| map.joint(*b));
        let lift = first(&[B::Chest, B::Spine]).map(|j| {
            let parent = skeleton.parents[j].map_or(glam::Mat4::IDENTITY, |p| rest[p]);
            (j, parent.inverse().transform_vector3(Vec3::Y))
        });
        let shoulders = ARMS
            .iter()
            .zip([1.0, -1.0])
            .filter_map(|([shoulder, ..], sign)| map.joint(*shoulder).map(|j| (j, sign)))
            .collect();
        Self {
            settings: settings.clone(),
            lift,
            bend: first(&[B::UpperChest, B::Chest, B::Spine]),
            neck: map.joint(B::Neck),
            shoulders,
            left: map.left(),
            front: map.front,
            phase: stream(seed, BREATH_STREAM).random_range(0.0..1.0),
            speech_breath: None,
            ahead_s: 0.0,
        }
    }

    /// How full the lungs are at `t_s` (0 empty, 1 full): the quiet rhythm, or after a breath
    /// before a phrase a quick fill and a long slow emptying while speaking, easing back to
    /// the rhythm after.
    #[must_use]
    pub fn fullness(&self, t_s: f64) -> f32 {
        let quiet = self.rhythm(t_s + self.ahead_s);
        let Some((at, from)) = self.speech_breath else {
            return quiet;
        };
        let since = (t_s - at).max(0.0);
        let speaking = if since < SPEECH_INHALE_S {
            from + (1.0 - from) * smoothstep((since / SPEECH_INHALE_S) as f32)
        } else {
            (1.0 - ((since - SPEECH_INHALE_S) / SPEECH_EXHALE_S) as f32).max(SPEECH_EMPTY)
        };
        let back = smoothstep(((since - SPEECH_HOLD_S) / BACK_TO_RHYTHM_S) as f32);
        speaking + (quiet - speaking) * back
    }

    /// The quiet rhythm at `t_s`: a smooth rise over the inhale and a longer smooth fall over
    /// the exhale.
    fn rhythm(&self, t_s: f64) -> f32 {
        let rate = f64::from(self.settings.rate_per_min.clamp(1.0, 60.0)) / 60.0;
        let p = (t_s * rate + self.phase).rem_euclid(1.0) as f32;
        let inhale = self.settings.inhale_share.clamp(0.05, 0.95);
        if p < inhale {
            0.5 - 0.5 * (std::f32::consts::PI * p / inhale).cos()
        } else {
            0.5 + 0.5 * (std::f32::consts::PI * (p - inhale) / (1.0 - inhale)).cos()
        }
    }
}

impl BodyLayer for BreathingLayer {
    fn name(&self) -> &'static str {
        "breathing"
    }

    fn apply(&mut self, skeleton: &Skeleton, input: &LayerInput, locals: &mut [Transform]) {
        if !self.settings.enabled {
            return;
        }
        let rate = input.bearing.breath_rate.clamp(0.25, 4.0);
        self.ahead_s += f64::from(input.dt_s) * f64::from(rate - 1.0);
        if input.inhale {
            let now = self.fullness(input.time_s);
            self.speech_breath = Some((input.time_s, now));
        }
        let b = self.fullness(input.time_s);
        if let Some((j, up)) = self.lift
            && let Some(local) = locals.get_mut(j)
        {
            local.translation += up * (self.settings.chest_lift_mm * 0.001 * b);
        }
        let straighten = self.settings.chest_deg.to_radians() * b;
        if let Some(j) = self.bend {
            // Straightening tips the top of the spine back: about the left axis, negative.
            rotate_world(
                skeleton,
                locals,
                j,
                Quat::from_axis_angle(self.left, -straighten),
            );
        }
        if let Some(j) = self.neck {
            rotate_world(
                skeleton,
                locals,
                j,
                Quat::from_axis_angle(self.left, straighten * NECK_GIVES_BACK),
            );
        }
        let lift = self.settings.shoulder_deg.to_radians() * b;
        for &(j, sign) in &self.shoulders {
            rotate_world(
                skeleton,
                locals,
                j,
                Quat::from_axis_angle(self.front, lift * sign),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::layer::Activity;

    fn step(layer: &mut BreathingLayer, skeleton: &Skeleton, t_s: f64, inhale: bool) {
        let input = LayerInput {
            dt_s: 1.0 / 30.0,
            time_s: t_s,
            clip_pose: true,
            inhale,
            activity: Activity::Talk,
            attention: None,
            talk: None,
            bearing: crate::body::Bearing::default(),
            detail: crate::body::BodyDetail::Full,
            ground: None,
        };
        let mut locals = skeleton.rest.clone();
        layer.apply(skeleton, &input, &mut locals);
    }

    #[test]
    fn a_phrase_start_fills_the_lungs_quickly_and_speech_empties_them_slowly() {
        let rig = crate::procedural::body::clip_rig();
        let settings = BreathingSettings::default();
        let mut layer = BreathingLayer::new(&rig.skeleton, &rig.map, &settings, 3);
        // Find a moment of quiet breathing with the lungs mostly empty.
        let mut t = 0.0;
        while layer.fullness(t) > 0.2 {
            t += 1.0 / 30.0;
        }
        step(&mut layer, &rig.skeleton, t, true);
        let full = layer.fullness(t + SPEECH_INHALE_S);
        assert!(full > 0.99, "full {full} after the breath");
        let later = layer.fullness(t + SPEECH_INHALE_S + 2.0);
        assert!(
            (later - 0.5).abs() < 0.01,
            "half empty two seconds on: {later}"
        );
        // Long after the last phrase the quiet rhythm is back.
        let quiet = BreathingLayer::new(&rig.skeleton, &rig.map, &settings, 3);
        let far = t + SPEECH_HOLD_S + BACK_TO_RHYTHM_S + 1.0;
        assert!((layer.fullness(far) - quiet.fullness(far)).abs() < 1e-6);
    }

    /// Breaths taken in `minutes` of quiet breathing at `rate` times the character's rate.
    fn breaths(rate: f32, minutes: f64) -> usize {
        let rig = crate::procedural::body::clip_rig();
        let mut layer =
            BreathingLayer::new(&rig.skeleton, &rig.map, &BreathingSettings::default(), 3);
        let dt = 1.0 / 30.0;
        let mut locals = rig.skeleton.rest.clone();
        let (mut count, mut last) = (0, None);
        for i in 0..(minutes * 60.0 * 30.0) as usize {
            let t_s = i as f64 * dt;
            let input = LayerInput {
                dt_s: dt as f32,
                time_s: t_s,
                clip_pose: true,
                inhale: false,
                activity: Activity::Idle,
                attention: None,
                talk: None,
                bearing: crate::body::Bearing {
                    breath_rate: rate,
                    ..crate::body::Bearing::default()
                },
                detail: crate::body::BodyDetail::Full,
                ground: None,
            };
            layer.apply(&rig.skeleton, &input, &mut locals);
            let now = layer.fullness(t_s) > 0.5;
            if last == Some(false) && now {
                count += 1;
            }
            last = Some(now);
        }
        count
    }

    #[test]
    fn an_emotions_bearing_breathes_slower_or_faster() {
        // 15 a minute by default: 60 in four minutes, 48 at 0.8 times, 78 at 1.3 times.
        let (plain, slow, fast) = (breaths(1.0, 4.0), breaths(0.8, 4.0), breaths(1.3, 4.0));
        assert!((59..=61).contains(&plain), "{plain}");
        assert!((47..=49).contains(&slow), "{slow}");
        assert!((77..=79).contains(&fast), "{fast}");
    }
}
