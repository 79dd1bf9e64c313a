//! The offline engine (espeak-ng) speaks real audio with viseme timing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use npc_core::anim::lipsync::VisemeTrack;
use npc_core::project::{Gender, Voice};
use npc_core::speech::{OfflineEngine, SpeechEngine};
use npc_core::viseme::VisemeId;

const LINE: &str = "Welcome, traveler. What brings you here?";

fn rms(samples: &[i16]) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    (samples
        .iter()
        .map(|&s| f64::from(s) * f64::from(s))
        .sum::<f64>()
        / samples.len() as f64)
        .sqrt()
}

#[test]
fn the_demo_line_has_audio_and_ordered_visemes() {
    let engine = OfflineEngine::new().unwrap();
    let u = engine.synthesize(LINE, &Voice::default()).unwrap();
    let seconds = u.duration_ms() / 1000.0;
    assert!((2.0..=3.2).contains(&seconds), "{seconds} s of audio");
    assert!(rms(&u.pcm) > 500.0, "the audio is not silent");
    assert!(
        u.visemes
            .windows(2)
            .all(|w| w[0].offset_ms <= w[1].offset_ms)
    );
    assert!(VisemeTrack::from_events(u.visemes.clone()).is_ok());
    let words: Vec<&str> = u.words.iter().map(|w| w.text.as_str()).collect();
    eprintln!("{words:?}\n{:?}", u.visemes);
    let brings = u
        .words
        .iter()
        .find(|w| w.text.starts_with("brings"))
        .expect("the word brings");
    // The b of "brings": a bilabial at the start of the word.
    assert!(
        u.visemes
            .iter()
            .any(|v| v.id == VisemeId::BILABIAL && (v.offset_ms - brings.offset_ms).abs() < 40.0),
        "no p/b/m at {} ms",
        brings.offset_ms
    );
}

#[test]
fn pauses_fall_inside_silence_and_are_quiet() {
    let engine = OfflineEngine::new().unwrap();
    let u = engine.synthesize(LINE, &Voice::default()).unwrap();
    // After "Welcome," and "traveler." come pauses: silence events followed by near-silent audio.
    let rate = f64::from(u.sample_rate);
    let mut quiet_pauses = 0;
    for pair in u.visemes.windows(2) {
        let (start, end) = (pair[0].offset_ms, pair[1].offset_ms);
        if pair[0].id == VisemeId::SILENCE && start > 100.0 && end - start > 60.0 {
            let a = ((start + 10.0) * rate / 1000.0) as usize;
            let b = ((end - 10.0) * rate / 1000.0) as usize;
            let level = rms(&u.pcm[a.min(u.pcm.len())..b.min(u.pcm.len())]);
            assert!(
                level < 0.05 * rms(&u.pcm),
                "pause {start}-{end} ms has level {level}"
            );
            quiet_pauses += 1;
        }
    }
    assert!(
        quiet_pauses >= 2,
        "expected pauses at the comma and the full stop: {:?}",
        u.visemes
    );
}

#[test]
fn voices_differ_by_gender_and_bad_input_is_an_error() {
    let engine = OfflineEngine::new().unwrap();
    let female = engine
        .synthesize("Hello there.", &Voice::default())
        .unwrap();
    let male = engine
        .synthesize(
            "Hello there.",
            &Voice {
                gender: Gender::Male,
                ..Voice::default()
            },
        )
        .unwrap();
    assert_ne!(female.pcm, male.pcm);
    assert!(engine.synthesize("   ", &Voice::default()).is_err());
    let unknown = Voice {
        name: Some("no-such-voice".into()),
        ..Voice::default()
    };
    assert!(engine.synthesize("Hello.", &unknown).is_err());
}

/// espeak-ng 1.51 keeps stale pauses between utterances (see `prime` in speech/espeak.rs): a
/// line must be timed the same whatever the process spoke before it.
#[test]
fn a_line_is_timed_the_same_whatever_was_spoken_before() {
    let engine = OfflineEngine::new().unwrap();
    let voice = Voice::default();
    let line = "Welcome, traveler. What brings you here?";
    let first = engine.synthesize(line, &voice).unwrap();
    for before in [
        "bring back",
        "Two loaves, if you bring back news of the ships and the price of salt.",
        "Stop! Drop it, Kate.",
    ] {
        engine.synthesize(before, &voice).unwrap();
        let again = engine.synthesize(line, &voice).unwrap();
        let moved = first
            .visemes
            .iter()
            .zip(&again.visemes)
            .map(|(a, b)| (a.offset_ms - b.offset_ms).abs())
            .fold(0.0, f64::max);
        assert_eq!(first.visemes.len(), again.visemes.len(), "after {before:?}");
        assert!(moved <= 2.0, "after {before:?} visemes moved by {moved} ms");
        let samples = first.pcm.len().abs_diff(again.pcm.len());
        assert!(
            samples < 100,
            "after {before:?} the line is {samples} samples longer or shorter"
        );
    }
}
