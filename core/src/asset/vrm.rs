//! The humanoid table VRM files carry: `VRMC_vrm` (VRM 1.0: `humanoid.humanBones.hips.node`)
//! or `VRM` (VRM 0.x: `humanoid.humanBones[{bone, node}]`), as (VRM 1.0 bone name, node)
//! pairs. VRM 0.x names its thumb joints proximal, intermediate, distal where 1.0 says
//! metacarpal, proximal, distal.

use gltf::json;
use serde_json::Value;

/// The VRM humanoid table of a file, when it has one; entries naming a node the file lacks
/// are left out, with a warning.
pub fn humanoid_table(root: &json::Root, warnings: &mut Vec<String>) -> Vec<(String, usize)> {
    let Some(extensions) = root.extensions.as_ref().map(|e| &e.others) else {
        return Vec::new();
    };
    let mut table: Vec<(String, usize)> = Vec::new();
    if let Some(bones) = extensions
        .get("VRMC_vrm")
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
