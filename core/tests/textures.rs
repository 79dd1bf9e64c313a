//! Textures real files use: WebP (EXT_texture_webp) on the VALID avatars decodes to their
//! colours; a KTX2 (Basis Universal) image, which is not decoded yet, leaves a clear warning.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use npc_core::asset::Asset;

#[test]
fn webp_textures_of_a_real_avatar_decode_to_their_colours() {
    let Some(path) = common::shared_asset("avatars/VALID_Black_F_1_Busi.glb") else {
        return;
    };
    let asset = Asset::load(&path).unwrap();
    assert!(
        asset
            .extensions_used
            .iter()
            .any(|e| e == "EXT_texture_webp")
    );
    let undecoded: Vec<&String> = asset
        .warnings
        .iter()
        .filter(|w| w.contains("texture"))
        .collect();
    assert!(undecoded.is_empty(), "{undecoded:?}");
    let textured: Vec<_> = asset
        .materials
        .iter()
        .filter_map(|m| m.base_color_texture)
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

#[test]
fn a_ktx2_texture_is_named_in_the_warning() {
    let Some(path) = common::facecap() else {
        return;
    };
    let asset = Asset::load(&path).unwrap();
    assert!(
        asset
            .warnings
            .iter()
            .any(|w| w.contains("is KTX2 (Basis Universal")),
        "{:?}",
        asset.warnings
    );
}
