//! Spring chains a project names on an avatar's joints, for rigs without VRM spring bones
//! (ponytails, coat tails, ears, breasts) or to retune a VRM file's: each root joint starts a
//! chain down through its children, simulated as the file's would be (`super::spring`).

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::skeleton::Skeleton;
use crate::asset::spring_bones::{
    ColliderShape, SpringBones, SpringCollider, SpringJoint, SpringTip, chains_down, share_no_joint,
};

/// The chains and colliders a project names on an avatar. When it names any chain, they
/// replace the file's own spring bones.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamedSprings {
    pub chains: Vec<NamedChain>,
    /// Spheres and capsules the chains keep out of; none: the file's own colliders (a VRM's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub colliders: Vec<NamedCollider>,
}

/// A chain from a root joint down to the ends of its children (a branching root gives one
/// chain per branch). A childless end joint is the last bone's tip; a chain of one joint
/// points 7 cm on along its bone.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamedChain {
    /// The root joint's name in the avatar file.
    pub root: String,
    /// How strongly each joint returns to its posed direction (VRM's stiffness).
    #[serde(default = "default_stiffness")]
    pub stiffness: f32,
    /// How much of its motion a joint loses each step (0-1).
    #[serde(default = "default_drag")]
    pub drag: f32,
    /// Gravity's pull, straight down (VRM's gravity power; 0: none).
    #[serde(default)]
    pub gravity: f32,
    /// The radius kept off the colliders, metres.
    #[serde(default = "default_hit_radius")]
    pub hit_radius: f32,
}

/// A sphere (or, with `tail`, a capsule) on a joint, in the joint's space, metres.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamedCollider {
    pub joint: String,
    #[serde(default)]
    pub offset: [f32; 3],
    pub radius: f32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<[f32; 3]>,
}

fn default_stiffness() -> f32 {
    1.0
}
fn default_drag() -> f32 {
    0.4
}
fn default_hit_radius() -> f32 {
    0.02
}

/// How far a one-joint chain's tip is past the joint, metres (VRM 0.x's length).
const LONE_TIP_M: f32 = 0.07;

impl NamedSprings {
    /// The spring bones these name on `skeleton` (`file`: the avatar file's own, whose
    /// colliders are kept when these name none), and a problem for each name not found.
    #[must_use]
    pub fn resolve(&self, file: &SpringBones, skeleton: &Skeleton) -> (SpringBones, Vec<String>) {
        let mut problems = Vec::new();
        let (colliders, groups) = if self.colliders.is_empty() {
            (
                file.colliders.clone(),
                vec![(0..file.colliders.len()).collect()],
            )
        } else {
            let colliders: Vec<SpringCollider> = self
                .colliders
                .iter()
                .filter_map(|c| {
                    let Some(node) = skeleton.index(&c.joint) else {
                        problems.push(format!(
                            "springs: collider joint {:?} is not in the avatar",
                            c.joint
                        ));
                        return None;
                    };
                    let offset = Vec3::from(c.offset);
                    let radius = c.radius.max(0.0);
                    let shape = match c.tail {
                        Some(tail) => ColliderShape::Capsule {
                            offset,
                            tail: tail.into(),
                            radius,
                        },
                        None => ColliderShape::Sphere { offset, radius },
                    };
                    Some(SpringCollider { node, shape })
                })
                .collect();
            let group = (0..colliders.len()).collect();
            (colliders, vec![group])
        };
        let mut children = vec![Vec::new(); skeleton.len()];
        for (node, parent) in skeleton.parents.iter().enumerate() {
            if let Some(p) = parent.filter(|&p| p < children.len()) {
                children[p].push(node);
            }
        }
        let mut chains = Vec::new();
        for chain in &self.chains {
            let Some(root) = skeleton.index(&chain.root) else {
                problems.push(format!(
                    "springs: chain root {:?} is not in the avatar",
                    chain.root
                ));
                continue;
            };
            let settings = SpringJoint {
                node: root,
                hit_radius: chain.hit_radius.max(0.0),
                stiffness: chain.stiffness.max(0.0),
                gravity_power: chain.gravity.max(0.0),
                gravity_dir: Vec3::NEG_Y,
                drag: chain.drag.clamp(0.0, 1.0),
            };
            for mut made in chains_down(&chain.root, root, settings, &[0], &children) {
                // A childless end joint is the tip of the bone before it.
                if made.joints.len() > 1
                    && made
                        .joints
                        .last()
                        .is_some_and(|j| children[j.node].is_empty())
                {
                    let tip = made.joints.pop().map_or(root, |j| j.node);
                    made.tip = SpringTip::Node(tip);
                } else {
                    made.tip = SpringTip::Extend(LONE_TIP_M);
                }
                chains.push(made);
            }
        }
        share_no_joint(&mut chains);
        (
            SpringBones {
                chains,
                colliders,
                groups,
            },
            problems,
        )
    }
}

/// The spring bones an avatar swings: the chains the project names for it when it names any,
/// else the file's own; and the problems found with the names.
#[must_use]
pub fn avatar_springs(
    file: &SpringBones,
    named: Option<&NamedSprings>,
    skeleton: &Skeleton,
) -> (SpringBones, Vec<String>) {
    match named {
        Some(named) if !named.chains.is_empty() => named.resolve(file, skeleton),
        _ => (file.clone(), Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::asset::Transform;

    /// root - head - tail1 - tail2 - tail_end, and an arm off the root.
    fn rig() -> Skeleton {
        let at = |y: f32| Transform {
            translation: Vec3::new(0.0, y, 0.0),
            ..Transform::IDENTITY
        };
        Skeleton::new(
            vec![None, Some(0), Some(1), Some(2), Some(3), Some(0)],
            ["root", "head", "tail1", "tail2", "tail_end", "arm"]
                .map(str::to_owned)
                .to_vec(),
            vec![at(0.0), at(1.5), at(-0.1), at(-0.1), at(-0.1), at(1.2)],
        )
    }

    #[test]
    fn a_named_root_makes_a_chain_to_its_end_joint_and_unknown_names_are_problems() {
        let named: NamedSprings = ron::from_str(
            r#"(chains: [(root: "tail1", gravity: 0.5), (root: "ponytail")],
                colliders: [(joint: "head", radius: 0.1), (joint: "hat", radius: 0.1)])"#,
        )
        .unwrap();
        let (bones, problems) = avatar_springs(&SpringBones::default(), Some(&named), &rig());
        assert_eq!(bones.chains.len(), 1);
        let chain = &bones.chains[0];
        let nodes: Vec<usize> = chain.joints.iter().map(|j| j.node).collect();
        assert_eq!(nodes, [2, 3]);
        assert_eq!(chain.tip, SpringTip::Node(4));
        assert!((chain.joints[0].gravity_power - 0.5).abs() < 1e-6);
        assert!(
            (chain.joints[0].drag - 0.4).abs() < 1e-6,
            "the default drag"
        );
        assert_eq!(bones.colliders.len(), 1);
        assert_eq!(bones.colliders[0].node, 1);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("hat") && problems[1].contains("ponytail"));
    }

    #[test]
    fn without_named_chains_the_files_own_springs_swing() {
        let file = SpringBones {
            chains: vec![],
            colliders: vec![SpringCollider {
                node: 1,
                shape: ColliderShape::Sphere {
                    offset: Vec3::ZERO,
                    radius: 0.1,
                },
            }],
            groups: vec![vec![0]],
        };
        let (bones, problems) = avatar_springs(&file, None, &rig());
        assert_eq!(bones, file);
        assert!(problems.is_empty());
        let empty = NamedSprings::default();
        assert_eq!(avatar_springs(&file, Some(&empty), &rig()).0, file);
    }
}
