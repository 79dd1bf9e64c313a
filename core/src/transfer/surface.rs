//! A head as shape transfer sees it: every drawn primitive placed at rest in one space, its
//! triangles, what kind of part it is (soft tissue, an eye, teeth) and, for a source head, the
//! deltas of each ARKit target in that space.

use glam::Vec3;

use crate::arkit::CanonicalTarget;
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
    /// Per canonical target (ARKit targets, then Oculus visemes: [`CanonicalTarget::all`]),
    /// each vertex's delta; empty for a target no part carries.
    pub deltas: Vec<Vec<Vec3>>,
    /// How each vertex follows the shapes: its part's kind, or for a loose piece of a merged
    /// mesh (an eyeball, teeth), the kind it was found to be.
    pub vertex_kind: Vec<PartKind>,
    /// The pieces that move rigidly as teeth.
    pub teeth: Vec<Vec<usize>>,
}

impl Surface {
    /// Places every mesh of `asset` once (the first node drawing it) and reads its ARKit targets.
    #[must_use]
    pub fn of(asset: &Asset) -> Self {
        let mut surface = Self {
            deltas: vec![Vec::new(); CanonicalTarget::COUNT],
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
                let Some(canonical) = name.canonical else {
                    continue;
                };
                let slot = &mut surface.deltas[canonical.index()];
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
        surface.vertex_kind = vec![PartKind::Soft; total];
        for part in &surface.parts {
            for v in part.range() {
                surface.vertex_kind[v] = part.kind;
            }
            if part.kind == PartKind::Teeth {
                surface.teeth.push(part.range().collect());
            }
        }
        surface.find_loose_eyes();
        surface
    }

    /// The kind of triangle `t` (its first corner's).
    #[must_use]
    pub fn triangle_kind(&self, t: usize) -> PartKind {
        self.vertex_kind[self.triangles[t][0]]
    }

    /// The loose pieces among soft vertices: vertices joined by triangles, copies of a vertex at
    /// one place counted as one.
    fn soft_pieces(&self) -> Vec<Vec<usize>> {
        let n = self.vertices.len();
        let mut parent: Vec<usize> = (0..n).collect();
        fn root(parent: &mut [usize], mut v: usize) -> usize {
            while parent[v] != v {
                parent[v] = parent[parent[v]];
                v = parent[v];
            }
            v
        }
        let join = |a: usize, b: usize, parent: &mut Vec<usize>| {
            let (ra, rb) = (root(parent, a), root(parent, b));
            if ra != rb {
                parent[ra.max(rb)] = ra.min(rb);
            }
        };
        for t in &self.triangles {
            join(t[0], t[1], &mut parent);
            join(t[1], t[2], &mut parent);
        }
        let mut first_at: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
        for v in 0..n {
            let key = point_key(self.vertices[v]);
            match first_at.get(&key) {
                Some(&w) => join(v, w, &mut parent),
                None => {
                    first_at.insert(key, v);
                }
            }
        }
        let mut pieces: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
        for v in 0..n {
            if self.vertex_kind[v] == PartKind::Soft {
                let r = root(&mut parent, v);
                pieces.entry(r).or_default().push(v);
            }
        }
        pieces.into_values().collect()
    }

    /// In a head whose parts are not named (one merged mesh, as office exports write), the
    /// eyeballs are the highest pair of loose, roughly round pieces 1-4.5 cm across side by
    /// side; shells around them (irises, corneas) go with them.
    fn find_loose_eyes(&mut self) {
        if self.vertex_kind.contains(&PartKind::Eye) {
            return;
        }
        let pieces: Vec<(Vec<usize>, Vec3, Vec3)> = self
            .soft_pieces()
            .into_iter()
            .map(|p| {
                let (low, high) = bounds(p.iter().map(|&v| self.vertices[v]));
                (p, (low + high) * 0.5, high - low)
            })
            .collect();
        let round = |size: Vec3| {
            let (small, large) = (size.min_element(), size.max_element());
            (0.010..=0.045).contains(&large) && small >= 0.6 * large
        };
        let mut best: Option<(usize, usize)> = None;
        let candidate = |p: &(Vec<usize>, Vec3, Vec3)| p.0.len() >= 8 && round(p.2);
        for (i, a) in pieces.iter().enumerate().filter(|(_, p)| candidate(p)) {
            for (j, b) in pieces
                .iter()
                .enumerate()
                .skip(i + 1)
                .filter(|(_, p)| candidate(p))
            {
                let apart = Vec3::new(a.1.x - b.1.x, 0.0, a.1.z - b.1.z).length();
                let similar = a.2.max_element().min(b.2.max_element())
                    >= 0.8 * a.2.max_element().max(b.2.max_element());
                if (a.1.y - b.1.y).abs() < 0.01 && (0.04..=0.1).contains(&apart) && similar {
                    let height = a.1.y + b.1.y;
                    if best.is_none_or(|(x, y)| height > pieces[x].1.y + pieces[y].1.y) {
                        best = Some((i, j));
                    }
                }
            }
        }
        let Some((i, j)) = best else {
            return;
        };
        for (centre, size) in [(pieces[i].1, pieces[i].2), (pieces[j].1, pieces[j].2)] {
            let radius = size.max_element() * 0.5;
            for piece in pieces.iter().filter(|p| {
                p.1.distance(centre) < 1.15 * radius
                    && p.2.max_element() <= size.max_element() * 1.2
            }) {
                for &v in &piece.0 {
                    self.vertex_kind[v] = PartKind::Eye;
                }
            }
        }
    }

    /// In a head whose teeth are not named: the loose pieces near the mouth, behind the lips
    /// and smaller than the eyes' distance that `overlaps_teeth` says lie on the source's
    /// teeth. A mouth's lining or a tongue stays soft tissue.
    pub fn find_loose_teeth(
        &mut self,
        mouth: Vec3,
        frame: &super::landmarks::HeadFrame,
        overlaps_teeth: impl Fn(&[usize]) -> bool,
    ) {
        if !self.teeth.is_empty() {
            return;
        }
        let d = frame.eye_distance;
        for piece in self.soft_pieces() {
            if piece.len() * 4 > self.vertices.len() {
                continue;
            }
            let (low, high) = bounds(piece.iter().map(|&v| self.vertices[v]));
            let centre = (low + high) * 0.5;
            let behind = frame.local(centre).z < frame.local(mouth).z;
            let near = centre.distance(mouth) < 0.6 * d && (high - low).max_element() < 0.9 * d;
            if behind && near && overlaps_teeth(&piece) {
                for &v in &piece {
                    self.vertex_kind[v] = PartKind::Teeth;
                }
                self.teeth.push(piece);
            }
        }
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

    /// The vertices of `kind`.
    pub fn vertices_of(&self, kind: PartKind) -> impl Iterator<Item = usize> + '_ {
        (0..self.vertices.len()).filter(move |&v| self.vertex_kind[v] == kind)
    }
}

/// A point to a hundredth of a millimetre (in metres), as one number: copies of a vertex at
/// one place share it.
pub fn point_key(p: Vec3) -> u64 {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let q = |v: f32| ((v * 1e5).round().clamp(-1e6, 1e6) as i64 + 1_000_000) as u64;
    (q(p.x) << 42) | (q(p.y) << 21) | q(p.z)
}

fn bounds(points: impl Iterator<Item = Vec3>) -> (Vec3, Vec3) {
    points.fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(low, high), p| (low.min(p), high.max(p)),
    )
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
