//! The timeline: the line's source, transport, and plots of every stage of the face animator
//! for the chosen targets, the viseme track as labelled spans, the waveform, and the body's
//! emotion and gesture lanes; listening to a recording, the listener's lane. Clicking or dragging on any plot moves the playhead.

use egui::Ui;
use egui_plot::{Legend, Line, Plot, PlotPoints, Span, Text, VLine};
use npc_core::ArkitTarget;
use npc_core::anim::face::Stage;
use npc_core::anim::timeline::Bake;
use npc_core::body::BodyBake;

use crate::command::Command;
use crate::file_dialog::Prompt;
use crate::panels::heard_lane;
use crate::panels::lanes::{self, LaneView};
use crate::panels::listener_lane;
use crate::timeline::{FPS, Timeline};

/// Height of one target's plot, points.
const PLOT_HEIGHT: f32 = 110.0;

/// What the rest of the studio is showing, as far as the timeline's controls care.
#[derive(Clone, Copy, Debug, Default)]
pub struct Showing<'a> {
    /// Whether Play, with nothing on the timeline, runs the body's idle life (and does now).
    pub idle_playing: bool,
    /// Whether the head shows the comparison capture rather than the line.
    pub comparison: bool,
    /// The avatar's clips, which a line may ask for as gestures.
    pub clips: &'a [String],
}

/// The timeline panel; returns a file to ask for when "Open..." was pressed.
pub fn panel(
    ui: &mut Ui,
    timeline: &Timeline,
    body: Option<&BodyBake>,
    showing: Showing<'_>,
    out: &mut Vec<Command>,
) -> Option<Prompt> {
    let mut prompt = None;
    ui.horizontal(|ui| {
        let mut text = timeline.text.clone();
        let label = ui.label("Line");
        let edit = egui::TextEdit::singleline(&mut text)
            .desired_width(ui.available_width() * 0.45)
            .hint_text("a line to speak");
        if ui.add(edit).labelled_by(label.id).changed() {
            out.push(Command::SetLineText(text));
        }
        if ui.button("Speak").clicked() {
            out.push(Command::SpeakLine);
        }
        ui.separator();
        if ui
            .button("Open WAV or visemes...")
            .on_hover_text("a recording (lip sync from its sound) or a viseme JSON file")
            .clicked()
        {
            prompt = Some(Prompt::OpenLine);
        }
        if ui
            .button("Listen to WAV...")
            .on_hover_text(
                "a WAV played as the person speaking to the character: it listens as it would \
                 live (brow flash, nods on stresses, thinking when no reply comes), with the \
                 project's listening settings (Gaze and Body tabs)",
            )
            .clicked()
        {
            prompt = Some(Prompt::ListenTo);
        }
        let mut align = timeline.align_to_text;
        if ui
            .checkbox(&mut align, "align to the line's text")
            .on_hover_text(
                "a WAV opened next follows its script (the text in the Line box), phone by phone",
            )
            .changed()
        {
            out.push(Command::SetAlignToText(align));
        }
    });
    ui.horizontal(|ui| match &timeline.comparison {
        None => {
            if ui
                .button("Compare with capture...")
                .on_hover_text(
                    "a real performance (Live Link Face CSV, or a glTF weights animation) \
                         plotted under the line and playable on the head",
                )
                .clicked()
            {
                prompt = Some(Prompt::OpenComparison);
            }
        }
        Some(c) => {
            ui.weak(format!(
                "capture: {} ({} frames)",
                c.label,
                c.take.times_ms.len()
            ));
            let mut shown = showing.comparison;
            if ui
                .checkbox(&mut shown, "on the head")
                .on_hover_text("the head plays the capture instead of the line")
                .changed()
            {
                out.push(Command::ShowComparison(shown));
            }
            if ui.small_button("close").clicked() {
                out.push(Command::CloseComparison);
            }
        }
    });
    ui.horizontal(|ui| {
        let idle = !timeline.has_content() && showing.idle_playing;
        let label = if timeline.playing || idle {
            "Pause"
        } else {
            "Play"
        };
        if ui.button(label).clicked() {
            out.push(Command::TogglePlay);
        }
        if ui.button("<").clicked() {
            out.push(Command::StepFrames(-1));
        }
        if ui.button(">").clicked() {
            out.push(Command::StepFrames(1));
        }
        ui.label(format!(
            "{:.0} / {:.0} ms",
            timeline.playhead_ms,
            timeline.duration_ms()
        ));
        if let Some(bake) = &timeline.bake {
            ui.weak(format!(
                "{} | {} frames at {FPS} fps",
                timeline.label,
                bake.frames.len(),
            ))
            .on_hover_text(format!("last bake took {:.2} ms", timeline.bake_ms));
        }
        ui.menu_button("Targets", |ui| {
            for t in ArkitTarget::ALL {
                let mut shown = timeline.plot_targets.contains(&t);
                if ui.checkbox(&mut shown, t.name()).changed() {
                    out.push(Command::SetPlotTarget { target: t, shown });
                }
            }
        });
        ui.separator();
        lanes::emotion_picker(ui, timeline.behaviour.emotion, out);
    });
    if timeline.bake.is_some() && timeline.person.is_none() {
        lanes::gesture_editor(ui, timeline, showing.clips, out);
    }
    if let Some(e) = &timeline.error {
        ui.colored_label(ui.visuals().error_fg_color, e);
    }
    if !timeline.has_content() {
        ui.weak(
            "Speak a line, or open a WAV or a viseme file, to see every layer of the lip sync.",
        );
        return prompt;
    }
    let bake = timeline.bake.as_ref();
    let link = egui::Id::unique("timeline x");
    let end = timeline.duration_ms();
    let playhead = timeline.playhead_ms;
    let mut scrub = |response: &egui::Response, x: Option<f64>| {
        if (response.dragged() || response.clicked())
            && let Some(x) = x
        {
            out.push(Command::Seek(x));
        }
    };
    let mut lane_seek = None;
    egui::ScrollArea::vertical()
        .id_salt("plots")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            // The viseme track as labelled spans.
            let track = timeline
                .source
                .as_ref()
                .map(|s| s.cue.track.events().to_vec())
                .unwrap_or_default();
            let line_end = timeline.line_ms();
            let r = Plot::new("visemes")
                .height(46.0)
                .link_axis(link, [true, false])
                .include_x(0.0)
                .include_x(end)
                .show_axes([false, false])
                .allow_zoom(false)
                .allow_scroll(false)
                .allow_drag(false)
                .include_y(0.0)
                .include_y(1.0)
                .show(ui, |p| {
                    for (i, e) in track.iter().enumerate() {
                        let next = track.get(i + 1).map_or(line_end, |n| n.offset_ms);
                        if e.id.get() != 0 {
                            p.span(Span::new("", e.offset_ms..=next.max(e.offset_ms)));
                        }
                        p.text(Text::new(
                            format!("label {i}"),
                            egui_plot::PlotPoint::new((e.offset_ms + next) * 0.5, 0.5),
                            e.id.info().example,
                        ));
                    }
                    p.vline(VLine::new("playhead", playhead));
                    p.pointer_coordinate().map(|c| c.x)
                });
            scrub(&r.response, r.inner);
            // The waveform.
            if let Some((samples, rate)) = timeline.audio() {
                let points = envelope(samples, *rate, 1200);
                let r = Plot::new("waveform")
                    .height(50.0)
                    .link_axis(link, [true, false])
                    .include_x(0.0)
                    .include_x(end)
                    .show_axes([false, false])
                    .allow_zoom(false)
                    .allow_scroll(false)
                    .allow_drag(false)
                    .show(ui, |p| {
                        p.line(Line::new("audio", PlotPoints::from(points)));
                        p.vline(VLine::new("playhead", playhead));
                        p.pointer_coordinate().map(|c| c.x)
                    });
                scrub(&r.response, r.inner);
            }
            // The body's lanes: the emotion it shows and what its hands and head do.
            let view = LaneView {
                link,
                end_ms: end,
                playhead_ms: playhead,
            };
            if let Some(heard) = timeline
                .source
                .as_ref()
                .map(|s| s.heard.as_slice())
                .filter(|h| !h.is_empty())
            {
                lane_seek = heard_lane::heard_lane(ui, heard, &view);
            }
            if let Some(listened) = timeline.person.as_ref().and_then(|p| p.listened.as_ref()) {
                lane_seek = listener_lane::listener_lane(ui, listened, &view);
            }
            if let Some(body) = body.filter(|_| bake.is_some()) {
                lane_seek = lanes::emotion_lane(ui, timeline, body, &view);
                if let Some(plan) = &body.talk {
                    lane_seek = lane_seek.or(lanes::gesture_lane(ui, plan, &view));
                }
            }
            // Every stage of each chosen target.
            for &target in &timeline.plot_targets {
                ui.label(target.name());
                let r =
                    Plot::new(("stages", target.name()))
                        .height(PLOT_HEIGHT)
                        .link_axis(link, [true, false])
                        .include_x(0.0)
                        .include_x(end)
                        .legend(Legend::default())
                        .allow_zoom(false)
                        .allow_scroll(false)
                        .allow_drag(false)
                        .include_y(0.0)
                        .include_y(1.0)
                        .show(ui, |p| {
                            if let Some(c) = &timeline.comparison {
                                // Where the capture lost the face: the frame before is held.
                                for (start, end) in c.gap_spans() {
                                    p.span(Span::new("no face in the capture", start..=end).fill(
                                        egui::Color32::from_rgba_unmultiplied(200, 60, 60, 40),
                                    ));
                                }
                                // Under the line's stages, in grey: what a person did.
                                p.line(
                                    Line::new("capture", PlotPoints::from(c.points(target)))
                                        .color(egui::Color32::from_gray(150))
                                        .width(2.5),
                                );
                            }
                            for stage in Stage::ALL {
                                let Some(bake) = bake else { break };
                                p.line(Line::new(
                                    stage.name(),
                                    PlotPoints::from(stage_points(bake, stage, target)),
                                ));
                            }
                            p.vline(VLine::new("playhead", playhead));
                            p.pointer_coordinate().map(|c| c.x)
                        });
                scrub(&r.response, r.inner);
            }
        });
    if let Some(x) = lane_seek {
        out.push(Command::Seek(x));
    }
    prompt
}

/// The plotted points of one stage of one target: (ms, weight) per baked frame.
#[must_use]
pub fn stage_points(bake: &Bake, stage: Stage, target: ArkitTarget) -> Vec<[f64; 2]> {
    bake.times_ms
        .iter()
        .zip(bake.series(stage, target))
        .map(|(&t, w)| [t, f64::from(w)])
        .collect()
}

/// Peak envelope of `samples`, about `points` points: (ms, |peak|) mirrored above and below.
fn envelope(samples: &[f32], rate: u32, points: usize) -> Vec<[f64; 2]> {
    if samples.is_empty() || rate == 0 {
        return Vec::new();
    }
    let step = (samples.len() / points.max(1)).max(1);
    let mut out = Vec::with_capacity(2 * samples.len() / step + 2);
    for (i, chunk) in samples.chunks(step).enumerate() {
        let peak = chunk.iter().fold(0.0_f32, |m, s| m.max(s.abs()));
        let t = (i * step) as f64 * 1000.0 / f64::from(rate);
        let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
        out.push([t, sign * f64::from(peak)]);
    }
    out
}
