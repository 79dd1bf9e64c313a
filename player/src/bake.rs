//! `npc-player bake`: the shared face animator over a track, every stage as JSON.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use npc_core::face::FaceSettings;
use npc_core::lipsync::{Loudness, VisemeTrack};
use npc_core::project::Project;
use npc_core::timeline::{self, BakeOptions, BakeReport};

use crate::cli::BakeArgs;
use crate::line_source::LineSource;
pub use crate::line_source::read_track;
use crate::output::write_atomically;
use crate::{plot, say};

/// Runs the bake command.
pub fn run(args: &BakeArgs) -> anyhow::Result<()> {
    let settings = match &args.project {
        Some(path) => Project::load(path)?.face,
        None => FaceSettings::default(),
    };
    let source = read_source(args)?;
    let track = source.track;
    let options = BakeOptions {
        fps: args.fps,
        seed: args.seed,
        speaking: args.speaking,
        // Cover the whole audio when there is some, and the settling after the last viseme.
        duration_ms: source
            .audio_ms
            .map(|ms| ms.max(track.last_offset_ms() + timeline::TAIL_MS)),
        loudness: source.loudness,
    };
    let audio = source.audio;
    let bake = timeline::bake(&settings, &track, &options)?;
    let mut report = BakeReport::new(&bake, &track, &settings.table, &options);
    report.audio = audio.as_ref().map(|p| p.display().to_string());
    let json = serde_json::to_vec(&report).context("could not encode the bake as JSON")?;
    write_atomically(&args.out, &json)?;
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

/// Where a bake's visemes came from.
struct Source {
    track: VisemeTrack,
    /// The WAV that goes with the track, and its length.
    audio: Option<PathBuf>,
    audio_ms: Option<f64>,
    /// Loudness of that audio, for the jaw.
    loudness: Option<Loudness>,
}

fn read_source(args: &BakeArgs) -> anyhow::Result<Source> {
    let (line, audio) = if let Some(path) = &args.visemes {
        (LineSource::from_visemes(path)?, None)
    } else if let Some(text) = &args.text {
        let line = LineSource::from_text(text, &args.voice.voice())?;
        let wav_path = audio_path(&args.out);
        if let (Some(wav_path), Some(utterance)) = (&wav_path, &line.utterance) {
            say::write_wav(wav_path, utterance)?;
        }
        (line, wav_path)
    } else if let Some(path) = &args.audio {
        (LineSource::from_wav(path)?, Some(path.clone()))
    } else {
        bail!("give --visemes FILE, --text TEXT or --audio FILE.wav")
    };
    Ok(Source {
        audio_ms: line.audio_ms(),
        track: line.track,
        audio,
        loudness: line.loudness,
    })
}

/// The WAV written beside a bake's JSON (`out.json` -> `out.wav`); none for stdout.
fn audio_path(out: &Path) -> Option<PathBuf> {
    (out != Path::new("-")).then(|| out.with_extension("wav"))
}
