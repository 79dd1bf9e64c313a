//! A head seen from the front, as the transfer sees it: its face's triangles in the head's
//! frame, the landmarks found on it, and where a landmark lands when it is moved across the
//! face. The studio's transfer wizard draws and edits landmarks with it.

use glam::{Vec2, Vec3};

use super::depth::DepthMap;
use super::landmarks::{self, HeadFrame, LandmarkError, Landmarks};
use super::surface::{PartKind, Surface};
use crate::asset::Asset;

/// Landmarks that lie on the face's surface: moved across the face, they stay on it. The
/// others (the eyeballs' sides, the joints) keep their depth.
const ON_SURFACE: [&str; 5] = [
    "nose_tip",
    "mouth_centre",
    "mouth_corner_left",
    "mouth_corner_right",
    "chin",
];

/// How far around the eyes' middle the view reaches, in eye distances.
const REACH: f32 = 3.0;

/// One triangle of the face, in the head's frame (x to its left, y up, z towards the viewer).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewTriangle {
    pub corners: [Vec3; 3],
    pub kind: PartKind,
}

impl ViewTriangle {
    /// How much it faces the viewer: the z of its unit normal (negative: it faces away).
    #[must_use]
    pub fn facing(&self) -> f32 {
        let [a, b, c] = self.corners;
        (b - a).cross(c - a).normalize_or_zero().z
    }
}

/// A head from the front.
#[derive(Clone, Debug)]
pub struct FaceView {
    pub frame: HeadFrame,
    /// The triangles within reach of the face, farthest first (drawn in this order, nearer
    /// ones cover farther ones).
    pub triangles: Vec<ViewTriangle>,
    /// The landmarks found (in the avatar's rest space).
    pub found: Landmarks,
    /// The landmarks that were guessed from proportions.
    pub guessed: Vec<&'static str>,
    skin: DepthMap,
}

impl FaceView {
    /// Finds the landmarks of `asset`'s head and lays out its face.
    pub fn of(asset: &Asset) -> Result<Self, LandmarkError> {
        let surface = Surface::of(asset);
        let found = landmarks::find(asset, &surface)?;
        let frame = found.frame;
        let reach = REACH * frame.eye_distance;
        let mut triangles: Vec<ViewTriangle> = surface
            .triangles
            .iter()
            .map(|t| ViewTriangle {
                corners: t.map(|v| frame.local(surface.vertices[v])),
                kind: surface.vertex_kind[t[0]],
            })
            .filter(|t| t.corners.iter().all(|p| p.length() < reach))
            .collect();
        triangles.sort_by(|a, b| centroid_z(a).total_cmp(&centroid_z(b)));
        let skin = DepthMap::new(
            triangles
                .iter()
                .filter(|t| t.kind == PartKind::Soft)
                .map(|t| t.corners)
                .collect(),
            0.05 * frame.eye_distance,
        );
        Ok(Self {
            frame,
            triangles,
            found: found.landmarks,
            guessed: found.guessed,
            skin,
        })
    }

    /// Where a landmark now at `from` (rest space) goes when moved to `to` across the face
    /// (the head frame's x and y): onto the skin there for a landmark on the surface (its
    /// depth kept where no skin is met), at its own depth for the others.
    #[must_use]
    pub fn moved(&self, name: &str, from: Vec3, to: Vec2) -> Vec3 {
        let z = self.frame.local(from).z;
        let z = if on_surface(name) {
            self.skin.front(to.x, to.y).unwrap_or(z)
        } else {
            z
        };
        self.frame.world(to.extend(z))
    }

    /// The face's extent across x and y in the head's frame: (low, high).
    #[must_use]
    pub fn bounds(&self) -> (Vec2, Vec2) {
        self.triangles
            .iter()
            .flat_map(|t| t.corners)
            .map(Vec3::truncate)
            .fold(
                (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
                |(low, high), p| (low.min(p), high.max(p)),
            )
    }
}

/// Whether the landmark `name` lies on the face's surface (and stays on it when moved).
#[must_use]
pub fn on_surface(name: &str) -> bool {
    ON_SURFACE.contains(&name)
}

fn centroid_z(t: &ViewTriangle) -> f32 {
    t.corners.iter().map(|p| p.z).sum::<f32>()
}
