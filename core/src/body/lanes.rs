//! Four 3D vectors, rotations and transforms side by side, one per SIMD lane of a `Vec4`: the
//! spring bones step four joints that do not wait on each other at once (`super::spring`).

use std::ops::{Add, Mul, Sub};

use glam::{Mat4, Quat, Vec3A, Vec4};

/// Four vectors, their x in one `Vec4`, their y in another, their z in a third.
#[derive(Clone, Copy, Debug)]
pub(super) struct Lanes3 {
    pub x: Vec4,
    pub y: Vec4,
    pub z: Vec4,
}

impl Lanes3 {
    pub fn from_fn(f: impl Fn(usize) -> Vec3A) -> Self {
        let v: [Vec3A; 4] = std::array::from_fn(f);
        Self {
            x: Vec4::new(v[0].x, v[1].x, v[2].x, v[3].x),
            y: Vec4::new(v[0].y, v[1].y, v[2].y, v[3].y),
            z: Vec4::new(v[0].z, v[1].z, v[2].z, v[3].z),
        }
    }

    pub fn splat(v: Vec3A) -> Self {
        Self {
            x: Vec4::splat(v.x),
            y: Vec4::splat(v.y),
            z: Vec4::splat(v.z),
        }
    }

    pub fn lane(&self, i: usize) -> Vec3A {
        Vec3A::new(self.x[i], self.y[i], self.z[i])
    }

    pub fn dot(self, o: Self) -> Vec4 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    pub fn cross(self, o: Self) -> Self {
        Self {
            x: self.y * o.z - self.z * o.y,
            y: self.z * o.x - self.x * o.z,
            z: self.x * o.y - self.y * o.x,
        }
    }

    /// Each lane scaled by its own factor.
    pub fn scale(self, s: Vec4) -> Self {
        Self {
            x: self.x * s,
            y: self.y * s,
            z: self.z * s,
        }
    }

    /// Lane by lane product of the components.
    pub fn times(self, o: Self) -> Self {
        Self {
            x: self.x * o.x,
            y: self.y * o.y,
            z: self.z * o.z,
        }
    }

    pub fn length(self) -> Vec4 {
        self.dot(self).sqrt()
    }
}

impl Add for Lanes3 {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Self {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
}

impl Sub for Lanes3 {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        Self {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}

impl Mul<f32> for Lanes3 {
    type Output = Self;
    fn mul(self, s: f32) -> Self {
        self.scale(Vec4::splat(s))
    }
}

/// Four transforms' columns: the three axes and the translation.
#[derive(Clone, Copy, Debug)]
pub(super) struct LanesMat {
    pub axes: [Lanes3; 3],
    pub translation: Lanes3,
}

impl LanesMat {
    pub fn from_fn(f: impl Fn(usize) -> Mat4) -> Self {
        let m: [Mat4; 4] = std::array::from_fn(f);
        let column = |c: usize| Lanes3::from_fn(|i| Vec3A::from_vec4(m[i].col(c)));
        Self {
            axes: [column(0), column(1), column(2)],
            translation: column(3),
        }
    }

    pub fn splat(m: Mat4) -> Self {
        let column = |c: usize| Lanes3::splat(Vec3A::from_vec4(m.col(c)));
        Self {
            axes: [column(0), column(1), column(2)],
            translation: column(3),
        }
    }

    pub fn transform_vector(&self, v: Lanes3) -> Lanes3 {
        self.axes[0].scale(v.x) + self.axes[1].scale(v.y) + self.axes[2].scale(v.z)
    }

    pub fn transform_point(&self, v: Lanes3) -> Lanes3 {
        self.transform_vector(v) + self.translation
    }

    /// The adjugate of the linear part times `v`, its sign flipped where the determinant is
    /// negative: the inverse times `v` up to a positive scale, for any invertible transform.
    pub fn adjugate_times(&self, v: Lanes3) -> Lanes3 {
        let [x, y, z] = self.axes;
        let (yz, zx, xy) = (y.cross(z), z.cross(x), x.cross(y));
        let sign = Vec4::select(x.dot(yz).cmplt(Vec4::ZERO), Vec4::NEG_ONE, Vec4::ONE);
        Lanes3 {
            x: yz.dot(v),
            y: zx.dot(v),
            z: xy.dot(v),
        }
        .scale(sign)
    }
}

/// Four quaternions (not necessarily of unit length).
#[derive(Clone, Copy, Debug)]
pub(super) struct LanesQuat {
    pub v: Lanes3,
    pub w: Vec4,
}

impl LanesQuat {
    pub fn from_fn(f: impl Fn(usize) -> Quat) -> Self {
        let q: [Quat; 4] = std::array::from_fn(f);
        Self {
            v: Lanes3::from_fn(|i| Vec3A::new(q[i].x, q[i].y, q[i].z)),
            w: Vec4::new(q[0].w, q[1].w, q[2].w, q[3].w),
        }
    }

    pub fn lane(&self, i: usize) -> Quat {
        Quat::from_xyzw(self.v.x[i], self.v.y[i], self.v.z[i], self.w[i])
    }

    /// `v` turned by these unit quaternions.
    pub fn rotate(&self, v: Lanes3) -> Lanes3 {
        let t = self.v.cross(v) * 2.0;
        v + t.scale(self.w) + self.v.cross(t)
    }

    /// `v` turned back by these unit quaternions.
    pub fn rotate_back(&self, v: Lanes3) -> Lanes3 {
        LanesQuat {
            v: self.v * -1.0,
            w: self.w,
        }
        .rotate(v)
    }

    /// The products `self * o` lane by lane.
    pub fn then(&self, o: &Self) -> Self {
        let (a, b) = (self.v, o.v);
        Self {
            v: b.scale(self.w) + a.scale(o.w) + a.cross(b),
            w: self.w * o.w - a.dot(b),
        }
    }

    pub fn length_squared(&self) -> Vec4 {
        self.v.dot(self.v) + self.w * self.w
    }

    /// The rotation matrices' columns, for quaternions of any length given 1 / |q|^2.
    pub fn axes(&self, inv_norm_sq: Vec4) -> [Lanes3; 3] {
        let (x, y, z, w) = (self.v.x, self.v.y, self.v.z, self.w);
        let (xx, yy, zz, ww) = (x * x, y * y, z * z, w * w);
        let (xy, xz, yz, wx, wy, wz) = (x * y, x * z, y * z, w * x, w * y, w * z);
        let s = inv_norm_sq;
        let two_s = s * 2.0;
        [
            Lanes3 {
                x: (ww + xx - yy - zz) * s,
                y: (xy + wz) * two_s,
                z: (xz - wy) * two_s,
            },
            Lanes3 {
                x: (xy - wz) * two_s,
                y: (ww - xx + yy - zz) * s,
                z: (yz + wx) * two_s,
            },
            Lanes3 {
                x: (xz + wy) * two_s,
                y: (yz - wx) * two_s,
                z: (ww - xx - yy + zz) * s,
            },
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Mat3, Vec3};

    #[test]
    fn four_lanes_agree_with_glam_one_by_one() {
        let quats = [
            Quat::from_rotation_x(0.3),
            Quat::from_euler(glam::EulerRot::YXZ, 0.4, -1.1, 2.0),
            Quat::from_rotation_z(-2.5),
            Quat::IDENTITY,
        ];
        let mats = [
            Mat4::from_scale_rotation_translation(Vec3::new(1.0, 2.0, 0.5), quats[1], Vec3::X),
            Mat4::from_rotation_y(1.0) * Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)),
            Mat4::from_translation(Vec3::new(0.0, 1.5, -2.0)),
            Mat4::from_rotation_x(0.7) * Mat4::from_scale(Vec3::new(3.0, 1.0, 1.0)),
        ];
        let vectors = [
            Vec3A::new(0.2, -0.5, 0.9),
            Vec3A::new(1.0, 0.0, 0.0),
            Vec3A::new(-3.0, 2.0, 0.5),
            Vec3A::new(0.0, 0.1, -0.2),
        ];
        let q = LanesQuat::from_fn(|i| quats[i]);
        let m = LanesMat::from_fn(|i| mats[i]);
        let v = Lanes3::from_fn(|i| vectors[i]);
        let turned = q.rotate(v);
        let back = q.rotate_back(v);
        let point = m.transform_point(v);
        let undone = m.adjugate_times(v);
        let product = q.then(&LanesQuat::from_fn(|i| quats[(i + 1) % 4]));
        let axes = q.axes(q.length_squared().recip());
        for i in 0..4 {
            let close = |a: Vec3A, b: Vec3A| a.distance(b) < 1e-5;
            assert!(close(turned.lane(i), quats[i] * vectors[i]), "lane {i}");
            assert!(close(back.lane(i), quats[i].inverse() * vectors[i]));
            assert!(close(point.lane(i), mats[i].transform_point3a(vectors[i])));
            let inverse = Mat3::from_mat4(mats[i]).inverse().mul_vec3a(vectors[i]);
            assert!(undone.lane(i).dot(inverse) > 0.0);
            assert!(close(undone.lane(i).normalize(), inverse.normalize()));
            assert!(
                product
                    .lane(i)
                    .abs_diff_eq(quats[i] * quats[(i + 1) % 4], 1e-5)
            );
            let expected = Mat3::from_quat(quats[i]);
            assert!(close(axes[0].lane(i), expected.x_axis.into()));
            assert!(close(axes[2].lane(i), expected.z_axis.into()));
        }
    }
}
