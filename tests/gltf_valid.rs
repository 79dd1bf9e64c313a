//! Every GLB the project writes passes the Khronos glTF-Validator with no errors: the default
//! content (`generate-assets`) here, exports in tests/exports.rs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::PathBuf;

use common::validator::{assert_valid, validator};

#[test]
fn the_default_content_passes_the_khronos_validator() {
    let Some(validator) = validator() else { return };
    let dir = tempfile::tempdir().unwrap();
    let written = npc_core::procedural::generate::generate(dir.path()).unwrap();
    let glbs: Vec<PathBuf> = written
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "glb"))
        .collect();
    assert_eq!(glbs.len(), 3, "head, avatar and scene");
    assert_valid(&validator, &glbs);
}

/// A material with every texture of glTF's metallic-roughness model, a texture transform and
/// an emissive strength above 1: what the writer makes of it passes the validator and loads
/// back as it was.
#[test]
fn a_full_material_is_written_validly_and_read_back_as_it_was() {
    use npc_core::asset::Asset;
    use npc_core::asset::material::{
        Clearcoat, Material, Specular, Surface, Texture, TextureRef, UvTransform,
    };
    use npc_core::asset::mesh::Primitive;
    use npc_core::asset::writer::GlbWriter;

    let Some(validator) = validator() else { return };
    let texture = |texel: [u8; 4]| {
        Some(Texture {
            width: 4,
            height: 4,
            rgba: texel.repeat(16),
        })
    };
    let textures = [
        texture([200, 120, 90, 255]),
        texture([0, 140, 30, 255]),
        texture([128, 150, 230, 255]),
        texture([90, 90, 90, 255]),
    ];
    let moved = TextureRef {
        texture: 0,
        transform: UvTransform::from_offset_rotation_scale([0.25, 0.5], 0.3, [2.0, 0.5]),
    };
    let material = Material {
        name: Some("skin".to_owned()),
        base_color: [0.9, 0.8, 0.7, 1.0],
        base_color_texture: Some(moved),
        surface: Surface {
            metallic: 0.25,
            roughness: 0.55,
            metallic_roughness_texture: Some(TextureRef::plain(1)),
            normal_texture: Some(TextureRef::plain(2)),
            normal_scale: 0.7,
            occlusion_texture: Some(TextureRef::plain(3)),
            occlusion_strength: 0.5,
            emissive: [3.0, 1.5, 0.0],
            emissive_texture: Some(TextureRef::plain(0)),
            specular: Specular {
                ior: 1.4,
                factor: 0.8,
                texture: Some(TextureRef::plain(3)),
                color: [1.0, 0.9, 0.8],
                color_texture: Some(TextureRef::plain(0)),
            },
            clearcoat: Some(Clearcoat {
                factor: 0.6,
                texture: Some(TextureRef::plain(3)),
                roughness: 0.1,
                roughness_texture: Some(TextureRef::plain(1)),
                normal_texture: Some(TextureRef::plain(2)),
                normal_scale: 0.5,
            }),
        },
        ..Material::default()
    };
    let mut writer = GlbWriter::new();
    let m = writer.add_material(&material, &textures);
    let mesh = writer.add_mesh(
        "quad",
        &[Primitive {
            positions: vec![
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [1.0, 1.0, 0.0],
                [0.0, 1.0, 0.0],
            ],
            normals: vec![[0.0, 0.0, 1.0]; 4],
            uvs: vec![[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]],
            indices: vec![0, 1, 2, 0, 2, 3],
            material: Some(m),
            ..Primitive::default()
        }],
        &[],
        &[],
    );
    let node = writer.add_node(&npc_core::asset::scene::Node::showing("quad", mesh));
    writer.set_roots(vec![node]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("material.glb");
    writer.write(&path).unwrap();
    assert_valid(&validator, std::slice::from_ref(&path));

    let loaded = Asset::load(&path).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    let back = &loaded.materials[0];
    let (s, want) = (&back.surface, &material.surface);
    assert_eq!((s.metallic, s.roughness), (want.metallic, want.roughness));
    assert_eq!((s.normal_scale, s.occlusion_strength), (0.7, 0.5));
    for (got, wanted) in s.emissive.iter().zip(want.emissive) {
        assert!((got - wanted).abs() < 1e-5, "{:?}", s.emissive);
    }
    let t = back.base_color_texture.expect("base colour");
    for (got, wanted) in t
        .transform
        .x
        .iter()
        .chain(&t.transform.y)
        .zip(moved.transform.x.iter().chain(&moved.transform.y))
    {
        assert!((got - wanted).abs() < 1e-5, "{:?}", t.transform);
    }
    // The base colour and emissive share one stored texture; the texels survive.
    assert_eq!(s.emissive_texture.map(|e| e.texture), Some(t.texture));
    let mr = s.metallic_roughness_texture.expect("metal and roughness");
    assert_eq!(
        loaded.textures[mr.texture].as_ref().map(|t| &t.rgba[..4]),
        Some(&[0u8, 140, 30, 255][..])
    );
    assert!(s.normal_texture.is_some() && s.occlusion_texture.is_some());
    // The extensions' textures too.
    assert!(s.specular.texture.is_some() && s.specular.color_texture.is_some());
    let coat = s.clearcoat.expect("clear coat");
    assert!(coat.texture.is_some() && coat.roughness_texture.is_some());
    assert_eq!(
        (coat.normal_texture.map(|n| n.texture), coat.normal_scale),
        (s.normal_texture.map(|n| n.texture), 0.5)
    );

    // The file had no tangents: the loader made MikkTSpace's for the normal map (u runs along
    // +X, up the image is +Y). Written back they are a valid TANGENT attribute and read as
    // they were.
    let quad = &loaded.meshes[0].primitives[0];
    for t in &quad.tangents {
        let want = [1.0, 0.0, 0.0, 1.0];
        assert!(
            t.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-5),
            "{:?}",
            quad.tangents
        );
    }
    assert_eq!(quad.tangents.len(), 4);
    let mut writer = GlbWriter::new();
    let m = writer.add_material(&material, &textures);
    let mesh = writer.add_mesh(
        "quad",
        &[Primitive {
            material: Some(m),
            ..quad.clone()
        }],
        &[],
        &[],
    );
    let node = writer.add_node(&npc_core::asset::scene::Node::showing("quad", mesh));
    writer.set_roots(vec![node]);
    let again = dir.path().join("tangents.glb");
    writer.write(&again).unwrap();
    assert_valid(&validator, std::slice::from_ref(&again));
    let reloaded = Asset::load(&again).unwrap();
    assert_eq!(reloaded.meshes[0].primitives[0].tangents, quad.tangents);
}
