//! Node transforms: translation, rotation, scale.

use glam::{Mat4, Quat, Vec3};

/// A local transform as glTF stores it (a matrix is decomposed on load).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    pub const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    #[must_use]
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// Decomposes a matrix; non-finite parts fall back to identity.
    #[must_use]
    pub fn from_mat4(m: &Mat4) -> Self {
        let (scale, rotation, translation) = m.to_scale_rotation_translation();
        let mut t = Self {
            translation,
            rotation,
            scale,
        };
        t.sanitise();
        t
    }

    /// Replaces non-finite values with identity parts and normalises the rotation.
    pub fn sanitise(&mut self) {
        if !self.translation.is_finite() {
            self.translation = Vec3::ZERO;
        }
        if !self.scale.is_finite() {
            self.scale = Vec3::ONE;
        }
        self.rotation = if self.rotation.is_finite() && self.rotation.length_squared() > 1e-12 {
            self.rotation.normalize()
        } else {
            Quat::IDENTITY
        };
    }
}
