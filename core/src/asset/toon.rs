//! VRM's MToon toon shading, as VRM 1.0 (`VRMC_materials_mtoon` on a material) and VRM 0.x
//! (`extensions.VRM.materialProperties` with the `VRM/MToon` shader) describe it: a lit and a
//! shade colour with a hard or soft step between them, and a rim light. Read into the 1.0
//! factors, converting 0.x's as three-vrm's compatibility plugin does (its colours are
//! gamma-encoded; its shade shift and toony become the 1.0 step's edges; its `_SphereAdd` is
//! the matcap), and an outline (0.x widths converted as UniVRM's migration does). Textures are
//! resolved by the caller, which decodes them.

use gltf::json;
use serde_json::Value;

use super::texture_ref::{TextureInfo, TextureRef};

/// Decodes the texture a texture info names, for the use it names ("matcap"); none when it
/// cannot be.
pub type ResolveTexture<'a> = dyn FnMut(TextureInfo, &str) -> Option<TextureRef> + 'a;

/// A material's MToon shading, in VRM 1.0's terms; colours linear.
#[derive(Clone, Debug, PartialEq)]
pub struct Toon {
    /// The colour where the surface turns from the light, times its texture (sRGB; often the
    /// base colour's, as VRoid writes it, or a darker painting of it).
    pub shade: [f32; 3],
    pub shade_texture: Option<TextureRef>,
    /// Moves the step toward the light (negative) or away from it; plus the shift texture's
    /// red times its scale.
    pub shift: f32,
    pub shift_texture: Option<TextureRef>,
    pub shift_texture_scale: f32,
    /// A matcap: a picture of a lit sphere, read by the normal as the camera sees it and added
    /// to the rim light, times its factor (linear).
    pub matcap: [f32; 3],
    pub matcap_texture: Option<TextureRef>,
    /// 0: a soft ramp over the whole sphere; 1: a hard step.
    pub toony: f32,
    /// The rim light: colour, Fresnel power, lift, and how much the scene's light tints it
    /// (0: the colour alone).
    pub rim: [f32; 3],
    pub rim_power: f32,
    pub rim_lift: f32,
    pub rim_lighting_mix: f32,
    /// Multiplies the rim light and matcap (sRGB).
    pub rim_texture: Option<TextureRef>,
    /// The outline drawn around the surface, when it has one.
    pub outline: Option<Outline>,
}

/// How wide an MToon outline is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OutlineWidth {
    /// Metres in the world, along the surface's normal.
    World(f32),
    /// A share of the screen's height, whatever the distance.
    Screen(f32),
}

/// MToon's outline: the surface drawn again, grown along its normals, only its inside faces
/// (an inverted hull), so a band shows past its silhouette.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outline {
    pub width: OutlineWidth,
    /// Linear colour.
    pub color: [f32; 3],
    /// How much the surface's lit colour tints it (0: the colour alone).
    pub lighting_mix: f32,
    /// Multiplies the width: its green (VRM 1.0), or its red (`width_in_red`, VRM 0.x).
    pub width_texture: Option<TextureRef>,
    pub width_in_red: bool,
}

impl Default for Toon {
    /// VRM 1.0's defaults.
    fn default() -> Self {
        Self {
            shade: [0.0; 3],
            shade_texture: None,
            shift: 0.0,
            shift_texture: None,
            shift_texture_scale: 1.0,
            matcap: [1.0; 3],
            matcap_texture: None,
            toony: 0.9,
            rim: [0.0; 3],
            rim_power: 5.0,
            rim_lift: 0.0,
            rim_lighting_mix: 1.0,
            rim_texture: None,
            outline: None,
        }
    }
}

/// The MToon shading of material `index` of `root`, when the file gives it one, its textures
/// decoded by `resolve`.
pub fn toon_of(root: &json::Root, index: usize, resolve: &mut ResolveTexture<'_>) -> Option<Toon> {
    let material = root.materials.get(index)?;
    if let Some(mtoon) = material
        .extensions
        .as_ref()
        .and_then(|e| e.others.get("VRMC_materials_mtoon"))
    {
        return Some(vrm1(mtoon, resolve));
    }
    let properties = root
        .extensions
        .as_ref()?
        .others
        .get("VRM")?
        .get("materialProperties")?
        .as_array()?;
    // Matched by name, as UniVRM writes them; by position where no name matches.
    let entry = material
        .name
        .as_deref()
        .and_then(|name| {
            properties
                .iter()
                .find(|p| p.get("name").and_then(Value::as_str) == Some(name))
        })
        .or_else(|| properties.get(index))?;
    (entry.get("shader").and_then(Value::as_str) == Some("VRM/MToon")).then(|| vrm0(entry, resolve))
}

fn number(v: &Value, key: &str) -> Option<f32> {
    #[allow(clippy::cast_possible_truncation)]
    v.get(key)?
        .as_f64()
        .map(|x| x as f32)
        .filter(|x| x.is_finite())
}

fn colour(v: &Value, key: &str) -> Option<[f32; 3]> {
    let a = v.get(key)?.as_array()?;
    let c = |i: usize| -> Option<f32> {
        #[allow(clippy::cast_possible_truncation)]
        a.get(i)?
            .as_f64()
            .map(|x| x as f32)
            .filter(|x| x.is_finite())
    };
    Some([c(0)?, c(1)?, c(2)?])
}

/// The texture info at `key`, decoded by `resolve` for `what`.
fn texture(
    v: &Value,
    key: &str,
    what: &str,
    resolve: &mut ResolveTexture<'_>,
) -> Option<TextureRef> {
    resolve(TextureInfo::from_json(v.get(key)?)?, what)
}

fn vrm1(m: &Value, resolve: &mut ResolveTexture<'_>) -> Toon {
    let d = Toon::default();
    Toon {
        shade: colour(m, "shadeColorFactor").unwrap_or(d.shade),
        shade_texture: texture(m, "shadeMultiplyTexture", "MToon shade", resolve),
        shift: number(m, "shadingShiftFactor").unwrap_or(d.shift),
        shift_texture: texture(m, "shadingShiftTexture", "MToon shading shift", resolve),
        shift_texture_scale: m
            .get("shadingShiftTexture")
            .and_then(|t| number(t, "scale"))
            .unwrap_or(d.shift_texture_scale),
        matcap: colour(m, "matcapFactor").unwrap_or(d.matcap),
        matcap_texture: texture(m, "matcapTexture", "MToon matcap", resolve),
        toony: number(m, "shadingToonyFactor")
            .unwrap_or(d.toony)
            .clamp(0.0, 1.0),
        rim: colour(m, "parametricRimColorFactor").unwrap_or(d.rim),
        rim_power: number(m, "parametricRimFresnelPowerFactor")
            .unwrap_or(d.rim_power)
            .max(0.0),
        rim_lift: number(m, "parametricRimLiftFactor").unwrap_or(d.rim_lift),
        rim_lighting_mix: number(m, "rimLightingMixFactor")
            .unwrap_or(d.rim_lighting_mix)
            .clamp(0.0, 1.0),
        rim_texture: texture(m, "rimMultiplyTexture", "MToon rim", resolve),
        outline: vrm1_outline(m, resolve),
    }
}

/// VRM 1.0's outline: `outlineWidthMode` and `outlineWidthFactor` (metres, or a share of the
/// screen's height), `outlineColorFactor`, `outlineLightingMixFactor` (1 by default).
fn vrm1_outline(m: &Value, resolve: &mut ResolveTexture<'_>) -> Option<Outline> {
    let factor = number(m, "outlineWidthFactor").unwrap_or(0.0);
    let width = match m.get("outlineWidthMode").and_then(Value::as_str)? {
        "worldCoordinates" => OutlineWidth::World(factor),
        "screenCoordinates" => OutlineWidth::Screen(factor),
        _ => return None,
    };
    (factor > 0.0).then(|| Outline {
        width,
        color: colour(m, "outlineColorFactor").unwrap_or([0.0; 3]),
        lighting_mix: number(m, "outlineLightingMixFactor")
            .unwrap_or(1.0)
            .clamp(0.0, 1.0),
        width_texture: texture(
            m,
            "outlineWidthMultiplyTexture",
            "MToon outline width",
            resolve,
        ),
        width_in_red: false,
    })
}

/// VRM 0.x's outline, converted as UniVRM's migration to 1.0 does: `_OutlineWidthMode` 1
/// (world) takes `_OutlineWidth` in centimetres, 2 (screen) in hundredths of the screen's
/// height at half that; `_OutlineColorMode` 0 (fixed) ignores the light.
fn vrm0_outline(
    floats: &Value,
    vectors: &Value,
    width_texture: Option<TextureRef>,
) -> Option<Outline> {
    let w = number(floats, "_OutlineWidth").unwrap_or(0.0);
    let mode = number(floats, "_OutlineWidthMode").unwrap_or(0.0).round();
    let width = if mode == 1.0 {
        OutlineWidth::World(w * 0.01)
    } else if mode == 2.0 {
        OutlineWidth::Screen(w * 0.01 * 0.5)
    } else {
        return None;
    };
    let fixed = number(floats, "_OutlineColorMode").unwrap_or(0.0).round() == 0.0;
    let lighting_mix = if fixed {
        0.0
    } else {
        number(floats, "_OutlineLightingMix")
            .unwrap_or(1.0)
            .clamp(0.0, 1.0)
    };
    (w > 0.0).then(|| Outline {
        width,
        color: gamma(colour(vectors, "_OutlineColor").unwrap_or([0.0; 3])),
        lighting_mix,
        width_texture,
        width_in_red: true,
    })
}

/// VRM 0.x colours are gamma-encoded (three-vrm decodes them with a 2.2 power).
fn gamma(c: [f32; 3]) -> [f32; 3] {
    c.map(|v| v.max(0.0).powf(2.2))
}

fn vrm0(p: &Value, resolve: &mut ResolveTexture<'_>) -> Toon {
    let floats = p.get("floatProperties").unwrap_or(&Value::Null);
    let vectors = p.get("vectorProperties").unwrap_or(&Value::Null);
    let textures = p.get("textureProperties").unwrap_or(&Value::Null);
    let mut texture = |key: &str, what: &str| {
        let index = textures
            .get(key)
            .and_then(Value::as_u64)
            .and_then(|i| usize::try_from(i).ok())?;
        resolve(TextureInfo::plain(index), what)
    };
    // As three-vrm's compatibility plugin: the additive sphere is a matcap at full strength.
    let matcap_texture = texture("_SphereAdd", "MToon matcap");
    // 0.x ramps from _ShadeShift to lerp(1, _ShadeShift, _ShadeToony); these are the 1.0
    // step's factors with the same edges.
    let shade_shift = number(floats, "_ShadeShift").unwrap_or(0.0);
    let shade_toony = number(floats, "_ShadeToony").unwrap_or(0.9);
    let toony = shade_toony + (1.0 - shade_toony) * (0.5 + 0.5 * shade_shift);
    Toon {
        shade: gamma(colour(vectors, "_ShadeColor").unwrap_or([0.97, 0.81, 0.86])),
        shade_texture: texture("_ShadeTexture", "MToon shade"),
        shift: -shade_shift - (1.0 - toony),
        shift_texture: None,
        shift_texture_scale: 1.0,
        matcap: if matcap_texture.is_some() {
            [1.0; 3]
        } else {
            [0.0; 3]
        },
        matcap_texture,
        toony: toony.clamp(0.0, 1.0),
        rim: gamma(colour(vectors, "_RimColor").unwrap_or([0.0; 3])),
        rim_power: number(floats, "_RimFresnelPower").unwrap_or(1.0).max(0.0),
        rim_lift: number(floats, "_RimLift").unwrap_or(0.0),
        rim_lighting_mix: number(floats, "_RimLightingMix")
            .unwrap_or(0.0)
            .clamp(0.0, 1.0),
        rim_texture: texture("_RimTexture", "MToon rim"),
        outline: vrm0_outline(
            floats,
            vectors,
            texture("_OutlineWidthTexture", "MToon outline width"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Resolves every texture info to its index, as if every texture decoded.
    fn every_texture(info: TextureInfo, _: &str) -> Option<TextureRef> {
        Some(TextureRef::plain(info.index))
    }

    fn root(doc: Value) -> json::Root {
        serde_json::from_value(doc).expect("a glTF document")
    }

    #[test]
    fn vrm1_factors_are_read_with_the_specs_defaults() {
        let r = root(json!({
            "asset": {"version": "2.0"},
            "textures": [{"source": 0}],
            "images": [{"uri": "a.png"}],
            "materials": [
                {"name": "face", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}},
                 "extensions": {"VRMC_materials_mtoon": {
                    "specVersion": "1.0", "shadeColorFactor": [0.5, 0.25, 0.125],
                    "shadeMultiplyTexture": {"index": 0}, "shadingToonyFactor": 0.95,
                    "parametricRimColorFactor": [1, 1, 1]}}},
                {"name": "plain"}
            ]
        }));
        let t = toon_of(&r, 0, &mut every_texture).expect("toon");
        assert_eq!(t.shade, [0.5, 0.25, 0.125]);
        assert_eq!(t.shade_texture, Some(TextureRef::plain(0)));
        assert_eq!(
            (t.matcap, t.matcap_texture, t.rim_texture),
            ([1.0; 3], None, None)
        );
        assert_eq!((t.toony, t.shift, t.rim_power), (0.95, 0.0, 5.0));
        assert_eq!(t.rim, [1.0; 3]);
        assert_eq!(toon_of(&r, 1, &mut every_texture), None);
    }

    #[test]
    fn vrm0_properties_become_the_same_step() {
        // _ShadeShift -0.5, _ShadeToony 0.9: 0.x ramps over dot(N, L) from -0.5 to
        // lerp(1, -0.5, 0.9) = -0.35; the 1.0 factors give the same edges.
        let r = root(json!({
            "asset": {"version": "2.0"},
            "materials": [{"name": "Body_SKIN"}],
            "extensions": {"VRM": {"materialProperties": [{
                "name": "Body_SKIN", "shader": "VRM/MToon",
                "floatProperties": {"_ShadeShift": -0.5, "_ShadeToony": 0.9, "_RimFresnelPower": 3},
                "vectorProperties": {"_ShadeColor": [0.5, 0.5, 0.5, 1], "_RimColor": [0, 0, 0, 1]},
                "textureProperties": {"_MainTex": 2, "_ShadeTexture": 2}
            }]}}
        }));
        let t = toon_of(&r, 0, &mut every_texture).expect("toon");
        let (low, high) = (-1.0 + t.toony - t.shift, 1.0 - t.toony - t.shift);
        assert!((low - -0.5).abs() < 1e-6, "{low}");
        assert!((high - -0.35).abs() < 1e-6, "{high}");
        assert!((t.shade[0] - 0.5f32.powf(2.2)).abs() < 1e-6);
        assert_eq!(t.shade_texture, Some(TextureRef::plain(2)));
        assert_eq!(
            (t.matcap, t.matcap_texture),
            ([0.0; 3], None),
            "no sphere, no matcap"
        );
        assert_eq!(t.rim_power, 3.0);
        let other = root(json!({
            "asset": {"version": "2.0"},
            "materials": [{"name": "x"}],
            "extensions": {"VRM": {"materialProperties": [{"name": "x", "shader": "Standard"}]}}
        }));
        assert_eq!(
            toon_of(&other, 0, &mut every_texture),
            None,
            "not an MToon material"
        );
    }

    #[test]
    fn outlines_are_read_from_both_versions() {
        let r = root(json!({
            "asset": {"version": "2.0"},
            "materials": [
                {"name": "a", "extensions": {"VRMC_materials_mtoon": {
                    "specVersion": "1.0", "outlineWidthMode": "worldCoordinates",
                    "outlineWidthFactor": 0.0005, "outlineColorFactor": [0.2, 0.1, 0.0]}}},
                {"name": "b", "extensions": {"VRMC_materials_mtoon": {
                    "specVersion": "1.0", "outlineWidthMode": "screenCoordinates",
                    "outlineWidthFactor": 0.004, "outlineLightingMixFactor": 0.25}}},
                {"name": "c", "extensions": {"VRMC_materials_mtoon": {
                    "specVersion": "1.0", "outlineWidthMode": "none",
                    "outlineWidthFactor": 0.01}}}
            ]
        }));
        let a = toon_of(&r, 0, &mut every_texture)
            .and_then(|t| t.outline)
            .expect("outline");
        assert_eq!(a.width, OutlineWidth::World(0.0005));
        assert_eq!((a.color, a.lighting_mix), ([0.2, 0.1, 0.0], 1.0));
        let b = toon_of(&r, 1, &mut every_texture)
            .and_then(|t| t.outline)
            .expect("outline");
        assert_eq!(
            (b.width, b.lighting_mix),
            (OutlineWidth::Screen(0.004), 0.25)
        );
        assert_eq!(
            toon_of(&r, 2, &mut every_texture).and_then(|t| t.outline),
            None
        );
        // 0.x: VRoid's world outline of 0.08 cm, a fixed colour; a screen one at half width.
        let old = |mode: f64, colour_mode: f64| {
            root(json!({
                "asset": {"version": "2.0"},
                "materials": [{"name": "Face"}],
                "extensions": {"VRM": {"materialProperties": [{
                    "name": "Face", "shader": "VRM/MToon",
                    "floatProperties": {"_OutlineWidthMode": mode, "_OutlineWidth": 0.08,
                        "_OutlineColorMode": colour_mode, "_OutlineLightingMix": 0.5},
                    "vectorProperties": {"_OutlineColor": [0.5, 0.5, 0.5, 1]}
                }]}}
            }))
        };
        let world = toon_of(&old(1.0, 0.0), 0, &mut every_texture)
            .and_then(|t| t.outline)
            .expect("outline");
        assert_eq!(world.width, OutlineWidth::World(0.08 * 0.01));
        assert_eq!(world.lighting_mix, 0.0);
        assert!((world.color[0] - 0.5f32.powf(2.2)).abs() < 1e-6);
        let screen = toon_of(&old(2.0, 1.0), 0, &mut every_texture)
            .and_then(|t| t.outline)
            .expect("outline");
        assert_eq!(screen.width, OutlineWidth::Screen(0.08 * 0.01 * 0.5));
        assert_eq!(screen.lighting_mix, 0.5);
        assert_eq!(
            toon_of(&old(0.0, 0.0), 0, &mut every_texture).and_then(|t| t.outline),
            None
        );
    }

    #[test]
    fn toon_textures_are_read_from_both_versions() {
        let r = root(json!({
            "asset": {"version": "2.0"},
            "materials": [{"name": "hair", "extensions": {"VRMC_materials_mtoon": {
                "specVersion": "1.0", "shadeMultiplyTexture": {"index": 1},
                "shadingShiftTexture": {"index": 2, "scale": 0.5},
                "matcapFactor": [0.5, 0.5, 0.5], "matcapTexture": {"index": 3},
                "rimMultiplyTexture": {"index": 4},
                "outlineWidthMode": "worldCoordinates", "outlineWidthFactor": 0.001,
                "outlineWidthMultiplyTexture": {"index": 5}}}}]
        }));
        let t = toon_of(&r, 0, &mut every_texture).expect("toon");
        assert_eq!(t.shade_texture, Some(TextureRef::plain(1)));
        assert_eq!(
            (t.shift_texture, t.shift_texture_scale),
            (Some(TextureRef::plain(2)), 0.5)
        );
        assert_eq!(
            (t.matcap, t.matcap_texture),
            ([0.5; 3], Some(TextureRef::plain(3)))
        );
        assert_eq!(t.rim_texture, Some(TextureRef::plain(4)));
        let outline = t.outline.expect("outline");
        assert_eq!(
            (outline.width_texture, outline.width_in_red),
            (Some(TextureRef::plain(5)), false)
        );
        // VRoid's 0.x material: its own shade texture, an additive sphere, an outline width
        // texture (read in red, as 0.x's shader did).
        let old = root(json!({
            "asset": {"version": "2.0"},
            "materials": [{"name": "Face"}],
            "extensions": {"VRM": {"materialProperties": [{
                "name": "Face", "shader": "VRM/MToon",
                "floatProperties": {"_OutlineWidthMode": 1, "_OutlineWidth": 0.08},
                "textureProperties": {"_MainTex": 0, "_ShadeTexture": 1, "_SphereAdd": 3,
                    "_RimTexture": 4, "_OutlineWidthTexture": 5}
            }]}}
        }));
        let t = toon_of(&old, 0, &mut every_texture).expect("toon");
        assert_eq!(t.shade_texture, Some(TextureRef::plain(1)));
        assert_eq!(
            (t.matcap, t.matcap_texture),
            ([1.0; 3], Some(TextureRef::plain(3)))
        );
        assert_eq!(t.rim_texture, Some(TextureRef::plain(4)));
        let outline = t.outline.expect("outline");
        assert_eq!(
            (outline.width_texture, outline.width_in_red),
            (Some(TextureRef::plain(5)), true)
        );
        // A texture the loader cannot decode leaves the factor alone.
        let t = toon_of(&old, 0, &mut |_, _| None).expect("toon");
        assert_eq!((t.shade_texture, t.matcap_texture), (None, None));
    }
}
