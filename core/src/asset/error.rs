//! What can go wrong reading a glTF or FBX file, as typed errors with clear messages.

use std::path::PathBuf;

use thiserror::Error;

/// Why an asset could not be loaded.
#[derive(Debug, Error)]
pub enum AssetError {
    #[error("cannot read {path}: {io}")]
    Io { path: PathBuf, io: std::io::Error },
    #[error("not a valid glTF file: {0}")]
    Format(String),
    #[error("cannot read the FBX file: {0}")]
    Fbx(String),
    #[error("invalid glTF JSON at line {line}, column {column}: {message}")]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("buffer {index} ({uri}) cannot be loaded: {reason}")]
    MissingBuffer {
        index: usize,
        uri: String,
        reason: String,
    },
    #[error("{what} {index} does not exist")]
    IndexOutOfRange { what: &'static str, index: usize },
    #[error("accessor {index}: {reason}")]
    BadAccessor { index: usize, reason: String },
    #[error("mesh {mesh}: {reason}")]
    BadMesh { mesh: usize, reason: String },
    #[error("mesh {mesh} has {count} morph targets; at most {max} are supported")]
    TooManyTargets {
        mesh: usize,
        count: usize,
        max: usize,
    },
    #[error("skin {skin} has {count} joints; at most {max} are supported")]
    TooManyJoints {
        skin: usize,
        count: usize,
        max: usize,
    },
    #[error("the node hierarchy has a cycle or is deeper than {max} levels at node {node}")]
    BadHierarchy { node: usize, max: usize },
    #[error("required extension {0} is not supported")]
    UnsupportedExtension(String),
    #[error("animation {animation}: {reason}")]
    BadAnimation { animation: usize, reason: String },
}

pub type Result<T, E = AssetError> = std::result::Result<T, E>;
