//! Landmarks found on a head without help: each eyeball's front, inner and outer sides, top and
//! bottom; the nose tip; the mouth seam's centre and corners; the chin; the neck and head
//! joints. The eyes set the head's frame; the rest is read off the face's depth seen from the
//! front.

use std::collections::BTreeMap;

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::depth::DepthMap;
use super::surface::{PartKind, Surface};
use crate::asset::Asset;
use crate::body::{HumanoidBone, HumanoidMap, Skeleton};

/// The landmarks' names, in the order reports list them.
pub const LANDMARK_NAMES: [&str; 17] = [
    "eye_left_front",
    "eye_left_inner",
    "eye_left_outer",
    "eye_left_top",
    "eye_left_bottom",
    "eye_right_front",
    "eye_right_inner",
    "eye_right_outer",
    "eye_right_top",
    "eye_right_bottom",
    "nose_tip",
    "mouth_centre",
    "mouth_corner_left",
    "mouth_corner_right",
    "chin",
    "neck",
    "head",
];

/// Named points in the avatar's rest space (the left being the head's own left).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Landmarks(pub BTreeMap<String, [f32; 3]>);

impl Landmarks {
    #[must_use]
    pub fn get(&self, name: &str) -> Option<Vec3> {
        self.0.get(name).map(|p| Vec3::from_array(*p))
    }

    pub fn set(&mut self, name: &str, p: Vec3) {
        self.0.insert(name.to_owned(), p.to_array());
    }

    /// Replaces the points `other` names.
    pub fn override_with(&mut self, other: &Self) {
        for (name, p) in &other.0 {
            self.0.insert(name.clone(), *p);
        }
    }
}

/// The head's own axes: origin between the eye centres, x to its left, y up, z forward.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeadFrame {
    pub origin: Vec3,
    pub left: Vec3,
    pub up: Vec3,
    pub forward: Vec3,
    /// Between the eye centres: the unit the face is measured in.
    pub eye_distance: f32,
}

impl HeadFrame {
    #[must_use]
    pub fn local(&self, p: Vec3) -> Vec3 {
        let d = p - self.origin;
        Vec3::new(d.dot(self.left), d.dot(self.up), d.dot(self.forward))
    }

    #[must_use]
    pub fn world(&self, l: Vec3) -> Vec3 {
        self.origin + self.left * l.x + self.up * l.y + self.forward * l.z
    }
}

/// What was found on one head.
#[derive(Clone, Debug)]
pub struct Found {
    pub landmarks: Landmarks,
    pub frame: HeadFrame,
    /// Vertices of each eye (`[left, right]`) and its centre.
    pub eyes: [Vec<usize>; 2],
    pub eye_centres: [Vec3; 2],
    /// Landmarks that were guessed from proportions rather than found on the surface.
    pub guessed: Vec<&'static str>,
}

/// Why no landmarks could be found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LandmarkError {
    #[error(
        "no eyeballs found: none of the meshes, nodes or materials is named like an eye \
         (eye, iris, pupil, sclera); give the landmarks in a file"
    )]
    NoEyes,
    #[error("the eyes could not be told apart into a left and a right one")]
    OneEye,
    #[error("no face surface in front of the eyes was found")]
    NoFace,
}

/// Finds the landmarks of the head of `asset` (its surface already placed in `surface`).
pub fn find(asset: &Asset, surface: &Surface) -> Result<Found, LandmarkError> {
    let eye_vertices: Vec<usize> = surface.vertices_of(PartKind::Eye).collect();
    if eye_vertices.len() < 8 {
        return Err(LandmarkError::NoEyes);
    }
    let joints = head_joints(asset);
    let (frame, (eyes, eye_centres)) = frame_from_eyes(surface, &eye_vertices, joints)?;
    let mut found = Found {
        landmarks: Landmarks::default(),
        frame,
        eyes,
        eye_centres,
        guessed: Vec::new(),
    };
    found.eye_landmarks(surface);
    found.face_landmarks(surface)?;
    if let Some((neck, head)) = joints {
        found.landmarks.set("neck", neck);
        found.landmarks.set("head", head);
    }
    Ok(found)
}

/// The rest positions of the neck and head joints, when the avatar has a humanoid skeleton.
fn head_joints(asset: &Asset) -> Option<(Vec3, Vec3)> {
    if asset.nodes.is_empty() {
        return None;
    }
    let skeleton = Skeleton::of(asset);
    let map = HumanoidMap::of(&skeleton);
    let world = skeleton.rest_world();
    let at = |bone| {
        map.joint(bone)
            .and_then(|j| world.get(j))
            .map(|m| m.w_axis.truncate())
    };
    Some((at(HumanoidBone::Neck)?, at(HumanoidBone::Head)?))
}

/// Each eye's vertices and centre, `[left, right]`.
type Eyes = ([Vec<usize>; 2], [Vec3; 2]);

/// The frame and the two eyes: the eyes lie side by side along their widest spread; the face
/// looks away from the head joint (or the head's middle).
fn frame_from_eyes(
    surface: &Surface,
    eye_vertices: &[usize],
    joints: Option<(Vec3, Vec3)>,
) -> Result<(HeadFrame, Eyes), LandmarkError> {
    let points: Vec<Vec3> = eye_vertices.iter().map(|&v| surface.vertices[v]).collect();
    #[allow(clippy::cast_precision_loss)]
    let mean = points.iter().copied().sum::<Vec3>() / points.len() as f32;
    // Across the eyes: the horizontal direction of widest spread.
    let up = Vec3::Y;
    let spread = |dir: Vec3| {
        points
            .iter()
            .map(|p| (*p - mean).dot(dir).abs())
            .sum::<f32>()
    };
    let across = (0..180)
        .map(|deg| {
            let a = (deg as f32).to_radians();
            Vec3::new(a.cos(), 0.0, a.sin())
        })
        .max_by(|a, b| spread(*a).total_cmp(&spread(*b)))
        .unwrap_or(Vec3::X);
    let behind = match joints {
        Some((_, head)) => head,
        None => {
            // The middle of the skin near the eyes stands in for the head joint.
            let reach = spread(across) / points.len() as f32 * 4.0;
            let near: Vec<Vec3> = surface
                .vertices_of(PartKind::Soft)
                .map(|v| surface.vertices[v])
                .filter(|p| p.distance(mean) < reach)
                .collect();
            if near.is_empty() {
                return Err(LandmarkError::NoFace);
            }
            near.iter().copied().sum::<Vec3>() / near.len() as f32
        }
    };
    let mut forward = up.cross(across);
    if forward.dot(mean - behind) < 0.0 {
        forward = -forward;
    }
    let left = up.cross(forward);
    let mut sides: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
    for &v in eye_vertices {
        let side = usize::from((surface.vertices[v] - mean).dot(left) < 0.0);
        sides[side].push(v);
    }
    if sides.iter().any(|s| s.len() < 4) {
        return Err(LandmarkError::OneEye);
    }
    // Box centres in the head's own axes, not the world's.
    let provisional = HeadFrame {
        origin: mean,
        left,
        up,
        forward,
        eye_distance: 1.0,
    };
    let local_centre = |vs: &[usize]| {
        let (low, high) = bounds(vs.iter().map(|&v| provisional.local(surface.vertices[v])));
        provisional.world((low + high) * 0.5)
    };
    let centres = [local_centre(&sides[0]), local_centre(&sides[1])];
    let frame = HeadFrame {
        origin: (centres[0] + centres[1]) * 0.5,
        left,
        up,
        forward,
        eye_distance: centres[0].distance(centres[1]),
    };
    Ok((frame, (sides, centres)))
}

fn bounds(points: impl Iterator<Item = Vec3>) -> (Vec3, Vec3) {
    points.fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(low, high), p| (low.min(p), high.max(p)),
    )
}

impl Found {
    /// Each eyeball's extremes along the head's axes, through its centre.
    fn eye_landmarks(&mut self, surface: &Surface) {
        let frame = self.frame;
        for (side, name) in ["left", "right"].iter().enumerate() {
            let (low, high) = bounds(
                self.eyes[side]
                    .iter()
                    .map(|&v| frame.local(surface.vertices[v])),
            );
            let c = (low + high) * 0.5;
            // The inner side faces the middle (x = 0): for the left eye (x > 0) it is its low x.
            let (inner, outer) = if side == 0 {
                (low.x, high.x)
            } else {
                (high.x, low.x)
            };
            let points = [
                ("front", Vec3::new(c.x, c.y, high.z)),
                ("inner", Vec3::new(inner, c.y, c.z)),
                ("outer", Vec3::new(outer, c.y, c.z)),
                ("top", Vec3::new(c.x, high.y, c.z)),
                ("bottom", Vec3::new(c.x, low.y, c.z)),
            ];
            for (what, p) in points {
                self.landmarks
                    .set(&format!("eye_{name}_{what}"), frame.world(p));
            }
        }
    }

    /// The nose tip, the mouth and the chin from the face's depth down its middle.
    fn face_landmarks(&mut self, surface: &Surface) -> Result<(), LandmarkError> {
        let frame = self.frame;
        let d = frame.eye_distance;
        let triangles: Vec<[Vec3; 3]> = surface
            .triangles
            .iter()
            .filter(|t| surface.vertex_kind[t[0]] == PartKind::Soft)
            .map(|t| t.map(|v| frame.local(surface.vertices[v])))
            .filter(|t| t.iter().all(|p| p.length() < 3.0 * d))
            .collect();
        let depth = DepthMap::new(triangles, 0.05 * d);
        let step = 0.004 * d;
        // Where no surface is met (an open mouth), the ray runs deep into the head.
        let floor = -1.5 * d;
        let column = |x: f32, from: f32, to: f32| -> Vec<(f32, f32)> {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let n = ((from - to) / step).ceil().max(1.0) as usize;
            #[allow(clippy::cast_precision_loss)]
            (0..=n)
                .map(|i| {
                    let y = from - i as f32 * step;
                    (y, depth.front(x, y).unwrap_or(floor))
                })
                .collect()
        };
        let nose_zone = column(0.0, -0.3 * d, -1.05 * d);
        let &(nose_y, nose_z) = nose_zone
            .iter()
            .filter(|(_, z)| *z > floor)
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .ok_or(LandmarkError::NoFace)?;
        self.landmarks
            .set("nose_tip", frame.world(Vec3::new(0.0, nose_y, nose_z)));

        // The seam sits about half the eyes' distance below the nose tip (0.45-0.55 in the
        // faces measured); the grooves under the nose and over the chin lie well off it.
        let below = column(0.0, nose_y - 0.2 * d, nose_y - 0.9 * d);
        let folds = folds(&depth, nose_y - 0.2 * d, nose_y - 0.9 * d, step);
        let prior = |y: f32| {
            let off = (nose_y - y) / d - 0.5;
            (-0.5 * (off / 0.12).powi(2)).exp()
        };
        // Where the surface folds in (two lips that meet, not one curving skin) the seam is
        // found even when the upper lip overhangs the lower and the profile shows no groove.
        let fold = folds
            .iter()
            .copied()
            .max_by(|a, b| prior(*a).total_cmp(&prior(*b)));
        let (seam_y, seam_z, seam_depth) = match (fold, deepest_notch(&below, 0.25 * d, prior)) {
            (Some(y), _) => (y, depth.front(0.0, y).unwrap_or(nose_z - 0.2 * d), 0.0),
            (None, Some(s)) => s,
            (None, None) => {
                self.guessed.push("mouth_centre");
                let y = nose_y - 0.5 * d;
                (y, depth.front(0.0, y).unwrap_or(nose_z - 0.2 * d), 0.0)
            }
        };
        self.landmarks
            .set("mouth_centre", frame.world(Vec3::new(0.0, seam_y, seam_z)));

        for (side, sign) in [("left", 1.0_f32), ("right", -1.0)] {
            let name = if side == "left" {
                "mouth_corner_left"
            } else {
                "mouth_corner_right"
            };
            let corner = if fold.is_some() {
                self.fold_corner(&depth, sign, seam_y)
            } else {
                self.corner(&depth, sign, seam_y, seam_depth, floor)
            };
            let corner = corner.unwrap_or_else(|| {
                self.guessed.push(name);
                let x = sign * 0.4 * d;
                Vec3::new(
                    x,
                    seam_y,
                    depth.front(x, seam_y).unwrap_or(seam_z - 0.1 * d),
                )
            });
            self.landmarks.set(name, frame.world(corner));
        }

        let chin_zone = column(0.0, seam_y - 0.05 * d, seam_y - 0.9 * d);

        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let span = ((0.03 * d) / step).round().max(1.0) as usize;
        let chin = chin_point(&chin_zone, span).unwrap_or_else(|| {
            self.guessed.push("chin");
            let y = seam_y - 0.4 * d;
            (y, depth.front(0.0, y).unwrap_or(seam_z))
        });
        self.landmarks
            .set("chin", frame.world(Vec3::new(0.0, chin.0, chin.1)));
        Ok(())
    }

    /// Follows the fold between the lips from the middle out to one side until it ends.
    fn fold_corner(&self, depth: &DepthMap, sign: f32, seam_y: f32) -> Option<Vec3> {
        let d = self.frame.eye_distance;
        let step = 0.004 * d;
        let mut y = seam_y;
        let mut last = None;
        let mut missed = 0;
        let mut x = 0.01 * d;
        while x < 0.8 * d && missed < 3 {
            let at = sign * x;
            let near = folds_at(depth, at, y + 0.05 * d, y - 0.05 * d, step)
                .into_iter()
                .min_by(|a, b| (a - y).abs().total_cmp(&(b - y).abs()));
            match near {
                Some(found) => {
                    y = found;
                    last = depth.front(at, found).map(|z| Vec3::new(at, found, z));
                    missed = 0;
                }
                None => missed += 1,
            }
            x += 0.01 * d;
        }
        last
    }

    /// Follows the seam's groove from the middle out to one side (`sign` +1: the left) until
    /// it runs out.
    fn corner(
        &self,
        depth: &DepthMap,
        sign: f32,
        seam_y: f32,
        seam_depth: f32,
        floor: f32,
    ) -> Option<Vec3> {
        if seam_depth <= 0.0 {
            return None;
        }
        let mut last: Option<(f32, f32, Vec3)> = None;
        let d = self.frame.eye_distance;
        let step = 0.004 * d;
        let mut y = seam_y;
        let mut faded = 0;
        let mut x = 0.02 * d;
        while x < 0.8 * d {
            let at = sign * x;
            let window: Vec<(f32, f32)> = {
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let n = (0.5 * d / step) as usize;
                #[allow(clippy::cast_precision_loss)]
                (0..=n)
                    .map(|i| {
                        let yy = y + 0.25 * d - i as f32 * step;
                        (yy, depth.front(at, yy).unwrap_or(floor))
                    })
                    .collect()
            };
            // The groove's bottom near where it was one step in.
            let near: Vec<(f32, f32)> = window
                .iter()
                .copied()
                .filter(|(yy, _)| (*yy - y).abs() <= 0.04 * d)
                .collect();
            let Some(&(bottom_y, bottom_z)) = near.iter().min_by(|a, b| a.1.total_cmp(&b.1)) else {
                break;
            };
            let top = window
                .iter()
                .filter(|(yy, _)| *yy > bottom_y && *yy <= bottom_y + 0.15 * d)
                .map(|p| p.1)
                .fold(f32::NEG_INFINITY, f32::max);
            let under = window
                .iter()
                .filter(|(yy, _)| *yy < bottom_y && *yy >= bottom_y - 0.15 * d)
                .map(|p| p.1)
                .fold(f32::NEG_INFINITY, f32::max);
            let groove = top.min(under) - bottom_z;
            if groove > 0.0 {
                last = Some((x, groove, Vec3::new(at, bottom_y, bottom_z.max(floor))));
                y = bottom_y;
                faded = 0;
            } else {
                // The groove is gone: the corner is where its depth ran out between this
                // column and the last one that had it.
                if let Some((x0, g0, p)) = last {
                    let t = g0 / (g0 - groove).max(1e-9);
                    let corner_x = sign * (x0 + t * (x - x0));
                    let z = depth.front(corner_x, p.y).unwrap_or(p.z);
                    return Some(Vec3::new(corner_x, p.y, z));
                }
                faded += 1;
                if faded >= 3 {
                    break;
                }
            }
            x += 0.01 * d;
        }
        // The groove reached the search's end: its last point.
        last.map(|(_, _, p)| p)
    }
}

/// Heights down the face's middle where rays a step apart meet triangles that do not lie on
/// one stretch of surface.
fn folds(depth: &DepthMap, from: f32, to: f32, step: f32) -> Vec<f32> {
    folds_at(depth, 0.0, from, to, step)
}

/// As [`folds`], down the line at `x`.
fn folds_at(depth: &DepthMap, x: f32, from: f32, to: f32, step: f32) -> Vec<f32> {
    let mut out = Vec::new();
    let mut last: Option<usize> = None;
    let mut y = from;
    while y > to {
        let hit = depth.front_hit(x, y).map(|h| h.1);
        if let (Some(a), Some(b)) = (last, hit)
            && a != b
            && !depth.joined(a, b)
        {
            out.push(y);
        }
        last = hit;
        y -= step;
    }
    out
}

/// The deepest groove in a top-down profile `(y, z)`: the lowest z between two higher points
/// within `reach` above and below it, its depth weighted by `prior(y)`. Returns (y, z, depth).
fn deepest_notch(
    profile: &[(f32, f32)],
    reach: f32,
    prior: impl Fn(f32) -> f32,
) -> Option<(f32, f32, f32)> {
    let mut best: Option<(f32, f32, f32, f32)> = None;
    for (i, &(y, z)) in profile.iter().enumerate() {
        let is_min = profile.get(i.wrapping_sub(1)).is_none_or(|p| p.1 >= z)
            && profile.get(i + 1).is_none_or(|p| p.1 >= z);
        if !is_min {
            continue;
        }
        let higher = |range: &mut dyn Iterator<Item = &(f32, f32)>| {
            range
                .filter(|p| (p.0 - y).abs() <= reach)
                .map(|p| p.1)
                .fold(f32::NEG_INFINITY, f32::max)
        };
        let above = higher(&mut profile[..i].iter());
        let under = higher(&mut profile[i + 1..].iter());
        let notch = above.min(under) - z;
        let score = notch * prior(y);
        if notch > 0.0 && best.is_none_or(|b| score > b.3) {
            best = Some((y, z, notch, score));
        }
    }
    best.map(|(y, z, notch, _)| (y, z, notch))
}

/// The chin below the mouth, in a top-down profile `(y, z)` starting under the seam: past the
/// lower lip, where the face turns under by 45 degrees (the front of the chin becoming its
/// underside). Every chin has that point, receding or jutting.
fn chin_point(profile: &[(f32, f32)], span: usize) -> Option<(f32, f32)> {
    let lip = (1..profile.len().saturating_sub(1))
        .find(|&i| profile[i].1 >= profile[i - 1].1 && profile[i].1 > profile[i + 1].1)?;
    (lip..profile.len().saturating_sub(span))
        .find(|&i| {
            let (a, b) = (profile[i], profile[i + span]);
            (a.1 - b.1) >= (a.0 - b.0)
        })
        .map(|i| profile[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deepest_groove_of_a_profile_is_the_seam() {
        // Nose, a shallow groove, the upper lip, a deep seam, the lower lip, the chin.
        let heights = [5.0, 4.0, 3.0, 3.2, 3.5, 1.0, 3.4, 3.0, 3.3, 2.0];
        let profile: Vec<(f32, f32)> = heights
            .iter()
            .enumerate()
            .map(|(i, &z)| (-(i as f32), z))
            .collect();
        let (y, z, depth) = deepest_notch(&profile, 3.0, |_| 1.0).expect("a groove");
        assert_eq!((y, z), (-5.0, 1.0));
        assert!((depth - 2.4).abs() < 1e-6);
        // Under the lower lip the face turns under where it drops as fast as it goes down.
        let chin_profile: Vec<(f32, f32)> = [1.0, 3.4, 3.3, 3.2, 3.0, 2.0, 0.5]
            .iter()
            .enumerate()
            .map(|(i, &z)| (-(i as f32), z))
            .collect();
        assert_eq!(chin_point(&chin_profile, 1), Some((-4.0, 3.0)));
    }
}
