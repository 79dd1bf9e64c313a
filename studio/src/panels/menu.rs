//! The menu bar: project files, undo and redo, and running the project in the player.

use std::path::PathBuf;

use egui::Ui;

use crate::command::Command;
use crate::state::Studio;

/// What the menu wants besides commands: a path prompt to open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prompt {
    Open,
    SaveAs,
    OpenHead,
}

/// The menu bar; returns a prompt to show when a file must be named.
pub fn bar(
    ui: &mut Ui,
    studio: &Studio,
    simulator: &mut bool,
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

/// A file path asked for in a small window; returns the command when confirmed.
pub fn prompt_window(
    ctx: &egui::Context,
    prompt: Prompt,
    text: &mut String,
) -> (bool, Option<Command>) {
    let title = match prompt {
        Prompt::Open => "Open project",
        Prompt::SaveAs => "Save project as",
        Prompt::OpenHead => "Open head or avatar (glTF / GLB)",
    };
    let mut open = true;
    let mut command = None;
    egui::Window::new(title)
        .collapsible(false)
        .resizable(false)
        .show(ctx, |ui| {
            let label = ui.label("File path:");
            let r = ui
                .add(egui::TextEdit::singleline(text).desired_width(360.0))
                .labelled_by(label.id);
            let enter = r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            ui.horizontal(|ui| {
                if (ui.button("OK").clicked() || enter) && !text.trim().is_empty() {
                    let path = PathBuf::from(text.trim());
                    command = Some(match prompt {
                        Prompt::Open => Command::Open(path),
                        Prompt::SaveAs => Command::SaveAs(path),
                        Prompt::OpenHead => Command::OpenHead(path),
                    });
                }
                if ui.button("Cancel").clicked() {
                    open = false;
                }
            });
        });
    (open && command.is_none(), command)
}
