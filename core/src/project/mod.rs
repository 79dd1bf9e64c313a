//! Project files (RON): a versioned document holding everything a scene of talking NPCs
//! needs: face animation settings, the scene, the NPC roster, the agent directory and the
//! speech engine.
//!
//! Loading reports errors with file:line:col and rejects unknown fields by name; paths inside
//! resolve relative to the project file; saving is atomic (a temporary file beside the
//! target, then a rename) with a stable field order, so a save of a loaded project gives the
//! same text back.

mod check;
mod clip_files;
mod demo;
mod face_file;
mod schema;
mod screen;

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::anim::face::FaceSettings;
use crate::body::BodySettings;
use crate::hearing::ListenSettings;

pub use check::{BODY_CLIPS, CheckReport, SKIES, SKY_FACES, check_assets};
pub use clip_files::ClipFiles;
pub use demo::demo_project;
pub use schema::{
    Avatar, FogSettings, Gender, Npc, SceneSettings, SpeechEngine, SunSettings, Voice,
};
pub use screen::{ScreenSettings, SubtitlePlace, SubtitleSettings};

/// The schema version this build reads and writes.
pub const PROJECT_VERSION: u32 = 1;

/// A project file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Project {
    pub version: u32,
    /// Seeds every NPC's face (gaze and blinks) together with its id: see [`Project::face_seed`].
    #[serde(default)]
    pub seed: u64,
    /// How every face animates (viseme table, lip sync, gaze, blinks).
    #[serde(default)]
    pub face: FaceSettings,
    /// How every body lives when no clip says otherwise (an NPC's own `body` replaces it).
    #[serde(default)]
    pub body: BodySettings,
    /// How the NPCs hear and listen to the person in front of them.
    #[serde(default)]
    pub listen: ListenSettings,
    #[serde(default)]
    pub scene: SceneSettings,
    /// What the player draws over the world: subtitles, names.
    #[serde(default)]
    pub screen: ScreenSettings,
    /// The NPC roster: who can speak, what they look and sound like, where they start.
    #[serde(default)]
    pub npcs: Vec<Npc>,
    /// The directory conversational agents write lines into.
    #[serde(default = "default_agent_dir")]
    pub agent_dir: PathBuf,
    #[serde(default)]
    pub speech: SpeechEngine,
    /// Live links every run streams its NPCs to (`vmc://HOST:PORT`, `livelink://HOST:PORT`,
    /// optionally `?hz=N`), besides those given with `run --stream`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub streams: Vec<String>,
}

fn default_agent_dir() -> PathBuf {
    PathBuf::from("agents")
}

impl Default for Project {
    fn default() -> Self {
        Self {
            version: PROJECT_VERSION,
            seed: 0,
            face: FaceSettings::default(),
            body: BodySettings::default(),
            listen: ListenSettings::default(),
            scene: SceneSettings::default(),
            screen: ScreenSettings::default(),
            npcs: Vec::new(),
            agent_dir: default_agent_dir(),
            speech: SpeechEngine::default(),
            streams: Vec::new(),
        }
    }
}

/// Only the version, read first to decide how to read the rest.
#[derive(Deserialize)]
struct VersionOnly {
    version: u32,
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
        let mut project = Self::parse(&text, path)?;
        project.read_face_files(path)?;
        Ok(project)
    }

    /// Parses project text; `path` is only used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<Self, ProjectError> {
        let parse_error = |e: ron::error::SpannedError| ProjectError::Parse {
            path: path.to_owned(),
            line: e.span.start.line,
            col: e.span.start.col,
            message: e.code.to_string(),
        };
        let version = ron::from_str::<VersionOnly>(text)
            .map_err(parse_error)?
            .version;
        let text = migrate(version, text).ok_or_else(|| ProjectError::UnsupportedVersion {
            path: path.to_owned(),
            found: version,
        })?;
        let project: Self = ron::from_str(&text).map_err(parse_error)?;
        let problems = project.problems();
        if !problems.is_empty() {
            return Err(ProjectError::Invalid {
                path: path.to_owned(),
                problems,
            });
        }
        Ok(project)
    }

    /// Problems in the project itself (without looking at the files it names).
    #[must_use]
    pub fn problems(&self) -> Vec<String> {
        let mut out = self.face.problems();
        out.extend(self.listen.problems());
        let scene = &self.scene;
        if !(scene.day_length_s.is_finite() && scene.day_length_s > 0.0) {
            out.push(format!(
                "scene.day_length_s must be > 0 (got {})",
                scene.day_length_s
            ));
        }
        if !(0.0..=1.0).contains(&scene.start_time) {
            out.push(format!(
                "scene.start_time must be in [0, 1] (got {})",
                scene.start_time
            ));
        }
        if !(scene.fog.start >= 0.0 && scene.fog.start < scene.fog.end) {
            out.push(format!(
                "scene.fog needs 0 <= start < end (got {} to {})",
                scene.fog.start, scene.fog.end
            ));
        }
        if !scene.shadow_size.is_power_of_two() || !(256..=8192).contains(&scene.shadow_size) {
            out.push(format!(
                "scene.shadow_size must be a power of two from 256 to 8192 (got {})",
                scene.shadow_size
            ));
        }
        if !(scene.exposure > 0.0 && scene.exposure <= 16.0) {
            out.push(format!(
                "scene.exposure must be above 0 and at most 16 (got {})",
                scene.exposure
            ));
        }
        if !(0.0..=8.0).contains(&scene.sky_light) {
            out.push(format!(
                "scene.sky_light must be from 0 to 8 (got {})",
                scene.sky_light
            ));
        }
        let mut ids = std::collections::HashSet::new();
        for (i, npc) in self.npcs.iter().enumerate() {
            if npc.id.trim().is_empty() {
                out.push(format!("npcs[{i}] has an empty id"));
            } else if !ids.insert(npc.id.as_str()) {
                out.push(format!("npcs[{i}]: the id `{}` is used twice", npc.id));
            }
            if !npc.spawn.iter().all(|c| (0.0..=1.0).contains(c)) {
                out.push(format!(
                    "npcs[{i}] ({}): spawn {:?} must be map coordinates in [0, 1]",
                    npc.id, npc.spawn
                ));
            }
            if let Some(face) = &npc.face {
                for problem in face.problems() {
                    out.push(format!("npcs[{i}] ({}): face: {problem}", npc.id));
                }
            }
            if let Some(shapes) = &npc.avatar.shapes {
                for problem in shapes.problems() {
                    out.push(format!("npcs[{i}] ({}): avatar.{problem}", npc.id));
                }
            }
        }
        if let SpeechEngine::Azure { region } = &self.speech
            && region.trim().is_empty()
        {
            out.push("speech: Azure needs a region".to_owned());
        }
        out
    }

    /// The seed of NPC `npc`'s face, as every path that animates it derives it.
    #[must_use]
    pub fn face_seed(&self, npc: &str) -> u64 {
        crate::anim::face_seed(self.seed, npc)
    }

    /// NPC `npc`'s face profile: its own when it has one, else the project's.
    #[must_use]
    pub fn face_settings(&self, npc: &str) -> &FaceSettings {
        self.face_settings_of(self.npcs.iter().find(|n| n.id == npc))
    }

    /// `npc`'s face profile (one of this project's NPCs, found already): its own when it has
    /// one, else the project's.
    #[must_use]
    pub fn face_settings_of<'a>(&'a self, npc: Option<&'a Npc>) -> &'a FaceSettings {
        npc.and_then(|n| n.face.as_ref()).unwrap_or(&self.face)
    }

    /// How NPC `npc`'s body lives: its own settings when it has them, else the project's.
    #[must_use]
    pub fn body_settings(&self, npc: &str) -> &BodySettings {
        self.body_settings_of(self.npcs.iter().find(|n| n.id == npc))
    }

    /// How `npc` (one of this project's NPCs, found already) lives: its own settings when it
    /// has them, else the project's.
    #[must_use]
    pub fn body_settings_of<'a>(&'a self, npc: Option<&'a Npc>) -> &'a BodySettings {
        npc.and_then(|n| n.body.as_ref()).unwrap_or(&self.body)
    }

    /// A path from the project resolved against the folder of the project file.
    #[must_use]
    pub fn resolve(project_file: &Path, path: &Path) -> PathBuf {
        match project_file.parent() {
            Some(dir) if path.is_relative() => dir.join(path),
            _ => path.to_owned(),
        }
    }

    /// The project as RON text, fields in a stable order (faces kept in their own files left
    /// out: [`Project::save`] writes those).
    pub fn to_ron(&self) -> Result<String, ron::Error> {
        let config = ron::ser::PrettyConfig::new().struct_names(false);
        ron::ser::to_string_pretty(&*self.without_filed_faces(), config).map(|mut s| {
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
        self.write_face_files(path)?;
        crate::atomic::write_atomically(path, text.as_bytes()).map_err(io)
    }
}

/// Brings project text of an older schema version up to [`PROJECT_VERSION`]; None when the
/// version is unknown or newer than this build. Version 1 is the first schema, so there is
/// nothing to convert yet; each later version adds one step here.
fn migrate(version: u32, text: &str) -> Option<std::borrow::Cow<'_, str>> {
    match version {
        PROJECT_VERSION => Some(std::borrow::Cow::Borrowed(text)),
        _ => None,
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
