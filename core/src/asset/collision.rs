//! Ground height for walking characters: triangles bucketed into a uniform grid over x/z, and
//! a vertical ray cast against the triangles under a point.

use std::collections::HashMap;

use glam::Vec3;

/// Side of one grid cell, metres.
pub const CELL_SIZE: f32 = 4.0;

/// Most cells one triangle is listed in; bigger triangles go to a list tested on every query.
const MAX_CELLS_PER_TRIANGLE: i64 = 1024;

/// Most triangle entries over all cells; once reached, further triangles go to the list tested
/// on every query, so no input can make the grid's memory explode.
const MAX_CELL_ENTRIES: usize = 1 << 24;

/// Barycentric slack, so that points on an edge shared by two triangles hit one of them.
const EDGE_EPSILON: f32 = 1e-6;

/// Triangles with a uniform x/z grid for fast "what is under this point" queries.
#[derive(Clone, Debug, Default)]
pub struct GroundGrid {
    triangles: Vec<[Vec3; 3]>,
    /// Triangle indices per cell; a triangle is listed in every cell its x/z bounds touch.
    cells: HashMap<(i32, i32), Vec<u32>>,
    /// Triangles covering too many cells to list; tested on every query.
    large: Vec<u32>,
}

/// The cell holding coordinate `v` on one axis (saturating for huge values).
fn cell_of(v: f32) -> i32 {
    // `as` saturates for out-of-range floats; callers pass finite values.
    (v / CELL_SIZE).floor() as i32
}

/// Whether a triangle can be hit by a vertical ray: finite, non-degenerate and not vertical.
fn usable(tri: &[Vec3; 3]) -> bool {
    if !tri.iter().all(|v| v.is_finite()) {
        return false;
    }
    let e1 = tri[1] - tri[0];
    let e2 = tri[2] - tri[0];
    let normal = e1.cross(e2);
    let scale = e1.length() * e2.length();
    normal.is_finite() && scale.is_finite() && normal.y.abs() > scale * 1e-7
}

impl GroundGrid {
    /// Builds the grid. Non-finite, degenerate and vertical triangles (which a vertical ray
    /// cannot hit) are left out.
    #[must_use]
    pub fn new(triangles: Vec<[Vec3; 3]>) -> Self {
        let mut grid = Self::default();
        let mut entries = 0_usize;
        for tri in triangles.into_iter().filter(usable) {
            let Ok(index) = u32::try_from(grid.triangles.len()) else {
                break;
            };
            let (min, max) = tri
                .iter()
                .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), v| {
                    (lo.min(*v), hi.max(*v))
                });
            let (x0, x1) = (cell_of(min.x), cell_of(max.x));
            let (z0, z1) = (cell_of(min.z), cell_of(max.z));
            let covered = (i64::from(x1) - i64::from(x0) + 1)
                .saturating_mul(i64::from(z1) - i64::from(z0) + 1);
            let covered_cells = usize::try_from(covered).unwrap_or(usize::MAX);
            if covered > MAX_CELLS_PER_TRIANGLE
                || entries.saturating_add(covered_cells) > MAX_CELL_ENTRIES
            {
                grid.large.push(index);
            } else {
                for x in x0..=x1 {
                    for z in z0..=z1 {
                        grid.cells.entry((x, z)).or_default().push(index);
                    }
                }
                entries += covered_cells;
            }
            grid.triangles.push(tri);
        }
        grid
    }

    /// Number of triangles kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.triangles.len()
    }

    /// Whether no triangle was kept.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }

    /// Height of the highest surface under (x, z), as a ray cast straight down from far above
    /// would find it; both faces of a triangle count. None where there is no surface.
    #[must_use]
    pub fn ground_height(&self, x: f32, z: f32) -> Option<f32> {
        self.highest(x, z, f32::INFINITY)
    }

    /// Height of the highest surface under (x, z) at or below `from_y`, for standing in a cave
    /// or under a bridge. Surfaces up to a millimetre (or a millionth of |from_y|) above
    /// `from_y` count, so that a character standing exactly on a surface keeps it.
    #[must_use]
    pub fn ground_below(&self, x: f32, from_y: f32, z: f32) -> Option<f32> {
        if from_y.is_nan() {
            return None;
        }
        let slack = (from_y.abs() * 1e-6).max(1e-3);
        self.highest(x, z, from_y + slack)
    }

    /// The highest hit at or below `limit` among the triangles of (x, z)'s cell and the large
    /// ones.
    fn highest(&self, x: f32, z: f32, limit: f32) -> Option<f32> {
        if !x.is_finite() || !z.is_finite() {
            return None;
        }
        let cell = self
            .cells
            .get(&(cell_of(x), cell_of(z)))
            .map_or(&[][..], Vec::as_slice);
        cell.iter()
            .chain(&self.large)
            .filter_map(|&i| self.triangles.get(i as usize))
            .filter_map(|tri| vertical_hit(x, z, tri))
            .filter(|&h| h <= limit)
            .reduce(f32::max)
    }
}

/// Möller–Trumbore intersection of the line `origin + t * dir` with a triangle (both faces):
/// the signed `t`, or None when the line misses or runs parallel to the triangle.
fn intersect(origin: Vec3, dir: Vec3, tri: &[Vec3; 3]) -> Option<f32> {
    let e1 = tri[1] - tri[0];
    let e2 = tri[2] - tri[0];
    let p = dir.cross(e2);
    let det = e1.dot(p);
    let scale = e1.length() * e2.length() * dir.length();
    if !det.is_finite() || det.abs() <= scale * 1e-7 || det == 0.0 {
        return None;
    }
    let inv_det = 1.0 / det;
    let s = origin - tri[0];
    let u = s.dot(p) * inv_det;
    if !(-EDGE_EPSILON..=1.0 + EDGE_EPSILON).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = dir.dot(q) * inv_det;
    if v < -EDGE_EPSILON || u + v > 1.0 + EDGE_EPSILON {
        return None;
    }
    let t = e2.dot(q) * inv_det;
    t.is_finite().then_some(t)
}

/// Height where the vertical line through (x, z) crosses the triangle.
///
/// This is the ray cast straight down from far above, with the ray starting at the triangle's
/// own height so that the result keeps full precision whatever the altitude.
fn vertical_hit(x: f32, z: f32, tri: &[Vec3; 3]) -> Option<f32> {
    // Most triangles of a cell are beside the line: their ground-plane box rejects them
    // before the intersection (the box grows by the edge tolerance the intersection allows).
    let (lo, hi) = (
        tri[0].min(tri[1]).min(tri[2]),
        tri[0].max(tri[1]).max(tri[2]),
    );
    let slack = (hi - lo).max_element() * EDGE_EPSILON * 2.0 + 1e-6;
    if x < lo.x - slack || x > hi.x + slack || z < lo.z - slack || z > hi.z + slack {
        return None;
    }
    let top = hi.y;
    let t = intersect(Vec3::new(x, top, z), Vec3::NEG_Y, tri)?;
    let h = top - t;
    h.is_finite().then_some(h)
}

/// Möller–Trumbore ray/triangle intersection, both faces: the distance `t >= 0` along `dir`
/// (in units of `dir`'s length) to the hit, or None.
#[must_use]
pub fn ray_triangle(origin: Vec3, dir: Vec3, tri: &[Vec3; 3]) -> Option<f32> {
    if !origin.is_finite() || !dir.is_finite() || !tri.iter().all(|v| v.is_finite()) {
        return None;
    }
    intersect(origin, dir, tri).filter(|&t| t >= 0.0)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::float_cmp)]

    use super::*;

    fn close(a: Option<f32>, b: f32) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-4)
    }

    /// y = z over the triangle (0,0,0), (10,0,0), (0,10,10).
    fn slope() -> [Vec3; 3] {
        [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(10.0, 0.0, 0.0),
            Vec3::new(0.0, 10.0, 10.0),
        ]
    }

    /// A flat square at height `y` from (x0, z0) to (x1, z1), as two triangles.
    fn square(x0: f32, z0: f32, x1: f32, z1: f32, y: f32) -> [[Vec3; 3]; 2] {
        [
            [
                Vec3::new(x0, y, z0),
                Vec3::new(x1, y, z0),
                Vec3::new(x1, y, z1),
            ],
            [
                Vec3::new(x0, y, z0),
                Vec3::new(x1, y, z1),
                Vec3::new(x0, y, z1),
            ],
        ]
    }

    #[test]
    fn sloped_triangle_gives_analytic_height() {
        let grid = GroundGrid::new(vec![slope()]);
        assert_eq!(grid.len(), 1);
        for (x, z) in [
            (1.0, 1.0),
            (2.0, 5.0),
            (0.5, 9.0),
            (4.9, 5.0),
            (7.0, 0.5),
            (3.3, 2.7),
        ] {
            assert!(
                close(grid.ground_height(x, z), z),
                "({x}, {z}): {:?}",
                grid.ground_height(x, z)
            );
        }
        // Vertices and edges.
        assert!(close(grid.ground_height(0.0, 0.0), 0.0));
        assert!(close(grid.ground_height(10.0, 0.0), 0.0));
        assert!(close(grid.ground_height(5.0, 5.0), 5.0));
    }

    #[test]
    fn misses_outside() {
        let grid = GroundGrid::new(vec![slope()]);
        assert_eq!(grid.ground_height(6.0, 6.0), None);
        assert_eq!(grid.ground_height(-1.0, 1.0), None);
        assert_eq!(grid.ground_height(100.0, 100.0), None);
        assert_eq!(grid.ground_height(f32::NAN, 1.0), None);
        assert_eq!(grid.ground_height(1.0, f32::INFINITY), None);
        assert_eq!(GroundGrid::default().ground_height(0.0, 0.0), None);
    }

    #[test]
    fn cell_borders_work() {
        let [a, b] = square(-8.0, -8.0, 8.0, 8.0, 2.0);
        let grid = GroundGrid::new(vec![a, b]);
        for x in [-8.0, -4.0, 0.0, 4.0, 8.0] {
            for z in [-8.0, -4.0, 0.0, 4.0, 8.0] {
                assert!(close(grid.ground_height(x, z), 2.0), "({x}, {z})");
            }
        }
        assert!(close(grid.ground_height(-CELL_SIZE, 3.999_999), 2.0));
        // The slope's corner sits exactly on a cell border too.
        let grid = GroundGrid::new(vec![slope()]);
        assert!(close(grid.ground_height(4.0, 4.0), 4.0));
        assert!(close(grid.ground_height(8.0, 0.0), 0.0));
    }

    #[test]
    fn stacked_surfaces() {
        let [a, b] = square(0.0, 0.0, 10.0, 10.0, 1.0);
        let [c, d] = square(0.0, 0.0, 10.0, 10.0, 5.0);
        let grid = GroundGrid::new(vec![a, c, b, d]);
        assert!(close(grid.ground_height(3.0, 3.0), 5.0));
        assert!(close(grid.ground_below(3.0, 3.0, 3.0), 1.0));
        assert!(close(grid.ground_below(3.0, 5.0, 3.0), 5.0));
        assert!(close(grid.ground_below(3.0, 1.0, 3.0), 1.0));
        assert!(close(grid.ground_below(3.0, 100.0, 3.0), 5.0));
        assert_eq!(grid.ground_below(3.0, 0.5, 3.0), None);
        assert_eq!(grid.ground_below(3.0, f32::NAN, 3.0), None);
    }

    #[test]
    fn broken_triangles_are_ignored() {
        let nan = Vec3::new(f32::NAN, 0.0, 0.0);
        let inf = Vec3::new(0.0, f32::INFINITY, 0.0);
        let grid = GroundGrid::new(vec![
            [Vec3::ZERO, Vec3::ZERO, Vec3::ZERO],
            [Vec3::ZERO, Vec3::X, Vec3::X * 2.0],
            [nan, Vec3::X, Vec3::Z],
            [inf, Vec3::X, Vec3::Z],
            // Vertical wall: a vertical ray cannot hit it.
            [Vec3::ZERO, Vec3::X, Vec3::Y],
            [Vec3::splat(f32::MAX), Vec3::splat(-f32::MAX), Vec3::Z],
            slope(),
        ]);
        assert_eq!(grid.len(), 1);
        assert!(close(grid.ground_height(1.0, 1.0), 1.0));
        assert_eq!(grid.ground_height(0.5, 0.0), Some(0.0));
        assert!(GroundGrid::new(Vec::new()).is_empty());
    }

    #[test]
    fn huge_triangles_work() {
        let huge = [
            Vec3::new(-1e7, 3.0, -1e7),
            Vec3::new(1e7, 3.0, -1e7),
            Vec3::new(0.0, 3.0, 1e7),
        ];
        let beyond_i32 = [
            Vec3::new(-1e18, -2.0, -1e18),
            Vec3::new(1e18, -2.0, -1e18),
            Vec3::new(0.0, -2.0, 1e18),
        ];
        let grid = GroundGrid::new(vec![huge, beyond_i32, slope()]);
        assert_eq!(grid.len(), 3);
        assert_eq!(grid.large.len(), 2);
        assert!(close(grid.ground_height(0.0, 0.0), 3.0));
        assert!(close(grid.ground_height(123_456.0, -98_765.0), 3.0));
        assert!(close(grid.ground_height(0.5, 9.0), 9.0));
        assert!(close(grid.ground_below(0.5, 1.0, 9.0), -2.0));
        assert!(close(grid.ground_height(1e17, 0.0), -2.0));
    }

    #[test]
    fn ray_triangle_distances() {
        let tri = slope();
        let t = ray_triangle(Vec3::new(2.0, 20.0, 5.0), Vec3::NEG_Y, &tri);
        assert!(close(t, 15.0));
        // Both faces.
        let t = ray_triangle(Vec3::new(2.0, -20.0, 5.0), Vec3::Y, &tri);
        assert!(close(t, 25.0));
        // Behind the origin.
        assert_eq!(
            ray_triangle(Vec3::new(2.0, -20.0, 5.0), Vec3::NEG_Y, &tri),
            None
        );
        // Parallel.
        assert_eq!(
            ray_triangle(
                Vec3::new(2.0, 20.0, 5.0),
                Vec3::X,
                &[Vec3::ZERO, Vec3::X, Vec3::Z]
            ),
            None
        );
        // Scaled direction: t in units of dir.
        let t = ray_triangle(Vec3::new(2.0, 20.0, 5.0), Vec3::new(0.0, -3.0, 0.0), &tri);
        assert!(close(t, 5.0));
        assert_eq!(ray_triangle(Vec3::NAN, Vec3::NEG_Y, &tri), None);
        assert_eq!(ray_triangle(Vec3::ZERO, Vec3::ZERO, &tri), None);
    }

    #[test]
    fn grid_memory_is_bounded() {
        // Long thin triangles each touching many cells go to the large list.
        let triangles: Vec<[Vec3; 3]> = (0..50)
            .map(|i| {
                let z = i as f32;
                [
                    Vec3::new(0.0, z, z),
                    Vec3::new(100_000.0, z, z),
                    Vec3::new(0.0, z, z + 0.5),
                ]
            })
            .collect();
        let grid = GroundGrid::new(triangles);
        assert_eq!(grid.large.len(), 50);
        assert!(grid.cells.is_empty());
        assert!(close(grid.ground_height(10.0, 7.1), 7.0));
    }
}
