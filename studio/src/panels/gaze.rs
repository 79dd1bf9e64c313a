//! Gaze, blinks, brow flashes and the faces of the emotions: their settings, a speaking /
//! listening switch for the preview, and a plot of where the eyes look over the baked line.

use egui::Ui;
use egui_plot::{Legend, Line, Plot, PlotPoints};
use npc_core::ArkitTarget;
use npc_core::anim::emotion::Emotion;
use npc_core::anim::face::{FaceSettings, Stage};

use crate::command::Command;
use crate::timeline::Timeline;

fn number(ui: &mut Ui, label: &str, value: &mut f64, range: std::ops::RangeInclusive<f64>) -> bool {
    ui.add(egui::Slider::new(value, range).text(label))
        .changed()
}

/// The gaze, blink, brow and emotion panel for `face` (the first NPC's).
pub fn panel(ui: &mut Ui, face: &FaceSettings, timeline: &Timeline, out: &mut Vec<Command>) {
    let (gaze, blink) = (&face.gaze, &face.blink);
    ui.horizontal(|ui| {
        ui.label("Preview as");
        let mut speaking = timeline.speaking;
        if ui.radio_value(&mut speaking, true, "speaking").changed()
            | ui.radio_value(&mut speaking, false, "listening").changed()
        {
            out.push(Command::SetPreviewSpeaking(speaking));
        }
    });
    ui.heading("Gaze");
    let mut g = gaze.clone();
    let mut changed = false;
    changed |= number(
        ui,
        "look away, speaking",
        &mut g.avert_chance_speaking,
        0.0..=1.0,
    );
    changed |= number(
        ui,
        "look away, listening",
        &mut g.avert_chance_listening,
        0.0..=1.0,
    );
    changed |= number(
        ui,
        "hold contact min (ms)",
        &mut g.focus_ms.min,
        100.0..=5000.0,
    );
    changed |= number(
        ui,
        "hold contact max (ms)",
        &mut g.focus_ms.max,
        100.0..=8000.0,
    );
    changed |= number(
        ui,
        "look away min (ms)",
        &mut g.avert_ms.min,
        100.0..=5000.0,
    );
    changed |= number(
        ui,
        "look away max (ms)",
        &mut g.avert_ms.max,
        100.0..=8000.0,
    );
    changed |= number(
        ui,
        "microsaccade size",
        &mut g.microsaccade_scale,
        0.0..=0.3,
    );
    changed |= number(ui, "eye smoothing (ms)", &mut g.smoothing_ms, 0.0..=200.0);
    if changed {
        g.focus_ms.max = g.focus_ms.max.max(g.focus_ms.min);
        g.avert_ms.max = g.avert_ms.max.max(g.avert_ms.min);
        out.push(Command::SetGaze(g));
    }
    ui.heading("Blinks");
    let mut b = blink.clone();
    let mut changed = false;
    changed |= number(ui, "blinks per minute", &mut b.rate_per_min, 0.0..=60.0);
    changed |= number(ui, "close (ms)", &mut b.close_ms, 10.0..=300.0);
    changed |= number(ui, "hold (ms)", &mut b.hold_ms, 0.0..=300.0);
    changed |= number(ui, "open (ms)", &mut b.open_ms, 10.0..=500.0);
    if changed {
        out.push(Command::SetBlink(b));
    }
    brows_and_emotions(ui, face, out);
    ui.separator();
    let Some(bake) = &timeline.bake else {
        ui.weak("Speak a line to see the gaze over time.");
        return;
    };
    Plot::new("gaze over time")
        .height(140.0)
        .legend(Legend::default())
        .include_y(0.0)
        .include_y(1.0)
        .show(ui, |p| {
            for target in [
                ArkitTarget::EyeLookOutLeft,
                ArkitTarget::EyeLookInLeft,
                ArkitTarget::EyeLookUpLeft,
                ArkitTarget::EyeLookDownLeft,
                ArkitTarget::EyeBlinkLeft,
            ] {
                let points: Vec<[f64; 2]> = bake
                    .times_ms
                    .iter()
                    .zip(bake.series(Stage::Final, target))
                    .map(|(&t, w)| [t, f64::from(w)])
                    .collect();
                p.line(Line::new(target.name(), PlotPoints::from(points)));
            }
        });
}

/// Brow flashes' settings, and each emotion's face: loaded into the pose editor to edit, and
/// copied back from it.
fn brows_and_emotions(ui: &mut Ui, face: &FaceSettings, out: &mut Vec<Command>) {
    ui.heading("Brow flashes");
    let mut b = face.brows.clone();
    let mut changed = ui.checkbox(&mut b.enabled, "flash the brows").changed();
    let mut share = f64::from(b.stress_share);
    if number(ui, "stresses with a flash", &mut share, 0.0..=1.0) {
        b.stress_share = share as f32;
        changed = true;
    }
    changed |= number(ui, "flash (ms)", &mut b.flash_ms, 50.0..=600.0);
    let mut amount = f64::from(b.amount);
    if number(ui, "flash height", &mut amount, 0.0..=1.0) {
        b.amount = amount as f32;
        changed = true;
    }
    if changed {
        out.push(Command::SetBrows(b));
    }
    ui.heading("Emotion faces");
    let (mut enabled, mut ease_ms) = (face.emotions.enabled, face.emotions.ease_ms);
    let mut changed = ui
        .checkbox(&mut enabled, "show the line's emotion")
        .changed();
    changed |= number(ui, "ease in and out (ms)", &mut ease_ms, 20.0..=2000.0);
    if changed {
        out.push(Command::SetFaceEmotions { enabled, ease_ms });
    }
    egui::Grid::new("emotion faces").show(ui, |ui| {
        for emotion in Emotion::ALL.into_iter().filter(|e| *e != Emotion::Neutral) {
            ui.label(emotion.name());
            if ui
                .small_button("edit")
                .on_hover_text("puts this face in the Pose tab's editor")
                .clicked()
            {
                out.push(Command::EmotionToPose(emotion));
            }
            if ui
                .small_button("set from pose")
                .on_hover_text("this emotion's face becomes the Pose tab's pose")
                .clicked()
            {
                out.push(Command::PoseToEmotion(emotion));
            }
            ui.end_row();
        }
    });
}
