//! The timeline's body lanes, under the viseme track: the line's emotion (how much of it the
//! body shows, easing in and out) and its gestures (each hand's strokes through preparation,
//! hold and retraction, the requested ones marked, the beats' flicks and the head's nods and
//! shakes), from the same body bake the Body tab plots; and the controls that edit them: the
//! emotion, and the gestures asked for with the line, each at a word.

use egui::{Color32, Ui};
use egui_plot::{Line, Plot, PlotPoint, PlotPoints, Points, Text, VLine};
use npc_core::agent::cues::{GestureCue, GestureName, Target};
use npc_core::anim::emotion::Emotion;
use npc_core::body::BodyBake;
use npc_core::body::talk::TalkPlan;

use crate::command::Command;
use crate::timeline::Timeline;

/// Rows of the gesture lane, bottom up.
const ROWS: [&str; 4] = ["left hand", "right hand", "beats", "head"];
/// Curves are sampled this often, ms.
const STEP_MS: f64 = 10.0;
/// Requested gestures are drawn in this colour, the plan's own in the theme's.
const REQUESTED: Color32 = Color32::from_rgb(230, 140, 40);

/// Where the lanes sit on the timeline.
#[derive(Clone, Copy, Debug)]
pub struct LaneView {
    pub link: egui::Id,
    pub end_ms: f64,
    pub playhead_ms: f64,
}

/// A lane plot with the timeline's shared x axis; returns the pointer's x when the lane was
/// clicked or dragged (to move the playhead).
pub fn lane(
    ui: &mut Ui,
    id: &str,
    height: f32,
    rows: f64,
    view: &LaneView,
    draw: impl FnOnce(&mut egui_plot::PlotUi<'_>),
) -> Option<f64> {
    let r = Plot::new(id)
        .height(height)
        .link_axis(view.link, [true, false])
        .include_x(0.0)
        .include_x(view.end_ms)
        .include_y(0.0)
        .include_y(rows)
        .show_axes([false, false])
        .allow_zoom(false)
        .allow_scroll(false)
        .allow_drag(false)
        .show(ui, |p| {
            draw(p);
            p.vline(VLine::new("playhead", view.playhead_ms));
            p.pointer_coordinate().map(|c| c.x)
        });
    (r.response.dragged() || r.response.clicked())
        .then_some(r.inner)
        .flatten()
}

/// The emotion lane: how much of the line's emotion the body shows, frame by frame.
pub fn emotion_lane(
    ui: &mut Ui,
    timeline: &Timeline,
    body: &BodyBake,
    view: &LaneView,
) -> Option<f64> {
    let (emotion, intensity) = timeline.behaviour.emotion?;
    ui.label(format!("emotion: {} at {intensity:.2}", emotion.name()));
    let points: Vec<[f64; 2]> = body
        .times_ms
        .iter()
        .zip(&body.emotion)
        .map(|(&t, &e)| [t, f64::from(e)])
        .collect();
    lane(ui, "emotion lane", 40.0, 1.0, view, |p| {
        p.line(Line::new(emotion.name(), PlotPoints::from(points)).width(2.0));
    })
}

/// The gesture lane: the plan of the line's talking body.
pub fn gesture_lane(ui: &mut Ui, plan: &TalkPlan, view: &LaneView) -> Option<f64> {
    ui.label("gestures");
    lane(ui, "gesture lane", 90.0, ROWS.len() as f64, view, |p| {
        for (row, name) in ROWS.iter().enumerate() {
            p.text(
                Text::new(
                    format!("row {row}"),
                    PlotPoint::new(0.0, row as f64 + 0.8),
                    *name,
                )
                .anchor(egui::Align2::LEFT_CENTER)
                .color(Color32::GRAY),
            );
        }
        for (i, stroke) in plan.strokes.iter().enumerate() {
            let ph = &stroke.phases;
            for side in (0..2).filter(|&s| stroke.hands.has(s)) {
                let row = side as f64;
                let points: Vec<[f64; 2]> = samples(ph.start_ms, ph.end_ms)
                    .map(|t| [t, row + 0.9 * f64::from(ph.weight(t))])
                    .collect();
                let mut line = Line::new(format!("stroke {i} {side}"), PlotPoints::from(points));
                if stroke.requested {
                    line = line.color(REQUESTED).width(2.0);
                }
                p.line(line);
                p.text(Text::new(
                    format!("stroke label {i} {side}"),
                    PlotPoint::new((ph.apex_ms + ph.hold_ms) * 0.5, row + 0.45),
                    stroke.pose.name(),
                ));
            }
        }
        let beats: Vec<[f64; 2]> = plan.beats.iter().map(|b| [b.phases.apex_ms, 2.5]).collect();
        p.points(Points::new("beats", PlotPoints::from(beats)).radius(3.0));
        let (from, to) = (0.0, plan.end_ms);
        let most = plan
            .nods
            .iter()
            .map(|n| n.deg.abs())
            .fold(1.0_f32, f32::max);
        let head: Vec<[f64; 2]> = samples(from, to)
            .map(|t| {
                [
                    t,
                    3.5 + 0.45 * f64::from(plan.nod_deg(t) / most - plan.shake_deg(t) / 12.0),
                ]
            })
            .collect();
        p.line(Line::new("head", PlotPoints::from(head)));
    })
}

fn samples(from: f64, to: f64) -> impl Iterator<Item = f64> {
    let n = ((to - from) / STEP_MS).ceil().max(1.0) as usize;
    (0..=n).map(move |i| from + (to - from) * i as f64 / n as f64)
}

/// The gestures asked for with the line, each with its word and a button to drop it, and a
/// way to add one (built in, or one of the avatar's `clips`) at the word under the playhead.
pub fn gesture_editor(ui: &mut Ui, timeline: &Timeline, clips: &[String], out: &mut Vec<Command>) {
    let choices: Vec<GestureName> = GestureName::ALL
        .into_iter()
        .chain(clips.iter().map(|c| GestureName::Clip(c.clone())))
        .collect();
    let words = timeline.source.as_ref().map_or(0, |s| s.cue.words_ms.len());
    ui.horizontal_wrapped(|ui| {
        ui.label("asked for:");
        if timeline.behaviour.gestures.is_empty() {
            ui.weak("none");
        }
        for (i, g) in timeline.behaviour.gestures.iter().enumerate() {
            ui.group(|ui| {
                ui.label(g.to_string());
                let mut word = g.word.unwrap_or(0);
                let drag = ui.add(
                    egui::DragValue::new(&mut word)
                        .range(0..=words.saturating_sub(1))
                        .prefix("word "),
                );
                if drag.changed() {
                    out.push(Command::SetLineGestureWord {
                        index: i,
                        word: Some(word),
                    });
                }
                if ui.small_button("x").on_hover_text("drop this gesture").clicked() {
                    out.push(Command::RemoveLineGesture(i));
                }
            });
        }
        ui.separator();
        let id = ui.make_persistent_id("gesture to add");
        let mut chosen = ui
            .data(|d| d.get_temp::<usize>(id))
            .unwrap_or(0)
            .min(choices.len() - 1);
        egui::ComboBox::from_label("gesture")
            .selected_text(choices[chosen].name())
            .show_ui(ui, |ui| {
                for (i, g) in choices.iter().enumerate() {
                    let label = match g {
                        GestureName::Clip(name) => format!("{name} (clip)"),
                        g => g.name().to_owned(),
                    };
                    ui.selectable_value(&mut chosen, i, label);
                }
            });
        ui.data_mut(|d| d.insert_temp(id, chosen));
        if ui
            .button("Add at playhead")
            .on_hover_text("asks for the gesture at the word under the playhead, as an agent's line would (a point aims ahead)")
            .clicked()
        {
            out.push(Command::AddLineGesture(new_gesture(
                choices[chosen].clone(),
                timeline,
            )));
        }
    });
}

/// `name` at the word under the playhead (the last one started by then).
fn new_gesture(name: GestureName, timeline: &Timeline) -> GestureCue {
    let word = timeline.source.as_ref().and_then(|s| {
        let i = s
            .cue
            .words_ms
            .partition_point(|&t| t <= timeline.playhead_ms);
        (!s.cue.words_ms.is_empty()).then(|| i.saturating_sub(1))
    });
    GestureCue {
        target: (name == GestureName::Point).then_some(Target::Player),
        name,
        word,
    }
}

/// The line's emotion: a name (neutral for none) and its intensity.
pub fn emotion_picker(ui: &mut Ui, emotion: Option<(Emotion, f32)>, out: &mut Vec<Command>) {
    let (current, intensity) = emotion.unwrap_or((Emotion::Neutral, 1.0));
    let mut chosen = current;
    egui::ComboBox::from_label("emotion")
        .selected_text(current.name())
        .show_ui(ui, |ui| {
            for e in Emotion::ALL {
                ui.selectable_value(&mut chosen, e, e.name());
            }
        });
    let mut amount = intensity;
    let slider = ui.add_enabled(
        chosen != Emotion::Neutral,
        egui::Slider::new(&mut amount, 0.0..=1.0)
            .text("intensity")
            .fixed_decimals(2),
    );
    if chosen != current || slider.changed() {
        out.push(Command::SetLineEmotion(
            (chosen != Emotion::Neutral).then_some((chosen, amount)),
        ));
    }
}
