//! Project files (RON): a versioned document that says how faces animate.
//!
//! Version 1 holds the face settings (viseme table, lip sync, gaze, blink). Loading reports
//! errors with file:line:col and rejects unknown fields by name; saving is atomic (a temporary
//! file beside the target, then a rename) so a crash never leaves half a project.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::face::FaceSettings;

/// The schema version this build reads and writes.
pub const PROJECT_VERSION: u32 = 1;

/// A project file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Project {
    pub version: u32,
    #[serde(default)]
    pub face: FaceSettings,
}

impl Default for Project {
    fn default() -> Self {
        Self {
            version: PROJECT_VERSION,
            face: FaceSettings::default(),
        }
    }
}

/// Why a project could not be read or written.
#[derive(Debug, Error)]
pub enum ProjectError {
    #[error("{path}: {io}")]
    Io { path: PathBuf, io: std::io::Error },
    #[error("{path}:{line}:{col}: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        col: usize,
        message: String,
    },
    #[error(
        "{path}: project version {found} is newer than this build understands ({PROJECT_VERSION})"
    )]
    UnsupportedVersion { path: PathBuf, found: u32 },
    #[error("{path}: {}", problems.join("; "))]
    Invalid {
        path: PathBuf,
        problems: Vec<String>,
    },
}

impl Project {
    /// Reads and validates a project file.
    pub fn load(path: &Path) -> Result<Self, ProjectError> {
        let text = fs::read_to_string(path).map_err(|io| ProjectError::Io {
            path: path.to_owned(),
            io,
        })?;
        Self::parse(&text, path)
    }

    /// Parses project text; `path` is only used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<Self, ProjectError> {
        let project: Self = ron::from_str(text).map_err(|e| ProjectError::Parse {
            path: path.to_owned(),
            line: e.span.start.line,
            col: e.span.start.col,
            message: e.code.to_string(),
        })?;
        if project.version > PROJECT_VERSION || project.version == 0 {
            return Err(ProjectError::UnsupportedVersion {
                path: path.to_owned(),
                found: project.version,
            });
        }
        let problems = project.face.problems();
        if !problems.is_empty() {
            return Err(ProjectError::Invalid {
                path: path.to_owned(),
                problems,
            });
        }
        Ok(project)
    }

    /// The project as RON text, fields in a stable order.
    pub fn to_ron(&self) -> Result<String, ron::Error> {
        let config = ron::ser::PrettyConfig::new().struct_names(false);
        ron::ser::to_string_pretty(self, config).map(|mut s| {
            s.push('\n');
            s
        })
    }

    /// Writes the project atomically: to a temporary file in the same folder, then renamed.
    pub fn save(&self, path: &Path) -> Result<(), ProjectError> {
        let io = |io| ProjectError::Io {
            path: path.to_owned(),
            io,
        };
        let text = self
            .to_ron()
            .map_err(|e| io(std::io::Error::other(e.to_string())))?;
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let mut temp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
        temp.write_all(text.as_bytes()).map_err(io)?;
        temp.as_file().sync_all().map_err(io)?;
        temp.persist(path).map_err(|e| io(e.error))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_exactly_through_an_atomic_save() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("p.ron");
        let mut project = Project::default();
        project.face.lipsync.lead_ms = 45.0;
        project.save(&path).expect("save");
        let loaded = Project::load(&path).expect("load");
        assert_eq!(loaded, project);
        let text = fs::read_to_string(&path).expect("read");
        assert_eq!(loaded.to_ron().expect("ron"), text, "save is stable");
    }

    #[test]
    fn errors_name_the_place_and_the_field() {
        let path = Path::new("bad.ron");
        let err = Project::parse("(\n  version: 1,\n  colour: 3,\n)", path).expect_err("unknown");
        let msg = err.to_string();
        assert!(msg.starts_with("bad.ron:3:"), "{msg}");
        assert!(msg.contains("colour"), "{msg}");
        let err = Project::parse("(version: 9)", path).expect_err("newer");
        assert!(err.to_string().contains("version 9"), "{err}");
        let err = Project::parse("(version: 1, face: (lipsync: (lead_ms: -5.0)))", path)
            .expect_err("invalid");
        assert!(err.to_string().contains("lead_ms"), "{err}");
    }
}
