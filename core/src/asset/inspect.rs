//! What `npc-player inspect` reports about an asset, as data (JSON) and as text.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use super::load::Asset;
use crate::arkit::{ARKIT_TARGET_COUNT, CanonicalTarget};
use crate::body::humanoid::{CORE_BONES, FINGERS, HumanoidBone};
use crate::body::{HumanoidMap, RestPose, Skeleton};

/// The inspection report.
#[derive(Clone, Debug, Serialize)]
pub struct Inspection {
    pub meshes: Vec<MeshReport>,
    /// Canonical names where the file's names normalise, else the file's names; unnamed
    /// targets are left out. Each name once.
    pub target_names: Vec<String>,
    pub arkit_coverage: usize,
    pub arkit_missing: Vec<&'static str>,
    pub oculus_visemes: Vec<&'static str>,
    /// A VRM file's expressions that set targets: preset -> (target, weight) pairs.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub vrm_expressions: BTreeMap<String, Vec<(String, f32)>>,
    pub skins: Vec<SkinReport>,
    pub humanoid: HumanoidReport,
    pub clips: Vec<ClipReport>,
    /// Total instances of meshes placed more than once (0 if none).
    pub instances: usize,
    pub instance_groups: Vec<InstanceReport>,
    pub extensions_used: Vec<String>,
    pub extensions_required: Vec<String>,
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct MeshReport {
    pub name: Option<String>,
    pub primitives: Vec<PrimitiveReport>,
    pub targets: Vec<TargetReport>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PrimitiveReport {
    pub vertices: usize,
    pub triangles: usize,
    pub targets: usize,
    pub skinned: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct TargetReport {
    pub name: Option<String>,
    pub canonical: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SkinReport {
    pub joints: usize,
    pub joint_names: Vec<String>,
}

/// The humanoid bones found on the node tree.
#[derive(Clone, Debug, Serialize)]
pub struct HumanoidReport {
    /// Each bone found (VRM 1.0 name) and the joint it is.
    pub bones: BTreeMap<&'static str, String>,
    /// Body bones (not fingers) the rig lacks.
    pub missing: Vec<&'static str>,
    /// Core bones (see `npc_core::body::humanoid::CORE_BONES`) the rig lacks: without them
    /// the body cannot stand and breathe as a person.
    pub missing_core: Vec<&'static str>,
    pub rest: RestPose,
    /// Height of what is drawn in the rest pose, metres.
    pub height_m: Option<f32>,
}

impl HumanoidReport {
    #[must_use]
    pub fn of(asset: &Asset) -> Self {
        let skeleton = Skeleton::of(asset);
        let map = HumanoidMap::of(&skeleton);
        let fingers: Vec<HumanoidBone> = FINGERS.iter().flatten().flatten().copied().collect();
        let body: Vec<HumanoidBone> = HumanoidBone::all()
            .filter(|b| !fingers.contains(b))
            .collect();
        Self {
            bones: map
                .bones()
                .iter()
                .map(|&(b, j)| (b.name(), skeleton.names[j].clone()))
                .collect(),
            missing: map
                .missing(&body)
                .into_iter()
                .map(HumanoidBone::name)
                .collect(),
            missing_core: map
                .missing(&CORE_BONES)
                .into_iter()
                .map(HumanoidBone::name)
                .collect(),
            rest: map.rest,
            height_m: asset.rest_height(),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct ClipReport {
    pub name: String,
    pub duration_s: f32,
}

#[derive(Clone, Debug, Serialize)]
pub struct InstanceReport {
    pub mesh: usize,
    pub count: usize,
}

fn canonical_name(c: CanonicalTarget) -> &'static str {
    match c {
        CanonicalTarget::Arkit(a) => a.name(),
        CanonicalTarget::Oculus(o) => o.name(),
    }
}

impl Inspection {
    #[must_use]
    pub fn of(asset: &Asset) -> Self {
        let mut target_names: Vec<String> = Vec::new();
        let meshes = asset
            .meshes
            .iter()
            .map(|mesh| {
                let targets: Vec<TargetReport> = mesh
                    .target_names
                    .iter()
                    .map(|t| TargetReport {
                        name: t.raw.clone(),
                        canonical: t.canonical.map(|c| canonical_name(c).to_owned()),
                    })
                    .collect();
                for t in &targets {
                    if let Some(name) = t.canonical.as_ref().or(t.name.as_ref())
                        && !target_names.contains(name)
                    {
                        target_names.push(name.clone());
                    }
                }
                MeshReport {
                    name: mesh.name.clone(),
                    primitives: mesh
                        .primitives
                        .iter()
                        .map(|p| PrimitiveReport {
                            vertices: p.positions.len(),
                            triangles: p.indices.len() / 3,
                            targets: p.targets.len(),
                            skinned: !p.joints.is_empty(),
                        })
                        .collect(),
                    targets,
                }
            })
            .collect();
        Self {
            meshes,
            target_names,
            arkit_coverage: asset.face_rig.arkit_coverage(),
            arkit_missing: asset.face_rig.arkit_missing_names(),
            oculus_visemes: asset
                .face_rig
                .oculus_found()
                .iter()
                .map(|v| v.name())
                .collect(),
            vrm_expressions: asset
                .vrm_expressions
                .0
                .iter()
                .filter(|(_, binds)| !binds.is_empty())
                .map(|(preset, binds)| (preset.clone(), binds.clone()))
                .collect(),
            skins: asset
                .skins
                .iter()
                .map(|s| SkinReport {
                    joints: s.joints.len(),
                    joint_names: s.joint_names.clone(),
                })
                .collect(),
            humanoid: HumanoidReport::of(asset),
            clips: asset
                .clips
                .iter()
                .map(|c| ClipReport {
                    name: c.name.clone(),
                    duration_s: c.duration_s,
                })
                .collect(),
            instances: asset.repeated_instances(),
            instance_groups: asset
                .instances
                .iter()
                .map(|g| InstanceReport {
                    mesh: g.mesh,
                    count: g.transforms.len(),
                })
                .collect(),
            extensions_used: asset.extensions_used.clone(),
            extensions_required: asset.extensions_required.clone(),
            warnings: asset.warnings.clone(),
        }
    }

    /// A readable multi-line summary; `verbose` lists every joint of every skin (otherwise
    /// each skin is summed up: its joint count and the humanoid bones found among them).
    #[must_use]
    pub fn to_text(&self, verbose: bool) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "meshes: {}", self.meshes.len());
        for (i, mesh) in self.meshes.iter().enumerate() {
            let _ = writeln!(
                out,
                "  mesh {i} {}: {} primitive(s)",
                mesh.name.as_deref().unwrap_or("(unnamed)"),
                mesh.primitives.len()
            );
            for (p, prim) in mesh.primitives.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "    primitive {p}: {} vertices, {} triangles, {} targets{}",
                    prim.vertices,
                    prim.triangles,
                    prim.targets,
                    if prim.skinned { ", skinned" } else { "" }
                );
            }
            if !mesh.targets.is_empty() {
                let names: Vec<String> = mesh
                    .targets
                    .iter()
                    .enumerate()
                    .map(|(t, target)| match (&target.name, &target.canonical) {
                        (Some(raw), Some(c)) if raw != c => format!("{raw} -> {c}"),
                        (_, Some(c)) => c.clone(),
                        (Some(raw), None) => raw.clone(),
                        (None, None) => format!("#{t}"),
                    })
                    .collect();
                let _ = writeln!(out, "    targets: {}", names.join(", "));
            }
        }
        let _ = writeln!(
            out,
            "ARKit coverage: {}/{ARKIT_TARGET_COUNT}",
            self.arkit_coverage
        );
        if self.arkit_coverage > 0 && !self.arkit_missing.is_empty() {
            let _ = writeln!(out, "  missing: {}", self.arkit_missing.join(", "));
        }
        let _ = writeln!(
            out,
            "Oculus visemes: {}",
            if self.oculus_visemes.is_empty() {
                "none".to_owned()
            } else {
                format!(
                    "{} ({})",
                    self.oculus_visemes.len(),
                    self.oculus_visemes.join(", ")
                )
            }
        );
        if !self.vrm_expressions.is_empty() {
            let listed: Vec<String> = self
                .vrm_expressions
                .iter()
                .map(|(preset, binds)| {
                    let targets: Vec<String> = binds
                        .iter()
                        .map(|(name, w)| {
                            if (*w - 1.0).abs() < 1e-6 {
                                name.clone()
                            } else {
                                format!("{name} x{w:.2}")
                            }
                        })
                        .collect();
                    format!("{preset} -> {}", targets.join(" + "))
                })
                .collect();
            let _ = writeln!(out, "VRM expressions: {}", listed.join(", "));
        }
        let _ = writeln!(out, "skins: {}", self.skins.len());
        for (i, skin) in self.skins.iter().enumerate() {
            if verbose {
                let _ = writeln!(
                    out,
                    "  skin {i}: {} joints: {}",
                    skin.joints,
                    skin.joint_names.join(", ")
                );
                continue;
            }
            let _ = writeln!(out, "  skin {i}: {} joints", skin.joints);
        }
        if !verbose && !self.skins.is_empty() {
            let _ = writeln!(out, "  (--verbose lists every joint; --json has them too)");
        }
        let humanoid = &self.humanoid;
        let _ = writeln!(
            out,
            "humanoid: {} bones, rest pose {}, height {}",
            humanoid.bones.len(),
            match humanoid.rest {
                RestPose::T => "T",
                RestPose::A => "A",
                RestPose::Other => "other",
            },
            humanoid
                .height_m
                .map_or_else(|| "unknown".to_owned(), |h| format!("{h:.2} m"))
        );
        if !humanoid.missing_core.is_empty() {
            let _ = writeln!(
                out,
                "  missing core bones: {}",
                humanoid.missing_core.join(", ")
            );
        }
        if !humanoid.missing.is_empty() {
            let _ = writeln!(out, "  missing: {}", humanoid.missing.join(", "));
        }
        let _ = writeln!(out, "clips: {}", self.clips.len());
        for clip in &self.clips {
            let _ = writeln!(out, "  {}: {:.3} s", clip.name, clip.duration_s);
        }
        let _ = writeln!(out, "instances of repeated meshes: {}", self.instances);
        for group in self.instance_groups.iter().filter(|g| g.count > 1) {
            let _ = writeln!(out, "  mesh {}: {} instances", group.mesh, group.count);
        }
        let _ = writeln!(out, "extensions used: {}", list(&self.extensions_used));
        let _ = writeln!(
            out,
            "extensions required: {}",
            list(&self.extensions_required)
        );
        for warning in &self.warnings {
            let _ = writeln!(out, "warning: {warning}");
        }
        out
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}
