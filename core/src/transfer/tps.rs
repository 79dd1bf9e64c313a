//! A thin-plate spline in 3D: the smoothest warp that carries each source landmark exactly onto
//! its target partner. In three dimensions its radial kernel is |r|; an affine part carries
//! everything far from the landmarks.

use glam::Vec3;
use nalgebra::{DMatrix, DVector};

/// A fitted warp.
#[derive(Clone, Debug)]
pub struct ThinPlateSpline {
    centres: Vec<Vec3>,
    /// One weight per centre.
    weights: Vec<Vec3>,
    /// `a0 + a1 x + a2 y + a3 z`.
    affine: [Vec3; 4],
}

impl ThinPlateSpline {
    /// Fits the warp carrying `from[i]` onto `to[i]`. `None` when the landmarks are too few
    /// (under five) or all in one plane, so that no warp is defined.
    #[must_use]
    pub fn fit(from: &[Vec3], to: &[Vec3]) -> Option<Self> {
        let n = from.len();
        if n < 5 || to.len() != n {
            return None;
        }
        if !spans_space(from) {
            return None;
        }
        let size = n + 4;
        let mut system = DMatrix::<f64>::zeros(size, size);
        for (i, a) in from.iter().enumerate() {
            for (j, b) in from.iter().enumerate() {
                system[(i, j)] = f64::from(a.distance(*b));
            }
            let row = [1.0, f64::from(a.x), f64::from(a.y), f64::from(a.z)];
            for (k, &value) in row.iter().enumerate() {
                system[(i, n + k)] = value;
                system[(n + k, i)] = value;
            }
        }
        let lu = system.lu();
        let mut solution = Vec::with_capacity(3);
        for axis in 0..3 {
            let mut rhs = DVector::<f64>::zeros(size);
            for (i, t) in to.iter().enumerate() {
                rhs[i] = f64::from(t[axis]);
            }
            let x = lu.solve(&rhs)?;
            if x.iter().any(|v| !v.is_finite()) {
                return None;
            }
            solution.push(x);
        }
        #[allow(clippy::cast_possible_truncation)]
        let at = |row: usize| {
            Vec3::new(
                solution[0][row] as f32,
                solution[1][row] as f32,
                solution[2][row] as f32,
            )
        };
        Some(Self {
            centres: from.to_vec(),
            weights: (0..n).map(at).collect(),
            affine: [at(n), at(n + 1), at(n + 2), at(n + 3)],
        })
    }

    /// Where the warp carries `p`.
    #[must_use]
    pub fn apply(&self, p: Vec3) -> Vec3 {
        let [a0, ax, ay, az] = self.affine;
        let mut out = a0 + ax * p.x + ay * p.y + az * p.z;
        for (c, w) in self.centres.iter().zip(&self.weights) {
            out += *w * c.distance(p);
        }
        out
    }
}

/// Whether points spread in all three directions (no plane holds them all).
fn spans_space(points: &[Vec3]) -> bool {
    #[allow(clippy::cast_precision_loss)]
    let mean = points.iter().copied().sum::<Vec3>() / points.len() as f32;
    let mut covariance = nalgebra::Matrix3::<f64>::zeros();
    for p in points {
        let d = nalgebra::Vector3::new(
            f64::from(p.x - mean.x),
            f64::from(p.y - mean.y),
            f64::from(p.z - mean.z),
        );
        covariance += d * d.transpose();
    }
    let eigen = covariance.symmetric_eigenvalues();
    let largest = eigen.max();
    largest > 0.0 && eigen.min() > largest * 1e-8
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn cube() -> Vec<Vec3> {
        let mut points = Vec::new();
        for x in [-1.0, 1.0] {
            for y in [-1.0, 1.0] {
                for z in [-1.0, 1.0] {
                    points.push(Vec3::new(x, y, z) * 0.05);
                }
            }
        }
        points.push(Vec3::new(0.01, 0.02, 0.03));
        points
    }

    #[test]
    fn landmarks_land_exactly_on_their_partners() {
        let from = cube();
        let to: Vec<Vec3> = from
            .iter()
            .map(|p| *p * 1.2 + Vec3::new(0.0, 0.01 * p.x.signum(), p.y * p.y))
            .collect();
        let warp = ThinPlateSpline::fit(&from, &to).expect("fits");
        for (a, b) in from.iter().zip(&to) {
            assert!(
                warp.apply(*a).distance(*b) < 1e-5,
                "{a} -> {}",
                warp.apply(*a)
            );
        }
    }

    #[test]
    fn an_affine_map_is_reproduced_everywhere() {
        let from = cube();
        let map = |p: Vec3| Vec3::new(1.1 * p.x + 0.2 * p.y, 0.9 * p.y, p.z + 0.3 * p.x) + 0.02;
        let to: Vec<Vec3> = from.iter().map(|p| map(*p)).collect();
        let warp = ThinPlateSpline::fit(&from, &to).expect("fits");
        let far = Vec3::new(0.3, -0.2, 0.1);
        assert!(warp.apply(far).distance(map(far)) < 1e-4);
    }

    #[test]
    fn landmarks_in_one_plane_define_no_warp() {
        let flat: Vec<Vec3> = (0..8)
            .map(|i| Vec3::new(i as f32, (i * i) as f32, 0.0))
            .collect();
        assert!(ThinPlateSpline::fit(&flat, &flat).is_none());
    }
}
