//! Speed of speech: the offline engine's first audio and whole-line synthesis, the audio
//! analysis, aligning a recording to its script, and lip sync from a recording alone.
//! Real-time factors are printed next to the timings.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
#[path = "../../tests/common/shared_asset.rs"]
mod shared_asset;
use npc_core::project::Voice;
use npc_core::speech::align::{AlignedBy, align};
use npc_core::speech::analysis::{AnalysisSettings, analyse};
use npc_core::speech::unscripted::{HeardBy, by_sound_alone, visemes_from_sound};
use npc_core::speech::{OfflineEngine, SpeechChunk, SpeechEngine, wav};
use shared_asset::shared_asset;

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

/// The script of the recording the alignment benchmarks use.
const ARCTIC_SCRIPT: &str = "And you always want to see it in the superlative degree.";

/// A real recording and its script (CMU ARCTIC a0007 from ../shared), or when that is absent
/// a male voice of the engine speaking the benchmark line.
fn recording(engine: &OfflineEngine) -> (Vec<f32>, u32, &'static str, &'static str) {
    if let Some((samples, rate)) =
        shared_asset("speech/arctic_a0007.wav").and_then(|path| wav::read_mono(&path).ok())
    {
        return (samples, rate, ARCTIC_SCRIPT, "CMU ARCTIC a0007");
    }
    let male = Voice {
        gender: npc_core::project::Gender::Male,
        ..Voice::default()
    };
    let u = engine.synthesize(LINE, &male).unwrap();
    let samples = u.pcm.iter().map(|&s| f32::from(s) / 32768.0).collect();
    (samples, u.sample_rate, LINE, "the engine's male voice")
}

/// Times `run` over `runs` calls: seconds per call.
fn seconds_per_call(runs: u32, run: &mut dyn FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..runs {
        run();
    }
    start.elapsed().as_secs_f64() / f64::from(runs)
}

/// Aligning a recording to its script: the script synthesised, then aligned by the acoustic
/// model where it is installed, else by warping the synthesis onto the sound.
fn alignment(c: &mut Criterion) {
    let engine = OfflineEngine::new().unwrap();
    let (samples, rate, script, what) = recording(&engine);
    let audio_s = samples.len() as f64 / f64::from(rate);
    let align_once = || {
        let spoken = engine.synthesize(script, &Voice::default()).unwrap();
        align(&samples, rate, &spoken, "en-US").unwrap()
    };
    let by = match align_once().by {
        AlignedBy::AcousticModel => "by the acoustic model".to_owned(),
        AlignedBy::Synthesis { why_not_model } => format!("by synthesis ({why_not_model})"),
    };
    let per_clip = seconds_per_call(10, &mut || {
        black_box(align_once());
    });
    println!(
        "alignment {by}, synthesis included: {what}, {audio_s:.2} s of audio in {:.1} ms = \
         {:.0}x real time",
        per_clip * 1000.0,
        audio_s / per_clip
    );
    c.bench_function("align_one_sentence", |b| b.iter(|| black_box(align_once())));
}

/// Lip sync from the recording alone: phone recognition where the model is installed, else
/// the formants.
fn recognition(c: &mut Criterion) {
    let engine = OfflineEngine::new().unwrap();
    let (samples, rate, _, what) = recording(&engine);
    let audio_s = samples.len() as f64 / f64::from(rate);
    let by = match visemes_from_sound(&samples, rate, "en-US").by {
        HeardBy::AcousticModel => "by phone recognition".to_owned(),
        HeardBy::SoundAlone => "by the sound alone (no phone recogniser installed)".to_owned(),
    };
    let per_clip = seconds_per_call(10, &mut || {
        black_box(visemes_from_sound(&samples, rate, "en-US"));
    });
    println!(
        "lip sync without a script {by}: {what}, {audio_s:.2} s of audio in {:.1} ms = {:.0}x \
         real time",
        per_clip * 1000.0,
        audio_s / per_clip
    );
    c.bench_function("visemes_from_sound_one_sentence", |b| {
        b.iter(|| black_box(visemes_from_sound(&samples, rate, "en-US")));
    });
    let per_clip = seconds_per_call(10, &mut || {
        black_box(by_sound_alone(&samples, rate));
    });
    println!(
        "lip sync from the sound alone (no recogniser): {what}, {audio_s:.2} s of audio in \
         {:.1} ms = {:.0}x real time",
        per_clip * 1000.0,
        audio_s / per_clip
    );
    c.bench_function("visemes_by_sound_alone_one_sentence", |b| {
        b.iter(|| black_box(by_sound_alone(&samples, rate)));
    });
}

criterion_group!(benches, offline, analysis, alignment, recognition);
criterion_main!(benches);
