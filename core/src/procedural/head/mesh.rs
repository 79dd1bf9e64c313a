//! Mesh-building helpers: simple shapes, sphere caps, smooth normals and the assembly of a
//! part with its morph targets.

use super::*;

/// Positions, uvs and triangles of a simple part.
#[derive(Clone, Debug, Default)]
pub(super) struct Shape {
    pub(super) pos: Vec<Vec3>,
    pub(super) uvs: Vec<[f32; 2]>,
    pub(super) indices: Vec<u32>,
}

impl Shape {
    pub(super) fn tri(&mut self, a: usize, b: usize, c: usize) {
        if a != b && b != c && a != c {
            self.indices.extend([a as u32, b as u32, c as u32]);
        }
    }

    pub(super) fn quad(&mut self, tl: usize, tr: usize, bl: usize, br: usize) {
        self.tri(tl, bl, br);
        self.tri(tl, br, tr);
    }
}

/// A cap of a sphere about the +Z pole: rings from angle `from` to `to`, radius `radius`.
pub(super) fn sphere_cap(
    centre: Vec3,
    radius: f32,
    from: f32,
    to: f32,
    rings: usize,
    segments: usize,
) -> Shape {
    let mut s = Shape::default();
    let pole = from <= 0.0;
    let start = if pole {
        s.pos.push(centre + Vec3::Z * radius);
        s.uvs.push([0.5, 0.0]);
        1
    } else {
        0
    };
    for r in start..=rings {
        let a = from + (to - from) * r as f32 / rings as f32;
        for k in 0..=segments {
            let phi = std::f32::consts::TAU * k as f32 / segments as f32;
            let d = Vec3::new(a.sin() * phi.cos(), a.sin() * phi.sin(), a.cos());
            s.pos.push(centre + d * radius);
            s.uvs
                .push([k as f32 / segments as f32, r as f32 / rings as f32]);
        }
    }
    let row = |r: usize, k: usize| {
        if pole {
            1 + (r - 1) * (segments + 1) + k
        } else {
            r * (segments + 1) + k
        }
    };
    if pole {
        for k in 0..segments {
            s.tri(0, row(1, k), row(1, k + 1));
        }
    }
    for r in start..rings {
        for k in 0..segments {
            s.quad(row(r, k), row(r, k + 1), row(r + 1, k), row(r + 1, k + 1));
        }
    }
    s
}

/// Area-weighted normals; vertices sharing a weld index share a normal.
pub(super) fn smooth_normals(pos: &[Vec3], indices: &[u32], weld: Option<&[u32]>) -> Vec<Vec3> {
    let key = |i: usize| weld.map_or(i, |w| w[i] as usize);
    let mut sums = vec![Vec3::ZERO; pos.len()];
    for t in indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| i as usize);
        let n = (pos[b] - pos[a]).cross(pos[c] - pos[a]);
        for i in [a, b, c] {
            sums[key(i)] += n;
        }
    }
    (0..pos.len())
        .map(|i| sums[key(i)].try_normalize().unwrap_or(Vec3::Y))
        .collect()
}

/// A part from positions, triangles and per-target deltas (targets that move nothing are left
/// out). Normal deltas follow the deformed triangles.
pub(super) fn part(
    name: &'static str,
    shape: &Shape,
    weld: Option<&[u32]>,
    deltas: Vec<(ArkitTarget, Vec<Vec3>)>,
    material: Material,
) -> HeadPart {
    let normals = smooth_normals(&shape.pos, &shape.indices, weld);
    let mut targets = Vec::new();
    let mut target_names = Vec::new();
    for (target, d) in deltas {
        if !d.iter().any(|v| v.abs().max_element() > 1e-6) {
            continue;
        }
        let moved: Vec<Vec3> = shape.pos.iter().zip(&d).map(|(&p, &q)| p + q).collect();
        let moved_normals = smooth_normals(&moved, &shape.indices, weld);
        // Float noise from rebuilding unmoved vertices is dropped, so files can store targets
        // sparsely.
        let clean = |v: Vec3, tiny: f32| {
            if v.abs().max_element() < tiny {
                Vec3::ZERO
            } else {
                v
            }
        };
        targets.push(MorphTarget {
            positions: d.iter().map(|&v| clean(v, 1e-7).to_array()).collect(),
            normals: moved_normals
                .iter()
                .zip(&normals)
                .map(|(a, b)| clean(*a - *b, 1e-4).to_array())
                .collect(),
        });
        target_names.push(target.name());
    }
    HeadPart {
        name,
        primitive: Primitive {
            positions: shape.pos.iter().map(|p| p.to_array()).collect(),
            normals: normals.iter().map(|n| n.to_array()).collect(),
            uvs: shape.uvs.clone(),
            tangents: Vec::new(),
            joints: Vec::new(),
            weights: Vec::new(),
            indices: shape.indices.clone(),
            targets,
            material: None,
        },
        target_names,
        material,
    }
}
