//! `npc-studio [PROJECT] [--speak TEXT | --listen FILE.wav | --wav FILE.wav]
//! [--compare CAPTURE | --capture-from URL]
//! [--screenshot FILE]`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use npc_core::project::Project;
use npc_studio::app::{StudioApp, Tab};
use npc_studio::recent::RecentStore;
use npc_studio::state::Studio;

#[derive(Debug, Parser)]
#[command(
    name = "npc-studio",
    version,
    about = "Pose, tune and play talking faces"
)]
struct Args {
    /// The project to open (RON); a new project when absent.
    project: Option<PathBuf>,
    /// Save a PNG of the window once it has settled, then exit.
    #[arg(long, value_name = "FILE.png")]
    screenshot: Option<PathBuf>,
    /// Speak this line onto the timeline at start (offline speech).
    #[arg(long, value_name = "TEXT")]
    speak: Option<String>,
    /// Play this recording as the person speaking to the character, which listens to it on
    /// the timeline.
    #[arg(long, value_name = "FILE.wav", conflicts_with = "speak")]
    listen: Option<PathBuf>,
    /// Open this recording as the line at start, lip-synced from its sound alone (as "Open
    /// WAV or visemes..." does).
    #[arg(long, value_name = "FILE.wav", conflicts_with_all = ["speak", "listen"])]
    wav: Option<PathBuf>,
    /// Stream the character's face, as the 3D view shows it, to another engine from the start:
    /// livelink://HOST:PORT or vmc://HOST:PORT.
    #[arg(long, value_name = "URL")]
    stream: Option<String>,
    /// Lay this capture (Live Link Face CSV, glTF weights animation) under the line at start.
    #[arg(long, value_name = "FILE", conflicts_with = "capture_from")]
    compare: Option<PathBuf>,
    /// Listen for a live capture from the start (livelink://0.0.0.0:11111 for the Live Link
    /// Face app, vmc://0.0.0.0:39539) and lay it under the line as it arrives.
    #[arg(long, value_name = "URL")]
    capture_from: Option<String>,
    /// The tab shown at start.
    #[arg(long, value_enum, default_value = "pose")]
    tab: StartTab,
    /// Window size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1440x900", value_parser = npc_render::parse_size)]
    size: (u32, u32),
}

/// The left panel's tab at start.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum StartTab {
    Pose,
    Visemes,
    Gaze,
    Body,
    Scene,
}

impl From<StartTab> for Tab {
    fn from(t: StartTab) -> Self {
        match t {
            StartTab::Pose => Self::Pose,
            StartTab::Visemes => Self::Visemes,
            StartTab::Gaze => Self::Gaze,
            StartTab::Body => Self::Body,
            StartTab::Scene => Self::Scene,
        }
    }
}

fn main() -> ExitCode {
    npc_render::quiet_display_probe();
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    let args = Args::parse();
    let studio = match &args.project {
        Some(path) => match Project::load(path) {
            Ok(project) => Studio::new(project, Some(path.clone())),
            Err(e) => {
                eprintln!("npc-studio: {e} (npc-studio with no project starts a new one)");
                return ExitCode::FAILURE;
            }
        },
        None => Studio::new(Project::default(), None),
    };
    let mut studio = studio;
    if let Some(text) = &args.speak {
        studio.apply(npc_studio::command::Command::SetLineText(text.clone()));
        studio.apply(npc_studio::command::Command::SpeakLine);
        studio.finish_jobs();
        studio.apply(npc_studio::command::Command::Seek(900.0));
    }
    if let Some(wav) = &args.wav {
        studio.apply(npc_studio::command::Command::OpenWav(wav.clone()));
        studio.finish_jobs();
        studio.apply(npc_studio::command::Command::Seek(900.0));
    }
    if let Some(wav) = &args.listen {
        studio.apply(npc_studio::command::Command::ListenTo(wav.clone()));
        studio.finish_jobs();
        studio.apply(npc_studio::command::Command::Seek(1_200.0));
    }
    if let Some(url) = &args.stream {
        studio.apply(npc_studio::command::Command::StreamTo(Some(url.clone())));
    }
    if let Some(url) = &args.capture_from {
        studio.apply(npc_studio::command::Command::ListenForCapture(Some(
            url.clone(),
        )));
    }
    if let Some(capture) = &args.compare {
        studio.apply(npc_studio::command::Command::OpenComparison(
            capture.clone(),
        ));
    }
    let options = eframe::NativeOptions {
        renderer: eframe::Renderer::Wgpu,
        viewport: egui::ViewportBuilder::default()
            .with_title("Living NPC Studio")
            .with_inner_size([args.size.0 as f32, args.size.1 as f32]),
        wgpu_options: wgpu_options(),
        ..eframe::NativeOptions::default()
    };
    let screenshot = args.screenshot.clone();
    let tab = Tab::from(args.tab);
    let result = eframe::run_native(
        "Living NPC Studio",
        options,
        Box::new(move |_cc| {
            let mut app = StudioApp::new(studio, screenshot.clone());
            app.tab = tab;
            if screenshot.is_some() {
                // A picture for the docs: no dialogs, and no changes to the user's files.
                app = app.with_typed_paths();
            } else if let Some(store) = RecentStore::in_config_dir() {
                app = app.with_recent_store(store);
            }
            Ok(Box::new(app))
        }),
    );
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!(
                "npc-studio: error: cannot open the studio window: {e}. It needs a display (on a \
                 server, run it under xvfb-run) and a GPU or software Vulkan."
            );
            ExitCode::FAILURE
        }
    }
}

/// eframe's wgpu device, asked for its adapter's own limits (the 3D view needs more than
/// eframe asks for).
fn wgpu_options() -> eframe::egui_wgpu::WgpuConfiguration {
    let config = eframe::egui_wgpu::WgpuConfiguration::default();
    eframe::egui_wgpu::WgpuConfiguration {
        wgpu_setup: npc_studio::viewport::with_adapter_limits(config.wgpu_setup.clone()),
        ..config
    }
}
