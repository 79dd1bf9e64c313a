//! The `npc-player` command line: one file per subcommand, each turning its arguments into the
//! library's option structs (library code never sees clap types).

mod agent_sim;
mod align;
mod bake;
mod bench_render;
mod capture;
mod check;
mod eval_lipsync;
mod export;
mod generate_assets;
mod inspect;
mod render;
mod replay;
mod run;
mod say;
mod transfer;
mod voice;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "npc-player", version, about = "Plays Living NPC projects")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the face animator over a line and write every stage as JSON (with --project and
    /// --npc, as that NPC performs it live).
    Bake(bake::BakeArgs),
    /// Align a recording's script to its sound: viseme events, words and phones with their
    /// times, as JSON.
    Align(align::AlignArgs),
    /// Grade lip sync against phone labels made elsewhere (MBROLA phone files, HTK and
    /// Festival label files, Praat TextGrids), per language: frames in the right mouth class, p/b/m closed, false closures,
    /// rounding onsets, speed.
    EvalLipsync(eval_lipsync::EvalLipsyncArgs),
    /// Write a baked or recorded line as Live Link Face CSV, or into an avatar as a glTF clip.
    Export(export::ExportArgs),
    /// Validate a project and every asset it references (exit 1 with one line per problem).
    Check(check::CheckArgs),
    /// Write the default content (head, avatar, scene, skies) the demo project uses.
    GenerateAssets(generate_assets::GenerateAssetsArgs),
    /// Give an avatar's head the 52 ARKit shapes of a head that has them (the project's own by
    /// default), everything else in the file kept.
    Transfer(transfer::TransferArgs),
    /// Speak a line (offline engine, or Azure with --engine azure): write the audio (WAV) and
    /// its viseme events.
    Say(say::SayArgs),
    /// Record a live capture (Live Link Face packets from the iPhone app or any sender, or a
    /// VMC sender) as a take (Live Link Face CSV).
    Capture(capture::CaptureArgs),
    /// Send a capture (Live Link Face CSV, or a glTF clip such as a Face Cap recording) live,
    /// at its own times, over Live Link Face or VMC.
    Replay(replay::ReplayArgs),
    /// Print what a glTF / GLB file holds: meshes, morph targets and ARKit coverage, skins,
    /// clips, instances, extensions.
    Inspect(inspect::InspectArgs),
    /// Play a project live: NPCs speak the lines agents write to the agent directory, in a
    /// window (or offscreen with --headless).
    Run(run::RunArgs),
    /// Draw a project's world offscreen and write DIR/frame_0000.png, ... (no window needed).
    Render(render::RenderArgs),
    /// Measure frame times with N talking NPCs (offscreen): median and p95 per frame.
    BenchRender(bench_render::BenchRenderArgs),
    /// A small agent for demos and tests: writes a scripted conversation to an agent directory,
    /// one line after the other as the player speaks them.
    AgentSim(agent_sim::AgentSimArgs),
}

/// Parses the process arguments, runs the command, and turns any error into one line on
/// stderr and a non-zero exit.
#[must_use]
pub fn main() -> ExitCode {
    npc_render::quiet_display_probe();
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

/// Runs a parsed command line. Every command is named: a new one cannot be left out.
fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Bake(args) => bake::run(&args),
        Command::Align(args) => align::run(&args),
        Command::Check(args) => check::run(&args),
        Command::EvalLipsync(args) => eval_lipsync::run(&args),
        Command::Export(args) => export::run(&args),
        Command::GenerateAssets(args) => generate_assets::run(&args),
        Command::Say(args) => say::run(&args),
        Command::Capture(args) => capture::run(&args),
        Command::Replay(args) => replay::run(&args),
        Command::Transfer(args) => transfer::run(&args),
        Command::Inspect(args) => inspect::run(&args),
        Command::Run(args) => run::run(args),
        Command::Render(args) => render::run(args),
        Command::BenchRender(args) => bench_render::run(args),
        Command::AgentSim(args) => agent_sim::run(&args),
    }
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        // A POSIX locale ("C") is no fault of the user's: the subtitles' font fallback says so
        // at every start otherwise.
        .unwrap_or_else(|_| {
            tracing_subscriber::EnvFilter::new("warn,egui_system_font_provider=error")
        });
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}
