//! The listener's lane, when the character listens to a recording of the person: the person's
//! utterances as heard (each from its first to its last voiced moment), their stressed
//! syllables (those the character nodded on marked), the head's nod, and when it shows that
//! it is thinking. Under it the face's stages plot the brow flash and the gaze.

use egui::{Color32, Ui};
use egui_plot::{Line, PlotPoint, PlotPoints, Points, Span, Text};
use npc_core::hearing::ListenBake;

use crate::panels::lanes::{LaneView, lane};

/// Rows of the lane, bottom up.
const ROWS: [&str; 3] = ["the person", "nods", "thinking"];
const NODDED: Color32 = Color32::from_rgb(230, 140, 40);

/// The listener's lane; returns the pointer's x when it was clicked or dragged.
pub fn listener_lane(ui: &mut Ui, listened: &ListenBake, view: &LaneView) -> Option<f64> {
    let nods = listened.stresses.iter().filter(|s| s.1).count();
    ui.label(format!(
        "listening: {} utterance(s) heard, {nods} nod(s) on {} stressed syllables",
        listened.utterances.len(),
        listened.stresses.len()
    ));
    lane(ui, "listener lane", 80.0, ROWS.len() as f64, view, |p| {
        for (row, name) in ROWS.iter().enumerate() {
            p.text(
                Text::new(
                    format!("listener row {row}"),
                    PlotPoint::new(0.0, row as f64 + 0.8),
                    *name,
                )
                .anchor(egui::Align2::LEFT_CENTER)
                .color(Color32::GRAY),
            );
        }
        for (i, &(start, end)) in listened.utterances.iter().enumerate() {
            p.span(Span::new(format!("utterance {i}"), start..=end));
        }
        let (nodded, passed): (Vec<_>, Vec<_>) = listened.stresses.iter().partition(|s| s.1);
        let at = |s: &[&(f64, bool)]| -> Vec<[f64; 2]> { s.iter().map(|s| [s.0, 0.5]).collect() };
        p.points(Points::new("stresses", PlotPoints::from(at(&passed))).radius(2.5));
        p.points(
            Points::new("nodded on", PlotPoints::from(at(&nodded)))
                .radius(4.0)
                .color(NODDED),
        );
        let most = listened.nod_deg.iter().fold(1.0f32, |m, &d| m.max(d));
        let times = &listened.face.times_ms;
        let nod: Vec<[f64; 2]> = times
            .iter()
            .zip(&listened.nod_deg)
            .map(|(&t, &d)| [t, 1.0 + 0.9 * f64::from(d / most)])
            .collect();
        p.line(Line::new("nod", PlotPoints::from(nod)));
        let thinking: Vec<[f64; 2]> = times
            .iter()
            .zip(&listened.thinking)
            .map(|(&t, &k)| [t, if k { 2.9 } else { 2.1 }])
            .collect();
        p.line(Line::new("thinking", PlotPoints::from(thinking)));
    })
}
