//! The WGSL sources (`render/shaders/`), put together into the modules the pipelines use.
//! Shared parts come first: `globals.wgsl` (per-frame values), `deform.wgsl` (vertex pulling,
//! morph targets, skinning).
//!
//! For shader work, `NPC_SHADER_DIR` names a folder whose `.wgsl` files are read in place of
//! the built-in ones of the same name (timing a shader change on another machine without a
//! rebuild); a file missing there is the built-in one.

use std::borrow::Cow;

/// The environment variable naming a folder of WGSL files to use in place of the built-in.
pub const SHADER_DIR_ENV: &str = "NPC_SHADER_DIR";

/// The source of `name`: from `NPC_SHADER_DIR` when it holds the file, else built in.
fn source(name: &str, built_in: &'static str) -> Cow<'static, str> {
    let Some(dir) = std::env::var_os(SHADER_DIR_ENV) else {
        return Cow::Borrowed(built_in);
    };
    let path = std::path::Path::new(&dir).join(name);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            tracing::info!("shader {name} read from {}", path.display());
            Cow::Owned(text)
        }
        Err(_) => Cow::Borrowed(built_in),
    }
}

macro_rules! wgsl {
    ($name:ident, $file:literal) => {
        fn $name() -> Cow<'static, str> {
            source($file, include_str!(concat!("../shaders/", $file)))
        }
    };
}

wgsl!(globals_wgsl, "globals.wgsl");
wgsl!(deform_wgsl, "deform.wgsl");
wgsl!(surface_wgsl, "surface.wgsl");
wgsl!(sample_fragment_wgsl, "sample_fragment.wgsl");
wgsl!(sample_grad_wgsl, "sample_grad.wgsl");
wgsl!(mesh_wgsl, "mesh.wgsl");
wgsl!(sky_wgsl, "sky.wgsl");
wgsl!(visibility_wgsl, "visibility.wgsl");
wgsl!(classify_wgsl, "classify.wgsl");
wgsl!(resolve_tiles_wgsl, "resolve_tiles.wgsl");
wgsl!(resolve_wgsl, "resolve.wgsl");
wgsl!(deform_pass_wgsl, "deform_pass.wgsl");
wgsl!(deform_check_wgsl, "deform_check.wgsl");
wgsl!(environment_wgsl, "environment.wgsl");
wgsl!(raster_wgsl, "raster.wgsl");
wgsl!(raster_merge_wgsl, "raster_merge.wgsl");
wgsl!(raster_depth_wgsl, "raster_depth.wgsl");
wgsl!(raster_shadow_wgsl, "raster_shadow.wgsl");

/// The main and shadow passes.
#[must_use]
pub fn mesh() -> String {
    [
        globals_wgsl(),
        deform_wgsl(),
        surface_wgsl(),
        sample_fragment_wgsl(),
        mesh_wgsl(),
    ]
    .concat()
}

/// The sky: drawn after the mesh pass, or in the compute resolve.
#[must_use]
pub fn sky() -> String {
    [globals_wgsl(), resolve_tiles_wgsl(), sky_wgsl()].concat()
}

/// The visibility pass (needs the device's `PRIMITIVE_INDEX` feature).
#[must_use]
pub fn visibility() -> String {
    [
        Cow::Borrowed("enable primitive_index;\n"),
        globals_wgsl(),
        deform_wgsl(),
        surface_wgsl(),
        sample_fragment_wgsl(),
        visibility_wgsl(),
    ]
    .concat()
}

/// The compute pass that sorts the screen's tiles by what shades them.
#[must_use]
pub fn classify() -> String {
    classify_wgsl().into_owned()
}

/// The compute resolve that shades what the visibility pass found.
#[must_use]
pub fn resolve() -> String {
    [
        globals_wgsl(),
        deform_wgsl(),
        surface_wgsl(),
        sample_grad_wgsl(),
        resolve_tiles_wgsl(),
        resolve_wgsl(),
    ]
    .concat()
}

/// The compute pass that deforms skinned and morphed objects once per frame.
#[must_use]
pub fn deform_pass() -> String {
    [globals_wgsl(), deform_wgsl(), deform_pass_wgsl()].concat()
}

/// The compute pass that writes deformed positions for checking.
#[must_use]
pub fn deform_check() -> String {
    [globals_wgsl(), deform_wgsl(), deform_check_wgsl()].concat()
}

/// The compute passes that make the image-based light from the skies.
#[must_use]
pub fn environment() -> String {
    environment_wgsl().into_owned()
}

/// The compute raster of the visibility pass's far objects (needs the device's 64-bit
/// integers and their atomic min and max).
#[must_use]
pub fn raster() -> String {
    [
        globals_wgsl(),
        deform_wgsl(),
        surface_wgsl(),
        sample_grad_wgsl(),
        raster_wgsl(),
    ]
    .concat()
}

/// The compute raster's merge with what the rasterizer drew.
#[must_use]
pub fn raster_merge() -> String {
    raster_merge_wgsl().into_owned()
}

/// The compute raster's merged depth laid into the depth attachment.
#[must_use]
pub fn raster_depth() -> String {
    raster_depth_wgsl().into_owned()
}

/// The shadow map rasterized in compute, packed for a copy into the depth texture.
#[must_use]
pub fn raster_shadow() -> String {
    raster_shadow_wgsl().into_owned()
}

/// Every module by name, for validation.
#[must_use]
pub fn all() -> [(&'static str, String); 12] {
    [
        ("mesh", mesh()),
        ("visibility", visibility()),
        ("classify", classify()),
        ("resolve", resolve()),
        ("deform_pass", deform_pass()),
        ("sky", sky()),
        ("deform_check", deform_check()),
        ("environment", environment()),
        ("raster", raster()),
        ("raster_merge", raster_merge()),
        ("raster_depth", raster_depth()),
        ("raster_shadow", raster_shadow()),
    ]
}
