//! Writing command output files without ever leaving half a file behind.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, bail};

/// Fails with a clear message when the folder of `path` does not exist.
pub fn check_folder(path: &Path) -> anyhow::Result<()> {
    let dir = folder(path);
    if !dir.is_dir() {
        bail!(
            "cannot write {}: the folder {} does not exist",
            path.display(),
            dir.display()
        );
    }
    Ok(())
}

fn folder(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Writes `bytes` to `path` through a temporary file and a rename ("-" writes to stdout).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)?;
        out.write_all(b"\n")?;
        return Ok(());
    }
    check_folder(path)?;
    npc_core::atomic::write_atomically(path, bytes)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Writes an utterance's audio as 16-bit mono WAV.
pub fn write_wav(path: &Path, utterance: &npc_core::speech::Utterance) -> anyhow::Result<()> {
    check_folder(path)?;
    let bytes = npc_core::speech::wav::to_bytes(&utterance.pcm, utterance.sample_rate)
        .with_context(|| format!("cannot encode {}", path.display()))?;
    npc_core::atomic::write_atomically(path, &bytes)
        .with_context(|| format!("cannot write {}", path.display()))
}
