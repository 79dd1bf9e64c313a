//! Lip sync from audio alone, on sustained sounds made by the offline engine and on a real
//! recording.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use npc_core::anim::lipsync::VisemeTrack;
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

/// The recording of "And you always want to see it in the superlative degree." (CMU ARCTIC
/// a0007, US English female), when ../shared is there.
fn arctic() -> Option<(Vec<f32>, u32)> {
    let path = common::shared_asset("speech/arctic_a0007.wav")?;
    Some(wav::read_mono(&path).unwrap())
}

/// The viseme id of `track` at `ms`.
fn id_at(track: &VisemeTrack, ms: f64) -> u8 {
    track.index_at(ms).map_or(0, |i| track.events()[i].id.get())
}

#[test]
fn a_real_recording_reads_its_vowels_and_rounds_only_where_the_speaker_does() {
    let Some((samples, rate)) = arctic() else {
        return;
    };
    let settings = AnalysisSettings::default();
    let events = track_from_analysis(&analyse(&samples, rate, &settings), &settings);
    let track = VisemeTrack::from_events(events).unwrap();
    // Landmarks read off the recording's formants: "you" (rounded), the "al" of "always"
    // (open, rounded), the "ee" of "see" and of "degree" (spread).
    assert_eq!(id_at(&track, 680.0), 7, "you");
    assert!([2, 8].contains(&id_at(&track, 840.0)), "always");
    assert_eq!(id_at(&track, 1_670.0), 6, "see");
    assert_eq!(id_at(&track, 3_300.0), 6, "degree");
    // Rounded visemes (U, O) cover a minority of the speech: the line has few rounded sounds
    // (you, al-, w, to, su-); band centroids in place of formants made 68% of it "U".
    let end = samples.len() as f64 * 1000.0 / f64::from(rate);
    let (mut speech, mut rounded) = (0.0, 0.0);
    let events = track.events();
    for (i, e) in events.iter().enumerate() {
        let until = events.get(i + 1).map_or(end, |n| n.offset_ms);
        let span = until - e.offset_ms;
        if e.id.get() != 0 {
            speech += span;
        }
        if [7, 8].contains(&e.id.get()) {
            rounded += span;
        }
    }
    let share = rounded / speech;
    assert!(share < 0.45, "rounded {:.0}% of the speech", share * 100.0);
}

#[test]
fn a_real_recording_gives_a_valid_varied_track() {
    let Some((samples, rate)) = arctic() else {
        return;
    };
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
