//! Lofts: smooth tubes with rounded ends, swept through cross-sections along a path.

use glam::Vec3;

use super::*;
use crate::asset::mesh::{Primitive, vertex_normals};

// Lofts: smooth tubes with rounded ends

/// A key cross-section of a loft: centre and half-widths along the two frame axes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Section {
    pub(super) at: Vec3,
    /// Half-width along the reference direction.
    pub(super) rx: f32,
    /// Half-width along `axis × reference`.
    pub(super) rz: f32,
}

pub(super) const fn section(at: [f32; 3], rx: f32, rz: f32) -> Section {
    Section {
        at: Vec3::new(at[0], at[1], at[2]),
        rx,
        rz,
    }
}

/// One ring of a loft, ready to emit.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ring {
    pub(super) centre: Vec3,
    pub(super) e1: Vec3,
    pub(super) e2: Vec3,
    pub(super) rx: f32,
    pub(super) rz: f32,
    /// Arc length along the loft (negative in the start cap, past the end in the end cap).
    pub(super) s: f32,
}

/// Skinned triangles: a piece of a body part.
#[derive(Clone, Debug, Default)]
pub(super) struct Piece {
    pub(super) positions: Vec<Vec3>,
    pub(super) joints: Vec<[u16; 4]>,
    pub(super) weights: Vec<[f32; 4]>,
    pub(super) indices: Vec<u32>,
}

impl Piece {
    pub(super) fn append(&mut self, other: Piece) {
        let base = self.positions.len() as u32;
        self.positions.extend(other.positions);
        self.joints.extend(other.joints);
        self.weights.extend(other.weights);
        self.indices.extend(other.indices.iter().map(|i| i + base));
    }

    pub(super) fn into_primitive(self) -> Primitive {
        let positions: Vec<[f32; 3]> = self.positions.iter().map(|p| p.to_array()).collect();
        let normals = vertex_normals(&positions, &self.indices);
        Primitive {
            positions,
            normals,
            uvs: Vec::new(),
            tangents: Vec::new(),
            joints: self.joints,
            weights: self.weights,
            indices: self.indices,
            targets: Vec::new(),
            material: None,
        }
    }
}

/// Rings of a tube through `keys` (a polyline with half-widths, interpolated linearly), about
/// one every `step` metres, framed so that `rx` lies along `reference`.
pub(super) fn body_rings(keys: &[Section], reference: Vec3, step: f32) -> Vec<Ring> {
    let mut starts = vec![0.0_f32];
    for w in keys.windows(2) {
        let last = starts.last().copied().unwrap_or(0.0);
        starts.push(last + w[0].at.distance(w[1].at));
    }
    let length = starts.last().copied().unwrap_or(0.0);
    let count = ((length / step).ceil() as usize).max(1) + 1;
    let mut samples: Vec<(Vec3, f32, f32, f32)> = Vec::with_capacity(count);
    for k in 0..count {
        let s = length * k as f32 / (count - 1) as f32;
        let seg = starts
            .windows(2)
            .position(|w| s <= w[1])
            .unwrap_or(keys.len().saturating_sub(2));
        let span = (starts[seg + 1] - starts[seg]).max(1e-6);
        let t = ((s - starts[seg]) / span).clamp(0.0, 1.0);
        let (a, b) = (keys[seg], keys[seg + 1]);
        samples.push((
            a.at.lerp(b.at, t),
            a.rx + (b.rx - a.rx) * t,
            a.rz + (b.rz - a.rz) * t,
            s,
        ));
    }
    (0..count)
        .map(|k| {
            let before = samples[k.saturating_sub(1)].0;
            let after = samples[(k + 1).min(count - 1)].0;
            let axis = (after - before).normalize_or(Vec3::Y);
            let e1 = (reference - axis * reference.dot(axis)).normalize_or(Vec3::X);
            let e2 = axis.cross(e1);
            let (centre, rx, rz, s) = samples[k];
            Ring {
                centre,
                e1,
                e2,
                rx,
                rz,
                s,
            }
        })
        .collect()
}

/// A closed tube through `keys` with rounded ends `caps` (start, end) metres long, `segments`
/// vertices around; `skin(position, s)` gives each vertex's influences from its position and
/// its arc length `s` along the tube.
pub(super) fn loft(
    keys: &[Section],
    reference: Vec3,
    segments: usize,
    caps: (f32, f32),
    skin: &dyn Fn(Vec3, f32) -> Influences,
) -> Piece {
    const CAP_RINGS: usize = 3;
    let body = body_rings(keys, reference, 0.025);
    let (Some(&first), Some(&last)) = (body.first(), body.last()) else {
        return Piece::default();
    };
    let cap = |end: Ring, len: f32, dir: f32, m: usize| {
        let phi = m as f32 * std::f32::consts::FRAC_PI_2 / (CAP_RINGS + 1) as f32;
        let axis = end.e1.cross(end.e2) * dir;
        Ring {
            centre: end.centre + axis * (phi.sin() * len),
            rx: end.rx * phi.cos(),
            rz: end.rz * phi.cos(),
            s: end.s + dir * phi.sin() * len,
            ..end
        }
    };
    let mut rings: Vec<Ring> = (1..=CAP_RINGS)
        .rev()
        .map(|m| cap(first, caps.0, -1.0, m))
        .collect();
    rings.extend(&body);
    rings.extend((1..=CAP_RINGS).map(|m| cap(last, caps.1, 1.0, m)));

    let mut piece = Piece::default();
    let push = |piece: &mut Piece, p: Vec3, s: f32| {
        let (j, w) = pack(&skin(p, s));
        piece.positions.push(p);
        piece.joints.push(j);
        piece.weights.push(w);
    };
    let start_axis = first.e1.cross(first.e2);
    let end_axis = last.e1.cross(last.e2);
    push(
        &mut piece,
        first.centre - start_axis * caps.0,
        first.s - caps.0,
    );
    for ring in &rings {
        for j in 0..segments {
            let theta = j as f32 / segments as f32 * std::f32::consts::TAU;
            let p =
                ring.centre + ring.e1 * (theta.cos() * ring.rx) + ring.e2 * (theta.sin() * ring.rz);
            push(&mut piece, p, ring.s);
        }
    }
    push(&mut piece, last.centre + end_axis * caps.1, last.s + caps.1);

    let seg = segments as u32;
    let ring_count = rings.len() as u32;
    let at = |r: u32, j: u32| 1 + r * seg + j % seg;
    let end_pole = 1 + ring_count * seg;
    for j in 0..seg {
        // Counter-clockwise seen from outside (the frame e1, e2, axis is right-handed).
        piece
            .indices
            .extend_from_slice(&[0, at(0, j + 1), at(0, j)]);
        piece.indices.extend_from_slice(&[
            end_pole,
            at(ring_count - 1, j),
            at(ring_count - 1, j + 1),
        ]);
    }
    for r in 0..ring_count - 1 {
        for j in 0..seg {
            let (a, b) = (at(r, j), at(r, j + 1));
            let (c, d) = (at(r + 1, j), at(r + 1, j + 1));
            piece.indices.extend_from_slice(&[a, b, c, b, d, c]);
        }
    }
    piece
}
