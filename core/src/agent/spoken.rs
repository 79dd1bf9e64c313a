//! Reading and writing `spoken.json`.
//!
//! Reading never fails: a missing file is an empty one; an unreadable or corrupt one is an
//! empty one with a warning. Writing is atomic: the JSON goes to a temporary file in the
//! same directory, which is flushed to disk and renamed over `spoken.json`, so an agent
//! reading it sees the old or the new content, never a mix.

use std::io::{self, Read};
use std::path::Path;

use super::protocol::{Parsed, Spoken};

/// The file name inside the agent directory.
pub const SPOKEN_FILE: &str = "spoken.json";
/// Prefix of the temporary files written next to it.
pub const SPOKEN_TEMP_PREFIX: &str = ".spoken.json.";

/// Largest spoken.json read; a larger one is treated as corrupt.
const MAX_SPOKEN_BYTES: u64 = 16 * 1024 * 1024;

/// Reads `path` (a `spoken.json`). Missing: empty, no warning. Unreadable, too large or
/// corrupt: empty with a warning. Entries that are wrong are dropped with a warning.
pub fn load(path: &Path) -> Parsed<Spoken> {
    let shown = path.display();
    let empty = |w: String| Parsed {
        value: Spoken::default(),
        warnings: vec![w],
    };
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Parsed {
                value: Spoken::default(),
                warnings: Vec::new(),
            };
        }
        Err(e) => return empty(format!("{shown}: {e}; starting with nothing spoken")),
    };
    match file.metadata() {
        Ok(m) if !m.is_file() => {
            return empty(format!(
                "{shown}: not a regular file; starting with nothing spoken"
            ));
        }
        Ok(_) => {}
        Err(e) => return empty(format!("{shown}: {e}; starting with nothing spoken")),
    }
    let mut bytes = Vec::new();
    if let Err(e) = file.take(MAX_SPOKEN_BYTES + 1).read_to_end(&mut bytes) {
        return empty(format!("{shown}: {e}; starting with nothing spoken"));
    }
    if bytes.len() as u64 > MAX_SPOKEN_BYTES {
        return empty(format!(
            "{shown}: larger than {MAX_SPOKEN_BYTES} bytes; starting with nothing spoken"
        ));
    }
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t,
        Err(_) => return empty(format!("{shown}: not UTF-8; starting with nothing spoken")),
    };
    match Spoken::parse(text) {
        Ok(mut parsed) => {
            for w in &mut parsed.warnings {
                *w = format!("{shown}: {w}");
            }
            parsed
        }
        Err(reason) => empty(format!("{shown}: {reason}; starting with nothing spoken")),
    }
}

/// Writes `spoken` to `path` atomically (temporary file in the same folder, flushed, then
/// renamed over `path`).
pub fn write_atomic(disk: &crate::disk::Disk, path: &Path, spoken: &Spoken) -> io::Result<()> {
    let mut json = serde_json::to_vec_pretty(spoken).map_err(io::Error::other)?;
    json.push(b'\n');
    disk.write_atomically(path, &json, SPOKEN_TEMP_PREFIX)
}
