//! Which lip a vertex belongs to. Near the mouth, a nearest-point lookup from the bottom edge
//! of one head's upper lip can land on the other head's lower lip, and the jaw then drags it
//! down with the chin. Vertices clearly above or below the seam are labelled by height; those
//! on the seam take their neighbours' label, which holds because the two lips' edges are not
//! joined to each other at the seam.

use glam::Vec3;

use super::landmarks::{Found, HeadFrame};
use super::surface::{PartKind, Surface};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lip {
    Upper,
    Lower,
}

/// The seam as a curve through the mouth's corners and centre, in the head's frame.
#[derive(Clone, Copy, Debug)]
pub struct Seam {
    frame: HeadFrame,
    /// (x, y) of the right corner, the centre and the left corner.
    points: [(f32, f32); 3],
    /// The centre's depth.
    depth: f32,
}

impl Seam {
    #[must_use]
    pub fn of(found: &Found) -> Option<Self> {
        let frame = found.frame;
        let at = |name| found.landmarks.get(name).map(|p| frame.local(p));
        let (right, centre, left) = (
            at("mouth_corner_right")?,
            at("mouth_centre")?,
            at("mouth_corner_left")?,
        );
        Some(Self {
            frame,
            points: [(right.x, right.y), (centre.x, centre.y), (left.x, left.y)],
            depth: centre.z,
        })
    }

    /// The seam's height at `x`, held level past the corners.
    fn height(&self, x: f32) -> f32 {
        let [r, c, l] = self.points;
        let (a, b) = if x < c.0 { (r, c) } else { (c, l) };
        let span = b.0 - a.0;
        if span.abs() < 1e-9 {
            return c.1;
        }
        let t = ((x - a.0) / span).clamp(0.0, 1.0);
        a.1 + (b.1 - a.1) * t
    }

    /// Whether a point lies in the mouth's neighbourhood, and how far above the seam.
    fn above(&self, p: Vec3) -> Option<f32> {
        let l = self.frame.local(p);
        let d = self.frame.eye_distance;
        let half_width = self.points[2].0.max(-self.points[0].0);
        let inside = l.x.abs() <= half_width + 0.15 * d
            && (l.y - self.points[1].1).abs() <= 0.35 * d
            && l.z >= self.depth - d;
        inside.then(|| l.y - self.height(l.x))
    }
}

/// A label per vertex of the soft parts near the mouth (`None` elsewhere).
#[must_use]
pub fn label(surface: &Surface, seam: &Seam) -> Vec<Option<Lip>> {
    let band = 0.02 * seam.frame.eye_distance;
    let mut labels = vec![None; surface.vertices.len()];
    let mut undecided = vec![false; surface.vertices.len()];
    for v in surface.vertices_of(PartKind::Soft) {
        match seam.above(surface.vertices[v]) {
            Some(h) if h > band => labels[v] = Some(Lip::Upper),
            Some(h) if h < -band => labels[v] = Some(Lip::Lower),
            Some(_) => undecided[v] = true,
            None => {}
        }
    }
    let neighbours = neighbours(surface);
    // Seam vertices take the label most of their labelled neighbours have, ring by ring.
    loop {
        let ring: Vec<(usize, Lip)> = (0..labels.len())
            .filter(|&v| undecided[v])
            .filter_map(|v| {
                let count = |lip| {
                    neighbours[v]
                        .iter()
                        .filter(|&&n| labels[n] == Some(lip))
                        .count()
                };
                let (up, down) = (count(Lip::Upper), count(Lip::Lower));
                (up + down > 0).then_some((v, if up >= down { Lip::Upper } else { Lip::Lower }))
            })
            .collect();
        if ring.is_empty() {
            break;
        }
        for (v, lip) in ring {
            labels[v] = Some(lip);
            undecided[v] = false;
        }
    }
    // What no labelled neighbour reaches goes by its height.
    for v in 0..labels.len() {
        if undecided[v]
            && let Some(h) = seam.above(surface.vertices[v])
        {
            labels[v] = Some(if h >= 0.0 { Lip::Upper } else { Lip::Lower });
        }
    }
    labels
}

/// The vertices joined to each vertex by a triangle edge (by index: copies of a vertex on the
/// two lips stay apart).
fn neighbours(surface: &Surface) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); surface.vertices.len()];
    for t in &surface.triangles {
        for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            if !out[a].contains(&b) {
                out[a].push(b);
            }
            if !out[b].contains(&a) {
                out[b].push(a);
            }
        }
    }
    out
}
