//! Writing files so that readers never see half of one: a temporary file in the same folder,
//! flushed, then renamed over the target.

use std::io::Write;
use std::path::Path;

/// Permissions of a new file: what a file made by any other tool gets under the usual umask
/// (a temporary file alone would be readable by its owner only).
#[cfg(unix)]
const NEW_FILE_MODE: u32 = 0o644;

/// Writes `bytes` to `path` atomically. The folder must exist. A file replaced keeps its
/// permissions; a new one is readable by everyone, writable by its owner.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically_via(path, bytes, ".tmp")
}

/// As [`write_atomically`], the temporary file's name starting with `temp_prefix` (so that a
/// watcher can tell the writer's own files).
pub fn write_atomically_via(path: &Path, bytes: &[u8], temp_prefix: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(temp_prefix).suffix(".tmp");
    #[cfg(unix)]
    let permissions = {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).map_or_else(
            |_| std::fs::Permissions::from_mode(NEW_FILE_MODE),
            |m| m.permissions(),
        )
    };
    #[cfg(unix)]
    builder.permissions(permissions);
    let mut temp = builder.tempfile_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn new_files_are_readable_by_everyone_and_replaced_ones_keep_their_mode() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("a.json");
        write_atomically(&path, b"1").expect("write");
        let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o644);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        write_atomically(&path, b"2").expect("rewrite");
        assert_eq!(mode(&path), 0o600);
        assert_eq!(std::fs::read(&path).expect("read"), b"2");
    }
}
