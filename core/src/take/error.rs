//! Why a take could not be read or written.

use thiserror::Error;

#[derive(Debug, Error, PartialEq)]
pub enum TakeError {
    /// Malformed input at a place in it (`line` and `column` from 1).
    #[error("{line}:{column}: {message}")]
    At {
        line: usize,
        column: usize,
        message: String,
    },
    /// Input that parses but does not make a take.
    #[error("{0}")]
    Invalid(String),
    #[error("it has no frames")]
    Empty,
    /// The avatar file cannot carry the clip.
    #[error("the avatar: {0}")]
    Avatar(String),
}
