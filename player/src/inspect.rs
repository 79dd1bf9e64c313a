//! `npc-player inspect`: what a glTF file holds, as the loader sees it.

use std::path::Path;

use npc_core::asset::inspect::Inspection;
use npc_core::asset::{Asset, AssetError};

/// Loads `path` and prints its inspection as JSON or text (`verbose`: every joint by name).
pub fn run(path: &Path, json: bool, verbose: bool) -> anyhow::Result<()> {
    let asset = Asset::load(path).map_err(|e| match e {
        AssetError::Io { .. } => anyhow::anyhow!(e),
        other => anyhow::anyhow!("{}: {other}", path.display()),
    })?;
    let report = Inspection::of(&asset);
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.to_text(verbose));
    }
    Ok(())
}
