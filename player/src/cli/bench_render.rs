//! `npc-player bench-render`: frame times with a crowd of talking NPCs.

use std::path::PathBuf;

use crate::bench_render::{self, BenchOptions};

#[derive(Debug, clap::Args)]
pub(super) struct BenchRenderArgs {
    /// The project file (RON); its roster is repeated to make the crowd.
    #[arg(long, value_name = "FILE")]
    pub(super) project: PathBuf,
    /// How many NPCs.
    #[arg(long, default_value_t = 10)]
    pub(super) npcs: usize,
    /// Frames to measure (after 10 warm-up frames).
    #[arg(long, default_value_t = 200)]
    pub(super) frames: u32,
    /// Image size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1920x1080", value_parser = npc_render::parse_size)]
    pub(super) size: (u32, u32),
    /// Without the shadow pass.
    #[arg(long)]
    pub(super) no_shadows: bool,
    /// Force this many active morph targets per face mesh.
    #[arg(long, value_name = "K")]
    pub(super) active_targets: Option<usize>,
    /// Samples per pixel: 4 (the player's) or 1.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=4))]
    pub(super) samples: u32,
    /// Record every frame to FILE as `run --record` does, to measure what recording costs.
    #[arg(long, value_name = "FILE")]
    pub(super) record: Option<PathBuf>,
    /// Animate every NPC every frame (far ones otherwise animate at 30 or 15 per second).
    #[arg(long)]
    pub(super) full_rate: bool,
    /// Work out every NPC's face and hands in full (far ones otherwise smooth their mouths
    /// coarsely and rest their fingers and feet).
    #[arg(long)]
    pub(super) full_detail: bool,
    /// Where each coarser level of detail begins, metres for a 60 degree lens, comma
    /// separated (the player's: 4,9,20,40); for timing the levels.
    #[arg(long, value_name = "M,M,M,M", value_delimiter = ',')]
    pub(super) lod_distances: Option<Vec<f32>>,
    /// Time the sustained frames on one thread, recording each frame after preparing it (the
    /// player records on a render thread while it prepares the next).
    #[arg(long)]
    pub(super) one_thread: bool,
}

pub(super) fn run(args: BenchRenderArgs) -> anyhow::Result<()> {
    let report = bench_render::run(&BenchOptions {
        project: args.project,
        npcs: args.npcs,
        frames: args.frames.max(1),
        width: args.size.0,
        height: args.size.1,
        shadows: !args.no_shadows,
        samples: args.samples,
        active_targets: args.active_targets,
        record: args.record,
        reduced_rates: !args.full_rate,
        reduced_detail: !args.full_detail,
        render_thread: !args.one_thread,
        lod_distances: args
            .lod_distances
            .map(|d| {
                <[f32; npc_render::LOD_COUNT - 1]>::try_from(d).map_err(|d| {
                    anyhow::anyhow!(
                        "--lod-distances takes {} distances, not {}",
                        npc_render::LOD_COUNT - 1,
                        d.len()
                    )
                })
            })
            .transpose()?,
    })?;
    println!("{}", report.text());
    Ok(())
}
