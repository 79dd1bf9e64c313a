//! `npc-player run`: the project live against its agent directory.

use std::path::PathBuf;
use std::time::Duration;

use crate::mic::MicSource;
use crate::play::{self, PlayOptions};

#[derive(Debug, clap::Args)]
pub(super) struct RunArgs {
    /// The project file (RON).
    #[arg(long, value_name = "FILE")]
    pub(super) project: PathBuf,
    /// The agent directory to watch (default: the project's `agent_dir`).
    #[arg(long, value_name = "DIR")]
    pub(super) agent_dir: Option<PathBuf>,
    /// Also run the demo's agent simulator, writing its conversation into the agent directory.
    #[arg(long)]
    pub(super) agent_sim: bool,
    /// Run without a window (draw offscreen, or nothing with --no-render).
    #[arg(long)]
    pub(super) headless: bool,
    /// With --headless: draw no frames and load no assets (speech and scheduling only).
    #[arg(long)]
    pub(super) no_render: bool,
    /// Stop after this many seconds (headless; default: run until killed).
    #[arg(long, value_name = "SECONDS")]
    pub(super) duration: Option<f64>,
    /// Append one JSON line per line event (started, finished, rejected) to this file.
    #[arg(long, value_name = "FILE")]
    pub(super) events: Option<PathBuf>,
    /// Seconds to wait for a missing seq before moving on to the next line.
    #[arg(long, value_name = "SECONDS", default_value_t = 3.0)]
    pub(super) gap_timeout: f64,
    /// Seconds a line's speech may take to synthesise before it is passed over (refused in
    /// the events file, so its conversation goes on).
    #[arg(long, value_name = "SECONDS", default_value_t = crate::runtime::SYNTHESIS_DEADLINE.as_secs_f64())]
    pub(super) synthesis_deadline: f64,
    /// Watch this NPC's face closely instead of walking around.
    #[arg(long, value_name = "NPC")]
    pub(super) closeup: Option<String>,
    /// Window (or offscreen) size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720", value_parser = npc_render::parse_size)]
    pub(super) size: (u32, u32),
    /// Draw without the shadow pass.
    #[arg(long)]
    pub(super) no_shadows: bool,
    /// Play no sound: lines are timed by the offline clock (as on a machine without a sound
    /// device).
    #[arg(long)]
    pub(super) mute: bool,
    /// Listen to the person in front of the player on a sound device (the default input
    /// without a name, else the first whose name contains DEVICE).
    #[arg(long, value_name = "DEVICE", num_args = 0..=1, default_missing_value = "default", conflicts_with = "mic_file")]
    pub(super) mic: Option<String>,
    /// Play this recording (WAV, any rate and channels) into the microphone's path at
    /// real-time pace, as if the person spoke it.
    #[arg(long, value_name = "FILE")]
    pub(super) mic_file: Option<PathBuf>,
    /// Write every frame's numbers (each NPC's weights, joints, line) to FILE as JSON Lines
    /// (docs/record.md).
    #[arg(long, value_name = "FILE")]
    pub(super) record: Option<PathBuf>,
    /// Stream every NPC's face and body each frame to another engine: vmc://HOST:PORT (the
    /// VMC protocol; the roster's NPCs on consecutive ports from PORT) or
    /// livelink://HOST:PORT (Unreal's Live Link Face; each NPC a subject); `?hz=N` sets the
    /// rate (60 poses a second by default). Repeatable; added to the project's `streams`.
    #[arg(long = "stream", value_name = "URL", value_parser = npc_io::parse_stream)]
    pub(super) streams: Vec<npc_io::Stream>,
    /// Keep each synthesised line's audio as a WAV in DIR, named in its `line_started` event
    /// (`audio`, with `t_ms` on the stream's clock), so an engine the NPCs are streamed to
    /// can play what they say (docs/live-link.md).
    #[arg(long, value_name = "DIR")]
    pub(super) line_audio: Option<PathBuf>,
    /// Show no subtitles in the window this run (the menu's setting is kept as it is).
    #[arg(long)]
    pub(super) no_subtitles: bool,
}

pub(super) fn run(args: RunArgs) -> anyhow::Result<()> {
    let duration = match args.duration {
        Some(s) if s.is_finite() && s >= 0.0 => Some(Duration::from_secs_f64(s)),
        Some(s) => anyhow::bail!("--duration must be a number of seconds >= 0, not {s}"),
        None => None,
    };
    if !(args.gap_timeout.is_finite() && args.gap_timeout >= 0.0) {
        anyhow::bail!(
            "--gap-timeout must be a number of seconds >= 0, not {}",
            args.gap_timeout
        );
    }
    if !(args.synthesis_deadline.is_finite() && args.synthesis_deadline > 0.0) {
        anyhow::bail!(
            "--synthesis-deadline must be a number of seconds > 0, not {}",
            args.synthesis_deadline
        );
    }
    if args.no_render && !args.headless {
        anyhow::bail!("--no-render needs --headless (a window always draws)");
    }
    let mic = match (args.mic, args.mic_file) {
        (_, Some(file)) => Some(MicSource::File(file)),
        (Some(name), None) => Some(MicSource::Device((name != "default").then_some(name))),
        (None, None) => None,
    };
    if let Some(MicSource::File(file)) = &mic {
        npc_core::speech::wav::read_mono(file).map_err(|e| {
            anyhow::anyhow!("--mic-file {}: cannot be read as WAV ({e})", file.display())
        })?;
    }
    if mic.is_some() && args.no_render {
        anyhow::bail!(
            "--mic and --mic-file need the world (whom the person speaks to depends on where \
             everyone stands): leave out --no-render"
        );
    }
    play::run(PlayOptions {
        mic,
        project: args.project,
        agent_dir: args.agent_dir,
        agent_sim: args.agent_sim,
        headless: args.headless,
        no_render: args.no_render,
        duration,
        events: args.events,
        gap_timeout: Duration::from_secs_f64(args.gap_timeout),
        synthesis_deadline: Duration::from_secs_f64(args.synthesis_deadline),
        closeup: args.closeup,
        width: args.size.0,
        height: args.size.1,
        shadows: !args.no_shadows,
        sound: !args.mute,
        record: args.record,
        streams: args.streams,
        line_audio: args.line_audio,
        no_subtitles: args.no_subtitles,
    })
}
