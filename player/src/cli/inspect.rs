//! `npc-player inspect`: what a glTF file holds, as the loader sees it.

use std::path::PathBuf;

use npc_core::asset::inspect::Inspection;
use npc_core::asset::{Asset, AssetError};

#[derive(Debug, clap::Args)]
pub(super) struct InspectArgs {
    /// The .gltf or .glb file.
    file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// List every joint of every skin (the text sums each skin up otherwise).
    #[arg(long)]
    verbose: bool,
}

/// Loads the file and prints its inspection as JSON or text (`verbose`: every joint by name).
pub(super) fn run(args: &InspectArgs) -> anyhow::Result<()> {
    let path = &args.file;
    let asset = Asset::load(path).map_err(|e| match e {
        AssetError::Io { .. } => anyhow::anyhow!(e),
        other => anyhow::anyhow!("{}: {other}", path.display()),
    })?;
    let report = Inspection::of(&asset);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.to_text(args.verbose));
    }
    Ok(())
}
