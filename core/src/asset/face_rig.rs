//! The face rig: for each canonical target, every (mesh, primitive, target) that carries it.
//! Real avatars repeat the same targets on the head, eyes, teeth and tongue meshes; driving
//! weights by name through the rig moves all of them together.

use crate::anim::pose::Pose;
use crate::arkit::{ARKIT_TARGET_COUNT, ArkitTarget, CanonicalTarget, OculusViseme};

use super::mesh::Mesh;

/// One morph target of one primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TargetRef {
    pub mesh: usize,
    pub primitive: usize,
    pub target: usize,
}

/// Canonical targets mapped onto the meshes of an asset.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FaceRig {
    arkit: Vec<Vec<TargetRef>>,
    oculus: Vec<Vec<TargetRef>>,
}

impl FaceRig {
    /// Builds the rig from the meshes' normalised target names.
    #[must_use]
    pub fn from_meshes(meshes: &[Mesh]) -> Self {
        let mut rig = Self {
            arkit: vec![Vec::new(); ARKIT_TARGET_COUNT],
            oculus: vec![Vec::new(); OculusViseme::ALL.len()],
        };
        for (m, mesh) in meshes.iter().enumerate() {
            for (t, name) in mesh.target_names.iter().enumerate() {
                let Some(canonical) = name.canonical else {
                    continue;
                };
                let list = match canonical {
                    CanonicalTarget::Arkit(a) => &mut rig.arkit[a.index()],
                    CanonicalTarget::Oculus(o) => &mut rig.oculus[o.index()],
                };
                for (p, primitive) in mesh.primitives.iter().enumerate() {
                    if t < primitive.targets.len() {
                        list.push(TargetRef {
                            mesh: m,
                            primitive: p,
                            target: t,
                        });
                    }
                }
            }
        }
        rig
    }

    /// The rig where each ARKit target in `aliases` also drives the avatar's own targets of
    /// those names (`avatar.shapes.targets`: eyeBlinkLeft on `LeyeClose_h`).
    #[must_use]
    pub fn with_aliases(
        mut self,
        meshes: &[Mesh],
        aliases: &std::collections::BTreeMap<ArkitTarget, Vec<String>>,
    ) -> Self {
        for (target, names) in aliases {
            for refs in own_refs(meshes, names) {
                for r in refs {
                    let list = &mut self.arkit[target.index()];
                    if !list.contains(&r) {
                        list.push(r);
                    }
                }
            }
        }
        self
    }

    /// Every place an ARKit target lives.
    #[must_use]
    pub fn arkit(&self, target: ArkitTarget) -> &[TargetRef] {
        self.arkit.get(target.index()).map_or(&[], Vec::as_slice)
    }

    /// Every place an Oculus viseme lives.
    #[must_use]
    pub fn oculus(&self, viseme: OculusViseme) -> &[TargetRef] {
        self.oculus.get(viseme.index()).map_or(&[], Vec::as_slice)
    }

    /// How many of the 52 ARKit targets the asset has.
    #[must_use]
    pub fn arkit_coverage(&self) -> usize {
        ArkitTarget::ALL
            .iter()
            .filter(|&&t| !self.arkit(t).is_empty())
            .count()
    }

    /// The ARKit targets the asset lacks.
    #[must_use]
    pub fn arkit_missing(&self) -> Vec<ArkitTarget> {
        ArkitTarget::ALL
            .into_iter()
            .filter(|&t| self.arkit(t).is_empty())
            .collect()
    }

    /// Canonical names of the ARKit targets the asset lacks.
    #[must_use]
    pub fn arkit_missing_names(&self) -> Vec<&'static str> {
        self.arkit_missing().iter().map(|t| t.name()).collect()
    }

    /// The Oculus visemes the asset has.
    #[must_use]
    pub fn oculus_found(&self) -> Vec<OculusViseme> {
        OculusViseme::ALL
            .into_iter()
            .filter(|&v| !self.oculus(v).is_empty())
            .collect()
    }

    /// Writes own-shape weights (`own[i]` for the targets at `refs[i]`, from [`own_refs`])
    /// into per-mesh morph weights, after [`Self::apply`].
    pub fn apply_own(refs: &[Vec<TargetRef>], own: &[f32], weights: &mut [Vec<f32>]) {
        for (places, &w) in refs.iter().zip(own) {
            for r in places {
                if let Some(slot) = weights.get_mut(r.mesh).and_then(|m| m.get_mut(r.target)) {
                    *slot = w;
                }
            }
        }
    }

    /// Writes a pose into per-mesh morph weights (`weights[mesh][target]`): every mesh that
    /// carries a target gets its weight. Targets the rig does not name are left alone.
    pub fn apply(&self, pose: &Pose, weights: &mut [Vec<f32>]) {
        for target in ArkitTarget::ALL {
            let w = pose.get(target);
            for r in self.arkit(target) {
                if let Some(slot) = weights.get_mut(r.mesh).and_then(|m| m.get_mut(r.target)) {
                    *slot = w;
                }
            }
        }
    }
}

/// Every place each target called exactly one of `names` (its name in the file) lives, in the
/// order of `names`: what the avatar's own shapes are written to.
#[must_use]
pub fn own_refs(meshes: &[Mesh], names: &[String]) -> Vec<Vec<TargetRef>> {
    names
        .iter()
        .map(|name| {
            let mut refs = Vec::new();
            for (m, mesh) in meshes.iter().enumerate() {
                for (t, target) in mesh.target_names.iter().enumerate() {
                    if target.raw.as_deref() != Some(name.as_str()) {
                        continue;
                    }
                    for (p, primitive) in mesh.primitives.iter().enumerate() {
                        if t < primitive.targets.len() {
                            refs.push(TargetRef {
                                mesh: m,
                                primitive: p,
                                target: t,
                            });
                        }
                    }
                }
            }
            refs
        })
        .collect()
}

/// Every target name the meshes carry, as in the file, each once.
#[must_use]
pub fn target_names(meshes: &[Mesh]) -> Vec<String> {
    let mut names: Vec<String> = meshes
        .iter()
        .flat_map(|m| m.target_names.iter().filter_map(|t| t.raw.clone()))
        .collect();
    names.sort();
    names.dedup();
    names
}
