//! Where a material points at a texture: the texture and the affine map of texture coordinates
//! (`KHR_texture_transform`) it is read with, and the texture info a file gives before it is
//! decoded.

use serde_json::Value;

/// A texture info as a file writes it (`{"index", "texCoord", "extensions"}`), not yet
/// decoded: core glTF's, an extension's (`KHR_materials_specular`) or VRM's.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureInfo {
    pub index: usize,
    pub tex_coord: u32,
    /// Its extensions, where `KHR_texture_transform` is.
    pub extensions: Option<Value>,
}

impl TextureInfo {
    /// The texture info object `json` (none without a valid index).
    #[must_use]
    pub fn from_json(json: &Value) -> Option<Self> {
        Some(Self {
            index: usize::try_from(json.get("index")?.as_u64()?).ok()?,
            tex_coord: json
                .get("texCoord")
                .and_then(Value::as_u64)
                .and_then(|t| u32::try_from(t).ok())
                .unwrap_or(0),
            extensions: json.get("extensions").cloned(),
        })
    }

    /// A texture named by its index alone (VRM 0.x's texture properties).
    #[must_use]
    pub fn plain(index: usize) -> Self {
        Self {
            index,
            tex_coord: 0,
            extensions: None,
        }
    }
}

/// A texture a material uses: which one, and where its texture coordinates are moved to
/// (`KHR_texture_transform`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextureRef {
    /// Index into [`super::Asset::textures`].
    pub texture: usize,
    pub transform: UvTransform,
}

impl TextureRef {
    /// `texture` with its coordinates as they are.
    #[must_use]
    pub fn plain(texture: usize) -> Self {
        Self {
            texture,
            transform: UvTransform::IDENTITY,
        }
    }
}

/// An affine map of texture coordinates: `uv' = [x, y] . (u, v, 1)`, rows of a 2x3 matrix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UvTransform {
    pub x: [f32; 3],
    pub y: [f32; 3],
}

impl UvTransform {
    pub const IDENTITY: Self = Self {
        x: [1.0, 0.0, 0.0],
        y: [0.0, 1.0, 0.0],
    };

    /// `KHR_texture_transform`'s offset, rotation (radians, counter-clockwise) and scale:
    /// translation times rotation times scale, as the extension defines.
    #[must_use]
    pub fn from_offset_rotation_scale(offset: [f32; 2], rotation: f32, scale: [f32; 2]) -> Self {
        let (sin, cos) = rotation.sin_cos();
        Self {
            x: [cos * scale[0], sin * scale[1], offset[0]],
            y: [-sin * scale[0], cos * scale[1], offset[1]],
        }
    }

    /// The offset, rotation and scale this transform is made of (the inverse of
    /// [`Self::from_offset_rotation_scale`], for transforms made by it).
    #[must_use]
    pub fn offset_rotation_scale(&self) -> ([f32; 2], f32, [f32; 2]) {
        let scale = [self.x[0].hypot(self.y[0]), self.x[1].hypot(self.y[1])];
        let rotation = (-self.y[0]).atan2(self.x[0]);
        ([self.x[2], self.y[2]], rotation, scale)
    }

    /// Where `uv` is moved to.
    #[must_use]
    pub fn apply(&self, uv: [f32; 2]) -> [f32; 2] {
        [
            self.x[0] * uv[0] + self.x[1] * uv[1] + self.x[2],
            self.y[0] * uv[0] + self.y[1] * uv[1] + self.y[2],
        ]
    }
}

/// `KHR_texture_transform`'s JSON as a transform (its defaults where a value is missing).
pub(super) fn uv_transform(json: &Value) -> UvTransform {
    let pair = |key: &str, default: f32| -> [f32; 2] {
        let v = json.get(key).and_then(Value::as_array);
        let at = |i: usize| {
            v.and_then(|v| v.get(i))
                .and_then(Value::as_f64)
                .map_or(default, |x| x as f32)
        };
        [at(0), at(1)]
    };
    let rotation = json
        .get("rotation")
        .and_then(Value::as_f64)
        .map_or(0.0, |r| r as f32);
    let t =
        UvTransform::from_offset_rotation_scale(pair("offset", 0.0), rotation, pair("scale", 1.0));
    if t.x.iter().chain(&t.y).all(|v| v.is_finite()) {
        t
    } else {
        UvTransform::IDENTITY
    }
}
