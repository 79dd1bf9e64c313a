//! Materials (glTF's metallic-roughness model: base colour, metal and roughness, normal,
//! occlusion and emissive textures with their `KHR_texture_transform`s, alpha mode, double
//! sides) and the textures they use, decoded.

use gltf::json;
use gltf::json::validation::Checked;

use super::accessor::Reader;
use super::ktx2;
use super::source::Source;
use super::texture_ref::uv_transform;
pub use super::texture_ref::{TextureInfo, TextureRef, UvTransform};
use super::toon::{Toon, toon_of};

/// How a material's alpha is used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AlphaMode {
    Opaque,
    /// Fragments with alpha below the cutoff are discarded (grass, leaves).
    Mask {
        cutoff: f32,
    },
    Blend,
}

/// What the renderer needs of a glTF material: glTF's metallic-roughness model in full.
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    pub name: Option<String>,
    /// Linear RGBA, multiplied by the base-colour texture.
    pub base_color: [f32; 4],
    /// The base-colour texture (sRGB), when it could be decoded.
    pub base_color_texture: Option<TextureRef>,
    pub alpha_mode: AlphaMode,
    pub double_sided: bool,
    /// How light plays on the surface beyond its colour.
    pub surface: Surface,
    /// VRM's toon shading, drawn in place of the physically based model when the file gives
    /// it.
    pub toon: Option<Toon>,
    /// `KHR_materials_unlit`: the base colour as it is, whatever the light (when there is no
    /// toon shading).
    pub unlit: bool,
}

/// glTF's metallic-roughness surface: how metallic and rough it is, the detail of its normal
/// map, its ambient occlusion and the light it gives off. Textures hold linear data, except
/// the emissive one (sRGB).
#[derive(Clone, Debug, PartialEq)]
pub struct Surface {
    /// 0: a dielectric (skin, cloth, wood); 1: a metal.
    pub metallic: f32,
    /// 0: a mirror; 1: fully rough.
    pub roughness: f32,
    /// Roughness in green, metalness in blue, multiplying the factors.
    pub metallic_roughness_texture: Option<TextureRef>,
    /// A tangent-space normal map and how strongly it bends the normal.
    pub normal_texture: Option<TextureRef>,
    pub normal_scale: f32,
    /// Ambient occlusion in red, and how much of it applies (0-1).
    pub occlusion_texture: Option<TextureRef>,
    pub occlusion_strength: f32,
    /// Light given off, linear RGB (times `KHR_materials_emissive_strength`).
    pub emissive: [f32; 3],
    pub emissive_texture: Option<TextureRef>,
    /// How the dielectric part reflects (`KHR_materials_ior`, `KHR_materials_specular`).
    pub specular: Specular,
    /// A clear varnish over it (`KHR_materials_clearcoat`), when it has one.
    pub clearcoat: Option<Clearcoat>,
}

/// How a dielectric reflects: its index of refraction (`KHR_materials_ior`; glTF's 1.5
/// without it) and `KHR_materials_specular`'s strength and tint, each times its texture.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Specular {
    pub ior: f32,
    /// Scales the dielectric's reflection (0 takes it away).
    pub factor: f32,
    /// Multiplies the factor by its alpha (linear).
    pub texture: Option<TextureRef>,
    /// Tints it, linear RGB.
    pub color: [f32; 3],
    /// Multiplies the tint by its RGB (sRGB).
    pub color_texture: Option<TextureRef>,
}

impl Specular {
    /// glTF's dielectric: index of refraction 1.5, untinted.
    pub const DEFAULT: Self = Self {
        ior: 1.5,
        factor: 1.0,
        texture: None,
        color: [1.0; 3],
        color_texture: None,
    };

    /// The dielectric's reflectance at normal incidence, linear RGB (0.04 by default), as
    /// `KHR_materials_specular` defines it: Fresnel's from the index of refraction, tinted,
    /// at most 1, times the factor (before the textures, which the shader applies).
    #[must_use]
    pub fn f0(&self) -> [f32; 3] {
        let r = self.ior_reflectance();
        self.color.map(|c| (r * c).min(1.0) * self.factor)
    }

    /// Fresnel's reflectance at normal incidence for the index of refraction alone,
    /// ((ior - 1) / (ior + 1))^2.
    #[must_use]
    pub fn ior_reflectance(&self) -> f32 {
        ((self.ior - 1.0) / (self.ior + 1.0)).powi(2)
    }
}

/// `KHR_materials_clearcoat`: a clear coat (varnish, car paint, wet lips) over the material,
/// with its own roughness and normal map.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clearcoat {
    /// How much of the coat there is (0-1), times its texture's red.
    pub factor: f32,
    pub texture: Option<TextureRef>,
    /// Its roughness, times its texture's green.
    pub roughness: f32,
    pub roughness_texture: Option<TextureRef>,
    /// The coat's own bumps (tangent space), and how strongly they bend its normal.
    pub normal_texture: Option<TextureRef>,
    pub normal_scale: f32,
}

impl Clearcoat {
    /// A coat of `factor` and `roughness`, without textures.
    #[must_use]
    pub fn plain(factor: f32, roughness: f32) -> Self {
        Self {
            factor,
            texture: None,
            roughness,
            roughness_texture: None,
            normal_texture: None,
            normal_scale: 1.0,
        }
    }
}

impl Surface {
    /// A plain matte dielectric, as the project's own content is made.
    pub const MATTE: Self = Self {
        metallic: 0.0,
        roughness: 0.8,
        metallic_roughness_texture: None,
        normal_texture: None,
        normal_scale: 1.0,
        occlusion_texture: None,
        occlusion_strength: 1.0,
        emissive: [0.0; 3],
        emissive_texture: None,
        specular: Specular::DEFAULT,
        clearcoat: None,
    };

    /// What glTF gives a material that says nothing of its surface (and a primitive without
    /// a material): fully metallic and fully rough.
    pub const GLTF_DEFAULT: Self = Self {
        metallic: 1.0,
        roughness: 1.0,
        ..Self::MATTE
    };
}

/// What part of a character a material dresses, for the shading faces need: eyes get a
/// catchlight, skin a softer, warmer falloff, the mouth a wet film.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Eyeballs: iris, pupil, sclera, cornea (not lashes, lids or brows).
    Eye,
    Skin,
    /// Lips, teeth, tongue and the inside of the mouth.
    Mouth,
    Other,
}

/// The film of saliva a mouth material without a clear coat of its own is drawn with: a full
/// coat, nearly smooth, so lips, teeth and tongue catch the light as wet surfaces do.
pub const WET_FILM: Clearcoat = Clearcoat {
    factor: 1.0,
    texture: None,
    roughness: 0.12,
    roughness_texture: None,
    normal_texture: None,
    normal_scale: 1.0,
};

impl Material {
    /// The role its name gives it, as avatar tools name materials: Ready Player Me's
    /// `Wolf3D_Eye`, `Wolf3D_Skin` and `Wolf3D_Teeth`, VRoid's `EyeIris`, `EyeWhite`,
    /// `Face_00_SKIN` and `FaceMouth`, Mixamo's `Eyes`, this project's `iris` and `skin`.
    #[must_use]
    pub fn role(&self) -> Role {
        let name = self.name.as_deref().unwrap_or_default().to_lowercase();
        let has = |words: &[&str]| words.iter().any(|w| name.contains(w));
        if has(&["lash", "brow", "lid", "line", "shadow"]) {
            return Role::Other;
        }
        if has(&["eye", "iris", "pupil", "sclera", "cornea"]) {
            Role::Eye
        } else if has(&["mouth", "lip", "teeth", "tooth", "tongue", "gum"]) {
            Role::Mouth
        } else if has(&["skin", "face"]) {
            Role::Skin
        } else {
            Role::Other
        }
    }

    /// The clear coat it is drawn with: the file's, else [`WET_FILM`] for a physically based
    /// mouth material (a toon or unlit one is drawn as its author made it).
    #[must_use]
    pub fn clearcoat(&self) -> Option<Clearcoat> {
        self.surface.clearcoat.or_else(|| {
            (self.role() == Role::Mouth && self.toon.is_none() && !self.unlit).then_some(WET_FILM)
        })
    }
}

impl Default for Material {
    fn default() -> Self {
        Self {
            name: None,
            base_color: [1.0; 4],
            base_color_texture: None,
            alpha_mode: AlphaMode::Opaque,
            double_sided: false,
            surface: Surface::MATTE,
            toon: None,
            unlit: false,
        }
    }
}

/// A decoded texture, 8-bit RGBA as stored: sRGB for colour (base colour, emissive), linear
/// for data (normals, metal and roughness, occlusion).
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// Reads materials and decodes the textures they use. A texture that cannot be decoded
/// (a KTX2 file the Basis Universal transcoder refuses, a missing file, a corrupt image) leaves
/// its material without it, with a warning.
pub fn read_materials(
    source: &Source,
    reader: &Reader<'_>,
    warnings: &mut Vec<String>,
) -> (Vec<Material>, Vec<Option<Texture>>) {
    let root = reader.root;
    let mut textures = Textures {
        source,
        reader,
        decoded: vec![None; root.textures.len()],
    };
    let mut materials = Vec::with_capacity(root.materials.len());
    for (m, material) in root.materials.iter().enumerate() {
        let pbr = &material.pbr_metallic_roughness;
        let mut base_color = pbr.base_color_factor.0;
        if base_color.iter().any(|c| !c.is_finite()) {
            base_color = [1.0; 4];
        }
        let mut slot =
            |info: Option<TextureInfo>, what: &str| textures.slot(m, what, &info?, warnings);
        let base_color_texture = slot(info_of(pbr.base_color_texture.as_ref()), "base colour");
        let metallic_roughness_texture = slot(
            info_of(pbr.metallic_roughness_texture.as_ref()),
            "metal and roughness",
        );
        let normal_texture = slot(
            material.normal_texture.as_ref().map(|n| TextureInfo {
                index: n.index.value(),
                tex_coord: n.tex_coord,
                extensions: serde_json::to_value(&n.extensions).ok(),
            }),
            "normal",
        );
        let occlusion_texture = slot(
            material.occlusion_texture.as_ref().map(|o| TextureInfo {
                index: o.index.value(),
                tex_coord: o.tex_coord,
                extensions: serde_json::to_value(&o.extensions).ok(),
            }),
            "occlusion",
        );
        let emissive_texture = slot(info_of(material.emissive_texture.as_ref()), "emissive");
        let extension_json = |name: &str| {
            material
                .extensions
                .as_ref()
                .and_then(|e| e.others.get(name))
        };
        // An extension's texture info.
        let info = |name: &str, field: &str| {
            extension_json(name)
                .and_then(|e| e.get(field))
                .and_then(TextureInfo::from_json)
        };
        let specular_texture = slot(
            info("KHR_materials_specular", "specularTexture"),
            "specular",
        );
        let specular_color_texture = slot(
            info("KHR_materials_specular", "specularColorTexture"),
            "specular colour",
        );
        let coat_textures = [
            ("clearcoatTexture", "clear coat"),
            ("clearcoatRoughnessTexture", "clear coat roughness"),
            ("clearcoatNormalTexture", "clear coat normal"),
        ]
        .map(|(field, what)| slot(info("KHR_materials_clearcoat", field), what));
        let toon = toon_of(root, m, &mut |info, what| slot(Some(info), what));
        let alpha_mode = match material.alpha_mode {
            Checked::Valid(json::material::AlphaMode::Mask) => AlphaMode::Mask {
                cutoff: material.alpha_cutoff.map_or(0.5, |c| c.0),
            },
            Checked::Valid(json::material::AlphaMode::Blend) => AlphaMode::Blend,
            _ => AlphaMode::Opaque,
        };
        let extension = |name: &str, field: &str| {
            extension_json(name).map(|e| e.get(field).and_then(serde_json::Value::as_f64))
        };
        let strength = extension("KHR_materials_emissive_strength", "emissiveStrength")
            .flatten()
            .map_or(1.0, |s| s as f32);
        let finite = |v: f32, default: f32| if v.is_finite() { v } else { default };
        let number = |name: &str, field: &str, default: f32| {
            extension(name, field)
                .flatten()
                .map_or(default, |v| finite(v as f32, default))
        };
        let specular = Specular {
            // 0 is allowed (a perfect mirror's limit); below 1 is not physical.
            ior: match number("KHR_materials_ior", "ior", 1.5) {
                i if i == 0.0 || i >= 1.0 => i,
                _ => 1.5,
            },
            factor: number("KHR_materials_specular", "specularFactor", 1.0).clamp(0.0, 1.0),
            texture: specular_texture,
            color_texture: specular_color_texture,
            color: extension_json("KHR_materials_specular")
                .and_then(|e| e.get("specularColorFactor"))
                .and_then(|c| serde_json::from_value::<[f32; 3]>(c.clone()).ok())
                .map_or([1.0; 3], |c| c.map(|c| finite(c, 1.0).max(0.0))),
        };
        let coat = number("KHR_materials_clearcoat", "clearcoatFactor", 0.0).clamp(0.0, 1.0);
        let [coat_texture, coat_roughness_texture, coat_normal_texture] = coat_textures;
        let clearcoat = (coat > 0.0).then(|| Clearcoat {
            factor: coat,
            texture: coat_texture,
            roughness: number("KHR_materials_clearcoat", "clearcoatRoughnessFactor", 0.0)
                .clamp(0.0, 1.0),
            roughness_texture: coat_roughness_texture,
            normal_texture: coat_normal_texture,
            normal_scale: extension_json("KHR_materials_clearcoat")
                .and_then(|e| e.get("clearcoatNormalTexture"))
                .and_then(|t| t.get("scale"))
                .and_then(serde_json::Value::as_f64)
                .map_or(1.0, |s| finite(s as f32, 1.0)),
        });
        let surface = Surface {
            metallic: finite(pbr.metallic_factor.0, 1.0).clamp(0.0, 1.0),
            roughness: finite(pbr.roughness_factor.0, 1.0).clamp(0.0, 1.0),
            metallic_roughness_texture,
            normal_texture,
            normal_scale: material
                .normal_texture
                .as_ref()
                .map_or(1.0, |n| finite(n.scale, 1.0)),
            occlusion_texture,
            occlusion_strength: material
                .occlusion_texture
                .as_ref()
                .map_or(1.0, |o| finite(o.strength.0, 1.0).clamp(0.0, 1.0)),
            emissive: material
                .emissive_factor
                .0
                .map(|c| finite(c * finite(strength, 1.0), 0.0).max(0.0)),
            emissive_texture,
            specular,
            clearcoat,
        };
        materials.push(Material {
            name: material.name.clone(),
            base_color,
            base_color_texture,
            alpha_mode,
            double_sided: material.double_sided,
            surface,
            toon,
            unlit: material
                .extensions
                .as_ref()
                .is_some_and(|e| e.unlit.is_some()),
        });
    }
    (
        materials,
        textures.decoded.into_iter().map(Option::flatten).collect(),
    )
}

/// A core texture info as the file wrote it.
fn info_of(info: Option<&json::texture::Info>) -> Option<TextureInfo> {
    info.map(|i| TextureInfo {
        index: i.index.value(),
        tex_coord: i.tex_coord,
        extensions: serde_json::to_value(&i.extensions).ok(),
    })
}

/// The file's textures, each decoded the first time a material uses it.
struct Textures<'a, 'r> {
    source: &'a Source,
    reader: &'a Reader<'r>,
    decoded: Vec<Option<Option<Texture>>>,
}

impl Textures<'_, '_> {
    /// Material `m`'s `what` texture (`info`), decoded, with its coordinates' transform; none
    /// (said in `warnings`) when it does not exist or cannot be decoded.
    fn slot(
        &mut self,
        m: usize,
        what: &str,
        info: &TextureInfo,
        warnings: &mut Vec<String>,
    ) -> Option<TextureRef> {
        let (t, tex_coord) = (info.index, info.tex_coord);
        let extensions = info.extensions.as_ref();
        if t >= self.decoded.len() {
            warnings.push(format!("material {m}: {what} texture {t} does not exist"));
            return None;
        }
        let transform = extensions.and_then(|e| e.get("KHR_texture_transform"));
        let tex_coord = transform
            .and_then(|t| t.get("texCoord"))
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(u64::from(tex_coord));
        if tex_coord != 0 {
            warnings.push(format!(
                "material {m}: the {what} texture reads texture coordinates {tex_coord}; \
                 drawn with set 0, the one this loader keeps"
            ));
        }
        if self.decoded[t].is_none() {
            self.decoded[t] = Some(decode_texture(self.source, self.reader, t, warnings));
        }
        self.decoded[t].as_ref()?.as_ref()?;
        Some(TextureRef {
            texture: t,
            transform: transform.map_or(UvTransform::IDENTITY, uv_transform),
        })
    }
}

fn decode_texture(
    source: &Source,
    reader: &Reader<'_>,
    index: usize,
    warnings: &mut Vec<String>,
) -> Option<Texture> {
    let root = reader.root;
    let texture = root.textures.get(index)?;
    let image_index = image_of(texture);
    let Some(image) = root.images.get(image_index) else {
        let extensions: Vec<&String> = texture
            .extensions
            .as_ref()
            .map(|e| e.others.keys().collect())
            .unwrap_or_default();
        warnings.push(format!(
            "texture {index} has no image this loader can read (extensions: {extensions:?}); drawn without it"
        ));
        return None;
    };
    let bytes = match (&image.uri, image.buffer_view) {
        (Some(uri), _) => source.uri_bytes(uri),
        (None, Some(view)) => view_bytes(source, view.value()),
        (None, None) => Err("no data".to_owned()),
    };
    let decoded = bytes.and_then(|b| {
        if b.starts_with(ktx2::IDENTIFIER) {
            return ktx2::decode(&b)
                .map(|i| Texture {
                    width: i.width,
                    height: i.height,
                    rgba: i.pixels,
                })
                .map_err(|e| format!("it is KTX2 (Basis Universal), but {e}"));
        }
        image::load_from_memory(&b)
            .map(|img| {
                let rgba = img.to_rgba8();
                Texture {
                    width: rgba.width(),
                    height: rgba.height(),
                    rgba: rgba.into_raw(),
                }
            })
            .map_err(|e| e.to_string())
    });
    match decoded {
        Ok(texture) => Some(texture),
        Err(reason) => {
            warnings.push(format!(
                "texture {index} (image {image_index}) cannot be decoded: {reason}; drawn without it"
            ));
            None
        }
    }
}

/// The image a texture shows: an image extension's source where it names one (EXT_texture_webp,
/// KHR_texture_basisu: the spec's fallback `source` is then PNG or JPEG, or absent), else its
/// own `source`.
fn image_of(texture: &json::Texture) -> usize {
    let extension_source = |name: &str| {
        texture
            .extensions
            .as_ref()?
            .others
            .get(name)?
            .get("source")?
            .as_u64()
            .and_then(|s| usize::try_from(s).ok())
    };
    extension_source("EXT_texture_webp")
        .or_else(|| {
            // A KTX2 image only when there is no other: a PNG/JPEG fallback is the uncompressed
            // original, sharper than the transcoded KTX2.
            (texture.source.value() == u32::MAX as usize)
                .then(|| extension_source("KHR_texture_basisu"))
                .flatten()
        })
        .unwrap_or_else(|| texture.source.value())
}

fn view_bytes(source: &Source, view: usize) -> Result<Vec<u8>, String> {
    let v = source
        .root
        .buffer_views
        .get(view)
        .ok_or("no such buffer view")?;
    let buffer = source
        .buffers
        .get(v.buffer.value())
        .ok_or("no such buffer")?;
    let start = usize::try_from(v.byte_offset.map_or(0, |o| o.0)).map_err(|e| e.to_string())?;
    let len = usize::try_from(v.byte_length.0).map_err(|e| e.to_string())?;
    buffer
        .get(start..start.saturating_add(len))
        .map(<[u8]>::to_vec)
        .ok_or_else(|| "buffer view out of range".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_come_from_the_names_avatar_tools_give() {
        let role = |name: &str| {
            Material {
                name: Some(name.to_owned()),
                ..Material::default()
            }
            .role()
        };
        for eye in [
            "Wolf3D_Eye",
            "N00_000_00_EyeIris_00_EYE",
            "EyeWhite",
            "Eyes",
            "iris",
        ] {
            assert_eq!(role(eye), Role::Eye, "{eye}");
        }
        for skin in [
            "Wolf3D_Skin",
            "N00_000_00_Face_00_SKIN",
            "skin",
            "Body_Skin",
        ] {
            assert_eq!(role(skin), Role::Skin, "{skin}");
        }
        for other in [
            "N00_000_00_FaceEyelash_00_FACE",
            "N00_000_00_FaceEyeline_00_FACE",
            "FaceBrow",
            "Wolf3D_Outfit_Top",
            "Lipstick_Line",
        ] {
            assert_eq!(role(other), Role::Other, "{other}");
        }
        for mouth in [
            "Wolf3D_Teeth",
            "N00_000_00_FaceMouth_00_FACE",
            "lips",
            "Tongue",
        ] {
            assert_eq!(role(mouth), Role::Mouth, "{mouth}");
        }
        assert_eq!(Material::default().role(), Role::Other);
    }

    #[test]
    fn a_mouth_is_wet_unless_its_file_coats_it_or_draws_it_as_toon() {
        let named = |name: &str| Material {
            name: Some(name.to_owned()),
            ..Material::default()
        };
        assert_eq!(named("Wolf3D_Teeth").clearcoat(), Some(WET_FILM));
        assert_eq!(named("Wolf3D_Outfit_Top").clearcoat(), None);
        let own = Clearcoat::plain(0.3, 0.5);
        let mut coated = named("lips");
        coated.surface.clearcoat = Some(own);
        assert_eq!(coated.clearcoat(), Some(own));
        let toon = Material {
            toon: Some(Toon::default()),
            ..named("FaceMouth")
        };
        assert_eq!(toon.clearcoat(), None);
    }

    #[test]
    fn a_texture_transform_moves_coordinates_as_the_extension_defines() {
        // Scale, then rotate a quarter turn, then offset: (1, 0) scaled to (2, 0), turned to
        // (0, -2), moved to (0.5, -1.75).
        let t = UvTransform::from_offset_rotation_scale(
            [0.5, 0.25],
            std::f32::consts::FRAC_PI_2,
            [2.0, 3.0],
        );
        let [u, v] = t.apply([1.0, 0.0]);
        assert!((u - 0.5).abs() < 1e-6 && (v + 1.75).abs() < 1e-6, "{u} {v}");
        let (offset, rotation, scale) = t.offset_rotation_scale();
        assert_eq!(offset, [0.5, 0.25]);
        assert!((rotation - std::f32::consts::FRAC_PI_2).abs() < 1e-6);
        assert!((scale[0] - 2.0).abs() < 1e-6 && (scale[1] - 3.0).abs() < 1e-6);
        assert_eq!(UvTransform::IDENTITY.apply([0.3, 0.7]), [0.3, 0.7]);
    }
}
