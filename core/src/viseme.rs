//! Azure Speech viseme ids (0-21), what they stand for, and the table of ARKit poses that
//! shows each one on a face.

use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::anim::pose::Pose;
use crate::arkit::{ArkitTarget, OculusViseme};

/// Number of Azure viseme ids (0 through 21).
pub const VISEME_COUNT: usize = 22;

/// A viseme id outside 0-21.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("viseme id {0} is out of range 0-21")]
pub struct VisemeIdError(pub u32);

/// An Azure Speech viseme id, always in 0-21.
///
/// Serialises as the bare integer; deserialising checks the range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VisemeId(u8);

impl VisemeId {
    /// Id 0: silence, the mouth at rest.
    pub const SILENCE: Self = Self(0);
    /// Id 21: p, b, m, the lips closed.
    pub const BILABIAL: Self = Self(21);

    /// Checks that `id` is in 0-21.
    pub fn new(id: u32) -> Result<Self, VisemeIdError> {
        match u8::try_from(id) {
            Ok(small) if usize::from(small) < VISEME_COUNT => Ok(Self(small)),
            _ => Err(VisemeIdError(id)),
        }
    }

    /// A viseme id from a byte known to be in range (tables written in code); anything
    /// above 21 becomes silence.
    #[must_use]
    pub const fn new_or_silence(id: u8) -> Self {
        if (id as usize) < VISEME_COUNT {
            Self(id)
        } else {
            Self::SILENCE
        }
    }

    /// The id as an index into per-viseme arrays, 0..22.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The id as a number.
    #[must_use]
    pub const fn get(self) -> u8 {
        self.0
    }

    /// All 22 ids in order.
    pub fn all() -> impl Iterator<Item = Self> {
        (0..VISEME_COUNT as u8).map(Self)
    }

    /// What the id stands for.
    #[must_use]
    pub fn info(self) -> &'static VisemeInfo {
        &VISEMES[self.index()]
    }

    /// A lip-heavy viseme (rounded or protruded lips: 3, 7, 8, 9, 10, 16), which should
    /// start early and end late.
    #[must_use]
    pub fn is_rounded(self) -> bool {
        matches!(self.0, 3 | 7 | 8 | 9 | 10 | 16)
    }

    /// A vowel (1-11, the glides y and w with them), which the jaw opens for.
    #[must_use]
    pub fn is_vowel(self) -> bool {
        matches!(self.0, 1..=11)
    }

    /// p, b, m (21): the lips must close.
    #[must_use]
    pub fn is_bilabial(self) -> bool {
        self.0 == 21
    }

    /// f, v (18): the lower lip must touch the upper teeth.
    #[must_use]
    pub fn is_labiodental(self) -> bool {
        self.0 == 18
    }
}

impl TryFrom<u32> for VisemeId {
    type Error = VisemeIdError;

    fn try_from(id: u32) -> Result<Self, Self::Error> {
        Self::new(id)
    }
}

impl fmt::Display for VisemeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Serialize for VisemeId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(self.0)
    }
}

impl<'de> Deserialize<'de> for VisemeId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let id = u32::deserialize(deserializer)?;
        Self::new(id).map_err(de::Error::custom)
    }
}

/// What one viseme id stands for.
#[derive(Debug)]
pub struct VisemeInfo {
    /// The id this entry describes.
    pub id: VisemeId,
    /// IPA symbols of the sounds.
    pub ipa: &'static str,
    /// en-US phones (ARPAbet, lowercase), space-separated, e.g. `"ae ax ah"`.
    pub phones: &'static str,
    /// An English word containing the sound, e.g. `"cat"`.
    pub example: &'static str,
    /// The closest of the 15 Oculus visemes.
    pub oculus: OculusViseme,
    /// A short label for the UI, e.g. `"p b m"` or `"aa"`.
    pub label: &'static str,
}

/// Builds one [`VISEMES`] entry.
const fn info(
    id: u8,
    ipa: &'static str,
    phones: &'static str,
    example: &'static str,
    oculus: OculusViseme,
    label: &'static str,
) -> VisemeInfo {
    VisemeInfo {
        id: VisemeId(id),
        ipa,
        phones,
        example,
        oculus,
        label,
    }
}

/// The 22 Azure visemes, indexed by id.
pub static VISEMES: [VisemeInfo; VISEME_COUNT] = [
    info(0, "", "sil", "(pause)", OculusViseme::Sil, "silence"),
    info(1, "æ ə ʌ", "ae ax ah", "cat", OculusViseme::Aa, "ae ah"),
    info(2, "ɑ", "aa", "father", OculusViseme::Aa, "aa"),
    info(3, "ɔ", "ao", "thought", OculusViseme::O, "ao"),
    info(4, "ɛ ʊ", "eh uh", "bed", OculusViseme::E, "eh uh"),
    info(5, "ɝ", "er", "bird", OculusViseme::RR, "er"),
    info(6, "j i ɪ", "y iy ih", "see", OculusViseme::I, "y iy ih"),
    info(7, "w u", "w uw", "blue", OculusViseme::U, "w uw"),
    info(8, "o", "ow", "go", OculusViseme::O, "ow"),
    info(9, "aʊ", "aw", "now", OculusViseme::O, "aw"),
    info(10, "ɔɪ", "oy", "boy", OculusViseme::O, "oy"),
    info(11, "aɪ", "ay", "my", OculusViseme::I, "ay"),
    info(12, "h", "hh", "hat", OculusViseme::Kk, "h"),
    info(13, "ɹ", "r", "red", OculusViseme::RR, "r"),
    info(14, "l", "l", "lid", OculusViseme::Nn, "l"),
    info(15, "s z", "s z", "sun", OculusViseme::SS, "s z"),
    info(
        16,
        "ʃ tʃ dʒ ʒ",
        "sh zh ch jh",
        "she",
        OculusViseme::CH,
        "sh ch",
    ),
    info(17, "ð", "dh", "this", OculusViseme::TH, "th (this)"),
    info(18, "f v", "f v", "five", OculusViseme::FF, "f v"),
    info(19, "d t n θ", "d t n th", "dot", OculusViseme::DD, "d t n"),
    info(20, "k g ŋ", "k g ng", "king", OculusViseme::Kk, "k g ng"),
    info(21, "p b m", "p b m", "map", OculusViseme::PP, "p b m"),
];

/// The viseme ids Azure emits for one ARPAbet phone.
///
/// Case-insensitive; stress digits are ignored (`"AY1"` is `ay`). Most phones give one id;
/// the diphthongs `ey` and `ow` and the affricates `ch` and `jh` give two in sequence, as
/// Azure does (`ey` -> 4, 6; `ow` -> 8, 4; `ch`/`jh` -> 19, 16). The pause markers `sil`,
/// `sp` and `pau` give silence. A few extended ARPAbet phones (`axr ix ux dx el em en nx`)
/// are accepted too. Unknown phones give `None`.
#[must_use]
pub fn visemes_for_phone(phone: &str) -> Option<&'static [VisemeId]> {
    let phone = phone.trim().trim_end_matches(|c: char| c.is_ascii_digit());
    let ids: &'static [VisemeId] = match phone.to_ascii_lowercase().as_str() {
        "sil" | "sp" | "spn" | "pau" => &[VisemeId(0)],
        "ae" | "ax" | "ah" => &[VisemeId(1)],
        "aa" => &[VisemeId(2)],
        "ao" => &[VisemeId(3)],
        "eh" | "uh" => &[VisemeId(4)],
        "er" | "axr" => &[VisemeId(5)],
        "y" | "iy" | "ih" | "ix" => &[VisemeId(6)],
        "w" | "uw" | "ux" => &[VisemeId(7)],
        "aw" => &[VisemeId(9)],
        "oy" => &[VisemeId(10)],
        "ay" => &[VisemeId(11)],
        "hh" | "h" => &[VisemeId(12)],
        "r" => &[VisemeId(13)],
        "l" | "el" => &[VisemeId(14)],
        "s" | "z" => &[VisemeId(15)],
        "sh" | "zh" => &[VisemeId(16)],
        "dh" => &[VisemeId(17)],
        "f" | "v" => &[VisemeId(18)],
        "d" | "t" | "n" | "th" | "dx" | "en" | "nx" => &[VisemeId(19)],
        "k" | "g" | "ng" => &[VisemeId(20)],
        "p" | "b" | "m" | "em" => &[VisemeId(21)],
        "ey" => &[VisemeId(4), VisemeId(6)],
        "ow" => &[VisemeId(8), VisemeId(4)],
        "ch" | "jh" => &[VisemeId(19), VisemeId(16)],
        _ => return None,
    };
    Some(ids)
}

/// One ARKit pose per viseme id: what the face looks like at the apex of each viseme.
///
/// Serialises as a map from id (integer) to [`Pose`] (itself a sparse name -> weight map).
/// Reading requires each of the 22 ids exactly once.
#[derive(Clone, Debug, PartialEq)]
pub struct VisemeTable {
    poses: [Pose; VISEME_COUNT],
}

impl Default for VisemeTable {
    fn default() -> Self {
        Self::default_table()
    }
}

impl VisemeTable {
    /// A table of these poses, by id.
    #[must_use]
    pub fn from_poses(poses: [Pose; VISEME_COUNT]) -> Self {
        Self { poses }
    }

    /// The pose for `id`.
    #[must_use]
    pub fn pose(&self, id: VisemeId) -> &Pose {
        &self.poses[id.index()]
    }

    /// The pose for `id`, for editing.
    pub fn pose_mut(&mut self, id: VisemeId) -> &mut Pose {
        &mut self.poses[id.index()]
    }

    /// Replaces the pose for `id`.
    pub fn set_pose(&mut self, id: VisemeId, pose: Pose) {
        self.poses[id.index()] = pose;
    }

    /// Every id with its pose, in id order.
    pub fn iter(&self) -> impl Iterator<Item = (VisemeId, &Pose)> {
        VisemeId::all().zip(self.poses.iter())
    }

    /// The built-in table: moderate, symmetric ARKit poses for each viseme.
    ///
    /// Speech uses a fraction of the jaw's range (`jawOpen` 0.05-0.5; a full 1.0 looks
    /// dislocated), so the poses stay well inside [0, 1] and leave headroom for emphasis.
    /// Every side-specific weight is applied equally to left and right.
    ///
    /// - **Silence (0)**: the neutral face.
    /// - **Lip closures**: p b m (21) seal and press the lips: `mouthClose` equal to the small
    ///   `jawOpen` keeps the lips together, `mouthPress` and a little lip roll flatten them.
    ///   f v (18) tuck the lower lip under the upper teeth (`mouthRollLower`), lift the upper
    ///   lip a touch and push the lower lip up (`mouthShrugLower`).
    /// - **Rounded (3 7 8 9 10 16) and r-coloured (5 13)**: `mouthPucker` (protrusion) and
    ///   `mouthFunnel` (open rounding) with the jaw opening to suit the vowel: w/uw is tight
    ///   and forward, ow and ao are rounder and more open; sh/ch adds a little upper-lip lift
    ///   to show teeth.
    /// - **Open and spread vowels (1 2 4 6 11)**: `jawOpen` carries the vowel height
    ///   (aa widest), with `mouthUpperUp`/`mouthLowerDown` baring the teeth and
    ///   `mouthStretch` (plus a slight smile for iy) spreading the corners.
    /// - **Tongue and throat consonants (12 14 15 17 19 20)**: the lips mostly follow their
    ///   neighbours, so these are light: a slightly open jaw for h, l, k g ng, d t n; s z
    ///   keep the teeth nearly together with the lips spread; dh shows the tongue tip.
    #[must_use]
    pub fn default_table() -> Self {
        use ArkitTarget as T;

        let mut poses = [Pose::NEUTRAL; VISEME_COUNT];
        let mut put = |id: usize, centre: &[(ArkitTarget, f32)], sides: &[(ArkitTarget, f32)]| {
            poses[id] = symmetric(centre, sides);
        };

        // 0: silence stays neutral.

        // 1: ae ax ah (cat, about, cup): mid-open jaw, corners slightly spread.
        put(
            1,
            &[(T::JawOpen, 0.35)],
            &[
                (T::MouthStretchLeft, 0.1),
                (T::MouthUpperUpLeft, 0.1),
                (T::MouthLowerDownLeft, 0.1),
            ],
        );
        // 2: aa (father): the widest speech vowel, teeth showing top and bottom.
        put(
            2,
            &[(T::JawOpen, 0.5)],
            &[(T::MouthUpperUpLeft, 0.15), (T::MouthLowerDownLeft, 0.2)],
        );
        // 3: ao (thought): open and rounded.
        put(
            3,
            &[
                (T::JawOpen, 0.4),
                (T::MouthFunnel, 0.5),
                (T::MouthPucker, 0.15),
            ],
            &[],
        );
        // 4: eh uh (bed, book): mid-open, corners spread.
        put(
            4,
            &[(T::JawOpen, 0.3)],
            &[(T::MouthStretchLeft, 0.2), (T::MouthUpperUpLeft, 0.12)],
        );
        // 5: er (bird): slightly open, loosely rounded.
        put(
            5,
            &[
                (T::JawOpen, 0.2),
                (T::MouthFunnel, 0.25),
                (T::MouthPucker, 0.1),
            ],
            &[],
        );
        // 6: y iy ih (see): nearly closed jaw, lips spread wide with a hint of smile.
        put(
            6,
            &[(T::JawOpen, 0.15)],
            &[
                (T::MouthStretchLeft, 0.3),
                (T::MouthSmileLeft, 0.15),
                (T::MouthUpperUpLeft, 0.1),
            ],
        );
        // 7: w uw (we, blue): lips pushed forward into a small tight ring.
        put(
            7,
            &[
                (T::JawOpen, 0.1),
                (T::MouthPucker, 0.8),
                (T::MouthFunnel, 0.3),
            ],
            &[],
        );
        // 8: ow (go): round open ring.
        put(
            8,
            &[
                (T::JawOpen, 0.3),
                (T::MouthFunnel, 0.6),
                (T::MouthPucker, 0.4),
            ],
            &[],
        );
        // 9: aw (now): open jaw rounding towards the end of the diphthong.
        put(
            9,
            &[
                (T::JawOpen, 0.4),
                (T::MouthFunnel, 0.4),
                (T::MouthPucker, 0.25),
            ],
            &[],
        );
        // 10: oy (boy): rounded start of the diphthong.
        put(
            10,
            &[
                (T::JawOpen, 0.3),
                (T::MouthFunnel, 0.5),
                (T::MouthPucker, 0.3),
            ],
            &[],
        );
        // 11: ay (my): open jaw, corners spreading.
        put(
            11,
            &[(T::JawOpen, 0.45)],
            &[(T::MouthStretchLeft, 0.15), (T::MouthUpperUpLeft, 0.12)],
        );
        // 12: h (hat): a relaxed, slightly open mouth.
        put(12, &[(T::JawOpen, 0.25)], &[]);
        // 13: r (red): slightly open and loosely rounded.
        put(
            13,
            &[
                (T::JawOpen, 0.15),
                (T::MouthFunnel, 0.3),
                (T::MouthPucker, 0.2),
            ],
            &[],
        );
        // 14: l (lid): tongue tip up behind the teeth; the lips barely move.
        put(14, &[(T::JawOpen, 0.2), (T::MouthShrugUpper, 0.1)], &[]);
        // 15: s z (sun): teeth nearly together, lips parted and spread.
        put(
            15,
            &[(T::JawOpen, 0.05)],
            &[
                (T::MouthStretchLeft, 0.3),
                (T::MouthUpperUpLeft, 0.1),
                (T::MouthLowerDownLeft, 0.1),
            ],
        );
        // 16: sh ch jh zh (she): lips flared forward with the teeth showing.
        put(
            16,
            &[
                (T::JawOpen, 0.1),
                (T::MouthFunnel, 0.5),
                (T::MouthPucker, 0.3),
            ],
            &[(T::MouthUpperUpLeft, 0.15)],
        );
        // 17: dh (this): tongue tip between the teeth.
        put(17, &[(T::JawOpen, 0.12), (T::TongueOut, 0.35)], &[]);
        // 18: f v (five): lower lip tucked under the upper teeth.
        put(
            18,
            &[
                (T::JawOpen, 0.08),
                (T::MouthRollLower, 0.55),
                (T::MouthShrugLower, 0.15),
            ],
            &[(T::MouthUpperUpLeft, 0.2)],
        );
        // 19: d t n th (dot): tongue behind the teeth, jaw slightly open.
        put(19, &[(T::JawOpen, 0.12)], &[(T::MouthStretchLeft, 0.1)]);
        // 20: k g ng (king): back of the tongue; the jaw a little open.
        put(20, &[(T::JawOpen, 0.2)], &[]);
        // 21: p b m (map): lips sealed and pressed.
        put(
            21,
            &[
                (T::JawOpen, 0.05),
                (T::MouthClose, 0.05),
                (T::MouthRollLower, 0.15),
                (T::MouthRollUpper, 0.1),
            ],
            &[(T::MouthPressLeft, 0.5)],
        );

        Self { poses }
    }
}

/// A pose from centre weights plus side weights that are applied to both sides.
fn symmetric(centre: &[(ArkitTarget, f32)], sides: &[(ArkitTarget, f32)]) -> Pose {
    let mut pose = Pose::from_pairs(centre);
    for &(target, weight) in sides {
        pose.set(target, weight);
        pose.set(target.mirror(), weight);
    }
    pose
}

impl Serialize for VisemeTable {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(VISEME_COUNT))?;
        for (id, pose) in self.iter() {
            map.serialize_entry(&id.get(), pose)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for VisemeTable {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TableVisitor;

        impl<'de> Visitor<'de> for TableVisitor {
            type Value = VisemeTable;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map from each viseme id 0-21 to a pose")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<VisemeTable, A::Error> {
                let mut found: [Option<Pose>; VISEME_COUNT] = [None; VISEME_COUNT];
                while let Some(raw) = map.next_key::<u32>()? {
                    let id = VisemeId::new(raw).map_err(de::Error::custom)?;
                    let slot = &mut found[id.index()];
                    if slot.is_some() {
                        return Err(de::Error::custom(format!(
                            "viseme table lists id {id} more than once"
                        )));
                    }
                    *slot = Some(map.next_value::<Pose>()?);
                }
                let mut poses = [Pose::NEUTRAL; VISEME_COUNT];
                for (i, (pose, slot)) in poses.iter_mut().zip(found).enumerate() {
                    *pose = slot.ok_or_else(|| {
                        de::Error::custom(format!("viseme table is missing id {i}"))
                    })?;
                }
                Ok(VisemeTable { poses })
            }
        }

        deserializer.deserialize_map(TableVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ArkitTarget as T;

    fn id(n: u32) -> VisemeId {
        VisemeId::new(n).expect("valid id")
    }

    fn ids(list: &[u32]) -> Vec<VisemeId> {
        list.iter().map(|&n| id(n)).collect()
    }

    #[test]
    fn ids_are_range_checked() {
        assert_eq!(id(0), VisemeId::SILENCE);
        assert_eq!(id(21), VisemeId::BILABIAL);
        assert_eq!(id(7).get(), 7);
        assert_eq!(id(7).index(), 7);
        assert_eq!(VisemeId::new(22), Err(VisemeIdError(22)));
        assert_eq!(VisemeId::new(300), Err(VisemeIdError(300)));
        assert_eq!(
            VisemeId::new(23).expect_err("out of range").to_string(),
            "viseme id 23 is out of range 0-21"
        );
        assert_eq!(VisemeId::all().count(), VISEME_COUNT);
        assert!(VisemeId::all().enumerate().all(|(i, v)| v.index() == i));
    }

    #[test]
    fn classes() {
        let rounded: Vec<u8> = VisemeId::all()
            .filter(|v| v.is_rounded())
            .map(VisemeId::get)
            .collect();
        assert_eq!(rounded, [3, 7, 8, 9, 10, 16]);
        assert!(VisemeId::BILABIAL.is_bilabial());
        assert!(!id(18).is_bilabial());
        assert!(id(18).is_labiodental());
        assert!(!VisemeId::BILABIAL.is_labiodental());
    }

    #[test]
    fn id_serde_is_a_checked_integer() {
        assert_eq!(ron::to_string(&id(13)).expect("serialise"), "13");
        assert_eq!(ron::from_str::<VisemeId>("13").expect("parse"), id(13));
        let err = ron::from_str::<VisemeId>("22").expect_err("out of range");
        assert!(err.to_string().contains("out of range 0-21"), "{err}");
    }

    #[test]
    fn info_table_is_indexed_by_id() {
        for (i, entry) in VISEMES.iter().enumerate() {
            assert_eq!(entry.id.index(), i);
            assert!(std::ptr::eq(entry.id.info(), entry));
            assert!(!entry.label.is_empty());
        }
        assert_eq!(VISEMES[21].oculus, OculusViseme::PP);
        assert_eq!(VISEMES[1].phones, "ae ax ah");
    }

    #[test]
    fn every_listed_phone_maps_back_to_its_viseme() {
        for entry in &VISEMES {
            for phone in entry.phones.split_whitespace() {
                let mapped = visemes_for_phone(phone).expect("listed phone is known");
                assert!(mapped.contains(&entry.id), "{phone} -> {mapped:?}");
            }
        }
    }

    #[test]
    fn phones_map_like_azure() {
        let expect = |phone: &str, list: &[u32]| {
            assert_eq!(
                visemes_for_phone(phone).map(<[VisemeId]>::to_vec),
                Some(ids(list)),
                "{phone}"
            );
        };
        expect("EY1", &[4, 6]);
        expect("ey", &[4, 6]);
        expect("OW0", &[8, 4]);
        expect("ch", &[19, 16]);
        expect("JH", &[19, 16]);
        expect("p", &[21]);
        expect("AY1", &[11]);
        expect("aw", &[9]);
        expect("oy", &[10]);
        expect("er", &[5]);
        expect("th", &[19]);
        expect("dh", &[17]);
        expect("sil", &[0]);
        expect("sp", &[0]);
        expect("pau", &[0]);
        for phone in [
            "aa", "ae", "ah", "ao", "aw", "ax", "ay", "b", "ch", "d", "dh", "eh", "er", "ey", "f",
            "g", "hh", "ih", "iy", "jh", "k", "l", "m", "n", "ng", "ow", "oy", "p", "r", "s", "sh",
            "t", "th", "uh", "uw", "v", "w", "y", "z", "zh",
        ] {
            assert!(visemes_for_phone(phone).is_some(), "{phone}");
        }
        assert_eq!(visemes_for_phone("xx"), None);
        assert_eq!(visemes_for_phone(""), None);
        assert_eq!(visemes_for_phone("1"), None);
    }

    #[test]
    fn default_silence_is_neutral() {
        let table = VisemeTable::default();
        assert_eq!(*table.pose(VisemeId::SILENCE), Pose::NEUTRAL);
    }

    #[test]
    fn default_closures_close() {
        let table = VisemeTable::default();
        let pbm = table.pose(VisemeId::BILABIAL);
        assert!(pbm.get(T::MouthClose) > 0.0);
        assert!(pbm.get(T::MouthPressLeft) > 0.3);
        assert!(pbm.get(T::MouthPressRight) > 0.3);
        assert!(pbm.get(T::JawOpen) < 0.1);
        assert_eq!(pbm.get(T::MouthFunnel), 0.0);
        assert_eq!(pbm.get(T::MouthPucker), 0.0);

        let fv = table.pose(id(18));
        assert!(fv.get(T::MouthRollLower) > 0.3);
        assert!(fv.get(T::JawOpen) < 0.15);
    }

    #[test]
    fn default_rounded_visemes_round() {
        let table = VisemeTable::default();
        for v in VisemeId::all().filter(|v| v.is_rounded()) {
            let pose = table.pose(v);
            let rounding = pose.get(T::MouthPucker) + pose.get(T::MouthFunnel);
            assert!(rounding > 0.4, "viseme {v}: {rounding}");
        }
    }

    #[test]
    fn default_open_vowels_open() {
        let table = VisemeTable::default();
        for n in [1, 2, 4] {
            assert!(table.pose(id(n)).get(T::JawOpen) >= 0.25, "viseme {n}");
        }
        for n in [2, 4] {
            let pose = table.pose(id(n));
            assert!(pose.get(T::MouthUpperUpLeft) > 0.0, "viseme {n}");
            assert!(pose.get(T::MouthUpperUpRight) > 0.0, "viseme {n}");
        }
    }

    #[test]
    fn default_poses_are_symmetric_and_moderate() {
        let table = VisemeTable::default();
        for (v, pose) in table.iter() {
            assert_eq!(pose.mirrored(), *pose, "viseme {v}");
            for (target, weight) in pose.active() {
                assert!(
                    (0.0..=1.0).contains(&weight),
                    "viseme {v} {target} {weight}"
                );
            }
            assert!(pose.get(T::JawOpen) <= 0.55, "viseme {v}");
            if v != VisemeId::SILENCE {
                assert!(pose.active().next().is_some(), "viseme {v} is empty");
            }
        }
    }

    #[test]
    fn table_ron_round_trip_is_exact() {
        let table = VisemeTable::default();
        let text = ron::to_string(&table).expect("serialise");
        let back: VisemeTable = ron::from_str(&text).expect("parse");
        assert_eq!(back, table);

        let json = serde_json::to_string(&table).expect("serialise json");
        let back: VisemeTable = serde_json::from_str(&json).expect("parse json");
        assert_eq!(back, table);
    }

    #[test]
    fn table_accessors_edit_one_pose() {
        let mut table = VisemeTable::default();
        table.pose_mut(id(12)).set(T::JawOpen, 0.4);
        assert_eq!(table.pose(id(12)).get(T::JawOpen), 0.4);
        table.set_pose(id(12), Pose::NEUTRAL);
        assert_eq!(*table.pose(id(12)), Pose::NEUTRAL);
        assert_ne!(table, VisemeTable::default());
    }

    fn table_text(entries: &[u32]) -> String {
        let body: Vec<String> = entries.iter().map(|n| format!("{n}:{{}}")).collect();
        format!("{{{}}}", body.join(","))
    }

    #[test]
    fn table_errors_are_clear() {
        let all: Vec<u32> = (0..22).collect();
        assert!(ron::from_str::<VisemeTable>(&table_text(&all)).is_ok());

        let missing: Vec<u32> = (0..22).filter(|&n| n != 7).collect();
        let err = ron::from_str::<VisemeTable>(&table_text(&missing)).expect_err("missing");
        assert!(
            err.to_string().contains("viseme table is missing id 7"),
            "{err}"
        );

        let mut extra = all.clone();
        extra.push(23);
        let err = ron::from_str::<VisemeTable>(&table_text(&extra)).expect_err("out of range");
        assert!(
            err.to_string()
                .contains("viseme id 23 is out of range 0-21"),
            "{err}"
        );

        let mut twice = all;
        twice.push(5);
        let err = ron::from_str::<VisemeTable>(&table_text(&twice)).expect_err("duplicate");
        assert!(err.to_string().contains("id 5 more than once"), "{err}");
    }
}
