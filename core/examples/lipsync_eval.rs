//! Grades lip sync from the sound alone on a list of labelled sounds (lines `WAV LABELS
//! LANGUAGE`, as `scripts/mouth_net/make_data.py` writes them with MBROLA phone files; any
//! labels `npc_core::speech::eval::read_labels` reads) by the measure, per
//! language: the phones recognised alone (with the closures the network on the sound alone
//! hears, peaking at CLOSURE_PEAK), and decoded by the mouth network with the given
//! switch cost and closure bias. For choosing the decoding on voices that are not graded.
//! With `--sound-only`, the network that hears the sound alone, without a recogniser; with
//! `--net FILE` too, that network read from FILE (one `scripts/mouth_net/train.py` wrote)
//! instead of the committed one; with more than one `--net`, their probabilities averaged.
//!
//! `cargo run --example lipsync_eval -- [--sound-only [--net FILE]...] LIST [SWITCH_COST CLOSED_BIAS [CLOSURE_PEAK [CLOSURE_ONSET]]]`

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use npc_core::speech::eval::{MouthClass, Score, read_labels, score};
use npc_core::speech::mouth_net::{Decoding, MouthNet};
use npc_core::speech::unscripted::{
    SOUND_ALONE_DECODING, by_sound_alone_with, recognised, visemes_by_net, with_closures_heard,
};
use npc_core::speech::wav;

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let sound_only = args.first().is_some_and(|a| a == "--sound-only");
    if sound_only {
        args.remove(0);
    }
    let mut nets = Vec::new();
    while args.first().is_some_and(|a| a == "--net") && args.len() > 1 {
        let path = args.remove(1);
        args.remove(0);
        match std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|bytes| MouthNet::from_bytes(&bytes))
        {
            Ok(net) => nets.push(net),
            Err(e) => {
                eprintln!("cannot read the network {path}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let net = if nets.is_empty() {
        MouthNet::sound_only().clone()
    } else {
        match MouthNet::mean_of(nets) {
            Ok(net) => net,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        }
    };
    let Some(list) = args.first() else {
        eprintln!(
            "usage: lipsync_eval [--sound-only [--net FILE]...] LIST [SWITCH_COST CLOSED_BIAS \
             [CLOSURE_PEAK [CLOSURE_ONSET]]]"
        );
        return ExitCode::FAILURE;
    };
    // From the sound alone, the decoding the product uses unless the arguments say otherwise.
    let mut decoding = if sound_only {
        SOUND_ALONE_DECODING
    } else {
        Decoding::default()
    };
    if let [_, cost, bias, rest @ ..] = &args[..] {
        decoding.switch_cost = cost.parse().unwrap_or(decoding.switch_cost);
        decoding.bias[MouthClass::Closed.index()] = bias.parse().unwrap_or(0.0);
        if let [peak, rest @ ..] = rest {
            decoding.closure_peak = peak.parse().unwrap_or(0.0);
            if let [onset] = rest {
                decoding.closure_onset = onset.parse().unwrap_or(0.0);
            }
        }
    }
    let Ok(text) = std::fs::read_to_string(list) else {
        eprintln!("cannot read {list}");
        return ExitCode::FAILURE;
    };
    let mut by_language: BTreeMap<String, [Score; 2]> = BTreeMap::new();
    for line in text.lines() {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let [wav_path, pho_path, .., language] = parts[..] else {
            continue;
        };
        let Ok((samples, rate)) = wav::read_mono(Path::new(wav_path)) else {
            eprintln!("cannot read {wav_path}");
            continue;
        };
        let labels = match read_labels(Path::new(pho_path), language) {
            Ok(labels) => labels,
            Err(e) => {
                eprintln!("{e}");
                continue;
            }
        };
        let class_of = |p: &str| labels.symbols.class(p);
        let labels = &labels.spans;
        let (alone, by_net) = if sound_only {
            let by_net = by_sound_alone_with(&net, &samples, rate, &decoding);
            (Score::default(), by_net)
        } else {
            let heard = recognised(&samples, rate, language);
            let heard = with_closures_heard(&samples, rate, heard, decoding.closure_peak);
            let alone = score(&heard.visemes, labels, class_of);
            (alone, visemes_by_net(&samples, rate, heard, &decoding))
        };
        let netted = score(&by_net.visemes, labels, class_of);
        let entry = by_language.entry(language.to_owned()).or_default();
        entry[0] = entry[0].plus(alone);
        entry[1] = entry[1].plus(netted);
    }
    for (language, [alone, netted]) in &by_language {
        println!(
            "{language}: recognised {:.1}% {}/{} ({} false); network {:.1}% {}/{} ({} false)",
            alone.frame_share() * 100.0,
            alone.closed,
            alone.closures,
            alone.false_closures,
            netted.frame_share() * 100.0,
            netted.closed,
            netted.closures,
            netted.false_closures
        );
    }
    ExitCode::SUCCESS
}
