//! Confining the file names agents write (in `active.json`) to the agent directory.
//!
//! A name must be relative, must not contain `..`, and must not resolve (through symbolic
//! links, of the file or of any folder on the way) to a place outside the directory. The
//! check is repeated each time a file is opened, so a link created or changed later is caught
//! too.

use std::io;
use std::path::{Component, Path, PathBuf};

/// Why a file name was refused.
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    #[error("the file name is empty")]
    Empty,
    #[error("{name:?}: contains a NUL byte")]
    Nul { name: String },
    #[error(
        "{name:?}: absolute paths are not allowed; name the file relative to the agent directory"
    )]
    Absolute { name: String },
    #[error("{name:?}: \"..\" is not allowed; the file must lie inside the agent directory")]
    ParentDir { name: String },
    #[error(
        "{name:?}: resolves to {} through a symbolic link, outside the agent directory {}",
        target.display(),
        root.display()
    )]
    Escapes {
        name: String,
        target: PathBuf,
        root: PathBuf,
    },
    #[error("{name:?}: {source}")]
    Io { name: String, source: io::Error },
}

/// Checks `name` syntactically: not empty, no NUL, relative, no `..`.
pub fn check_name(name: &str) -> Result<(), PathError> {
    if name.is_empty() {
        return Err(PathError::Empty);
    }
    if name.contains('\0') {
        return Err(PathError::Nul {
            name: name.to_owned(),
        });
    }
    let path = Path::new(name);
    if path.is_absolute() || path.has_root() {
        return Err(PathError::Absolute {
            name: name.to_owned(),
        });
    }
    for c in path.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => {
                return Err(PathError::Absolute {
                    name: name.to_owned(),
                });
            }
            Component::ParentDir => {
                return Err(PathError::ParentDir {
                    name: name.to_owned(),
                });
            }
            Component::CurDir | Component::Normal(_) => {}
        }
    }
    Ok(())
}

/// Resolves `name` inside `root`.
///
/// Returns the canonical path when the file exists, or `root/name` when it (or a folder on
/// the way) does not exist yet; in that case the deepest existing ancestor was checked to lie
/// inside `root`.
pub fn confine(root: &Path, name: &str) -> Result<PathBuf, PathError> {
    check_name(name)?;
    let io_err = |source: io::Error| PathError::Io {
        name: name.to_owned(),
        source,
    };
    let root = root.canonicalize().map_err(io_err)?;
    let joined = root.join(name);
    let mut probe = joined.clone();
    loop {
        match probe.canonicalize() {
            Ok(real) => {
                if !real.starts_with(&root) {
                    return Err(PathError::Escapes {
                        name: name.to_owned(),
                        target: real,
                        root,
                    });
                }
                return Ok(if probe == joined { real } else { joined });
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if !probe.pop() || !probe.starts_with(&root) {
                    // The root itself vanished.
                    return Err(io_err(e));
                }
            }
            Err(e) => return Err(io_err(e)),
        }
    }
}
