//! The studio window: panels around the 3D view. Each frame the panels read the state and
//! collect commands, which are applied together at the end of the frame.

use std::path::{Path, PathBuf};
use std::time::Instant;

use eframe::egui_wgpu::RenderState;
use npc_core::project::Project;

use crate::command::Command;
use crate::file_dialog::FileAsk;
use crate::jobs::Job;
use crate::panels::{
    body, character_picker, gaze, listening, menu, pose, scene, timeline, transfer, visemes,
};
use crate::playback::Playback;
use crate::player_child::PlayerChild;
use crate::recent::RecentStore;
use crate::state::{Effect, Studio, ViewSource};
use crate::unsaved::UnsavedGuard;
use crate::viewport::{LoadedHead, Viewport};

/// Frames drawn before `--screenshot` takes its picture (fonts and layout settle).
const SETTLE_FRAMES: u32 = 8;

/// The left panel's tabs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Pose,
    Visemes,
    Gaze,
    Body,
    Scene,
}

/// The eframe app.
#[derive(Debug)]
pub struct StudioApp {
    pub studio: Studio,
    pub viewport: Option<Viewport>,
    /// A new head being read for the view, off the UI thread (the old one shows meanwhile).
    head_job: Job<anyhow::Result<LoadedHead>>,
    pub tab: Tab,
    pose_filter: String,
    viseme_filter: String,
    ask: FileAsk,
    /// Where recent projects are kept between runs, and the list as last kept.
    recent_store: Option<(RecentStore, Vec<PathBuf>)>,
    simulator: bool,
    screenshot: Option<(PathBuf, u32)>,
    /// Where the window's picture arrives once taken.
    shot: std::sync::Arc<std::sync::Mutex<Option<std::sync::Arc<egui::ColorImage>>>>,
    confirm_close: bool,
    closing: bool,
    last_frame: Option<Instant>,
    playback: Playback,
    unsaved: UnsavedGuard,
    /// The live link's socket while the studio streams (`studio.stream`), and the address
    /// typed in its menu.
    link: Option<npc_io::FaceSender>,
    link_text: menu::LinkText,
    /// The live capture's socket while the studio listens (`studio.capture_in`): its URL,
    /// the listener and the take it grows.
    capture_in: Option<(String, npc_io::CaptureListener, npc_io::CaptureTake)>,
    /// The player "Run in player" started, while it runs.
    player: Option<PlayerChild>,
    started: Instant,
}

impl StudioApp {
    /// The app on `studio`; with `screenshot`, saves a PNG of the window once settled and
    /// closes.
    #[must_use]
    pub fn new(studio: Studio, screenshot: Option<PathBuf>) -> Self {
        Self {
            studio,
            viewport: None,
            head_job: Job::default(),
            tab: Tab::Pose,
            pose_filter: String::new(),
            viseme_filter: String::new(),
            ask: FileAsk::default(),
            recent_store: None,
            simulator: true,
            screenshot: screenshot.map(|p| (p, SETTLE_FRAMES)),
            shot: std::sync::Arc::default(),
            confirm_close: false,
            closing: false,
            last_frame: None,
            playback: Playback::default(),
            unsaved: UnsavedGuard::default(),
            link: None,
            link_text: menu::LinkText::default(),
            capture_in: None,
            player: None,
            started: Instant::now(),
        }
    }

    /// Asks for files by typing their path only (no native dialog).
    #[must_use]
    pub fn with_typed_paths(mut self) -> Self {
        self.ask = FileAsk::typed_only();
        self
    }

    /// Keeps the recent projects in `store` between runs (and adds those kept earlier).
    #[must_use]
    pub fn with_recent_store(mut self, store: RecentStore) -> Self {
        self.studio.remember_earlier(store.load());
        self.recent_store = Some((store, Vec::new()));
        self.keep_recent();
        self
    }

    /// Writes the recent projects when they changed.
    fn keep_recent(&mut self) {
        let Some((store, kept)) = &mut self.recent_store else {
            return;
        };
        if *kept == self.studio.recent {
            return;
        }
        *kept = self.studio.recent.clone();
        if let Err(e) = store.save(kept) {
            tracing::warn!("cannot keep the recent projects: {e:#}");
        }
    }

    /// The folder a file dialog starts in: the project's.
    fn start_dir(&self) -> Option<PathBuf> {
        let dir = self.studio.path.as_deref()?.parent()?;
        Some(if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir.to_path_buf()
        })
    }

    /// The head the project names for the character shown (its head, else its body), resolved.
    fn project_head(&self) -> Option<PathBuf> {
        let project_file = self.studio.path.as_deref()?;
        let npc = self.studio.character()?;
        let file = npc.avatar.head.as_ref().unwrap_or(&npc.avatar.body);
        let path = Project::resolve(project_file, file);
        path.exists().then_some(path)
    }

    /// Sends what the 3D view shows to the live link, when the studio streams; opens or
    /// closes the socket as the stream is started, moved or stopped.
    fn stream_face(&mut self, ctx: &egui::Context, now: Instant) {
        let wanted = self.studio.stream.clone();
        if self.link.as_ref().map(npc_io::FaceSender::stream) != wanted.as_ref() {
            self.link = match wanted {
                Some(target) => match npc_io::FaceSender::open(target) {
                    Ok(sender) => Some(sender),
                    Err(why) => {
                        self.studio.apply(Command::StreamTo(None));
                        self.studio.fail(why);
                        None
                    }
                },
                None => None,
            };
        }
        let Some(link) = self.link.as_mut() else {
            return;
        };
        let subject = self
            .studio
            .character()
            .map_or_else(|| "studio".to_owned(), |n| n.id.clone());
        let time_s = now.saturating_duration_since(self.started).as_secs_f64();
        let body = self.studio.body.streamed(self.studio.timeline.playhead_ms);
        link.send(&subject, &self.studio.view_pose().0, body, time_s);
        // Receivers drop a subject that goes quiet: keep sending while streaming.
        ctx.request_repaint_after(std::time::Duration::from_millis(33));
    }

    /// Says how the player "Run in player" started has ended, once it has.
    fn watch_player(&mut self, ctx: &egui::Context) {
        let Some(player) = self.player.as_mut() else {
            return;
        };
        match player.ended() {
            None => ctx.request_repaint_after(std::time::Duration::from_millis(500)),
            Some(Ok(())) => {
                self.player = None;
                self.studio.status = Some(crate::state::Status {
                    text: "the player closed".to_owned(),
                    error: false,
                });
            }
            Some(Err(why)) => {
                self.player = None;
                self.studio.fail(why);
            }
        }
    }

    /// Reads the live capture's packets, when the studio listens, into the comparison under
    /// the timeline; opens or closes the socket as listening starts or stops.
    fn hear_capture(&mut self, ctx: &egui::Context) {
        let wanted = self.studio.capture_in.clone();
        if self.capture_in.as_ref().map(|c| &c.0) != wanted.as_ref() {
            self.capture_in = match wanted {
                Some(url) => match npc_io::CaptureListener::open(&url, None) {
                    Ok(listener) => Some((url, listener, npc_io::CaptureTake::default())),
                    Err(why) => {
                        self.studio.apply(Command::ListenForCapture(None));
                        self.studio.fail(why);
                        None
                    }
                },
                None => None,
            };
        }
        let Some((url, listener, take)) = self.capture_in.as_mut() else {
            return;
        };
        let mut heard = Vec::new();
        listener.receive(std::time::Duration::ZERO, &mut heard);
        let frames: Vec<(f64, npc_io::Heard)> = heard
            .into_iter()
            .filter_map(|(at, frame)| take.push(at, frame).map(|t| (t, frame)))
            .collect();
        if !frames.is_empty() {
            self.studio.apply(Command::CaptureArrived {
                label: format!("live: {url}"),
                frames,
            });
        }
        ctx.request_repaint_after(std::time::Duration::from_millis(16));
    }

    fn run_effects(&mut self, render_state: Option<&RenderState>) {
        for effect in self.studio.take_effects() {
            match effect {
                Effect::LoadHead(path) => {
                    let Some(rs) = render_state else { continue };
                    let path = path.or_else(|| self.project_head());
                    if self.viewport.is_none() {
                        // The first view: nothing to show meanwhile.
                        self.show_head(rs, Ok(LoadedHead::load(path.as_deref())));
                        continue;
                    }
                    let what = format!(
                        "reading {}",
                        path.as_deref().map_or("the built-in head".into(), |p| {
                            p.file_name().unwrap_or(p.as_os_str()).to_string_lossy()
                        })
                    );
                    if let Err(e) = self
                        .head_job
                        .start(what, move || LoadedHead::load(path.as_deref()))
                    {
                        self.studio.fail(e);
                    }
                }
                Effect::RunPlayer { project, simulator } => {
                    self.player = run_player(&mut self.studio, &project, simulator);
                }
            }
        }
    }

    /// Shows a head read for the view (uploads it: the pipelines stay when a view is there),
    /// or says why it cannot be shown.
    fn show_head(&mut self, rs: &RenderState, loaded: Result<anyhow::Result<LoadedHead>, String>) {
        let loaded = match loaded {
            Ok(Ok(l)) => l,
            Ok(Err(e)) => return self.studio.fail(format!("cannot draw the head: {e:#}")),
            Err(e) => return self.studio.fail(e),
        };
        let (names, vrm) = (
            loaded.head().target_names(),
            loaded.head().vrm_expressions(),
        );
        let problem = loaded.problem.clone();
        let shown = match self.viewport.as_mut() {
            Some(v) => v.set_head(loaded),
            None => Viewport::new(rs, loaded).map(|v| self.viewport = Some(v)),
        };
        if let Err(e) = shown {
            return self.studio.fail(format!("cannot draw the head: {e:#}"));
        }
        self.studio.apply(Command::HeadTargets { names, vrm });
        if let Some(p) = problem {
            self.studio.fail(format!("{p}; showing the built-in head"));
        }
    }

    /// Shows the head read off the UI thread once it is ready. Whether one is being read.
    fn poll_head(&mut self, render_state: Option<&RenderState>) -> bool {
        if let Some(rs) = render_state
            && let Some(loaded) = self.head_job.take()
        {
            self.show_head(rs, loaded);
        }
        self.head_job.running().is_some()
    }

    /// Whether a head is being read for the view (tests and benchmarks wait for it).
    #[must_use]
    pub fn reading_head(&self) -> bool {
        self.head_job.running().is_some()
    }

    /// Files dropped on the window: a project opens, a glTF becomes the head, a WAV or a viseme
    /// file goes on the timeline.
    fn dropped_files(ctx: &egui::Context, out: &mut Vec<Command>) {
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        });
        for path in dropped {
            if let Some(command) = command_for_file(path) {
                out.push(command);
            }
        }
    }

    fn shortcuts(&self, ctx: &egui::Context, out: &mut Vec<Command>) {
        let typing = ctx.egui_wants_keyboard_input();
        ctx.input_mut(|i| {
            let save = egui::KeyboardShortcut::new(egui::Modifiers::COMMAND, egui::Key::S);
            let redo = egui::KeyboardShortcut::new(
                egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
                egui::Key::Z,
            );
            let undo = egui::KeyboardShortcut::new(egui::Modifiers::COMMAND, egui::Key::Z);
            if i.consume_shortcut(&save) {
                out.push(Command::Save);
            }
            if i.consume_shortcut(&redo) {
                out.push(Command::Redo);
            }
            if i.consume_shortcut(&undo) {
                out.push(Command::Undo);
            }
            if !typing {
                if i.key_pressed(egui::Key::Space) {
                    out.push(Command::TogglePlay);
                }
                if i.key_pressed(egui::Key::ArrowLeft) {
                    out.push(Command::StepFrames(-1));
                }
                if i.key_pressed(egui::Key::ArrowRight) {
                    out.push(Command::StepFrames(1));
                }
            }
        });
    }

    fn view(&mut self, ui: &mut egui::Ui, render_state: Option<&RenderState>) {
        let head_info = self.viewport.as_ref().map(|v| {
            let (n, missing) = v.head().coverage();
            (v.head().label.clone(), n, missing)
        });
        if let Some((label, n, missing)) = head_info {
            ui.horizontal_wrapped(|ui| {
                ui.label(format!("{label}: ARKit coverage {n}/52"));
                let own = self.studio.shapes.shapes.own_targets().len();
                if n == 0 && own > 0 {
                    let set = self
                        .studio
                        .shapes
                        .set
                        .map_or_else(String::new, |s| format!(" ({})", s.label()));
                    ui.label(format!("talks on {own} shapes of its own{set}"));
                } else if !missing.is_empty() {
                    ui.colored_label(
                        ui.visuals().warn_fg_color,
                        format!("missing: {}", missing.join(", ")),
                    );
                }
            });
        }
        let size = ui.available_size();
        let (Some(rs), Some(view)) = (render_state, self.viewport.as_mut()) else {
            ui.centered_and_justified(|ui| ui.weak("No GPU view (the studio needs wgpu)."));
            return;
        };
        let ppp = ui.ctx().pixels_per_point();
        let pose = self.studio.view_pose();
        // On the Body tab the whole avatar stands as the body bake has it at the playhead,
        // when the view shows the file the body was baked from.
        let body = (self.tab == Tab::Body)
            .then(|| {
                self.studio
                    .body
                    .pose_for(&view.head().label, self.studio.timeline.playhead_ms)
            })
            .flatten();
        view.head_mut().set_shapes(&self.studio.shapes.shapes);
        let own = self.studio.view_own();
        let texture = view.draw(
            rs,
            &pose,
            &own,
            body,
            &self.studio.doc.project.scene,
            (size.x * ppp) as u32,
            (size.y * ppp) as u32,
        );
        let image = egui::Image::new(egui::load::SizedTexture::new(texture, size))
            .sense(egui::Sense::click_and_drag());
        let response = ui.add(image);
        view.shown_at = Some(response.rect);
        if response.dragged() {
            let d = response.drag_delta();
            view.orbit.drag(d.x, d.y);
        }
        if response.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if scroll != 0.0 {
                view.orbit.scroll(scroll);
            }
        }
        if response.double_clicked() {
            view.orbit = crate::head_scene::Orbit::default();
        }
    }

    fn close_guard(&mut self, ctx: &egui::Context, out: &mut Vec<Command>) {
        if ctx.input(|i| i.viewport().close_requested()) && self.studio.is_dirty() && !self.closing
        {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.confirm_close = true;
        }
        if !self.confirm_close {
            return;
        }
        egui::Window::new("Unsaved changes")
            .collapsible(false)
            .resizable(false)
            .show(ctx, |ui| {
                ui.label("The project has changes that are not saved.");
                ui.horizontal(|ui| {
                    if ui.button("Save and quit").clicked() {
                        out.push(Command::Save);
                        self.closing = true;
                        self.confirm_close = false;
                        ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                    }
                    if ui.button("Quit without saving").clicked() {
                        self.closing = true;
                        self.confirm_close = false;
                        ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                    }
                    if ui.button("Cancel").clicked() {
                        self.confirm_close = false;
                    }
                });
            });
    }

    fn take_screenshot(&mut self, ctx: &egui::Context) {
        let Some((path, left)) = self.screenshot.as_mut() else {
            return;
        };
        if *left > 0 {
            *left -= 1;
            if *left == 0 {
                let slot = self.shot.clone();
                let repaint = ctx.clone();
                ctx.send_viewport_cmd(egui::ViewportCommand::Screenshot(
                    egui::ScreenshotCallback::new(move |image| {
                        if let Ok(mut s) = slot.lock() {
                            *s = Some(image);
                        }
                        repaint.request_repaint();
                    }),
                ));
            }
            ctx.request_repaint();
            return;
        }
        let shot = self.shot.lock().ok().and_then(|mut s| s.take());
        if let Some(image) = shot {
            let [w, h] = image.size;
            let bytes: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
            let saved = image::RgbaImage::from_raw(w as u32, h as u32, bytes)
                .ok_or_else(|| "the screenshot has the wrong size".to_owned())
                .and_then(|img| img.save(&*path).map_err(|e| e.to_string()));
            match saved {
                Ok(()) => println!("screenshot written to {}", path.display()),
                Err(e) => eprintln!("npc-studio: error: cannot write {}: {e}", path.display()),
            }
            self.closing = true;
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
        ctx.request_repaint();
    }
}

/// What opening `path` means, by its extension.
#[must_use]
pub fn command_for_file(path: PathBuf) -> Option<Command> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "ron" => Some(Command::Open(path)),
        "glb" | "gltf" => Some(Command::OpenHead(path)),
        "wav" => Some(Command::OpenWav(path)),
        "json" => Some(Command::OpenVisemes(path)),
        _ => None,
    }
}

/// Starts `npc-player run` on the project (found beside this program, else on the PATH).
/// Starts the player on `project`; the studio waits on it and says how it ended.
fn run_player(studio: &mut Studio, project: &Path, simulator: bool) -> Option<PlayerChild> {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.join("npc-player")))
        .filter(|p| p.exists());
    let program = beside.unwrap_or_else(|| PathBuf::from("npc-player"));
    match PlayerChild::start(&program, project, simulator) {
        Ok(child) => {
            studio.status = Some(crate::state::Status {
                text: format!("started the player on {}", project.display()),
                error: false,
            });
            Some(child)
        }
        Err(why) => {
            studio.fail(why);
            None
        }
    }
}

impl eframe::App for StudioApp {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        let render_state = frame.wgpu_render_state().cloned();
        self.run_effects(render_state.as_ref());
        let now = Instant::now();
        let dt = self
            .last_frame
            .map_or(0.0, |t| now.duration_since(t).as_secs_f64());
        self.last_frame = Some(now);
        self.playback.step(&mut self.studio.timeline, now, dt);
        self.stream_face(&ctx, now);
        self.hear_capture(&ctx);
        self.watch_player(&ctx);
        self.studio.body.advance_idle(dt);
        let working = self.studio.poll_jobs() | self.poll_head(render_state.as_ref());
        if self.studio.timeline.playing || self.studio.body.idle_playing || working {
            ctx.request_repaint();
        }
        let mut out = Vec::new();
        self.shortcuts(&ctx, &mut out);
        Self::dropped_files(&ctx, &mut out);
        egui::Panel::top("menu").show(ui, |ui| {
            if let Some(p) = menu::bar(
                ui,
                &self.studio,
                &mut self.simulator,
                &mut self.link_text,
                &mut out,
            ) {
                let start = self.start_dir();
                self.ask.start(p, start.as_deref());
            }
            let mut jobs = self.studio.jobs();
            jobs.extend(self.head_job.running());
            if !jobs.is_empty() {
                ui.horizontal(|ui| {
                    ui.spinner();
                    for (what, since) in &jobs {
                        ui.label(format!("{what}... {:.1} s", since.as_secs_f64()));
                    }
                    if ui
                        .button("Cancel")
                        .on_hover_text("Stop waiting for this work; what it makes is dropped")
                        .clicked()
                    {
                        out.push(Command::CancelJobs);
                    }
                });
            } else if let Some(status) = &self.studio.status {
                if status.error {
                    ui.colored_label(ui.visuals().error_fg_color, &status.text);
                } else {
                    ui.label(&status.text);
                }
            }
        });
        egui::Panel::left("edit")
            .resizable(true)
            .default_size(380.0)
            .show(ui, |ui| {
                character_picker::panel(ui, &self.studio, &mut out);
                ui.horizontal(|ui| {
                    ui.selectable_value(&mut self.tab, Tab::Pose, "Pose");
                    ui.selectable_value(&mut self.tab, Tab::Visemes, "Visemes");
                    ui.selectable_value(&mut self.tab, Tab::Gaze, "Gaze");
                    ui.selectable_value(&mut self.tab, Tab::Body, "Body");
                    ui.selectable_value(&mut self.tab, Tab::Scene, "Scene");
                });
                ui.separator();
                let doc = &self.studio.doc;
                match self.tab {
                    Tab::Pose => pose::panel(ui, &doc.pose, &mut self.pose_filter, &mut out),
                    Tab::Visemes => visemes::panel(
                        ui,
                        self.studio.face(),
                        self.studio.character(),
                        &self.studio.shapes,
                        self.studio.selected_viseme,
                        &mut self.viseme_filter,
                        &mut out,
                    ),
                    Tab::Gaze => {
                        gaze::panel(ui, self.studio.face(), &self.studio.timeline, &mut out);
                        listening::gaze_section(ui, &doc.project.listen, &mut out);
                    }
                    Tab::Body => {
                        body::panel(
                            ui,
                            self.studio
                                .character()
                                .map_or(&doc.project.body, |n| doc.project.body_settings(&n.id)),
                            &self.studio.body,
                            self.studio.timeline.playhead_ms,
                            &mut out,
                        );
                        listening::body_section(ui, &doc.project.listen, &mut out);
                    }
                    Tab::Scene => scene::panel(ui, &doc.project, &mut out),
                }
            });
        egui::Panel::bottom("timeline")
            .resizable(true)
            .default_size(330.0)
            .show(ui, |ui| {
                let clips = self.studio.body.clip_names();
                if let Some(p) = timeline::panel(
                    ui,
                    &self.studio.timeline,
                    self.studio.body.bake.as_ref(),
                    timeline::Showing {
                        idle_playing: self.studio.body.idle_playing,
                        comparison: self.studio.view == ViewSource::Comparison,
                        clips: &clips,
                    },
                    &mut out,
                ) {
                    let start = self.start_dir();
                    self.ask.start(p, start.as_deref());
                }
                // Keep the panel at its size while it has little to show (no line yet), so
                // the plots have room when one comes.
                ui.allocate_space(ui.available_size());
            });
        egui::CentralPanel::default().show(ui, |ui| self.view(ui, render_state.as_ref()));
        if let Some(wizard) = &self.studio.wizard
            && let Some(p) = transfer::window(&ctx, wizard, &mut out)
        {
            let start = self.start_dir();
            self.ask.start(p, start.as_deref());
        }
        out.extend(self.ask.show(&ctx));
        self.close_guard(&ctx, &mut out);
        if out.contains(&Command::CancelJobs) {
            // The head being read is the app's job, not the studio's.
            self.head_job.cancel();
        }
        for command in self.unsaved.intercept(&self.studio, out) {
            self.studio.apply(command);
        }
        self.unsaved.show(&ctx, &mut self.studio);
        self.run_effects(render_state.as_ref());
        self.keep_recent();
        self.take_screenshot(&ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropped_files_open_by_kind() {
        let c = |p: &str| command_for_file(PathBuf::from(p));
        assert_eq!(c("a/demo.ron"), Some(Command::Open("a/demo.ron".into())));
        assert_eq!(c("head.GLB"), Some(Command::OpenHead("head.GLB".into())));
        assert_eq!(c("line.wav"), Some(Command::OpenWav("line.wav".into())));
        assert_eq!(c("v.json"), Some(Command::OpenVisemes("v.json".into())));
        assert_eq!(c("notes.txt"), None);
        assert_eq!(c("no_extension"), None);
    }
}
