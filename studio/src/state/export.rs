//! The timeline's line exported as a take (Live Link Face CSV, glTF clip).

use std::path::Path;

use npc_core::take::{Take, glb_with_take, write_livelink_csv};

use super::Studio;
use crate::command::ExportFormat;
use crate::timeline::FPS;

impl Studio {
    /// Writes the timeline's line (its face, and the character's body baked at the same rate)
    /// as `format` to `path`; an existing file is kept when anything fails.
    pub(super) fn export_line(&mut self, format: ExportFormat, path: &Path) {
        // The character's body, not the one shown while its file is read.
        if self.body.wait() {
            self.rebake_body();
        }
        let Some(bake) = &self.timeline.bake else {
            self.fail("there is no line on the timeline to export: speak one or open one");
            return;
        };
        let cue = self.timeline.source.as_ref().map(|s| &s.cue);
        let body = self.body.bake_at(
            &self.doc.project,
            self.character(),
            FPS,
            self.timeline.line_ms(),
            cue.map_or(0.0, |c| c.baked_ms() - npc_core::TAIL_MS),
            cue.map(|c| (c, &self.timeline.behaviour)),
            self.timeline.seed,
        );
        let name = self.line_name();
        let take = match Take::from_bakes(&name, bake, FPS, body.as_ref()) {
            Ok(t) => t,
            Err(e) => return self.fail(format!("cannot export the line: {e}")),
        };
        let bytes = match format {
            ExportFormat::LivelinkCsv => write_livelink_csv(&take).into_bytes(),
            ExportFormat::Gltf => {
                let (glb, place) = match self.body.avatar_file() {
                    Some(file) => match std::fs::read(file) {
                        Ok(bytes) => (bytes, file.display().to_string()),
                        Err(e) => {
                            return self.fail(format!("cannot read {}: {e}", file.display()));
                        }
                    },
                    None => (
                        npc_core::procedural::body::avatar_glb(
                            &npc_core::procedural::head::head_parts(),
                        ),
                        "the built-in avatar".to_owned(),
                    ),
                };
                // The selected character's bone map: its avatar and body are the ones baked.
                let bones = self
                    .character()
                    .map(|n| n.avatar.bones.clone())
                    .unwrap_or_default();
                match glb_with_take(&glb, &take, &bones) {
                    Ok(bytes) => bytes,
                    Err(e) => return self.fail(format!("cannot put the line on {place}: {e}")),
                }
            }
        };
        match npc_core::atomic::write_atomically(path, &bytes) {
            Ok(()) => self.say(format!(
                "exported {:?} ({} frames{}) to {}",
                take.name,
                take.times_ms.len(),
                if take.body.is_some() {
                    ", with the body"
                } else {
                    ""
                },
                path.display()
            )),
            Err(e) => self.fail(format!("cannot write {}: {e}", path.display())),
        }
    }

    /// What an exported line is called: its text (shortened), or the file it came from.
    pub(super) fn line_name(&self) -> String {
        if self.timeline.label == "text" {
            let text = self.timeline.text.trim();
            let mut name: String = text.chars().take(40).collect();
            if text.chars().count() > 40 {
                name.push_str("...");
            }
            name
        } else {
            Path::new(&self.timeline.label)
                .file_stem()
                .map_or_else(|| "line".to_owned(), |s| s.to_string_lossy().into_owned())
        }
    }
}
