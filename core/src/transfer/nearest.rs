//! The nearest point on a set of triangles, with its barycentric weights, through an R*-tree
//! of the triangles' boxes.

use glam::Vec3;
use rstar::{AABB, PointDistance, RTree, RTreeObject};

/// Where a query landed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// The caller's index of the triangle.
    pub triangle: usize,
    pub point: Vec3,
    /// Weights of the triangle's corners at `point` (summing to one).
    pub weights: [f32; 3],
    pub distance: f32,
}

#[derive(Clone, Debug)]
struct Entry {
    triangle: usize,
    corners: [Vec3; 3],
}

impl RTreeObject for Entry {
    type Envelope = AABB<[f32; 3]>;

    fn envelope(&self) -> Self::Envelope {
        let [a, b, c] = self.corners;
        AABB::from_corners(a.min(b).min(c).to_array(), a.max(b).max(c).to_array())
    }
}

impl PointDistance for Entry {
    fn distance_2(&self, point: &[f32; 3]) -> f32 {
        let p = Vec3::from_array(*point);
        closest_on_triangle(p, self.corners).0.distance_squared(p)
    }
}

/// Triangles to search.
#[derive(Debug)]
pub struct TriangleIndex {
    tree: RTree<Entry>,
}

impl TriangleIndex {
    #[must_use]
    pub fn new(triangles: impl Iterator<Item = (usize, [Vec3; 3])>) -> Self {
        let entries = triangles
            .filter(|(_, c)| c.iter().all(|p| p.is_finite()))
            .map(|(triangle, corners)| Entry { triangle, corners })
            .collect();
        Self {
            tree: RTree::bulk_load(entries),
        }
    }

    /// The nearest point to `p` on any triangle.
    #[must_use]
    pub fn nearest(&self, p: Vec3) -> Option<Hit> {
        let entry = self.tree.nearest_neighbor(&p.to_array())?;
        let (point, weights) = closest_on_triangle(p, entry.corners);
        Some(Hit {
            triangle: entry.triangle,
            point,
            weights,
            distance: point.distance(p),
        })
    }
}

/// The point of triangle `abc` nearest `p`, and its barycentric weights (Ericson, Real-Time
/// Collision Detection, 5.1.5).
#[must_use]
pub fn closest_on_triangle(p: Vec3, [a, b, c]: [Vec3; 3]) -> (Vec3, [f32; 3]) {
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, [1.0, 0.0, 0.0]);
    }
    let bp = p - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    if d3 >= 0.0 && d4 <= d3 {
        return (b, [0.0, 1.0, 0.0]);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return (a + ab * v, [1.0 - v, v, 0.0]);
    }
    let cp = p - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    if d6 >= 0.0 && d5 <= d6 {
        return (c, [0.0, 0.0, 1.0]);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return (a + ac * w, [1.0 - w, 0.0, w]);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (b + (c - b) * w, [0.0, 1.0 - w, w]);
    }
    let denom = va + vb + vc;
    if denom.abs() < f32::MIN_POSITIVE {
        return (a, [1.0, 0.0, 0.0]);
    }
    let v = vb / denom;
    let w = vc / denom;
    (a + ab * v + ac * w, [1.0 - v - w, v, w])
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn a_point_above_a_face_lands_inside_it_with_its_weights() {
        let tri = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let (point, w) = closest_on_triangle(Vec3::new(0.25, 0.25, 1.0), tri);
        assert!(point.distance(Vec3::new(0.25, 0.25, 0.0)) < 1e-6);
        assert!((w[0] - 0.5).abs() < 1e-6 && (w[1] - 0.25).abs() < 1e-6);
        let (edge, _) = closest_on_triangle(Vec3::new(2.0, -1.0, 0.0), tri);
        assert!(edge.distance(Vec3::X) < 1e-6);
    }

    #[test]
    fn the_nearest_of_many_triangles_is_found() {
        let index = TriangleIndex::new((0..10).map(|i| {
            let z = i as f32;
            (
                i,
                [
                    Vec3::new(0.0, 0.0, z),
                    Vec3::new(1.0, 0.0, z),
                    Vec3::new(0.0, 1.0, z),
                ],
            )
        }));
        let hit = index.nearest(Vec3::new(0.2, 0.2, 6.8)).expect("a hit");
        assert_eq!(hit.triangle, 7);
        assert!((hit.distance - 0.2).abs() < 1e-5);
    }
}
