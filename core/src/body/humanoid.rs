//! The humanoid bones of VRM 1.0 and where they are on a rig: what `--record` names joints by,
//! and what body layers will drive on any avatar. Today the Mixamo naming (with and without the
//! `mixamorig:` prefix, as Ready Player Me and the project's own body use it) is recognised.

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

/// Body bones (not fingers, eyes or jaw) in parent-first order, with their Mixamo names.
const MIXAMO_BODY: [(HumanoidBone, &str); 25] = [
    (HumanoidBone::Hips, "Hips"),
    (HumanoidBone::Spine, "Spine"),
    (HumanoidBone::Chest, "Spine1"),
    (HumanoidBone::UpperChest, "Spine2"),
    (HumanoidBone::Neck, "Neck"),
    (HumanoidBone::Head, "Head"),
    (HumanoidBone::LeftEye, "LeftEye"),
    (HumanoidBone::RightEye, "RightEye"),
    (HumanoidBone::Jaw, "Jaw"),
    (HumanoidBone::LeftShoulder, "LeftShoulder"),
    (HumanoidBone::LeftUpperArm, "LeftArm"),
    (HumanoidBone::LeftLowerArm, "LeftForeArm"),
    (HumanoidBone::LeftHand, "LeftHand"),
    (HumanoidBone::RightShoulder, "RightShoulder"),
    (HumanoidBone::RightUpperArm, "RightArm"),
    (HumanoidBone::RightLowerArm, "RightForeArm"),
    (HumanoidBone::RightHand, "RightHand"),
    (HumanoidBone::LeftUpperLeg, "LeftUpLeg"),
    (HumanoidBone::LeftLowerLeg, "LeftLeg"),
    (HumanoidBone::LeftFoot, "LeftFoot"),
    (HumanoidBone::LeftToes, "LeftToeBase"),
    (HumanoidBone::RightUpperLeg, "RightUpLeg"),
    (HumanoidBone::RightLowerLeg, "RightLeg"),
    (HumanoidBone::RightFoot, "RightFoot"),
    (HumanoidBone::RightToes, "RightToeBase"),
];

/// Finger bones by side, finger and joint: Mixamo numbers each finger's joints 1 to 3.
const FINGERS: [[[HumanoidBone; 3]; 5]; 2] = {
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

/// Mixamo's finger names, in the order of [`FINGERS`].
const MIXAMO_FINGERS: [&str; 5] = ["Thumb", "Index", "Middle", "Ring", "Pinky"];

/// The humanoid bone a Mixamo joint name stands for (`mixamorig:LeftArm`, `LeftArm`).
#[must_use]
pub fn mixamo_bone(joint: &str) -> Option<HumanoidBone> {
    let name = joint.rsplit_once(':').map_or(joint, |(_, n)| n);
    if let Some((bone, _)) = MIXAMO_BODY.iter().find(|(_, n)| *n == name) {
        return Some(*bone);
    }
    for (side, prefix) in ["LeftHand", "RightHand"].iter().enumerate() {
        let Some(rest) = name.strip_prefix(prefix) else {
            continue;
        };
        for (finger, finger_name) in MIXAMO_FINGERS.iter().enumerate() {
            let Some(number) = rest.strip_prefix(finger_name) else {
                continue;
            };
            let joint = match number {
                "1" => 0,
                "2" => 1,
                "3" => 2,
                _ => continue,
            };
            return Some(FINGERS[side][finger][joint]);
        }
    }
    None
}

/// Which joint of a rig each humanoid bone is, in [`HumanoidBone`] order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HumanoidMap {
    bones: Vec<(HumanoidBone, usize)>,
}

impl HumanoidMap {
    /// The map of a rig whose joints are named `names` (index = joint): each bone is the first
    /// joint with its name.
    #[must_use]
    pub fn from_joint_names<S: AsRef<str>>(names: &[S]) -> Self {
        let mut bones: Vec<(HumanoidBone, usize)> = Vec::new();
        for (joint, name) in names.iter().enumerate() {
            if let Some(bone) = mixamo_bone(name.as_ref())
                && !bones.iter().any(|(b, _)| *b == bone)
            {
                bones.push((bone, joint));
            }
        }
        bones.sort_by_key(|(b, _)| *b);
        Self { bones }
    }

    /// The mapped bones and their joints, in bone order.
    #[must_use]
    pub fn bones(&self) -> &[(HumanoidBone, usize)] {
        &self.bones
    }

    /// The joint of `bone`, when the rig has it.
    #[must_use]
    pub fn joint(&self, bone: HumanoidBone) -> Option<usize> {
        self.bones.iter().find(|(b, _)| *b == bone).map(|(_, j)| *j)
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixamo_names_with_and_without_the_prefix_map_to_vrm_bones() {
        assert_eq!(mixamo_bone("mixamorig:Hips"), Some(HumanoidBone::Hips));
        assert_eq!(mixamo_bone("LeftForeArm"), Some(HumanoidBone::LeftLowerArm));
        assert_eq!(
            mixamo_bone("mixamorig:Spine2"),
            Some(HumanoidBone::UpperChest)
        );
        assert_eq!(
            mixamo_bone("mixamorig:RightHandPinky2"),
            Some(HumanoidBone::RightLittleIntermediate)
        );
        assert_eq!(
            mixamo_bone("LeftHandThumb1"),
            Some(HumanoidBone::LeftThumbMetacarpal)
        );
        assert_eq!(mixamo_bone("mixamorig:HeadTop_End"), None);
        assert_eq!(mixamo_bone("LeftHandThumb4"), None);
        assert_eq!(HumanoidBone::LeftUpperArm.name(), "leftUpperArm");
    }

    #[test]
    fn a_map_takes_the_first_joint_of_each_bone_in_bone_order() {
        let map = HumanoidMap::from_joint_names(&[
            "Armature",
            "mixamorig:Spine",
            "mixamorig:Hips",
            "Hips",
        ]);
        assert_eq!(
            map.bones(),
            &[(HumanoidBone::Hips, 2), (HumanoidBone::Spine, 1)]
        );
        assert_eq!(map.joint(HumanoidBone::Head), None);
    }
}
