//! `npc-player generate-assets`: the project's own default content, written to a folder.

use std::path::PathBuf;

use anyhow::Context;
use npc_core::procedural::generate::generate;

use crate::progress::Progress;

#[derive(Debug, clap::Args)]
pub(super) struct GenerateAssetsArgs {
    /// The folder to write into (created if needed).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// Writes the content and lists what was written.
pub(super) fn run(args: &GenerateAssetsArgs) -> anyhow::Result<()> {
    let out = args.out.as_path();
    let working = Progress::working(&format!(
        "writing the default content into {}",
        out.display()
    ));
    let written =
        generate(out).with_context(|| format!("cannot write content into {}", out.display()))?;
    drop(working);
    for path in &written {
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        println!("{} ({} KiB)", path.display(), size / 1024);
    }
    Ok(())
}
