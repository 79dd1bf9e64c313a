//! The offline engine's pauses: where its phonemes without sound rest the mouth. A test
//! binary of its own: espeak-ng keeps state from line to line, and
//! `offline_speech::a_line_is_timed_the_same_whatever_was_spoken_before` needs no other
//! line spoken between its own.

#![allow(clippy::unwrap_used)]

use npc_core::project::Voice;
use npc_core::speech::{OfflineEngine, SpeechEngine};
use npc_core::viseme::VisemeId;

/// espeak-ng 1.51 reports a phoneme without sound between some vowels ("amiable": i, then
/// nothing for 37 ms, then ə): the mouth keeps its shape through it. A comma's pause rests it.
#[test]
fn only_pauses_rest_the_mouth() {
    let engine = OfflineEngine::new().unwrap();
    let u = engine
        .synthesize("Amiable, and see it.", &Voice::default())
        .unwrap();
    let words: Vec<_> = u
        .words
        .iter()
        .filter(|w| !w.text.trim().is_empty())
        .collect();
    assert_eq!(words.len(), 4);
    for (i, w) in words.iter().enumerate() {
        let until = words.get(i + 1).map_or(f64::MAX, |n| n.offset_ms);
        let phonemes: Vec<f64> = u
            .phonemes
            .iter()
            .map(|p| p.offset_ms)
            .filter(|&t| t >= w.offset_ms - 1.0 && t < until)
            .collect();
        let (first, last) = (phonemes[0], phonemes[phonemes.len() - 1]);
        let rest = u
            .visemes
            .iter()
            .find(|v| v.id == VisemeId::SILENCE && v.offset_ms > first && v.offset_ms < last);
        assert!(rest.is_none(), "{:?} rests at {rest:?}", w.text);
    }
    // The comma: the mouth rests after "Amiable", before "and".
    let (amiable, and) = (words[0], words[1]);
    assert!(
        u.visemes.iter().any(|v| v.id == VisemeId::SILENCE
            && v.offset_ms >= amiable.offset_ms + amiable.duration_ms - 1.0
            && v.offset_ms < and.offset_ms),
        "{:?}",
        u.visemes
    );
}
