//! The 52 ARKit blend-shape targets, the 15 Oculus visemes, and name matching for both.
//!
//! Real avatar files spell the same target several ways (`eyeBlinkLeft`, Apple's raw
//! `eyeBlink_L`, Live Link Face's `EyeBlinkLeft`, `blendShape1.eyeBlinkLeft`, ...). Targets are
//! always matched by normalised name, never by position in a mesh.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Number of ARKit blend-shape targets.
pub const ARKIT_TARGET_COUNT: usize = 52;

/// How far an eye turns at a full eyeLookDown weight, degrees: what the project's own head
/// shapes do, and how exports turn eyeLook weights into eye angles.
pub const EYE_LOOK_DOWN_DEG: f32 = 26.0;
/// How far an eye turns at a full eyeLookIn or eyeLookOut weight, degrees.
pub const EYE_LOOK_SIDE_DEG: f32 = 28.0;
/// How far an eye turns at a full eyeLookUp weight, degrees.
pub const EYE_LOOK_UP_DEG: f32 = 22.0;

/// Defines [`ArkitTarget`] together with its canonical names, keeping both in one list.
macro_rules! arkit_targets {
    ($($variant:ident => $name:literal,)*) => {
        /// One of the 52 ARKit face blend-shape targets, in Apple's documented order.
        ///
        /// The discriminant is the target's index in that order (see [`ArkitTarget::index`]).
        /// Serialises as its canonical camelCase name; deserialises from any spelling
        /// [`ArkitTarget::from_name`] understands.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum ArkitTarget {
            $($variant,)*
        }

        impl ArkitTarget {
            /// Every target, in canonical order (`ALL[t.index()] == t`).
            pub const ALL: [Self; ARKIT_TARGET_COUNT] = [$(Self::$variant,)*];

            /// The canonical camelCase name, e.g. `"eyeBlinkLeft"`.
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)*
                }
            }
        }
    };
}

arkit_targets! {
    EyeBlinkLeft => "eyeBlinkLeft",
    EyeLookDownLeft => "eyeLookDownLeft",
    EyeLookInLeft => "eyeLookInLeft",
    EyeLookOutLeft => "eyeLookOutLeft",
    EyeLookUpLeft => "eyeLookUpLeft",
    EyeSquintLeft => "eyeSquintLeft",
    EyeWideLeft => "eyeWideLeft",
    EyeBlinkRight => "eyeBlinkRight",
    EyeLookDownRight => "eyeLookDownRight",
    EyeLookInRight => "eyeLookInRight",
    EyeLookOutRight => "eyeLookOutRight",
    EyeLookUpRight => "eyeLookUpRight",
    EyeSquintRight => "eyeSquintRight",
    EyeWideRight => "eyeWideRight",
    JawForward => "jawForward",
    JawLeft => "jawLeft",
    JawRight => "jawRight",
    JawOpen => "jawOpen",
    MouthClose => "mouthClose",
    MouthFunnel => "mouthFunnel",
    MouthPucker => "mouthPucker",
    MouthLeft => "mouthLeft",
    MouthRight => "mouthRight",
    MouthSmileLeft => "mouthSmileLeft",
    MouthSmileRight => "mouthSmileRight",
    MouthFrownLeft => "mouthFrownLeft",
    MouthFrownRight => "mouthFrownRight",
    MouthDimpleLeft => "mouthDimpleLeft",
    MouthDimpleRight => "mouthDimpleRight",
    MouthStretchLeft => "mouthStretchLeft",
    MouthStretchRight => "mouthStretchRight",
    MouthRollLower => "mouthRollLower",
    MouthRollUpper => "mouthRollUpper",
    MouthShrugLower => "mouthShrugLower",
    MouthShrugUpper => "mouthShrugUpper",
    MouthPressLeft => "mouthPressLeft",
    MouthPressRight => "mouthPressRight",
    MouthLowerDownLeft => "mouthLowerDownLeft",
    MouthLowerDownRight => "mouthLowerDownRight",
    MouthUpperUpLeft => "mouthUpperUpLeft",
    MouthUpperUpRight => "mouthUpperUpRight",
    BrowDownLeft => "browDownLeft",
    BrowDownRight => "browDownRight",
    BrowInnerUp => "browInnerUp",
    BrowOuterUpLeft => "browOuterUpLeft",
    BrowOuterUpRight => "browOuterUpRight",
    CheekPuff => "cheekPuff",
    CheekSquintLeft => "cheekSquintLeft",
    CheekSquintRight => "cheekSquintRight",
    NoseSneerLeft => "noseSneerLeft",
    NoseSneerRight => "noseSneerRight",
    TongueOut => "tongueOut",
}

impl ArkitTarget {
    /// Position in canonical order, 0..52.
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The target at canonical position `i`, if `i < 52`.
    #[must_use]
    pub fn from_index(i: usize) -> Option<Self> {
        Self::ALL.get(i).copied()
    }

    /// Finds a target by any common spelling of its name.
    ///
    /// Accepted, case-insensitively: the canonical name (`eyeBlinkLeft`), Apple's raw side
    /// suffixes (`eyeBlink_L`, `mouthSmile_r`, `eyeBlink.L`, `eyeBlinkL`), PascalCase
    /// (`EyeBlinkLeft`), snake case (`eye_blink_left`), upper case (`EYEBLINKLEFT`), and the
    /// same with a namespace prefix up to the last `.` (`blendShape1.eyeBlinkLeft`) or a
    /// leading `arkit` (`ARKit_eyeBlinkLeft`). Anything else, including partial names such as
    /// `eyeBlink`, gives `None`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        let key = normalise_arkit_name(name)?;
        Self::ALL
            .iter()
            .copied()
            .find(|target| target.name().eq_ignore_ascii_case(&key))
    }

    /// The same target on the other side of the face (left <-> right); centre targets such as
    /// `jawOpen` map to themselves.
    ///
    /// Eye-look targets keep their direction: `eyeLookInLeft` <-> `eyeLookInRight`.
    #[must_use]
    pub const fn mirror(self) -> Self {
        match self {
            Self::EyeBlinkLeft => Self::EyeBlinkRight,
            Self::EyeBlinkRight => Self::EyeBlinkLeft,
            Self::EyeLookDownLeft => Self::EyeLookDownRight,
            Self::EyeLookDownRight => Self::EyeLookDownLeft,
            Self::EyeLookInLeft => Self::EyeLookInRight,
            Self::EyeLookInRight => Self::EyeLookInLeft,
            Self::EyeLookOutLeft => Self::EyeLookOutRight,
            Self::EyeLookOutRight => Self::EyeLookOutLeft,
            Self::EyeLookUpLeft => Self::EyeLookUpRight,
            Self::EyeLookUpRight => Self::EyeLookUpLeft,
            Self::EyeSquintLeft => Self::EyeSquintRight,
            Self::EyeSquintRight => Self::EyeSquintLeft,
            Self::EyeWideLeft => Self::EyeWideRight,
            Self::EyeWideRight => Self::EyeWideLeft,
            Self::JawLeft => Self::JawRight,
            Self::JawRight => Self::JawLeft,
            Self::MouthLeft => Self::MouthRight,
            Self::MouthRight => Self::MouthLeft,
            Self::MouthSmileLeft => Self::MouthSmileRight,
            Self::MouthSmileRight => Self::MouthSmileLeft,
            Self::MouthFrownLeft => Self::MouthFrownRight,
            Self::MouthFrownRight => Self::MouthFrownLeft,
            Self::MouthDimpleLeft => Self::MouthDimpleRight,
            Self::MouthDimpleRight => Self::MouthDimpleLeft,
            Self::MouthStretchLeft => Self::MouthStretchRight,
            Self::MouthStretchRight => Self::MouthStretchLeft,
            Self::MouthPressLeft => Self::MouthPressRight,
            Self::MouthPressRight => Self::MouthPressLeft,
            Self::MouthLowerDownLeft => Self::MouthLowerDownRight,
            Self::MouthLowerDownRight => Self::MouthLowerDownLeft,
            Self::MouthUpperUpLeft => Self::MouthUpperUpRight,
            Self::MouthUpperUpRight => Self::MouthUpperUpLeft,
            Self::BrowDownLeft => Self::BrowDownRight,
            Self::BrowDownRight => Self::BrowDownLeft,
            Self::BrowOuterUpLeft => Self::BrowOuterUpRight,
            Self::BrowOuterUpRight => Self::BrowOuterUpLeft,
            Self::CheekSquintLeft => Self::CheekSquintRight,
            Self::CheekSquintRight => Self::CheekSquintLeft,
            Self::NoseSneerLeft => Self::NoseSneerRight,
            Self::NoseSneerRight => Self::NoseSneerLeft,
            centre => centre,
        }
    }

    /// The part of the face the target moves.
    #[must_use]
    pub const fn region(self) -> Region {
        match self {
            Self::EyeBlinkLeft
            | Self::EyeLookDownLeft
            | Self::EyeLookInLeft
            | Self::EyeLookOutLeft
            | Self::EyeLookUpLeft
            | Self::EyeSquintLeft
            | Self::EyeWideLeft
            | Self::EyeBlinkRight
            | Self::EyeLookDownRight
            | Self::EyeLookInRight
            | Self::EyeLookOutRight
            | Self::EyeLookUpRight
            | Self::EyeSquintRight
            | Self::EyeWideRight => Region::Eyes,
            Self::JawForward | Self::JawLeft | Self::JawRight | Self::JawOpen => Region::Jaw,
            Self::BrowDownLeft
            | Self::BrowDownRight
            | Self::BrowInnerUp
            | Self::BrowOuterUpLeft
            | Self::BrowOuterUpRight => Region::Brows,
            Self::CheekPuff | Self::CheekSquintLeft | Self::CheekSquintRight => Region::Cheeks,
            Self::NoseSneerLeft | Self::NoseSneerRight => Region::Nose,
            Self::TongueOut => Region::Tongue,
            _ => Region::Mouth,
        }
    }

    /// A human label for sliders: the name split into words, e.g. `"Eye blink left"`,
    /// `"Jaw open"`, `"Mouth smile right"`.
    #[must_use]
    pub fn label(self) -> String {
        let mut label = String::with_capacity(self.name().len() + 4);
        for (i, c) in self.name().chars().enumerate() {
            if i == 0 {
                label.push(c.to_ascii_uppercase());
            } else if c.is_ascii_uppercase() {
                label.push(' ');
                label.push(c.to_ascii_lowercase());
            } else {
                label.push(c);
            }
        }
        label
    }
}

impl fmt::Display for ArkitTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for ArkitTarget {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for ArkitTarget {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TargetVisitor;

        impl Visitor<'_> for TargetVisitor {
            type Value = ArkitTarget;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an ARKit blend-shape name such as \"eyeBlinkLeft\"")
            }

            fn visit_str<E: de::Error>(self, name: &str) -> Result<ArkitTarget, E> {
                ArkitTarget::from_name(name)
                    .ok_or_else(|| E::custom(format!("unknown ARKit target `{name}`")))
            }
        }

        deserializer.deserialize_str(TargetVisitor)
    }
}

/// The part of the face an [`ArkitTarget`] belongs to, for grouping sliders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Region {
    Eyes,
    Brows,
    Cheeks,
    Nose,
    Jaw,
    Mouth,
    Tongue,
}

impl Region {
    /// Every region, top of the face to bottom.
    pub const ALL: [Self; 7] = [
        Self::Eyes,
        Self::Brows,
        Self::Cheeks,
        Self::Nose,
        Self::Jaw,
        Self::Mouth,
        Self::Tongue,
    ];

    /// A capitalised label such as `"Eyes"`.
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Self::Eyes => "Eyes",
            Self::Brows => "Brows",
            Self::Cheeks => "Cheeks",
            Self::Nose => "Nose",
            Self::Jaw => "Jaw",
            Self::Mouth => "Mouth",
            Self::Tongue => "Tongue",
        }
    }

    /// The targets in this region, in canonical order.
    pub fn targets(self) -> impl Iterator<Item = ArkitTarget> {
        ArkitTarget::ALL
            .into_iter()
            .filter(move |target| target.region() == self)
    }
}

/// Separators that real files put between words or before a side letter.
const fn is_separator(c: char) -> bool {
    matches!(c, '_' | '-' | ' ')
}

/// Turns any accepted spelling into a lowercase key comparable with the canonical names
/// (compared case-insensitively), or `None` if nothing is left.
fn normalise_arkit_name(name: &str) -> Option<String> {
    let (stem, side) = split_side_suffix(name.trim());
    // Namespaces such as `blendShape1.` or `arkit.`: keep what follows the last dot.
    let stem = stem.rsplit('.').next().unwrap_or(stem);
    let mut key: String = stem
        .chars()
        .filter(|&c| !is_separator(c))
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if let Some(rest) = key.strip_prefix("arkit") {
        key = rest.to_owned();
    }
    if key.is_empty() {
        return None;
    }
    key.push_str(side);
    Some(key)
}

/// Splits off an abbreviated side: a final `L`/`R` (either case) after a separator or dot
/// (`eyeBlink_L`, `eyeBlink.r`), or a final capital `L`/`R` right after a lowercase letter
/// (`eyeBlinkL`). Returns the stem and `"left"`, `"right"` or `""`.
fn split_side_suffix(name: &str) -> (&str, &'static str) {
    let bytes = name.as_bytes();
    let [.., before, last] = bytes else {
        return (name, "");
    };
    let side = match last {
        b'L' | b'l' => "left",
        b'R' | b'r' => "right",
        _ => return (name, ""),
    };
    // `last` and `before` are checked to be ASCII before slicing, so the cuts fall on
    // character boundaries.
    if matches!(before, b'_' | b'-' | b' ' | b'.') {
        (&name[..name.len() - 2], side)
    } else if last.is_ascii_uppercase() && before.is_ascii_lowercase() {
        (&name[..name.len() - 1], side)
    } else {
        (name, "")
    }
}

/// One of the 15 Oculus (Meta) Lip Sync visemes that many avatars carry as extra targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum OculusViseme {
    /// Silence (`viseme_sil`).
    Sil,
    /// p, b, m (`viseme_PP`).
    PP,
    /// f, v (`viseme_FF`).
    FF,
    /// th (`viseme_TH`).
    TH,
    /// d, t (`viseme_DD`).
    DD,
    /// k, g (`viseme_kk`).
    Kk,
    /// ch, j, sh (`viseme_CH`).
    CH,
    /// s, z (`viseme_SS`).
    SS,
    /// n, l (`viseme_nn`).
    Nn,
    /// r (`viseme_RR`).
    RR,
    /// a as in "car" (`viseme_aa`).
    Aa,
    /// e as in "bed" (`viseme_E`).
    E,
    /// i as in "tip" (`viseme_I`).
    I,
    /// o as in "toe" (`viseme_O`).
    O,
    /// u as in "book" (`viseme_U`).
    U,
}

impl OculusViseme {
    /// Every Oculus viseme, in the standard order.
    pub const ALL: [Self; 15] = [
        Self::Sil,
        Self::PP,
        Self::FF,
        Self::TH,
        Self::DD,
        Self::Kk,
        Self::CH,
        Self::SS,
        Self::Nn,
        Self::RR,
        Self::Aa,
        Self::E,
        Self::I,
        Self::O,
        Self::U,
    ];

    /// Position in the standard order, 0..15.
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The target name avatars use, e.g. `"viseme_sil"`, `"viseme_PP"`, `"viseme_aa"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Sil => "viseme_sil",
            Self::PP => "viseme_PP",
            Self::FF => "viseme_FF",
            Self::TH => "viseme_TH",
            Self::DD => "viseme_DD",
            Self::Kk => "viseme_kk",
            Self::CH => "viseme_CH",
            Self::SS => "viseme_SS",
            Self::Nn => "viseme_nn",
            Self::RR => "viseme_RR",
            Self::Aa => "viseme_aa",
            Self::E => "viseme_E",
            Self::I => "viseme_I",
            Self::O => "viseme_O",
            Self::U => "viseme_U",
        }
    }

    /// The name without the `viseme_` prefix, e.g. `"sil"`, `"PP"`.
    #[must_use]
    pub fn short_name(self) -> &'static str {
        let name = self.name();
        name.strip_prefix("viseme_").unwrap_or(name)
    }

    /// Finds a viseme by name: an optional `viseme` prefix (with or without a separator), or
    /// VRChat's `vrc_v_` / `vrc.v_`, followed by the body in any case, e.g. `"viseme_sil"`,
    /// `"Viseme_SIL"`, `"visemeSil"`, `"vrc.v_aa"`, `"PP"`. With a prefix the Oculus
    /// documentation's spellings `ih`, `oh`, `ou` (and `ee`) are taken for I, O, U (and E);
    /// a lone vowel letter without one (`"E"`, `"O"`: VRM's vowels) is not a viseme. A
    /// namespace up to the last `.` is ignored (`blendShape1.vrc_v_aa`).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        let name = name.trim();
        let name = name.replace("vrc.v_", "vrc_v_");
        let name = name.rsplit('.').next().unwrap_or(&name);
        let key: String = name
            .chars()
            .filter(|&c| !is_separator(c))
            .map(|c| c.to_ascii_lowercase())
            .collect();
        let (prefixed, body) = match key
            .strip_prefix("viseme")
            .or_else(|| key.strip_prefix("vrcv"))
        {
            Some(body) => (true, body),
            None => (false, key.as_str()),
        };
        let body = match body {
            "ih" if prefixed => "i",
            "oh" if prefixed => "o",
            "ou" if prefixed => "u",
            "ee" if prefixed => "e",
            _ if !prefixed && body.len() < 2 => return None,
            _ => body,
        };
        Self::ALL
            .iter()
            .copied()
            .find(|viseme| viseme.short_name().eq_ignore_ascii_case(body))
    }
}

impl fmt::Display for OculusViseme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a mesh target name refers to, once normalised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CanonicalTarget {
    /// One of the 52 ARKit targets.
    Arkit(ArkitTarget),
    /// One of the 15 Oculus visemes.
    Oculus(OculusViseme),
}

impl CanonicalTarget {
    /// How many there are: the 52 ARKit targets and the 15 Oculus visemes.
    pub const COUNT: usize = ARKIT_TARGET_COUNT + OculusViseme::ALL.len();

    /// Every one, the ARKit targets first (in [`ArkitTarget::ALL`] order), then the Oculus
    /// visemes (in [`OculusViseme::ALL`] order).
    pub fn all() -> impl Iterator<Item = Self> {
        ArkitTarget::ALL
            .into_iter()
            .map(Self::Arkit)
            .chain(OculusViseme::ALL.into_iter().map(Self::Oculus))
    }

    /// Its place in [`Self::all`].
    #[must_use]
    pub const fn index(self) -> usize {
        match self {
            Self::Arkit(t) => t.index(),
            Self::Oculus(v) => ARKIT_TARGET_COUNT + v.index(),
        }
    }

    /// Its canonical name (`jawOpen`, `viseme_PP`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Arkit(t) => t.name(),
            Self::Oculus(v) => v.name(),
        }
    }
}

/// Recognises a mesh target name as an ARKit target or an Oculus viseme; `None` for anything
/// else (the target is then left alone).
#[must_use]
pub fn canonical_target(name: &str) -> Option<CanonicalTarget> {
    ArkitTarget::from_name(name)
        .map(CanonicalTarget::Arkit)
        .or_else(|| OculusViseme::from_name(name).map(CanonicalTarget::Oculus))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_follow_canonical_order() {
        for (i, target) in ArkitTarget::ALL.iter().enumerate() {
            assert_eq!(target.index(), i);
            assert_eq!(ArkitTarget::from_index(i), Some(*target));
        }
        assert_eq!(ArkitTarget::from_index(ARKIT_TARGET_COUNT), None);
        assert_eq!(ArkitTarget::ALL[0], ArkitTarget::EyeBlinkLeft);
        assert_eq!(ArkitTarget::ALL[51], ArkitTarget::TongueOut);
    }

    #[test]
    fn canonical_targets_are_counted_once_each_in_order() {
        let all: Vec<CanonicalTarget> = CanonicalTarget::all().collect();
        assert_eq!(all.len(), CanonicalTarget::COUNT);
        for (i, t) in all.iter().enumerate() {
            assert_eq!(t.index(), i);
            assert_eq!(canonical_target(t.name()), Some(*t));
        }
    }

    #[test]
    fn every_canonical_name_round_trips() {
        for target in ArkitTarget::ALL {
            assert_eq!(
                ArkitTarget::from_name(target.name()),
                Some(target),
                "{target}"
            );
            let upper = target.name().to_ascii_uppercase();
            assert_eq!(ArkitTarget::from_name(&upper), Some(target), "{upper}");
        }
    }

    #[test]
    fn real_world_spellings_match() {
        use ArkitTarget as T;
        let table = [
            ("eyeBlink_L", T::EyeBlinkLeft),
            ("eyeBlink_l", T::EyeBlinkLeft),
            ("eyeBlink_R", T::EyeBlinkRight),
            ("eyeBlinkL", T::EyeBlinkLeft),
            ("eyeBlink.L", T::EyeBlinkLeft),
            ("EyeBlinkLeft", T::EyeBlinkLeft),
            ("eye_blink_left", T::EyeBlinkLeft),
            ("EYEBLINKLEFT", T::EyeBlinkLeft),
            ("EYE_BLINK_L", T::EyeBlinkLeft),
            ("  eyeBlinkLeft ", T::EyeBlinkLeft),
            ("blendShape1.eyeBlinkLeft", T::EyeBlinkLeft),
            ("Head.blendShape1.eyeBlink_L", T::EyeBlinkLeft),
            ("ARKit_eyeBlinkLeft", T::EyeBlinkLeft),
            ("arkit.eyeBlinkLeft", T::EyeBlinkLeft),
            ("mouthSmile_R", T::MouthSmileRight),
            ("MouthSmileRight", T::MouthSmileRight),
            ("jawOpen", T::JawOpen),
            ("JawOpen", T::JawOpen),
            ("jaw_open", T::JawOpen),
            ("tongueOut", T::TongueOut),
            ("TongueOut", T::TongueOut),
            ("browInnerUp", T::BrowInnerUp),
            ("BrowInnerUp", T::BrowInnerUp),
            ("cheekPuff", T::CheekPuff),
            ("eyeLookUp_L", T::EyeLookUpLeft),
            ("eyeLookIn_R", T::EyeLookInRight),
            ("mouthPress_R", T::MouthPressRight),
            ("noseSneer_L", T::NoseSneerLeft),
            ("browOuterUp_R", T::BrowOuterUpRight),
            ("cheekSquint_L", T::CheekSquintLeft),
            ("mouthLowerDown_L", T::MouthLowerDownLeft),
            ("mouthUpperUp_R", T::MouthUpperUpRight),
            ("mouthLeft", T::MouthLeft),
            ("jawRight", T::JawRight),
            ("mouthClose", T::MouthClose),
            ("mouthRollLower", T::MouthRollLower),
        ];
        for (spelling, expected) in table {
            assert_eq!(
                ArkitTarget::from_name(spelling),
                Some(expected),
                "{spelling}"
            );
        }
    }

    #[test]
    fn non_names_do_not_match() {
        for name in [
            "",
            " ",
            "_L",
            "eyeBlink",
            "jawOpenX",
            "jawOpen_L",
            "eyeBlinkLeftRight",
            "viseme_XX",
            "viseme_sil",
            "mouthWobble",
            "arkit",
            "blendShape1.",
        ] {
            assert_eq!(ArkitTarget::from_name(name), None, "{name:?}");
        }
    }

    #[test]
    fn mirror_is_an_involution_that_swaps_sides() {
        for target in ArkitTarget::ALL {
            let mirrored = target.mirror();
            assert_eq!(mirrored.mirror(), target);
            assert_eq!(mirrored.region(), target.region());
            let name = target.name();
            let expected = if let Some(stem) = name.strip_suffix("Left") {
                format!("{stem}Right")
            } else if let Some(stem) = name.strip_suffix("Right") {
                format!("{stem}Left")
            } else {
                name.to_owned()
            };
            assert_eq!(mirrored.name(), expected);
        }
        assert_eq!(
            ArkitTarget::EyeLookInLeft.mirror(),
            ArkitTarget::EyeLookInRight
        );
        assert_eq!(ArkitTarget::JawOpen.mirror(), ArkitTarget::JawOpen);
    }

    #[test]
    fn regions_and_labels() {
        assert_eq!(ArkitTarget::EyeWideRight.region(), Region::Eyes);
        assert_eq!(ArkitTarget::BrowInnerUp.region(), Region::Brows);
        assert_eq!(ArkitTarget::CheekPuff.region(), Region::Cheeks);
        assert_eq!(ArkitTarget::NoseSneerLeft.region(), Region::Nose);
        assert_eq!(ArkitTarget::JawOpen.region(), Region::Jaw);
        assert_eq!(ArkitTarget::MouthClose.region(), Region::Mouth);
        assert_eq!(ArkitTarget::TongueOut.region(), Region::Tongue);
        let total: usize = Region::ALL.iter().map(|r| r.targets().count()).sum();
        assert_eq!(total, ARKIT_TARGET_COUNT);
        assert_eq!(Region::Eyes.targets().count(), 14);
        assert_eq!(Region::Mouth.label(), "Mouth");

        assert_eq!(ArkitTarget::EyeBlinkLeft.label(), "Eye blink left");
        assert_eq!(ArkitTarget::JawOpen.label(), "Jaw open");
        assert_eq!(ArkitTarget::MouthSmileRight.label(), "Mouth smile right");
    }

    #[test]
    fn serde_uses_canonical_names_and_accepts_other_spellings() {
        let text = ron::to_string(&ArkitTarget::MouthSmileLeft).expect("serialise");
        assert_eq!(text, "\"mouthSmileLeft\"");
        let back: ArkitTarget = ron::from_str(&text).expect("parse");
        assert_eq!(back, ArkitTarget::MouthSmileLeft);
        let raw: ArkitTarget = ron::from_str("\"mouthSmile_L\"").expect("parse");
        assert_eq!(raw, ArkitTarget::MouthSmileLeft);
        let err = ron::from_str::<ArkitTarget>("\"mouthWobble\"").expect_err("unknown");
        assert!(err.to_string().contains("mouthWobble"), "{err}");
    }

    #[test]
    fn oculus_names_round_trip() {
        for (i, viseme) in OculusViseme::ALL.iter().enumerate() {
            assert_eq!(viseme.index(), i);
            assert_eq!(OculusViseme::from_name(viseme.name()), Some(*viseme));
            let upper = viseme.name().to_ascii_uppercase();
            assert_eq!(OculusViseme::from_name(&upper), Some(*viseme), "{upper}");
        }
        assert_eq!(
            OculusViseme::from_name("Viseme_SIL"),
            Some(OculusViseme::Sil)
        );
        assert_eq!(
            OculusViseme::from_name("visemeSil"),
            Some(OculusViseme::Sil)
        );
        assert_eq!(OculusViseme::from_name("viseme-aa"), Some(OculusViseme::Aa));
        assert_eq!(OculusViseme::from_name("PP"), Some(OculusViseme::PP));
        assert_eq!(OculusViseme::from_name("viseme_XX"), None);
        assert_eq!(OculusViseme::from_name("viseme_"), None);
        assert_eq!(OculusViseme::from_name(""), None);
    }

    #[test]
    fn vrchat_visemes_are_oculus_visemes_and_vrm_vowels_are_not() {
        // VRChat's names, as avatars exported for it carry them (with a Maya/Blender group).
        for (name, viseme) in [
            ("vrc.v_sil", OculusViseme::Sil),
            ("vrc_v_PP", OculusViseme::PP),
            ("vrc_v_kk", OculusViseme::Kk),
            ("vrc_v_aa", OculusViseme::Aa),
            ("vrc_v_E", OculusViseme::E),
            ("blendShape4.vrc_v_ee", OculusViseme::E),
            ("vrc_v_ih", OculusViseme::I),
            ("vrc.v_oh", OculusViseme::O),
            ("blendShape10.vrc_v_ou", OculusViseme::U),
            ("viseme_ih", OculusViseme::I),
        ] {
            assert_eq!(OculusViseme::from_name(name), Some(viseme), "{name}");
        }
        // A VRM's vowels, and words that only look like the documentation's spellings.
        for name in ["A", "I", "U", "E", "O", "a", "o", "oh", "ou", "vrc_blink"] {
            assert_eq!(OculusViseme::from_name(name), None, "{name}");
        }
    }

    #[test]
    fn canonical_target_sorts_names() {
        assert_eq!(
            canonical_target("eyeBlink_L"),
            Some(CanonicalTarget::Arkit(ArkitTarget::EyeBlinkLeft))
        );
        assert_eq!(
            canonical_target("viseme_kk"),
            Some(CanonicalTarget::Oculus(OculusViseme::Kk))
        );
        assert_eq!(canonical_target("viseme_XX"), None);
        assert_eq!(canonical_target("Wolf3D_Head"), None);
    }
}
