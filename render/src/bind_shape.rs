//! A mesh's vertices taken through its skin's bind shape as they are stored: positions as
//! points, target deltas as vectors, normals by the inverse transpose, tangents keeping their
//! handedness (a mirroring shape flips it).

use glam::{Mat3, Mat4, Vec3};

/// The bind shape of one mesh, ready to apply.
#[derive(Clone, Copy, Debug)]
pub struct BindShape {
    whole: Mat4,
    linear: Mat3,
    normals: Mat3,
    mirrors: bool,
    identity: bool,
}

impl BindShape {
    #[must_use]
    pub fn new(whole: Mat4) -> Self {
        let linear = Mat3::from_mat4(whole);
        Self {
            whole,
            linear,
            normals: linear.inverse().transpose(),
            mirrors: linear.determinant() < 0.0,
            identity: whole == Mat4::IDENTITY,
        }
    }

    #[must_use]
    pub fn point(&self, p: [f32; 3]) -> [f32; 3] {
        if self.identity {
            return p;
        }
        self.whole.transform_point3(Vec3::from(p)).to_array()
    }

    #[must_use]
    pub fn vector(&self, v: [f32; 3]) -> [f32; 3] {
        if self.identity {
            return v;
        }
        (self.linear * Vec3::from(v)).to_array()
    }

    /// A unit normal, still of unit length.
    #[must_use]
    pub fn normal(&self, n: [f32; 3]) -> [f32; 3] {
        if self.identity {
            return n;
        }
        (self.normals * Vec3::from(n))
            .normalize_or_zero()
            .to_array()
    }

    /// A normal's target delta (the shader normalises the sum).
    #[must_use]
    pub fn normal_delta(&self, d: [f32; 3]) -> [f32; 3] {
        if self.identity {
            return d;
        }
        (self.normals * Vec3::from(d)).to_array()
    }

    /// A tangent and its bitangent's sign.
    #[must_use]
    pub fn tangent(&self, t: [f32; 3], sign: f32) -> ([f32; 3], f32) {
        if self.identity {
            return (t, sign);
        }
        let turned = (self.linear * Vec3::from(t)).normalize_or_zero().to_array();
        (turned, if self.mirrors { -sign } else { sign })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scaled_and_moved_shape_keeps_normals_unit_and_perpendicular() {
        let shape = BindShape::new(
            Mat4::from_translation(Vec3::new(0.1, 0.8, 0.0))
                * Mat4::from_scale(Vec3::new(0.01, 0.02, 0.01)),
        );
        let p = shape.point([100.0, 50.0, 0.0]);
        assert!(Vec3::from(p).abs_diff_eq(Vec3::new(1.1, 1.8, 0.0), 1e-6));
        assert_eq!(shape.vector([100.0, 0.0, 0.0]), [1.0, 0.0, 0.0]);
        // A surface along (1, 1, 0) in the file keeps its normal perpendicular after.
        let n = Vec3::from(shape.normal([-1.0, 1.0, 0.0]));
        assert!((n.length() - 1.0).abs() < 1e-6);
        let along = Vec3::from(shape.vector([1.0, 1.0, 0.0]));
        assert!(n.dot(along).abs() < 1e-6, "{n} . {along}");
    }

    #[test]
    fn a_mirroring_shape_flips_the_bitangent_and_identity_changes_nothing() {
        let mirror = BindShape::new(Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)));
        assert_eq!(
            mirror.tangent([1.0, 0.0, 0.0], 1.0),
            ([-1.0, 0.0, 0.0], -1.0)
        );
        let same = BindShape::new(Mat4::IDENTITY);
        assert_eq!(same.tangent([0.6, 0.8, 0.0], -1.0), ([0.6, 0.8, 0.0], -1.0));
        assert_eq!(same.point([1.0, 2.0, 3.0]), [1.0, 2.0, 3.0]);
    }
}
