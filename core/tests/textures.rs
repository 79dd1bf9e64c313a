//! Textures real files use: WebP (EXT_texture_webp) on the VALID avatars decodes to their
//! colours; KTX2 with Basis Universal (KHR_texture_basisu) decodes on three.js's Face Cap head
//! and in every form Binomial's encoder writes (ETC1S, UASTC, Zstandard, mipmaps).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use base64::Engine as _;
use npc_core::asset::Asset;
use npc_core::asset::material::Texture;
use serde_json::json;

/// Loads `path`, which uses the texture `extension`, and finds no texture warning.
fn loaded_without_texture_warnings(path: &std::path::Path, extension: &str) -> Asset {
    let asset = Asset::load(path).unwrap();
    assert!(asset.extensions_used.iter().any(|e| e == extension));
    let warnings: Vec<&String> = asset
        .warnings
        .iter()
        .filter(|w| w.contains("texture"))
        .collect();
    assert!(warnings.is_empty(), "{warnings:?}");
    asset
}

#[test]
fn webp_textures_of_a_real_avatar_decode_to_their_colours() {
    let Some(path) = common::shared_asset("avatars/VALID_Black_F_1_Busi.glb") else {
        return;
    };
    let asset = loaded_without_texture_warnings(&path, "EXT_texture_webp");
    let textured: Vec<_> = asset
        .materials
        .iter()
        .filter_map(|m| m.base_color_texture.map(|t| t.texture))
        .collect();
    assert!(!textured.is_empty(), "its materials are textured");
    for t in textured {
        let texture = asset.textures[t].as_ref().expect("decoded");
        assert!(texture.width >= 64 && texture.height >= 64);
        let pixels = texture.rgba.len() / 4;
        let mean: Vec<f64> = (0..3)
            .map(|c| {
                texture
                    .rgba
                    .iter()
                    .skip(c)
                    .step_by(4)
                    .map(|&v| f64::from(v))
                    .sum::<f64>()
                    / pixels as f64
            })
            .collect();
        assert!(
            mean.iter().any(|&m| m < 230.0),
            "texture {t} is white: {mean:?}"
        );
    }
}

/// Each channel's mean and standard deviation over a texture's pixels (RGB).
fn channel_stats(texture: &Texture) -> [(f64, f64); 3] {
    let pixels = (texture.rgba.len() / 4) as f64;
    std::array::from_fn(|c| {
        let values = || {
            texture
                .rgba
                .iter()
                .skip(c)
                .step_by(4)
                .map(|&v| f64::from(v))
        };
        let mean = values().sum::<f64>() / pixels;
        let variance = values().map(|v| (v - mean).powi(2)).sum::<f64>() / pixels;
        (mean, variance.sqrt())
    })
}

#[test]
fn the_face_cap_heads_ktx2_texture_decodes_as_binomials_own_tool_unpacks_it() {
    let (Some(path), Some(basisu)) = (common::facecap(), common::basisu()) else {
        return;
    };
    let asset = loaded_without_texture_warnings(&path, "KHR_texture_basisu");
    let textured: Vec<usize> = asset
        .materials
        .iter()
        .filter_map(|m| m.base_color_texture.map(|t| t.texture))
        .collect();
    assert!(!textured.is_empty(), "its materials are textured");
    let texture = asset.textures[textured[0]].as_ref().expect("decoded");
    assert_eq!((texture.width, texture.height), (1024, 1024));
    assert_eq!(texture.rgba.len(), 1024 * 1024 * 4);
    let [red, green, blue] = channel_stats(texture);
    eprintln!("face cap texture: red {red:?} green {green:?} blue {blue:?}");
    assert!(red.1 > 10.0, "a picture, not one colour: {red:?}");

    // The same KTX2 file, taken out of the GLB and unpacked by the basisu command line (its
    // ETC1S transcoded to ETC1 and decoded, level 0): the pictures agree.
    let dir = tempfile::tempdir().unwrap();
    let ktx2 = dir.path().join("face.ktx2");
    std::fs::write(&ktx2, glb_image(&std::fs::read(&path).unwrap(), 0)).unwrap();
    let out = std::process::Command::new(&basisu)
        .current_dir(dir.path())
        .args(["-unpack", "-no_ktx", "face.ktx2"])
        .output()
        .expect("basisu runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let unpacked = image::open(dir.path().join("face_unpacked_rgb_ETC1_RGB_0_0_0000.png"))
        .unwrap()
        .to_rgba8();
    assert_eq!(unpacked.dimensions(), (1024, 1024));
    let db = psnr(&texture.rgba, unpacked.as_raw());
    eprintln!("face cap texture against basisu -unpack: {db:.1} dB");
    assert!(db > 40.0, "{db:.1} dB");
}

/// The bytes of image `index` of a GLB (one stored in a buffer view of its binary chunk).
fn glb_image(glb: &[u8], index: usize) -> Vec<u8> {
    let chunk_len = |at: usize| u32::from_le_bytes(glb[at..at + 4].try_into().unwrap()) as usize;
    let json_len = chunk_len(12);
    let json: serde_json::Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let bin = 20 + json_len + 8;
    let view = &json["bufferViews"][json["images"][index]["bufferView"].as_u64().unwrap() as usize];
    let offset = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    let length = view["byteLength"].as_u64().unwrap() as usize;
    glb[bin + offset..bin + offset + length].to_vec()
}

/// Peak signal-to-noise ratio between two RGBA8 pictures of one size, over RGB, in dB.
fn psnr(a: &[u8], b: &[u8]) -> f64 {
    assert_eq!(a.len(), b.len());
    let (sum, count) = a
        .chunks(4)
        .zip(b.chunks(4))
        .flat_map(|(p, q)| (0..3).map(move |c| (f64::from(p[c]) - f64::from(q[c])).powi(2)))
        .fold((0.0, 0usize), |(s, n), e| (s + e, n + 1));
    let mse = sum / count as f64;
    10.0 * (255.0 * 255.0 / mse.max(1e-9)).log10()
}

#[test]
fn ktx2_files_the_basis_encoder_writes_decode_close_to_their_picture() {
    let (Some(basisu), Some(avatar)) = (
        common::basisu(),
        common::shared_asset("avatars/VALID_Black_F_1_Busi.glb"),
    ) else {
        return;
    };
    // The picture: a real skin texture (the VALID head's largest), brought to 256x256.
    let asset = Asset::load(&avatar).unwrap();
    let largest = asset
        .textures
        .iter()
        .flatten()
        .max_by_key(|t| t.width * t.height)
        .expect("a decoded texture");
    let full = image::RgbaImage::from_raw(largest.width, largest.height, largest.rgba.clone())
        .expect("rgba");
    let picture = image::imageops::resize(&full, 256, 256, image::imageops::FilterType::Triangle);
    let dir = tempfile::tempdir().unwrap();
    picture.save(dir.path().join("skin.png")).unwrap();

    // Each form gltfpack, toktx and basisu write: ETC1S (BasisLZ) with and without mipmaps,
    // UASTC with Zstandard and raw. Floors a few dB under what was measured (ETC1S 33.3-33.5
    // dB, UASTC 46.3 dB): a channel swapped, a level mixed up or a row shifted falls far below.
    let forms: [(&str, &[&str], f64); 4] = [
        ("etc1s", &[], 30.0),
        ("etc1s_mips", &["-mipmap"], 30.0),
        ("uastc_zstd", &["-uastc"], 42.0),
        ("uastc_raw", &["-uastc", "-ktx2_no_zstandard"], 42.0),
    ];
    for (name, flags, _) in &forms {
        let out = std::process::Command::new(&basisu)
            .current_dir(dir.path())
            .arg("-ktx2")
            .args(*flags)
            .args(["skin.png", "-output_file", &format!("{name}.ktx2")])
            .output()
            .expect("basisu runs");
        assert!(
            out.status.success(),
            "basisu {name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    // A glTF with one triangle per form, each textured by its KTX2 image alone.
    let geometry: Vec<u8> = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&geometry)
    );
    let primitives: Vec<_> = (0..forms.len())
        .map(|m| json!({"attributes": {"POSITION": 0}, "material": m}))
        .collect();
    let document = json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["KHR_texture_basisu"],
        "extensionsRequired": ["KHR_texture_basisu"],
        "buffers": [{"uri": uri, "byteLength": geometry.len()}],
        "bufferViews": [{"buffer": 0, "byteLength": geometry.len()}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                       "min": [0, 0, 0], "max": [1, 1, 0]}],
        "meshes": [{"primitives": primitives}],
        "nodes": [{"mesh": 0}],
        "scenes": [{"nodes": [0]}],
        "scene": 0,
        "materials": (0..forms.len())
            .map(|t| json!({"pbrMetallicRoughness": {"baseColorTexture": {"index": t}}}))
            .collect::<Vec<_>>(),
        "textures": (0..forms.len())
            .map(|i| json!({"extensions": {"KHR_texture_basisu": {"source": i}}}))
            .collect::<Vec<_>>(),
        "images": forms
            .iter()
            .map(|(name, _, _)| json!({"uri": format!("{name}.ktx2"), "mimeType": "image/ktx2"}))
            .collect::<Vec<_>>(),
    });
    let gltf = dir.path().join("forms.gltf");
    std::fs::write(&gltf, serde_json::to_vec(&document).unwrap()).unwrap();
    let loaded = Asset::load(&gltf).unwrap();
    assert!(
        loaded.warnings.iter().all(|w| !w.contains("texture")),
        "{:?}",
        loaded.warnings
    );
    for (m, (name, _, floor)) in forms.iter().enumerate() {
        let t = loaded.materials[m]
            .base_color_texture
            .expect("textured")
            .texture;
        let texture = loaded.textures[t].as_ref().expect("decoded");
        assert_eq!((texture.width, texture.height), (256, 256), "{name}");
        let db = psnr(&texture.rgba, picture.as_raw());
        eprintln!("{name}: {db:.1} dB");
        assert!(db >= *floor, "{name}: {db:.1} dB, floor {floor} dB");
    }
}
