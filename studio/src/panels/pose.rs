//! The pose editor: a slider per ARKit target, grouped by face region, with a filter, reset
//! and mirror.

use egui::Ui;
use npc_core::arkit::Region;
use npc_core::{ArkitTarget, Pose};

use crate::command::Command;

/// Sliders for `pose`, one per target matching `filter`; `default` (when given) is shown beside
/// each. `emit` receives every change.
pub fn sliders(
    ui: &mut Ui,
    id: &str,
    pose: &Pose,
    filter: &str,
    default: Option<&Pose>,
    emit: &mut dyn FnMut(ArkitTarget, f32),
) {
    let filter = filter.trim().to_lowercase();
    for region in Region::ALL {
        let targets: Vec<ArkitTarget> = ArkitTarget::ALL
            .into_iter()
            .filter(|t| t.region() == region)
            .filter(|t| filter.is_empty() || t.name().to_lowercase().contains(&filter))
            .collect();
        if targets.is_empty() {
            continue;
        }
        egui::CollapsingHeader::new(region.label())
            .id_salt((id, region.label()))
            .default_open(true)
            .show(ui, |ui| {
                for t in targets {
                    ui.horizontal(|ui| {
                        let mut w = pose.get(t);
                        let slider = egui::Slider::new(&mut w, 0.0..=1.0)
                            .text(t.name())
                            .fixed_decimals(2);
                        if ui.add(slider).changed() {
                            emit(t, w);
                        }
                        if let Some(d) = default {
                            let dv = d.get(t);
                            if (dv - pose.get(t)).abs() > 1e-4 {
                                ui.weak(format!("default {dv:.2}"));
                            }
                        }
                    });
                }
            });
    }
}

/// A filter text box with its label.
pub fn filter_box(ui: &mut Ui, filter: &mut String) {
    ui.horizontal(|ui| {
        let label = ui.label("Filter");
        ui.text_edit_singleline(filter).labelled_by(label.id);
    });
}

/// The pose panel.
pub fn panel(ui: &mut Ui, pose: &Pose, filter: &mut String, out: &mut Vec<Command>) {
    filter_box(ui, filter);
    ui.horizontal(|ui| {
        if ui.button("Reset").clicked() {
            out.push(Command::ResetPose);
        }
        if ui.button("Mirror left to right").clicked() {
            out.push(Command::MirrorPose);
        }
    });
    ui.separator();
    egui::ScrollArea::vertical()
        .id_salt("pose sliders")
        .show(ui, |ui| {
            sliders(ui, "pose", pose, filter, None, &mut |target, weight| {
                out.push(Command::SetPoseWeight { target, weight });
            });
        });
}
