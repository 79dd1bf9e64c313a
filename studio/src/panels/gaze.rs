//! Gaze and blinks: their settings, a speaking / listening switch for the preview, and a plot of
//! where the eyes look over the baked line.

use egui::Ui;
use egui_plot::{Legend, Line, Plot, PlotPoints};
use npc_core::ArkitTarget;
use npc_core::anim::blink::BlinkSettings;
use npc_core::anim::face::Stage;
use npc_core::anim::gaze::GazeSettings;

use crate::command::Command;
use crate::timeline::Timeline;

fn number(ui: &mut Ui, label: &str, value: &mut f64, range: std::ops::RangeInclusive<f64>) -> bool {
    ui.add(egui::Slider::new(value, range).text(label))
        .changed()
}

/// The gaze and blink panel.
pub fn panel(
    ui: &mut Ui,
    gaze: &GazeSettings,
    blink: &BlinkSettings,
    timeline: &Timeline,
    out: &mut Vec<Command>,
) {
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
