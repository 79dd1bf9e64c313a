//! What the camera can see: the six planes of a view-projection (depth 0-1), for culling
//! whole NPCs before their draws are recorded.

use glam::{Mat4, Vec3, Vec4};

/// Six planes, normals pointing inward.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frustum {
    planes: [Vec4; 6],
}

impl Frustum {
    /// The frustum of `view_proj` (wgpu's clip space: x, y in -1..1, z in 0..1).
    #[must_use]
    pub fn from_view_proj(m: Mat4) -> Self {
        let r = [m.row(0), m.row(1), m.row(2), m.row(3)];
        let planes = [
            r[3] + r[0],
            r[3] - r[0],
            r[3] + r[1],
            r[3] - r[1],
            r[2],
            r[3] - r[2],
        ]
        .map(|p| {
            let n = p.truncate().length();
            if n > 0.0 { p / n } else { p }
        });
        Self { planes }
    }

    /// Whether any part of the sphere may be inside.
    #[must_use]
    pub fn sees_sphere(&self, center: Vec3, radius: f32) -> bool {
        self.planes
            .iter()
            .all(|p| p.truncate().dot(center) + p.w >= -radius)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Camera;

    #[test]
    fn spheres_in_front_are_seen_and_behind_or_aside_are_not() {
        let camera = Camera::looking_at(Vec3::ZERO, Vec3::NEG_Z);
        let f = Frustum::from_view_proj(camera.view_proj(16.0 / 9.0));
        assert!(f.sees_sphere(Vec3::new(0.0, 0.0, -10.0), 1.0));
        assert!(!f.sees_sphere(Vec3::new(0.0, 0.0, 10.0), 1.0));
        assert!(!f.sees_sphere(Vec3::new(100.0, 0.0, -10.0), 1.0));
        // Partly inside the left edge.
        let edge = 10.0 * (30_f32.to_radians().tan() * 16.0 / 9.0);
        assert!(f.sees_sphere(Vec3::new(-edge - 0.5, 0.0, -10.0), 1.0));
        assert!(!f.sees_sphere(Vec3::new(0.0, 0.0, -2000.0), 1.0));
    }
}
