//! `npc-player generate-assets`: the project's own default content, written to a folder.

use std::path::Path;

use anyhow::Context;
use npc_core::procedural::generate::generate;

/// Writes the content and lists what was written.
pub fn run(out: &Path) -> anyhow::Result<()> {
    let written =
        generate(out).with_context(|| format!("cannot write content into {}", out.display()))?;
    for path in &written {
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        println!("{} ({} KiB)", path.display(), size / 1024);
    }
    Ok(())
}
