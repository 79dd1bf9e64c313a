//! What a joint's name says it is, across the naming families real rigs use: Mixamo (with or
//! without `mixamorig:`), Unreal and Quaternius (`upperarm_l`, `spine_01`, `index_01_l`),
//! VRoid (`J_Bip_L_UpperArm`) and Blender (`upper_arm.L`, `UpperArm_L`). Names only propose;
//! the map confirms by structure (see `map.rs`).

use super::bone::Side;

/// The part of the body a name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Hips,
    Neck,
    Head,
    Jaw,
    Eye,
    Shoulder,
    UpperArm,
    LowerArm,
    Hand,
    UpperLeg,
    LowerLeg,
    Foot,
    Toes,
    /// A finger (0 thumb .. 4 little) and its joint from the hand out (0 .. 2).
    Finger(usize, usize),
}

/// Words each part goes by, separators removed.
const WORDS: [(Part, &[&str]); 13] = [
    (Part::Hips, &["hips", "hip", "pelvis"]),
    (Part::Neck, &["neck", "neck01"]),
    (Part::Head, &["head"]),
    (Part::Jaw, &["jaw"]),
    (Part::Eye, &["eye"]),
    (
        Part::Shoulder,
        &["shoulder", "clavicle", "collar", "collarbone"],
    ),
    (Part::UpperArm, &["arm", "upperarm", "uparm"]),
    (Part::LowerArm, &["forearm", "lowerarm", "loarm"]),
    (Part::Hand, &["hand", "wrist"]),
    (Part::UpperLeg, &["upleg", "upperleg", "thigh"]),
    (Part::LowerLeg, &["leg", "lowerleg", "calf", "shin", "knee"]),
    (Part::Foot, &["foot", "ankle"]),
    (Part::Toes, &["toebase", "toe", "toes", "ball"]),
];

/// Finger words, thumb to little.
const FINGER_WORDS: [&[&str]; 5] = [
    &["thumb"],
    &["index"],
    &["middle"],
    &["ring"],
    &["pinky", "little"],
];

/// What `joint` names, when it names a humanoid part: the part and, for limbs, the side.
#[must_use]
pub fn read_name(joint: &str) -> Option<(Option<Side>, Part)> {
    let name = joint.rsplit([':', '|']).next().unwrap_or(joint);
    let mut name = name.to_ascii_lowercase();
    if let Some(rest) = name.strip_prefix("j_bip_") {
        name = rest.to_owned();
    } else if name.starts_with("j_") {
        // VRoid's secondary and adjustment joints (J_Sec_, J_Adj_): hair, cloth, face.
        return None;
    }
    let (side, base) = split_side(&name);
    let base: String = base
        .chars()
        .filter(|c| !matches!(c, '_' | '.' | '-' | ' '))
        .collect();
    let part = finger(&base).or_else(|| {
        WORDS
            .iter()
            .find(|(_, words)| words.contains(&base.as_str()))
            .map(|(part, _)| *part)
    })?;
    let sided = !matches!(part, Part::Hips | Part::Neck | Part::Head | Part::Jaw);
    (sided == side.is_some()).then_some((side, part))
}

/// The side a name carries and the name without it.
fn split_side(name: &str) -> (Option<Side>, &str) {
    const PREFIXES: [(&str, Side); 6] = [
        ("left", Side::Left),
        ("right", Side::Right),
        ("l_", Side::Left),
        ("r_", Side::Right),
        ("l.", Side::Left),
        ("r.", Side::Right),
    ];
    const SUFFIXES: [(&str, Side); 8] = [
        ("_left", Side::Left),
        ("_right", Side::Right),
        (".left", Side::Left),
        (".right", Side::Right),
        ("_l", Side::Left),
        ("_r", Side::Right),
        (".l", Side::Left),
        (".r", Side::Right),
    ];
    if let Some(rest) = name.strip_prefix("c_") {
        return (None, rest);
    }
    for (prefix, side) in PREFIXES {
        if let Some(rest) = name.strip_prefix(prefix) {
            return (Some(side), rest.trim_start_matches(['_', '.']));
        }
    }
    for (suffix, side) in SUFFIXES {
        if let Some(rest) = name.strip_suffix(suffix) {
            return (Some(side), rest);
        }
    }
    (None, name)
}

/// A finger joint: a finger word then its number, 1 to 3 (`index1`, `index01`,
/// `handindex1`, `findex01`).
fn finger(base: &str) -> Option<Part> {
    let base = base
        .strip_prefix("hand")
        .or_else(|| base.strip_prefix('f'))
        .filter(|rest| {
            FINGER_WORDS
                .iter()
                .flat_map(|w| w.iter())
                .any(|w| rest.starts_with(w))
        })
        .unwrap_or(base);
    for (finger, words) in FINGER_WORDS.iter().enumerate() {
        for word in *words {
            let Some(number) = base.strip_prefix(word) else {
                continue;
            };
            let joint = match number.trim_start_matches('0') {
                "1" => 0,
                "2" => 1,
                "3" => 2,
                _ => return None,
            };
            return Some(Part::Finger(finger, joint));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str) -> Option<(Option<Side>, Part)> {
        read_name(name)
    }

    #[test]
    fn mixamo_names_with_and_without_the_prefix() {
        assert_eq!(read("mixamorig:Hips"), Some((None, Part::Hips)));
        assert_eq!(
            read("LeftForeArm"),
            Some((Some(Side::Left), Part::LowerArm))
        );
        assert_eq!(
            read("mixamorig:RightHandPinky2"),
            Some((Some(Side::Right), Part::Finger(4, 1)))
        );
        assert_eq!(
            read("LeftHandThumb1"),
            Some((Some(Side::Left), Part::Finger(0, 0)))
        );
        assert_eq!(
            read("RightUpLeg"),
            Some((Some(Side::Right), Part::UpperLeg))
        );
        assert_eq!(read("RightLeg"), Some((Some(Side::Right), Part::LowerLeg)));
        assert_eq!(read("mixamorig:HeadTop_End"), None);
        assert_eq!(read("LeftHandThumb4"), None);
        assert_eq!(read("LeftFingerBase"), None);
        assert_eq!(read("RightEye_end"), None);
        // Spine joints are found by structure, between the hips and the neck.
        assert_eq!(read("mixamorig:Spine1"), None);
    }

    #[test]
    fn unreal_and_quaternius_names() {
        assert_eq!(read("pelvis"), Some((None, Part::Hips)));
        assert_eq!(read("neck_01"), Some((None, Part::Neck)));
        assert_eq!(read("clavicle_l"), Some((Some(Side::Left), Part::Shoulder)));
        assert_eq!(
            read("upperarm_r"),
            Some((Some(Side::Right), Part::UpperArm))
        );
        assert_eq!(read("lowerarm_l"), Some((Some(Side::Left), Part::LowerArm)));
        assert_eq!(read("thigh_l"), Some((Some(Side::Left), Part::UpperLeg)));
        assert_eq!(read("calf_r"), Some((Some(Side::Right), Part::LowerLeg)));
        assert_eq!(read("ball_l"), Some((Some(Side::Left), Part::Toes)));
        assert_eq!(
            read("index_01_l"),
            Some((Some(Side::Left), Part::Finger(1, 0)))
        );
        assert_eq!(
            read("thumb_03_r"),
            Some((Some(Side::Right), Part::Finger(0, 2)))
        );
        assert_eq!(read("index_04_leaf_l"), None);
        assert_eq!(read("upperarm_twist_01_l"), None);
        assert_eq!(read("ik_foot_l"), None);
        assert_eq!(read("ball_leaf_l"), None);
    }

    #[test]
    fn vroid_and_blender_names() {
        assert_eq!(read("J_Bip_C_Hips"), Some((None, Part::Hips)));
        assert_eq!(
            read("J_Bip_L_UpperArm"),
            Some((Some(Side::Left), Part::UpperArm))
        );
        assert_eq!(
            read("J_Bip_R_Little3"),
            Some((Some(Side::Right), Part::Finger(4, 2)))
        );
        assert_eq!(
            read("J_Bip_L_ToeBase"),
            Some((Some(Side::Left), Part::Toes))
        );
        assert_eq!(read("J_Sec_L_Bust1"), None);
        assert_eq!(read("J_Adj_L_FaceEye"), None);
        assert_eq!(
            read("upper_arm.L"),
            Some((Some(Side::Left), Part::UpperArm))
        );
        assert_eq!(read("forearm.R"), Some((Some(Side::Right), Part::LowerArm)));
        assert_eq!(read("shin.L"), Some((Some(Side::Left), Part::LowerLeg)));
        assert_eq!(
            read("f_index.01.L"),
            Some((Some(Side::Left), Part::Finger(1, 0)))
        );
        assert_eq!(read("UpperArm_L"), Some((Some(Side::Left), Part::UpperArm)));
        assert_eq!(read("Left_Hand"), Some((Some(Side::Left), Part::Hand)));
        // A limb without a side, or a centre part with one, is not taken from the name.
        assert_eq!(read("Hand"), None);
        assert_eq!(read("Head_L"), None);
    }
}
