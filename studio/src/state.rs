//! The studio's state and the one place commands are applied. Drawing code reads this state
//! and emits [`Command`]s; nothing else changes it.

use std::path::{Path, PathBuf};

use npc_core::anim::face::{FaceFrame, FaceSettings};
use npc_core::anim::{OwnShapes, ShapeSet};
use npc_core::project::{Gender, Npc, Project, Voice};
use npc_core::speech::LineSource;
use npc_core::{Pose, VisemeId};

use crate::body_preview::BodyPreview;
use crate::character::character;
use crate::command::Command;
use crate::comparison::Comparison;
use crate::document::{Document, History};
use crate::jobs::Job;
use crate::timeline::{FPS, Timeline};
use crate::transfer_wizard::TransferWizard;

mod edit;
mod export;
mod lines;
mod transfer;

use edit::edit_key;
use lines::LineMade;
use transfer::TransferMade;

/// Most recent files remembered.
const RECENT_LIMIT: usize = 8;

/// The name of the file at `path` (the whole path when it has none).
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The file `npc` wears on its head (its avatar's, when the head is not apart).
fn worn_file(npc: &Npc) -> &Path {
    npc.avatar.head.as_ref().unwrap_or(&npc.avatar.body)
}

/// What the 3D view shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewSource {
    /// The pose editor's pose.
    Pose,
    /// The selected viseme's pose.
    Viseme,
    /// The baked `final` weights at the playhead.
    Timeline,
    /// The comparison capture's weights at the playhead.
    Comparison,
}

/// The own shapes of the head shown: its target names, and what the first NPC's face plays on
/// them (its `avatar.shapes`, or a starting table when they are a known set).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FaceShapes {
    /// Every morph target of the head shown, by its name in the file.
    pub names: Vec<String>,
    /// The head's VRM expressions (empty for other files).
    pub vrm: npc_core::asset::VrmExpressions,
    /// The known set a starting table was made for (none when the project gives the shapes).
    pub set: Option<ShapeSet>,
    pub shapes: OwnShapes,
}

/// A message for the status bar.
#[derive(Clone, Debug, PartialEq)]
pub struct Status {
    pub text: String,
    pub error: bool,
}

/// Something the app must do outside the state (GPU, processes).
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Load this head (or avatar) into the 3D view; `None`: the project's or the built-in.
    LoadHead(Option<PathBuf>),
    /// Start the player on this project.
    RunPlayer { project: PathBuf, simulator: bool },
}

/// Everything the studio knows.
#[derive(Debug)]
pub struct Studio {
    pub doc: Document,
    history: History,
    /// The key of the last edit, so a slider drag is one undo step.
    last_edit: Option<String>,
    /// Where the project was read from or last saved to.
    pub path: Option<PathBuf>,
    /// The document as last saved or opened (for the unsaved-changes guard).
    saved: Project,
    pub selected_viseme: Option<VisemeId>,
    /// The character shown and edited (its id); `None`: the roster's first.
    pub selected_npc: Option<String>,
    pub view: ViewSource,
    pub timeline: Timeline,
    pub body: BodyPreview,
    /// The head's own shapes.
    pub shapes: FaceShapes,
    pub status: Option<Status>,
    pub recent: Vec<PathBuf>,
    pub effects: Vec<Effect>,
    /// The transfer wizard, while it is open.
    pub wizard: Option<TransferWizard>,
    /// Where what the 3D view shows is streamed, when it is (the app owns the socket).
    pub stream: Option<npc_io::Stream>,
    /// Where a live capture is listened for, when it is (the app owns the socket).
    pub capture_in: Option<String>,
    /// A line being spoken, aligned or lip-synced off the UI thread.
    line_job: Job<LineMade>,
    /// A head being given the face shapes off the UI thread.
    transfer_job: Job<TransferMade>,
}

impl Studio {
    /// A studio on `project` (read from `path`, when given).
    #[must_use]
    pub fn new(project: Project, path: Option<PathBuf>) -> Self {
        let mut studio = Self {
            saved: project.clone(),
            doc: Document::new(project),
            history: History::default(),
            last_edit: None,
            path,
            selected_viseme: None,
            selected_npc: None,
            view: ViewSource::Pose,
            timeline: Timeline::default(),
            body: BodyPreview::default(),
            shapes: FaceShapes::default(),
            status: None,
            recent: Vec::new(),
            effects: vec![Effect::LoadHead(None)],
            wizard: None,
            stream: None,
            capture_in: None,
            line_job: Job::default(),
            transfer_job: Job::default(),
        };
        if let Some(p) = studio.path.clone() {
            studio.remember(&p);
        }
        studio.rebake();
        studio
    }

    /// Opens the project at `path`, or says why not and keeps the current one.
    #[must_use]
    pub fn open(path: &Path) -> Self {
        match Project::load(path) {
            Ok(p) => Self::new(p, Some(path.to_path_buf())),
            Err(e) => {
                let mut s = Self::new(Project::default(), None);
                s.fail(format!("{e}"));
                s
            }
        }
    }

    /// Whether there are changes not saved.
    #[must_use]
    pub fn is_dirty(&self) -> bool {
        self.doc.project != self.saved
    }

    #[must_use]
    pub fn can_undo(&self) -> bool {
        self.history.can_undo()
    }

    #[must_use]
    pub fn can_redo(&self) -> bool {
        self.history.can_redo()
    }

    fn say(&mut self, text: impl Into<String>) {
        self.status = Some(Status {
            text: text.into(),
            error: false,
        });
    }

    /// Says what went wrong, in the status line and the log.
    pub fn fail(&mut self, text: impl Into<String>) {
        let text = text.into();
        tracing::warn!("{text}");
        self.status = Some(Status { text, error: true });
    }

    /// Adds projects remembered from earlier runs after the ones this run has seen.
    pub fn remember_earlier(&mut self, earlier: Vec<PathBuf>) {
        for p in earlier {
            if !self.recent.contains(&p) {
                self.recent.push(p);
            }
        }
        self.recent.truncate(RECENT_LIMIT);
    }

    fn remember(&mut self, path: &Path) {
        self.recent.retain(|p| p != path);
        self.recent.insert(0, path.to_path_buf());
        self.recent.truncate(RECENT_LIMIT);
    }

    /// The weights the 3D view shows now.
    #[must_use]
    pub fn view_pose(&self) -> Pose {
        match self.view {
            ViewSource::Pose => self.doc.pose,
            ViewSource::Viseme => match self.selected_viseme {
                Some(v) => *self.face().table.pose(v),
                None => self.doc.pose,
            },
            ViewSource::Timeline => self
                .timeline
                .frame_at(self.timeline.playhead_ms)
                .map_or(Pose::NEUTRAL, |f| *f.final_pose()),
            ViewSource::Comparison => self
                .timeline
                .comparison
                .as_ref()
                .map_or(Pose::NEUTRAL, |c| c.pose_at(self.timeline.playhead_ms)),
        }
    }

    /// The character shown and edited.
    #[must_use]
    pub fn character(&self) -> Option<&Npc> {
        character(&self.doc.project, self.selected_npc.as_deref())
    }

    /// The face profile shown and edited: the character's own, else the project's.
    #[must_use]
    pub fn face(&self) -> &FaceSettings {
        let project = &self.doc.project;
        self.character()
            .map_or(&project.face, |n| project.face_settings(&n.id))
    }

    /// The own shapes' weights the 3D view shows now, in the order of
    /// `shapes.shapes.own_targets()`.
    #[must_use]
    pub fn view_own(&self) -> Vec<f32> {
        let names = self.shapes.shapes.own_targets();
        match self.view {
            ViewSource::Timeline => self
                .timeline
                .own_at(self.timeline.playhead_ms)
                .map_or_else(|| vec![0.0; names.len()], <[f32]>::to_vec),
            ViewSource::Viseme => {
                let row = self
                    .selected_viseme
                    .and_then(|v| self.shapes.shapes.visemes.get(&v.get()));
                names
                    .iter()
                    .map(|n| row.and_then(|r| r.get(n)).copied().unwrap_or(0.0))
                    .collect()
            }
            ViewSource::Pose | ViewSource::Comparison => vec![0.0; names.len()],
        }
    }

    /// Works out the head's own shapes again (after the head or the project changed).
    fn resolve_shapes(&mut self) {
        let configured = self.character().and_then(|n| n.avatar.shapes.as_ref());
        let (set, shapes) = OwnShapes::for_avatar(configured, &self.shapes.names, &self.shapes.vrm);
        self.shapes.set = set;
        self.shapes.shapes = shapes;
    }

    /// The baked frame at the playhead.
    #[must_use]
    pub fn frame_at_playhead(&self) -> Option<&FaceFrame> {
        self.timeline.frame_at(self.timeline.playhead_ms)
    }

    /// Applies one command.
    /// Bakes the line and the body again (after an edit).
    fn rebake(&mut self) {
        self.resolve_shapes();
        let id = self.character().map(|n| n.id.clone());
        self.timeline
            .rebake(&self.doc.project, id.as_deref(), &self.shapes.shapes);
        self.rebake_body();
    }

    /// Bakes the body again over the timeline's line (or idle when there is none).
    fn rebake_body(&mut self) {
        let cue = self.timeline.source.as_ref().map(|s| &s.cue);
        let npc = character(&self.doc.project, self.selected_npc.as_deref());
        self.body.rebake(
            &self.doc.project,
            npc,
            self.path.as_deref(),
            self.timeline.duration_ms(),
            cue.map_or(0.0, |c| c.baked_ms() - npc_core::TAIL_MS),
            cue.map(|c| (c, &self.timeline.behaviour)),
            self.timeline.seed,
        );
        // What the body's clips do to the face (a VRM animation's expressions) is in the face's
        // bake, as the player plays it.
        let faces = self.timeline.clip_faces_from(self.body.bake.as_ref());
        if faces != self.timeline.clip_faces {
            self.timeline.clip_faces = faces;
            let id = self.character().map(|n| n.id.clone());
            self.timeline
                .rebake(&self.doc.project, id.as_deref(), &self.shapes.shapes);
        }
    }

    pub fn apply(&mut self, command: Command) {
        if command.is_edit() {
            let key = edit_key(&command);
            if self.last_edit.as_deref() != Some(key.as_str()) {
                self.history.record(self.doc.clone());
            }
            self.last_edit = Some(key);
            self.edit(command);
            self.rebake();
            return;
        }
        self.last_edit = None;
        match command {
            Command::Undo => {
                if let Some(d) = self.history.undo(&self.doc) {
                    self.doc = d;
                    self.rebake();
                }
            }
            Command::Redo => {
                if let Some(d) = self.history.redo(&self.doc) {
                    self.doc = d;
                    self.rebake();
                }
            }
            Command::HeadTargets { names, vrm } => {
                self.shapes.names = names;
                self.shapes.vrm = vrm;
                self.rebake();
            }
            Command::SelectCharacter(id) => {
                if self.character().map(|n| &n.id) != Some(&id) {
                    self.selected_npc = Some(id);
                    self.wizard = None;
                    self.effects.push(Effect::LoadHead(None));
                    self.rebake();
                }
            }
            Command::SelectViseme(v) => {
                self.selected_viseme = v;
                self.view = if v.is_some() {
                    ViewSource::Viseme
                } else {
                    ViewSource::Pose
                };
            }
            Command::SetPlotTarget { target, shown } => {
                let t = &mut self.timeline.plot_targets;
                t.retain(|&x| x != target);
                if shown {
                    t.push(target);
                }
            }
            Command::SetBodyPlotBone { bone, shown } => {
                let bones = &mut self.body.plot_bones;
                bones.retain(|&b| b != bone);
                if shown {
                    bones.push(bone);
                }
            }
            Command::SetPreviewSpeaking(speaking) => {
                self.timeline.speaking = speaking;
                self.rebake();
            }
            Command::SetLineText(text) => self.timeline.text = text,
            Command::SetLineEmotion(emotion) => {
                self.timeline.behaviour.emotion = emotion;
                self.rebake();
            }
            Command::AddLineGesture(gesture) => {
                self.timeline.behaviour.gestures.push(gesture);
                self.rebake_body();
            }
            Command::RemoveLineGesture(index) => {
                if index < self.timeline.behaviour.gestures.len() {
                    self.timeline.behaviour.gestures.remove(index);
                    self.rebake_body();
                }
            }
            Command::SetLineGestureWord { index, word } => {
                if let Some(g) = self.timeline.behaviour.gestures.get_mut(index) {
                    g.word = word;
                    self.rebake_body();
                }
            }
            Command::SpeakLine => self.speak_line(),
            Command::OpenWav(path) => self.open_wav(path),
            Command::ListenTo(path) => self.listen_to(path),
            Command::CancelJobs => self.cancel_jobs(),
            Command::SetAlignToText(align) => self.timeline.align_to_text = align,
            Command::OpenVisemes(path) => {
                let line = LineSource::from_visemes(&path).map_err(|e| format!("{e:#}"));
                self.put_line(file_name(&path), line);
            }
            Command::Seek(t) => {
                self.timeline.seek(t);
                self.view = self.timeline_view();
            }
            Command::OpenComparison(path) => match Comparison::open(&path) {
                Ok(c) => {
                    self.say(format!(
                        "comparing with {} ({} frames at {} fps)",
                        c.label,
                        c.take.times_ms.len(),
                        c.take.fps
                    ));
                    self.timeline.comparison = Some(c);
                    self.view = ViewSource::Comparison;
                }
                Err(e) => self.fail(e),
            },
            Command::ListenForCapture(None) => {
                if self.capture_in.take().is_some() {
                    let frames = self
                        .timeline
                        .comparison
                        .as_ref()
                        .map_or(0, |c| c.take.times_ms.len());
                    self.say(format!(
                        "stopped listening; the capture's {frames} frames stay under the line"
                    ));
                }
            }
            Command::ListenForCapture(Some(url)) => {
                let url = url.trim().to_owned();
                match npc_io::parse_stream(&url) {
                    Ok(_) => {
                        self.say(format!(
                            "listening for a capture on {url}: it is laid under the line as it \
                             arrives"
                        ));
                        self.capture_in = Some(url);
                    }
                    Err(why) => self.fail(why),
                }
            }
            Command::CaptureArrived { label, frames } => {
                let live = self
                    .timeline
                    .comparison
                    .get_or_insert_with(|| Comparison::live(&label));
                if live.label != label {
                    *live = Comparison::live(&label);
                }
                for (t_ms, heard) in frames {
                    live.push(t_ms, heard);
                }
            }
            Command::CloseComparison => {
                self.timeline.comparison = None;
                self.timeline.seek(self.timeline.playhead_ms);
                if self.view == ViewSource::Comparison {
                    self.view = ViewSource::Timeline;
                }
            }
            Command::ShowComparison(shown) => {
                self.view = if shown && self.timeline.comparison.is_some() {
                    ViewSource::Comparison
                } else {
                    ViewSource::Timeline
                };
            }
            Command::ExportLine { format, path } => self.export_line(format, &path),
            Command::TogglePlay => {
                if !self.timeline.has_content() {
                    // No line: Play runs the body's idle life (shown on the Body tab).
                    self.body.idle_playing = !self.body.idle_playing;
                } else {
                    if !self.timeline.playing
                        && self.timeline.playhead_ms >= self.timeline.duration_ms()
                    {
                        self.timeline.playhead_ms = 0.0;
                    }
                    self.timeline.playing = !self.timeline.playing;
                    self.view = self.timeline_view();
                }
            }
            Command::StepFrames(n) => {
                let t = self.timeline.playhead_ms + f64::from(n) * 1000.0 / FPS;
                self.timeline.playing = false;
                self.timeline.seek(t);
                self.view = self.timeline_view();
            }
            Command::New => {
                let recent = std::mem::take(&mut self.recent);
                *self = Self::new(Project::default(), None);
                self.recent = recent;
                self.say("new project");
            }
            Command::Open(path) => match Project::load(&path) {
                Ok(p) => {
                    let recent = std::mem::take(&mut self.recent);
                    *self = Self::new(p, Some(path.clone()));
                    self.recent = recent;
                    self.remember(&path);
                    self.say(format!("opened {}", path.display()));
                }
                Err(e) => self.fail(format!("{e}")),
            },
            Command::Save => match self.path.clone() {
                Some(path) => self.save_to(&path),
                None => self.fail("the project has no file yet: use Save As"),
            },
            Command::SaveAs(path) => self.save_to(&path),
            Command::OpenHead(path) => self.effects.push(Effect::LoadHead(Some(path))),
            Command::TransferShapes(out) => self.transfer_shapes(&out),
            Command::OpenTransferWizard => self.open_transfer_wizard(),
            Command::CloseTransferWizard => self.wizard = None,
            Command::SeeHeadsFrom(aspect) => {
                if let Some(w) = self.wizard.as_mut() {
                    w.aspect = aspect;
                }
            }
            Command::MoveLandmark {
                head,
                name,
                to,
                seen,
            } => {
                if let Some(w) = self.wizard.as_mut() {
                    w.move_landmark(head, &name, glam::Vec2::from_array(to), seen);
                }
            }
            Command::ResetLandmarks(head) => {
                if let Some(w) = self.wizard.as_mut() {
                    w.reset(head);
                }
            }
            Command::StreamTo(None) => {
                if self.stream.take().is_some() {
                    self.say("live link stopped".to_owned());
                }
            }
            Command::StreamTo(Some(url)) => match npc_io::parse_stream(url.trim()) {
                Ok(target) => {
                    self.say(format!(
                        "streaming the character's face to {} (what the 3D view shows)",
                        url.trim()
                    ));
                    self.stream = Some(target);
                }
                Err(why) => self.fail(why),
            },
            Command::RunInPlayer { simulator } => match self.path.clone() {
                Some(path) => {
                    self.save_to(&path);
                    if !self.is_dirty() {
                        self.effects.push(Effect::RunPlayer {
                            project: path,
                            simulator,
                        });
                    }
                }
                None => self.fail("save the project first (Save As)"),
            },
            edit => self.edit(edit),
        }
    }

    /// What the head shows while the timeline is scrubbed or played: the capture when it was
    /// shown, else the line.
    fn timeline_view(&self) -> ViewSource {
        if self.view == ViewSource::Comparison && self.timeline.comparison.is_some() {
            ViewSource::Comparison
        } else {
            ViewSource::Timeline
        }
    }

    /// Puts a line on the timeline (and the view on it), or says why it could not be read.
    /// The voice the timeline's line is spoken (or its script aligned) in: the character's.
    fn line_voice(&self) -> Voice {
        self.character().map(|n| n.voice.clone()).unwrap_or(Voice {
            gender: Gender::Female,
            ..Voice::default()
        })
    }

    fn save_to(&mut self, path: &Path) {
        match self.doc.project.save(path) {
            Ok(()) => {
                self.saved = self.doc.project.clone();
                self.path = Some(path.to_path_buf());
                self.remember(path);
                self.say(format!("saved {}", path.display()));
            }
            Err(e) => self.fail(format!("{e}")),
        }
    }

    /// Takes the effects queued since the last call.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }
}

#[cfg(test)]
mod tests {
    use npc_core::ArkitTarget;

    use super::*;

    #[test]
    fn a_drag_is_one_undo_step() {
        let mut s = Studio::new(Project::default(), None);
        for w in [0.1, 0.2, 0.3] {
            s.apply(Command::SetPoseWeight {
                target: ArkitTarget::JawOpen,
                weight: w,
            });
        }
        s.apply(Command::Undo);
        assert_eq!(s.doc.pose.get(ArkitTarget::JawOpen), 0.0);
        s.apply(Command::Redo);
        assert!((s.doc.pose.get(ArkitTarget::JawOpen) - 0.3).abs() < 1e-6);
    }

    #[test]
    fn listening_settings_are_the_projects_and_undo() {
        let mut s = Studio::new(Project::default(), None);
        let mut l = s.doc.project.listen.clone();
        l.nod_share = 0.9;
        l.barge_in = false;
        s.apply(Command::SetListen(l));
        assert!(s.is_dirty());
        assert_eq!(s.doc.project.listen.nod_share, 0.9);
        assert!(!s.doc.project.listen.barge_in);
        s.apply(Command::Undo);
        assert!(s.doc.project.listen.barge_in);
        assert!(!s.is_dirty());
    }

    #[test]
    fn viseme_edits_mark_the_project_unsaved_and_reset_restores_the_default() {
        let mut s = Studio::new(Project::default(), None);
        let pp = VisemeId::new(21).expect("id");
        s.apply(Command::SetVisemeWeight {
            viseme: pp,
            target: ArkitTarget::MouthPressLeft,
            weight: 0.9,
        });
        assert!(s.is_dirty());
        assert_eq!(s.view, ViewSource::Viseme);
        assert!((s.view_pose().get(ArkitTarget::MouthPressLeft) - 0.9).abs() < 1e-6);
        s.apply(Command::ResetViseme(pp));
        assert!(!s.is_dirty());
    }

    #[test]
    fn opening_a_broken_project_keeps_the_current_one() {
        let dir = tempfile::tempdir().expect("tmp");
        let bad = dir.path().join("bad.ron");
        std::fs::write(&bad, "(version: 1, face: (").expect("write");
        let mut s = Studio::new(Project::default(), None);
        s.apply(Command::SetPoseWeight {
            target: ArkitTarget::JawOpen,
            weight: 0.4,
        });
        s.apply(Command::Open(bad));
        assert!(s.status.as_ref().is_some_and(|st| st.error));
        assert!((s.doc.pose.get(ArkitTarget::JawOpen) - 0.4).abs() < 1e-6);
    }

    #[test]
    fn a_body_setting_rebakes_the_body_and_undoes() {
        let mut s = Studio::new(npc_core::project::demo_project(), None);
        let angles = |s: &Studio| {
            s.body
                .bake
                .as_ref()
                .and_then(|b| b.angles_deg("breathing", "upperChest"))
                .unwrap_or_default()
        };
        let before = angles(&s);
        assert!(!before.is_empty(), "the body is baked from the start");
        let mut body = s.doc.project.body.clone();
        body.breathing.rate_per_min = 28.0;
        s.apply(Command::SetBody(body));
        assert_eq!(s.doc.project.body.breathing.rate_per_min, 28.0);
        assert_ne!(angles(&s), before, "the bake follows the setting");
        s.apply(Command::Undo);
        assert_eq!(angles(&s), before);
    }

    #[test]
    fn a_character_of_its_own_face_profile_is_edited_alone() {
        let mut s = Studio::new(npc_core::project::demo_project(), None);
        s.apply(Command::SetLineText("Bob bought a map.".to_owned()));
        s.apply(Command::SpeakLine);
        s.finish_jobs();
        let jaw_at = |s: &Studio| {
            s.timeline
                .bake
                .as_ref()
                .map(|b| {
                    b.series(npc_core::anim::Stage::Target, ArkitTarget::JawOpen)
                        .fold(0.0f32, f32::max)
                })
                .unwrap_or_default()
        };
        let before = jaw_at(&s);
        s.apply(Command::SetOwnFaceProfile(true));
        assert!(s.doc.project.npcs[0].face.is_some());
        let aa = VisemeId::new(2).expect("id");
        s.apply(Command::SetVisemeWeight {
            viseme: aa,
            target: ArkitTarget::JawOpen,
            weight: 1.0,
        });
        let own = s.doc.project.npcs[0].face.as_ref().expect("own profile");
        assert_eq!(own.table.pose(aa).get(ArkitTarget::JawOpen), 1.0);
        assert_ne!(
            s.doc.project.face.table.pose(aa).get(ArkitTarget::JawOpen),
            1.0,
            "the project's table is left as it was"
        );
        assert_eq!(s.face().table.pose(aa).get(ArkitTarget::JawOpen), 1.0);
        assert!(
            jaw_at(&s) > before,
            "the line is baked with the character's own table"
        );
        s.apply(Command::Undo);
        s.apply(Command::Undo);
        assert!(s.doc.project.npcs[0].face.is_none());
    }

    #[test]
    fn play_without_a_line_runs_idle_life() {
        let mut s = Studio::new(npc_core::project::demo_project(), None);
        assert!(s.timeline.bake.is_none());
        s.apply(Command::TogglePlay);
        assert!(s.body.idle_playing);
        s.body.advance_idle(0.5);
        assert!((s.body.idle_ms - 500.0).abs() < 1e-9);
        s.apply(Command::TogglePlay);
        assert!(!s.body.idle_playing);
        s.body.advance_idle(0.5);
        assert!((s.body.idle_ms - 500.0).abs() < 1e-9, "paused");
    }
}
