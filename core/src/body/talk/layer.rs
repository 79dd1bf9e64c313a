//! The talking layer: moves the hands into the plan's talking poses by two-bone arm IK (the
//! elbow bending out and down, never through the body), turns the palms by the forearm,
//! shapes the fingers, flicks the raised hand on beats and nods the head. Everything it does
//! is a function of the plan and the line's clock, so every frame rate draws the same.

use glam::{Quat, Vec3};

use super::plan::TalkPlan;
use super::poses::{HandShape, TalkPose};
use crate::asset::Transform;
use crate::body::hand_rig::HandRig;
use crate::body::humanoid::{ARMS, HumanoidBone, HumanoidMap};
use crate::body::idle::HandLayer;
use crate::body::layer::{BodyDetail, BodyLayer, LayerInput};
use crate::body::settings::{GestureSettings, HandSettings};
use crate::body::skeleton::Skeleton;
use crate::body::space::{position, rotate_world};
use crate::body::two_bone::{Limb, LimbAt, bend_pole, reach};

/// The neck's share of a nod (the head takes the rest).
const NECK_SHARE: f32 = 0.4;
/// A pointing arm reaches this share of its length toward the target.
const POINT_REACH: f32 = 0.97;
/// A wave swings the hand this far either way, metres, this often, ms.
const WAVE_M: f32 = 0.06;
const WAVE_PERIOD_MS: f64 = 450.0;
/// Most strokes a hand is in at once.
const MAX_OVERLAP: usize = 4;
/// Which way elbows point while the hands talk: out, down and back.
const ELBOW_OUT: f32 = 0.55;
const ELBOW_DOWN: f32 = 0.7;
const ELBOW_BACK: f32 = 0.35;

/// A plan being played: the plan and where its line's clock is.
#[derive(Clone, Copy, Debug)]
pub struct TalkMoment<'a> {
    pub plan: &'a TalkPlan,
    pub at_ms: f64,
    /// What a pointing hand aims at, in the avatar's own space.
    pub point_at: Option<Vec3>,
}

#[derive(Clone, Debug)]
struct Arm {
    side: usize,
    limb: Limb,
    length: f32,
    hand: Option<HandRig>,
}

/// Talking hands and head.
#[derive(Debug)]
pub struct GestureLayer {
    pub settings: GestureSettings,
    arms: Vec<Arm>,
    neck: Option<usize>,
    head: Option<usize>,
    left: Vec3,
    front: Vec3,
    /// Idle life's finger curl, which hand shapes replace.
    relaxed: HandSettings,
}

impl GestureLayer {
    #[must_use]
    pub fn new(
        skeleton: &Skeleton,
        map: &HumanoidMap,
        settings: &GestureSettings,
        hands: &HandSettings,
    ) -> Self {
        let rest = skeleton.rest_world();
        let mut rigs = HandRig::of(skeleton, map);
        let arms = ARMS
            .into_iter()
            .enumerate()
            .filter_map(|(side, [_, upper, lower, hand])| {
                let limb = Limb {
                    root: map.joint(upper)?,
                    mid: map.joint(lower)?,
                    end: map.joint(hand)?,
                };
                let length = position(&rest, limb.root).distance(position(&rest, limb.mid))
                    + position(&rest, limb.mid).distance(position(&rest, limb.end));
                let hand = rigs
                    .iter()
                    .position(|h| h.side == side)
                    .map(|i| rigs.swap_remove(i));
                Some(Arm {
                    side,
                    limb,
                    length,
                    hand,
                })
            })
            .collect();
        Self {
            settings: settings.clone(),
            arms,
            neck: map.joint(HumanoidBone::Neck),
            head: map.joint(HumanoidBone::Head),
            left: map.left(),
            front: map.front,
            relaxed: if hands.enabled {
                hands.clone()
            } else {
                HandSettings {
                    curl_deg: 0.0,
                    ..hands.clone()
                }
            },
        }
    }

    fn arm(
        &self,
        arm: usize,
        skeleton: &Skeleton,
        talk: &TalkMoment<'_>,
        detail: BodyDetail,
        locals: &mut [Transform],
    ) {
        let (plan, t) = (talk.plan, talk.at_ms);
        let Arm {
            side,
            limb,
            length,
            ref hand,
        } = self.arms[arm];
        // (weight, place) of every pose this hand is in now.
        // Handovers overlap two strokes at most; a few slots keep the frame allocation-free.
        let mut slots = [(0.0, TalkPose::PalmsUp); MAX_OVERLAP];
        let mut n = 0;
        for stroke in plan.strokes.iter().filter(|s| s.hands.has(side)) {
            let w = stroke.phases.weight(t);
            if w > 0.0 && n < MAX_OVERLAP {
                slots[n] = (w, stroke.pose);
                n += 1;
            }
        }
        let active = &slots[..n];
        let total: f32 = active.iter().map(|(w, _)| w).sum::<f32>().min(1.0);
        if total <= 0.0 {
            return;
        }
        let outward = if side == 0 { self.left } else { -self.left };
        let mut at = LimbAt::of(skeleton, locals, limb);
        let mut offset = Vec3::ZERO;
        let mut palm_deg = 0.0;
        for &(w, pose) in active {
            let place = pose.place();
            let aim = talk
                .point_at
                .filter(|_| pose == TalkPose::Point)
                .and_then(|p| (p - at.root).try_normalize());
            let mut goal = match aim {
                Some(dir) => at.root + dir * (length * POINT_REACH),
                None => {
                    at.root
                        + length
                            * (self.front * place.forward - Vec3::Y * place.down
                                + outward * place.out)
                }
            };
            if pose == TalkPose::Wave {
                let swing = (t / WAVE_PERIOD_MS * std::f64::consts::TAU).sin() as f32;
                goal += outward * (WAVE_M * swing);
            }
            offset += w * (goal - at.end);
            palm_deg += w * place.palm_deg;
        }
        palm_deg /= active.iter().map(|(w, _)| w).sum::<f32>().max(1e-6);
        let flick = Vec3::Y * (plan.beat_m * plan.flick(t) * total);
        let target = at.end + offset * plan.size + flick;
        let pole = bend_pole(
            &at,
            (outward * ELBOW_OUT - Vec3::Y * ELBOW_DOWN - self.front * ELBOW_BACK).normalize(),
        );
        reach(skeleton, locals, limb, &mut at, target, pole);
        let Some(hand) = hand else {
            return;
        };
        self.turn_palm(skeleton, locals, limb, &at, hand, outward, palm_deg, total);
        if detail == BodyDetail::Far {
            return;
        }
        let relaxed = &self.relaxed;
        hand.curl(skeleton, locals, |_, finger| {
            active
                .iter()
                .map(|(w, pose)| {
                    let relaxed = HandLayer::relaxed_curl(relaxed, finger.finger);
                    let want = match pose.place().shape {
                        HandShape::Relaxed => relaxed,
                        shape => shape
                            .curls_deg()
                            .map_or(relaxed, |c| c[finger.finger.min(4)].to_radians()),
                    };
                    w * (want - relaxed)
                })
                .sum()
        });
    }

    /// Turns the forearm and hand about the forearm so the palm faces `palm_deg` from the
    /// body's middle toward up, by `amount`; half the turn in the forearm, half at the wrist.
    #[allow(clippy::too_many_arguments)]
    fn turn_palm(
        &self,
        skeleton: &Skeleton,
        locals: &mut [Transform],
        limb: Limb,
        at: &LimbAt,
        hand: &HandRig,
        outward: Vec3,
        palm_deg: f32,
        amount: f32,
    ) {
        let Some(axis) = (at.end - at.mid).try_normalize() else {
            return;
        };
        let flat = |v: Vec3| (v - axis * v.dot(axis)).try_normalize();
        let (Some(palm), Some(inward), Some(up)) = (
            flat(hand.palm_normal(skeleton, locals)),
            flat(-outward),
            flat(Vec3::Y),
        ) else {
            return;
        };
        let want = palm_deg.to_radians();
        let Some(goal) = (inward * want.cos() + up * want.sin()).try_normalize() else {
            return;
        };
        let angle = palm.cross(goal).dot(axis).atan2(palm.dot(goal)) * amount;
        let half = Quat::from_axis_angle(axis, 0.5 * angle);
        rotate_world(skeleton, locals, limb.mid, half);
        rotate_world(skeleton, locals, limb.end, half);
    }

    fn nod(&self, skeleton: &Skeleton, deg: f32, locals: &mut [Transform]) {
        let angle = deg.to_radians();
        if angle == 0.0 {
            return;
        }
        match (self.neck, self.head) {
            (Some(neck), Some(head)) => {
                rotate_world(
                    skeleton,
                    locals,
                    neck,
                    Quat::from_axis_angle(self.left, NECK_SHARE * angle),
                );
                rotate_world(
                    skeleton,
                    locals,
                    head,
                    Quat::from_axis_angle(self.left, (1.0 - NECK_SHARE) * angle),
                );
            }
            (None, Some(j)) | (Some(j), None) => {
                rotate_world(skeleton, locals, j, Quat::from_axis_angle(self.left, angle));
            }
            (None, None) => {}
        }
    }
}

impl GestureLayer {
    /// Turns the head aside by `deg` about the vertical (a shake), the neck taking its share.
    fn shake(&self, skeleton: &Skeleton, deg: f32, locals: &mut [Transform]) {
        let angle = deg.to_radians();
        if angle == 0.0 {
            return;
        }
        for (joint, share) in [(self.neck, NECK_SHARE), (self.head, 1.0 - NECK_SHARE)] {
            if let Some(j) = joint {
                rotate_world(
                    skeleton,
                    locals,
                    j,
                    Quat::from_axis_angle(Vec3::Y, share * angle),
                );
            }
        }
    }
}

impl BodyLayer for GestureLayer {
    fn name(&self) -> &'static str {
        "gestures"
    }

    fn apply(&mut self, skeleton: &Skeleton, input: &LayerInput, locals: &mut [Transform]) {
        let Some(talk) = input.talk else {
            return;
        };
        if !self.settings.enabled {
            return;
        }
        let t = talk.at_ms;
        if !talk.plan.strokes.is_empty() {
            for arm in 0..self.arms.len() {
                self.arm(arm, skeleton, &talk, input.detail, locals);
            }
        }
        self.nod(skeleton, talk.plan.nod_deg(t), locals);
        self.shake(skeleton, talk.plan.shake_deg(t), locals);
    }
}
