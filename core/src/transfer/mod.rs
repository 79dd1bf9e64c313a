//! Blend-shape transfer: gives a head without shapes (or with shapes of its own naming) the
//! 52 ARKit targets of a head that has them.
//!
//! 1. Landmarks are found on both heads ([`landmarks`]); a thin-plate spline fitted to them
//!    carries the source head, and each of its shapes, onto the target ([`tps`]).
//! 2. Each soft target vertex takes the barycentric blend of the nearest warped source
//!    triangle's offsets, for all targets at once, faded out beyond about 4 mm (hair,
//!    clothes). Near the mouth a vertex samples only the lip it belongs to ([`lips`]).
//! 3. Teeth move rigidly with the source teeth they overlap; eyeballs turn about their own
//!    centres as the source's do ([`rigid`]).
//!
//! The result is each target primitive's deltas in its own space, ready for
//! [`crate::asset::amend::add_shapes`], and a [`Report`] of what was found and measured.

mod depth;
mod file;
pub mod landmarks;
mod lips;
mod nearest;
mod report;
mod rigid;
mod surface;
mod tps;
mod view;

use glam::Vec3;

use crate::arkit::CanonicalTarget;
use crate::asset::Asset;
use crate::asset::amend::{NewShapes, PrimitiveShapes};

pub use file::{TransferFileError, own_head, transfer_glb};
pub use landmarks::{HeadFrame, LANDMARK_NAMES, LandmarkError, Landmarks};
pub use report::{Report, SeamCheck, TargetReport};
pub use surface::PartKind;
pub use view::{Aspect, FaceView, ViewTriangle, on_surface};

use lips::{Lip, Seam};
use nearest::TriangleIndex;
use rigid::Rigid;
use surface::Surface;
use tps::ThinPlateSpline;

/// Settings of one transfer.
#[derive(Clone, Debug, PartialEq)]
pub struct TransferOptions {
    /// Points that replace the found landmarks of the source head, by name.
    pub source_landmarks: Landmarks,
    /// Points that replace the found landmarks of the target head, by name.
    pub target_landmarks: Landmarks,
    /// Offsets are whole up to this distance from the warped source surface (mm, for a head
    /// whose eyes are 62 mm apart; scaled with the target's eyes)...
    pub fade_start_mm: f32,
    /// ...and gone beyond this one.
    pub fade_end_mm: f32,
}

impl Default for TransferOptions {
    fn default() -> Self {
        Self {
            source_landmarks: Landmarks::default(),
            target_landmarks: Landmarks::default(),
            fade_start_mm: 4.0,
            fade_end_mm: 8.0,
        }
    }
}

/// Why a transfer could not be made.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    #[error("source head: {0}")]
    SourceLandmarks(LandmarkError),
    #[error("target head: {0}")]
    TargetLandmarks(LandmarkError),
    #[error("the source head has no ARKit shapes to transfer")]
    NoShapes,
    #[error("the landmarks define no warp (fewer than five shared, or all in one plane): {0:?}")]
    NoWarp(Vec<String>),
}

/// The new shapes and what was measured making them.
#[derive(Clone, Debug)]
pub struct Transfer {
    pub shapes: NewShapes,
    pub report: Report,
}

/// An eye distance of 62 mm, the unit the fade settings are given in.
const REFERENCE_EYE_DISTANCE: f32 = 0.062;

/// Transfers the ARKit shapes (and Oculus visemes) of `source` onto `target`.
pub fn transfer(
    source: &Asset,
    target: &Asset,
    options: &TransferOptions,
) -> Result<Transfer, TransferError> {
    let src = Surface::of(source);
    let mut tgt = Surface::of(target);
    let mut src_found = landmarks::find(source, &src).map_err(TransferError::SourceLandmarks)?;
    let mut tgt_found = landmarks::find(target, &tgt).map_err(TransferError::TargetLandmarks)?;
    src_found.landmarks.override_with(&options.source_landmarks);
    tgt_found.landmarks.override_with(&options.target_landmarks);

    let targets: Vec<CanonicalTarget> = CanonicalTarget::all()
        .filter(|t| {
            src.deltas[t.index()]
                .iter()
                .any(|d| d.length_squared() > 0.0)
        })
        .collect();
    if targets.is_empty() {
        return Err(TransferError::NoShapes);
    }

    let shared: Vec<&str> = LANDMARK_NAMES
        .into_iter()
        .filter(|n| src_found.landmarks.get(n).is_some() && tgt_found.landmarks.get(n).is_some())
        .collect();
    let from: Vec<Vec3> = shared
        .iter()
        .filter_map(|n| src_found.landmarks.get(n))
        .collect();
    let to: Vec<Vec3> = shared
        .iter()
        .filter_map(|n| tgt_found.landmarks.get(n))
        .collect();
    let warp = ThinPlateSpline::fit(&from, &to)
        .ok_or_else(|| TransferError::NoWarp(shared.iter().map(|s| (*s).to_owned()).collect()))?;
    let frame = tgt_found.frame;
    let reach = 2.5 * frame.eye_distance;
    let src_labels = Seam::of(&src_found).map(|s| lips::label(&src, &s));
    let tgt_labels = Seam::of(&tgt_found).map(|s| lips::label(&tgt, &s));
    // Soft parts that carry shapes: a body without any does not shield the head's neck.
    let shaped: Vec<bool> = src
        .parts
        .iter()
        .map(|p| {
            p.kind == PartKind::Soft
                && targets
                    .iter()
                    .any(|t| p.range().any(|v| src.delta(t.index(), v) != Vec3::ZERO))
        })
        .collect();

    let warped = Warped::of(&src, &warp, &targets);
    if let Some(mouth) = tgt_found.landmarks.get("mouth_centre")
        && tgt.teeth.is_empty()
    {
        // Loose teeth in a merged mesh: pieces lying mostly on the warped source's teeth.
        let near = TriangleIndex::new(
            src.triangles
                .iter()
                .enumerate()
                .map(|(t, tri)| (t, tri.map(|v| warped.rest[v])))
                .filter(|(_, c)| c.iter().any(|p| p.distance(mouth) < frame.eye_distance)),
        );
        let tgt_vertices = tgt.vertices.clone();
        tgt.find_loose_teeth(mouth, &frame, |piece| {
            let on_teeth = piece
                .iter()
                .filter(|&&v| {
                    near.nearest(tgt_vertices[v])
                        .is_some_and(|h| src.triangle_kind(h.triangle) == PartKind::Teeth)
                })
                .count();
            on_teeth * 2 > piece.len()
        });
    }
    let scale = frame.eye_distance / REFERENCE_EYE_DISTANCE;
    let fade = (
        options.fade_start_mm * 0.001 * scale,
        options.fade_end_mm * 0.001 * scale,
    );

    // Soft tissue: the nearest warped surface of the matching lip.
    let lookup = Lookup::new(
        &src,
        &shaped,
        &warped.rest,
        src_labels.as_deref(),
        frame.origin,
        reach,
    );
    let n = tgt.vertices.len();
    let mut offsets: Vec<Vec<Vec3>> = vec![vec![Vec3::ZERO; n]; targets.len()];
    let mut distances = Vec::new();
    for v in tgt.vertices_of(PartKind::Soft) {
        let p = tgt.vertices[v];
        if p.distance(frame.origin) > reach {
            continue;
        }
        let Some(hit) = lookup.nearest(p, tgt_labels.as_ref().and_then(|l| l[v])) else {
            continue;
        };
        if in_face(&frame, &tgt_found, p) {
            distances.push(hit.distance);
        }
        let weight = 1.0 - smoothstep(fade.0, fade.1, hit.distance);
        if weight <= 0.0 {
            continue;
        }
        let corners = src.triangles[hit.triangle];
        for (k, slot) in offsets.iter_mut().enumerate() {
            let mut delta = Vec3::ZERO;
            for (c, w) in corners.iter().zip(hit.weights) {
                delta += warped.deltas[k][*c] * w;
            }
            slot[v] = delta * weight;
        }
    }

    rigid_eyes(&src_found, &tgt, &tgt_found, &warped, &mut offsets);
    rigid_teeth(&src, &tgt, &warped, &mut offsets);

    let names: Vec<String> = targets.iter().map(|t| t.name().to_owned()).collect();
    let shapes = NewShapes {
        primitives: local_shapes(&tgt, &offsets),
        names,
        replace_existing: false,
    };
    let report = Report::new(report::Inputs {
        source: &src_found,
        target: &tgt_found,
        target_surface: &tgt,
        target_labels: tgt_labels.as_deref(),
        targets: &targets,
        offsets: &offsets,
        distances,
    });
    Ok(Transfer { shapes, report })
}

/// The warped source's shaped soft triangles, searchable by lip.
struct Lookup {
    all: TriangleIndex,
    for_upper: TriangleIndex,
    for_lower: TriangleIndex,
}

impl Lookup {
    fn new(
        src: &Surface,
        shaped: &[bool],
        rest: &[Vec3],
        labels: Option<&[Option<Lip>]>,
        origin: Vec3,
        reach: f32,
    ) -> Self {
        let lip_of = |v: usize| labels.and_then(|l| l[v]);
        let index = |excluded: Option<Lip>| {
            TriangleIndex::new(
                src.triangles
                    .iter()
                    .enumerate()
                    .filter(|(t, _)| {
                        shaped[src.triangle_part[*t]] && src.triangle_kind(*t) == PartKind::Soft
                    })
                    .filter(|(_, tri)| {
                        excluded.is_none_or(|x| tri.iter().all(|&v| lip_of(v) != Some(x)))
                    })
                    .map(|(t, tri)| (t, tri.map(|v| rest[v])))
                    .filter(|(_, c)| c.iter().any(|p| p.distance(origin) < reach)),
            )
        };
        Self {
            all: index(None),
            for_upper: index(Some(Lip::Lower)),
            for_lower: index(Some(Lip::Upper)),
        }
    }

    /// The nearest point for a target vertex on `lip` (or on none).
    fn nearest(&self, p: Vec3, lip: Option<Lip>) -> Option<nearest::Hit> {
        match lip {
            Some(Lip::Upper) => &self.for_upper,
            Some(Lip::Lower) => &self.for_lower,
            None => &self.all,
        }
        .nearest(p)
    }
}

/// The source head and its shapes carried through the warp.
struct Warped {
    rest: Vec<Vec3>,
    /// Per transferred target, per source vertex: `warp(v + delta) - warp(v)`.
    deltas: Vec<Vec<Vec3>>,
}

impl Warped {
    fn of(src: &Surface, warp: &ThinPlateSpline, targets: &[CanonicalTarget]) -> Self {
        let rest: Vec<Vec3> = src.vertices.iter().map(|p| warp.apply(*p)).collect();
        let deltas = targets
            .iter()
            .map(|t| {
                let k = t.index();
                (0..src.vertices.len())
                    .map(|v| {
                        let d = src.delta(k, v);
                        if d == Vec3::ZERO {
                            return Vec3::ZERO;
                        }
                        warp.apply(src.vertices[v] + d) - rest[v]
                    })
                    .collect()
            })
            .collect();
        Self { rest, deltas }
    }

    /// How target `k` moves the source piece `vertices` as one rigid body; `None` where it
    /// does not move it.
    fn rigid(&self, k: usize, vertices: &[usize]) -> Option<Rigid> {
        if vertices.iter().all(|&v| self.deltas[k][v] == Vec3::ZERO) {
            return None;
        }
        let from: Vec<Vec3> = vertices.iter().map(|&v| self.rest[v]).collect();
        let to: Vec<Vec3> = vertices
            .iter()
            .map(|&v| self.rest[v] + self.deltas[k][v])
            .collect();
        Rigid::fit(&from, &to)
    }
}

/// Whether a target point lies on the face (between the brows and the chin, in front of the
/// eyes' centres), where the warp's fit is measured.
fn in_face(frame: &HeadFrame, found: &landmarks::Found, p: Vec3) -> bool {
    let l = frame.local(p);
    let d = frame.eye_distance;
    let chin = found
        .landmarks
        .get("chin")
        .map_or(-1.4 * d, |c| frame.local(c).y);
    l.x.abs() < 0.9 * d && l.y < 0.5 * d && l.y > chin && l.z > -0.1 * d
}

/// 0 below `a`, 1 above `b`, smooth between.
fn smoothstep(a: f32, b: f32, x: f32) -> f32 {
    if b <= a {
        return if x < a { 0.0 } else { 1.0 };
    }
    let t = ((x - a) / (b - a)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Each target eyeball turns about its centre as the source eyeball on its side turns.
fn rigid_eyes(
    src_found: &landmarks::Found,
    tgt: &Surface,
    tgt_found: &landmarks::Found,
    warped: &Warped,
    offsets: &mut [Vec<Vec3>],
) {
    for side in 0..2 {
        let source_eye = &src_found.eyes[side];
        let centre = tgt_found.eye_centres[side];
        for (k, slot) in offsets.iter_mut().enumerate() {
            let Some(fit) = warped.rigid(k, source_eye) else {
                continue;
            };
            for &v in &tgt_found.eyes[side] {
                let p = tgt.vertices[v];
                slot[v] = fit.rotation * (p - centre) + centre - p;
            }
        }
    }
}

/// Each target tooth piece moves with the source tooth piece nearest it.
fn rigid_teeth(src: &Surface, tgt: &Surface, warped: &Warped, offsets: &mut [Vec<Vec3>]) {
    let centroid = |points: &mut dyn Iterator<Item = Vec3>| {
        let (sum, count) = points.fold((Vec3::ZERO, 0.0_f32), |(s, c), p| (s + p, c + 1.0));
        sum / count.max(1.0)
    };
    let source_teeth: Vec<(&Vec<usize>, Vec3)> = src
        .teeth
        .iter()
        .map(|piece| (piece, centroid(&mut piece.iter().map(|&v| warped.rest[v]))))
        .collect();
    for piece in &tgt.teeth {
        let at = centroid(&mut piece.iter().map(|&v| tgt.vertices[v]));
        let Some((source, _)) = source_teeth
            .iter()
            .min_by(|a, b| a.1.distance(at).total_cmp(&b.1.distance(at)))
        else {
            continue;
        };
        for (k, slot) in offsets.iter_mut().enumerate() {
            let Some(fit) = warped.rigid(k, source) else {
                continue;
            };
            for &v in piece {
                slot[v] = fit.apply(tgt.vertices[v]) - tgt.vertices[v];
            }
        }
    }
}

/// The offsets of each target primitive that moves, in its own space.
fn local_shapes(tgt: &Surface, offsets: &[Vec<Vec3>]) -> Vec<PrimitiveShapes> {
    tgt.parts
        .iter()
        .filter(|part| {
            offsets
                .iter()
                .any(|o| part.range().any(|v| o[v] != Vec3::ZERO))
        })
        .map(|part| PrimitiveShapes {
            mesh: part.mesh,
            primitive: part.primitive,
            deltas: offsets
                .iter()
                .map(|o| {
                    part.range()
                        .enumerate()
                        .map(|(i, v)| part.placement.delta_to_local(i, o[v]).to_array())
                        .collect()
                })
                .collect(),
        })
        .collect()
}

/// The landmarks found on an avatar's head (what [`transfer`] would use before overrides).
pub fn find_landmarks(asset: &Asset) -> Result<Landmarks, LandmarkError> {
    let surface = Surface::of(asset);
    landmarks::find(asset, &surface).map(|found| found.landmarks)
}
