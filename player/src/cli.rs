//! The `npc-player` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgGroup, Parser, Subcommand};

use crate::{agent_sim, bake, bench_render, check, frames, generate, inspect, play, say};

#[derive(Debug, Parser)]
#[command(name = "npc-player", version, about = "Plays Living NPC projects")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the face animator over a viseme track and write every stage as JSON.
    #[command(group(ArgGroup::new("source").required(true).args(["visemes", "text", "audio"])))]
    Bake(BakeArgs),
    /// Validate a project and every asset it references (exit 1 with one line per problem).
    Check {
        /// The project file (RON).
        #[arg(long, value_name = "FILE")]
        project: PathBuf,
    },
    /// Write the default content (head, avatar, scene, skies) the demo project uses.
    GenerateAssets {
        /// The folder to write into (created if needed).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Speak a line (offline engine, or Azure with --engine azure): write the audio (WAV) and
    /// its viseme events.
    Say(SayArgs),
    /// Print what a glTF / GLB file holds: meshes, morph targets and ARKit coverage, skins,
    /// clips, instances, extensions.
    Inspect {
        /// The .gltf or .glb file.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// List every joint of every skin (the text sums each skin up otherwise).
        #[arg(long)]
        verbose: bool,
    },
    /// Play a project live: NPCs speak the lines agents write to the agent directory, in a
    /// window (or offscreen with --headless).
    Run(RunArgs),
    /// Draw a project's world offscreen and write DIR/frame_0000.png, ... (no window needed).
    Render(RenderArgs),
    /// Measure frame times with N talking NPCs (offscreen): median and p95 per frame.
    BenchRender(BenchRenderArgs),
    /// A small agent for demos and tests: writes a scripted conversation to an agent directory,
    /// one line after the other as the player speaks them.
    AgentSim(AgentSimArgs),
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The project file (RON).
    #[arg(long, value_name = "FILE")]
    pub project: PathBuf,
    /// The agent directory to watch (default: the project's `agent_dir`).
    #[arg(long, value_name = "DIR")]
    pub agent_dir: Option<PathBuf>,
    /// Also run the demo's agent simulator, writing its conversation into the agent directory.
    #[arg(long)]
    pub agent_sim: bool,
    /// Run without a window (draw offscreen, or nothing with --no-render).
    #[arg(long)]
    pub headless: bool,
    /// With --headless: draw no frames and load no assets (speech and scheduling only).
    #[arg(long)]
    pub no_render: bool,
    /// Stop after this many seconds (headless; default: run until killed).
    #[arg(long, value_name = "SECONDS")]
    pub duration: Option<f64>,
    /// Append one JSON line per line event (started, finished, rejected) to this file.
    #[arg(long, value_name = "FILE")]
    pub events: Option<PathBuf>,
    /// Seconds to wait for a missing seq before moving on to the next line.
    #[arg(long, value_name = "SECONDS", default_value_t = 3.0)]
    pub gap_timeout: f64,
    /// Watch this NPC's face closely instead of walking around.
    #[arg(long, value_name = "NPC")]
    pub closeup: Option<String>,
    /// Window (or offscreen) size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720", value_parser = crate::frames::parse_size)]
    pub size: (u32, u32),
    /// Draw without the shadow pass.
    #[arg(long)]
    pub no_shadows: bool,
    /// Play no sound: lines are timed by the offline clock (as on a machine without a sound
    /// device).
    #[arg(long)]
    pub mute: bool,
    /// Write every frame's numbers (each NPC's weights, joints, line) to FILE as JSON Lines
    /// (docs/record.md).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// The project file (RON).
    #[arg(long, value_name = "FILE")]
    pub project: PathBuf,
    /// An agent directory whose lines the NPCs speak in the frames.
    #[arg(long, value_name = "DIR")]
    pub agent_dir: Option<PathBuf>,
    /// How many frames to write.
    #[arg(long, default_value_t = 1)]
    pub frames: u32,
    /// Frames per second of the animation between frames.
    #[arg(long, default_value_t = 30.0)]
    pub fps: f64,
    /// Image size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720", value_parser = crate::frames::parse_size)]
    pub size: (u32, u32),
    /// Fixed time of day, 0-1 (0 midnight, 0.5 noon); by default the project's start time,
    /// with the clock running.
    #[arg(long, value_name = "0..1")]
    pub time_of_day: Option<f64>,
    /// Frame this NPC's face closely (its speaker id).
    #[arg(long, value_name = "NPC")]
    pub closeup: Option<String>,
    /// Replaces the project's seed, from which every NPC's face seed derives (with its id);
    /// the same seed gives the same frames.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Draw without the shadow pass.
    #[arg(long)]
    pub no_shadows: bool,
    /// The folder to write the frames into (created if needed).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Also write every frame's numbers (each NPC's weights, joints, line) to FILE as JSON
    /// Lines (docs/record.md).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct BenchRenderArgs {
    /// The project file (RON); its roster is repeated to make the crowd.
    #[arg(long, value_name = "FILE")]
    pub project: PathBuf,
    /// How many NPCs.
    #[arg(long, default_value_t = 10)]
    pub npcs: usize,
    /// Frames to measure (after 10 warm-up frames).
    #[arg(long, default_value_t = 200)]
    pub frames: u32,
    /// Image size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1920x1080", value_parser = crate::frames::parse_size)]
    pub size: (u32, u32),
    /// Without the shadow pass.
    #[arg(long)]
    pub no_shadows: bool,
    /// Force this many active morph targets per face mesh.
    #[arg(long, value_name = "K")]
    pub active_targets: Option<usize>,
    /// Samples per pixel: 4 (the player's) or 1.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=4))]
    pub samples: u32,
}

#[derive(Debug, clap::Args)]
pub struct AgentSimArgs {
    /// The agent directory to write to (must exist).
    #[arg(long, value_name = "DIR")]
    pub agent_dir: PathBuf,
    /// The script (JSON); by default the demo's (projects/demo-script.json).
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,
    /// Speed factor: the per-line timeout is 30 s / speed.
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
}

#[derive(Debug, clap::Args)]
pub struct BakeArgs {
    /// Viseme events as JSON: [{"id": 21, "offset_ms": 120}, ...].
    #[arg(long, value_name = "FILE")]
    pub visemes: Option<PathBuf>,
    /// A line of text to speak with the offline engine; its audio is written beside --out.
    #[arg(long, value_name = "TEXT")]
    pub text: Option<String>,
    #[command(flatten)]
    pub voice: VoiceArgs,
    /// A recorded line (WAV) to lip-sync from its sound alone.
    #[arg(long, value_name = "FILE.wav")]
    pub audio: Option<PathBuf>,
    /// Project file whose face settings (viseme table, lip sync, gaze, blink) to use.
    #[arg(long, value_name = "FILE")]
    pub project: Option<PathBuf>,
    /// Bake as this NPC of the project performs the line live: its voice and its face seed.
    #[arg(long, value_name = "ID", requires = "project")]
    pub npc: Option<String>,
    /// Frames per second of the bake.
    #[arg(long, default_value_t = 60.0)]
    pub fps: f64,
    /// Seed for gaze and blinks (default: the NPC's face seed with --npc, else 0); the same
    /// seed gives the same bytes.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Whether the face is speaking (gaze looks away more) or listening.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub speaking: bool,
    /// Where to write the JSON ("-" for standard output).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Also print a text chart of the final weights of a few targets.
    #[arg(long)]
    pub plot: bool,
}

/// Which voice speaks.
#[derive(Debug, clap::Args)]
pub struct VoiceArgs {
    /// A voice name of the engine (e.g. "en-us+f3"); by default one for --gender.
    #[arg(long, value_name = "NAME")]
    pub voice: Option<String>,
    /// Gender of the default voice.
    #[arg(long, value_enum, default_value_t = GenderArg::Female)]
    pub gender: GenderArg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GenderArg {
    Female,
    Male,
}

impl VoiceArgs {
    #[must_use]
    pub fn voice(&self) -> npc_core::project::Voice {
        npc_core::project::Voice {
            gender: match self.gender {
                GenderArg::Female => npc_core::project::Gender::Female,
                GenderArg::Male => npc_core::project::Gender::Male,
            },
            name: self.voice.clone(),
            ..npc_core::project::Voice::default()
        }
    }
}

/// Which speech engine `say` uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineArg {
    /// espeak-ng on this machine.
    Offline,
    /// Azure Speech; the key from AZURE_SPEECH_KEY.
    Azure,
}

#[derive(Debug, clap::Args)]
pub struct SayArgs {
    /// The line to speak.
    #[arg(long)]
    pub text: String,
    /// The speech engine.
    #[arg(long, value_enum, default_value_t = EngineArg::Offline)]
    pub engine: EngineArg,
    /// The Azure region (AZURE_SPEECH_REGION overrides it).
    #[arg(long, default_value = "westeurope")]
    pub region: String,
    #[command(flatten)]
    pub voice: VoiceArgs,
    /// Where to write the audio (16-bit mono WAV).
    #[arg(long, value_name = "FILE.wav")]
    pub out: PathBuf,
    /// Where to write the viseme events as JSON ([{"id", "offset_ms"}]).
    #[arg(long, value_name = "FILE.json")]
    pub visemes_out: Option<PathBuf>,
}

/// Parses the process arguments, runs the command, and turns any error into one line on
/// stderr and a non-zero exit.
#[must_use]
pub fn main() -> ExitCode {
    crate::render::gpu::quiet_display_probe();
    init_logging();
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("npc-player: error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Parses `args` (program name first) and runs them, as `main` does, but returning the error.
pub fn run_from<I, T>(args: I) -> anyhow::Result<()>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    run(Cli::try_parse_from(args)?)
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Bake(args) => bake::run(&args),
        Command::Inspect {
            file,
            json,
            verbose,
        } => inspect::run(&file, json, verbose),
        Command::Check { project } => check::run(&project),
        Command::Say(args) => say::run(&args),
        Command::GenerateAssets { out } => generate::run(&out),
        Command::Run(args) => {
            let duration = match args.duration {
                Some(s) if s.is_finite() && s >= 0.0 => Some(std::time::Duration::from_secs_f64(s)),
                Some(s) => anyhow::bail!("--duration must be a number of seconds >= 0, not {s}"),
                None => None,
            };
            if !(args.gap_timeout.is_finite() && args.gap_timeout >= 0.0) {
                anyhow::bail!(
                    "--gap-timeout must be a number of seconds >= 0, not {}",
                    args.gap_timeout
                );
            }
            if args.no_render && !args.headless {
                anyhow::bail!("--no-render needs --headless (a window always draws)");
            }
            play::run(play::PlayOptions {
                project: args.project,
                agent_dir: args.agent_dir,
                agent_sim: args.agent_sim,
                headless: args.headless,
                no_render: args.no_render,
                duration,
                events: args.events,
                gap_timeout: std::time::Duration::from_secs_f64(args.gap_timeout),
                closeup: args.closeup,
                width: args.size.0,
                height: args.size.1,
                shadows: !args.no_shadows,
                sound: !args.mute,
                record: args.record,
            })
        }
        Command::Render(args) => {
            let options = frames::RenderOptions {
                project: args.project,
                agent_dir: args.agent_dir,
                frames: args.frames,
                fps: args.fps,
                width: args.size.0,
                height: args.size.1,
                time_of_day: args.time_of_day,
                closeup: args.closeup,
                seed: args.seed,
                shadows: !args.no_shadows,
                out: args.out,
                record: args.record,
            };
            let written = frames::render(&options)?;
            println!(
                "wrote {} frame(s) to {}",
                written.len(),
                options.out.display()
            );
            Ok(())
        }
        Command::BenchRender(args) => {
            let report = bench_render::run(&bench_render::BenchOptions {
                project: args.project,
                npcs: args.npcs,
                frames: args.frames.max(1),
                width: args.size.0,
                height: args.size.1,
                shadows: !args.no_shadows,
                samples: args.samples,
                active_targets: args.active_targets,
            })?;
            println!("{}", report.text());
            Ok(())
        }
        Command::AgentSim(args) => {
            agent_sim::run(&args.agent_dir, args.script.as_deref(), args.speed)
        }
    }
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}
