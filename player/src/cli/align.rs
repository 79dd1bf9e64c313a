//! `npc-player align`: a recording and its script, the script's phones aligned to the sound
//! (docs/align.md); writes Azure-style viseme events, the words and the phones with their
//! start and end.

use std::path::PathBuf;

use anyhow::{Context, bail};
use npc_core::speech::{OfflineEngine, SpeechEngine, align, wav};
use serde::Serialize;

use super::voice::VoiceArgs;
use crate::output::write_atomically;
use crate::progress::Progress;

#[derive(Debug, clap::Args)]
pub(super) struct AlignArgs {
    /// The recording (WAV).
    #[arg(long, value_name = "FILE.wav")]
    pub(super) audio: PathBuf,
    /// What is said in it.
    #[arg(
        long,
        value_name = "TEXT",
        required_unless_present = "text_file",
        conflicts_with = "text_file"
    )]
    pub(super) text: Option<String>,
    /// ... or a file holding it.
    #[arg(long, value_name = "FILE")]
    pub(super) text_file: Option<PathBuf>,
    /// The voice the script is spoken in to align it (its language picks the phones).
    #[command(flatten)]
    pub(super) voice: VoiceArgs,
    /// Where to write the JSON ("-" for standard output).
    #[arg(long, value_name = "FILE")]
    pub(super) out: PathBuf,
}

#[derive(Serialize)]
struct Viseme {
    id: u8,
    offset_ms: f64,
}

#[derive(Serialize)]
struct Span {
    text: String,
    start_ms: f64,
    end_ms: f64,
}

#[derive(Serialize)]
struct Aligned {
    audio: String,
    /// "acoustic model" or "synthesis" (docs/align.md).
    aligned_by: &'static str,
    duration_ms: f64,
    visemes: Vec<Viseme>,
    words: Vec<Span>,
    phones: Vec<Span>,
}

/// Runs the align command.
pub(super) fn run(args: &AlignArgs) -> anyhow::Result<()> {
    let text = match (&args.text, &args.text_file) {
        (Some(t), _) => t.clone(),
        (None, Some(path)) => std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the script {}", path.display()))?,
        (None, None) => bail!("give --text TEXT or --text-file FILE"),
    };
    if text.trim().is_empty() {
        bail!("the script is empty: nothing to align");
    }
    let (samples, rate) = wav::read_mono(&args.audio)
        .with_context(|| format!("cannot read audio {}", args.audio.display()))?;
    let voice = args.voice.voice();
    let working = Progress::working(&format!("aligning {}", args.audio.display()));
    let synthesis = OfflineEngine::new()?.synthesize(&text, &voice)?;
    let alignment = align::align(&samples, rate, &synthesis, &voice.language)?;
    drop(working);
    let aligned_by = match &alignment.by {
        align::AlignedBy::AcousticModel => "acoustic model",
        align::AlignedBy::Synthesis { why_not_model } => {
            eprintln!("align: aligned by synthesis, not by the acoustic model: {why_not_model}");
            "synthesis"
        }
    };
    let aligned = alignment.utterance;
    let duration_ms = aligned.duration_ms();
    let phones = aligned
        .phonemes
        .iter()
        .enumerate()
        .map(|(i, p)| Span {
            text: p.ipa.clone(),
            start_ms: p.offset_ms,
            end_ms: aligned
                .phonemes
                .get(i + 1)
                .map_or(duration_ms, |n| n.offset_ms),
        })
        .collect();
    let out = Aligned {
        audio: args.audio.display().to_string(),
        aligned_by,
        duration_ms,
        visemes: aligned
            .visemes
            .iter()
            .map(|e| Viseme {
                id: e.id.get(),
                offset_ms: e.offset_ms,
            })
            .collect(),
        words: aligned
            .words
            .iter()
            .filter(|w| !w.text.trim().is_empty())
            .map(|w| Span {
                text: w.text.clone(),
                start_ms: w.offset_ms,
                end_ms: w.offset_ms + w.duration_ms,
            })
            .collect(),
        phones,
    };
    let json = serde_json::to_vec_pretty(&out).context("could not encode the alignment")?;
    write_atomically(&args.out, &json)
}
