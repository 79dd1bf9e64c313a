//! Writing files so that readers never see half of one: a temporary file in the same folder,
//! flushed, then renamed over the target.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically. The folder must exist.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
