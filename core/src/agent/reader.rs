//! Reading a conversation file incrementally, as agents append to it.
//!
//! The reader keeps a byte offset and, on each [`ConversationReader::read`], reads only what
//! was appended since. It yields complete lines only: a last line without its `\n` is kept
//! (at most `max_line_bytes` of it) until the rest arrives. Each line is handled exactly
//! once, so an invalid line is reported once, as `file:line: reason`, and the lines after it
//! still come. A line longer than the limit is reported as soon as it passes the limit and
//! skipped up to its newline without being held in memory. Blank lines are skipped silently;
//! invalid UTF-8 and other garbage are rejected like any invalid line.
//!
//! When the file shrinks, changes identity (deleted and recreated, or replaced by a rename),
//! or disappears and comes back, the reader starts over from its first byte and says so.

use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::paths::{self, PathError};
use super::protocol::Line;

/// Longest line accepted by default, in bytes (without the newline).
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 * 1024;
/// Most bytes read from one file in one [`ConversationReader::read`] by default.
pub const DEFAULT_MAX_READ_PER_POLL: usize = 8 * 1024 * 1024;

const CHUNK: usize = 64 * 1024;

/// Limits of a reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReaderOptions {
    /// Longest line accepted, in bytes without the newline.
    pub max_line_bytes: usize,
    /// Most bytes read per call; the rest waits for the next call (see [`ReadOutcome::more`]).
    pub max_read_per_poll: usize,
}

impl Default for ReaderOptions {
    fn default() -> Self {
        Self {
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            max_read_per_poll: DEFAULT_MAX_READ_PER_POLL,
        }
    }
}

/// One complete line of the file.
#[derive(Clone, Debug, PartialEq)]
pub enum ReadItem {
    /// A valid line. `warnings` are repaired fields, each prefixed with `file:line: `.
    Line {
        line: Line,
        file_line: String,
        warnings: Vec<String>,
    },
    /// An invalid line, skipped. `seq` is its seq when that could still be read.
    Rejected {
        file_line: String,
        reason: String,
        seq: Option<u64>,
    },
}

/// What one [`ConversationReader::read`] found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadOutcome {
    pub items: Vec<ReadItem>,
    /// Set when the file was found truncated or replaced and reading started over; the
    /// reason, for a message.
    pub restarted: Option<String>,
    /// The file does not exist (yet, or any more).
    pub missing: bool,
    /// The per-call read limit was reached and more bytes are waiting.
    pub more: bool,
}

/// Why a file could not be read this time. Reading is retried on the next call.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error(transparent)]
    Path(#[from] PathError),
    #[error("{name:?}: not a regular file")]
    NotAFile { name: String },
    #[error("{name:?}: {source}")]
    Io { name: String, source: io::Error },
}

/// Identity of a file, to notice it was replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileId {
    dev: u64,
    ino: u64,
}

#[cfg(unix)]
fn file_id(meta: &fs::Metadata) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    Some(FileId {
        dev: meta.dev(),
        ino: meta.ino(),
    })
}

#[cfg(not(unix))]
fn file_id(_meta: &fs::Metadata) -> Option<FileId> {
    None
}

/// Reads one conversation file incrementally.
#[derive(Debug)]
pub struct ConversationReader {
    root: PathBuf,
    name: String,
    options: ReaderOptions,
    /// Bytes consumed so far.
    offset: u64,
    /// Newline-terminated lines consumed so far.
    line_no: u64,
    /// The start of an incomplete line (never longer than `max_line_bytes`).
    pending: Vec<u8>,
    /// Inside an oversized line that was already reported: drop bytes up to the newline.
    discarding: bool,
    identity: Option<FileId>,
    was_missing: bool,
}

impl ConversationReader {
    /// A reader of `name` (as active.json names it) inside the agent directory `root`.
    /// Nothing is read until [`read`](Self::read).
    pub fn new(root: &Path, name: &str, options: ReaderOptions) -> Self {
        Self {
            root: root.to_path_buf(),
            name: name.to_owned(),
            options: ReaderOptions {
                max_line_bytes: options.max_line_bytes.max(1),
                max_read_per_poll: options.max_read_per_poll.max(1),
            },
            offset: 0,
            line_no: 0,
            pending: Vec::new(),
            discarding: false,
            identity: None,
            was_missing: false,
        }
    }

    /// The file name as active.json names it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Bytes consumed so far (complete lines plus a waiting partial line).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Bytes held for an incomplete last line (never more than `max_line_bytes`).
    pub fn buffered_bytes(&self) -> usize {
        self.pending.len()
    }

    fn reset(&mut self) {
        self.offset = 0;
        self.line_no = 0;
        self.pending.clear();
        self.discarding = false;
    }

    /// Reads what was appended since the last call.
    pub fn read(&mut self) -> Result<ReadOutcome, ReadError> {
        let mut out = ReadOutcome::default();
        let path = paths::confine(&self.root, &self.name)?;
        let name = self.name.clone();
        let io_err = |source: io::Error| ReadError::Io {
            name: name.clone(),
            source,
        };
        let meta = match fs::metadata(&path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                self.was_missing = true;
                out.missing = true;
                return Ok(out);
            }
            Err(e) => return Err(io_err(e)),
        };
        // Checked before opening: opening a FIFO would block.
        if !meta.is_file() {
            return Err(ReadError::NotAFile {
                name: self.name.clone(),
            });
        }
        let mut file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                self.was_missing = true;
                out.missing = true;
                return Ok(out);
            }
            Err(e) => return Err(io_err(e)),
        };
        let meta = file.metadata().map_err(io_err)?;
        if !meta.is_file() {
            return Err(ReadError::NotAFile {
                name: self.name.clone(),
            });
        }
        let id = file_id(&meta);
        let len = meta.len();
        if self.offset > 0 || !self.pending.is_empty() || self.line_no > 0 {
            let why = if self.was_missing {
                Some("the file was deleted and created again")
            } else if self.identity.is_some() && id != self.identity {
                Some("the file was replaced")
            } else if len < self.offset {
                Some("the file was truncated")
            } else {
                None
            };
            if let Some(why) = why {
                self.reset();
                out.restarted = Some(why.to_owned());
            }
        }
        self.was_missing = false;
        self.identity = id;
        if len <= self.offset {
            return Ok(out);
        }
        file.seek(SeekFrom::Start(self.offset)).map_err(io_err)?;
        let mut buf = vec![0u8; CHUNK];
        let mut total = 0usize;
        loop {
            let n = match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(io_err(e)),
            };
            self.offset += n as u64;
            self.consume(&buf[..n], &mut out.items);
            total += n;
            if total >= self.options.max_read_per_poll {
                out.more = self.offset < len;
                break;
            }
        }
        Ok(out)
    }

    fn file_line(&self, line_no: u64) -> String {
        format!("{}:{}", self.name, line_no)
    }

    fn too_long(&self, line_no: u64) -> ReadItem {
        ReadItem::Rejected {
            file_line: self.file_line(line_no),
            reason: format!(
                "line is longer than {} bytes; skipped",
                self.options.max_line_bytes
            ),
            seq: None,
        }
    }

    fn consume(&mut self, chunk: &[u8], items: &mut Vec<ReadItem>) {
        let max = self.options.max_line_bytes;
        let mut rest = chunk;
        while !rest.is_empty() {
            match rest.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    let part = &rest[..i];
                    rest = &rest[i + 1..];
                    self.line_no += 1;
                    if self.discarding {
                        self.discarding = false;
                        continue;
                    }
                    if self.pending.len() + part.len() > max {
                        self.pending.clear();
                        items.push(self.too_long(self.line_no));
                        continue;
                    }
                    if self.pending.is_empty() {
                        if let Some(item) = self.handle_line(part) {
                            items.push(item);
                        }
                    } else {
                        let mut whole = std::mem::take(&mut self.pending);
                        whole.extend_from_slice(part);
                        if let Some(item) = self.handle_line(&whole) {
                            items.push(item);
                        }
                    }
                }
                None => {
                    if self.discarding {
                        return;
                    }
                    if self.pending.len() + rest.len() > max {
                        self.pending = Vec::new();
                        self.discarding = true;
                        items.push(self.too_long(self.line_no + 1));
                    } else {
                        self.pending.extend_from_slice(rest);
                    }
                    return;
                }
            }
        }
    }

    fn handle_line(&self, bytes: &[u8]) -> Option<ReadItem> {
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        let bytes = if self.line_no == 1 {
            bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes)
        } else {
            bytes
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        let file_line = self.file_line(self.line_no);
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                return Some(ReadItem::Rejected {
                    file_line,
                    reason: format!("not valid UTF-8 (at byte {})", e.valid_up_to()),
                    seq: None,
                });
            }
        };
        Some(match Line::parse(text) {
            Ok(parsed) => ReadItem::Line {
                warnings: parsed
                    .warnings
                    .into_iter()
                    .map(|w| format!("{file_line}: {w}"))
                    .collect(),
                line: parsed.value,
                file_line,
            },
            Err(e) => ReadItem::Rejected {
                file_line,
                reason: e.reason,
                seq: e.seq,
            },
        })
    }
}
