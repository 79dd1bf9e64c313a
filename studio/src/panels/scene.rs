//! The scene: time of day and day length, fog, sun, the player's screen (subtitles, names),
//! the NPC roster, the agent directory and the speech engine.

use std::path::PathBuf;

use egui::Ui;
use npc_core::project::{
    Avatar, ClipFiles, Gender, Npc, Project, SpeechEngine, SubtitlePlace, Voice,
};

use crate::command::Command;

/// The scene panel.
pub fn panel(ui: &mut Ui, project: &Project, out: &mut Vec<Command>) {
    let mut scene = project.scene.clone();
    let mut changed = false;
    ui.heading("Day and light");
    changed |= ui
        .add(egui::Slider::new(&mut scene.start_time, 0.0..=1.0).text("time of day at start"))
        .changed();
    changed |= ui
        .add(egui::Slider::new(&mut scene.day_length_s, 10.0..=3600.0).text("day length (s)"))
        .changed();
    changed |= ui
        .add(egui::Slider::new(&mut scene.sun.intensity, 0.0..=3.0).text("sun intensity"))
        .changed();
    ui.horizontal(|ui| {
        ui.label("sun colour");
        changed |= ui.color_edit_button_rgb(&mut scene.sun.color).changed();
    });
    changed |= ui
        .add(
            egui::Slider::new(&mut scene.exposure, 0.25..=4.0)
                .logarithmic(true)
                .text("exposure"),
        )
        .on_hover_text("Scene light to display light before the tone map (1: as lit)")
        .changed();
    changed |= ui
        .add(egui::Slider::new(&mut scene.sky_light, 0.0..=4.0).text("sky light"))
        .on_hover_text(
            "Light from the sky itself, diffuse and reflected (1: as bright as the sky is drawn)",
        )
        .changed();
    changed |= ui
        .add(egui::Slider::new(&mut scene.fog.start, 0.0..=1000.0).text("fog start (m)"))
        .changed();
    changed |= ui
        .add(egui::Slider::new(&mut scene.fog.end, 1.0..=2000.0).text("fog end (m)"))
        .changed();
    if changed {
        scene.fog.end = scene.fog.end.max(scene.fog.start + 1.0);
        out.push(Command::SetScene(scene));
    }
    ui.separator();
    screen(ui, project, out);
    ui.separator();
    ui.heading("NPCs");
    let mut roster = project.npcs.clone();
    let mut roster_changed = false;
    let mut remove = None;
    egui::Grid::new("roster").striped(true).show(ui, |ui| {
        let id_label = ui.strong("speaker id").id;
        let avatar_label = ui.strong("avatar").id;
        let clips_label = ui.strong("clips").id;
        ui.strong("gender");
        let spawn_label = ui.strong("spawn x, y").id;
        ui.end_row();
        for (i, npc) in roster.iter_mut().enumerate() {
            roster_changed |= ui
                .text_edit_singleline(&mut npc.id)
                .labelled_by(id_label)
                .changed();
            let mut body = npc.avatar.body.display().to_string();
            if ui
                .text_edit_singleline(&mut body)
                .labelled_by(avatar_label)
                .changed()
            {
                npc.avatar.body = PathBuf::from(body);
                roster_changed = true;
            }
            // Clip files (glTF, VRMA, FBX), comma-separated: empty plays the body's own.
            let mut clips = npc
                .avatar
                .clips
                .as_ref()
                .map(ClipFiles::to_list)
                .unwrap_or_default();
            if ui
                .add(egui::TextEdit::singleline(&mut clips).hint_text("its own"))
                .labelled_by(clips_label)
                .on_hover_text("clip files, comma-separated: clips/Idle.fbx, clips/Walking.fbx")
                .changed()
            {
                npc.avatar.clips = ClipFiles::from_list(&clips);
                roster_changed = true;
            }
            egui::ComboBox::from_id_salt(("gender", i))
                .selected_text(match npc.voice.gender {
                    Gender::Female => "female",
                    Gender::Male => "male",
                })
                .show_ui(ui, |ui| {
                    roster_changed |= ui
                        .selectable_value(&mut npc.voice.gender, Gender::Female, "female")
                        .changed();
                    roster_changed |= ui
                        .selectable_value(&mut npc.voice.gender, Gender::Male, "male")
                        .changed();
                });
            ui.horizontal(|ui| {
                roster_changed |= ui
                    .add(
                        egui::DragValue::new(&mut npc.spawn[0])
                            .range(0.0..=1.0)
                            .speed(0.001),
                    )
                    .labelled_by(spawn_label)
                    .changed();
                roster_changed |= ui
                    .add(
                        egui::DragValue::new(&mut npc.spawn[1])
                            .range(0.0..=1.0)
                            .speed(0.001),
                    )
                    .labelled_by(spawn_label)
                    .changed();
                if ui.small_button("remove").clicked() {
                    remove = Some(i);
                }
            });
            ui.end_row();
        }
    });
    if let Some(i) = remove {
        roster.remove(i);
        roster_changed = true;
    }
    if ui.button("Add NPC").clicked() {
        roster.push(Npc {
            id: format!("NPC{}", roster.len() + 1),
            avatar: Avatar {
                body: PathBuf::from("assets/avatar.glb"),
                head: None,
                bones: Default::default(),
                clips: None,
                shapes: None,
                springs: None,
            },
            voice: Voice::default(),
            spawn: [0.5, 0.5],
            body: None,
            face: None,
            face_file: None,
        });
        roster_changed = true;
    }
    if roster_changed {
        out.push(Command::SetRoster(roster));
    }
    ui.separator();
    ui.horizontal(|ui| {
        let label = ui.label("agent directory");
        let mut dir = project.agent_dir.display().to_string();
        if ui
            .text_edit_singleline(&mut dir)
            .labelled_by(label.id)
            .changed()
        {
            out.push(Command::SetAgentDir(PathBuf::from(dir)));
        }
    });
    ui.horizontal(|ui| {
        ui.label("speech");
        let azure = matches!(project.speech, SpeechEngine::Azure { .. });
        if ui.radio(!azure, "offline").clicked() && azure {
            out.push(Command::SetSpeech(SpeechEngine::Offline));
        }
        if ui.radio(azure, "Azure").clicked() && !azure {
            out.push(Command::SetSpeech(SpeechEngine::Azure {
                region: "westeurope".to_owned(),
            }));
        }
        if let SpeechEngine::Azure { region } = &project.speech {
            let mut r = region.clone();
            let label = ui.label("region");
            if ui
                .text_edit_singleline(&mut r)
                .labelled_by(label.id)
                .changed()
            {
                out.push(Command::SetSpeech(SpeechEngine::Azure { region: r }));
            }
            ui.weak("key from AZURE_SPEECH_KEY");
        }
    });
}

/// What the player draws over the world.
fn screen(ui: &mut Ui, project: &Project, out: &mut Vec<Command>) {
    let mut screen = project.screen.clone();
    let mut changed = false;
    ui.heading("Player screen");
    let subtitles = &mut screen.subtitles;
    changed |= ui.checkbox(&mut subtitles.show, "subtitles").changed();
    changed |= ui
        .add(
            egui::Slider::new(&mut subtitles.size, 0.015..=0.08)
                .text("subtitle size (share of the height)"),
        )
        .changed();
    ui.horizontal(|ui| {
        ui.label("subtitles at");
        changed |= ui
            .radio_value(&mut subtitles.place, SubtitlePlace::Bottom, "bottom")
            .changed();
        changed |= ui
            .radio_value(&mut subtitles.place, SubtitlePlace::Top, "top")
            .changed();
    });
    changed |= ui
        .add(egui::Slider::new(&mut subtitles.background, 0.0..=1.0).text("subtitle band"))
        .changed();
    changed |= ui
        .add(egui::Slider::new(&mut screen.names_within_m, 0.0..=40.0).text("names within (m)"))
        .changed();
    if changed {
        out.push(Command::SetScreen(screen));
    }
}
