//! A pose: one weight in [0, 1] for each of the 52 ARKit targets.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::arkit::{ARKIT_TARGET_COUNT, ArkitTarget};

/// Weights for the 52 ARKit targets, indexed by [`ArkitTarget::index`].
///
/// Serialises as a map from canonical target name to weight, listing only the non-zero
/// weights, so a hand-edited RON file stays short. Reading accepts any spelling the
/// normaliser knows (`eyeBlink_L`, `EyeBlinkLeft`, ...) and rejects unknown names and
/// weights outside [0, 1].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose(pub [f32; ARKIT_TARGET_COUNT]);

impl Default for Pose {
    fn default() -> Self {
        Self::NEUTRAL
    }
}

impl Pose {
    /// Every weight zero: the rest face.
    pub const NEUTRAL: Self = Self([0.0; ARKIT_TARGET_COUNT]);

    /// Builds a pose from (target, weight) pairs; later pairs win.
    #[must_use]
    pub fn from_pairs(pairs: &[(ArkitTarget, f32)]) -> Self {
        let mut pose = Self::NEUTRAL;
        for &(target, weight) in pairs {
            pose.set(target, weight);
        }
        pose
    }

    #[must_use]
    pub fn get(&self, target: ArkitTarget) -> f32 {
        self.0[target.index()]
    }

    /// Sets one weight, clamped to [0, 1].
    pub fn set(&mut self, target: ArkitTarget, weight: f32) {
        self.0[target.index()] = weight.clamp(0.0, 1.0);
    }

    /// Non-zero weights with their targets, in canonical order.
    pub fn active(&self) -> impl Iterator<Item = (ArkitTarget, f32)> + '_ {
        ArkitTarget::ALL
            .iter()
            .map(|&t| (t, self.get(t)))
            .filter(|&(_, w)| w != 0.0)
    }

    /// Moves every weight a fraction `t` of the way towards `other`.
    pub fn blend_towards(&mut self, other: &Self, t: f32) {
        for (mine, theirs) in self.0.iter_mut().zip(other.0.iter()) {
            *mine += t * (theirs - *mine);
        }
    }

    /// `a` blended towards `b` by `t`.
    #[must_use]
    pub fn lerp(a: &Self, b: &Self, t: f32) -> Self {
        let mut out = *a;
        out.blend_towards(b, t);
        out
    }

    /// Clamps every weight into [0, 1].
    pub fn clamp_unit(&mut self) {
        for w in &mut self.0 {
            *w = w.clamp(0.0, 1.0);
        }
    }

    /// The pose with left and right swapped (eyeBlinkLeft takes eyeBlinkRight's weight).
    #[must_use]
    pub fn mirrored(&self) -> Self {
        let mut out = Self::NEUTRAL;
        for target in ArkitTarget::ALL {
            out.0[target.mirror().index()] = self.get(target);
        }
        out
    }

    /// All 52 weights by canonical name, zeros included (for reports and plots).
    #[must_use]
    pub fn to_full_map(&self) -> BTreeMap<&'static str, f32> {
        ArkitTarget::ALL
            .iter()
            .map(|&t| (t.name(), self.get(t)))
            .collect()
    }
}

impl Serialize for Pose {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let active: Vec<_> = self.active().collect();
        let mut map = serializer.serialize_map(Some(active.len()))?;
        for (target, weight) in active {
            map.serialize_entry(target.name(), &weight)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Pose {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PoseVisitor;

        impl<'de> Visitor<'de> for PoseVisitor {
            type Value = Pose;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map from ARKit target name to a weight in [0, 1]")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Pose, A::Error> {
                let mut pose = Pose::NEUTRAL;
                while let Some((name, weight)) = map.next_entry::<String, f32>()? {
                    let target = ArkitTarget::from_name(&name).ok_or_else(|| {
                        de::Error::custom(format!("unknown ARKit target `{name}`"))
                    })?;
                    if !(0.0..=1.0).contains(&weight) {
                        return Err(de::Error::custom(format!(
                            "weight {weight} for `{name}` is outside [0, 1]"
                        )));
                    }
                    pose.set(target, weight);
                }
                Ok(pose)
            }
        }

        deserializer.deserialize_map(PoseVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_only_active_weights_and_round_trips() {
        let pose =
            Pose::from_pairs(&[(ArkitTarget::JawOpen, 0.5), (ArkitTarget::MouthClose, 0.25)]);
        let text = ron::to_string(&pose).expect("serialise");
        assert_eq!(text, r#"{"jawOpen":0.5,"mouthClose":0.25}"#);
        let back: Pose = ron::from_str(&text).expect("parse");
        assert_eq!(back, pose);
    }

    #[test]
    fn reading_accepts_other_spellings_and_rejects_bad_values() {
        let pose: Pose = ron::from_str(r#"{"eyeBlink_L": 1.0}"#).expect("parse");
        assert_eq!(pose.get(ArkitTarget::EyeBlinkLeft), 1.0);
        let err = ron::from_str::<Pose>(r#"{"mouthWobble": 0.5}"#).expect_err("unknown name");
        assert!(err.to_string().contains("mouthWobble"), "{err}");
        let err = ron::from_str::<Pose>(r#"{"jawOpen": 1.5}"#).expect_err("out of range");
        assert!(err.to_string().contains("outside"), "{err}");
    }

    #[test]
    fn mirror_swaps_sides() {
        let pose = Pose::from_pairs(&[
            (ArkitTarget::MouthSmileLeft, 0.7),
            (ArkitTarget::JawOpen, 0.2),
        ]);
        let m = pose.mirrored();
        assert_eq!(m.get(ArkitTarget::MouthSmileRight), 0.7);
        assert_eq!(m.get(ArkitTarget::MouthSmileLeft), 0.0);
        assert_eq!(m.get(ArkitTarget::JawOpen), 0.2);
    }
}
