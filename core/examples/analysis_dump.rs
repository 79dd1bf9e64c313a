//! Prints what the audio analysis measures in a WAV, frame by frame (voiced frames only):
//! level, first two formants, tilt, hiss and the smoothed viseme scores. For tuning the analysis.
//!
//! `cargo run --example analysis_dump -- FILE.wav`

#![allow(clippy::print_stdout)]

use std::process::ExitCode;

use npc_core::speech::analysis::{ANALYSED, AnalysisSettings, analyse};
use npc_core::speech::wav;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: analysis_dump FILE.wav");
        return ExitCode::FAILURE;
    };
    let (samples, rate) = match wav::read_mono(std::path::Path::new(&path)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let settings = AnalysisSettings::default();
    let analysis = analyse(&samples, rate, &settings);
    println!("{path}: {rate} Hz; scores for visemes {ANALYSED:?}");
    for (f, scores) in analysis.frames.iter().zip(&analysis.scores) {
        if f.level_db < -settings.silence_db {
            continue;
        }
        let scores: Vec<String> = scores.iter().map(|s| format!("{s:.2}")).collect();
        println!(
            "{:6.0} ms {:6.1} dB  F1 {:5.0} F2 {:5.0}  tilt {:6.1} hiss {:4.2} | {}",
            f.time_ms,
            f.level_db,
            f.f1_hz,
            f.f2_hz,
            f.tilt_db,
            f.hiss,
            scores.join(" ")
        );
    }
    ExitCode::SUCCESS
}
