//! The Mixamo-named skeleton of the default body: its joints and rest pose.

use glam::Vec3;

use crate::asset::Transform;
use crate::body::Skeleton;

/// Where a head part's neck base lies in head space; it is put on the Head joint.
pub const HEAD_NECK_BASE: Vec3 = Vec3::new(0.0, -0.12, 0.0);

pub const HIPS: usize = 0;
pub const SPINE: usize = 1;
pub const SPINE1: usize = 2;
pub const SPINE2: usize = 3;
pub const NECK: usize = 4;
pub const HEAD: usize = 5;
pub const HEAD_TOP_END: usize = 6;
pub const LEFT_SHOULDER: usize = 7;
pub const LEFT_ARM: usize = 8;
pub const LEFT_FORE_ARM: usize = 9;
pub const LEFT_HAND: usize = 10;
pub const RIGHT_SHOULDER: usize = 11;
pub const RIGHT_ARM: usize = 12;
pub const RIGHT_FORE_ARM: usize = 13;
pub const RIGHT_HAND: usize = 14;
pub const LEFT_UP_LEG: usize = 15;
pub const LEFT_LEG: usize = 16;
pub const LEFT_FOOT: usize = 17;
pub const LEFT_TOE_BASE: usize = 18;
pub const LEFT_TOE_END: usize = 19;
pub const RIGHT_UP_LEG: usize = 20;
pub const RIGHT_LEG: usize = 21;
pub const RIGHT_FOOT: usize = 22;
pub const RIGHT_TOE_BASE: usize = 23;
pub const RIGHT_TOE_END: usize = 24;

/// Number of joints.
pub const JOINT_COUNT: usize = 25;

/// Each joint: name, parent, rest position in model space. Parents come before children.
pub(super) const JOINTS: [(&str, Option<usize>, [f32; 3]); JOINT_COUNT] = [
    ("mixamorig:Hips", None, [0.0, 0.95, 0.0]),
    ("mixamorig:Spine", Some(HIPS), [0.0, 1.05, -0.005]),
    ("mixamorig:Spine1", Some(SPINE), [0.0, 1.17, -0.01]),
    ("mixamorig:Spine2", Some(SPINE1), [0.0, 1.30, -0.01]),
    ("mixamorig:Neck", Some(SPINE2), [0.0, 1.46, -0.02]),
    ("mixamorig:Head", Some(NECK), [0.0, 1.55, 0.0]),
    ("mixamorig:HeadTop_End", Some(HEAD), [0.0, 1.78, 0.0]),
    ("mixamorig:LeftShoulder", Some(SPINE2), [0.05, 1.41, -0.015]),
    (
        "mixamorig:LeftArm",
        Some(LEFT_SHOULDER),
        [0.17, 1.40, -0.02],
    ),
    (
        "mixamorig:LeftForeArm",
        Some(LEFT_ARM),
        [0.20, 1.115, -0.03],
    ),
    (
        "mixamorig:LeftHand",
        Some(LEFT_FORE_ARM),
        [0.215, 0.865, -0.01],
    ),
    (
        "mixamorig:RightShoulder",
        Some(SPINE2),
        [-0.05, 1.41, -0.015],
    ),
    (
        "mixamorig:RightArm",
        Some(RIGHT_SHOULDER),
        [-0.17, 1.40, -0.02],
    ),
    (
        "mixamorig:RightForeArm",
        Some(RIGHT_ARM),
        [-0.20, 1.115, -0.03],
    ),
    (
        "mixamorig:RightHand",
        Some(RIGHT_FORE_ARM),
        [-0.215, 0.865, -0.01],
    ),
    ("mixamorig:LeftUpLeg", Some(HIPS), [0.09, 0.90, 0.0]),
    ("mixamorig:LeftLeg", Some(LEFT_UP_LEG), [0.095, 0.50, 0.005]),
    ("mixamorig:LeftFoot", Some(LEFT_LEG), [0.10, 0.085, -0.025]),
    (
        "mixamorig:LeftToeBase",
        Some(LEFT_FOOT),
        [0.10, 0.02, 0.095],
    ),
    (
        "mixamorig:LeftToe_End",
        Some(LEFT_TOE_BASE),
        [0.10, 0.02, 0.175],
    ),
    ("mixamorig:RightUpLeg", Some(HIPS), [-0.09, 0.90, 0.0]),
    (
        "mixamorig:RightLeg",
        Some(RIGHT_UP_LEG),
        [-0.095, 0.50, 0.005],
    ),
    (
        "mixamorig:RightFoot",
        Some(RIGHT_LEG),
        [-0.10, 0.085, -0.025],
    ),
    (
        "mixamorig:RightToeBase",
        Some(RIGHT_FOOT),
        [-0.10, 0.02, 0.095],
    ),
    (
        "mixamorig:RightToe_End",
        Some(RIGHT_TOE_BASE),
        [-0.10, 0.02, 0.175],
    ),
];

pub(super) fn joint_position(j: usize) -> Vec3 {
    Vec3::from(JOINTS[j].2)
}

/// The Mixamo-named skeleton: Hips at 0.95 m, Head (the top of the neck) at 1.55 m,
/// HeadTop_End at 1.78 m; rest rotations are identity.
#[must_use]
pub fn skeleton() -> Skeleton {
    let rest = JOINTS
        .iter()
        .map(|&(_, parent, at)| Transform {
            translation: Vec3::from(at) - parent.map_or(Vec3::ZERO, joint_position),
            ..Transform::IDENTITY
        })
        .collect();
    Skeleton::new(
        JOINTS.iter().map(|j| j.1).collect(),
        JOINTS.iter().map(|j| j.0.to_owned()).collect(),
        rest,
    )
}
