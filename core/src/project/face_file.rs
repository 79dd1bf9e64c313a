//! Face profiles kept in files of their own: an NPC's `face_file` names a RON file (relative to
//! the project) holding its face settings. Loading reads it into the NPC's `face`; saving
//! writes `face` back to it and leaves it out of the project file, so one profile can be
//! shared, versioned or handed to another project on its own.

use std::borrow::Cow;
use std::fs;
use std::path::Path;

use super::{Project, ProjectError};
use crate::anim::face::FaceSettings;

impl Project {
    /// Reads each NPC's `face_file` into its `face`.
    pub(super) fn read_face_files(&mut self, project_file: &Path) -> Result<(), ProjectError> {
        let mut problems = Vec::new();
        for (i, npc) in self.npcs.iter_mut().enumerate() {
            let Some(file) = &npc.face_file else {
                continue;
            };
            if npc.face.is_some() {
                problems.push(format!(
                    "npcs[{i}] ({}): has both `face` and `face_file`; keep one",
                    npc.id
                ));
                continue;
            }
            let path = Self::resolve(project_file, file);
            let text = fs::read_to_string(&path).map_err(|io| ProjectError::Io {
                path: path.clone(),
                io,
            })?;
            let face: FaceSettings = ron::from_str(&text).map_err(|e| ProjectError::Parse {
                path: path.clone(),
                line: e.span.start.line,
                col: e.span.start.col,
                message: e.code.to_string(),
            })?;
            for problem in face.problems() {
                problems.push(format!(
                    "npcs[{i}] ({}): {}: {problem}",
                    npc.id,
                    file.display()
                ));
            }
            npc.face = Some(face);
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ProjectError::Invalid {
                path: project_file.to_owned(),
                problems,
            })
        }
    }

    /// Writes each NPC's face to its `face_file` (atomically, each file whole).
    pub(super) fn write_face_files(&self, project_file: &Path) -> Result<(), ProjectError> {
        for npc in &self.npcs {
            let (Some(file), Some(face)) = (&npc.face_file, &npc.face) else {
                continue;
            };
            let path = Self::resolve(project_file, file);
            let io = |io| ProjectError::Io {
                path: path.clone(),
                io,
            };
            let config = ron::ser::PrettyConfig::new().struct_names(false);
            let mut text = ron::ser::to_string_pretty(face, config)
                .map_err(|e| io(std::io::Error::other(e.to_string())))?;
            text.push('\n');
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                fs::create_dir_all(dir).map_err(io)?;
            }
            crate::atomic::write_atomically(&path, text.as_bytes()).map_err(io)?;
        }
        Ok(())
    }

    /// The project as its file holds it: the faces kept in files of their own left out.
    pub(super) fn without_filed_faces(&self) -> Cow<'_, Self> {
        if self.npcs.iter().all(|n| n.face_file.is_none()) {
            return Cow::Borrowed(self);
        }
        let mut written = self.clone();
        for npc in written.npcs.iter_mut().filter(|n| n.face_file.is_some()) {
            npc.face = None;
        }
        Cow::Owned(written)
    }
}
