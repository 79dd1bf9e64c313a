//! The guard against losing unsaved changes when another project is opened or a new one
//! started: such a command waits while the user chooses to save first, discard the changes,
//! or cancel.

use crate::command::Command;
use crate::state::Studio;

/// Commands that replace the document.
fn replaces_document(command: &Command) -> bool {
    matches!(command, Command::Open(_) | Command::New)
}

/// A command held back until the user decides about unsaved changes.
#[derive(Debug, Default)]
pub struct UnsavedGuard {
    waiting: Option<Command>,
}

impl UnsavedGuard {
    /// The commands to apply now: one that would replace an unsaved document is held back
    /// (with the rest after it) until the user answers.
    pub fn intercept(&mut self, studio: &Studio, commands: Vec<Command>) -> Vec<Command> {
        let mut now = Vec::with_capacity(commands.len());
        for command in commands {
            if self.waiting.is_some() {
                // One question at a time; later commands of the same frame are dropped with it.
                continue;
            }
            if replaces_document(&command) && studio.is_dirty() {
                self.waiting = Some(command);
            } else {
                now.push(command);
            }
        }
        now
    }

    /// Whether a command waits for an answer.
    #[must_use]
    pub fn is_asking(&self) -> bool {
        self.waiting.is_some()
    }

    /// Asks about the held command; applies what the user chose to `studio`.
    pub fn show(&mut self, ctx: &egui::Context, studio: &mut Studio) {
        let Some(command) = &self.waiting else {
            return;
        };
        let what = match command {
            Command::Open(path) => format!("Opening {}", path.display()),
            _ => "Starting a new project".to_owned(),
        };
        let mut answer = None;
        egui::Window::new("Replace the project?")
            .collapsible(false)
            .resizable(false)
            .show(ctx, |ui| {
                ui.label(format!(
                    "{what} replaces this project, which has changes that are not saved."
                ));
                ui.horizontal(|ui| {
                    if ui.button("Save, then continue").clicked() {
                        answer = Some(Answer::Save);
                    }
                    if ui.button("Discard changes").clicked() {
                        answer = Some(Answer::Discard);
                    }
                    if ui.button("Cancel").clicked() {
                        answer = Some(Answer::Cancel);
                    }
                });
            });
        let Some(answer) = answer else { return };
        let Some(command) = self.waiting.take() else {
            return;
        };
        match answer {
            Answer::Save => {
                studio.apply(Command::Save);
                // A failed save (no file yet, disk full) keeps the document and says why.
                if !studio.is_dirty() {
                    studio.apply(command);
                }
            }
            Answer::Discard => studio.apply(command),
            Answer::Cancel => {}
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    Save,
    Discard,
    Cancel,
}
