//! The body: every idle-life and talking layer's switch and settings, each emotion's bearing,
//! and for chosen bones how far each
//! layer has turned them from rest over the line (or a stretch of idle), the way the face's
//! stages are plotted.

use egui::Ui;
use egui_plot::{Legend, Line, Plot, PlotPoints, VLine};
use npc_core::anim::emotion::Emotion;
use npc_core::body::{BodySettings, HumanoidBone};

use crate::body_preview::BodyPreview;
use crate::command::Command;

/// Bones offered for plotting.
const PLOTTABLE: [HumanoidBone; 12] = [
    HumanoidBone::Hips,
    HumanoidBone::Spine,
    HumanoidBone::UpperChest,
    HumanoidBone::Neck,
    HumanoidBone::Head,
    HumanoidBone::LeftUpperArm,
    HumanoidBone::LeftLowerArm,
    HumanoidBone::LeftHand,
    HumanoidBone::RightUpperArm,
    HumanoidBone::LeftUpperLeg,
    HumanoidBone::LeftLowerLeg,
    HumanoidBone::LeftIndexIntermediate,
];

fn slider(ui: &mut Ui, label: &str, value: &mut f32, range: std::ops::RangeInclusive<f32>) -> bool {
    ui.add(egui::Slider::new(value, range).text(label))
        .changed()
}

/// The body panel: `settings` are the first NPC's (its body is the one baked).
pub fn panel(
    ui: &mut Ui,
    settings: &BodySettings,
    preview: &BodyPreview,
    playhead_ms: f64,
    out: &mut Vec<Command>,
) {
    let mut b = settings.clone();
    let mut changed = false;
    changed |= ui
        .checkbox(
            &mut b.built_in_clips,
            "play the built-in clips on an avatar without its own",
        )
        .changed();
    egui::CollapsingHeader::new("Posture")
        .default_open(false)
        .show(ui, |ui| {
            let p = &mut b.posture;
            changed |= ui
                .checkbox(
                    &mut p.enabled,
                    "on (arms down without a clip; each emotion's slump)",
                )
                .changed();
            changed |= slider(ui, "arm spread (deg)", &mut p.arm_spread_deg, 0.0..=30.0);
            changed |= slider(
                ui,
                "arm forward (deg)",
                &mut p.arm_forward_deg,
                -10.0..=20.0,
            );
            changed |= slider(ui, "elbow bend (deg)", &mut p.elbow_bend_deg, 0.0..=60.0);
        });
    egui::CollapsingHeader::new("Breathing")
        .default_open(true)
        .show(ui, |ui| {
            let r = &mut b.breathing;
            changed |= ui.checkbox(&mut r.enabled, "on").changed();
            changed |= slider(ui, "breaths per minute", &mut r.rate_per_min, 6.0..=30.0);
            changed |= slider(ui, "inhale share", &mut r.inhale_share, 0.2..=0.6);
            changed |= slider(ui, "chest lift (mm)", &mut r.chest_lift_mm, 0.0..=10.0);
            changed |= slider(ui, "chest (deg)", &mut r.chest_deg, 0.0..=4.0);
            changed |= slider(ui, "shoulders (deg)", &mut r.shoulder_deg, 0.0..=3.0);
        });
    egui::CollapsingHeader::new("Sway and drift")
        .default_open(false)
        .show(ui, |ui| {
            let s = &mut b.sway;
            changed |= ui.checkbox(&mut s.enabled, "on").changed();
            changed |= slider(ui, "torso lean (deg)", &mut s.torso_deg, 0.0..=5.0);
            changed |= slider(ui, "torso turn (deg)", &mut s.turn_deg, 0.0..=5.0);
            changed |= slider(ui, "rhythm (s)", &mut s.period_s, 2.0..=20.0);
            changed |= slider(ui, "head drift (deg)", &mut s.head_deg, 0.0..=5.0);
            changed |= slider(ui, "head rhythm (s)", &mut s.head_period_s, 2.0..=30.0);
            changed |= slider(ui, "turn toward gaze", &mut s.toward_gaze, 0.0..=0.5);
            changed |= slider(
                ui,
                "turn toward a speaker",
                &mut s.toward_speaker,
                0.0..=1.0,
            );
        });
    egui::CollapsingHeader::new("Arms")
        .default_open(false)
        .show(ui, |ui| {
            let a = &mut b.arms;
            changed |= ui.checkbox(&mut a.enabled, "on").changed();
            changed |= slider(ui, "drift (deg)", &mut a.swing_deg, 0.0..=6.0);
            changed |= slider(ui, "hang against the lean", &mut a.hang, 0.0..=1.0);
        });
    egui::CollapsingHeader::new("Weight shifts")
        .default_open(false)
        .show(ui, |ui| {
            let w = &mut b.weight_shift;
            changed |= ui.checkbox(&mut w.enabled, "on").changed();
            changed |= slider(ui, "every, at least (s)", &mut w.min_interval_s, 2.0..=60.0);
            changed |= slider(ui, "every, at most (s)", &mut w.max_interval_s, 2.0..=90.0);
            changed |= slider(ui, "shift takes (s)", &mut w.transition_s, 0.3..=4.0);
            changed |= slider(ui, "hips over the foot (m)", &mut w.hip_shift_m, 0.0..=0.12);
            changed |= slider(ui, "pelvis dip (deg)", &mut w.pelvis_tilt_deg, 0.0..=8.0);
            changed |= slider(
                ui,
                "shoulder tilt (deg)",
                &mut w.shoulder_tilt_deg,
                0.0..=6.0,
            );
        });
    egui::CollapsingHeader::new("Hands")
        .default_open(false)
        .show(ui, |ui| {
            let h = &mut b.hands;
            changed |= ui.checkbox(&mut h.enabled, "on").changed();
            changed |= slider(ui, "curl (deg)", &mut h.curl_deg, 0.0..=45.0);
            changed |= slider(
                ui,
                "more toward the little finger",
                &mut h.curl_spread,
                0.0..=0.5,
            );
            changed |= slider(ui, "drift (deg)", &mut h.drift_deg, 0.0..=10.0);
        });
    egui::CollapsingHeader::new("Talking")
        .default_open(false)
        .show(ui, |ui| {
            let g = &mut b.gestures;
            changed |= ui.checkbox(&mut g.enabled, "on").changed();
            changed |= slider(ui, "phrases with a gesture", &mut g.phrase_share, 0.0..=1.0);
            changed |= slider(ui, "gesture size", &mut g.size, 0.3..=1.5);
            changed |= slider(ui, "gesture speed", &mut g.speed, 0.5..=2.0);
            changed |= slider(ui, "stresses with a beat", &mut g.beat_share, 0.0..=1.0);
            changed |= slider(ui, "beat flick (cm)", &mut g.beat_cm, 0.0..=8.0);
            changed |= slider(ui, "beat nod (deg)", &mut g.beat_nod_deg, 0.0..=8.0);
            changed |= slider(ui, "beat lead (ms)", &mut g.beat_lead_ms, 150.0..=250.0);
            changed |= slider(
                ui,
                "apex after stress (ms)",
                &mut g.apex_lag_ms,
                0.0..=100.0,
            );
            changed |= slider(
                ui,
                "listener nods at phrase ends",
                &mut g.listener_nod_share,
                0.0..=1.0,
            );
            changed |= slider(
                ui,
                "listener nod (deg)",
                &mut g.listener_nod_deg,
                0.0..=15.0,
            );
        });
    egui::CollapsingHeader::new("Emotions")
        .default_open(false)
        .show(ui, |ui| {
            let e = &mut b.emotions;
            changed |= ui.checkbox(&mut e.enabled, "on").changed();
            let mut ease = e.ease_ms as f32;
            if slider(ui, "ease in and out (ms)", &mut ease, 50.0..=2000.0) {
                e.ease_ms = f64::from(ease);
                changed = true;
            }
            for emotion in Emotion::ALL {
                let Some(bearing) = e.of_mut(emotion) else {
                    continue;
                };
                egui::CollapsingHeader::new(emotion.name())
                    .default_open(false)
                    .show(ui, |ui| {
                        changed |= slider(ui, "slump (deg)", &mut bearing.slump_deg, -10.0..=20.0);
                        changed |= slider(ui, "breath rate", &mut bearing.breath_rate, 0.5..=2.0);
                        changed |= slider(ui, "gesture size", &mut bearing.gesture_size, 0.3..=2.0);
                        changed |=
                            slider(ui, "gesture speed", &mut bearing.gesture_speed, 0.5..=2.0);
                    });
            }
        });
    if changed {
        b.weight_shift.max_interval_s = b
            .weight_shift
            .max_interval_s
            .max(b.weight_shift.min_interval_s);
        out.push(Command::SetBody(b));
    }
    ui.separator();
    if let Some(note) = &preview.note {
        ui.weak(note);
    }
    ui.horizontal_wrapped(|ui| {
        ui.label("Plot");
        for bone in PLOTTABLE {
            let mut shown = preview.plot_bones.contains(&bone);
            if ui.checkbox(&mut shown, bone.name()).changed() {
                out.push(Command::SetBodyPlotBone { bone, shown });
            }
        }
    });
    let Some(bake) = &preview.bake else {
        return;
    };
    for &bone in &preview.plot_bones {
        Plot::new(("body", bone.name()))
            .height(120.0)
            .legend(Legend::default())
            .include_y(0.0)
            .y_axis_label(format!("{} (deg)", bone.name()))
            .show(ui, |p| {
                for &layer in &bake.layers {
                    let Some(angles) = bake.angles_deg(layer, bone.name()) else {
                        continue;
                    };
                    let points: Vec<[f64; 2]> = bake
                        .times_ms
                        .iter()
                        .zip(angles)
                        .map(|(&t, a)| [t, f64::from(a)])
                        .collect();
                    p.line(Line::new(layer, PlotPoints::from(points)));
                }
                p.vline(VLine::new("playhead", playhead_ms));
            });
    }
}
