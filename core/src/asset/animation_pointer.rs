//! Animation channels the player can use, made so before the document is parsed: a channel
//! that animates through `KHR_animation_pointer` (what newer Ready Player Me and three.js
//! exports write) becomes an ordinary channel when its pointer names a node's translation,
//! rotation, scale or morph weights (a mesh's weights go to every node that shows the mesh);
//! any other channel without a node (a material's colour, a camera, a light) is skipped, and
//! one warning names what was skipped. The rest of the file loads as it is.

use serde_json::{Value, json};

/// The extension whose channels are resolved here.
pub const ANIMATION_POINTER: &str = "KHR_animation_pointer";

/// Rewrites the animations of `doc` in place; the warning, when channels were skipped.
pub(super) fn resolve(doc: &mut Value) -> Option<String> {
    let mesh_nodes = mesh_nodes(doc);
    let animations = doc.get_mut("animations").and_then(Value::as_array_mut)?;
    let mut skipped: Vec<String> = Vec::new();
    for (a, animation) in animations.iter_mut().enumerate() {
        let name = animation
            .get("name")
            .and_then(Value::as_str)
            .map_or_else(|| format!("animation {a}"), |n| format!("animation '{n}'"));
        let Some(channels) = animation.get_mut("channels").and_then(Value::as_array_mut) else {
            continue;
        };
        let mut kept = Vec::with_capacity(channels.len());
        for channel in channels.drain(..) {
            match usable(&channel, &mesh_nodes) {
                Usable::AsIs => kept.push(channel),
                Usable::On(targets) => {
                    for (node, path) in targets {
                        let mut resolved = channel.clone();
                        resolved["target"] = json!({"node": node, "path": path});
                        kept.push(resolved);
                    }
                }
                Usable::No(what) => skipped.push(format!("{name}: {what}")),
            }
        }
        *channels = kept;
    }
    if skipped.is_empty() {
        return None;
    }
    let shown: Vec<&str> = skipped.iter().take(3).map(String::as_str).collect();
    let more = skipped.len().saturating_sub(shown.len());
    Some(format!(
        "{} animation channel(s) animate what the player does not play and are skipped ({}{})",
        skipped.len(),
        shown.join("; "),
        if more > 0 {
            format!("; and {more} more")
        } else {
            String::new()
        }
    ))
}

/// What becomes of one channel.
#[derive(Debug, PartialEq)]
enum Usable {
    /// An ordinary channel.
    AsIs,
    /// A pointer channel that animates these nodes' properties.
    On(Vec<(u64, &'static str)>),
    /// Skipped: what it animates.
    No(String),
}

fn usable(channel: &Value, mesh_nodes: &[Vec<u64>]) -> Usable {
    let target = channel.get("target");
    if target.and_then(|t| t.get("node")).is_some() {
        return Usable::AsIs;
    }
    let pointer = target
        .and_then(|t| t.pointer(&format!("/extensions/{ANIMATION_POINTER}/pointer")))
        .and_then(Value::as_str);
    let Some(pointer) = pointer else {
        return Usable::No("a channel without a node".to_owned());
    };
    let parts: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
    let property = |p: &str| match p {
        "translation" => Some("translation"),
        "rotation" => Some("rotation"),
        "scale" => Some("scale"),
        "weights" => Some("weights"),
        _ => None,
    };
    let index = |i: &str| i.parse::<u64>().ok();
    match parts.as_slice() {
        ["nodes", n, p] => match (index(n), property(p)) {
            (Some(node), Some(path)) => Usable::On(vec![(node, path)]),
            _ => Usable::No(pointer.to_owned()),
        },
        ["meshes", m, "weights"] => {
            let nodes = index(m)
                .and_then(|m| usize::try_from(m).ok())
                .and_then(|m| mesh_nodes.get(m))
                .filter(|nodes| !nodes.is_empty());
            match nodes {
                Some(nodes) => Usable::On(nodes.iter().map(|&n| (n, "weights")).collect()),
                None => Usable::No(format!("{pointer} (no node shows that mesh)")),
            }
        }
        _ => Usable::No(pointer.to_owned()),
    }
}

/// The nodes that show each mesh, by mesh index.
fn mesh_nodes(doc: &Value) -> Vec<Vec<u64>> {
    let mut by_mesh: Vec<Vec<u64>> = Vec::new();
    let nodes = doc.get("nodes").and_then(Value::as_array);
    for (n, node) in nodes.into_iter().flatten().enumerate() {
        let Some(mesh) = node
            .get("mesh")
            .and_then(Value::as_u64)
            .and_then(|m| usize::try_from(m).ok())
        else {
            continue;
        };
        if mesh >= by_mesh.len() {
            by_mesh.resize(mesh + 1, Vec::new());
        }
        by_mesh[mesh].push(n as u64);
    }
    by_mesh
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(channels: Value) -> Value {
        json!({
            "nodes": [{"name": "hips"}, {"name": "face", "mesh": 0}, {"name": "face2", "mesh": 0}],
            "animations": [{"name": "idle", "samplers": [], "channels": channels}]
        })
    }

    fn pointer(p: &str) -> Value {
        json!({"sampler": 0, "target": {"path": "pointer",
            "extensions": {"KHR_animation_pointer": {"pointer": p}}}})
    }

    #[test]
    fn node_and_morph_pointers_become_channels_and_the_rest_is_skipped_with_a_warning() {
        let mut d = doc(json!([
            {"sampler": 0, "target": {"node": 0, "path": "translation"}},
            pointer("/nodes/0/rotation"),
            pointer("/meshes/0/weights"),
            pointer("/materials/0/pbrMetallicRoughness/baseColorFactor"),
            {"sampler": 0, "target": {"path": "rotation"}},
        ]));
        let warning = resolve(&mut d).expect("a warning");
        let targets: Vec<&Value> = d["animations"][0]["channels"]
            .as_array()
            .expect("channels")
            .iter()
            .map(|c| &c["target"])
            .collect();
        assert_eq!(
            targets,
            [
                &json!({"node": 0, "path": "translation"}),
                &json!({"node": 0, "path": "rotation"}),
                &json!({"node": 1, "path": "weights"}),
                &json!({"node": 2, "path": "weights"}),
            ]
        );
        assert!(warning.starts_with("2 animation channel(s)"), "{warning}");
        assert!(
            warning.contains("animation 'idle': /materials/0/pbrMetallicRoughness/baseColorFactor"),
            "{warning}"
        );
        assert!(warning.contains("a channel without a node"), "{warning}");
    }

    #[test]
    fn a_document_of_ordinary_channels_is_left_alone() {
        let mut d = doc(json!([{"sampler": 0, "target": {"node": 1, "path": "weights"}}]));
        let before = d.clone();
        assert_eq!(resolve(&mut d), None);
        assert_eq!(d, before);
    }
}
