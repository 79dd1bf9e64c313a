//! `npc-player eval-lipsync`: grades lip sync against phone labels from elsewhere (docs/align.md),
//! by the one measure of `npc_core::speech::eval`, per language: from the sound alone (what
//! `bake --audio` writes), as a stream without text is (`--streamed`) and, where a line gives
//! its script, aligned to it (`bake --audio --transcript`); with the time each took against
//! the sound's length.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use npc_core::project::{Gender, Voice};
use npc_core::speech::LineSource;
use npc_core::speech::eval::{
    MouthClass, PhoneSpan, PhoneSymbols, Score, closure_onsets, missed_closure_lines, read_labels,
    score,
};

use crate::BlockLipSync;

#[derive(Debug, clap::Args)]
pub(super) struct EvalLipsyncArgs {
    /// Lines of `WAV<TAB>LABELS<TAB>LANGUAGE[<TAB>SCRIPT]`: a recording, its phone labels (an
    /// MBROLA phone file, `.pho`, in SAMPA; an HTK or Festival label file, `.lab`, in ARPAbet,
    /// for Japanese HTS's phones, for Russian festvox's msu_ru phones; or a Praat TextGrid's
    /// phone tier in ARPAbet), its language (BCP 47) and what is said; paths relative to the
    /// list. `#` starts a comment.
    #[arg(value_name = "LIST")]
    list: PathBuf,
    /// Also print each p, b or m left open, with the phones and visemes around it, and per
    /// recording where the nearest closure starts against each p, b or m's label (ms, none
    /// where none starts within 150 ms)
    #[arg(long)]
    misses: bool,
    /// Also grade the sound lip-synced as a stream without text is: arriving 100 ms at a time,
    /// each block heard as it can be (what the player does with a streamed reply)
    #[arg(long)]
    streamed: bool,
}

/// One path's grades in one language, and its time.
#[derive(Clone, Copy, Debug, Default)]
struct Graded {
    score: Score,
    sound_s: f64,
    took_s: f64,
}

impl Graded {
    fn add(&mut self, score: Score, sound_s: f64, took_s: f64) {
        self.score = self.score.plus(score);
        self.sound_s += sound_s;
        self.took_s += took_s;
    }

    fn line(&self) -> String {
        let s = &self.score;
        format!(
            "{:5.1}% of {:5} frames; p/b/m closed {:3}/{:3}; false closures {:2}; rounding onsets \
             {:3}/{:3}; {:6.1}x real time",
            s.frame_share() * 100.0,
            s.frames,
            s.closed,
            s.closures,
            s.false_closures,
            s.rounded,
            s.roundings,
            self.sound_s / self.took_s.max(1e-9)
        )
    }
}

struct Entry {
    wav: PathBuf,
    labels: Vec<PhoneSpan>,
    symbols: PhoneSymbols,
    language: String,
    script: Option<String>,
}

fn read_list(list: &Path) -> anyhow::Result<Vec<Entry>> {
    let text = std::fs::read_to_string(list)
        .with_context(|| format!("cannot read the list {}", list.display()))?;
    let base = list.parent().unwrap_or(Path::new("."));
    let mut entries = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [wav, labels, language, rest @ ..] = &fields[..] else {
            bail!(
                "{} line {}: not WAV<TAB>LABELS<TAB>LANGUAGE[<TAB>SCRIPT]",
                list.display(),
                n + 1
            );
        };
        let language = language.trim();
        let labels = read_labels(&base.join(labels), language)
            .map_err(|e| anyhow::anyhow!("cannot read the labels {e}"))?;
        entries.push(Entry {
            wav: base.join(wav),
            labels: labels.spans,
            symbols: labels.symbols,
            language: language.to_owned(),
            script: rest
                .first()
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty()),
        });
    }
    if entries.is_empty() {
        bail!("{} names no recording", list.display());
    }
    Ok(entries)
}

fn print_misses(
    wav: &Path,
    path: &str,
    events: &[npc_core::anim::lipsync::VisemeEvent],
    labels: &[PhoneSpan],
    class_of: impl Fn(&str) -> MouthClass,
) {
    for miss in missed_closure_lines(events, labels, &class_of) {
        println!("{} {path}: {miss}", wav.display());
    }
    let onsets: Vec<String> = closure_onsets(events, labels, &class_of)
        .into_iter()
        .map(|d| d.map_or_else(|| "none".to_owned(), |d| format!("{d:.0}")))
        .collect();
    println!(
        "{} {path}: closures start {}",
        wav.display(),
        onsets.join(" ")
    );
}

/// Runs the eval-lipsync command.
pub(super) fn run(args: &EvalLipsyncArgs) -> anyhow::Result<()> {
    let entries = read_list(&args.list)?;
    let mut by_language: BTreeMap<String, [Graded; 3]> = BTreeMap::new();
    for entry in &entries {
        let language = entry.language.as_str();
        let class_of = |p: &str| entry.symbols.class(p);
        let started = Instant::now();
        let alone = LineSource::from_wav(&entry.wav, language)
            .with_context(|| format!("lip sync of {}", entry.wav.display()))?;
        let took = started.elapsed().as_secs_f64();
        let sound_s = alone
            .audio
            .as_ref()
            .map_or(0.0, |(s, rate)| s.len() as f64 / f64::from(*rate));
        let graded = by_language.entry(entry.language.clone()).or_default();
        graded[0].add(
            score(alone.cue.track.events(), &entry.labels, class_of),
            sound_s,
            took,
        );
        if args.misses {
            print_misses(
                &entry.wav,
                "sound alone",
                alone.cue.track.events(),
                &entry.labels,
                class_of,
            );
        }
        if args.streamed
            && let Some((samples, rate)) = &alone.audio
        {
            let started = Instant::now();
            let events = BlockLipSync::as_arriving(samples, *rate, 100.0);
            let took = started.elapsed().as_secs_f64();
            graded[2].add(score(&events, &entry.labels, class_of), sound_s, took);
            if args.misses {
                print_misses(&entry.wav, "streamed", &events, &entry.labels, class_of);
            }
        }
        if let Some(script) = &entry.script {
            let voice = Voice {
                gender: Gender::Female,
                language: entry.language.clone(),
                ..Voice::default()
            };
            let started = Instant::now();
            let aligned = LineSource::from_wav_and_script(&entry.wav, script, &voice)
                .with_context(|| format!("alignment of {}", entry.wav.display()))?;
            let took = started.elapsed().as_secs_f64();
            graded[1].add(
                score(aligned.cue.track.events(), &entry.labels, class_of),
                sound_s,
                took,
            );
            if args.misses {
                print_misses(
                    &entry.wav,
                    "with the script",
                    aligned.cue.track.events(),
                    &entry.labels,
                    class_of,
                );
            }
        }
    }
    for (language, [alone, scripted, streamed]) in &by_language {
        println!("{language} sound alone:     {}", alone.line());
        if streamed.score.frames > 0 {
            println!("{language} streamed:        {}", streamed.line());
        }
        if scripted.score.frames > 0 {
            println!("{language} with the script: {}", scripted.line());
        }
    }
    Ok(())
}
