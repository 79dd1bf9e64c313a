//! Writes the mouth network's training frames: for each line `WAV LABELS OUT LANGUAGE` of a
//! list file, OUT gets one CSV row per 10 ms frame of WAV: the class of the phone labelled at
//! the frame's centre in LABELS (an MBROLA phone file or any label file
//! `npc_core::speech::eval::read_labels` reads, in LANGUAGE; an index into
//! `MouthClass::ALL`), then the frame's inputs exactly as the network reads them at run time
//! (`npc_core::speech::mouth_net::frame_inputs`); OUT.w0.9 and OUT.w1.1 the same with the
//! mel bands scaled as a longer and a shorter vocal tract would (more voices to learn from).
//! Used by `scripts/mouth_net/make_data.py`.
//!
//! With `--sound-only` no phone recogniser runs (the recogniser's class is written as silence):
//! the frames of the network that reads the sound alone, which ignores that class.
//!
//! `cargo run --example mouth_frames -- [--sound-only] LIST`

#![allow(clippy::print_stderr)]

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use npc_core::speech::eval::{MouthClass, read_labels};
use npc_core::speech::mouth_net::{frame_centre_ms, frame_inputs_warped};
use npc_core::speech::unscripted::recognised;
use npc_core::speech::wav;

/// The vocal tract scalings each sound's frames are written at (1.0 to OUT, others to
/// OUT.wWARP).
const WARPS: [f32; 3] = [1.0, 0.9, 1.1];

fn frames(
    wav_path: &Path,
    pho_path: &Path,
    language: &str,
    sound_only: bool,
) -> Result<Vec<String>, String> {
    let (samples, rate) = wav::read_mono(wav_path).map_err(|e| e.to_string())?;
    let labels = read_labels(pho_path, language)?;
    let heard = if sound_only {
        Vec::new()
    } else {
        recognised(&samples, rate, language).visemes
    };
    let mut files = Vec::new();
    for warp in WARPS {
        let mut out = String::new();
        let inputs = frame_inputs_warped(&samples, rate, &heard, warp);
        for (f, inputs) in inputs.iter().enumerate() {
            let t = frame_centre_ms(f);
            let class = labels
                .spans
                .iter()
                .find(|l| l.start_ms <= t && t < l.end_ms)
                .map_or(MouthClass::Silence, |l| labels.symbols.class(&l.phone));
            let _ = write!(out, "{}", class.index());
            for v in inputs {
                let _ = write!(out, ",{v:.5}");
            }
            out.push('\n');
        }
        files.push(out);
    }
    Ok(files)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sound_only = args.iter().any(|a| a == "--sound-only");
    let Some(list) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: mouth_frames [--sound-only] LIST (lines of WAV LABELS OUT LANGUAGE)");
        return ExitCode::FAILURE;
    };
    let Ok(text) = std::fs::read_to_string(list) else {
        eprintln!("cannot read {list}");
        return ExitCode::FAILURE;
    };
    let mut failed = false;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let [wav_path, pho_path, out, language] = parts[..] else {
            eprintln!("not WAV LABELS OUT LANGUAGE: {line}");
            failed = true;
            continue;
        };
        match frames(
            Path::new(wav_path),
            Path::new(pho_path),
            language,
            sound_only,
        ) {
            Ok(files) => {
                for (warp, csv) in WARPS.iter().zip(files) {
                    let path = if *warp == 1.0 {
                        out.to_owned()
                    } else {
                        format!("{out}.w{warp}")
                    };
                    if let Err(e) = std::fs::write(&path, csv) {
                        eprintln!("cannot write {path}: {e}");
                        failed = true;
                    }
                }
            }
            Err(e) => {
                eprintln!("{wav_path}: {e}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
