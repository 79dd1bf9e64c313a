//! What VRM files say of their avatar: the humanoid table (`VRMC_vrm` in VRM 1.0:
//! `humanoid.humanBones.hips.node`; `VRM` in VRM 0.x: `humanoid.humanBones[{bone, node}]`), as
//! (VRM 1.0 bone name, node) pairs, and the expressions (the vowels, the blinks) with the
//! morph targets each sets. VRM 0.x names its thumb joints proximal, intermediate, distal where
//! 1.0 says metacarpal, proximal, distal, and its expressions `a`, `blink_l`, ... where 1.0 says
//! `aa`, `blinkLeft`, ...

use std::collections::BTreeMap;

use gltf::json;
use serde_json::Value;

use super::animation::{Clip, Property};
use super::mesh::Mesh;
use super::scene::Node;

/// Whether the file is a VRM 0.x avatar, which faces -Z (Unity's way, as UniVRM exports it)
/// where glTF and VRM 1.0 face +Z.
#[must_use]
pub fn faces_back(root: &json::Root) -> bool {
    root.extensions
        .as_ref()
        .is_some_and(|e| e.others.contains_key("VRM") && !e.others.contains_key("VRMC_vrm"))
}

/// Half a turn about +Y, which turns a VRM 0.x avatar to face +Z.
pub const HALF_TURN: glam::Quat = glam::Quat::from_xyzw(0.0, 1.0, 0.0, 0.0);

/// Turns the scene under `roots` half a turn about +Y: the roots' rest transforms, and the keys
/// of every clip that moves a root (its translation and rotation), so the avatar faces +Z as
/// every other file does. Skinned meshes follow their joints; the file is not changed.
pub fn turn_around(nodes: &mut [Node], roots: &[usize], clips: &mut [Clip]) {
    for &r in roots {
        let t = &mut nodes[r].transform;
        t.translation = HALF_TURN * t.translation;
        t.rotation = HALF_TURN * t.rotation;
    }
    for channel in clips.iter_mut().flat_map(|c| c.channels.iter_mut()) {
        if !roots.contains(&channel.node) {
            continue;
        }
        // Every group of values (tangents too) is turned: both maps are linear.
        let values: Vec<f32> = match channel.property {
            Property::Translation => channel
                .values
                .chunks_exact(3)
                .flat_map(|v| (HALF_TURN * glam::Vec3::from_slice(v)).to_array())
                .collect(),
            Property::Rotation => channel
                .values
                .chunks_exact(4)
                .flat_map(|q| (HALF_TURN * glam::Quat::from_slice(q)).to_array())
                .collect(),
            Property::Scale | Property::Weights => continue,
        };
        channel.values = values.into();
    }
}

/// A VRM file's expressions: preset name (as VRM 1.0 spells it: `aa`, `ih`, `ou`, `ee`,
/// `oh`, `blink`, `blinkLeft`, `blinkRight`, `happy`, ...) -> the targets it sets, by their
/// names in the file, with weights in [0, 1]. Empty for a file that is not a VRM.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VrmExpressions(pub BTreeMap<String, Vec<(String, f32)>>);

impl VrmExpressions {
    /// The targets the preset `name` sets; `None` where it sets none.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&[(String, f32)]> {
        self.0
            .get(name)
            .map(Vec::as_slice)
            .filter(|binds| !binds.is_empty())
    }

    /// Reads them from a file's JSON; binds to a mesh, node or target the file lacks, or to a
    /// target without a name, are left out with a warning.
    pub fn of(root: &json::Root, meshes: &[Mesh], warnings: &mut Vec<String>) -> Self {
        let Some(extensions) = root.extensions.as_ref().map(|e| &e.others) else {
            return Self::default();
        };
        let mut target = |mesh: Option<usize>, index: Option<u64>, expression: &str| {
            let name = mesh
                .and_then(|m| meshes.get(m))
                .zip(index.and_then(|i| usize::try_from(i).ok()))
                .and_then(|(m, i)| m.target_names.get(i))
                .and_then(|t| t.raw.clone());
            if name.is_none() {
                warnings.push(format!(
                    "the VRM expression {expression} sets a morph target the file does not name; left out"
                ));
            }
            name
        };
        let mut out = BTreeMap::new();
        if let Some(presets) = extensions
            .get("VRMC_vrm")
            .and_then(|v| v.pointer("/expressions/preset"))
            .and_then(Value::as_object)
        {
            for (preset, expression) in presets {
                let binds = expression
                    .get("morphTargetBinds")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|bind| {
                        let mesh = bind
                            .get("node")
                            .and_then(Value::as_u64)
                            .and_then(|n| root.nodes.get(usize::try_from(n).ok()?))
                            .and_then(|n| n.mesh)
                            .map(|m| m.value());
                        let name = target(mesh, bind.get("index").and_then(Value::as_u64), preset)?;
                        let weight = bind.get("weight").and_then(Value::as_f64).unwrap_or(1.0);
                        #[allow(clippy::cast_possible_truncation)]
                        Some((name, weight.clamp(0.0, 1.0) as f32))
                    })
                    .collect();
                out.insert(preset.clone(), binds);
            }
        } else if let Some(groups) = extensions
            .get("VRM")
            .and_then(|v| v.pointer("/blendShapeMaster/blendShapeGroups"))
            .and_then(Value::as_array)
        {
            for group in groups {
                let Some(preset) = group
                    .get("presetName")
                    .and_then(Value::as_str)
                    .and_then(vrm0_preset)
                else {
                    continue;
                };
                let binds = group
                    .get("binds")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|bind| {
                        let mesh = bind
                            .get("mesh")
                            .and_then(Value::as_u64)
                            .and_then(|m| usize::try_from(m).ok());
                        let name = target(mesh, bind.get("index").and_then(Value::as_u64), preset)?;
                        // VRM 0.x weighs binds 0-100.
                        let weight = bind.get("weight").and_then(Value::as_f64).unwrap_or(100.0);
                        #[allow(clippy::cast_possible_truncation)]
                        Some((name, (weight / 100.0).clamp(0.0, 1.0) as f32))
                    })
                    .collect();
                out.insert(preset.to_owned(), binds);
            }
        }
        Self(out)
    }
}

/// A VRM 0.x preset name as VRM 1.0 spells it; `None` for `unknown` (a custom expression).
fn vrm0_preset(name: &str) -> Option<&'static str> {
    Some(match name.to_ascii_lowercase().as_str() {
        "a" => "aa",
        "i" => "ih",
        "u" => "ou",
        "e" => "ee",
        "o" => "oh",
        "blink" => "blink",
        "blink_l" => "blinkLeft",
        "blink_r" => "blinkRight",
        "joy" => "happy",
        "angry" => "angry",
        "sorrow" => "sad",
        "fun" => "relaxed",
        "neutral" => "neutral",
        "lookup" => "lookUp",
        "lookdown" => "lookDown",
        "lookleft" => "lookLeft",
        "lookright" => "lookRight",
        _ => return None,
    })
}

/// The VRM humanoid table of a file, when it has one; entries naming a node the file lacks
/// are left out, with a warning.
pub fn humanoid_table(root: &json::Root, warnings: &mut Vec<String>) -> Vec<(String, usize)> {
    let Some(extensions) = root.extensions.as_ref().map(|e| &e.others) else {
        return Vec::new();
    };
    let mut table: Vec<(String, usize)> = Vec::new();
    // VRM 1.0 avatars and VRM animation files (`.vrma`) write the same table.
    if let Some(bones) = ["VRMC_vrm", "VRMC_vrm_animation"]
        .iter()
        .find_map(|e| extensions.get(*e))
        .and_then(|v| v.pointer("/humanoid/humanBones"))
        .and_then(Value::as_object)
    {
        for (bone, entry) in bones {
            if let Some(node) = entry.get("node").and_then(Value::as_u64) {
                table.push((bone.clone(), node as usize));
            }
        }
    } else if let Some(bones) = extensions
        .get("VRM")
        .and_then(|v| v.pointer("/humanoid/humanBones"))
        .and_then(Value::as_array)
    {
        for entry in bones {
            if let (Some(bone), Some(node)) = (
                entry.get("bone").and_then(Value::as_str),
                entry.get("node").and_then(Value::as_u64),
            ) {
                table.push((vrm0_bone(bone), node as usize));
            }
        }
    }
    let nodes = root.nodes.len();
    table.retain(|(bone, node)| {
        let ok = *node < nodes;
        if !ok {
            warnings.push(format!(
                "the VRM humanoid table puts {bone} on node {node}, which the file does not have"
            ));
        }
        ok
    });
    table
}

/// A VRM 0.x bone name as VRM 1.0 names it.
fn vrm0_bone(name: &str) -> String {
    for side in ["left", "right"] {
        for (old, new) in [
            ("ThumbProximal", "ThumbMetacarpal"),
            ("ThumbIntermediate", "ThumbProximal"),
        ] {
            if name == format!("{side}{old}") {
                return format!("{side}{new}");
            }
        }
    }
    name.to_owned()
}
