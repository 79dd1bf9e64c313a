//! A hand's geometry as the rest pose shows it: which way its palm faces and the hinge each
//! finger curls about, worked out from where the knuckles and the thumb are (not from the
//! bones' local axes, which differ between tools). Idle hands and talking hand shapes both
//! curl fingers through it.

use glam::{Quat, Vec3};

use super::humanoid::{ARMS, FINGERS, HumanoidMap};
use super::skeleton::Skeleton;
use super::space::{position, rotate_chain};
use crate::asset::Transform;

/// How much each joint of a finger curls, from the hand out (share of the finger's curl).
const JOINT_SHARE: [f32; 3] = [0.8, 1.2, 0.9];

/// One finger: its joints from the hand out, and its hinge in the hand's frame.
#[derive(Clone, Debug, PartialEq)]
pub struct FingerRig {
    /// 0 thumb, 1 index, 2 middle, 3 ring, 4 little.
    pub finger: usize,
    pub joints: Vec<usize>,
    pub hinge: Vec3,
}

/// One hand: its joint, its palm's normal in the hand's frame, its fingers.
#[derive(Clone, Debug, PartialEq)]
pub struct HandRig {
    /// 0 left, 1 right.
    pub side: usize,
    pub joint: usize,
    pub palm: Vec3,
    pub fingers: Vec<FingerRig>,
}

impl HandRig {
    /// The hands of a rig that has index, middle and little fingers (none otherwise).
    #[must_use]
    pub fn of(skeleton: &Skeleton, map: &HumanoidMap) -> Vec<Self> {
        let rest = skeleton.rest_world();
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
            let mut palm = if side == 0 {
                knuckles.cross(along)
            } else {
                along.cross(knuckles)
            }
            .normalize_or_zero();
            // The thumb sits on the palm's side: trust it over the handedness of the cross
            // product when the rig is mirrored.
            if let Some(thumb) = at(fingers[0][2]).or_else(|| at(fingers[0][1]))
                && (thumb - wrist).dot(palm) < -0.2 * (thumb - wrist).length()
            {
                palm = -palm;
            }
            if palm == Vec3::ZERO {
                continue;
            }
            let to_hand = skeleton.world_rotation(&skeleton.rest, hand).inverse();
            let mut rigs = Vec::new();
            for (finger, bones) in fingers.iter().enumerate() {
                let joints: Vec<usize> = bones.iter().map_while(|b| map.joint(*b)).collect();
                let (Some(&first), Some(&second)) = (joints.first(), joints.get(1)) else {
                    continue;
                };
                let dir = (position(&rest, second) - position(&rest, first)).normalize_or_zero();
                let Some(hinge) = dir.cross(palm).try_normalize() else {
                    continue;
                };
                rigs.push(FingerRig {
                    finger,
                    joints,
                    hinge: to_hand * hinge,
                });
            }
            hands.push(Self {
                side,
                joint: hand,
                palm: to_hand * palm,
                fingers: rigs,
            });
        }
        hands
    }

    /// Curls every finger toward the palm by `curl(k, finger)` radians (negative straightens;
    /// `k` counts this hand's fingers), spread over its joints.
    pub fn curl(
        &self,
        skeleton: &Skeleton,
        locals: &mut [Transform],
        curl: impl Fn(usize, &FingerRig) -> f32,
    ) {
        let hand_rotation = skeleton.world_rotation(locals, self.joint);
        for (k, finger) in self.fingers.iter().enumerate() {
            let hinge = hand_rotation * finger.hinge;
            let angle = curl(k, finger);
            if angle == 0.0 {
                continue;
            }
            let turns = finger
                .joints
                .iter()
                .zip(JOINT_SHARE)
                .map(|(&j, share)| (j, Quat::from_axis_angle(hinge, angle * share)));
            rotate_chain(skeleton, locals, (self.joint, hand_rotation), turns);
        }
    }

    /// The palm's normal in the avatar's space for the pose `locals`.
    #[must_use]
    pub fn palm_normal(&self, skeleton: &Skeleton, locals: &[Transform]) -> Vec3 {
        skeleton.world_rotation(locals, self.joint) * self.palm
    }
}
