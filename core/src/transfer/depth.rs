//! The face seen from the front: for a point (x, y) in the head's frame, the depth of the
//! nearest surface in front (largest z), as a ray cast straight back would find it. Landmarks
//! are read off profiles of it.

use std::collections::HashMap;

use glam::{Vec2, Vec3};

use super::surface::point_key;

/// Triangles in the head's frame, bucketed by their extent across x and y.
#[derive(Clone, Debug)]
pub struct DepthMap {
    triangles: Vec<[Vec3; 3]>,
    cell: f32,
    cells: HashMap<(i32, i32), Vec<usize>>,
    /// Each triangle's corners as points (copies of a vertex at one place are one point).
    corners: Vec<[u64; 3]>,
    /// The triangles at each point.
    at_point: HashMap<u64, Vec<usize>>,
}

impl DepthMap {
    /// `cell`: the bucket size (a few millimetres for a head).
    #[must_use]
    pub fn new(triangles: Vec<[Vec3; 3]>, cell: f32) -> Self {
        let mut cells: HashMap<(i32, i32), Vec<usize>> = HashMap::new();
        for (t, tri) in triangles.iter().enumerate() {
            let low = tri[0].min(tri[1]).min(tri[2]);
            let high = tri[0].max(tri[1]).max(tri[2]);
            let (x0, y0) = key(low.truncate(), cell);
            let (x1, y1) = key(high.truncate(), cell);
            if (x1 - x0) > 64 || (y1 - y0) > 64 {
                continue;
            }
            for x in x0..=x1 {
                for y in y0..=y1 {
                    cells.entry((x, y)).or_default().push(t);
                }
            }
        }
        let corners: Vec<[u64; 3]> = triangles.iter().map(|t| t.map(point_key)).collect();
        let mut at_point: HashMap<u64, Vec<usize>> = HashMap::new();
        for (t, c) in corners.iter().enumerate() {
            for &k in c {
                at_point.entry(k).or_default().push(t);
            }
        }
        Self {
            triangles,
            cell,
            cells,
            corners,
            at_point,
        }
    }

    /// As [`DepthMap::front`], with the triangle met.
    #[must_use]
    pub fn front_hit(&self, x: f32, y: f32) -> Option<(f32, usize)> {
        let at = Vec2::new(x, y);
        let bucket = self.cells.get(&key(at, self.cell))?;
        bucket
            .iter()
            .filter_map(|&t| depth_in(&self.triangles[t], at).map(|z| (z, t)))
            .reduce(|a, b| if b.0 > a.0 { b } else { a })
    }

    /// Whether two triangles lie on one stretch of surface: they touch, or a triangle touches
    /// both. Rays a fraction of a millimetre apart that meet triangles farther apart crossed a
    /// fold, such as the seam between the lips.
    #[must_use]
    pub fn joined(&self, a: usize, b: usize) -> bool {
        let around = |t: usize| -> Vec<usize> {
            self.corners[t]
                .iter()
                .filter_map(|k| self.at_point.get(k))
                .flatten()
                .copied()
                .collect()
        };
        let near_a = around(a);
        if near_a.contains(&b) {
            return true;
        }
        let near_b = around(b);
        near_a.iter().any(|t| near_b.contains(t))
    }

    /// The largest z of the surface at (x, y), `None` where the ray meets nothing.
    #[must_use]
    pub fn front(&self, x: f32, y: f32) -> Option<f32> {
        let at = Vec2::new(x, y);
        let bucket = self.cells.get(&key(at, self.cell))?;
        bucket
            .iter()
            .filter_map(|&t| depth_in(&self.triangles[t], at))
            .reduce(f32::max)
    }
}

fn key(p: Vec2, cell: f32) -> (i32, i32) {
    #[allow(clippy::cast_possible_truncation)]
    let k = |v: f32| (v / cell).floor().clamp(-1e6, 1e6) as i32;
    (k(p.x), k(p.y))
}

/// The depth where a ray along z through `at` crosses the triangle, if it does.
fn depth_in(tri: &[Vec3; 3], at: Vec2) -> Option<f32> {
    let [a, b, c] = tri.map(|p| p.truncate());
    let area = (b - a).perp_dot(c - a);
    if area.abs() < 1e-14 {
        return None;
    }
    let wa = (b - at).perp_dot(c - at) / area;
    let wb = (c - at).perp_dot(a - at) / area;
    let wc = 1.0 - wa - wb;
    let eps = -1e-6;
    (wa >= eps && wb >= eps && wc >= eps).then(|| wa * tri[0].z + wb * tri[1].z + wc * tri[2].z)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_of_two_layers_is_seen() {
        let square = |z: f32| {
            [
                [
                    Vec3::new(-1.0, -1.0, z),
                    Vec3::new(1.0, -1.0, z),
                    Vec3::new(1.0, 1.0, z),
                ],
                [
                    Vec3::new(-1.0, -1.0, z),
                    Vec3::new(1.0, 1.0, z),
                    Vec3::new(-1.0, 1.0, z),
                ],
            ]
        };
        let mut triangles = square(0.2).to_vec();
        triangles.extend(square(0.5));
        let map = DepthMap::new(triangles, 0.25);
        let z = map.front(0.3, -0.4).expect("a hit");
        assert!((z - 0.5).abs() < 1e-6, "{z}");
        assert_eq!(map.front(1.5, 0.0), None);
        // Both triangles of the near square touch; the two squares do not.
        let (_, near) = map.front_hit(0.3, -0.4).expect("a hit");
        assert!(map.joined(near, 5 - near));
        assert!(!map.joined(0, 2));
    }
}
