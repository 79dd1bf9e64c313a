//! The humanoid bones of VRM 1.0, grouped the way limbs and hands are walked.

use serde::Serialize;

/// A humanoid bone, named as VRM 1.0 names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum HumanoidBone {
    Hips,
    Spine,
    Chest,
    UpperChest,
    Neck,
    Head,
    LeftEye,
    RightEye,
    Jaw,
    LeftShoulder,
    LeftUpperArm,
    LeftLowerArm,
    LeftHand,
    RightShoulder,
    RightUpperArm,
    RightLowerArm,
    RightHand,
    LeftUpperLeg,
    LeftLowerLeg,
    LeftFoot,
    LeftToes,
    RightUpperLeg,
    RightLowerLeg,
    RightFoot,
    RightToes,
    LeftThumbMetacarpal,
    LeftThumbProximal,
    LeftThumbDistal,
    LeftIndexProximal,
    LeftIndexIntermediate,
    LeftIndexDistal,
    LeftMiddleProximal,
    LeftMiddleIntermediate,
    LeftMiddleDistal,
    LeftRingProximal,
    LeftRingIntermediate,
    LeftRingDistal,
    LeftLittleProximal,
    LeftLittleIntermediate,
    LeftLittleDistal,
    RightThumbMetacarpal,
    RightThumbProximal,
    RightThumbDistal,
    RightIndexProximal,
    RightIndexIntermediate,
    RightIndexDistal,
    RightMiddleProximal,
    RightMiddleIntermediate,
    RightMiddleDistal,
    RightRingProximal,
    RightRingIntermediate,
    RightRingDistal,
    RightLittleProximal,
    RightLittleIntermediate,
    RightLittleDistal,
}

/// A side of the body, as the character sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    Left,
    Right,
}

impl Side {
    /// Index into per-side tables (left 0, right 1).
    #[must_use]
    pub fn index(self) -> usize {
        match self {
            Self::Left => 0,
            Self::Right => 1,
        }
    }
}

/// Each side's arm from the collarbone out: shoulder, upper arm, lower arm, hand.
pub const ARMS: [[HumanoidBone; 4]; 2] = {
    use HumanoidBone as B;
    [
        [
            B::LeftShoulder,
            B::LeftUpperArm,
            B::LeftLowerArm,
            B::LeftHand,
        ],
        [
            B::RightShoulder,
            B::RightUpperArm,
            B::RightLowerArm,
            B::RightHand,
        ],
    ]
};

/// Each side's leg from the hip down: upper leg, lower leg, foot, toes.
pub const LEGS: [[HumanoidBone; 4]; 2] = {
    use HumanoidBone as B;
    [
        [B::LeftUpperLeg, B::LeftLowerLeg, B::LeftFoot, B::LeftToes],
        [
            B::RightUpperLeg,
            B::RightLowerLeg,
            B::RightFoot,
            B::RightToes,
        ],
    ]
};

/// Each side's eye.
pub const EYES: [HumanoidBone; 2] = [HumanoidBone::LeftEye, HumanoidBone::RightEye];

/// The bones a body needs to stand, breathe and walk: `check` warns when one is missing.
pub const CORE_BONES: [HumanoidBone; 15] = {
    use HumanoidBone as B;
    [
        B::Hips,
        B::Spine,
        B::Head,
        B::LeftUpperArm,
        B::LeftLowerArm,
        B::LeftHand,
        B::RightUpperArm,
        B::RightLowerArm,
        B::RightHand,
        B::LeftUpperLeg,
        B::LeftLowerLeg,
        B::LeftFoot,
        B::RightUpperLeg,
        B::RightLowerLeg,
        B::RightFoot,
    ]
};

/// Finger bones by side, finger (thumb, index, middle, ring, little) and joint (from the
/// hand out).
pub const FINGERS: [[[HumanoidBone; 3]; 5]; 2] = {
    use HumanoidBone as B;
    [
        [
            [
                B::LeftThumbMetacarpal,
                B::LeftThumbProximal,
                B::LeftThumbDistal,
            ],
            [
                B::LeftIndexProximal,
                B::LeftIndexIntermediate,
                B::LeftIndexDistal,
            ],
            [
                B::LeftMiddleProximal,
                B::LeftMiddleIntermediate,
                B::LeftMiddleDistal,
            ],
            [
                B::LeftRingProximal,
                B::LeftRingIntermediate,
                B::LeftRingDistal,
            ],
            [
                B::LeftLittleProximal,
                B::LeftLittleIntermediate,
                B::LeftLittleDistal,
            ],
        ],
        [
            [
                B::RightThumbMetacarpal,
                B::RightThumbProximal,
                B::RightThumbDistal,
            ],
            [
                B::RightIndexProximal,
                B::RightIndexIntermediate,
                B::RightIndexDistal,
            ],
            [
                B::RightMiddleProximal,
                B::RightMiddleIntermediate,
                B::RightMiddleDistal,
            ],
            [
                B::RightRingProximal,
                B::RightRingIntermediate,
                B::RightRingDistal,
            ],
            [
                B::RightLittleProximal,
                B::RightLittleIntermediate,
                B::RightLittleDistal,
            ],
        ],
    ]
};

impl HumanoidBone {
    /// The name as VRM 1.0 writes it (`leftUpperArm`).
    #[must_use]
    pub fn name(self) -> &'static str {
        use HumanoidBone as B;
        match self {
            B::Hips => "hips",
            B::Spine => "spine",
            B::Chest => "chest",
            B::UpperChest => "upperChest",
            B::Neck => "neck",
            B::Head => "head",
            B::LeftEye => "leftEye",
            B::RightEye => "rightEye",
            B::Jaw => "jaw",
            B::LeftShoulder => "leftShoulder",
            B::LeftUpperArm => "leftUpperArm",
            B::LeftLowerArm => "leftLowerArm",
            B::LeftHand => "leftHand",
            B::RightShoulder => "rightShoulder",
            B::RightUpperArm => "rightUpperArm",
            B::RightLowerArm => "rightLowerArm",
            B::RightHand => "rightHand",
            B::LeftUpperLeg => "leftUpperLeg",
            B::LeftLowerLeg => "leftLowerLeg",
            B::LeftFoot => "leftFoot",
            B::LeftToes => "leftToes",
            B::RightUpperLeg => "rightUpperLeg",
            B::RightLowerLeg => "rightLowerLeg",
            B::RightFoot => "rightFoot",
            B::RightToes => "rightToes",
            B::LeftThumbMetacarpal => "leftThumbMetacarpal",
            B::LeftThumbProximal => "leftThumbProximal",
            B::LeftThumbDistal => "leftThumbDistal",
            B::LeftIndexProximal => "leftIndexProximal",
            B::LeftIndexIntermediate => "leftIndexIntermediate",
            B::LeftIndexDistal => "leftIndexDistal",
            B::LeftMiddleProximal => "leftMiddleProximal",
            B::LeftMiddleIntermediate => "leftMiddleIntermediate",
            B::LeftMiddleDistal => "leftMiddleDistal",
            B::LeftRingProximal => "leftRingProximal",
            B::LeftRingIntermediate => "leftRingIntermediate",
            B::LeftRingDistal => "leftRingDistal",
            B::LeftLittleProximal => "leftLittleProximal",
            B::LeftLittleIntermediate => "leftLittleIntermediate",
            B::LeftLittleDistal => "leftLittleDistal",
            B::RightThumbMetacarpal => "rightThumbMetacarpal",
            B::RightThumbProximal => "rightThumbProximal",
            B::RightThumbDistal => "rightThumbDistal",
            B::RightIndexProximal => "rightIndexProximal",
            B::RightIndexIntermediate => "rightIndexIntermediate",
            B::RightIndexDistal => "rightIndexDistal",
            B::RightMiddleProximal => "rightMiddleProximal",
            B::RightMiddleIntermediate => "rightMiddleIntermediate",
            B::RightMiddleDistal => "rightMiddleDistal",
            B::RightRingProximal => "rightRingProximal",
            B::RightRingIntermediate => "rightRingIntermediate",
            B::RightRingDistal => "rightRingDistal",
            B::RightLittleProximal => "rightLittleProximal",
            B::RightLittleIntermediate => "rightLittleIntermediate",
            B::RightLittleDistal => "rightLittleDistal",
        }
    }
}

impl HumanoidBone {
    /// Every bone, body first, then the fingers.
    pub fn all() -> impl Iterator<Item = Self> {
        use HumanoidBone as B;
        [
            B::Hips,
            B::Spine,
            B::Chest,
            B::UpperChest,
            B::Neck,
            B::Head,
            B::Jaw,
        ]
        .into_iter()
        .chain(EYES)
        .chain(ARMS.into_iter().flatten())
        .chain(LEGS.into_iter().flatten())
        .chain(FINGERS.into_iter().flatten().flatten())
    }

    /// The bone VRM 1.0 calls `name` (`leftUpperArm`).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::all().find(|b| b.name() == name)
    }
}
