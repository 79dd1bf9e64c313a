//! A recording aligned to its script, scored per 10 ms frame in seven mouth-shape classes
//! (silence, closed, labiodental, rounded, open, spread, other).
//!
//! Exact truth: a recording made by the offline engine in another voice (male, where the
//! script is spoken by the female voice) with pauses the script does not have; its own
//! timing is the truth. Real read speech (five LibriVox utterances), scored against
//! PocketSphinx's phone alignments of them (an acoustic model's, not hand labels). A real
//! recording (CMU ARCTIC a0007, when ../shared is there): its
//! stop closures are silences in the sound ended by a burst, so the aligned lip closure must
//! fall in one and open with its burst.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use npc_core::anim::lipsync::VisemeTrack;
use npc_core::project::{Gender, Voice};
use npc_core::speech::align::align;
use npc_core::speech::{OfflineEngine, SpeechEngine, Utterance, wav};

const SCRIPT: &str = "And you always want to see it in the superlative degree.";

/// The mouth-shape class of an Azure viseme.
fn class(id: u8) -> u8 {
    match id {
        0 => 0,              // silence
        21 => 1,             // p b m: closed
        18 => 2,             // f v: labiodental
        3 | 7 | 8 | 10 => 3, // ɔ, w u, o, ɔɪ: rounded
        1 | 2 | 9 | 11 => 4, // æ ə ʌ, ɑ, aʊ, aɪ: open
        4 | 6 => 5,          // ɛ ʊ, i ɪ j: spread
        _ => 6,              // the consonants that leave the lips be
    }
}

fn id_at(track: &VisemeTrack, ms: f64) -> u8 {
    track.index_at(ms).map_or(0, |i| track.events()[i].id.get())
}

/// Share of 10 ms frames over `end_ms` where the two tracks agree on the class.
fn agreement(a: &VisemeTrack, truth: &VisemeTrack, end_ms: f64) -> f64 {
    let frames = (end_ms / 10.0) as usize;
    let same = (0..frames)
        .filter(|&k| {
            let t = k as f64 * 10.0 + 5.0;
            class(id_at(a, t)) == class(id_at(truth, t))
        })
        .count();
    same as f64 / frames.max(1) as f64
}

fn speak(text: &str, gender: Gender) -> Utterance {
    OfflineEngine::new()
        .unwrap()
        .synthesize(
            text,
            &Voice {
                gender,
                ..Voice::default()
            },
        )
        .unwrap()
}

fn samples(u: &Utterance) -> Vec<f32> {
    u.pcm.iter().map(|&s| f32::from(s) / 32768.0).collect()
}

/// The script's track stretched evenly over the recording's length: what a tool does that
/// knows the words but not where they are heard.
fn stretched(script: &Utterance, recording_ms: f64) -> VisemeTrack {
    let k = recording_ms / script.duration_ms();
    VisemeTrack::from_events(
        script
            .visemes
            .iter()
            .map(|e| npc_core::anim::lipsync::VisemeEvent::new(e.id, e.offset_ms * k))
            .collect(),
    )
    .unwrap()
}

#[test]
fn another_voice_with_other_pauses_is_followed_phone_by_phone() {
    let script = speak(SCRIPT, Gender::Female);
    let recording = speak(
        "And you, always want to see it, in the superlative degree.",
        Gender::Male,
    );
    let truth = VisemeTrack::from_events(recording.visemes.clone()).unwrap();
    let aligned = align(&samples(&recording), recording.sample_rate, &script).unwrap();
    let track = VisemeTrack::from_events(aligned.visemes.clone()).unwrap();
    let end = recording.duration_ms();
    let score = agreement(&track, &truth, end);
    let even = agreement(&stretched(&script, end), &truth, end);
    eprintln!(
        "right class on {:.1}% of frames aligned, {:.1}% stretched evenly",
        score * 100.0,
        even * 100.0
    );
    assert!(score >= 0.85, "aligned {score}");
    assert!(score > even + 0.1, "aligned {score}, stretched {even}");
    // Every p, b and m of the recording closes the aligned lips within its span.
    let events = truth.events();
    for (i, e) in events.iter().enumerate().filter(|(_, e)| e.id.get() == 21) {
        let until = events.get(i + 1).map_or(end, |n| n.offset_ms);
        let closed = (e.offset_ms as i64..until as i64)
            .step_by(5)
            .any(|t| id_at(&track, t as f64) == 21);
        assert!(closed, "the closure at {} ms is not closed", e.offset_ms);
    }
}

#[test]
fn a_real_recordings_lip_closure_falls_in_the_silence_of_its_stop() {
    let Some(path) = common::shared_asset("speech/arctic_a0007.wav") else {
        return;
    };
    let (sound, rate) = wav::read_mono(&path).unwrap();
    let script = speak(SCRIPT, Gender::Female);
    let aligned = align(&sound, rate, &script).unwrap();
    // Loudness in 10 ms frames.
    let hop = rate as usize / 100;
    let energy: Vec<f32> = sound
        .chunks(hop)
        .map(|c| c.iter().map(|s| s * s).sum::<f32>() / c.len() as f32)
        .collect();
    let words: Vec<String> = aligned
        .words
        .iter()
        .map(|w| format!("{} {:.0}", w.text, w.offset_ms))
        .collect();
    eprintln!("words: {}", words.join(", "));
    let events = &aligned.visemes;
    let closures: Vec<(f64, f64)> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.id.get() == 21)
        .map(|(i, e)| {
            (
                e.offset_ms,
                events
                    .get(i + 1)
                    .map_or(e.offset_ms + 60.0, |n| n.offset_ms),
            )
        })
        .collect();
    assert!(!closures.is_empty(), "the p of superlative gives a closure");
    for (from, to) in closures {
        let frame = |ms: f64| ((ms / 10.0) as usize).min(energy.len() - 1);
        let quietest = (frame(from)..=frame(to))
            .map(|k| energy[k])
            .fold(f32::MAX, f32::min);
        let around = (frame(from - 150.0)..=frame(to + 150.0))
            .map(|k| energy[k])
            .fold(0.0, f32::max);
        eprintln!(
            "closure {from:.0}-{to:.0} ms: quietest {:.1} dB below the loudest around it",
            10.0 * (around / quietest.max(1e-12)).log10()
        );
        // A stop's silence: 25 dB below the vowels around it (the fricatives and the other
        // consonants there are 10-18 dB down).
        assert!(
            quietest < 10f32.powf(-2.5) * around,
            "{from}-{to}: {quietest} against {around}"
        );
        // ... and opens with the burst: the sound is at least 12 dB up by the closure's end,
        // and the lips were not held shut into the vowel after it.
        let opened = energy[frame(to)].max(energy[frame(to + 10.0)]);
        eprintln!(
            "  opens {:.1} dB above its quietest",
            10.0 * (opened / quietest.max(1e-12)).log10()
        );
        assert!(
            opened >= quietest * 10f32.powf(1.2),
            "{from}-{to} opens at {opened}"
        );
        assert!(to - from <= 200.0, "{from}-{to}: held shut into the vowel");
    }
}

/// The mouth-shape class of an ARPAbet phone (PocketSphinx's labels).
fn class_of_phone(phone: &str) -> u8 {
    match phone.trim_end_matches(|c: char| c.is_ascii_digit()) {
        "SIL" | "+NSN+" | "+SPN+" => 0,
        "P" | "B" | "M" => 1,
        "F" | "V" => 2,
        "UW" | "UH" | "OW" | "AO" | "OY" | "W" => 3,
        "AA" | "AE" | "AH" | "AW" | "AY" => 4,
        "IY" | "IH" | "EH" | "EY" | "Y" => 5,
        _ => 6,
    }
}

#[test]
fn read_speech_follows_an_acoustic_models_phones() {
    let Some(dir) = common::librivox() else {
        return;
    };
    let (mut frames, mut aligned_right, mut even_right) = (0, 0, 0);
    let (mut bilabials, mut closed) = (0, 0);
    for id in ["0870", "0880", "0890", "0920", "0930"] {
        let base = dir.join(format!("sense_and_sensibility_01_austen_64kb-{id}"));
        let text = std::fs::read_to_string(base.with_extension("txt")).unwrap();
        let (sound, rate) = wav::read_mono(&base.with_extension("wav")).unwrap();
        let labels: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(base.with_extension("phone.json")).unwrap(),
        )
        .unwrap();
        let script = speak(text.trim(), Gender::Female);
        let aligned = align(&sound, rate, &script).unwrap();
        let track = VisemeTrack::from_events(aligned.visemes.clone()).unwrap();
        let even = stretched(&script, sound.len() as f64 * 1000.0 / f64::from(rate));
        let (mut n, mut right, mut right_even) = (0, 0, 0);
        for word in labels["w"].as_array().unwrap() {
            for phone in word["w"].as_array().unwrap() {
                let begin = phone["b"].as_f64().unwrap() * 1000.0;
                let end = begin + phone["d"].as_f64().unwrap() * 1000.0;
                let truth = class_of_phone(phone["t"].as_str().unwrap());
                if truth == 1 {
                    // Closed at some moment of the labelled p, b or m (20 ms either side).
                    bilabials += 1;
                    let mut t = begin - 20.0;
                    let mut shut = false;
                    while t <= end + 20.0 {
                        shut |= id_at(&track, t) == 21;
                        t += 5.0;
                    }
                    closed += usize::from(shut);
                }
                let mut t = begin + 5.0;
                while t < end {
                    n += 1;
                    right += usize::from(class(id_at(&track, t)) == truth);
                    right_even += usize::from(class(id_at(&even, t)) == truth);
                    t += 10.0;
                }
            }
        }
        eprintln!(
            "{id}: {:.1}% aligned, {:.1}% stretched, {n} frames",
            100.0 * right as f64 / n as f64,
            100.0 * right_even as f64 / n as f64
        );
        frames += n;
        aligned_right += right;
        even_right += right_even;
    }
    let (score, even) = (
        aligned_right as f64 / frames as f64,
        even_right as f64 / frames as f64,
    );
    eprintln!(
        "all five: {:.1}% of {frames} frames aligned, {:.1}% stretched evenly",
        score * 100.0,
        even * 100.0
    );
    eprintln!("lips closed at {closed} of the {bilabials} labelled p, b and m");
    // Measured 70.4% (the goal is 85%, against hand labels); a floor under today's figure.
    assert!(score >= 0.67, "aligned {score}");
    assert!(score >= even + 0.25, "aligned {score}, stretched {even}");
    // Measured 28 of 29.
    assert!(
        closed * 10 >= bilabials * 9,
        "{closed} of {bilabials} closed"
    );
}
