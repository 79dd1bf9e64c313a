//! The menu bar: project files, undo and redo, the live link, and running the project in the
//! player.

use egui::Ui;

use crate::command::Command;
use crate::file_dialog::Prompt;
use crate::state::Studio;

/// The addresses typed in the Live link menu.
#[derive(Clone, Debug)]
pub struct LinkText {
    /// Where to stream to.
    pub out: String,
    /// Where to listen for a capture.
    pub capture: String,
}

impl Default for LinkText {
    fn default() -> Self {
        Self {
            out: "livelink://127.0.0.1:11111".to_owned(),
            capture: "livelink://0.0.0.0:11111".to_owned(),
        }
    }
}

/// The menu bar; returns what file to ask for, when one must be chosen.
pub fn bar(
    ui: &mut Ui,
    studio: &Studio,
    simulator: &mut bool,
    link_text: &mut LinkText,
    out: &mut Vec<Command>,
) -> Option<Prompt> {
    let mut prompt = None;
    egui::MenuBar::new().ui(ui, |ui| {
        ui.menu_button("File", |ui| {
            if ui.button("New").clicked() {
                out.push(Command::New);
            }
            if ui.button("Open...").clicked() {
                prompt = Some(Prompt::Open);
            }
            ui.menu_button("Open recent", |ui| {
                if studio.recent.is_empty() {
                    ui.weak("none yet");
                }
                for p in &studio.recent {
                    if ui.button(p.display().to_string()).clicked() {
                        out.push(Command::Open(p.clone()));
                    }
                }
            });
            if ui.button("Save (Ctrl+S)").clicked() {
                out.push(Command::Save);
            }
            if ui.button("Save As...").clicked() {
                prompt = Some(Prompt::SaveAs);
            }
            ui.separator();
            if ui.button("Open head or avatar...").clicked() {
                prompt = Some(Prompt::OpenHead);
            }
            if ui
                .add_enabled(
                    studio.path.is_some() && studio.character().is_some(),
                    egui::Button::new("Give the head the project's face shapes..."),
                )
                .on_hover_text("a copy of the character's head with the 52 ARKit shapes carried over from the project's head, through landmarks you can move (docs/transfer.md)")
                .on_disabled_hover_text("save the project first")
                .clicked()
            {
                out.push(Command::OpenTransferWizard);
            }
            ui.separator();
            let line = studio.timeline.bake.is_some();
            let why = "speak or open a line first";
            if ui
                .add_enabled(line, egui::Button::new("Export line as Live Link CSV..."))
                .on_disabled_hover_text(why)
                .clicked()
            {
                prompt = Some(Prompt::ExportCsv);
            }
            if ui
                .add_enabled(line, egui::Button::new("Export line as glTF clip..."))
                .on_disabled_hover_text(why)
                .on_hover_text("the first NPC's avatar with the line as an animation clip")
                .clicked()
            {
                prompt = Some(Prompt::ExportGltf);
            }
        });
        ui.menu_button("Edit", |ui| {
            if ui
                .add_enabled(studio.can_undo(), egui::Button::new("Undo (Ctrl+Z)"))
                .clicked()
            {
                out.push(Command::Undo);
            }
            if ui
                .add_enabled(studio.can_redo(), egui::Button::new("Redo (Ctrl+Shift+Z)"))
                .clicked()
            {
                out.push(Command::Redo);
            }
        });
        ui.menu_button("Live link", |ui| {
            ui.label("Stream the character's face, as the 3D view shows it, to your engine:");
            let label = ui.label("address");
            ui.text_edit_singleline(&mut link_text.out).labelled_by(label.id);
            ui.weak("livelink://HOST:PORT (Unreal, MetaHuman) or vmc://HOST:PORT (Unity, VSeeFace)");
            if studio.stream.is_some() {
                if ui.button("Stop streaming").clicked() {
                    out.push(Command::StreamTo(None));
                }
            } else if ui.button("Start streaming").clicked() {
                out.push(Command::StreamTo(Some(link_text.out.clone())));
            }
            ui.separator();
            ui.label("Listen for a live capture and lay it under the line as it arrives:");
            let label = ui.label("listen on");
            ui.text_edit_singleline(&mut link_text.capture).labelled_by(label.id);
            ui.weak("livelink://0.0.0.0:11111 (the Live Link Face app) or vmc://0.0.0.0:39539");
            if studio.capture_in.is_some() {
                if ui.button("Stop listening").clicked() {
                    out.push(Command::ListenForCapture(None));
                }
            } else if ui.button("Listen").clicked() {
                out.push(Command::ListenForCapture(Some(link_text.capture.clone())));
            }
        });
        ui.separator();
        ui.checkbox(simulator, "with the demo simulator");
        if ui.button("Run in player").clicked() {
            out.push(Command::RunInPlayer {
                simulator: *simulator,
            });
        }
        ui.separator();
        let name = studio
            .path
            .as_ref()
            .map_or_else(|| "untitled".to_owned(), |p| p.display().to_string());
        let dirty = if studio.is_dirty() { " (unsaved)" } else { "" };
        ui.label(format!("{name}{dirty}"));
    });
    prompt
}
