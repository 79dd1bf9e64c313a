//! Every glTF and VRM extension the loader knows of, what it reads of each, and what happens to
//! a file that uses one it does not read. docs/formats.md shows this table (a test keeps the
//! two the same).

use std::fmt::Write as _;

/// How much of an extension the loader reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// Read in full for what the tools draw and animate.
    Read,
    /// Read in part; `what` says which part.
    Part,
    /// Not read: the file loads without it (a warning names it); one that requires it is
    /// refused with the reason.
    Ignored,
}

/// One extension and what the loader makes of it.
#[derive(Clone, Copy, Debug)]
pub struct Extension {
    pub name: &'static str,
    pub support: Support,
    pub what: &'static str,
}

const fn ext(name: &'static str, support: Support, what: &'static str) -> Extension {
    Extension {
        name,
        support,
        what,
    }
}

/// The table, in the order docs/formats.md lists it.
pub const EXTENSIONS: &[Extension] = &[
    ext(
        "KHR_draco_mesh_compression",
        Support::Read,
        "Draco-compressed primitives decoded (draco-core, a Rust port of Google's decoder): \
         positions, normals, texture coordinates, joints, weights; morph targets stay plain \
         accessors in the decoded vertex order",
    ),
    ext(
        "EXT_meshopt_compression",
        Support::Read,
        "compressed buffer views decoded with meshoptimizer's decoder and filters (gltfpack)",
    ),
    ext(
        "KHR_mesh_quantization",
        Support::Read,
        "normalised and integer vertex attributes",
    ),
    ext(
        "EXT_mesh_gpu_instancing",
        Support::Read,
        "meshes placed many times drawn per instance",
    ),
    ext(
        "KHR_texture_transform",
        Support::Read,
        "offset, rotation, scale and texture coordinate set of every texture a material uses",
    ),
    ext(
        "KHR_texture_basisu",
        Support::Read,
        "KTX2 textures transcoded by Basis Universal",
    ),
    ext("EXT_texture_webp", Support::Read, "WebP images"),
    ext(
        "KHR_materials_unlit",
        Support::Read,
        "drawn in its base colour alone",
    ),
    ext(
        "KHR_materials_emissive_strength",
        Support::Read,
        "emission brighter than 1",
    ),
    ext(
        "KHR_materials_ior",
        Support::Read,
        "the dielectric reflectance at normal incidence",
    ),
    ext(
        "KHR_materials_specular",
        Support::Read,
        "specular factor and colour factor, each times its texture",
    ),
    ext(
        "KHR_materials_clearcoat",
        Support::Read,
        "clear coat factor and roughness, each times its texture, and the coat's normal map",
    ),
    ext(
        "KHR_animation_pointer",
        Support::Part,
        "channels that animate node translation, rotation, scale or morph weights are played; \
         each other channel is skipped with a warning naming it",
    ),
    ext(
        "VRM",
        Support::Part,
        "VRM 0.x: the humanoid bones, blend shape groups as expressions, MToon materials, \
         spring bones and their colliders (secondaryAnimation); the model faces forward; \
         first-person and look-at settings are not read",
    ),
    ext(
        "VRMC_vrm",
        Support::Part,
        "VRM 1.0: the humanoid bones and expressions; first-person and look-at settings are \
         not read",
    ),
    ext(
        "VRMC_springBone",
        Support::Read,
        "VRM 1.0 spring bones, sphere and capsule colliders, collider groups",
    ),
    ext(
        "VRMC_materials_mtoon",
        Support::Part,
        "shade colour and texture, shift (and its texture) and toony step, matcap, rim colour, \
         power, lift, lighting mix and texture, outlines (world or screen width and its \
         texture, colour, lighting mix); UV animation is not drawn",
    ),
    ext(
        "VRMC_vrm_animation",
        Support::Part,
        "a .vrma file's humanoid clips, played on any humanoid; its preset expression tracks \
         play on the face (happy, sad, angry, surprised as the character's emotion faces or the \
         avatar's own, relaxed as half of happy, aa/ih/ou/ee/oh as the viseme table's mouths, \
         blinks as eyeBlink) and its look-at track turns the eyes, blended as the clips are; \
         custom expression tracks are not played, and a warning names them",
    ),
    ext(
        "KHR_lights_punctual",
        Support::Ignored,
        "the file's lights are not used: the scene's sun and sky light every character",
    ),
    ext(
        "KHR_materials_transmission",
        Support::Ignored,
        "drawn as an opaque (or alpha-blended) surface",
    ),
    ext(
        "KHR_materials_volume",
        Support::Ignored,
        "drawn without thickness or attenuation",
    ),
    ext(
        "KHR_materials_sheen",
        Support::Ignored,
        "drawn without sheen",
    ),
    ext(
        "KHR_materials_iridescence",
        Support::Ignored,
        "drawn without iridescence",
    ),
    ext(
        "KHR_materials_anisotropy",
        Support::Ignored,
        "drawn with an isotropic highlight",
    ),
    ext(
        "KHR_materials_dispersion",
        Support::Ignored,
        "drawn without dispersion",
    ),
    ext(
        "KHR_materials_diffuse_transmission",
        Support::Ignored,
        "drawn without light through the surface",
    ),
    ext(
        "KHR_materials_variants",
        Support::Ignored,
        "each primitive shows its default material",
    ),
    ext(
        "KHR_materials_pbrSpecularGlossiness",
        Support::Ignored,
        "(archived) its specular-glossiness values are not read; the material's \
         metallic-roughness values are drawn (glTF's defaults where it has none)",
    ),
    ext(
        "KHR_xmp_json_ld",
        Support::Ignored,
        "metadata (authors, licences) is not read",
    ),
    ext(
        "EXT_texture_avif",
        Support::Ignored,
        "AVIF images are not decoded; the texture's plain image is used when it has one",
    ),
    ext(
        "KHR_meshopt_compression",
        Support::Ignored,
        "the ratified successor of EXT_meshopt_compression is not read yet",
    ),
    ext(
        "VRMC_node_constraint",
        Support::Ignored,
        "aim, roll and rotation constraints are not applied",
    ),
    ext(
        "VRMC_materials_hdr_emissiveMultiplier",
        Support::Ignored,
        "emission is not multiplied",
    ),
];

/// The table's entry for an extension.
#[must_use]
pub fn find(name: &str) -> Option<&'static Extension> {
    EXTENSIONS.iter().find(|e| e.name == name)
}

/// One warning per extension a file uses that the loader does not read, saying what that
/// leaves out. (Required ones the loader cannot read refuse the file before this.)
#[must_use]
pub fn unread(used: &[String]) -> Vec<String> {
    used.iter()
        .filter_map(|name| match find(name) {
            Some(e) if e.support == Support::Ignored => {
                Some(format!("extension {name} is not read: {}", e.what))
            }
            Some(_) => None,
            None => Some(format!(
                "extension {name} is not known here and is not read"
            )),
        })
        .collect()
}

/// The table as docs/formats.md shows it.
#[must_use]
pub fn markdown_table() -> String {
    let mut out =
        String::from("| extension | read | what the loader makes of it |\n|---|---|---|\n");
    for e in EXTENSIONS {
        let support = match e.support {
            Support::Read => "yes",
            Support::Part => "in part",
            Support::Ignored => "no",
        };
        let _ = writeln!(out, "| `{}` | {support} | {} |", e.name, e.what);
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn docs_formats_shows_this_table() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/formats.md");
        let doc = std::fs::read_to_string(&path).unwrap_or_default();
        let table = markdown_table();
        if std::env::var_os("UPDATE_DOCS").is_some() {
            // Everything before the table stays; the table ends the page.
            let before = doc
                .find("| extension | read |")
                .map_or(doc.as_str(), |i| &doc[..i]);
            std::fs::write(&path, format!("{before}{table}")).unwrap();
            return;
        }
        assert!(
            doc.contains(&table),
            "{} does not show the extension table; it should read:\n{table}",
            path.display()
        );
    }

    #[test]
    fn every_extension_a_file_may_require_is_read() {
        for name in super::super::SUPPORTED_REQUIRED_EXTENSIONS {
            let e = find(name).unwrap_or_else(|| panic!("{name} is not in the table"));
            assert_ne!(e.support, Support::Ignored, "{name}");
        }
    }

    #[test]
    fn a_used_extension_not_read_is_named_in_a_warning() {
        let used = [
            "KHR_materials_sheen".to_owned(),
            "KHR_texture_transform".to_owned(),
            "ACME_made_up".to_owned(),
        ];
        let warnings = unread(&used);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("KHR_materials_sheen"), "{warnings:?}");
        assert!(warnings[1].contains("ACME_made_up"), "{warnings:?}");
    }
}
