//! Native file dialogs (the desktop portal, or zenity) on a thread of their own, so the
//! window keeps drawing while one is open. Where neither exists, the app asks for a path in
//! a small window instead.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;

use crate::command::{Command, ExportFormat};

/// What a file is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prompt {
    Open,
    SaveAs,
    OpenHead,
    /// A WAV (audio analysis) or a viseme file for the timeline.
    OpenLine,
    /// A recording of the person for the character to listen to.
    ListenTo,
    /// A capture to compare the line with (Live Link Face CSV, glTF).
    OpenComparison,
    /// Where to export the line as Live Link Face CSV.
    ExportCsv,
    /// Where to export the line as a glTF clip on the avatar.
    ExportGltf,
    /// Where to write the character's head with the project's face shapes.
    TransferShapes,
}

impl Prompt {
    /// The dialog's title.
    #[must_use]
    pub fn title(self) -> &'static str {
        match self {
            Self::Open => "Open project",
            Self::SaveAs => "Save project as",
            Self::OpenHead => "Open head or avatar (glTF / GLB)",
            Self::OpenLine => "Open a recording (WAV) or visemes (JSON)",
            Self::ListenTo => "Listen to a recording of the person (WAV)",
            Self::OpenComparison => "Compare with a capture (Live Link Face CSV, glTF)",
            Self::ExportCsv => "Export the line as Live Link Face CSV",
            Self::ExportGltf => "Export the line as a glTF clip (GLB)",
            Self::TransferShapes => "Write the head with the project's face shapes (GLB)",
        }
    }

    /// Whether the dialog asks where to write (rather than what to read).
    #[must_use]
    pub fn saves(self) -> bool {
        matches!(
            self,
            Self::SaveAs | Self::ExportCsv | Self::ExportGltf | Self::TransferShapes
        )
    }

    /// The command for the file chosen.
    #[must_use]
    pub fn command(self, path: PathBuf) -> Command {
        match self {
            Self::Open => Command::Open(path),
            Self::SaveAs => Command::SaveAs(path),
            Self::OpenHead => Command::OpenHead(path),
            Self::OpenLine => {
                let wav = path
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("wav"));
                if wav {
                    Command::OpenWav(path)
                } else {
                    Command::OpenVisemes(path)
                }
            }
            Self::ListenTo => Command::ListenTo(path),
            Self::OpenComparison => Command::OpenComparison(path),
            Self::ExportCsv => Command::ExportLine {
                format: ExportFormat::LivelinkCsv,
                path,
            },
            Self::ExportGltf => Command::ExportLine {
                format: ExportFormat::Gltf,
                path,
            },
            Self::TransferShapes => Command::TransferShapes(path),
        }
    }

    fn dialog(self, start: Option<&Path>) -> rfd::AsyncFileDialog {
        let mut d = rfd::AsyncFileDialog::new().set_title(self.title());
        if let Some(dir) = start {
            d = d.set_directory(dir);
        }
        match self {
            Self::Open | Self::SaveAs => d.add_filter("Living NPC project", &["ron"]),
            Self::OpenHead => d.add_filter("glTF", &["glb", "gltf"]),
            Self::OpenLine => d
                .add_filter("Recording or visemes", &["wav", "json"])
                .add_filter("WAV", &["wav"])
                .add_filter("Visemes", &["json"]),
            Self::ListenTo => d.add_filter("WAV", &["wav"]),
            Self::OpenComparison => d
                .add_filter("Capture", &["csv", "glb", "gltf"])
                .add_filter("Live Link Face CSV", &["csv"])
                .add_filter("glTF", &["glb", "gltf"]),
            Self::ExportCsv => d.add_filter("Live Link Face CSV", &["csv"]),
            Self::ExportGltf | Self::TransferShapes => d.add_filter("GLB", &["glb"]),
        }
    }
}

/// Whether this desktop can show a native file dialog: a session bus for the desktop
/// portal, or zenity.
#[must_use]
pub fn available() -> bool {
    let bus = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|v| !v.is_empty());
    let zenity = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join("zenity").is_file()));
    bus || zenity
}

/// Where a dialog is.
#[derive(Debug, PartialEq)]
pub enum Chosen {
    /// Still open.
    Waiting,
    /// Closed with a file: the command for it.
    File(Box<Command>),
    /// Closed without one.
    Nothing,
}

/// A dialog being shown.
#[derive(Debug)]
pub struct OpenDialog {
    prompt: Prompt,
    chosen: mpsc::Receiver<Option<PathBuf>>,
}

impl OpenDialog {
    /// Shows the dialog for `prompt`, starting in `start`.
    pub fn show(prompt: Prompt, start: Option<&Path>) -> anyhow::Result<Self> {
        let dialog = prompt.dialog(start);
        let (tx, chosen) = mpsc::channel();
        thread::Builder::new()
            .name("npc-file-dialog".to_owned())
            .spawn(move || {
                let picked = pollster::block_on(async move {
                    if prompt.saves() {
                        dialog.save_file().await
                    } else {
                        dialog.pick_file().await
                    }
                });
                let _ = tx.send(picked.map(|h| h.path().to_path_buf()));
            })?;
        Ok(Self { prompt, chosen })
    }

    /// Whether a file was chosen yet.
    #[must_use]
    pub fn poll(&self) -> Chosen {
        match self.chosen.try_recv() {
            Ok(Some(path)) => Chosen::File(Box::new(self.prompt.command(path))),
            Ok(None) | Err(mpsc::TryRecvError::Disconnected) => Chosen::Nothing,
            Err(mpsc::TryRecvError::Empty) => Chosen::Waiting,
        }
    }
}

/// Asking the user for a file: a native dialog where the desktop has one, else a small
/// window with a path field.
#[derive(Debug, Default)]
pub struct FileAsk {
    native: Option<OpenDialog>,
    typed: Option<(Prompt, String)>,
    /// Never use native dialogs (tests, and after one failed to start).
    typed_only: bool,
}

impl FileAsk {
    /// Asking by a typed path only.
    #[must_use]
    pub fn typed_only() -> Self {
        Self {
            typed_only: true,
            ..Self::default()
        }
    }

    /// Whether a dialog or the path window is open.
    #[must_use]
    pub fn is_open(&self) -> bool {
        self.native.is_some() || self.typed.is_some()
    }

    /// Starts asking for `prompt`, in `start` where the dialog can start somewhere.
    pub fn start(&mut self, prompt: Prompt, start: Option<&Path>) {
        if self.is_open() {
            return;
        }
        if !self.typed_only && available() {
            match OpenDialog::show(prompt, start) {
                Ok(d) => {
                    self.native = Some(d);
                    return;
                }
                Err(e) => {
                    tracing::warn!("no file dialog ({e}); asking for a path instead");
                    self.typed_only = true;
                }
            }
        }
        self.typed = Some((prompt, String::new()));
    }

    /// Shows the path window if it is open; returns the command for a chosen file.
    pub fn show(&mut self, ctx: &egui::Context) -> Option<Command> {
        if let Some(d) = &self.native {
            match d.poll() {
                Chosen::Waiting => {
                    // Look again soon without busy drawing.
                    ctx.request_repaint_after(std::time::Duration::from_millis(100));
                    return None;
                }
                Chosen::File(c) => {
                    self.native = None;
                    return Some(*c);
                }
                Chosen::Nothing => {
                    self.native = None;
                    return None;
                }
            }
        }
        let (prompt, mut text) = self.typed.take()?;
        let (keep, command) = prompt_window(ctx, prompt, &mut text);
        if keep {
            self.typed = Some((prompt, text));
        }
        command
    }
}

/// A file path asked for in a small window (where there is no native file dialog); returns
/// whether to keep asking and the command once confirmed.
fn prompt_window(
    ctx: &egui::Context,
    prompt: Prompt,
    text: &mut String,
) -> (bool, Option<Command>) {
    let mut open = true;
    let mut command = None;
    egui::Window::new(prompt.title())
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
                    command = Some(prompt.command(PathBuf::from(text.trim())));
                }
                if ui.button("Cancel").clicked() {
                    open = false;
                }
            });
        });
    (open && command.is_none(), command)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_file_opens_by_its_kind() {
        assert_eq!(
            Prompt::OpenLine.command("a/take.WAV".into()),
            Command::OpenWav("a/take.WAV".into())
        );
        assert_eq!(
            Prompt::OpenLine.command("a/visemes.json".into()),
            Command::OpenVisemes("a/visemes.json".into())
        );
        assert_eq!(
            Prompt::SaveAs.command("p.ron".into()),
            Command::SaveAs("p.ron".into())
        );
        assert_eq!(
            Prompt::ExportGltf.command("line.glb".into()),
            Command::ExportLine {
                format: ExportFormat::Gltf,
                path: "line.glb".into()
            }
        );
        assert!(Prompt::ExportCsv.saves() && !Prompt::OpenComparison.saves());
    }
}
