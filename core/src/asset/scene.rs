//! The node hierarchy and instancing: which meshes stand where, each unique mesh once with
//! one transform per instance.

use glam::Mat4;
use gltf::json;

use super::accessor::Reader;
use super::error::{AssetError, Result};
use super::transform::Transform;

/// Deepest node hierarchy accepted (also stops cycles).
pub const MAX_DEPTH: usize = 256;

/// One node of the scene graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub name: Option<String>,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// Rest transform relative to the parent.
    pub transform: Transform,
    pub mesh: Option<usize>,
    pub skin: Option<usize>,
    /// EXT_mesh_gpu_instancing: per-instance transforms relative to this node.
    pub gpu_instances: Vec<Transform>,
}

impl Node {
    /// A root node showing `mesh` where it was modelled (no parent, children, skin or
    /// instances), named `name`.
    #[must_use]
    pub fn showing(name: &str, mesh: usize) -> Self {
        Self {
            name: Some(name.to_owned()),
            parent: None,
            children: Vec::new(),
            transform: Transform::IDENTITY,
            mesh: Some(mesh),
            skin: None,
            gpu_instances: Vec::new(),
        }
    }
}

/// Every placement of one mesh in the scene.
#[derive(Clone, Debug, PartialEq)]
pub struct InstanceGroup {
    pub mesh: usize,
    /// Skin of the placing node (skinned meshes are placed by their joints).
    pub skin: Option<usize>,
    /// World transform of each instance.
    pub transforms: Vec<Mat4>,
    /// The node that placed each instance.
    pub nodes: Vec<usize>,
}

/// Reads the nodes, checking every reference and that the graph is a forest.
pub fn read_nodes(reader: &Reader<'_>, warnings: &mut Vec<String>) -> Result<Vec<Node>> {
    let root = reader.root;
    let count = root.nodes.len();
    let mut nodes: Vec<Node> = Vec::with_capacity(count);
    for (i, n) in root.nodes.iter().enumerate() {
        let transform = match n.matrix {
            Some(m) => Transform::from_mat4(&Mat4::from_cols_array(&m)),
            None => {
                let mut t = Transform {
                    translation: n.translation.map_or(glam::Vec3::ZERO, glam::Vec3::from),
                    rotation: n
                        .rotation
                        .map_or(glam::Quat::IDENTITY, |q| glam::Quat::from_array(q.0)),
                    scale: n.scale.map_or(glam::Vec3::ONE, glam::Vec3::from),
                };
                t.sanitise();
                t
            }
        };
        let children: Vec<usize> = n.children.iter().flatten().map(|c| c.value()).collect();
        if let Some(&bad) = children.iter().find(|&&c| c >= count) {
            return Err(AssetError::IndexOutOfRange {
                what: "node",
                index: bad,
            });
        }
        let mesh = n.mesh.map(|m| m.value());
        if let Some(m) = mesh.filter(|&m| m >= root.meshes.len()) {
            return Err(AssetError::IndexOutOfRange {
                what: "mesh",
                index: m,
            });
        }
        let skin = n.skin.map(|s| s.value());
        if let Some(s) = skin.filter(|&s| s >= root.skins.len()) {
            return Err(AssetError::IndexOutOfRange {
                what: "skin",
                index: s,
            });
        }
        let gpu_instances = read_gpu_instances(reader, i, n, warnings)?;
        nodes.push(Node {
            name: n.name.clone(),
            parent: None,
            children,
            transform,
            mesh,
            skin,
            gpu_instances,
        });
    }
    for i in 0..count {
        for c in nodes[i].children.clone() {
            if nodes[c].parent.is_some() || c == i {
                return Err(AssetError::BadHierarchy {
                    node: c,
                    max: MAX_DEPTH,
                });
            }
            nodes[c].parent = Some(i);
        }
    }
    // A forest has no cycles: walk up from every node.
    for start in 0..count {
        let mut at = start;
        let mut depth = 0;
        while let Some(p) = nodes[at].parent {
            depth += 1;
            if depth > MAX_DEPTH {
                return Err(AssetError::BadHierarchy {
                    node: start,
                    max: MAX_DEPTH,
                });
            }
            at = p;
        }
    }
    Ok(nodes)
}

fn read_gpu_instances(
    reader: &Reader<'_>,
    node: usize,
    n: &json::Node,
    warnings: &mut Vec<String>,
) -> Result<Vec<Transform>> {
    let Some(ext) = n
        .extensions
        .as_ref()
        .and_then(|e| e.others.get("EXT_mesh_gpu_instancing"))
    else {
        return Ok(Vec::new());
    };
    let Some(attributes) = ext.get("attributes").and_then(|a| a.as_object()) else {
        warnings.push(format!(
            "node {node}: EXT_mesh_gpu_instancing without attributes"
        ));
        return Ok(Vec::new());
    };
    let accessor = |name: &str| {
        attributes
            .get(name)
            .and_then(serde_json::Value::as_u64)
            .and_then(|v| usize::try_from(v).ok())
    };
    let translations = accessor("TRANSLATION")
        .map(|a| reader.vec3(a, "instance translations"))
        .transpose()?;
    let rotations = accessor("ROTATION")
        .map(|a| reader.vec4(a, "instance rotations"))
        .transpose()?;
    let scales = accessor("SCALE")
        .map(|a| reader.vec3(a, "instance scales"))
        .transpose()?;
    let count = [
        translations.as_ref().map(Vec::len),
        rotations.as_ref().map(Vec::len),
        scales.as_ref().map(Vec::len),
    ]
    .into_iter()
    .flatten()
    .max()
    .unwrap_or(0);
    Ok((0..count)
        .map(|i| {
            let mut t = Transform {
                translation: translations
                    .as_ref()
                    .and_then(|v| v.get(i))
                    .map_or(glam::Vec3::ZERO, |&v| glam::Vec3::from(v)),
                rotation: rotations
                    .as_ref()
                    .and_then(|v| v.get(i))
                    .map_or(glam::Quat::IDENTITY, |&q| glam::Quat::from_array(q)),
                scale: scales
                    .as_ref()
                    .and_then(|v| v.get(i))
                    .map_or(glam::Vec3::ONE, |&v| glam::Vec3::from(v)),
            };
            t.sanitise();
            t
        })
        .collect())
}

/// World matrices of every node from local transforms (one per node).
#[must_use]
pub fn world_transforms(nodes: &[Node], locals: &[Transform]) -> Vec<Mat4> {
    let mut world = vec![Mat4::IDENTITY; nodes.len()];
    let mut done = vec![false; nodes.len()];
    for start in 0..nodes.len() {
        world_of(start, nodes, locals, &mut world, &mut done);
    }
    world
}

fn world_of(
    i: usize,
    nodes: &[Node],
    locals: &[Transform],
    world: &mut [Mat4],
    done: &mut [bool],
) -> Mat4 {
    if done[i] {
        return world[i];
    }
    let local = locals.get(i).map_or(Mat4::IDENTITY, Transform::to_mat4);
    // read_nodes guarantees a forest of bounded depth, so this recursion ends.
    let m = match nodes[i].parent {
        Some(p) => world_of(p, nodes, locals, world, done) * local,
        None => local,
    };
    world[i] = m;
    done[i] = true;
    m
}

/// The nodes of the chosen scene (or every root node when the file names no scene), in order.
#[must_use]
pub fn scene_roots(root: &json::Root, nodes: &[Node]) -> Vec<usize> {
    let chosen = root.scene.map(|s| s.value()).or(if root.scenes.is_empty() {
        None
    } else {
        Some(0)
    });
    match chosen.and_then(|s| root.scenes.get(s)) {
        Some(scene) => scene
            .nodes
            .iter()
            .map(|n| n.value())
            .filter(|&n| n < nodes.len() && nodes[n].parent.is_none())
            .collect(),
        None => (0..nodes.len())
            .filter(|&n| nodes[n].parent.is_none())
            .collect(),
    }
}

/// Groups every placement of every mesh under `roots`: one group per mesh, one world
/// transform per instance (node placements and EXT_mesh_gpu_instancing alike).
#[must_use]
pub fn instance_groups(nodes: &[Node], roots: &[usize]) -> Vec<InstanceGroup> {
    let locals: Vec<Transform> = nodes.iter().map(|n| n.transform).collect();
    let world = world_transforms(nodes, &locals);
    let mut groups: Vec<InstanceGroup> = Vec::new();
    let mut stack: Vec<usize> = roots.iter().rev().copied().collect();
    while let Some(i) = stack.pop() {
        let node = &nodes[i];
        if let Some(mesh) = node.mesh {
            let group = match groups
                .iter()
                .position(|g| g.mesh == mesh && g.skin == node.skin)
            {
                Some(g) => &mut groups[g],
                None => {
                    groups.push(InstanceGroup {
                        mesh,
                        skin: node.skin,
                        transforms: Vec::new(),
                        nodes: Vec::new(),
                    });
                    let last = groups.len() - 1;
                    &mut groups[last]
                }
            };
            if node.gpu_instances.is_empty() {
                group.transforms.push(world[i]);
                group.nodes.push(i);
            } else {
                for instance in &node.gpu_instances {
                    group.transforms.push(world[i] * instance.to_mat4());
                    group.nodes.push(i);
                }
            }
        }
        stack.extend(node.children.iter().rev());
    }
    groups
}
