//! The project's default head: a stylised human head made entirely by code (deterministic,
//! CC0), with all 52 ARKit blend shapes, built to read well in a close-up.
//!
//! Units are metres, y up, the face looking along +Z, the head's centre near the origin and the
//! neck base at y = -0.12. The head's left is +X. Parts: the skin (scalp, face, lids, lips and
//! the inside of the lips, neck), the ears, per eye a sclera, an iris and a pupil, the upper and
//! lower teeth, the tongue and the mouth interior. Every part carries the targets that move it,
//! named canonically (jawOpen lives on the skin, lower teeth, tongue and mouth interior; each
//! eye's parts carry that side's eyeLook targets), as real avatars do.
//!
//! How it is made: the skin is a grid of rays from a point inside the head (longitude by
//! elevation, denser around the eyes and mouth) cast onto a smooth skull-and-jaw shape, pushed
//! out by a relief (nose, brows, cheeks, lips, chin). The lids are wrapped onto a sphere around
//! each eyeball and the eye openings and the mouth are slits in the grid: their rows have an
//! upper and a lower copy of each vertex, which coincide where the slit is closed, so the lips
//! close without a crack. The inside of each lip (and of each lid) folds back into the head; the
//! mouth interior is a bag stitched to the lips' inner edge. Blend shapes are displacements of
//! the rest shape: the jaw rotates about a hinge near the ears, lids slide over the eyeballs,
//! eyeballs rotate about their centres, and the rest are smooth local fields.

use glam::{Vec2, Vec3};

use crate::arkit::ArkitTarget;
use crate::asset::Transform;
use crate::asset::material::{Material, Texture};
use crate::asset::mesh::{MorphTarget, Primitive};
use crate::asset::scene::Node;
use crate::asset::writer::GlbWriter;

mod assembly;
mod ear;
mod layout;
mod maths;
mod mesh;
mod morphs;
mod mouth;
mod skin;
mod surface;
mod textures;

#[cfg(test)]
mod tests;

use assembly::*;
use ear::*;
use layout::*;
use maths::*;
use mesh::*;
use morphs::*;
use mouth::*;
use skin::*;
use surface::*;
use textures::*;

/// Name of the skin part (landmark vertex indices of lids and lips refer to it).
pub const SKIN_PART: &str = "skin";
/// Name of the tongue part (the tongue-tip landmark refers to it).
pub const TONGUE_PART: &str = "tongue";

/// One separately drawn part of the head (skin, an eye, teeth, tongue, mouth interior...).
#[derive(Clone, Debug)]
pub struct HeadPart {
    pub name: &'static str,
    /// The geometry with its morph targets (`material` is `None`: see [`HeadPart::material`]).
    pub primitive: Primitive,
    /// Canonical ARKit names, one per target in `primitive.targets`.
    pub target_names: Vec<&'static str>,
    /// Its base colour texture, if any, indexes [`head_textures`].
    pub material: Material,
}

/// Landmarks for tests and for placing the head on a body (vertex indices into the named parts,
/// points in metres). Pairs are `[left, right]`, the head's left being +X.
#[derive(Clone, Debug)]
pub struct HeadLandmarks {
    /// Rotation centres of the eyeballs.
    pub eye_centres: [Vec3; 2],
    /// Centres of the pupils at rest.
    pub pupil_centres: [Vec3; 2],
    /// Skin vertices on the upper lid's edge over the middle half of each eye.
    pub upper_lid: [Vec<usize>; 2],
    /// Skin vertices on the lower lid's edge, paired with `upper_lid`.
    pub lower_lid: [Vec<usize>; 2],
    /// Skin vertices on the upper lip's inner edge (the seam), corner to corner.
    pub upper_lip_inner: Vec<usize>,
    /// Skin vertices on the lower lip's inner edge, paired with `upper_lip_inner`.
    pub lower_lip_inner: Vec<usize>,
    /// Skin vertices at the corners of the mouth.
    pub lip_corners: [usize; 2],
    /// The most forward skin vertex of the upper lip, at the middle.
    pub upper_lip_front: usize,
    /// The most forward skin vertex of the lower lip, at the middle.
    pub lower_lip_front: usize,
    /// The tip of the tongue (a vertex of the tongue part).
    pub tongue_tip: usize,
    pub chin: Vec3,
    pub nose_tip: Vec3,
    /// A point on the jaw's hinge axis (the axis runs along X).
    pub jaw_hinge: Vec3,
    /// Centre of the neck's bottom ring, where the head meets a body.
    pub neck_base: Vec3,
}

/// All parts, in metres, y up, the face looking along +Z, the head's centre near the origin
/// (neck base at about y = -0.12).
#[must_use]
pub fn head_parts() -> Vec<HeadPart> {
    build().parts
}

/// The textures the parts' materials index (the skin's colour map and the iris pattern).
/// Their colours multiply the materials' base colours.
#[must_use]
pub fn head_textures() -> Vec<Option<Texture>> {
    textures()
}

/// The head as a GLB: one mesh per part (target names in extras.targetNames), one node each,
/// all under a root node "Head".
#[must_use]
pub fn head_glb() -> Vec<u8> {
    head_glb_of(&head_parts())
}

/// These parts as a head GLB, as [`head_glb`] writes the project's own.
#[must_use]
pub fn head_glb_of(parts: &[HeadPart]) -> Vec<u8> {
    let textures = head_textures();
    let mut writer = GlbWriter::new();
    let mut materials: Vec<(Material, usize)> = Vec::new();
    let mut children = Vec::with_capacity(parts.len());
    for part in parts {
        let material = match materials.iter().find(|(m, _)| *m == part.material) {
            Some(&(_, index)) => index,
            None => {
                let index = writer.add_material(&part.material, &textures);
                materials.push((part.material.clone(), index));
                index
            }
        };
        let mut primitive = part.primitive.clone();
        primitive.material = Some(material);
        let mesh = writer.add_mesh(part.name, &[primitive], &part.target_names, &[]);
        children.push(writer.add_node(&Node::showing(part.name, mesh)));
    }
    let root = writer.add_node(&Node {
        name: Some("Head".to_owned()),
        parent: None,
        children,
        transform: Transform::IDENTITY,
        mesh: None,
        skin: None,
        gpu_instances: Vec::new(),
    });
    writer.set_roots(vec![root]);
    writer.to_glb()
}

/// Landmarks of [`head_parts`].
#[must_use]
pub fn landmarks() -> HeadLandmarks {
    build().landmarks
}

// ------------------------------------------------------------------------------------------
// Dimensions

const DEG: f32 = std::f32::consts::PI / 180.0;
const MM: f32 = 0.001;

/// The point the skin's rays start from.
const C0: Vec3 = Vec3::new(0.0, -0.010, -0.010);
const CRANIUM_C: Vec3 = Vec3::new(0.0, 0.020, -0.014);
const CRANIUM_A: Vec3 = Vec3::new(0.0725, 0.103, 0.097);
const FACE_C: Vec3 = Vec3::new(0.0, -0.030, 0.002);
const FACE_A: Vec3 = Vec3::new(0.066, 0.078, 0.084);

const EYE_X: f32 = 0.031;
const EYE_Y: f32 = 0.018;
const EYE_Z: f32 = 0.061;
/// Eyeball (sclera) radius.
const EYE_R: f32 = 0.0125;
/// Radius of the lids' edge about the eye centre.
const LID_R: f32 = EYE_R + 0.0012;
const IRIS_R: f32 = 0.0060;
const PUPIL_R: f32 = 0.0024;
/// `[left, right]`: the sign of X of each side.
const SIDES: [f32; 2] = [1.0, -1.0];

const MOUTH_Y: f32 = -0.052;
const MOUTH_X: f32 = 0.025;

const HINGE: Vec3 = Vec3::new(0.0, -0.008, -0.012);
const JAW_OPEN: f32 = 20.0 * DEG;
const JAW_SHIFT: f32 = 0.006;
const JAW_FORWARD: f32 = 0.005;
/// Where mouthClose brings the lips together, as a fraction of the jaw's drop at the seam.
const CLOSE_MEET: f32 = 0.3;

const NECK_Y: f32 = -0.12;
const NECK_Z: f32 = -0.016;
const NECK_A: Vec2 = Vec2::new(0.050, 0.054);
/// Elevation of the last common row of rays (under the chin); below it rows reach the neck.
const CHIN_ROW: f32 = -40.0 * DEG;
const JUNCTION_ROWS: usize = 4;
const NECK_ROWS: usize = 5;

const SKIN_TEXTURE: usize = 0;
const IRIS_TEXTURE: usize = 1;
const SKIN_TEX_SIZE: u32 = 512;

/// Skin tone, sRGB.
const SKIN_RGB: [f32; 3] = [0.89, 0.70, 0.59];

fn eye_centre(e: usize) -> Vec3 {
    Vec3::new(SIDES[e] * EYE_X, EYE_Y, EYE_Z)
}
