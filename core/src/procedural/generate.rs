//! Writing all default content into a folder, as the demo project expects it.

use std::path::{Path, PathBuf};

use super::{body, head, scene, sky};
use crate::atomic::write_atomically;

/// Side of each generated sky face, texels.
pub const SKY_SIZE: u32 = 256;

/// The files [`generate`] writes, relative to its folder.
pub const FILES: [&str; 3] = ["head.glb", "avatar.glb", "scene.glb"];

/// Writes `head.glb`, `avatar.glb` (body with the head on it), `scene.glb` and `sky/` (three
/// cubemaps as PNG faces) into `out`, creating it. Returns every path written.
pub fn generate(out: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out)?;
    let parts = head::head_parts();
    let mut written = Vec::new();
    for (name, bytes) in [
        (FILES[0], head::head_glb()),
        (FILES[1], body::avatar_glb(&parts)),
        (FILES[2], scene::scene_glb()),
    ] {
        let path = out.join(name);
        write_atomically(&path, &bytes)?;
        written.push(path);
    }
    let sky_dir = out.join("sky");
    std::fs::create_dir_all(&sky_dir)?;
    written.extend(sky::write_skies(&sky_dir, SKY_SIZE)?);
    Ok(written)
}

/// Whether `out` already holds every generated file.
#[must_use]
pub fn is_complete(out: &Path) -> bool {
    FILES.iter().all(|f| out.join(f).is_file())
        && sky::SkyKind::ALL.iter().all(|kind| {
            sky::FACE_SUFFIXES.iter().all(|face| {
                out.join("sky")
                    .join(format!("sky_{}_{face}.png", kind.name()))
                    .is_file()
            })
        })
}
