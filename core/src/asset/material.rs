//! Materials (base colour, alpha mode, double-sided) and their decoded base-colour textures.

use gltf::json;
use gltf::json::validation::Checked;

use super::accessor::Reader;
use super::ktx2;
use super::source::Source;

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

/// What the renderer needs of a glTF material.
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    pub name: Option<String>,
    pub base_color: [f32; 4],
    /// Index into [`super::Asset::textures`], when the texture could be decoded.
    pub base_color_texture: Option<usize>,
    pub alpha_mode: AlphaMode,
    pub double_sided: bool,
}

impl Default for Material {
    fn default() -> Self {
        Self {
            name: None,
            base_color: [1.0; 4],
            base_color_texture: None,
            alpha_mode: AlphaMode::Opaque,
            double_sided: false,
        }
    }
}

/// A decoded texture, 8-bit RGBA, sRGB.
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// Reads materials and decodes the textures they use. A texture that cannot be decoded
/// (a KTX2 file the Basis Universal transcoder refuses, a missing file, a corrupt image) leaves
/// its material untextured with a warning.
pub fn read_materials(
    source: &Source,
    reader: &Reader<'_>,
    warnings: &mut Vec<String>,
) -> (Vec<Material>, Vec<Option<Texture>>) {
    let root = reader.root;
    let mut textures: Vec<Option<Option<Texture>>> = vec![None; root.textures.len()];
    let mut materials = Vec::with_capacity(root.materials.len());
    for (m, material) in root.materials.iter().enumerate() {
        let pbr = &material.pbr_metallic_roughness;
        let mut base_color = pbr.base_color_factor.0;
        if base_color.iter().any(|c| !c.is_finite()) {
            base_color = [1.0; 4];
        }
        let base_color_texture = pbr.base_color_texture.as_ref().and_then(|info| {
            let t = info.index.value();
            if t >= textures.len() {
                warnings.push(format!("material {m}: texture {t} does not exist"));
                return None;
            }
            if textures[t].is_none() {
                textures[t] = Some(decode_texture(source, reader, t, warnings));
            }
            textures[t].as_ref().and_then(Option::as_ref).map(|_| t)
        });
        let alpha_mode = match material.alpha_mode {
            Checked::Valid(json::material::AlphaMode::Mask) => AlphaMode::Mask {
                cutoff: material.alpha_cutoff.map_or(0.5, |c| c.0),
            },
            Checked::Valid(json::material::AlphaMode::Blend) => AlphaMode::Blend,
            _ => AlphaMode::Opaque,
        };
        materials.push(Material {
            name: material.name.clone(),
            base_color,
            base_color_texture,
            alpha_mode,
            double_sided: material.double_sided,
        });
    }
    (
        materials,
        textures.into_iter().map(Option::flatten).collect(),
    )
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
