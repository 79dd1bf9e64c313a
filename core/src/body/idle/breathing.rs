//! Breathing: the chest rises a few millimetres and the upper spine straightens a little on
//! each inhale, the collarbones barely lift, the head stays level; the exhale takes longer
//! than the inhale.

use glam::{Quat, Vec3};
use rand::Rng;

use super::rhythm::{BREATH_STREAM, stream};
use crate::asset::Transform;
use crate::body::humanoid::{ARMS, HumanoidBone, HumanoidMap};
use crate::body::layer::{BodyLayer, LayerInput};
use crate::body::settings::BreathingSettings;
use crate::body::skeleton::Skeleton;
use crate::body::space::rotate_world;

/// Share of the chest's straightening the neck gives back, so the head stays level.
const NECK_GIVES_BACK: f32 = 0.8;

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
        }
    }

    /// How full the lungs are at `t_s` (0 empty, 1 full): a smooth rise over the inhale and a
    /// longer smooth fall over the exhale.
    #[must_use]
    pub fn fullness(&self, t_s: f64) -> f32 {
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
