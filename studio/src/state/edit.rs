//! The document edits: each command that changes the project or the pose, applied after
//! `apply` has recorded the undo step.

use npc_core::anim::face::FaceSettings;
use npc_core::project::Project;
use npc_core::{Pose, VisemeTable};

use super::{Studio, ViewSource};
use crate::character::character_mut;
use crate::command::Command;

impl Studio {
    /// The document changes of an edit command.
    pub(super) fn edit(&mut self, command: Command) {
        let project = &mut self.doc.project;
        let selected = self.selected_npc.as_deref();
        match command {
            Command::SetPoseWeight { target, weight } => {
                self.doc.pose.set(target, weight.clamp(0.0, 1.0));
                self.view = ViewSource::Pose;
            }
            Command::ResetPose => {
                self.doc.pose = Pose::NEUTRAL;
                self.view = ViewSource::Pose;
            }
            Command::MirrorPose => {
                self.doc.pose = self.doc.pose.mirrored();
                self.view = ViewSource::Pose;
            }
            Command::SetVisemeWeight {
                viseme,
                target,
                weight,
            } => {
                face_mut(project, selected)
                    .table
                    .pose_mut(viseme)
                    .set(target, weight.clamp(0.0, 1.0));
                self.selected_viseme = Some(viseme);
                self.view = ViewSource::Viseme;
            }
            Command::ResetViseme(viseme) => {
                let default = *VisemeTable::default_table().pose(viseme);
                face_mut(project, selected).table.set_pose(viseme, default);
                self.view = ViewSource::Viseme;
            }
            Command::PoseToViseme(viseme) => {
                face_mut(project, selected)
                    .table
                    .set_pose(viseme, self.doc.pose);
                self.selected_viseme = Some(viseme);
                self.view = ViewSource::Viseme;
            }
            Command::SetOwnVisemeWeight {
                viseme,
                target,
                weight,
            } => {
                // The character's face: its shapes become its own once edited.
                let current = self.shapes.shapes.clone();
                if let Some(npc) = character_mut(&mut project.npcs, selected) {
                    let shapes = npc.avatar.shapes.get_or_insert(current);
                    let row = shapes.visemes.entry(viseme.get()).or_default();
                    if weight > 0.0 {
                        row.insert(target, weight.clamp(0.0, 1.0));
                    } else {
                        row.remove(&target);
                    }
                    if row.is_empty() {
                        shapes.visemes.remove(&viseme.get());
                    }
                }
                self.selected_viseme = Some(viseme);
                self.view = ViewSource::Viseme;
            }
            Command::SetGaze(g) => face_mut(project, selected).gaze = g,
            // The character's own settings when it has them (its body is the one shown).
            Command::SetBody(b) => {
                match character_mut(&mut project.npcs, selected).and_then(|n| n.body.as_mut()) {
                    Some(own) => *own = b,
                    None => project.body = b,
                }
            }
            Command::SetBlink(b) => face_mut(project, selected).blink = b,
            Command::SetBrows(b) => face_mut(project, selected).brows = b,
            Command::SetFaceEmotions { enabled, ease_ms } => {
                // The poses are edited through the pose editor alone.
                let face = face_mut(project, selected);
                face.emotions.enabled = enabled;
                face.emotions.ease_ms = ease_ms;
            }
            Command::PoseToEmotion(emotion) => {
                if let Some(face) = face_mut(project, selected).emotions.face_mut(emotion) {
                    *face = self.doc.pose;
                }
            }
            Command::EmotionToPose(emotion) => {
                self.doc.pose = face_mut(project, selected)
                    .emotions
                    .face(emotion)
                    .copied()
                    .unwrap_or(Pose::NEUTRAL);
                self.view = ViewSource::Pose;
            }
            Command::SetLipSync(l) => face_mut(project, selected).lipsync = l,
            Command::SetOwnFaceProfile(own) => {
                let shared = project.face.clone();
                if let Some(npc) = character_mut(&mut project.npcs, selected) {
                    npc.face = own.then_some(npc.face.take().unwrap_or(shared));
                    if !own {
                        // Back on the project's profile: a file of its own no longer applies.
                        npc.face_file = None;
                    }
                }
            }
            Command::SetScene(s) => project.scene = s,
            Command::SetScreen(s) => project.screen = s,
            Command::SetListen(l) => project.listen = l,
            Command::SetRoster(r) => project.npcs = r,
            Command::SetAgentDir(d) => project.agent_dir = d,
            Command::SetSpeech(s) => project.speech = s,
            // Not edits: applied by `apply` before they could get here.
            Command::Undo
            | Command::Redo
            | Command::HeadTargets { .. }
            | Command::SelectViseme(_)
            | Command::SelectCharacter(_)
            | Command::SetPlotTarget { .. }
            | Command::SetBodyPlotBone { .. }
            | Command::SetPreviewSpeaking(_)
            | Command::SetLineText(_)
            | Command::SetLineEmotion(_)
            | Command::AddLineGesture(_)
            | Command::RemoveLineGesture(_)
            | Command::SetLineGestureWord { .. }
            | Command::SpeakLine
            | Command::OpenWav(_)
            | Command::ListenTo(_)
            | Command::CancelJobs
            | Command::SetAlignToText(_)
            | Command::OpenVisemes(_)
            | Command::Seek(_)
            | Command::TogglePlay
            | Command::StepFrames(_)
            | Command::OpenComparison(_)
            | Command::CloseComparison
            | Command::ShowComparison(_)
            | Command::ExportLine { .. }
            | Command::New
            | Command::Open(_)
            | Command::Save
            | Command::SaveAs(_)
            | Command::OpenHead(_)
            | Command::TransferShapes(_)
            | Command::OpenTransferWizard
            | Command::CloseTransferWizard
            | Command::SeeHeadsFrom(_)
            | Command::MoveLandmark { .. }
            | Command::ResetLandmarks(_)
            | Command::RunInPlayer { .. }
            | Command::StreamTo(_)
            | Command::ListenForCapture(_)
            | Command::CaptureArrived { .. } => {}
        }
    }
}

/// The face profile the studio edits: the character's own when it has one, else the
/// project's.
pub(super) fn face_mut<'a>(
    project: &'a mut Project,
    selected: Option<&str>,
) -> &'a mut FaceSettings {
    match character_mut(&mut project.npcs, selected).and_then(|n| n.face.as_mut()) {
        Some(own) => own,
        None => &mut project.face,
    }
}

/// Edits with the same key in a row are one undo step (a slider drag).
pub(super) fn edit_key(command: &Command) -> String {
    match command {
        Command::SetPoseWeight { target, .. } => format!("pose {}", target.name()),
        Command::SetVisemeWeight { viseme, target, .. } => {
            format!("viseme {} {}", viseme.get(), target.name())
        }
        Command::SetOwnVisemeWeight { viseme, target, .. } => {
            format!("own {} {target}", viseme.get())
        }
        Command::SetGaze(_) => "gaze".to_owned(),
        Command::SetBlink(_) => "blink".to_owned(),
        Command::SetBrows(_) => "brows".to_owned(),
        Command::SetFaceEmotions { .. } => "face emotions".to_owned(),
        Command::SetLipSync(_) => "lipsync".to_owned(),
        Command::SetScene(_) => "scene".to_owned(),
        Command::SetScreen(_) => "player screen".to_owned(),
        Command::SetListen(_) => "listening".to_owned(),
        Command::SetBody(_) => "body".to_owned(),
        other => format!("{other:?}"),
    }
}
