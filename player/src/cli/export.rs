//! `npc-player export`: a baked or recorded line, out of the tool: Live Link Face CSV (for
//! Unreal's MetaHuman pipeline, Maya, Blender) or an avatar GLB carrying the line as an
//! animation clip (Blender, three.js, Unity, Godot).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow, bail};
use clap::ArgGroup;
use npc_core::take::{Take, TakeError, glb_with_take, write_livelink_csv};

use crate::output::write_atomically;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum ExportFormat {
    /// Live Link Face's CSV: timecode, the 52 blend shapes, head and eye rotations.
    LivelinkCsv,
    /// The avatar's GLB with the line as one more animation clip.
    Gltf,
}

#[derive(Debug, clap::Args)]
#[command(group(ArgGroup::new("from").required(true).args(["bake", "record"])))]
pub(super) struct ExportArgs {
    /// A bake's JSON (`npc-player bake --out`); with `--body` baked, the body goes too.
    #[arg(long, value_name = "FILE.json")]
    bake: Option<PathBuf>,
    /// A frame record (`--record`), of which one NPC is exported.
    #[arg(long, value_name = "FILE.jsonl", requires = "npc")]
    record: Option<PathBuf>,
    /// The NPC of the record to export.
    #[arg(long, value_name = "ID", requires = "record")]
    npc: Option<String>,
    /// Only the record's frames in which the NPC speaks this line (its `seq`).
    #[arg(long, value_name = "N", requires = "record")]
    seq: Option<u64>,
    /// What to write.
    #[arg(long, value_enum)]
    to: ExportFormat,
    /// The avatar to carry the clip (gltf); default: the built-in avatar.
    #[arg(long, value_name = "FILE.glb")]
    avatar: Option<PathBuf>,
    /// The clip's name (default: the bake's file name, or "NPC line N" for a record).
    #[arg(long)]
    name: Option<String>,
    /// Where to write (atomically; "-" for standard output).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

/// Runs the export command.
pub(super) fn run(args: &ExportArgs) -> anyhow::Result<()> {
    let mut take = read_take(args)?;
    if let Some(name) = &args.name {
        take.name.clone_from(name);
    }
    let bytes = match args.to {
        ExportFormat::LivelinkCsv => {
            if args.avatar.is_some() {
                bail!("--avatar is for --to gltf: a Live Link CSV holds no avatar");
            }
            write_livelink_csv(&take).into_bytes()
        }
        ExportFormat::Gltf => {
            let glb = match &args.avatar {
                Some(path) => std::fs::read(path)
                    .with_context(|| format!("cannot read the avatar {}", path.display()))?,
                None => {
                    npc_core::procedural::body::avatar_glb(&npc_core::procedural::head::head_parts())
                }
            };
            let place = args.avatar.as_ref().map_or_else(
                || "the built-in avatar".to_owned(),
                |p| p.display().to_string(),
            );
            glb_with_take(&glb, &take, &BTreeMap::new())
                .with_context(|| format!("cannot put the line on {place}"))?
        }
    };
    write_atomically(&args.out, &bytes)?;
    if args.out != Path::new("-") {
        println!(
            "exported {} frames ({:.0} ms at {} fps{}) as {:?} into {}",
            take.times_ms.len(),
            take.duration_ms(),
            take.fps,
            if take.body.is_some() {
                ", with the body"
            } else {
                ""
            },
            take.name,
            args.out.display()
        );
    }
    Ok(())
}

fn read_take(args: &ExportArgs) -> anyhow::Result<Take> {
    if let Some(path) = &args.bake {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the bake {}", path.display()))?;
        let name = path
            .file_stem()
            .map_or_else(|| "line".to_owned(), |s| s.to_string_lossy().into_owned());
        return Take::from_bake_json(&text, &name).map_err(|e| located(path, &e));
    }
    let (Some(path), Some(npc)) = (&args.record, &args.npc) else {
        bail!("give --bake FILE.json, or --record FILE.jsonl with --npc ID");
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the record {}", path.display()))?;
    Take::from_record(&text, npc, args.seq).map_err(|e| located(path, &e))
}

/// `FILE:LINE:COLUMN: message` for an error at a place in a file, else `FILE: message`.
fn located(path: &Path, error: &TakeError) -> anyhow::Error {
    match error {
        TakeError::At { .. } => anyhow!("{}:{error}", path.display()),
        _ => anyhow!("{}: {error}", path.display()),
    }
}
