//! A head seen from the front or the side, as the transfer sees it: its face's triangles in
//! the head's frame, the landmarks found on it, and where a landmark lands when it is moved.
//! The studio's transfer wizard draws and edits landmarks with it.

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

/// Where a head is seen from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Aspect {
    /// Facing it: across (x, its left on the viewer's right) and up.
    #[default]
    Front,
    /// From its right side, facing forward to the viewer's right: depth (z) and up. Here a
    /// landmark's depth is set.
    Side,
}

impl Aspect {
    /// A point of the head's frame as seen: (across the view, up).
    #[must_use]
    pub fn seen(self, p: Vec3) -> Vec2 {
        match self {
            Self::Front => Vec2::new(p.x, p.y),
            Self::Side => Vec2::new(p.z, p.y),
        }
    }

    /// How far a point of the head's frame is from the viewer (larger is nearer).
    fn nearness(self, p: Vec3) -> f32 {
        match self {
            Self::Front => p.z,
            Self::Side => -p.x,
        }
    }
}

/// One triangle of the face, in the head's frame (x to its left, y up, z forward).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewTriangle {
    pub corners: [Vec3; 3],
    pub kind: PartKind,
}

impl ViewTriangle {
    /// How much it faces a viewer looking from `aspect`: the cosine between its normal and
    /// the direction to the viewer (negative: it faces away).
    #[must_use]
    pub fn facing(&self, aspect: Aspect) -> f32 {
        let [a, b, c] = self.corners;
        let normal = (b - a).cross(c - a).normalize_or_zero();
        aspect.nearness(normal)
    }

    fn nearness(&self, aspect: Aspect) -> f32 {
        self.corners.iter().map(|&p| aspect.nearness(p)).sum()
    }
}

/// A head to be seen from the front or the side.
#[derive(Clone, Debug)]
pub struct FaceView {
    pub frame: HeadFrame,
    /// The triangles within reach of the face, farthest from the front first.
    pub triangles: Vec<ViewTriangle>,
    /// The triangles' order seen from the side, farthest first.
    side_order: Vec<usize>,
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
        triangles.sort_by(|a, b| {
            a.nearness(Aspect::Front)
                .total_cmp(&b.nearness(Aspect::Front))
        });
        let mut side_order: Vec<usize> = (0..triangles.len()).collect();
        side_order.sort_by(|&a, &b| {
            triangles[a]
                .nearness(Aspect::Side)
                .total_cmp(&triangles[b].nearness(Aspect::Side))
        });
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
            side_order,
            found: found.landmarks,
            guessed: found.guessed,
            skin,
        })
    }

    /// The triangles in the order they are drawn from `aspect`: farthest first, so nearer
    /// ones cover them.
    pub fn drawn(&self, aspect: Aspect) -> impl Iterator<Item = &ViewTriangle> {
        let order: Box<dyn Iterator<Item = usize>> = match aspect {
            Aspect::Front => Box::new(0..self.triangles.len()),
            Aspect::Side => Box::new(self.side_order.iter().copied()),
        };
        order.map(|i| &self.triangles[i])
    }

    /// Where a landmark now at `from` (rest space) goes when dropped at `to` as seen from
    /// `aspect` (see [`Aspect::seen`]). From the front: onto the skin there for a landmark on
    /// the surface (its depth kept where no skin is met), at its own depth for the others.
    /// From the side: exactly there, its place across the face kept.
    #[must_use]
    pub fn moved(&self, name: &str, from: Vec3, to: Vec2, aspect: Aspect) -> Vec3 {
        let local = self.frame.local(from);
        let at = match aspect {
            Aspect::Front => {
                let z = if on_surface(name) {
                    self.skin.front(to.x, to.y).unwrap_or(local.z)
                } else {
                    local.z
                };
                to.extend(z)
            }
            Aspect::Side => Vec3::new(local.x, to.y, to.x),
        };
        self.frame.world(at)
    }

    /// The face's extent as seen from `aspect`: (low, high).
    #[must_use]
    pub fn bounds(&self, aspect: Aspect) -> (Vec2, Vec2) {
        self.triangles
            .iter()
            .flat_map(|t| t.corners)
            .map(|p| aspect.seen(p))
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
