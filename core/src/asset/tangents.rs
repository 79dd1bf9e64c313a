//! Tangent frames for normal maps: the file's own (`TANGENT`), else MikkTSpace's, as glTF asks
//! ("client implementations SHOULD calculate tangents using default MikkTSpace algorithms")
//! and as the tools that baked the maps (Blender, Substance, xNormal) computed them.
//!
//! glTF's convention: `xyz` points along +u, and the bitangent `cross(normal, xyz) * w` points
//! up the image (toward smaller v), the normal map's +Y.

use bevy_mikktspace::{Geometry, TangentSpace, generate_tangents};
use rayon::prelude::*;

use super::material::Material;
use super::mesh::{Mesh, Primitive};

/// Gives every primitive whose material bends its normal by a map (the surface's or its clear
/// coat's) and that has texture coordinates but no tangents from the file MikkTSpace's.
/// Returns how many primitives were given tangents. Primitives are worked on in parallel
/// (MikkTSpace takes about 3 us a triangle).
pub fn give_tangents(meshes: &mut [Mesh], materials: &[Material]) -> usize {
    let mut wanting: Vec<&mut Primitive> = meshes
        .iter_mut()
        .flat_map(|m| m.primitives.iter_mut())
        .filter(|p| {
            let mapped = p
                .material
                .and_then(|m| materials.get(m))
                .is_some_and(bends_normals);
            mapped && p.tangents.is_empty() && !p.uvs.is_empty()
        })
        .collect();
    wanting
        .par_iter_mut()
        .for_each(|p| p.tangents = mikktspace_tangents(p));
    wanting.len()
}

/// Whether `material` reads a normal map.
fn bends_normals(material: &Material) -> bool {
    let surface = &material.surface;
    surface.normal_texture.is_some()
        || surface
            .clearcoat
            .as_ref()
            .is_some_and(|c| c.normal_texture.is_some())
}

/// MikkTSpace's tangent at every vertex of `primitive` (its positions, normals, first texture
/// coordinates and triangles), in glTF's convention. A vertex the algorithm leaves without one
/// (only degenerate triangles touch it) gets a unit vector across its normal.
#[must_use]
pub fn mikktspace_tangents(primitive: &Primitive) -> Vec<[f32; 4]> {
    let mut geometry = MikkGeometry {
        primitive,
        tangents: vec![None; primitive.positions.len()],
    };
    // The error type has no variants: generation cannot fail.
    let _ = generate_tangents(&mut geometry);
    geometry
        .tangents
        .iter()
        .enumerate()
        .map(|(v, t)| match t {
            Some(t) => *t,
            None => across(primitive.normals.get(v).copied().unwrap_or([0.0, 0.0, 1.0])),
        })
        .collect()
}

/// The file's tangents made usable: `xyz` of unit length, `w` exactly +1 or -1 (glTF asks for
/// both; exporters round). `None` when any is not finite or has no length, so that MikkTSpace's
/// are made instead.
#[must_use]
pub fn sanitized(tangents: Vec<[f32; 4]>) -> Option<Vec<[f32; 4]>> {
    tangents
        .into_iter()
        .map(|[x, y, z, w]| {
            let length = (x * x + y * y + z * z).sqrt();
            (length.is_finite() && length > 1e-6 && w.is_finite()).then(|| {
                [
                    x / length,
                    y / length,
                    z / length,
                    if w < 0.0 { -1.0 } else { 1.0 },
                ]
            })
        })
        .collect()
}

/// A unit vector across `normal` (for vertices no triangle gives a frame).
fn across(normal: [f32; 3]) -> [f32; 4] {
    let [x, y, z] = normal;
    // The axis least along the normal, made perpendicular to it.
    let axis = if x.abs() <= y.abs() && x.abs() <= z.abs() {
        [1.0, 0.0, 0.0]
    } else if y.abs() <= z.abs() {
        [0.0, 1.0, 0.0]
    } else {
        [0.0, 0.0, 1.0]
    };
    let along = axis[0] * x + axis[1] * y + axis[2] * z;
    let t = [
        axis[0] - along * x,
        axis[1] - along * y,
        axis[2] - along * z,
    ];
    let length = (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt();
    if length > 1e-6 {
        [t[0] / length, t[1] / length, t[2] / length, 1.0]
    } else {
        [1.0, 0.0, 0.0, 1.0]
    }
}

/// A primitive's triangles as MikkTSpace reads them, and the tangents it writes back.
struct MikkGeometry<'p> {
    primitive: &'p Primitive,
    tangents: Vec<Option<[f32; 4]>>,
}

impl MikkGeometry<'_> {
    fn vertex(&self, face: usize, vert: usize) -> usize {
        self.primitive.indices[face * 3 + vert] as usize
    }
}

impl Geometry for MikkGeometry<'_> {
    fn num_faces(&self) -> usize {
        self.primitive.indices.len() / 3
    }

    fn num_vertices_of_face(&self, _face: usize) -> usize {
        3
    }

    fn position(&self, face: usize, vert: usize) -> [f32; 3] {
        self.primitive.positions[self.vertex(face, vert)]
    }

    fn normal(&self, face: usize, vert: usize) -> [f32; 3] {
        self.primitive
            .normals
            .get(self.vertex(face, vert))
            .copied()
            .unwrap_or([0.0, 0.0, 1.0])
    }

    fn tex_coord(&self, face: usize, vert: usize) -> [f32; 2] {
        // MikkTSpace's bitangent follows +v; glTF's v runs down the image while the normal
        // map's +Y runs up it, so v is read flipped (as Blender's exporter sees it).
        let [u, v] = self
            .primitive
            .uvs
            .get(self.vertex(face, vert))
            .copied()
            .unwrap_or_default();
        [u, 1.0 - v]
    }

    fn set_tangent(&mut self, tangent_space: Option<TangentSpace>, face: usize, vert: usize) {
        let v = self.vertex(face, vert);
        if let Some(space) = tangent_space {
            self.tangents[v] = Some(space.tangent_encoded());
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::asset::material::TextureRef;

    /// A 2 x 1 strip facing +Z: u runs along +X and v down (-Y), as a texture lies on it seen
    /// from the front; with `mirrored`, the right square's u runs back (a mirrored half, as
    /// symmetric avatars lay out faces).
    fn strip(mirrored: bool) -> Primitive {
        let right_u = if mirrored { 0.0 } else { 2.0 };
        Primitive {
            positions: vec![
                [0.0, 1.0, 0.0],
                [1.0, 1.0, 0.0],
                [1.0, 0.0, 0.0],
                [0.0, 0.0, 0.0],
                [2.0, 1.0, 0.0],
                [2.0, 0.0, 0.0],
            ],
            normals: vec![[0.0, 0.0, 1.0]; 6],
            uvs: vec![
                [0.0, 0.0],
                [1.0, 0.0],
                [1.0, 1.0],
                [0.0, 1.0],
                [right_u, 0.0],
                [right_u, 1.0],
            ],
            // Counter-clockwise from the front.
            indices: vec![0, 3, 2, 0, 2, 1, 1, 2, 5, 1, 5, 4],
            ..Primitive::default()
        }
    }

    fn close(a: [f32; 4], b: [f32; 4]) -> bool {
        a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-4)
    }

    #[test]
    fn tangents_follow_u_and_the_bitangent_points_up_the_image() {
        let tangents = mikktspace_tangents(&strip(false));
        // +u is +X; up the image (smaller v) is +Y = cross(+Z, +X) * 1.
        for t in &tangents {
            assert!(close(*t, [1.0, 0.0, 0.0, 1.0]), "{tangents:?}");
        }
    }

    #[test]
    fn a_mirrored_half_gets_the_other_handedness() {
        let tangents = mikktspace_tangents(&strip(true));
        // The left square as before; the right one's u runs along -X with v unchanged, so
        // its tangent is -X and the bitangent, still +Y, is cross(+Z, -X) * -1.
        assert!(close(tangents[0], [1.0, 0.0, 0.0, 1.0]), "{tangents:?}");
        assert!(close(tangents[3], [1.0, 0.0, 0.0, 1.0]), "{tangents:?}");
        for v in [4, 5] {
            assert!(close(tangents[v], [-1.0, 0.0, 0.0, -1.0]), "{tangents:?}");
        }
    }

    #[test]
    fn only_primitives_with_a_normal_map_and_no_tangents_are_given_them() {
        let plain = Material::default();
        let mut bumped = Material::default();
        bumped.surface.normal_texture = Some(TextureRef::plain(0));
        let from_file = vec![[0.0, 1.0, 0.0, 1.0]; 6];
        let mut meshes = vec![Mesh {
            primitives: vec![
                Primitive {
                    material: Some(0),
                    ..strip(false)
                },
                Primitive {
                    material: Some(1),
                    ..strip(false)
                },
                Primitive {
                    material: Some(1),
                    tangents: from_file.clone(),
                    ..strip(false)
                },
                Primitive {
                    material: Some(1),
                    uvs: Vec::new(),
                    ..strip(false)
                },
            ],
            ..Mesh::default()
        }];
        assert_eq!(give_tangents(&mut meshes, &[plain, bumped]), 1);
        let p = &meshes[0].primitives;
        assert!(p[0].tangents.is_empty());
        assert_eq!(p[1].tangents.len(), 6);
        assert_eq!(p[2].tangents, from_file);
        assert!(p[3].tangents.is_empty());
    }

    #[test]
    fn file_tangents_are_made_unit_with_a_whole_sign_or_refused() {
        assert_eq!(
            sanitized(vec![[0.0, 2.0, 0.0, 0.99], [3.0, 0.0, 4.0, -0.5]]),
            Some(vec![[0.0, 1.0, 0.0, 1.0], [0.6, 0.0, 0.8, -1.0]])
        );
        assert_eq!(sanitized(vec![[0.0, 0.0, 0.0, 1.0]]), None);
        assert_eq!(sanitized(vec![[f32::NAN, 0.0, 1.0, 1.0]]), None);
    }

    #[test]
    fn a_vertex_without_a_frame_gets_one_across_its_normal() {
        for n in [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.6, 0.0, 0.8]] {
            let [x, y, z, w] = across(n);
            assert!((x * n[0] + y * n[1] + z * n[2]).abs() < 1e-6);
            assert!(((x * x + y * y + z * z).sqrt() - 1.0).abs() < 1e-6);
            assert_eq!(w, 1.0);
        }
    }
}
