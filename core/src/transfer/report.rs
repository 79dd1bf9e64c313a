//! What a transfer found and measured: both heads' landmarks, how close the warped source
//! surface came to the target's face, each target's largest offset, and whether the lips part
//! and close as they should.

use glam::Vec3;
use serde::Serialize;

use super::landmarks::{Found, Landmarks};
use super::lips::Lip;
use super::surface::Surface;
use crate::arkit::{ArkitTarget, CanonicalTarget};

/// The transfer's report (written as JSON by `npc-player transfer --report`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub source_landmarks: Landmarks,
    pub target_landmarks: Landmarks,
    /// Landmarks guessed from the face's proportions because the surface did not show them.
    pub source_guessed: Vec<String>,
    pub target_guessed: Vec<String>,
    /// The target's eye centres' distance, the unit the face is measured in.
    pub target_eye_distance_mm: f32,
    /// Distance from the target's face vertices to the warped source surface.
    pub surface_distance_median_mm: f32,
    pub surface_distance_p90_mm: f32,
    pub targets: Vec<TargetReport>,
    /// `None` when the source lacks jawOpen or mouthClose, or the mouth was not found.
    pub seam: Option<SeamCheck>,
}

/// One transferred target.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TargetReport {
    pub name: String,
    pub largest_offset_mm: f32,
    pub moved_vertices: usize,
}

/// The lips at the middle of the mouth: the gap between the upper lip's lowest and the lower
/// lip's highest point, at rest and under the jaw's shapes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeamCheck {
    pub rest_gap_mm: f32,
    pub jaw_open_gap_mm: f32,
    pub jaw_open_mouth_close_gap_mm: f32,
    /// Upper-lip vertices that jawOpen moves down more than half as far as the lower lip.
    pub upper_lip_vertices_following_the_jaw: usize,
    pub lips_part: bool,
    pub mouth_closes: bool,
}

pub(super) struct Inputs<'a> {
    pub source: &'a Found,
    pub target: &'a Found,
    pub target_surface: &'a Surface,
    pub target_labels: Option<&'a [Option<Lip>]>,
    pub targets: &'a [CanonicalTarget],
    /// Per target, per target vertex, in the scene's space.
    pub offsets: &'a [Vec<Vec3>],
    pub distances: Vec<f32>,
}

const MM: f32 = 1000.0;

impl Report {
    pub(super) fn new(inputs: Inputs<'_>) -> Self {
        let mut distances = inputs.distances.clone();
        distances.sort_by(f32::total_cmp);
        let quantile = |q: f32| {
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                clippy::cast_precision_loss
            )]
            let i = ((distances.len().saturating_sub(1)) as f32 * q).round() as usize;
            distances.get(i).copied().unwrap_or(f32::NAN) * MM
        };
        let targets = inputs
            .targets
            .iter()
            .zip(inputs.offsets)
            .map(|(t, o)| TargetReport {
                name: t.name().to_owned(),
                largest_offset_mm: o.iter().map(|d| d.length()).fold(0.0, f32::max) * MM,
                moved_vertices: o.iter().filter(|d| d.length_squared() > 0.0).count(),
            })
            .collect();
        let names = |g: &[&str]| g.iter().map(|s| (*s).to_owned()).collect();
        Self {
            source_landmarks: inputs.source.landmarks.clone(),
            target_landmarks: inputs.target.landmarks.clone(),
            source_guessed: names(&inputs.source.guessed),
            target_guessed: names(&inputs.target.guessed),
            target_eye_distance_mm: inputs.target.frame.eye_distance * MM,
            surface_distance_median_mm: quantile(0.5),
            surface_distance_p90_mm: quantile(0.9),
            targets,
            seam: seam_check(&inputs),
        }
    }

    /// The report for a target by name.
    #[must_use]
    pub fn target(&self, name: &str) -> Option<&TargetReport> {
        self.targets.iter().find(|t| t.name == name)
    }
}

fn seam_check(inputs: &Inputs<'_>) -> Option<SeamCheck> {
    let labels = inputs.target_labels?;
    let index = |t: ArkitTarget| {
        inputs
            .targets
            .iter()
            .position(|x| *x == CanonicalTarget::Arkit(t))
    };
    let (jaw, close) = (
        index(ArkitTarget::JawOpen)?,
        index(ArkitTarget::MouthClose)?,
    );
    let frame = inputs.target.frame;
    let d = frame.eye_distance;
    let centre = frame.local(inputs.target.landmarks.get("mouth_centre")?);
    let surface = inputs.target_surface;
    let middle = |lip: Lip| -> Vec<usize> {
        (0..surface.vertices.len())
            .filter(|&v| labels[v] == Some(lip))
            .filter(|&v| {
                let l = frame.local(surface.vertices[v]);
                l.x.abs() < 0.12 * d
                    && (l.y - centre.y).abs() < 0.15 * d
                    && l.z > centre.z - 0.1 * d
            })
            .collect()
    };
    let (upper, lower) = (middle(Lip::Upper), middle(Lip::Lower));
    if upper.is_empty() || lower.is_empty() {
        return None;
    }
    let gap = |weights: &[(usize, f32)]| {
        let height = |v: usize| {
            let moved = surface.vertices[v]
                + weights
                    .iter()
                    .map(|&(k, w)| inputs.offsets[k][v] * w)
                    .sum::<Vec3>();
            frame.local(moved).y
        };
        let lowest_upper = upper
            .iter()
            .map(|&v| height(v))
            .fold(f32::INFINITY, f32::min);
        let highest_lower = lower
            .iter()
            .map(|&v| height(v))
            .fold(f32::NEG_INFINITY, f32::max);
        (lowest_upper - highest_lower) * MM
    };
    let rest = gap(&[]);
    let open = gap(&[(jaw, 1.0)]);
    let closed = gap(&[(jaw, 1.0), (close, 1.0)]);
    let drop = |v: usize| inputs.offsets[jaw][v].dot(frame.up);
    #[allow(clippy::cast_precision_loss)]
    let lower_drop = lower.iter().map(|&v| drop(v)).sum::<f32>() / lower.len() as f32;
    let following = (0..surface.vertices.len())
        .filter(|&v| labels[v] == Some(Lip::Upper))
        .filter(|&v| lower_drop < 0.0 && drop(v) < 0.5 * lower_drop)
        .count();
    let parting = open - rest;
    Some(SeamCheck {
        rest_gap_mm: rest,
        jaw_open_gap_mm: open,
        jaw_open_mouth_close_gap_mm: closed,
        upper_lip_vertices_following_the_jaw: following,
        lips_part: parting > 0.02 * d * MM,
        mouth_closes: closed - rest < 0.3 * parting,
    })
}
