//! The character picker above the tabs: which of the roster's characters they show and edit.

use crate::command::Command;
use crate::state::Studio;

/// Which character the tabs edit, when the roster has more than one.
pub fn panel(ui: &mut egui::Ui, studio: &Studio, out: &mut Vec<Command>) {
    let roster = &studio.doc.project.npcs;
    if roster.len() < 2 {
        return;
    }
    let shown = studio.character().map(|n| n.id.clone()).unwrap_or_default();
    ui.horizontal(|ui| {
        let label = ui.label("Character");
        egui::ComboBox::from_id_salt("character")
            .selected_text(&shown)
            .show_ui(ui, |ui| {
                for npc in roster {
                    if ui.selectable_label(npc.id == shown, &npc.id).clicked() && npc.id != shown {
                        out.push(Command::SelectCharacter(npc.id.clone()));
                    }
                }
            })
            .response
            .labelled_by(label.id);
    });
    ui.separator();
}
