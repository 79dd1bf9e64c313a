//! Meshes placed as the file rests them: each drawn primitive's vertices in the scene's space,
//! skinned meshes through their joints' rest matrices, in the file's units after node scales
//! (a rig in centimetres under a 0.01 scale comes out in metres). Morph deltas placed the same
//! way are what tools that measure or transfer shapes work with.

use glam::{Mat3, Mat4, Vec3};

use super::load::Asset;
use super::mesh::Primitive;

/// How one primitive's vertices reach the scene: one matrix for a node's mesh, one blended
/// matrix per vertex for a skinned mesh.
#[derive(Clone, Debug)]
pub enum Placement {
    Rigid(Mat4),
    Skinned(Vec<Mat4>),
}

impl Placement {
    /// The matrix that places vertex `v`.
    #[must_use]
    pub fn of(&self, v: usize) -> Mat4 {
        match self {
            Self::Rigid(m) => *m,
            Self::Skinned(per_vertex) => per_vertex.get(v).copied().unwrap_or(Mat4::IDENTITY),
        }
    }

    /// Turns a delta placed in the scene back into the primitive's own space at vertex `v`
    /// (the inverse of the placement's linear part; zero where it cannot be inverted).
    #[must_use]
    pub fn delta_to_local(&self, v: usize, delta: Vec3) -> Vec3 {
        let linear = Mat3::from_mat4(self.of(v));
        if linear.determinant().abs() < 1e-12 {
            return Vec3::ZERO;
        }
        linear.inverse() * delta
    }
}

/// One primitive of a mesh drawn by a node, placed at rest.
#[derive(Clone, Debug)]
pub struct PlacedPrimitive {
    pub node: usize,
    pub mesh: usize,
    /// Index into the mesh's loaded primitives.
    pub primitive: usize,
    /// The vertices in the scene's space.
    pub positions: Vec<Vec3>,
    pub placement: Placement,
}

impl PlacedPrimitive {
    /// Morph target `target`'s deltas in the scene's space (zeros when the primitive lacks it).
    #[must_use]
    pub fn placed_deltas(&self, primitive: &Primitive, target: usize) -> Vec<Vec3> {
        let Some(deltas) = primitive.targets.get(target) else {
            return vec![Vec3::ZERO; self.positions.len()];
        };
        (0..self.positions.len())
            .map(|v| {
                let d = deltas.positions.get(v).copied().unwrap_or_default();
                Mat3::from_mat4(self.placement.of(v)) * Vec3::from_array(d)
            })
            .collect()
    }
}

impl Asset {
    /// Every primitive of every node's mesh, placed at rest.
    #[must_use]
    pub fn rest_placed(&self) -> Vec<PlacedPrimitive> {
        let locals: Vec<_> = self.nodes.iter().map(|n| n.transform).collect();
        let world = super::scene::world_transforms(&self.nodes, &locals);
        let mut placed = Vec::new();
        let mut palette = Vec::new();
        for (n, (node, place)) in self.nodes.iter().zip(&world).enumerate() {
            let Some((m, mesh)) = node.mesh.and_then(|m| Some((m, self.meshes.get(m)?))) else {
                continue;
            };
            let skin = node.skin.and_then(|s| self.skins.get(s));
            if let Some(skin) = skin {
                skin.palette_into(&world, &mut palette);
            }
            for (p, primitive) in mesh.primitives.iter().enumerate() {
                let placement = match skin {
                    Some(_) if primitive.joints.len() == primitive.positions.len() => {
                        Placement::Skinned(skinned(primitive, &palette))
                    }
                    _ => Placement::Rigid(*place),
                };
                let positions = primitive
                    .positions
                    .iter()
                    .enumerate()
                    .map(|(v, p)| placement.of(v).transform_point3(Vec3::from_array(*p)))
                    .collect();
                placed.push(PlacedPrimitive {
                    node: n,
                    mesh: m,
                    primitive: p,
                    positions,
                    placement,
                });
            }
        }
        placed
    }

    /// The height of everything drawn in the rest pose (top minus bottom), `None` when
    /// nothing is drawn.
    #[must_use]
    pub fn rest_height(&self) -> Option<f32> {
        self.rest_bounds().map(|(low, high)| high.y - low.y)
    }

    /// The corners of the box around the meshes at rest (the scene's space): where the feet
    /// and the top of the head are, and how wide and deep the avatar stands, for framing it.
    #[must_use]
    pub fn rest_bounds(&self) -> Option<(Vec3, Vec3)> {
        let (mut low, mut high) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        for primitive in self.rest_placed() {
            for p in primitive.positions.iter().filter(|p| p.is_finite()) {
                low = low.min(*p);
                high = high.max(*p);
            }
        }
        (high.y > low.y).then_some((low, high))
    }
}

/// Each vertex's blend of its joints' palette matrices.
fn skinned(primitive: &Primitive, palette: &[Mat4]) -> Vec<Mat4> {
    primitive
        .joints
        .iter()
        .zip(&primitive.weights)
        .map(|(joints, weights)| {
            let mut m = Mat4::ZERO;
            for (j, w) in joints.iter().zip(weights) {
                if let Some(joint) = palette.get(usize::from(*j)) {
                    m += *joint * *w;
                }
            }
            m
        })
        .collect()
}
