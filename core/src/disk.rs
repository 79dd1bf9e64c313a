//! The disk the live runtime's files go to (`spoken.json`, the events file, `heard/`). The
//! runtime writes through [`Disk`] so that a benchmark or a test can put a disk that is slow
//! or full in its place and see that no frame waits on it and nothing is lost; everything
//! else writes to [`Disk::local`].

use std::fmt;
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;

/// How files are written. The methods' defaults are the machine's own disk.
pub trait Storage: Send + Sync + fmt::Debug {
    /// Writes `bytes` to `path` whole or not at all (a temporary file whose name starts with
    /// `temp_prefix`, synced, then renamed over `path`).
    ///
    /// # Errors
    /// The folder is missing, the disk is full, or the rename is refused.
    fn write_atomically(&self, path: &Path, bytes: &[u8], temp_prefix: &str) -> io::Result<()> {
        crate::atomic::write_atomically_via(path, bytes, temp_prefix)
    }

    /// Appends the start of `bytes` to `file`; how many bytes it took (one `write` call).
    ///
    /// # Errors
    /// What the file's `write` says (a full disk: `StorageFull`).
    fn append(&self, file: &mut File, bytes: &[u8]) -> io::Result<usize> {
        file.write(bytes)
    }
}

/// The machine's own disk.
#[derive(Clone, Copy, Debug, Default)]
pub struct LocalDisk;

impl Storage for LocalDisk {}

/// A shared handle on the storage the runtime writes to.
#[derive(Clone, Debug)]
pub struct Disk(Arc<dyn Storage>);

impl Disk {
    /// The machine's own disk.
    #[must_use]
    pub fn local() -> Self {
        Self(Arc::new(LocalDisk))
    }

    /// Writes through `storage` instead (a benchmark's slow or full disk).
    #[must_use]
    pub fn new(storage: Arc<dyn Storage>) -> Self {
        Self(storage)
    }

    /// See [`Storage::write_atomically`].
    ///
    /// # Errors
    /// As the storage says.
    pub fn write_atomically(&self, path: &Path, bytes: &[u8], temp_prefix: &str) -> io::Result<()> {
        self.0.write_atomically(path, bytes, temp_prefix)
    }

    /// Appends all of `bytes` to `file`, removing what was written from the front of `bytes`,
    /// so that a write cut short (a disk that fills part way) is neither lost nor doubled when
    /// tried again with what is left.
    ///
    /// # Errors
    /// The storage refused the rest; `bytes` holds what was not written.
    pub fn append_all(&self, file: &mut File, bytes: &mut Vec<u8>) -> io::Result<()> {
        while !bytes.is_empty() {
            match self.0.append(file, bytes) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    bytes.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl Default for Disk {
    fn default() -> Self {
        Self::local()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// A fake disk for this test: takes `room` bytes more, then refuses as a full disk does.
    #[derive(Debug)]
    struct FakeFillingDisk {
        room: Mutex<usize>,
    }

    impl Storage for FakeFillingDisk {
        fn append(&self, file: &mut File, bytes: &[u8]) -> io::Result<usize> {
            let mut room = self.room.lock().expect("room");
            if *room == 0 {
                return Err(io::ErrorKind::StorageFull.into());
            }
            let n = bytes.len().min(*room);
            *room -= n;
            file.write(&bytes[..n])
        }
    }

    #[test]
    fn an_append_cut_short_keeps_what_was_not_written_for_the_next_try() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("log");
        let mut file = File::create(&path).expect("create");
        let storage = Arc::new(FakeFillingDisk {
            room: Mutex::new(4),
        });
        let disk = Disk::new(Arc::clone(&storage) as Arc<dyn Storage>);
        let mut bytes = b"abcdefgh".to_vec();
        let e = disk.append_all(&mut file, &mut bytes).expect_err("full");
        assert_eq!(e.kind(), io::ErrorKind::StorageFull);
        assert_eq!(bytes, b"efgh");
        *storage.room.lock().expect("room") = 100;
        disk.append_all(&mut file, &mut bytes).expect("room again");
        assert!(bytes.is_empty());
        assert_eq!(std::fs::read(&path).expect("read"), b"abcdefgh");
    }
}
