//! The viseme table: the 22 visemes with their sounds and an example word, all in view; the
//! selected one's pose can be edited, compared with the default and reset, and so can the
//! head's own shapes it sets when the head has shapes of its own.

use egui::Ui;
use npc_core::anim::FaceSettings;
use npc_core::project::Npc;
use npc_core::{VisemeId, VisemeTable};

use crate::command::Command;
use crate::panels::pose::{filter_box, sliders};
use crate::state::FaceShapes;

/// The viseme panel.
pub fn panel(
    ui: &mut Ui,
    face: &FaceSettings,
    npc: Option<&Npc>,
    shapes: &FaceShapes,
    selected: Option<VisemeId>,
    filter: &mut String,
    out: &mut Vec<Command>,
) {
    let table = &face.table;
    if let Some(npc) = npc {
        let mut own = npc.face.is_some();
        if ui
            .checkbox(&mut own, format!("{}'s own face profile", npc.id))
            .on_hover_text(
                "the viseme table, lip sync, gaze and blinks for this character alone; \
                 off: the project's, shared by every character without its own",
            )
            .changed()
        {
            out.push(Command::SetOwnFaceProfile(own));
        }
    }
    let defaults = VisemeTable::default_table();
    // The whole list stays in view; the editor below scrolls on its own.
    ui.vertical(|ui| {
        ui.spacing_mut().item_spacing.y = 1.0;
        {
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
            own_sliders(ui, shapes, id, filter, out);
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

/// Sliders for the head's own targets in viseme `id` (targets without an ARKit name), when
/// it has any.
fn own_sliders(
    ui: &mut Ui,
    shapes: &FaceShapes,
    id: VisemeId,
    filter: &str,
    out: &mut Vec<Command>,
) {
    let own: Vec<&String> = shapes
        .names
        .iter()
        .filter(|n| npc_core::arkit::canonical_target(n).is_none())
        .filter(|n| filter.is_empty() || n.to_lowercase().contains(&filter.to_lowercase()))
        .collect();
    if own.is_empty() {
        return;
    }
    let title = match shapes.set {
        Some(set) => format!("The head's own shapes ({}: a starting table)", set.label()),
        None => "The head's own shapes".to_owned(),
    };
    egui::CollapsingHeader::new(title)
        .id_salt("own shapes")
        .default_open(true)
        .show(ui, |ui| {
            let row = shapes.shapes.visemes.get(&id.get());
            for name in own {
                let mut w = row.and_then(|r| r.get(name)).copied().unwrap_or(0.0);
                let slider = egui::Slider::new(&mut w, 0.0..=1.0).text(name.as_str());
                let changed = ui
                    .horizontal(|ui| {
                        let changed = ui.add(slider).changed();
                        // What the mouth's stages make of it, read off the table.
                        if let Some(role) = shapes.shapes.role(name) {
                            ui.weak(role.label());
                        }
                        changed
                    })
                    .inner;
                if changed {
                    out.push(Command::SetOwnVisemeWeight {
                        viseme: id,
                        target: name.clone(),
                        weight: w,
                    });
                }
            }
        });
}
