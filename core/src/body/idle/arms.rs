//! Hanging arms: each upper arm drifts forward and back and out and in on its own slow
//! rhythm, and hangs against the torso's sideways lean as a hanging arm would.

use glam::{Quat, Vec3};

use super::rhythm::{ARM_STREAM, Wobble, lean, stream};
use crate::asset::Transform;
use crate::body::humanoid::{ARMS, HumanoidMap};
use crate::body::layer::{BodyLayer, LayerInput};
use crate::body::settings::{ArmSettings, SwaySettings};
use crate::body::skeleton::Skeleton;
use crate::body::space::rotate_world;

/// How far behind the torso's lean the arms hang, seconds.
const HANG_LAG_S: f64 = 0.35;

/// One upper arm and its rhythms.
#[derive(Clone, Copy, Debug)]
struct Arm {
    upper: usize,
    sign: f32,
    swing: Wobble,
    out: Wobble,
}

/// The arm layer.
#[derive(Debug)]
pub struct ArmLayer {
    pub settings: ArmSettings,
    arms: Vec<Arm>,
    /// The torso's lean (as the sway layer has it) and how far it leans, radians.
    lean: Wobble,
    lean_rad: f32,
    left: Vec3,
    front: Vec3,
}

impl ArmLayer {
    #[must_use]
    pub fn new(map: &HumanoidMap, settings: &ArmSettings, sway: &SwaySettings, seed: u64) -> Self {
        let mut rng = stream(seed, ARM_STREAM);
        let arms = ARMS
            .iter()
            .zip([1.0, -1.0])
            .filter_map(|([_, upper, ..], sign)| {
                let upper = map.joint(*upper)?;
                Some(Arm {
                    upper,
                    sign,
                    swing: Wobble::new(&mut rng, 5.0),
                    out: Wobble::new(&mut rng, 6.5),
                })
            })
            .collect();
        Self {
            settings: settings.clone(),
            arms,
            lean: lean(seed, sway.period_s),
            lean_rad: if sway.enabled {
                sway.torso_deg.to_radians()
            } else {
                0.0
            },
            left: map.left(),
            front: map.front,
        }
    }
}

impl BodyLayer for ArmLayer {
    fn name(&self) -> &'static str {
        "arms"
    }

    fn apply(&mut self, skeleton: &Skeleton, input: &LayerInput, locals: &mut [Transform]) {
        if !self.settings.enabled {
            return;
        }
        let t = input.time_s;
        let amount = self.settings.swing_deg.to_radians();
        let hang =
            -self.settings.hang.clamp(0.0, 1.0) * self.lean_rad * self.lean.at(t - HANG_LAG_S);
        for arm in &self.arms {
            let swing = amount * arm.swing.at(t);
            let out = 0.5 * amount * arm.out.at(t) * arm.sign;
            let turn = Quat::from_axis_angle(self.front, hang + out)
                * Quat::from_axis_angle(self.left, swing);
            rotate_world(skeleton, locals, arm.upper, turn);
        }
    }
}
