//! Lip sync from audio alone, on sustained sounds made by the offline engine and on a real
//! recording.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use npc_core::lipsync::VisemeTrack;
use npc_core::project::Voice;
use npc_core::speech::analysis::{AnalysisSettings, analyse, track_from_analysis};
use npc_core::speech::{OfflineEngine, SpeechEngine, wav};

fn dominant(text: &str) -> u8 {
    let u = OfflineEngine::new()
        .unwrap()
        .synthesize(text, &Voice::default())
        .unwrap();
    let samples: Vec<f32> = u.pcm.iter().map(|&s| f32::from(s) / 32768.0).collect();
    let analysis = analyse(&samples, u.sample_rate, &AnalysisSettings::default());
    analysis.dominant().expect("some sound").get()
}

#[test]
fn sustained_sounds_give_their_visemes() {
    assert_eq!(dominant("ah"), 2, "ah -> aa");
    assert_eq!(dominant("ee"), 6, "ee -> I");
    assert_eq!(dominant("oo"), 7, "oo -> U");
    assert_eq!(dominant("sss"), 15, "sss -> SS");
}

#[test]
fn a_real_recording_gives_a_valid_varied_track() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/assets/speech/arctic_a0007.wav");
    if !path.exists() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "missing {}",
            path.display()
        );
        return;
    }
    let (samples, rate) = wav::read_mono(&path).unwrap();
    let settings = AnalysisSettings::default();
    let events = track_from_analysis(&analyse(&samples, rate, &settings), &settings);
    let track = VisemeTrack::from_events(events).unwrap();
    let seconds = samples.len() as f64 / f64::from(rate);
    assert!(track.last_offset_ms() < seconds * 1000.0);
    let mut kinds: Vec<u8> = track.events().iter().map(|e| e.id.get()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    assert!(kinds.len() >= 4, "only {kinds:?}");
    assert!(
        track.events().len() >= 10,
        "{} events in {seconds} s",
        track.events().len()
    );
    // Silence at the start, where the recording has none of the speech yet.
    assert_eq!(track.events()[0].id.get(), 0);
}
