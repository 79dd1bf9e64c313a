//! What each of the avatar's own viseme shapes does in the mouth, read off the viseme table
//! that plays it: a shape played mostly on rounded visemes (3 7 8 9 10 16) rounds the lips, so
//! it starts early and ends late around them, as mouthPucker and mouthFunnel do; one played
//! mostly on the other vowels opens the jaw, so the line's loudness scales it, as it scales
//! jawOpen. A shape of the consonants and closures has neither role.

use std::collections::BTreeMap;

use super::own_shapes::OwnShapes;
use crate::viseme::VisemeId;

/// The share of a shape's weight over the table at which a role is taken.
const SHARE: f32 = 0.5;

/// A mouth stage's part for an own shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Opens the jaw: scaled by the line's loudness.
    Jaw,
    /// Rounds the lips: anticipated around rounded visemes.
    Rounding,
}

impl Role {
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Jaw => "opens the jaw (louder: wider)",
            Self::Rounding => "rounds the lips (early and late)",
        }
    }
}

impl OwnShapes {
    /// The role of the viseme target `name`, from the visemes that set it, by weight.
    #[must_use]
    pub fn role(&self, name: &str) -> Option<Role> {
        role_of(&self.visemes, name)
    }
}

fn role_of(visemes: &BTreeMap<u8, BTreeMap<String, f32>>, name: &str) -> Option<Role> {
    let (mut total, mut rounded, mut vowel) = (0.0_f32, 0.0_f32, 0.0_f32);
    for (&id, pose) in visemes {
        let (Some(&w), Ok(id)) = (pose.get(name), VisemeId::new(u32::from(id))) else {
            continue;
        };
        let w = w.max(0.0);
        total += w;
        if id.is_rounded() {
            rounded += w;
        } else if id.is_vowel() {
            vowel += w;
        }
    }
    if total <= 0.0 {
        None
    } else if rounded >= SHARE * total {
        Some(Role::Rounding)
    } else if vowel + rounded >= SHARE * total {
        Some(Role::Jaw)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arkit::ArkitTarget;
    use crate::viseme::VisemeTable;

    /// Own shapes that copy the built-in table's columns for `targets`, named as them.
    fn columns(targets: &[ArkitTarget]) -> OwnShapes {
        let table = VisemeTable::default_table();
        let mut shapes = OwnShapes::default();
        for (id, pose) in table.iter() {
            for &t in targets {
                let w = pose.get(t);
                if w > 0.0 {
                    shapes
                        .visemes
                        .entry(id.get())
                        .or_default()
                        .insert(t.name().to_owned(), w);
                }
            }
        }
        shapes
    }

    #[test]
    fn the_built_in_tables_jaw_opens_and_its_pucker_and_funnel_round() {
        use ArkitTarget as T;
        let shapes = columns(&[
            T::JawOpen,
            T::MouthPucker,
            T::MouthFunnel,
            T::MouthClose,
            T::MouthPressLeft,
        ]);
        assert_eq!(shapes.role(T::JawOpen.name()), Some(Role::Jaw));
        assert_eq!(shapes.role(T::MouthPucker.name()), Some(Role::Rounding));
        assert_eq!(shapes.role(T::MouthFunnel.name()), Some(Role::Rounding));
        assert_eq!(shapes.role(T::MouthClose.name()), None);
        assert_eq!(shapes.role(T::MouthPressLeft.name()), None);
        assert_eq!(shapes.role("notThere"), None);
    }

    #[test]
    fn oculus_vowels_open_or_round_and_consonants_do_neither() {
        let names: Vec<String> = crate::arkit::OculusViseme::ALL
            .iter()
            .map(|v| v.name().to_owned())
            .collect();
        let (_, shapes) = OwnShapes::starting_for(&names, &crate::asset::VrmExpressions::default())
            .expect("an Oculus set");
        for (name, role) in [
            ("viseme_aa", Some(Role::Jaw)),
            ("viseme_E", Some(Role::Jaw)),
            ("viseme_I", Some(Role::Jaw)),
            ("viseme_RR", Some(Role::Jaw)),
            ("viseme_O", Some(Role::Rounding)),
            ("viseme_U", Some(Role::Rounding)),
            ("viseme_CH", Some(Role::Rounding)),
            ("viseme_PP", None),
            ("viseme_FF", None),
            ("viseme_kk", None),
        ] {
            assert_eq!(shapes.role(name), role, "{name}");
        }
    }
}
