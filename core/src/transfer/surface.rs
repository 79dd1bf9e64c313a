//! A head as shape transfer sees it: every drawn primitive placed at rest in one space, its
//! triangles, what kind of part it is (soft tissue, an eye, teeth) and, for a source head, the
//! deltas of each ARKit target in that space.

use glam::Vec3;

use crate::arkit::{ArkitTarget, CanonicalTarget};
use crate::asset::Asset;
use crate::asset::rest_pose::Placement;

/// How a part follows the face's shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartKind {
    /// Skin, lips, the mouth's lining, the tongue: each vertex follows the surface nearest it.
    Soft,
    /// An eyeball (sclera, iris, pupil, cornea): turns about its centre.
    Eye,
    /// Teeth: move as one rigid piece.
    Teeth,
}

/// One primitive of the head.
#[derive(Clone, Debug)]
pub struct Part {
    pub mesh: usize,
    /// Index into the mesh's loaded primitives.
    pub primitive: usize,
    /// Node, mesh and material names, as one lower-case string to classify by.
    pub label: String,
    pub kind: PartKind,
    /// Its vertices are `first .. first + count` of [`Surface::vertices`].
    pub first: usize,
    pub count: usize,
    pub placement: Placement,
}

impl Part {
    #[must_use]
    pub fn range(&self) -> std::ops::Range<usize> {
        self.first..self.first + self.count
    }
}

/// Every part of one avatar, placed at rest.
#[derive(Clone, Debug, Default)]
pub struct Surface {
    pub parts: Vec<Part>,
    pub vertices: Vec<Vec3>,
    /// Vertex indices into `vertices`.
    pub triangles: Vec<[usize; 3]>,
    /// The part each triangle belongs to.
    pub triangle_part: Vec<usize>,
    /// Per ARKit target (in [`ArkitTarget::ALL`] order), each vertex's delta; empty for a target
    /// no part carries.
    pub deltas: Vec<Vec<Vec3>>,
}

impl Surface {
    /// Places every mesh of `asset` once (the first node drawing it) and reads its ARKit targets.
    #[must_use]
    pub fn of(asset: &Asset) -> Self {
        let mut surface = Self {
            deltas: vec![Vec::new(); ArkitTarget::ALL.len()],
            ..Self::default()
        };
        let mut seen = Vec::new();
        for placed in asset.rest_placed() {
            if seen.contains(&(placed.mesh, placed.primitive)) {
                continue;
            }
            seen.push((placed.mesh, placed.primitive));
            let (Some(mesh), Some(node)) =
                (asset.meshes.get(placed.mesh), asset.nodes.get(placed.node))
            else {
                continue;
            };
            let Some(primitive) = mesh.primitives.get(placed.primitive) else {
                continue;
            };
            let material = primitive
                .material
                .and_then(|m| asset.materials.get(m))
                .and_then(|m| m.name.as_deref());
            let label = [node.name.as_deref(), mesh.name.as_deref(), material]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase();
            let first = surface.vertices.len();
            let count = placed.positions.len();
            let part_index = surface.parts.len();
            for tri in primitive.indices.chunks_exact(3) {
                let corners = [tri[0], tri[1], tri[2]].map(|i| i as usize);
                if corners.iter().all(|&i| i < count) {
                    surface.triangles.push(corners.map(|i| first + i));
                    surface.triangle_part.push(part_index);
                }
            }
            for (t, name) in mesh.target_names.iter().enumerate() {
                let Some(CanonicalTarget::Arkit(arkit)) = name.canonical else {
                    continue;
                };
                let slot = &mut surface.deltas[arkit.index()];
                if slot.is_empty() {
                    *slot = vec![Vec3::ZERO; first];
                }
                slot.resize(first, Vec3::ZERO);
                slot.extend(placed.placed_deltas(primitive, t));
            }
            surface.vertices.extend(&placed.positions);
            surface.parts.push(Part {
                mesh: placed.mesh,
                primitive: placed.primitive,
                kind: kind_of(&label),
                label,
                first,
                count,
                placement: placed.placement,
            });
        }
        let total = surface.vertices.len();
        for slot in surface.deltas.iter_mut().filter(|s| !s.is_empty()) {
            slot.resize(total, Vec3::ZERO);
        }
        surface
    }

    /// Target `k`'s delta at vertex `v` (zero when no part carries the target).
    #[must_use]
    pub fn delta(&self, k: usize, v: usize) -> Vec3 {
        self.deltas
            .get(k)
            .and_then(|d| d.get(v))
            .copied()
            .unwrap_or(Vec3::ZERO)
    }

    /// The vertices of parts of `kind`.
    pub fn vertices_of(&self, kind: PartKind) -> impl Iterator<Item = usize> + '_ {
        self.parts
            .iter()
            .filter(move |p| p.kind == kind)
            .flat_map(Part::range)
    }

    /// The part vertex `v` belongs to.
    #[must_use]
    pub fn part_of(&self, v: usize) -> Option<usize> {
        self.parts.iter().position(|p| p.range().contains(&v))
    }
}

/// Classifies a part by its names: eyeballs and teeth by the words files use for them.
fn kind_of(label: &str) -> PartKind {
    let has = |words: &[&str]| words.iter().any(|w| label.contains(w));
    if has(&["teeth", "tooth"]) {
        PartKind::Teeth
    } else if has(&["eye", "iris", "pupil", "cornea", "sclera"])
        && !has(&[
            "brow",
            "lash",
            "lid",
            "shadow",
            "occlusion",
            "socket",
            "_ao",
            " ao",
        ])
    {
        PartKind::Eye
    } else {
        PartKind::Soft
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_told_apart_by_the_names_files_use() {
        assert_eq!(kind_of("eyeleft wolf3d_eyes"), PartKind::Eye);
        assert_eq!(kind_of("h_l_eye h_l_eye _body"), PartKind::Eye);
        assert_eq!(kind_of("iris_left iris"), PartKind::Eye);
        assert_eq!(kind_of("eyebrows face mi_hair_1"), PartKind::Soft);
        assert_eq!(kind_of("eyelashes"), PartKind::Soft);
        assert_eq!(kind_of("h_teethdown"), PartKind::Teeth);
        assert_eq!(kind_of("wolf3d_teeth"), PartKind::Teeth);
        assert_eq!(kind_of("tongue"), PartKind::Soft);
        assert_eq!(kind_of("superhero_male"), PartKind::Soft);
    }
}
