//! Speed of speech: the offline engine's first audio and whole-line synthesis, the audio
//! analysis, and aligning a recording to its script. Real-time factors are printed next to the timings.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use npc_core::project::Voice;
use npc_core::speech::analysis::{AnalysisSettings, analyse};
use npc_core::speech::{OfflineEngine, SpeechChunk, SpeechEngine};

const LINE: &str = "Welcome, traveler. What brings you here?";

fn offline(c: &mut Criterion) {
    let engine = OfflineEngine::new().unwrap();
    let voice = Voice::default();
    c.bench_function("offline_first_audio_one_sentence", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                let start = Instant::now();
                let mut first = None;
                engine
                    .synthesize_streaming(LINE, &voice, &mut |chunk| {
                        if first.is_none() && matches!(chunk, SpeechChunk::Audio(_)) {
                            first = Some(start.elapsed());
                        }
                    })
                    .unwrap();
                total += first.unwrap_or_else(|| start.elapsed());
            }
            total
        });
    });
    let audio_s = engine.synthesize(LINE, &voice).unwrap().duration_ms() / 1000.0;
    let start = Instant::now();
    let runs = 20;
    for _ in 0..runs {
        black_box(engine.synthesize(LINE, &voice).unwrap());
    }
    let per_line = start.elapsed().as_secs_f64() / f64::from(runs);
    println!(
        "offline synthesis: {audio_s:.2} s of audio in {:.1} ms = {:.0}x real time",
        per_line * 1000.0,
        audio_s / per_line
    );
    c.bench_function("offline_synthesis_one_sentence", |b| {
        b.iter(|| black_box(engine.synthesize(LINE, &voice).unwrap()));
    });
}

fn analysis(c: &mut Criterion) {
    let engine = OfflineEngine::new().unwrap();
    let u = engine.synthesize(LINE, &Voice::default()).unwrap();
    let samples: Vec<f32> = u.pcm.iter().map(|&s| f32::from(s) / 32768.0).collect();
    let settings = AnalysisSettings::default();
    let start = Instant::now();
    let runs = 50;
    for _ in 0..runs {
        black_box(analyse(&samples, u.sample_rate, &settings));
    }
    let per_clip = start.elapsed().as_secs_f64() / f64::from(runs);
    println!(
        "audio analysis: {:.2} s of audio in {:.2} ms = {:.0}x real time",
        u.duration_ms() / 1000.0,
        per_clip * 1000.0,
        u.duration_ms() / 1000.0 / per_clip
    );
    c.bench_function("audio_analysis_one_sentence", |b| {
        b.iter(|| black_box(analyse(&samples, u.sample_rate, &settings)));
    });
}

/// Aligning a recording to its script: the script synthesised and warped onto the sound (a
/// male voice's recording of the line, the script in the default female voice).
fn alignment(c: &mut Criterion) {
    let engine = OfflineEngine::new().unwrap();
    let male = Voice {
        gender: npc_core::project::Gender::Male,
        ..Voice::default()
    };
    let recording = engine.synthesize(LINE, &male).unwrap();
    let samples: Vec<f32> = recording
        .pcm
        .iter()
        .map(|&s| f32::from(s) / 32768.0)
        .collect();
    let align_once = || {
        let script = engine.synthesize(LINE, &Voice::default()).unwrap();
        npc_core::speech::align::align(&samples, recording.sample_rate, &script, "en-US").unwrap()
    };
    let start = Instant::now();
    let runs = 20;
    for _ in 0..runs {
        black_box(align_once());
    }
    let per_clip = start.elapsed().as_secs_f64() / f64::from(runs);
    let audio_s = recording.duration_ms() / 1000.0;
    println!(
        "alignment (synthesis included): {audio_s:.2} s of audio in {:.1} ms = {:.0}x real time",
        per_clip * 1000.0,
        audio_s / per_clip
    );
    c.bench_function("align_one_sentence", |b| b.iter(|| black_box(align_once())));
}

criterion_group!(benches, offline, analysis, alignment);
criterion_main!(benches);
