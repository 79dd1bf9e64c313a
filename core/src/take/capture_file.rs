//! A capture read from a file: a Live Link Face CSV, or the first clip of a glTF file that
//! animates ARKit targets (a Face Cap recording), for the studio's "Compare with capture" and
//! `npc-player replay`.

use std::path::Path;

use super::{Take, TakeError, read_livelink_csv};
use crate::asset::Asset;

/// Reads the capture in `path` (`.csv`: Live Link Face; else glTF, its first clip animating
/// ARKit targets sampled at `gltf_fps`), named by its file name.
///
/// # Errors
/// What is wrong, in words, with `file:line:column` where it can.
pub fn read_capture(path: &Path, gltf_fps: f64) -> Result<Take, String> {
    let label = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    if csv {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        return read_livelink_csv(&text, &label).map_err(|e| match e {
            TakeError::At { .. } => format!("{}:{e}", path.display()),
            _ => format!("{}: {e}", path.display()),
        });
    }
    let asset = Asset::load(path).map_err(|e| format!("{}: {e}", path.display()))?;
    (0..asset.clips.len())
        .find_map(|c| Take::from_gltf_clip(&asset, c, gltf_fps))
        .ok_or_else(|| {
            format!(
                "{}: none of its {} clips animates ARKit face targets",
                path.display(),
                asset.clips.len()
            )
        })
}
