//! The viseme table: the 22 visemes with their sounds and an example word; the selected one's
//! pose can be edited, compared with the default and reset.

use egui::Ui;
use npc_core::{VisemeId, VisemeTable};

use crate::command::Command;
use crate::panels::pose::{filter_box, sliders};

/// The viseme panel.
pub fn panel(
    ui: &mut Ui,
    table: &VisemeTable,
    selected: Option<VisemeId>,
    filter: &mut String,
    out: &mut Vec<Command>,
) {
    let defaults = VisemeTable::default_table();
    egui::ScrollArea::vertical()
        .id_salt("viseme list")
        .max_height(220.0)
        .show(ui, |ui| {
            for id in VisemeId::all() {
                let info = id.info();
                let changed = table.pose(id) != defaults.pose(id);
                let text = format!(
                    "{:>2}  {}  ({}){}",
                    id.get(),
                    info.phones,
                    info.example,
                    if changed { "  *" } else { "" }
                );
                if ui.selectable_label(selected == Some(id), text).clicked() {
                    let next = if selected == Some(id) { None } else { Some(id) };
                    out.push(Command::SelectViseme(next));
                }
            }
        });
    ui.separator();
    let Some(id) = selected else {
        ui.weak("Select a viseme to see and edit its pose.");
        return;
    };
    let info = id.info();
    ui.heading(format!(
        "Viseme {}: {} as in \"{}\"",
        id.get(),
        info.phones,
        info.example
    ));
    ui.horizontal(|ui| {
        if ui.button("Reset to default").clicked() {
            out.push(Command::ResetViseme(id));
        }
        if ui.button("Copy the pose editor's pose").clicked() {
            out.push(Command::PoseToViseme(id));
        }
    });
    filter_box(ui, filter);
    egui::ScrollArea::vertical()
        .id_salt("viseme sliders")
        .show(ui, |ui| {
            sliders(
                ui,
                "viseme",
                table.pose(id),
                filter,
                Some(defaults.pose(id)),
                &mut |target, weight| {
                    out.push(Command::SetVisemeWeight {
                        viseme: id,
                        target,
                        weight,
                    });
                },
            );
        });
}
