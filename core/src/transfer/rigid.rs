//! Rigid fits (Kabsch): the rotation and translation that best carry one set of points onto
//! another, for parts that move as one piece (teeth, eyeballs).

use glam::{Mat3, Vec3};
use nalgebra::Matrix3;

/// A rotation followed by a translation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rigid {
    pub rotation: Mat3,
    pub translation: Vec3,
}

impl Rigid {
    #[must_use]
    pub fn apply(&self, p: Vec3) -> Vec3 {
        self.rotation * p + self.translation
    }

    /// Least-squares fit carrying `from[i]` onto `to[i]` (no reflection). `None` for fewer than
    /// three points.
    #[must_use]
    pub fn fit(from: &[Vec3], to: &[Vec3]) -> Option<Self> {
        if from.len() < 3 || from.len() != to.len() {
            return None;
        }
        #[allow(clippy::cast_precision_loss)]
        let n = from.len() as f32;
        let a_mean = from.iter().copied().sum::<Vec3>() / n;
        let b_mean = to.iter().copied().sum::<Vec3>() / n;
        let mut h = Matrix3::<f64>::zeros();
        for (a, b) in from.iter().zip(to) {
            let a = *a - a_mean;
            let b = *b - b_mean;
            let av = nalgebra::Vector3::new(f64::from(a.x), f64::from(a.y), f64::from(a.z));
            let bv = nalgebra::Vector3::new(f64::from(b.x), f64::from(b.y), f64::from(b.z));
            h += av * bv.transpose();
        }
        let svd = h.svd(true, true);
        let (u, v_t) = (svd.u?, svd.v_t?);
        let mut correction = Matrix3::<f64>::identity();
        if (v_t.transpose() * u.transpose()).determinant() < 0.0 {
            correction[(2, 2)] = -1.0;
        }
        let r = v_t.transpose() * correction * u.transpose();
        #[allow(clippy::cast_possible_truncation)]
        let rotation = Mat3::from_cols(
            Vec3::new(r[(0, 0)] as f32, r[(1, 0)] as f32, r[(2, 0)] as f32),
            Vec3::new(r[(0, 1)] as f32, r[(1, 1)] as f32, r[(2, 1)] as f32),
            Vec3::new(r[(0, 2)] as f32, r[(1, 2)] as f32, r[(2, 2)] as f32),
        );
        if !rotation.is_finite() {
            return None;
        }
        Some(Self {
            rotation,
            translation: b_mean - rotation * a_mean,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use glam::Quat;

    use super::*;

    #[test]
    fn a_turned_and_moved_piece_is_recovered() {
        let from = vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.02, 0.0, 0.0),
            Vec3::new(0.0, 0.01, 0.0),
            Vec3::new(0.0, 0.0, 0.03),
            Vec3::new(0.01, 0.01, 0.01),
        ];
        let turn = Mat3::from_quat(Quat::from_rotation_x(0.3) * Quat::from_rotation_y(-0.2));
        let shift = Vec3::new(0.001, -0.004, 0.002);
        let to: Vec<Vec3> = from.iter().map(|p| turn * *p + shift).collect();
        let fit = Rigid::fit(&from, &to).expect("fits");
        for (a, b) in from.iter().zip(&to) {
            assert!(fit.apply(*a).distance(*b) < 1e-6);
        }
    }
}
