//! `npc-player render`: frames of the world offscreen at a fixed step.

use std::path::PathBuf;

use crate::frames::{self, RenderOptions};

#[derive(Debug, clap::Args)]
pub(super) struct RenderArgs {
    /// The project file (RON).
    #[arg(long, value_name = "FILE")]
    pub(super) project: PathBuf,
    /// An agent directory whose lines the NPCs speak in the frames.
    #[arg(long, value_name = "DIR")]
    pub(super) agent_dir: Option<PathBuf>,
    /// How many frames to write.
    #[arg(long, default_value_t = 1)]
    pub(super) frames: u32,
    /// Frames per second of the animation between frames.
    #[arg(long, default_value_t = 30.0)]
    pub(super) fps: f64,
    /// Image size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720", value_parser = npc_render::parse_size)]
    pub(super) size: (u32, u32),
    /// Fixed time of day, 0-1 (0 midnight, 0.5 noon); by default the project's start time,
    /// with the clock running.
    #[arg(long, value_name = "0..1", value_parser = crate::frames::parse_time_of_day)]
    pub(super) time_of_day: Option<f64>,
    /// Frame this NPC's face closely (its speaker id).
    #[arg(long, value_name = "NPC")]
    pub(super) closeup: Option<String>,
    /// Frame this NPC's whole body (its speaker id).
    #[arg(long, value_name = "NPC", conflicts_with = "closeup")]
    pub(super) full_body: Option<String>,
    /// Replaces the project's seed, from which every NPC's face seed derives (with its id);
    /// the same seed gives the same frames.
    #[arg(long)]
    pub(super) seed: Option<u64>,
    /// Draw without the shadow pass.
    #[arg(long)]
    pub(super) no_shadows: bool,
    /// The folder to write the frames into (created if needed).
    #[arg(long, value_name = "DIR")]
    pub(super) out: PathBuf,
    /// Also write every frame's numbers (each NPC's weights, joints, line) to FILE as JSON
    /// Lines (docs/record.md).
    #[arg(long, value_name = "FILE")]
    pub(super) record: Option<PathBuf>,
    /// Draw the player's screen over the frames, as the window shows it: subtitles under the
    /// picture, names over the NPCs near the camera.
    #[arg(long)]
    pub(super) overlay: bool,
    /// Leave the subtitles out of the screen (with --overlay).
    #[arg(long)]
    pub(super) no_subtitles: bool,
    /// Samples per pixel: 4, or 1 (then, on a GPU, the main pass is drawn by visibility and a
    /// compute resolve; `NPC_RESOLVE=off` keeps the mesh passes shading, `on` resolves on a
    /// CPU rasterizer too).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=4))]
    pub(super) samples: u32,
}

pub(super) fn run(args: RenderArgs) -> anyhow::Result<()> {
    let options = RenderOptions {
        project: args.project,
        agent_dir: args.agent_dir,
        frames: args.frames,
        fps: args.fps,
        width: args.size.0,
        height: args.size.1,
        time_of_day: args.time_of_day,
        closeup: args.closeup,
        full_body: args.full_body,
        seed: args.seed,
        shadows: !args.no_shadows,
        out: args.out,
        record: args.record,
        overlay: args.overlay,
        no_subtitles: args.no_subtitles,
        samples: args.samples,
    };
    let written = frames::render(&options)?;
    println!(
        "wrote {} frame(s) to {}",
        written.len(),
        options.out.display()
    );
    Ok(())
}
