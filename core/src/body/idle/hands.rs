//! Relaxed hands: each finger curls toward the palm about a hinge worked out from the rest
//! pose's geometry (the knuckle line and the side the thumb sits on, not the bones' local
//! axes, which differ between tools), each finger toward the little one a little more, each
//! drifting on its own slow rhythm.

use glam::{Quat, Vec3};

use super::rhythm::{HAND_STREAM, Wobble, stream};
use crate::asset::Transform;
use crate::body::humanoid::{ARMS, FINGERS, HumanoidMap};
use crate::body::layer::{BodyLayer, LayerInput};
use crate::body::settings::HandSettings;
use crate::body::skeleton::Skeleton;
use crate::body::space::{position, rotate_world};

/// How much each joint of a finger curls, from the hand out (share of the finger's curl).
const JOINT_SHARE: [f32; 3] = [0.8, 1.2, 0.9];
/// The thumb curls this share of the index finger.
const THUMB_SHARE: f32 = 0.35;
/// Finger drift rhythm, seconds.
const DRIFT_PERIOD_S: f32 = 6.0;

/// One finger: its joints, its hinge in the hand's frame, its curl and its drift.
#[derive(Clone, Debug)]
struct Finger {
    joints: Vec<usize>,
    hinge: Vec3,
    share: f32,
    drift: Wobble,
}

/// One hand.
#[derive(Clone, Debug)]
struct Hand {
    joint: usize,
    fingers: Vec<Finger>,
}

/// The hand layer.
#[derive(Debug)]
pub struct HandLayer {
    pub settings: HandSettings,
    hands: Vec<Hand>,
}

impl HandLayer {
    #[must_use]
    pub fn new(skeleton: &Skeleton, map: &HumanoidMap, settings: &HandSettings, seed: u64) -> Self {
        let rest = skeleton.rest_world();
        let mut rng = stream(seed, HAND_STREAM);
        let mut hands = Vec::new();
        for (side, [_, _, _, hand]) in ARMS.into_iter().enumerate() {
            let Some(hand) = map.joint(hand) else {
                continue;
            };
            let at = |bone| map.joint(bone).map(|j| position(&rest, j));
            let fingers = &FINGERS[side];
            let (Some(index), Some(middle), Some(little)) =
                (at(fingers[1][0]), at(fingers[2][0]), at(fingers[4][0]))
            else {
                continue;
            };
            let wrist = position(&rest, hand);
            let along = (middle - wrist).normalize_or_zero();
            let knuckles = (little - index).normalize_or_zero();
            // The palm faces where the fingers curl: knuckles x fingers on the left hand,
            // mirrored on the right; the thumb, which sits on the palm's side, confirms it.
            let mut palm = if side == 0 {
                knuckles.cross(along)
            } else {
                along.cross(knuckles)
            }
            .normalize_or_zero();
            if let Some(thumb) = at(fingers[0][2]).or_else(|| at(fingers[0][1]))
                && (thumb - wrist).dot(palm) < -0.2 * (thumb - wrist).length()
            {
                palm = -palm;
            }
            if palm == Vec3::ZERO {
                continue;
            }
            let to_hand = skeleton.world_rotation(&skeleton.rest, hand).inverse();
            let mut hand_fingers = Vec::new();
            for (f, bones) in fingers.iter().enumerate() {
                let joints: Vec<usize> = bones.iter().map_while(|b| map.joint(*b)).collect();
                let (Some(&first), Some(&second)) = (joints.first(), joints.get(1)) else {
                    continue;
                };
                let dir = (position(&rest, second) - position(&rest, first)).normalize_or_zero();
                let Some(hinge) = dir.cross(palm).try_normalize() else {
                    continue;
                };
                let share = if f == 0 {
                    THUMB_SHARE
                } else {
                    1.0 + settings.curl_spread * (f as f32 - 1.0)
                };
                hand_fingers.push(Finger {
                    joints,
                    hinge: to_hand * hinge,
                    share,
                    drift: Wobble::new(&mut rng, DRIFT_PERIOD_S),
                });
            }
            hands.push(Hand {
                joint: hand,
                fingers: hand_fingers,
            });
        }
        Self {
            settings: settings.clone(),
            hands,
        }
    }
}

impl BodyLayer for HandLayer {
    fn name(&self) -> &'static str {
        "hands"
    }

    fn apply(&mut self, skeleton: &Skeleton, input: &LayerInput, locals: &mut [Transform]) {
        if !self.settings.enabled {
            return;
        }
        let curl = self.settings.curl_deg.to_radians();
        let drift = self.settings.drift_deg.to_radians();
        for hand in &self.hands {
            let hand_rotation = skeleton.world_rotation(locals, hand.joint);
            for finger in &hand.fingers {
                let hinge = hand_rotation * finger.hinge;
                let angle = curl * finger.share + drift * finger.drift.at(input.time_s);
                for (&j, share) in finger.joints.iter().zip(JOINT_SHARE) {
                    rotate_world(
                        skeleton,
                        locals,
                        j,
                        Quat::from_axis_angle(hinge, angle * share),
                    );
                }
            }
        }
    }
}
