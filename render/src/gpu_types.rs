//! Structs shared with the shaders, byte for byte. Each names the WGSL struct that mirrors it;
//! a change here needs the same change there (the layout test checks the sizes).

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3};

/// `Object::palette_offset` of an object without a skin.
pub const NO_PALETTE: u32 = u32::MAX;
/// `Object::deformed_base` of a rigid object (not run through the deform pass).
pub const NOT_DEFORMED: u32 = u32::MAX;
/// Vertices per chunk of the deform pass (its workgroup size).
pub const DEFORM_CHUNK: u32 = 64;
/// Workgroups per row of the deform pass's dispatch. Mirrors `ROW` in deform_pass.wgsl.
pub const DEFORM_ROW: u32 = 32768;

/// Per-frame values. Mirrors `Globals` in shaders/globals.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct Globals {
    pub view_proj: [[f32; 4]; 4],
    pub light_view_proj: [[f32; 4]; 4],
    pub inverse_view_proj: [[f32; 4]; 4],
    pub camera_position: [f32; 4],
    pub light_direction: [f32; 4],
    pub light_color: [f32; 4],
    pub ambient: [f32; 4],
    pub fog_color: [f32; 4],
    /// Day, noon, night weights; w the warm tint.
    pub sky_weights: [f32; 4],
    /// Fog start, fog end, sky brightness, shadows on (1) or off (0).
    pub params: [f32; 4],
    /// Shadow texel (uv), depth bias, normal offset, unused.
    pub shadow: [f32; 4],
    /// Exposure (scene light to display), sky light strength, the image's height over its
    /// width, unused.
    pub output: [f32; 4],
}

/// One vertex. Mirrors `Vertex` in shaders/deform.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct GpuVertex {
    pub position: [f32; 3],
    /// The bitangent's sign (glTF's tangent `w`), 0 when the vertex has no tangent (the
    /// shader then takes its frame from the screen-space derivatives).
    pub tangent_sign: f32,
    pub normal: [f32; 3],
    /// The tangent's direction, octahedral ([`crate::octahedral::encode`]).
    pub tangent: u32,
    pub uv: [f32; 2],
    /// Joint indices 0 and 1 in word 0, 2 and 3 in word 1 (low half first).
    pub joints: [u32; 2],
    pub weights: [f32; 4],
}

/// One drawn copy of a primitive. Mirrors `Object` in shaders/deform.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct GpuObject {
    pub model: [[f32; 4]; 4],
    pub vertex_base: u32,
    pub delta_base: u32,
    pub vertex_count: u32,
    pub palette_offset: u32,
    pub morph_offset: u32,
    pub morph_count: u32,
    pub deformed_base: u32,
    /// How many of its first vertices the deform pass writes (all of them, or the prefix
    /// that its coarser levels use).
    pub deformed_count: u32,
}

/// A vertex written by the deform pass: its position, its normal and tangent (octahedral,
/// [`crate::octahedral`]), the bitangent's sign (0: no tangent) and the texture coordinate,
/// 32 bytes. Mirrors `DeformedVertex` in shaders/deform_pass.wgsl and shaders/mesh.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct GpuDeformed {
    pub position: [f32; 3],
    pub u: f32,
    pub normal: u32,
    pub tangent: u32,
    pub v: f32,
    pub tangent_sign: f32,
}

/// 64 vertices of one object for the deform pass. Mirrors `Chunk` in
/// shaders/deform_pass.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct DeformChunk {
    pub object: u32,
    pub first: u32,
}

/// An active morph target. Mirrors `Morph` in shaders/deform.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuMorph {
    pub target: u32,
    pub weight: f32,
}

/// A material. Mirrors `Material` in shaders/mesh.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct GpuMaterial {
    /// Linear RGBA.
    pub base_color: [f32; 4],
    /// Linear RGB light given off; alpha cutoff (0 for opaque materials).
    pub emissive: [f32; 4],
    /// Metallic, roughness, normal scale (0 without a normal map), occlusion strength.
    pub surface: [f32; 4],
    /// Each texture's coordinate transform, two rows of a 2x3 matrix, by slot
    /// (`materials::Slot`); the first row's w is 1 where the slot has a texture.
    pub uv: [[f32; 4]; 30],
    /// 1 for eyes (a catchlight); 1 for skin (a softer, warmer falloff); the shading model
    /// (0 physically based, 1 VRM's MToon, 2 unlit); 1 when MToon's shade texture is the
    /// base colour's, the same texture read the same way (the shader reuses that texel).
    pub role: [f32; 4],
    /// MToon: the shade colour (linear), toony.
    pub toon_shade: [f32; 4],
    /// MToon: shift, rim Fresnel power, rim lift, rim lighting mix.
    pub toon_step: [f32; 4],
    /// MToon: the rim colour (linear), unused.
    pub toon_rim: [f32; 4],
    /// The dielectric's reflectance at normal incidence from its index of refraction times
    /// `KHR_materials_specular`'s colour (linear RGB, before its texture and the clamp to 1),
    /// and its specular factor (before its texture).
    pub dielectric: [f32; 4],
    /// `KHR_materials_clearcoat`: the coat's share (0 without one) and roughness, unused.
    pub clearcoat: [f32; 4],
    /// MToon's outline: its colour (linear), how much the lit colour tints it.
    pub toon_outline: [f32; 4],
    /// MToon's outline: its width (0 without one), how it is measured (1 metres in the world,
    /// 2 a share of the screen's height), 1 when the width texture is read in red (else
    /// green), unused.
    pub outline_width: [f32; 4],
    /// MToon: the matcap's factor (linear RGB), the shading shift texture's scale.
    pub toon_matcap: [f32; 4],
}

/// Parameters of the deform check. Mirrors `CheckParams` in shaders/deform_check.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct CheckParams {
    pub object: u32,
    pub first_vertex: u32,
    pub vertex_count: u32,
    pub pad: u32,
}

/// Parameters of the deform pass. Mirrors `DeformParams` in shaders/deform_pass.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct DeformParams {
    pub chunk_count: u32,
    pub pad: [u32; 3],
}

/// A matrix as the shaders read it (column-major).
#[must_use]
pub fn mat(m: Mat4) -> [[f32; 4]; 4] {
    m.to_cols_array_2d()
}

/// A joint's skinning matrix as the deform pass reads it: the top three rows of an affine
/// matrix (its last row is always 0, 0, 0, 1), 48 bytes instead of 64. A crowd of 10,000
/// NPCs writes and uploads about half a million of these a frame.
pub type JointRows = [[f32; 4]; 3];

/// The rows of `m` that [`JointRows`] keeps.
#[must_use]
pub fn joint_rows(m: Mat4) -> JointRows {
    let t = m.transpose();
    [
        t.x_axis.to_array(),
        t.y_axis.to_array(),
        t.z_axis.to_array(),
    ]
}

/// A vector with a fourth component.
#[must_use]
pub fn vec4(v: Vec3, w: f32) -> [f32; 4] {
    [v.x, v.y, v.z, w]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_the_wgsl_layouts() {
        // WGSL sizes: 3 mat4 (192) + 9 vec4 (144); vertex 64; object mat4 + 8 u32 (96);
        // material 19 vec4 (304).
        assert_eq!(size_of::<Globals>(), 192 + 9 * 16);
        assert_eq!(size_of::<GpuVertex>(), 64);
        assert_eq!(size_of::<GpuObject>(), 96);
        assert_eq!(size_of::<GpuMorph>(), 8);
        assert_eq!(size_of::<GpuMaterial>(), 42 * 16);
        assert_eq!(size_of::<CheckParams>(), 16);
        assert_eq!(size_of::<GpuDeformed>(), 32);
        assert_eq!(size_of::<DeformChunk>(), 8);
    }
}
