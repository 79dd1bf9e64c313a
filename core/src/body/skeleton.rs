//! A character's node hierarchy prepared for per-frame posing: nodes in parent-first order so
//! world matrices come from one pass without allocating, and the rest pose. The one skeleton
//! type: loaded avatars, the procedural body and the body layers all use it.

use crate::asset::{Asset, Transform};
use glam::{Mat4, Quat};

/// The node tree of an avatar.
#[derive(Clone, Debug)]
pub struct Skeleton {
    /// Parent of each node.
    pub parents: Vec<Option<usize>>,
    /// Node names ("" when unnamed).
    pub names: Vec<String>,
    /// Rest pose (the file's node transforms).
    pub rest: Vec<Transform>,
    /// Humanoid bones the file declares (a VRM file's table): (VRM 1.0 bone name, node).
    pub declared_bones: Vec<(String, usize)>,
    /// Every node after its parent.
    order: Vec<usize>,
}

impl Skeleton {
    #[must_use]
    pub fn of(asset: &Asset) -> Self {
        let mut skeleton = Self::new(
            asset.nodes.iter().map(|n| n.parent).collect(),
            asset
                .nodes
                .iter()
                .map(|n| n.name.clone().unwrap_or_default())
                .collect(),
            asset.nodes.iter().map(|n| n.transform).collect(),
        );
        skeleton.declared_bones.clone_from(&asset.humanoid_table);
        skeleton
    }

    /// A skeleton of nodes with these parents, names and rest transforms.
    #[must_use]
    pub fn new(parents: Vec<Option<usize>>, names: Vec<String>, rest: Vec<Transform>) -> Self {
        let mut order = Vec::with_capacity(parents.len());
        let mut placed = vec![false; parents.len()];
        // The loader guarantees a forest of bounded depth; repeat until every node is placed.
        while order.len() < parents.len() {
            let before = order.len();
            for (i, p) in parents.iter().enumerate() {
                if !placed[i] && p.is_none_or(|p| placed.get(p).copied().unwrap_or(true)) {
                    placed[i] = true;
                    order.push(i);
                }
            }
            if order.len() == before {
                break;
            }
        }
        Self {
            parents,
            names,
            rest,
            declared_bones: Vec::new(),
            order,
        }
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.parents.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.parents.is_empty()
    }

    /// The node called exactly `name`.
    #[must_use]
    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// World matrices of `locals` (one per node), allocated; [`Self::world_into`] reuses a
    /// buffer for per-frame use.
    #[must_use]
    pub fn world(&self, locals: &[Transform]) -> Vec<Mat4> {
        let mut world = Vec::new();
        self.world_into(locals, &mut world);
        world
    }

    /// World matrices of the rest pose.
    #[must_use]
    pub fn rest_world(&self) -> Vec<Mat4> {
        self.world(&self.rest)
    }

    /// The first node whose name ends with `suffix` (e.g. "Head" finds "mixamorig:Head").
    #[must_use]
    pub fn find(&self, suffix: &str) -> Option<usize> {
        self.names.iter().position(|n| {
            n.ends_with(suffix)
                && n[..n.len() - suffix.len()]
                    .chars()
                    .last()
                    .is_none_or(|c| !c.is_alphanumeric())
        })
    }

    /// World matrices of `locals` into `world` (resized to the node count).
    pub fn world_into(&self, locals: &[Transform], world: &mut Vec<Mat4>) {
        world.resize(self.len(), Mat4::IDENTITY);
        for &i in &self.order {
            let local = locals.get(i).map_or(Mat4::IDENTITY, Transform::to_mat4);
            world[i] = match self.parents[i] {
                Some(p) => world[p] * local,
                None => local,
            };
        }
    }

    /// Every node after its parent (the order world matrices are built in).
    #[must_use]
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// The world matrix of node `j` alone under `locals`, from its chain of parents: cheaper
    /// than [`Self::world_into`] when a layer needs a few joints of a large rig.
    #[must_use]
    pub fn world_of(&self, locals: &[Transform], j: usize) -> Mat4 {
        let local = |i: usize| locals.get(i).map_or(Mat4::IDENTITY, Transform::to_mat4);
        let mut m = local(j);
        let mut node = self.parents.get(j).copied().flatten();
        let mut steps = 0;
        while let Some(p) = node {
            m = local(p) * m;
            node = self.parents[p];
            steps += 1;
            if steps > self.len() {
                break;
            }
        }
        m
    }

    /// The world matrix of node `j` given `above`, the world matrix of `ancestor`: only the
    /// joints between them are multiplied. The whole chain is walked when `ancestor` is not
    /// above `j`.
    #[must_use]
    pub fn world_under(
        &self,
        locals: &[Transform],
        ancestor: usize,
        above: Mat4,
        j: usize,
    ) -> Mat4 {
        let local = |i: usize| locals.get(i).map_or(Mat4::IDENTITY, Transform::to_mat4);
        let mut m = Mat4::IDENTITY;
        let mut node = Some(j);
        let mut steps = 0;
        while let Some(i) = node {
            if i == ancestor {
                return above * m;
            }
            m = local(i) * m;
            node = self.parents.get(i).copied().flatten();
            steps += 1;
            if steps > self.len() {
                break;
            }
        }
        self.world_of(locals, j)
    }

    /// World rotations of every node under `locals` into `out` (resized to the node count):
    /// the rotations alone, cheaper than [`Self::world_into`] when positions are not needed.
    pub fn world_rotations_into(&self, locals: &[Transform], out: &mut Vec<Quat>) {
        out.resize(self.len(), Quat::IDENTITY);
        for &i in &self.order {
            let local = locals.get(i).map_or(Quat::IDENTITY, |t| t.rotation);
            out[i] = match self.parents[i] {
                Some(p) => out[p] * local,
                None => local,
            };
        }
    }

    /// World rotation of node `i` under `locals`.
    #[must_use]
    pub fn world_rotation(&self, locals: &[Transform], i: usize) -> Quat {
        let mut q = locals.get(i).map_or(Quat::IDENTITY, |t| t.rotation);
        let mut node = self.parents.get(i).copied().flatten();
        let mut steps = 0;
        while let Some(p) = node {
            q = locals.get(p).map_or(Quat::IDENTITY, |t| t.rotation) * q;
            node = self.parents[p];
            steps += 1;
            if steps > self.len() {
                break;
            }
        }
        q
    }
}
