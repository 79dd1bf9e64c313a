//! Giving the character's head the project's face shapes: the wizard, the transfer on a
//! thread of its own, and the head worn when it is written.

use std::path::{Path, PathBuf};

use npc_core::project::Project;

use super::{Effect, Studio, file_name, worn_file};
use crate::command::Command;
use crate::transfer_wizard::TransferWizard;

/// What a transfer job made: the head written to `out` for `npc`, or why not.
#[derive(Debug)]
pub(super) struct TransferMade {
    npc: String,
    out: PathBuf,
    made: Result<npc_core::transfer::Transfer, String>,
}

impl Studio {
    /// Writes the character's head with the project's face shapes to `out` and has the
    /// character wear it (one undo step puts the old file back).
    pub(super) fn transfer_shapes(&mut self, out: &Path) {
        let (Some(project_file), Some(npc)) = (self.path.clone(), self.character().cloned()) else {
            return self.fail("save the project first, with a character in it");
        };
        // The wizard, open on this character, gives the input and the landmarks moved.
        let wizard = self.wizard.as_ref().filter(|w| w.npc == npc.id);
        let (input, options) = match wizard {
            Some(w) => (w.target_file.clone(), w.options()),
            None => (
                Project::resolve(&project_file, worn_file(&npc)),
                npc_core::transfer::TransferOptions::default(),
            ),
        };
        let (id, target) = (npc.id.clone(), out.to_path_buf());
        let started = self
            .transfer_job
            .start(format!("giving {id} the face shapes"), move || {
                let made = std::fs::read(&input)
                    .map_err(|e| format!("cannot read {}: {e}", input.display()))
                    .and_then(|bytes| {
                        let source = npc_core::transfer::own_head().map_err(|e| e.to_string())?;
                        npc_core::transfer::transfer_glb(
                            &bytes,
                            input.parent(),
                            &source,
                            &options,
                            false,
                        )
                        .map_err(|e| format!("{}: {e}", input.display()))
                    })
                    .map_err(|e| format!("cannot give the head shapes: {e}"))
                    .and_then(|(glb, made)| {
                        npc_core::atomic::write_atomically(&target, &glb)
                            .map_err(|e| format!("cannot write {}: {e}", target.display()))?;
                        Ok(made)
                    });
                TransferMade {
                    npc: id,
                    out: target,
                    made,
                }
            });
        match started {
            Ok(()) => self.say(format!("giving {} the face shapes...", npc.id)),
            Err(e) => self.fail_transfer(e),
        }
    }

    /// Has the character wear the head a transfer job wrote (one undo step puts the old file
    /// back), or says why there is none.
    pub(super) fn transfer_made(&mut self, made: Result<TransferMade, String>) {
        let TransferMade { npc, out, made } = match made {
            Ok(m) => m,
            Err(e) => return self.fail_transfer(e),
        };
        let made = match made {
            Ok(m) => m,
            Err(e) => return self.fail_transfer(e),
        };
        let dir = self
            .path
            .as_deref()
            .and_then(Path::parent)
            .unwrap_or(Path::new(""));
        let file = out
            .strip_prefix(dir)
            .map_or_else(|_| out.clone(), Path::to_path_buf);
        let mut roster = self.doc.project.npcs.clone();
        if let Some(wearer) = roster.iter_mut().find(|n| n.id == npc) {
            match &mut wearer.avatar.head {
                Some(head) => *head = file,
                None => wearer.avatar.body = file,
            }
        }
        self.apply(Command::SetRoster(roster));
        self.effects.push(Effect::LoadHead(None));
        let report = &made.report;
        let lips = report.seam.as_ref().map_or(String::new(), |s| {
            format!(
                ", lips part {:.1} mm with jawOpen",
                s.jaw_open_gap_mm - s.rest_gap_mm
            )
        });
        let text = format!(
            "{npc} wears {}: {} face shapes (face within {:.1} mm of the project's, median{lips})",
            file_name(&out),
            made.shapes.names.len(),
            report.surface_distance_median_mm
        );
        if let Some(w) = self.wizard.as_mut() {
            w.outcome = Some(text.clone());
            w.report = Some(made.report.clone());
        }
        self.say(text);
    }

    /// Says why the transfer failed, in the wizard too when it is open.
    pub(super) fn fail_transfer(&mut self, text: String) {
        if let Some(w) = self.wizard.as_mut() {
            w.outcome = Some(text.clone());
            w.report = None;
        }
        self.fail(text);
    }

    /// Opens the transfer wizard on the character's head.
    pub(super) fn open_transfer_wizard(&mut self) {
        let (Some(project_file), Some(npc)) = (self.path.clone(), self.character().cloned()) else {
            return self.fail("save the project first, with a character in it");
        };
        let input = Project::resolve(&project_file, worn_file(&npc));
        match TransferWizard::open(&npc.id, &input) {
            Ok(w) => {
                self.wizard = Some(w);
                self.say(format!(
                    "drag the landmarks where they belong on both heads, then write {}'s head",
                    npc.id
                ));
            }
            Err(e) => self.fail(format!("cannot give the head shapes: {e}")),
        }
    }
}
