//! `npc-player bake`: the shared face animator over a track, every stage as JSON.

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, bail};
use npc_core::face::FaceSettings;
use npc_core::lipsync::{VisemeEvent, VisemeTrack};
use npc_core::project::Project;
use npc_core::timeline::{self, BakeOptions, BakeReport};

use crate::cli::BakeArgs;
use crate::plot;

/// Runs the bake command.
pub fn run(args: &BakeArgs) -> anyhow::Result<()> {
    let settings = match &args.project {
        Some(path) => Project::load(path)?.face,
        None => FaceSettings::default(),
    };
    let track = match (&args.visemes, &args.text) {
        (Some(path), _) => read_track(path)?,
        (None, Some(_)) => bail!(
            "--text needs a speech engine, which this build does not have yet; \
             pass the line's visemes with --visemes FILE"
        ),
        (None, None) => bail!("give --visemes FILE or --text TEXT"),
    };
    let options = BakeOptions {
        fps: args.fps,
        seed: args.seed,
        speaking: args.speaking,
        duration_ms: None,
    };
    let bake = timeline::bake(&settings, &track, &options)?;
    let report = BakeReport::new(&bake, &track, &settings.table, &options);
    let json = serde_json::to_vec(&report).context("could not encode the bake as JSON")?;
    write_output(&args.out, &json)?;
    if args.plot {
        let closures = track.events().iter().filter(|e| e.id.is_bilabial()).count();
        println!(
            "baked {} frames at {} fps ({:.0} ms, {} visemes, {} lip closures) into {}",
            bake.frames.len(),
            options.fps,
            report.duration_ms,
            track.events().len(),
            closures,
            args.out.display()
        );
        print!(
            "{}",
            plot::strip_chart(&bake, &track, settings.lipsync.lead_ms, 100)
        );
    }
    Ok(())
}

/// Reads a viseme track from JSON: `[{"id": 21, "offset_ms": 120}, ...]`.
pub fn read_track(path: &Path) -> anyhow::Result<VisemeTrack> {
    let text = fs::read_to_string(path)
        .with_context(|| format!("cannot read viseme file {}", path.display()))?;
    let events: Vec<VisemeEvent> = serde_json::from_str(&text).map_err(|e| {
        let location = format!(" at line {} column {}", e.line(), e.column());
        let message = e.to_string().replace(&location, "");
        anyhow::anyhow!("{}:{}:{}: {message}", path.display(), e.line(), e.column())
    })?;
    VisemeTrack::from_events(events).with_context(|| format!("{}", path.display()))
}

/// Writes `bytes` to `path` atomically ("-" writes to standard output).
fn write_output(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)?;
        out.write_all(b"\n")?;
        return Ok(());
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        bail!(
            "cannot write {}: the folder {} does not exist",
            path.display(),
            dir.display()
        );
    }
    let write = || -> std::io::Result<()> {
        let mut temp = tempfile::NamedTempFile::new_in(dir)?;
        temp.write_all(bytes)?;
        temp.persist(path).map_err(|e| e.error)?;
        Ok(())
    };
    write().with_context(|| format!("cannot write {}", path.display()))
}
