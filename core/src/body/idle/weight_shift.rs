//! Weight shifts: every so often (seeded, 8-30 s by default) the body settles onto one foot.
//! The hips move over the standing foot and drop a little, the free side of the pelvis dips,
//! the shoulders tilt the other way (contrapposto), and two-bone IK keeps both feet where
//! they were, so the free knee bends. The schedule is drawn event by event as time passes, so
//! it is the same at any frame rate.

use glam::{Quat, Vec3};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::rhythm::{SHIFT_STREAM, smoothstep, stream};
use crate::asset::Transform;
use crate::body::humanoid::{HumanoidBone, HumanoidMap};
use crate::body::layer::{BodyLayer, LayerInput};
use crate::body::settings::WeightShiftSettings;
use crate::body::skeleton::Skeleton;
use crate::body::space::{move_world, rotate_world, set_world_rotation};
use crate::body::two_bone::{Limb, LimbAt, bend_pole, reach};

/// Chance that a shift from one foot goes to the other foot rather than back to both.
const TO_OTHER_FOOT: f64 = 0.7;

/// Where the weight is: -1 on the right foot, 0 on both, +1 on the left.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Shift {
    from: f32,
    to: f32,
    start_s: f64,
    length_s: f64,
}

impl Shift {
    fn at(&self, t_s: f64) -> f32 {
        let x = ((t_s - self.start_s) / self.length_s.max(1e-3)) as f32;
        self.from + (self.to - self.from) * smoothstep(x)
    }
}

/// The weight shift layer.
#[derive(Debug)]
pub struct WeightShiftLayer {
    pub settings: WeightShiftSettings,
    hips: Option<usize>,
    spine: Option<usize>,
    legs: Vec<Limb>,
    left: Vec3,
    front: Vec3,
    rng: ChaCha8Rng,
    shift: Shift,
    next_s: f64,
    /// Each leg's ankle position and foot rotation before the shift.
    planted: Vec<(Vec3, Quat)>,
    /// Each leg's hip, knee and ankle positions before the shift.
    legs_at: Vec<[Vec3; 3]>,
}

impl WeightShiftLayer {
    #[must_use]
    pub fn new(map: &HumanoidMap, settings: &WeightShiftSettings, seed: u64) -> Self {
        let legs = Limb::legs(map);
        let mut rng = stream(seed, SHIFT_STREAM);
        // The first shift comes within the shortest interval, so it shows soon.
        let first = rng.random_range(0.25..1.0) * f64::from(settings.min_interval_s.max(0.5));
        Self {
            settings: settings.clone(),
            hips: map.joint(HumanoidBone::Hips),
            spine: map.joint(HumanoidBone::Spine),
            legs,
            left: map.left(),
            front: map.front,
            rng,
            shift: Shift {
                from: 0.0,
                to: 0.0,
                start_s: 0.0,
                length_s: 1.0,
            },
            next_s: first,
            planted: Vec::new(),
            legs_at: Vec::new(),
        }
    }

    /// Where the weight is at `t_s` (-1 right foot, 0 both, +1 left), drawing the shifts due
    /// up to then.
    fn weight(&mut self, t_s: f64) -> f32 {
        while t_s >= self.next_s {
            let now = self.shift.to;
            let to = if now == 0.0 {
                if self.rng.random_bool(0.5) { 1.0 } else { -1.0 }
            } else if self.rng.random_bool(TO_OTHER_FOOT) {
                -now
            } else {
                0.0
            };
            self.shift = Shift {
                from: now,
                to,
                start_s: self.next_s,
                length_s: f64::from(self.settings.transition_s.max(0.05)),
            };
            let (low, high) = (
                self.settings.min_interval_s.max(0.5),
                self.settings
                    .max_interval_s
                    .max(self.settings.min_interval_s.max(0.5)),
            );
            self.next_s +=
                f64::from(low) + self.rng.random_range(0.0..=1.0) * f64::from(high - low);
        }
        self.shift.at(t_s)
    }
}

impl BodyLayer for WeightShiftLayer {
    fn name(&self) -> &'static str {
        "weight_shift"
    }

    fn apply(&mut self, skeleton: &Skeleton, input: &LayerInput, locals: &mut [Transform]) {
        let w = self.weight(input.time_s);
        if !self.settings.enabled || w.abs() < 1e-4 || self.legs.len() < 2 {
            return;
        }
        let Some(hips) = self.hips else { return };
        let at = |j: usize| skeleton.world_of(locals, j).w_axis.truncate();
        let hip_at = at(hips);
        self.planted.clear();
        self.legs_at.clear();
        for &limb in &self.legs {
            self.legs_at
                .push([at(limb.root), at(limb.mid), at(limb.end)]);
            self.planted
                .push((at(limb.end), skeleton.world_rotation(locals, limb.end)));
        }
        let by = self.left * (self.settings.hip_shift_m * w)
            - Vec3::Y * (self.settings.hip_drop_m * w.abs());
        move_world(skeleton, locals, hips, by);
        // The free side dips: on the left foot (w > 0) the left side rises.
        let tilt = self.settings.pelvis_tilt_deg.to_radians() * w;
        let roll = Quat::from_axis_angle(self.front, tilt);
        rotate_world(skeleton, locals, hips, roll);
        if let Some(spine) = self.spine {
            // Undo the pelvis's tilt above it and tilt the shoulders the other way.
            let shoulders = self.settings.shoulder_tilt_deg.to_radians() * w;
            rotate_world(
                skeleton,
                locals,
                spine,
                Quat::from_axis_angle(self.front, -tilt - shoulders),
            );
        }
        let moved = |p: Vec3| hip_at + by + roll * (p - hip_at);
        for ((&leg, &(ankle, foot_rotation)), &[root, mid, end]) in
            self.legs.iter().zip(&self.planted).zip(&self.legs_at)
        {
            let mut at = LimbAt {
                root: moved(root),
                mid: moved(mid),
                end: moved(end),
            };
            let pole = bend_pole(&at, self.front);
            reach(skeleton, locals, leg, &mut at, ankle, pole);
            set_world_rotation(skeleton, locals, leg.end, foot_rotation);
        }
    }
}
