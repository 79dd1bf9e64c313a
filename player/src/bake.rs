//! `npc-player bake`: the shared face animator over a track, every stage as JSON.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use npc_core::face::FaceSettings;
use npc_core::lipsync::{Loudness, VisemeEvent, VisemeTrack};
use npc_core::project::Project;
use npc_core::speech::analysis::{AnalysisSettings, analyse, track_from_analysis};
use npc_core::speech::wav;
use npc_core::timeline::{self, BakeOptions, BakeReport};

use crate::cli::BakeArgs;
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
    if let Some(path) = &args.visemes {
        return Ok(Source {
            track: read_track(path)?,
            audio: None,
            audio_ms: None,
            loudness: None,
        });
    }
    if let Some(text) = &args.text {
        let utterance = say::speak(text, &args.voice.voice())?;
        let wav_path = audio_path(&args.out);
        if let Some(wav_path) = &wav_path {
            say::write_wav(wav_path, &utterance)?;
        }
        let samples: Vec<f32> = utterance
            .pcm
            .iter()
            .map(|&s| f32::from(s) / 32768.0)
            .collect();
        return Ok(Source {
            loudness: Some(Loudness::from_samples(&samples, utterance.sample_rate)),
            audio_ms: Some(utterance.duration_ms()),
            track: VisemeTrack::from_events(utterance.visemes)?,
            audio: wav_path,
        });
    }
    if let Some(path) = &args.audio {
        let (samples, rate) = wav::read_mono(path)
            .with_context(|| format!("cannot read audio {}", path.display()))?;
        let settings = AnalysisSettings::default();
        let events = track_from_analysis(&analyse(&samples, rate, &settings), &settings);
        return Ok(Source {
            track: VisemeTrack::from_events(events)?,
            audio: Some(path.clone()),
            audio_ms: Some(samples.len() as f64 * 1000.0 / f64::from(rate.max(1))),
            loudness: Some(Loudness::from_samples(&samples, rate)),
        });
    }
    bail!("give --visemes FILE, --text TEXT or --audio FILE.wav")
}

/// The WAV written beside a bake's JSON (`out.json` -> `out.wav`); none for stdout.
fn audio_path(out: &Path) -> Option<PathBuf> {
    (out != Path::new("-")).then(|| out.with_extension("wav"))
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
