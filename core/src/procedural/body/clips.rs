//! The body's three looping clips (idle, walk, talk), baked from functions of time.

use glam::{Quat, Vec3};

use super::*;
use crate::asset::animation::{Channel, Clip, Interpolation, Property};
use crate::body::Skeleton;

// Clips

/// A pose being built: a rotation per joint (from rest) and the hips' offset from rest.
#[derive(Clone, Debug)]
pub(super) struct Frame {
    pub(super) rotations: Vec<Quat>,
    pub(super) hips: Vec3,
}

impl Frame {
    pub(super) fn new(joints: usize) -> Self {
        Self {
            rotations: vec![Quat::IDENTITY; joints],
            hips: Vec3::ZERO,
        }
    }

    /// Turns joint `j` further by `x`, `y`, `z` radians about its own axes (yaw, then pitch,
    /// then roll).
    pub(super) fn turn(&mut self, j: usize, x: f32, y: f32, z: f32) {
        if let Some(r) = self.rotations.get_mut(j) {
            *r = (*r
                * Quat::from_rotation_y(y)
                * Quat::from_rotation_x(x)
                * Quat::from_rotation_z(z))
            .normalize();
        }
    }
}

/// Samples `pose(t, frame)` at `rate` keys per second over `duration` seconds into a clip with
/// a rotation channel per joint and a translation channel for the hips (LINEAR).
pub(super) fn bake(
    name: &str,
    skeleton: &Skeleton,
    duration: f32,
    rate: f32,
    pose: &dyn Fn(f32, &mut Frame),
) -> Clip {
    let keys = ((duration * rate).round() as usize).max(1) + 1;
    let times: Vec<f32> = (0..keys)
        .map(|k| duration * k as f32 / (keys - 1) as f32)
        .collect();
    let joints = skeleton.len();
    let mut rotations = vec![Vec::with_capacity(keys * 4); joints];
    let mut hips = Vec::with_capacity(keys * 3);
    let mut previous = vec![Quat::IDENTITY; joints];
    for &t in &times {
        let mut frame = Frame::new(joints);
        pose(t, &mut frame);
        for j in 0..joints {
            let mut q = (skeleton.rest[j].rotation * frame.rotations[j]).normalize();
            // Neighbouring keys on the same side of the quaternion sphere.
            if q.dot(previous[j]) < 0.0 {
                q = -q;
            }
            previous[j] = q;
            rotations[j].extend_from_slice(&q.to_array());
        }
        let root = skeleton.rest.first().map_or(Vec3::ZERO, |r| r.translation);
        hips.extend_from_slice(&(root + frame.hips).to_array());
    }
    let mut channels: Vec<Channel> = rotations
        .into_iter()
        .enumerate()
        .map(|(node, values)| Channel {
            node,
            property: Property::Rotation,
            interpolation: Interpolation::Linear,
            times: times.clone().into(),
            values: values.into(),
            width: 4,
        })
        .collect();
    channels.push(Channel {
        node: HIPS,
        property: Property::Translation,
        interpolation: Interpolation::Linear,
        times: times.clone().into(),
        values: hips.into(),
        width: 3,
    });
    Clip {
        name: name.to_owned(),
        duration_s: duration,
        channels,
        face: crate::asset::clip_face::FaceTracks::default(),
    }
}

pub(super) const TAU: f32 = std::f32::consts::TAU;

/// Idle: a slow sway, the chest and shoulders held where a breath is halfway. The breath itself
/// is the breathing layer's, which follows each character's settings and switch; a breath baked
/// in here would go on at its own rate beside it.
pub(super) fn idle_pose(t: f32, f: &mut Frame) {
    let w = TAU / 4.0;
    let breath = 0.5;
    let sway = (w * t).sin();
    f.hips = Vec3::new(0.006 * sway, -0.004 * breath, 0.0);
    f.turn(HIPS, 0.0, 0.01 * (w * t + 1.0).sin(), -0.012 * sway);
    for leg in [LEFT_UP_LEG, RIGHT_UP_LEG] {
        f.turn(leg, 0.0, 0.0, 0.012 * sway);
    }
    f.turn(SPINE, 0.0, 0.0, 0.008 * sway);
    f.turn(SPINE1, -0.012 * breath, 0.0, 0.0);
    f.turn(SPINE2, -0.02 * breath, 0.0, 0.004 * sway);
    f.turn(NECK, 0.02 * breath, 0.0, 0.0);
    f.turn(
        HEAD,
        0.012 * breath + 0.01 * (2.0 * w * t + 1.0).sin(),
        0.03 * (w * t + 0.5).sin(),
        -0.008 * sway,
    );
    for side in [LEFT, RIGHT] {
        let s = side.sign;
        f.turn(side.shoulder, 0.0, 0.0, s * 0.04 * breath);
        f.turn(
            side.arm,
            -0.02 * (w * t + s).sin(),
            0.0,
            -s * (0.04 * breath + 0.01),
        );
        f.turn(side.fore_arm, -0.15 - 0.03 * breath, 0.0, 0.0);
        f.turn(side.hand, -0.05, s * 0.1, 0.0);
    }
}

/// Walk: one stride of each leg per second, in place; legs swing and knees bend, arms swing
/// against the legs, the hips bob and twist.
pub(super) fn walk_pose(t: f32, f: &mut Frame) {
    let phi = TAU * t;
    let (sin, cos) = phi.sin_cos();
    f.hips = Vec3::new(0.012 * cos, -0.025 + 0.018 * (2.0 * phi).cos(), 0.0);
    f.turn(HIPS, 0.0, -0.07 * sin, 0.03 * cos);
    f.turn(SPINE, 0.05, 0.04 * sin, -0.015 * cos);
    f.turn(SPINE1, 0.0, 0.0, -0.01 * cos);
    f.turn(SPINE2, 0.0, 0.05 * sin, 0.0);
    f.turn(NECK, -0.03, 0.0, 0.0);
    f.turn(HEAD, 0.02 * (2.0 * phi).cos(), -0.02 * sin, 0.0);
    for side in [LEFT, RIGHT] {
        // +1 when this side's leg is forward.
        let fwd = sin * side.sign;
        let swing = cos * side.sign;
        let knee = 0.1 + 0.55 * (0.5 + 0.5 * swing).powi(2);
        f.turn(side.up_leg, -0.45 * fwd, 0.0, -0.03 * cos);
        f.turn(side.leg, knee, 0.0, 0.0);
        f.turn(side.foot, -0.12 * fwd - 0.4 * (knee - 0.1), 0.0, 0.0);
        f.turn(side.toe, -0.3 * (-fwd).max(0.0).powi(2), 0.0, 0.0);
        // The arm swings back when the leg on its side is forward.
        f.turn(
            side.shoulder,
            0.0,
            0.0,
            0.015 * side.sign * (2.0 * phi).cos(),
        );
        f.turn(side.arm, 0.35 * fwd, 0.0, -side.sign * 0.06);
        f.turn(side.fore_arm, -0.3 - 0.25 * (0.5 - 0.5 * fwd), 0.0, 0.0);
        f.turn(side.hand, -0.1, side.sign * 0.15, 0.0);
    }
}

/// Talk: idle, with nods and turns of the head and a right-hand gesture that rises and falls
/// over the 4 s.
pub(super) fn talk_pose(t: f32, f: &mut Frame) {
    idle_pose(t, f);
    let w = TAU / 4.0;
    let gesture = 0.5 - 0.5 * (w * t).cos();
    let second = (-(w * t).sin()).max(0.0).powi(2);
    f.turn(SPINE1, 0.0, 0.04 * (w * t).sin(), 0.0);
    f.turn(
        NECK,
        0.03 * (2.0 * w * t).sin(),
        0.06 * (w * t + 0.4).sin(),
        0.0,
    );
    f.turn(
        HEAD,
        0.07 * (3.0 * w * t).sin() * (0.6 + 0.4 * (w * t).sin()),
        0.14 * (w * t + 0.4).sin(),
        0.03 * (2.0 * w * t + 0.7).sin(),
    );
    f.turn(RIGHT_ARM, -0.35 * gesture, 0.0, -0.12 * gesture);
    f.turn(
        RIGHT_FORE_ARM,
        -gesture - 0.12 * gesture * (4.0 * w * t).sin(),
        0.0,
        0.0,
    );
    f.turn(
        RIGHT_HAND,
        -0.15 * gesture * (4.0 * w * t + 1.0).sin(),
        -0.5 * gesture,
        0.0,
    );
    f.turn(LEFT_ARM, -0.1 * second, 0.0, 0.05 * second);
    f.turn(LEFT_FORE_ARM, -0.45 * second, 0.0, 0.0);
}

/// The three clips, "idle" (4 s), "walk" (1 s) and "talk" (4 s), each looping (the last key
/// equals the first). Every clip animates the rotation of every joint and the hips'
/// translation (never along Z), so any two blend cleanly. Channels target node = joint index.
#[must_use]
pub fn clips(skeleton: &Skeleton) -> Vec<Clip> {
    vec![
        bake("idle", skeleton, 4.0, 12.0, &idle_pose),
        bake("walk", skeleton, 1.0, 30.0, &walk_pose),
        bake("talk", skeleton, 4.0, 15.0, &talk_pose),
    ]
}
