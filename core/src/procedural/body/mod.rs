//! A stylised humanoid made by code: a Mixamo-named skeleton (`mixamorig:Hips` ... ), a
//! skinned body in clothes (shirt, trousers, shoes, skin) built from smooth capsule-like
//! lofts, three looping clips (idle, walk, talk), and the whole avatar as GLB with a head from
//! [`super::head`] skinned to `mixamorig:Head`.
//!
//! Metres, y up, facing +Z, the character's left on +X. The rest pose stands with the arms
//! hanging at the sides; every joint's rest rotation is identity, so a clip's rotation is the
//! joint's rotation away from rest.

mod clips;
mod loft;
mod parts;
mod skeleton;
mod skin;
#[cfg(test)]
mod tests;

pub use clips::*;
use loft::*;
pub use parts::*;
pub use skeleton::*;
use skin::*;

use glam::{Mat4, Vec3};

use crate::asset::Transform;
use crate::asset::material::Material;
use crate::asset::mesh::Primitive;
use crate::asset::scene::Node;
use crate::asset::writer::GlbWriter;
use crate::procedural::head::{HeadPart, head_textures};

// The avatar

fn mesh_node(name: &str, mesh: usize, skin: usize) -> Node {
    Node {
        name: Some(name.to_owned()),
        parent: None,
        children: Vec::new(),
        transform: Transform::IDENTITY,
        mesh: Some(mesh),
        skin: Some(skin),
        gpu_instances: Vec::new(),
    }
}

/// The avatar as GLB bytes: nodes `0..JOINT_COUNT` are the joints (Hips the root), then one
/// skinned mesh node per body part and per head part, one skin ("Armature") over every joint,
/// and the clips idle, walk and talk. Head parts are moved so that their neck base
/// ([`HEAD_NECK_BASE`]) sits on the Head joint and are skinned entirely to it; their morph
/// targets and target names are kept. The same input always gives the same bytes.
#[must_use]
pub fn avatar_glb(head: &[HeadPart]) -> Vec<u8> {
    let skeleton = skeleton();
    let rest_world = skeleton.rest_world();
    let mut w = GlbWriter::new();
    for j in 0..skeleton.len() {
        let children = (0..skeleton.len())
            .filter(|&c| skeleton.parents[c] == Some(j))
            .collect();
        w.add_node(&Node {
            name: Some(skeleton.names[j].clone()),
            parent: skeleton.parents[j],
            children,
            transform: skeleton.rest[j],
            mesh: None,
            skin: None,
            gpu_instances: Vec::new(),
        });
    }
    let joints: Vec<usize> = (0..skeleton.len()).collect();
    let inverse_bind: Vec<Mat4> = rest_world.iter().map(Mat4::inverse).collect();
    let skin = w.add_skin("Armature", &joints, &inverse_bind);
    let mut roots: Vec<usize> = (0..skeleton.len())
        .filter(|&j| skeleton.parents[j].is_none())
        .collect();

    // The bare skin takes the head's skin colour (without its texture, which needs UVs).
    let head_skin = head
        .iter()
        .find(|p| p.name == super::head::SKIN_PART)
        .map(|p| p.material.base_color);
    for mut part in body_parts() {
        if part.name == SKIN_PART
            && let Some(colour) = head_skin
        {
            part.material.base_color = colour;
        }
        let material = w.add_material(&part.material, &[]);
        let primitive = Primitive {
            material: Some(material),
            ..part.primitive
        };
        let mesh = w.add_mesh(part.name, &[primitive], &[], &[]);
        roots.push(w.add_node(&mesh_node(part.name, mesh, skin)));
    }

    let head_at = rest_world
        .get(HEAD)
        .map_or(Vec3::ZERO, |m| m.w_axis.truncate());
    let offset = head_at - HEAD_NECK_BASE;
    let head_joint = u16::try_from(HEAD).unwrap_or(0);
    // The head's materials index its textures; parts sharing a material share it in the file.
    let textures = if head.iter().any(|p| p.material.base_color_texture.is_some()) {
        head_textures()
    } else {
        Vec::new()
    };
    let mut materials: Vec<(&Material, usize)> = Vec::new();
    for part in head {
        let material = match materials.iter().find(|(m, _)| **m == part.material) {
            Some(&(_, index)) => index,
            None => {
                let index = w.add_material(&part.material, &textures);
                materials.push((&part.material, index));
                index
            }
        };
        let mut primitive = part.primitive.clone();
        for p in &mut primitive.positions {
            *p = (Vec3::from(*p) + offset).to_array();
        }
        let n = primitive.positions.len();
        primitive.joints = vec![[head_joint, 0, 0, 0]; n];
        primitive.weights = vec![[1.0, 0.0, 0.0, 0.0]; n];
        primitive.material = Some(material);
        let names: &[&str] = if primitive.targets.is_empty() {
            &[]
        } else {
            &part.target_names
        };
        let mesh = w.add_mesh(part.name, &[primitive], names, &[]);
        roots.push(w.add_node(&mesh_node(part.name, mesh, skin)));
    }

    for clip in clips(&skeleton) {
        w.add_clip(&clip);
    }
    w.set_roots(roots);
    w.to_glb()
}

/// The body's skeleton and clips as a rig other avatars play clips from (retargeted): what an
/// avatar without clips of its own idles, walks and talks with.
#[must_use]
pub fn clip_rig() -> crate::body::ClipRig {
    let skeleton = skeleton();
    let clips = clips(&skeleton);
    crate::body::ClipRig::new(skeleton, clips)
}
