//! What VRM files say of their swinging parts (hair, skirts, tails, accessories): chains of
//! joints that trail the body's motion, and the colliders (spheres, capsules on the head, arms
//! and body) they may not pass into. VRM 1.0 writes them in `VRMC_springBone` (each chain's
//! joints listed, the last one its tip); VRM 0.x in `VRM.secondaryAnimation` (bone groups whose
//! roots each start a chain through all their descendants). The simulation is
//! `crate::body::spring`.

use glam::Vec3;
use serde_json::Value;

/// A chain of joints swinging as one, with the settings of each joint.
#[derive(Clone, Debug, PartialEq)]
pub struct SpringChain {
    pub name: String,
    /// Root first. Each joint turns toward where its tail (the next joint, or for the last one
    /// of a VRM 0.x chain a point past its end) has swung.
    pub joints: Vec<SpringJoint>,
    /// VRM 1.0's chains end in a tip joint that is not turned itself (it is the last
    /// joint's tail); VRM 0.x's end in a point 7 cm past the last joint.
    pub tip: SpringTip,
    /// The collider groups (indices into [`SpringBones::groups`]) its joints keep out of.
    pub collider_groups: Vec<usize>,
}

/// Where a chain's last turned joint points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpringTip {
    /// At this node (VRM 1.0: the list's last joint).
    Node(usize),
    /// Past the last joint, along the bone toward it from its parent, this far (VRM 0.x).
    Extend(f32),
}

/// One joint of a chain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringJoint {
    pub node: usize,
    /// The radius of the joint's tail, kept off the colliders, metres.
    pub hit_radius: f32,
    /// How strongly it returns to its rest direction.
    pub stiffness: f32,
    /// Gravity's pull and direction (world).
    pub gravity_power: f32,
    pub gravity_dir: Vec3,
    /// How much of its motion it loses each step (0-1).
    pub drag: f32,
}

/// A collider's shape, in its node's space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ColliderShape {
    Sphere {
        offset: Vec3,
        radius: f32,
    },
    Capsule {
        offset: Vec3,
        tail: Vec3,
        radius: f32,
    },
}

/// A collider on a node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringCollider {
    pub node: usize,
    pub shape: ColliderShape,
}

/// An avatar's spring bones.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpringBones {
    pub chains: Vec<SpringChain>,
    pub colliders: Vec<SpringCollider>,
    /// Collider groups: indices into `colliders`.
    pub groups: Vec<Vec<usize>>,
}

/// How far past the last joint of a VRM 0.x chain its tail is, metres (as UniVRM does).
const VRM0_TIP_M: f32 = 0.07;

impl SpringBones {
    /// The spring bones `extensions` (the file's root extensions) describe, for a file of
    /// `node_count` nodes with `children` per node. A joint or collider naming a node the file
    /// does not have is left out with a warning.
    #[must_use]
    pub fn of(
        extensions: &serde_json::Map<String, Value>,
        children: &[Vec<usize>],
        warnings: &mut Vec<String>,
    ) -> Self {
        if let Some(v) = extensions.get("VRMC_springBone") {
            Self::vrm1(v, children.len(), warnings)
        } else if let Some(v) = extensions
            .get("VRM")
            .and_then(|v| v.get("secondaryAnimation"))
        {
            Self::vrm0(v, children, warnings)
        } else {
            Self::default()
        }
    }

    /// Whether there is anything to simulate.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.chains.is_empty()
    }

    /// Every joint in every chain.
    #[must_use]
    pub fn joint_count(&self) -> usize {
        self.chains.iter().map(|c| c.joints.len()).sum()
    }

    fn vrm1(v: &Value, nodes: usize, warnings: &mut Vec<String>) -> Self {
        let node_of = |v: &Value, what: &str, warnings: &mut Vec<String>| {
            let node = v.get("node").and_then(Value::as_u64).map(|n| n as usize);
            match node {
                Some(n) if n < nodes => Some(n),
                _ => {
                    warnings.push(format!(
                        "VRMC_springBone: a {what} names no node of the file; left out"
                    ));
                    None
                }
            }
        };
        let mut colliders = Vec::new();
        // The file's collider indices, to ours (a bad one is left out).
        let mut kept = Vec::new();
        for c in array(v, "colliders") {
            let shape = c.get("shape").and_then(|s| {
                if let Some(s) = s.get("sphere") {
                    Some(ColliderShape::Sphere {
                        offset: vec3(s.get("offset"), Vec3::ZERO),
                        radius: number(s, "radius", 0.0).max(0.0),
                    })
                } else {
                    s.get("capsule").map(|s| ColliderShape::Capsule {
                        offset: vec3(s.get("offset"), Vec3::ZERO),
                        tail: vec3(s.get("tail"), Vec3::ZERO),
                        radius: number(s, "radius", 0.0).max(0.0),
                    })
                }
            });
            match (node_of(c, "collider", warnings), shape) {
                (Some(node), Some(shape)) => {
                    kept.push(Some(colliders.len()));
                    colliders.push(SpringCollider { node, shape });
                }
                _ => kept.push(None),
            }
        }
        let groups: Vec<Vec<usize>> = array(v, "colliderGroups")
            .iter()
            .map(|g| {
                indices(g.get("colliders"))
                    .filter_map(|i| kept.get(i).copied().flatten())
                    .collect()
            })
            .collect();
        let mut chains = Vec::new();
        for (i, s) in array(v, "springs").iter().enumerate() {
            let mut joints: Vec<SpringJoint> = array(s, "joints")
                .iter()
                .filter_map(|j| {
                    Some(SpringJoint {
                        node: node_of(j, "spring joint", warnings)?,
                        hit_radius: number(j, "hitRadius", 0.0).max(0.0),
                        stiffness: number(j, "stiffness", 1.0).max(0.0),
                        gravity_power: number(j, "gravityPower", 0.0).max(0.0),
                        gravity_dir: vec3(j.get("gravityDir"), Vec3::NEG_Y)
                            .normalize_or(Vec3::NEG_Y),
                        drag: number(j, "dragForce", 0.5).clamp(0.0, 1.0),
                    })
                })
                .collect();
            // The last joint is the tip: it gives the one before it its direction.
            let Some(tip) = joints.pop() else { continue };
            if joints.is_empty() {
                continue;
            }
            chains.push(SpringChain {
                name: s
                    .get("name")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("spring {i}"), str::to_owned),
                joints,
                tip: SpringTip::Node(tip.node),
                collider_groups: indices(s.get("colliderGroups"))
                    .filter(|&g| g < groups.len())
                    .collect(),
            });
        }
        Self {
            chains,
            colliders,
            groups,
        }
    }

    fn vrm0(v: &Value, children: &[Vec<usize>], warnings: &mut Vec<String>) -> Self {
        let nodes = children.len();
        let mut colliders = Vec::new();
        let mut groups = Vec::new();
        for g in array(v, "colliderGroups") {
            let node = g.get("node").and_then(Value::as_u64).map(|n| n as usize);
            let Some(node) = node.filter(|&n| n < nodes) else {
                warnings.push(
                    "VRM secondaryAnimation: a collider group names no node of the file; left out"
                        .to_owned(),
                );
                groups.push(Vec::new());
                continue;
            };
            let mut group = Vec::new();
            for c in array(g, "colliders") {
                // VRM 0.x wrote offsets in Unity's left-handed space: z is reversed.
                let o = vec3(c.get("offset"), Vec3::ZERO);
                group.push(colliders.len());
                colliders.push(SpringCollider {
                    node,
                    shape: ColliderShape::Sphere {
                        offset: Vec3::new(o.x, o.y, -o.z),
                        radius: number(c, "radius", 0.0).max(0.0),
                    },
                });
            }
            groups.push(group);
        }
        let mut chains = Vec::new();
        for (i, g) in array(v, "boneGroups").iter().enumerate() {
            let dir = vec3(g.get("gravityDir"), Vec3::NEG_Y);
            let settings = SpringJoint {
                node: 0,
                hit_radius: number(g, "hitRadius", 0.02).max(0.0),
                // (sic: VRM 0.x spells it so.)
                stiffness: number(g, "stiffiness", 1.0).max(0.0),
                gravity_power: number(g, "gravityPower", 0.0).max(0.0),
                gravity_dir: Vec3::new(dir.x, dir.y, -dir.z).normalize_or(Vec3::NEG_Y),
                drag: number(g, "dragForce", 0.4).clamp(0.0, 1.0),
            };
            let collider_groups: Vec<usize> = indices(g.get("colliderGroups"))
                .filter(|&c| c < groups.len())
                .collect();
            let comment = g.get("comment").and_then(Value::as_str).unwrap_or("");
            for root in indices(g.get("bones")) {
                if root >= nodes {
                    warnings.push(format!(
                        "VRM secondaryAnimation: bone group {i} names no node of the file; left out"
                    ));
                    continue;
                }
                let name = if comment.is_empty() {
                    format!("bone group {i}")
                } else {
                    comment.to_owned()
                };
                chains.extend(chains_down(
                    &name,
                    root,
                    settings,
                    &collider_groups,
                    children,
                ));
            }
        }
        share_no_joint(&mut chains);
        Self {
            chains,
            colliders,
            groups,
        }
    }
}

/// A chain for each path from `root` down to a leaf (a branching root, a skirt's ring, gives
/// several), each joint with `settings`, ending 7 cm past its last joint as VRM 0.x's do.
pub(crate) fn chains_down(
    name: &str,
    root: usize,
    settings: SpringJoint,
    collider_groups: &[usize],
    children: &[Vec<usize>],
) -> Vec<SpringChain> {
    paths_down(root, children)
        .into_iter()
        .map(|path| SpringChain {
            name: name.to_owned(),
            joints: path
                .into_iter()
                .map(|node| SpringJoint { node, ..settings })
                .collect(),
            tip: SpringTip::Extend(VRM0_TIP_M),
            collider_groups: collider_groups.to_vec(),
        })
        .collect()
}

/// Paths through a shared joint would move it twice: only its first chain keeps it (chains
/// left with no joint are dropped).
pub(crate) fn share_no_joint(chains: &mut Vec<SpringChain>) {
    let mut seen = std::collections::HashSet::new();
    for chain in chains.iter_mut() {
        let first_new = chain
            .joints
            .iter()
            .position(|j| !seen.contains(&j.node))
            .unwrap_or(chain.joints.len());
        chain.joints.drain(..first_new);
        seen.extend(chain.joints.iter().map(|j| j.node));
    }
    chains.retain(|c| !c.joints.is_empty());
}

/// Every path from `root` down to a leaf.
fn paths_down(root: usize, children: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut paths = Vec::new();
    let mut stack = vec![vec![root]];
    while let Some(path) = stack.pop() {
        let Some(&last) = path.last() else { continue };
        let kids = children.get(last).map_or(&[][..], Vec::as_slice);
        // A cycle in a broken file ends the path.
        let kids: Vec<usize> = kids.iter().copied().filter(|k| !path.contains(k)).collect();
        if kids.is_empty() {
            paths.push(path);
            continue;
        }
        for &k in kids.iter().rev() {
            let mut longer = path.clone();
            longer.push(k);
            stack.push(longer);
        }
    }
    paths
}

fn array<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn indices(v: Option<&Value>) -> impl Iterator<Item = usize> + '_ {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_u64)
        .map(|i| i as usize)
}

fn number(v: &Value, key: &str, default: f32) -> f32 {
    v.get(key)
        .and_then(Value::as_f64)
        .map(|x| x as f32)
        .filter(|x| x.is_finite())
        .unwrap_or(default)
}

/// `[x, y, z]` (VRM 1.0) or `{x, y, z}` (VRM 0.x).
fn vec3(v: Option<&Value>, default: Vec3) -> Vec3 {
    let Some(v) = v else { return default };
    let get = |i: usize, k: &str| {
        v.get(i)
            .or_else(|| v.get(k))
            .and_then(Value::as_f64)
            .map(|x| x as f32)
            .filter(|x| x.is_finite())
    };
    match (get(0, "x"), get(1, "y"), get(2, "z")) {
        (Some(x), Some(y), Some(z)) => Vec3::new(x, y, z),
        _ => default,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    #[test]
    fn a_vrm1_spring_ends_in_its_tip_and_keeps_its_colliders() {
        let ext = json!({"VRMC_springBone": {
            "colliders": [
                {"node": 0, "shape": {"sphere": {"offset": [0, 0.1, 0], "radius": 0.1}}},
                {"node": 9, "shape": {"sphere": {"radius": 0.1}}},
                {"node": 1, "shape": {"capsule": {"offset": [0, 0, 0], "tail": [0, 0.2, 0], "radius": 0.05}}}
            ],
            "colliderGroups": [{"colliders": [0, 1, 2]}],
            "springs": [{"name": "hair", "joints": [
                {"node": 1, "stiffness": 0.5, "dragForce": 0.3, "hitRadius": 0.02},
                {"node": 2}, {"node": 3}
            ], "colliderGroups": [0]}]
        }});
        let children = vec![vec![1], vec![2], vec![3], vec![]];
        let mut warnings = Vec::new();
        let s = SpringBones::of(ext.as_object().unwrap(), &children, &mut warnings);
        assert_eq!(s.chains.len(), 1);
        let chain = &s.chains[0];
        assert_eq!(
            chain.joints.iter().map(|j| j.node).collect::<Vec<_>>(),
            [1, 2]
        );
        assert_eq!(chain.tip, SpringTip::Node(3));
        assert!((chain.joints[0].stiffness - 0.5).abs() < 1e-6);
        assert_eq!(chain.joints[1].gravity_dir, Vec3::NEG_Y);
        // The collider on a node the file lacks is left out, said once; the group keeps two.
        assert_eq!(s.colliders.len(), 2);
        assert_eq!(s.groups, vec![vec![0, 1]]);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
    }

    #[test]
    fn a_vrm0_bone_group_makes_a_chain_per_path_down_each_root() {
        // Root 1 branches into 2 -> 3 and 4; joint 1 is moved by the first chain only.
        let ext = json!({"VRM": {"secondaryAnimation": {
            "boneGroups": [{"comment": "skirt", "stiffiness": 0.8, "dragForce": 0.2,
                "gravityDir": {"x": 0, "y": -1, "z": 0}, "gravityPower": 0.1, "hitRadius": 0.03,
                "bones": [1], "colliderGroups": [0]}],
            "colliderGroups": [{"node": 0, "colliders": [{"offset": {"x": 0, "y": 0.1, "z": 0.05}, "radius": 0.1}]}]
        }}});
        let children = vec![vec![1], vec![2, 4], vec![3], vec![], vec![]];
        let mut warnings = Vec::new();
        let s = SpringBones::of(ext.as_object().unwrap(), &children, &mut warnings);
        let paths: Vec<Vec<usize>> = s
            .chains
            .iter()
            .map(|c| c.joints.iter().map(|j| j.node).collect())
            .collect();
        assert_eq!(paths, vec![vec![1, 2, 3], vec![4]]);
        assert!((s.chains[0].joints[0].stiffness - 0.8).abs() < 1e-6);
        assert_eq!(s.chains[0].tip, SpringTip::Extend(VRM0_TIP_M));
        assert_eq!(
            s.colliders[0].shape,
            ColliderShape::Sphere {
                offset: Vec3::new(0.0, 0.1, -0.05),
                radius: 0.1
            }
        );
        assert!(warnings.is_empty());
    }
}
