//! The avatar's own shapes: heads whose morph targets are not named for ARKit (Oculus
//! `viseme_*`, VRoid `Fcl_MTH_A`, a DAZ-style `h_expressions.AE_AA_h`) still talk. A viseme may
//! set any of the avatar's targets by its name in the file, and an ARKit target may be played
//! on targets of other names (eyeBlinkLeft on `LeyeClose_h`). Known sets get a starting table
//! made from the names alone ([`OwnShapes::starting_for`]). An expression (happy, sad, ...) may
//! be played on the avatar's own faces for it (a VRM's `happy`, by its binds): the character's
//! emotions and the clips' expressions then show as the avatar's author made them.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::arkit::{ArkitTarget, OculusViseme};
use crate::asset::{Asset, VrmExpressions};
use crate::viseme::VISEME_COUNT;

/// What a character's own shapes do (`avatar.shapes` in a project).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OwnShapes {
    /// Viseme id (0-21) -> {the avatar's target name: weight at the viseme's apex}.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub visemes: BTreeMap<u8, BTreeMap<String, f32>>,
    /// ARKit target -> the avatar's targets that play it, by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub targets: BTreeMap<ArkitTarget, Vec<String>>,
    /// Expression ([`EXPRESSIONS`]: happy, angry, sad, relaxed, surprised) -> {the avatar's
    /// target name: weight}: its own face for the emotion and for clips' expression tracks,
    /// played instead of the emotion's ARKit face.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub expressions: BTreeMap<String, BTreeMap<String, f32>>,
}

/// The expressions an avatar may play on faces of its own (VRM's preset names).
pub const EXPRESSIONS: [&str; 5] = ["happy", "angry", "sad", "relaxed", "surprised"];

/// A known set of shapes a starting table was made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeSet {
    /// Oculus / Meta's 15 visemes (`viseme_sil` ... `viseme_U`), as Ready Player Me has.
    Oculus,
    /// VRM's five vowels (VRoid `Fcl_MTH_A`, ..., or `A`, `I`, `U`, `E`, `O`).
    VrmVowels,
    /// DAZ-style expressions (`h_expressions.AE_AA_h`, ..., with `h_teeth.t_*` on the teeth),
    /// as the VALID avatars have.
    DazExpressions,
}

impl ShapeSet {
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Oculus => "Oculus visemes",
            Self::VrmVowels => "VRM vowels",
            Self::DazExpressions => "DAZ-style expressions",
        }
    }
}

/// Azure viseme -> Oculus viseme (the closest mouth), by id 0-21.
const OCULUS_OF_AZURE: [OculusViseme; VISEME_COUNT] = {
    use OculusViseme as O;
    [
        O::Sil,
        O::Aa,
        O::Aa,
        O::O,
        O::E,
        O::RR,
        O::I,
        O::U,
        O::O,
        O::Aa,
        O::O,
        O::Aa,
        O::Sil,
        O::RR,
        O::Nn,
        O::SS,
        O::CH,
        O::TH,
        O::FF,
        O::DD,
        O::Kk,
        O::PP,
    ]
};

/// Azure viseme -> VRM vowels (A, I, U, E, O) with weights; p/b/m and silence close the mouth.
const VOWELS_OF_AZURE: [&[(usize, f32)]; VISEME_COUNT] = [
    &[],
    &[(0, 0.6), (3, 0.2)],
    &[(0, 1.0)],
    &[(4, 0.9)],
    &[(3, 0.9)],
    &[(2, 0.5), (3, 0.3)],
    &[(1, 0.9)],
    &[(2, 1.0)],
    &[(4, 1.0)],
    &[(0, 0.9)],
    &[(4, 0.8)],
    &[(0, 0.9)],
    &[(0, 0.3)],
    &[(2, 0.5)],
    &[(0, 0.3), (1, 0.2)],
    &[(1, 0.4)],
    &[(2, 0.5), (1, 0.2)],
    &[(3, 0.4)],
    &[(1, 0.3)],
    &[(3, 0.4)],
    &[(0, 0.3), (3, 0.2)],
    &[],
];

/// Azure viseme -> DAZ-style expression shapes (the part after `h_expressions.`, before `_h`).
const DAZ_OF_AZURE: [&[(&str, f32)]; VISEME_COUNT] = [
    &[],
    &[("AE_AA", 0.7)],
    &[("AE_AA", 1.0)],
    &[("AO_a", 1.0)],
    &[("Ax_E", 1.0)],
    &[("UH_OO", 0.6)],
    &[("TD_I", 1.0)],
    &[("UW_U", 1.0)],
    &[("AO_a", 0.8), ("UH_OO", 0.3)],
    &[("AE_AA", 0.9)],
    &[("AO_a", 0.9)],
    &[("AE_AA", 0.9)],
    &[("H_EST", 1.0)],
    &[("UH_OO", 0.5)],
    &[("TD_I", 0.5)],
    &[("S", 1.0)],
    &[("SH_CH", 1.0)],
    &[("TD_I", 0.6)],
    &[("FV", 1.0)],
    &[("TD_I", 1.0)],
    &[("KG", 1.0)],
    &[("MPB_Up", 1.0), ("MPB_Down", 1.0)],
];

/// DAZ-style shapes that play ARKit targets: the eyes and brows, which gaze, blinks and
/// expressions move (the mouth is the visemes' own, so jaw and smiles are left out).
const DAZ_FOR_ARKIT: [(ArkitTarget, &[&str]); 11] = {
    use ArkitTarget as A;
    [
        (A::EyeBlinkLeft, &["LeyeClose"]),
        (A::EyeBlinkRight, &["ReyeClose"]),
        (A::EyeWideLeft, &["LeyeOpen"]),
        (A::EyeWideRight, &["ReyeOpen"]),
        (A::EyeSquintLeft, &["Lsquint"]),
        (A::EyeSquintRight, &["Rsquint"]),
        (A::BrowInnerUp, &["LbrowUp", "RbrowUp"]),
        (A::BrowOuterUpLeft, &["LLbrowUp"]),
        (A::BrowOuterUpRight, &["RRbrowUp"]),
        (A::BrowDownLeft, &["LbrowDown"]),
        (A::BrowDownRight, &["RbrowDown"]),
    ]
};

impl OwnShapes {
    /// Whether there is nothing to do.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.visemes.values().all(BTreeMap::is_empty)
            && self.targets.is_empty()
            && self.expressions.values().all(BTreeMap::is_empty)
    }

    /// Every target the visemes set, sorted.
    #[must_use]
    pub fn viseme_targets(&self) -> Vec<String> {
        let names: BTreeSet<&String> = self.visemes.values().flat_map(BTreeMap::keys).collect();
        names.into_iter().cloned().collect()
    }

    /// Every target the visemes and expressions set, sorted: the order of the animator's own
    /// weights.
    #[must_use]
    pub fn own_targets(&self) -> Vec<String> {
        let names: BTreeSet<&String> = self
            .visemes
            .values()
            .chain(self.expressions.values())
            .flat_map(BTreeMap::keys)
            .collect();
        names.into_iter().cloned().collect()
    }

    /// Names used here that `has` says the avatar does not have, each once.
    #[must_use]
    pub fn unknown_names(&self, has: impl Fn(&str) -> bool) -> Vec<String> {
        let used: BTreeSet<&String> = self
            .visemes
            .values()
            .chain(self.expressions.values())
            .flat_map(BTreeMap::keys)
            .chain(self.targets.values().flatten())
            .collect();
        used.into_iter().filter(|n| !has(n)).cloned().collect()
    }

    /// Viseme ids outside 0-21 and weights outside [0, 1], one sentence each.
    #[must_use]
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (&id, pose) in &self.visemes {
            if usize::from(id) >= VISEME_COUNT {
                out.push(format!(
                    "shapes.visemes: viseme id {id} is out of range 0-21"
                ));
            }
            for (name, &w) in pose {
                if !(0.0..=1.0).contains(&w) {
                    out.push(format!(
                        "shapes.visemes {id}: {name} has weight {w}, outside 0-1"
                    ));
                }
            }
        }
        for (expression, pose) in &self.expressions {
            if !EXPRESSIONS.contains(&expression.as_str()) {
                out.push(format!(
                    "shapes.expressions: {expression} is not one of {}",
                    EXPRESSIONS.join(", ")
                ));
            }
            for (name, &w) in pose {
                if !(0.0..=1.0).contains(&w) {
                    out.push(format!(
                        "shapes.expressions {expression}: {name} has weight {w}, outside 0-1"
                    ));
                }
            }
        }
        out
    }

    /// The shapes a character plays: the project's (`configured`; empty shapes turn them off),
    /// else a starting table when the avatar's target `names` form a known set or its VRM
    /// expressions (`vrm`) name the vowels.
    #[must_use]
    pub fn for_avatar(
        configured: Option<&Self>,
        names: &[String],
        vrm: &VrmExpressions,
    ) -> (Option<ShapeSet>, Self) {
        match configured {
            Some(shapes) => (None, shapes.clone()),
            None => Self::starting_for(names, vrm).map_or_else(
                || (None, Self::default()),
                |(set, shapes)| (Some(set), shapes),
            ),
        }
    }

    /// [`Self::for_avatar`] for the face in `asset`: its target names and VRM expressions.
    #[must_use]
    pub fn for_asset(configured: Option<&Self>, asset: &Asset) -> (Option<ShapeSet>, Self) {
        Self::for_avatar(
            configured,
            &crate::asset::face_rig::target_names(&asset.meshes),
            &asset.vrm_expressions,
        )
    }

    /// A starting table for an avatar whose targets are `names` (every mesh's, as in the
    /// file), when they form a known set or its VRM expressions (`vrm`) name the vowels, and
    /// name no ARKit mouth of their own; `None` else. The VRM's blinks play eyeBlinkLeft and
    /// eyeBlinkRight where the set has none.
    #[must_use]
    pub fn starting_for(names: &[String], vrm: &VrmExpressions) -> Option<(ShapeSet, Self)> {
        let arkit_mouth = names
            .iter()
            .any(|n| ArkitTarget::from_name(n) == Some(ArkitTarget::JawOpen));
        if arkit_mouth {
            return None;
        }
        let (set, mut shapes) = oculus(names)
            .or_else(|| vrm_expression_vowels(vrm))
            .or_else(|| vrm_vowels(names))
            .or_else(|| daz(names))?;
        for (eye, presets) in [
            (ArkitTarget::EyeBlinkLeft, ["blinkLeft", "blink"]),
            (ArkitTarget::EyeBlinkRight, ["blinkRight", "blink"]),
        ] {
            if let Some(binds) = presets.iter().find_map(|p| vrm.get(p)) {
                shapes
                    .targets
                    .entry(eye)
                    .or_insert_with(|| binds.iter().map(|(n, _)| n.clone()).collect());
            }
        }
        for expression in EXPRESSIONS {
            if let Some(binds) = vrm.get(expression) {
                shapes
                    .expressions
                    .insert(expression.to_owned(), binds.iter().cloned().collect());
            }
        }
        Some((set, shapes))
    }
}

/// The table for the five vowels A, I, U, E, O, each given as the targets it sets.
fn vowel_table(vowels: &[Vec<(String, f32)>; 5]) -> BTreeMap<u8, BTreeMap<String, f32>> {
    let mut out: BTreeMap<u8, BTreeMap<String, f32>> = BTreeMap::new();
    for (id, row) in VOWELS_OF_AZURE.iter().enumerate() {
        for &(v, w) in *row {
            for (name, bind) in &vowels[v] {
                #[allow(clippy::cast_possible_truncation)]
                let pose = out.entry(id as u8).or_default();
                let weight = pose.entry(name.clone()).or_insert(0.0);
                *weight = (*weight + w * bind).min(1.0);
            }
        }
    }
    out
}

/// The vowels a VRM file's expressions `aa`, `ih`, `ou`, `ee`, `oh` set.
fn vrm_expression_vowels(vrm: &VrmExpressions) -> Option<(ShapeSet, OwnShapes)> {
    let [a, i, u, e, o] = ["aa", "ih", "ou", "ee", "oh"].map(|p| vrm.get(p).map(<[_]>::to_vec));
    let vowels = [a?, i?, u?, e?, o?];
    Some((
        ShapeSet::VrmVowels,
        OwnShapes {
            visemes: vowel_table(&vowels),
            ..OwnShapes::default()
        },
    ))
}

fn table(
    rows: impl Iterator<Item = (usize, Vec<(String, f32)>)>,
) -> BTreeMap<u8, BTreeMap<String, f32>> {
    rows.filter(|(_, row)| !row.is_empty())
        .map(|(id, row)| (id as u8, row.into_iter().collect()))
        .collect()
}

fn oculus(names: &[String]) -> Option<(ShapeSet, OwnShapes)> {
    let name_of = |v: OculusViseme| names.iter().find(|n| OculusViseme::from_name(n) == Some(v));
    let found = OculusViseme::ALL
        .iter()
        .filter(|&&v| name_of(v).is_some())
        .count();
    if found < 10 {
        return None;
    }
    let visemes = table(OCULUS_OF_AZURE.iter().enumerate().map(|(id, &v)| {
        let row = match (v, name_of(v)) {
            (OculusViseme::Sil, _) | (_, None) => Vec::new(),
            (_, Some(n)) => vec![(n.clone(), 1.0)],
        };
        (id, row)
    }));
    Some((
        ShapeSet::Oculus,
        OwnShapes {
            visemes,
            ..OwnShapes::default()
        },
    ))
}

fn vrm_vowels(names: &[String]) -> Option<(ShapeSet, OwnShapes)> {
    let find = |vowel: &str| {
        names
            .iter()
            .find(|n| {
                let n = n.rsplit('.').next().unwrap_or(n);
                n == format!("Fcl_MTH_{vowel}") || n == vowel || n == vowel.to_lowercase()
            })
            .cloned()
    };
    let [a, i, u, e, o] = ["A", "I", "U", "E", "O"].map(|v| find(v).map(|n| vec![(n, 1.0)]));
    let visemes = vowel_table(&[a?, i?, u?, e?, o?]);
    let mut targets = BTreeMap::new();
    let blink = |side: &str| {
        names
            .iter()
            .find(|n| n.ends_with(&format!("Fcl_EYE_Close_{side}")))
            .cloned()
    };
    if let Some(l) = blink("L") {
        targets.insert(ArkitTarget::EyeBlinkLeft, vec![l]);
    }
    if let Some(r) = blink("R") {
        targets.insert(ArkitTarget::EyeBlinkRight, vec![r]);
    }
    Some((
        ShapeSet::VrmVowels,
        OwnShapes {
            visemes,
            targets,
            ..OwnShapes::default()
        },
    ))
}

fn daz(names: &[String]) -> Option<(ShapeSet, OwnShapes)> {
    // `h_expressions.AE_AA_h` on the head, `h_teeth.t_AE_AA_h` on the teeth.
    let with = |prefix: &str, shape: &str| {
        let wanted = format!("{prefix}{shape}_h");
        names.iter().find(|n| n.ends_with(&wanted)).cloned()
    };
    let head = |shape: &str| with("h_expressions.", shape);
    let teeth = |shape: &str| with("h_teeth.t_", shape);
    let vowels = ["AE_AA", "AO_a", "Ax_E", "TD_I", "UW_U", "MPB_Up"];
    if vowels.iter().any(|v| head(v).is_none()) {
        return None;
    }
    let visemes = table(DAZ_OF_AZURE.iter().enumerate().map(|(id, row)| {
        let mut out = Vec::new();
        for &(shape, w) in *row {
            out.extend(head(shape).map(|n| (n, w)));
            // The teeth follow the mouth; the lower-lip closure drives t_MPB.
            let teeth_shape = if shape.starts_with("MPB") {
                "MPB"
            } else {
                shape
            };
            if let Some(t) = teeth(teeth_shape)
                && !out.iter().any(|(n, _)| *n == t)
            {
                out.push((t, w));
            }
        }
        (id, out)
    }));
    let targets = DAZ_FOR_ARKIT
        .iter()
        .filter_map(|(arkit, shapes)| {
            let found: Vec<String> = shapes.iter().filter_map(|s| head(s)).collect();
            (!found.is_empty()).then_some((*arkit, found))
        })
        .collect();
    Some((
        ShapeSet::DazExpressions,
        OwnShapes {
            visemes,
            targets,
            ..OwnShapes::default()
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn oculus_visemes_get_a_table_and_p_b_m_closes_on_viseme_pp() {
        let all: Vec<String> = OculusViseme::ALL
            .iter()
            .map(|v| v.name().to_owned())
            .collect();
        let (set, shapes) =
            OwnShapes::starting_for(&all, &VrmExpressions::default()).expect("a known set");
        assert_eq!(set, ShapeSet::Oculus);
        assert_eq!(
            shapes.visemes[&21],
            BTreeMap::from([("viseme_PP".to_owned(), 1.0)])
        );
        assert_eq!(
            shapes.visemes[&18],
            BTreeMap::from([("viseme_FF".to_owned(), 1.0)])
        );
        assert!(!shapes.visemes.contains_key(&0), "silence sets nothing");
    }

    #[test]
    fn vroid_vowels_and_blinks_are_found_by_name() {
        let list = names(&[
            "Fcl_ALL_Neutral",
            "Fcl_MTH_A",
            "Fcl_MTH_I",
            "Fcl_MTH_U",
            "Fcl_MTH_E",
            "Fcl_MTH_O",
            "Fcl_EYE_Close_L",
            "Fcl_EYE_Close_R",
        ]);
        let (set, shapes) =
            OwnShapes::starting_for(&list, &VrmExpressions::default()).expect("a known set");
        assert_eq!(set, ShapeSet::VrmVowels);
        assert_eq!(shapes.visemes[&2]["Fcl_MTH_A"], 1.0);
        assert_eq!(shapes.visemes[&7]["Fcl_MTH_U"], 1.0);
        assert_eq!(
            shapes.targets[&ArkitTarget::EyeBlinkLeft],
            vec!["Fcl_EYE_Close_L".to_owned()]
        );
    }

    #[test]
    fn a_head_with_arkit_names_needs_no_starting_table() {
        let mut list: Vec<String> = OculusViseme::ALL
            .iter()
            .map(|v| v.name().to_owned())
            .collect();
        list.push("jawOpen".to_owned());
        assert!(OwnShapes::starting_for(&list, &VrmExpressions::default()).is_none());
        assert!(
            OwnShapes::starting_for(&names(&["Key 1", "Key 2"]), &VrmExpressions::default())
                .is_none()
        );
    }

    #[test]
    fn problems_name_bad_ids_and_weights() {
        let mut shapes = OwnShapes::default();
        shapes.visemes.insert(22, BTreeMap::new());
        shapes
            .visemes
            .insert(2, BTreeMap::from([("A".to_owned(), 1.5)]));
        let problems = shapes.problems();
        assert_eq!(problems.len(), 2, "{problems:?}");
    }
}
