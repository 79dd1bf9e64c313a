//! The player's two windows: the full list of controls (F1) and the menu (Esc) with volume,
//! subtitles and mouse sensitivity. They change only the settings handed to them and say
//! what the person asked for; the window applies it.

use egui::{Align2, Grid, RichText, Slider, Vec2};

use super::prefs::{Prefs, SENSITIVITY};

/// The controls, for the help window: key and what it does.
pub const CONTROLS: [(&str, &str); 8] = [
    ("W A S D / arrows", "walk"),
    ("drag the mouse", "look around"),
    ("Shift", "hurry"),
    ("face an NPC and speak", "talk to it (run with --mic)"),
    ("F1", "this list"),
    ("F2", "subtitles on or off"),
    ("Esc", "menu: volume, subtitles, mouse; quit"),
    ("close the window", "quit"),
];

/// What the person chose in the menu.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MenuChoice {
    Resume,
    Quit,
}

/// The help window, while `open`.
pub fn help(ctx: &egui::Context, open: &mut bool) {
    egui::Window::new("Controls")
        .open(open)
        .collapsible(false)
        .resizable(false)
        .anchor(Align2::CENTER_CENTER, Vec2::ZERO)
        .show(ctx, |ui| {
            Grid::new("controls")
                .num_columns(2)
                .spacing([24.0, 6.0])
                .show(ui, |ui| {
                    for (key, what) in CONTROLS {
                        ui.label(RichText::new(key).strong());
                        ui.label(what);
                        ui.end_row();
                    }
                });
        });
}

/// The menu; `subtitles_default` is what the project says when the person has not chosen.
/// Returns the person's choice, if they made one this frame.
pub fn menu(ctx: &egui::Context, prefs: &mut Prefs, subtitles_default: bool) -> Option<MenuChoice> {
    let mut choice = None;
    egui::Window::new("Menu")
        .collapsible(false)
        .resizable(false)
        .anchor(Align2::CENTER_CENTER, Vec2::ZERO)
        .show(ctx, |ui| {
            let mut percent = prefs.volume * 100.0;
            let volume = Slider::new(&mut percent, 0.0..=100.0)
                .suffix(" %")
                .integer()
                .text("Volume");
            if ui.add(volume).changed() {
                prefs.volume = percent / 100.0;
            }
            let mut on = prefs.subtitles.unwrap_or(subtitles_default);
            if ui.checkbox(&mut on, "Subtitles").changed() {
                prefs.subtitles = Some(on);
            }
            ui.add(
                Slider::new(&mut prefs.mouse_sensitivity, SENSITIVITY)
                    .max_decimals(1)
                    .text("Mouse sensitivity"),
            );
            ui.add_space(8.0);
            ui.horizontal(|ui| {
                if ui.button("Resume (Esc)").clicked() {
                    choice = Some(MenuChoice::Resume);
                }
                if ui.button("Quit").clicked() {
                    choice = Some(MenuChoice::Quit);
                }
            });
            ui.label(
                RichText::new("Conversations go on while the menu is open.")
                    .small()
                    .weak(),
            );
        });
    choice
}
