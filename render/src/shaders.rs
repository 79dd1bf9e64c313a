//! The WGSL sources (`render/shaders/`), put together into the modules the pipelines use.
//! Shared parts come first: `globals.wgsl` (per-frame values), `deform.wgsl` (vertex pulling,
//! morph targets, skinning).

const GLOBALS: &str = include_str!("../shaders/globals.wgsl");
const DEFORM: &str = include_str!("../shaders/deform.wgsl");
const MESH: &str = include_str!("../shaders/mesh.wgsl");
const SKY: &str = include_str!("../shaders/sky.wgsl");
const DEFORM_PASS: &str = include_str!("../shaders/deform_pass.wgsl");
const DEFORM_CHECK: &str = include_str!("../shaders/deform_check.wgsl");

/// The main and shadow passes.
#[must_use]
pub fn mesh() -> String {
    [GLOBALS, DEFORM, MESH].concat()
}

/// The sky pass.
#[must_use]
pub fn sky() -> String {
    [GLOBALS, SKY].concat()
}

/// The compute pass that deforms skinned and morphed objects once per frame.
#[must_use]
pub fn deform_pass() -> String {
    [GLOBALS, DEFORM, DEFORM_PASS].concat()
}

/// The compute pass that writes deformed positions for checking.
#[must_use]
pub fn deform_check() -> String {
    [GLOBALS, DEFORM, DEFORM_CHECK].concat()
}

/// Every module by name, for validation.
#[must_use]
pub fn all() -> [(&'static str, String); 4] {
    [
        ("mesh", mesh()),
        ("deform_pass", deform_pass()),
        ("sky", sky()),
        ("deform_check", deform_check()),
    ]
}
