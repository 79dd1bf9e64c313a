//! `npc-player bake`: the shared face animator over a line, every stage as JSON. With
//! `--project P --npc ID` the line is baked as that NPC performs it live: its voice, the
//! project's face settings and the NPC's face seed.

use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow, bail};
use npc_core::LineCue;
use npc_core::face::FaceSettings;
use npc_core::project::{Npc, Project};
use npc_core::timeline::{self, BakeOptions, BakeReport};

use crate::cli::BakeArgs;
use crate::line_source::LineSource;
pub use crate::line_source::read_track;
use crate::output::write_atomically;
use crate::{plot, say};

/// Runs the bake command.
pub fn run(args: &BakeArgs) -> anyhow::Result<()> {
    let project = match &args.project {
        Some(path) => Some(Project::load(path)?),
        None => None,
    };
    let npc = match (&args.npc, &project) {
        (Some(id), Some(project)) => Some(find_npc(project, id)?),
        (Some(_), None) => bail!("--npc needs --project (the NPC is one of the project's roster)"),
        (None, _) => None,
    };
    let settings = project
        .as_ref()
        .map_or_else(FaceSettings::default, |p| p.face.clone());
    let seed = match (args.seed, &project, npc) {
        (Some(seed), _, _) => seed,
        (None, Some(project), Some(npc)) => project.face_seed(&npc.id),
        (None, _, _) => 0,
    };
    let voice = npc.map_or_else(|| args.voice.voice(), |n| n.voice.clone());
    let (line, audio) = read_source(args, &voice)?;
    let cue = line.cue;
    let options = BakeOptions {
        fps: args.fps,
        seed,
        speaking: args.speaking,
        duration_ms: None,
    };
    let bake = timeline::bake(&settings, &cue, &options)?;
    let mut report = BakeReport::new(&bake, &cue.track, &settings.table, &options);
    report.audio = audio.as_ref().map(|p| p.display().to_string());
    report.npc = npc.map(|n| n.id.clone());
    let json = serde_json::to_vec(&report).context("could not encode the bake as JSON")?;
    write_atomically(&args.out, &json)?;
    if args.plot {
        print_chart(&bake, &cue, &settings, &report, args);
    }
    Ok(())
}

fn find_npc<'a>(project: &'a Project, id: &str) -> anyhow::Result<&'a Npc> {
    project.npcs.iter().find(|n| n.id == id).ok_or_else(|| {
        let ids: Vec<&str> = project.npcs.iter().map(|n| n.id.as_str()).collect();
        anyhow!(
            "--npc {id}: no such NPC in the project (its roster: {})",
            if ids.is_empty() {
                "empty".to_owned()
            } else {
                ids.join(", ")
            }
        )
    })
}

fn print_chart(
    bake: &timeline::Bake,
    cue: &LineCue,
    settings: &FaceSettings,
    report: &BakeReport<'_>,
    args: &BakeArgs,
) {
    let track = &cue.track;
    let closures = track.events().iter().filter(|e| e.id.is_bilabial()).count();
    println!(
        "baked {} frames at {} fps ({:.0} ms, {} visemes, {} lip closures) into {}",
        bake.frames.len(),
        args.fps,
        report.duration_ms,
        track.events().len(),
        closures,
        args.out.display()
    );
    print!(
        "{}",
        plot::strip_chart(bake, track, settings.lipsync.lead_ms, 100)
    );
}

/// The line to bake and the WAV that goes with it.
fn read_source(
    args: &BakeArgs,
    voice: &npc_core::project::Voice,
) -> anyhow::Result<(LineSource, Option<PathBuf>)> {
    if let Some(path) = &args.visemes {
        Ok((LineSource::from_visemes(path)?, None))
    } else if let Some(text) = &args.text {
        let line = LineSource::from_text(text, voice)?;
        let wav_path = audio_path(&args.out);
        if let (Some(wav_path), Some(utterance)) = (&wav_path, &line.utterance) {
            say::write_wav(wav_path, utterance)?;
        }
        Ok((line, wav_path))
    } else if let Some(path) = &args.audio {
        Ok((LineSource::from_wav(path)?, Some(path.clone())))
    } else {
        bail!("give --visemes FILE, --text TEXT or --audio FILE.wav")
    }
}

/// The WAV written beside a bake's JSON (`out.json` -> `out.wav`); none for stdout.
fn audio_path(out: &Path) -> Option<PathBuf> {
    (out != Path::new("-")).then(|| out.with_extension("wav"))
}
