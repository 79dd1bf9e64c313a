//! The heard lane, for a recording lip-synced from its sound alone: each 10 ms frame's mouth
//! class as heard (silence, closed, labiodental, rounded, open, spread, other, one row each),
//! drawn as runs whose strength is the mouth network's belief in the class (faint where it
//! doubts), so a user sees where the lip sync is sure and where it guessed.

use egui::{Color32, Ui};
use egui_plot::{Line, PlotPoint, PlotPoints, Text};
use npc_core::speech::eval::MouthClass;
use npc_core::speech::mouth_net::{HeardFrame, frame_centre_ms};

use crate::panels::lanes::{LaneView, lane};

/// A run of frames of one class: its class, first and last frame, mean belief.
fn runs(frames: &[HeardFrame]) -> Vec<(MouthClass, usize, usize, f32)> {
    let mut out: Vec<(MouthClass, usize, usize, f32)> = Vec::new();
    for (f, frame) in frames.iter().enumerate() {
        match out.last_mut() {
            Some(run) if run.0 == frame.class => {
                run.2 = f;
                run.3 += frame.confidence;
            }
            _ => out.push((frame.class, f, f, frame.confidence)),
        }
    }
    for run in &mut out {
        run.3 /= (run.2 - run.1 + 1) as f32;
    }
    out
}

/// The heard lane; returns the pointer's x when it was clicked or dragged.
pub fn heard_lane(ui: &mut Ui, frames: &[HeardFrame], view: &LaneView) -> Option<f64> {
    let sure = frames.iter().filter(|f| f.confidence >= 0.5).count();
    ui.label(format!(
        "heard from the sound alone: {} of {} frames heard with belief 0.5 or more",
        sure,
        frames.len()
    ));
    let rows = MouthClass::ALL.len();
    let base = ui.visuals().text_color();
    lane(ui, "heard lane", 110.0, rows as f64, view, |p| {
        for class in MouthClass::ALL {
            let y = (rows - 1 - class.index()) as f64 + 0.5;
            p.text(
                Text::new(
                    format!("heard row {class}"),
                    PlotPoint::new(0.0, y),
                    class.to_string().to_lowercase(),
                )
                .anchor(egui::Align2::LEFT_CENTER)
                .color(Color32::GRAY),
            );
        }
        for (i, (class, first, last, belief)) in runs(frames).into_iter().enumerate() {
            let y = (rows - 1 - class.index()) as f64 + 0.5;
            let (from, to) = (frame_centre_ms(first) - 5.0, frame_centre_ms(last) + 5.0);
            let alpha = (40.0 + 215.0 * belief.clamp(0.0, 1.0)) as u8;
            let colour = Color32::from_rgba_unmultiplied(base.r(), base.g(), base.b(), alpha);
            p.line(
                Line::new(
                    format!("heard {i}"),
                    PlotPoints::from(vec![[from, y], [to, y]]),
                )
                .color(colour)
                .width(6.0),
            );
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_of_one_class_make_one_run_with_their_mean_belief() {
        let frame = |class, confidence| HeardFrame { class, confidence };
        let frames = [
            frame(MouthClass::Closed, 0.9),
            frame(MouthClass::Closed, 0.5),
            frame(MouthClass::Open, 0.2),
        ];
        let runs = runs(&frames);
        assert_eq!(runs.len(), 2);
        assert_eq!(
            (runs[0].0, runs[0].1, runs[0].2),
            (MouthClass::Closed, 0, 1)
        );
        assert!((runs[0].3 - 0.7).abs() < 1e-6);
        assert_eq!((runs[1].0, runs[1].1, runs[1].2), (MouthClass::Open, 2, 2));
    }
}
