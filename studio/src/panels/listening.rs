//! How NPCs listen to the person in front of the player (the project's `listen`): whom the
//! person speaks to, the listener's brow flash and thinking face, barge-in and the voice
//! detector in the Gaze tab; the listener's nods and the others' glances in the Body tab.

use egui::Ui;
use npc_core::hearing::ListenSettings;

use crate::command::Command;

fn number(ui: &mut Ui, label: &str, value: &mut f64, range: std::ops::RangeInclusive<f64>) -> bool {
    ui.add(egui::Slider::new(value, range).text(label))
        .changed()
}

fn slider(ui: &mut Ui, label: &str, value: &mut f32, range: std::ops::RangeInclusive<f32>) -> bool {
    ui.add(egui::Slider::new(value, range).text(label))
        .changed()
}

/// The Gaze tab's part: addressing, brows, thinking, barge-in, the voice detector.
pub fn gaze_section(ui: &mut Ui, listen: &ListenSettings, out: &mut Vec<Command>) {
    let mut l = listen.clone();
    let mut changed = false;
    egui::CollapsingHeader::new("Listening to the person")
        .default_open(false)
        .show(ui, |ui| {
            changed |= slider(
                ui,
                "spoken to within (m)",
                &mut l.address_reach_m,
                0.5..=15.0,
            );
            changed |= slider(
                ui,
                "in front within (degrees)",
                &mut l.address_cone_deg,
                5.0..=90.0,
            );
            changed |= number(
                ui,
                "conversation held for (ms)",
                &mut l.conversation_hold_ms,
                0.0..=120_000.0,
            );
            changed |= number(ui, "brow flash after (ms)", &mut l.brow_lag_ms, 0.0..=300.0);
            changed |= number(
                ui,
                "thinking after (ms)",
                &mut l.thinking_after_ms,
                0.0..=5_000.0,
            );
            changed |= slider(ui, "thinking face", &mut l.thinking_intensity, 0.0..=1.0);
            changed |= ui
                .checkbox(&mut l.barge_in, "stops talking when spoken over")
                .changed();
            ui.label("Voice detector");
            let v = &mut l.voice;
            changed |= slider(ui, "speech score from", &mut v.threshold, 0.05..=0.95);
            changed |= number(
                ui,
                "speech starts after (ms)",
                &mut v.onset_ms,
                16.0..=300.0,
            );
            changed |= number(
                ui,
                "silence ends it after (ms)",
                &mut v.end_hang_ms,
                16.0..=1_500.0,
            );
            changed |= number(
                ui,
                "shortest utterance (ms)",
                &mut v.min_utterance_ms,
                0.0..=1_000.0,
            );
        });
    if changed {
        out.push(Command::SetListen(l));
    }
}

/// The Body tab's part: nods on the person's stressed syllables, glances of the others.
pub fn body_section(ui: &mut Ui, listen: &ListenSettings, out: &mut Vec<Command>) {
    let mut l = listen.clone();
    let mut changed = false;
    egui::CollapsingHeader::new("Listening to the person")
        .default_open(false)
        .show(ui, |ui| {
            changed |= slider(ui, "nods on stresses (share)", &mut l.nod_share, 0.0..=1.0);
            changed |= slider(ui, "nod (degrees)", &mut l.nod_deg, 0.0..=15.0);
            changed |= slider(ui, "others glance within (m)", &mut l.earshot_m, 0.0..=30.0);
            changed |= number(ui, "glance (ms)", &mut l.glance_ms, 0.0..=5_000.0);
        });
    if changed {
        out.push(Command::SetListen(l));
    }
}
