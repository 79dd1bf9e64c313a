//! `npc-player transfer`: gives an avatar's head the 52 ARKit shapes of a head that has them
//! (the project's own by default), everything else in the file kept (docs/transfer.md).

use std::path::PathBuf;

use anyhow::Context;
use npc_core::asset::Asset;
use npc_core::transfer::{Landmarks, TransferOptions, own_head, transfer_glb};
use serde::Deserialize;

use crate::output::write_atomically;
use crate::progress::Progress;

#[derive(Debug, clap::Args)]
pub(super) struct TransferArgs {
    /// The avatar to give shapes to (GLB or VRM).
    #[arg(long, value_name = "AVATAR.glb")]
    pub(super) target: PathBuf,
    /// The head whose ARKit shapes are carried over (default: the project's own head).
    #[arg(long, value_name = "HEAD.glb")]
    pub(super) source: Option<PathBuf>,
    /// Where to write the avatar with its new shapes.
    #[arg(long, value_name = "OUT.glb")]
    pub(super) out: PathBuf,
    /// Also write what was found and measured as JSON.
    #[arg(long, value_name = "REPORT.json")]
    pub(super) report: Option<PathBuf>,
    /// Landmarks to use instead of the found ones: {"source": {NAME: [x, y, z]}, "target":
    /// {...}}, names as the report lists them.
    #[arg(long, value_name = "FILE")]
    pub(super) landmarks: Option<PathBuf>,
    /// Drop the avatar's own shapes on the meshes that get new ones (by default only those
    /// with the same names are replaced).
    #[arg(long)]
    pub(super) replace_shapes: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LandmarkFile {
    #[serde(default)]
    source: Landmarks,
    #[serde(default)]
    target: Landmarks,
}

/// Runs the transfer command.
pub(super) fn run(args: &TransferArgs) -> anyhow::Result<()> {
    let target_bytes = std::fs::read(&args.target)
        .with_context(|| format!("cannot read the avatar {}", args.target.display()))?;
    let source = match &args.source {
        Some(path) => Asset::load(path)
            .with_context(|| format!("cannot load the source head {}", path.display()))?,
        None => own_head().context("cannot build the project's own head")?,
    };
    let mut options = TransferOptions::default();
    if let Some(path) = &args.landmarks {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the landmarks {}", path.display()))?;
        let file: LandmarkFile = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a landmark file", path.display()))?;
        options.source_landmarks = file.source;
        options.target_landmarks = file.target;
    }
    let working = Progress::working(&format!("giving {} the face shapes", args.target.display()));
    let (glb, made) = transfer_glb(
        &target_bytes,
        args.target.parent(),
        &source,
        &options,
        args.replace_shapes,
    )
    .with_context(|| format!("{}", args.target.display()))?;
    drop(working);
    write_atomically(&args.out, &glb)?;
    if let Some(path) = &args.report {
        let json =
            serde_json::to_vec_pretty(&made.report).context("could not encode the report")?;
        write_atomically(path, &json)?;
    }
    let report = &made.report;
    let meshes: std::collections::BTreeSet<usize> =
        made.shapes.primitives.iter().map(|p| p.mesh).collect();
    println!(
        "{}: {} shapes on {} primitives of {} meshes",
        args.out.display(),
        made.shapes.names.len(),
        made.shapes.primitives.len(),
        meshes.len()
    );
    println!(
        "face to warped source surface: median {:.1} mm, 90% within {:.1} mm (eyes {:.0} mm apart)",
        report.surface_distance_median_mm,
        report.surface_distance_p90_mm,
        report.target_eye_distance_mm
    );
    if let Some(seam) = &report.seam {
        println!(
            "lips at the middle: gap {:.1} mm at rest, {:.1} mm with jawOpen, {:.1} mm with jawOpen and mouthClose; {} upper-lip vertices follow the jaw",
            seam.rest_gap_mm,
            seam.jaw_open_gap_mm,
            seam.jaw_open_mouth_close_gap_mm,
            seam.upper_lip_vertices_following_the_jaw
        );
    }
    for (head, guessed) in [
        ("source", &report.source_guessed),
        ("target", &report.target_guessed),
    ] {
        if !guessed.is_empty() {
            eprintln!(
                "npc-player: warning: {head} landmarks guessed from proportions: {}; check them in the report and give them with --landmarks if they are off",
                guessed.join(", ")
            );
        }
    }
    Ok(())
}
