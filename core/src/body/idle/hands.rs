//! Relaxed hands: each finger curls toward the palm about a hinge worked out from the rest
//! pose's geometry (the knuckle line and the side the thumb sits on, not the bones' local
//! axes, which differ between tools), each finger toward the little one a little more, each
//! drifting on its own slow rhythm.

use super::rhythm::{HAND_STREAM, Wobble, stream};
use crate::asset::Transform;
use crate::body::hand_rig::HandRig;
use crate::body::humanoid::HumanoidMap;
use crate::body::layer::{BodyDetail, BodyLayer, LayerInput};
use crate::body::settings::HandSettings;
use crate::body::skeleton::Skeleton;

/// The thumb curls this share of the index finger.
const THUMB_SHARE: f32 = 0.35;
/// Finger drift rhythm, seconds.
const DRIFT_PERIOD_S: f32 = 6.0;

/// Relaxed hands on a rig with fingers.
#[derive(Debug)]
pub struct HandLayer {
    pub settings: HandSettings,
    hands: Vec<HandRig>,
    /// Each finger's drift, per hand, in the order of its fingers.
    drifts: Vec<Vec<Wobble>>,
}

impl HandLayer {
    #[must_use]
    pub fn new(skeleton: &Skeleton, map: &HumanoidMap, settings: &HandSettings, seed: u64) -> Self {
        let mut rng = stream(seed, HAND_STREAM);
        let hands = HandRig::of(skeleton, map);
        let drifts = hands
            .iter()
            .map(|h| {
                h.fingers
                    .iter()
                    .map(|_| Wobble::new(&mut rng, DRIFT_PERIOD_S))
                    .collect()
            })
            .collect();
        Self {
            settings: settings.clone(),
            hands,
            drifts,
        }
    }

    /// How far a relaxed finger (0 thumb .. 4 little) curls by `settings`, radians.
    #[must_use]
    pub fn relaxed_curl(settings: &HandSettings, finger: usize) -> f32 {
        let share = if finger == 0 {
            THUMB_SHARE
        } else {
            1.0 + settings.curl_spread * (finger as f32 - 1.0)
        };
        settings.curl_deg.to_radians() * share
    }
}

impl BodyLayer for HandLayer {
    fn name(&self) -> &'static str {
        "hands"
    }

    fn apply(&mut self, skeleton: &Skeleton, input: &LayerInput, locals: &mut [Transform]) {
        if !self.settings.enabled || input.detail == BodyDetail::Far {
            return;
        }
        let drift = self.settings.drift_deg.to_radians();
        for (hand, drifts) in self.hands.iter().zip(&self.drifts) {
            hand.curl(skeleton, locals, |k, finger| {
                let wobble = drifts.get(k).map_or(0.0, |w| w.at(input.time_s));
                Self::relaxed_curl(&self.settings, finger.finger) + drift * wobble
            });
        }
    }
}
