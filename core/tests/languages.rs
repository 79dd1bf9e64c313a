//! Offline speech in many languages: espeak-ng reports each phoneme in IPA, and every one of
//! them maps to a viseme by articulation: in each of thirteen languages no phoneme of the test
//! sentence falls through, every bilabial closes the lips (viseme 21), rounded vowels round.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use npc_core::project::Voice;
use npc_core::speech::{OfflineEngine, SpeechEngine, Stress, Utterance, visemes_for_ipa};

/// (espeak-ng language, a sentence with lips closing and rounding in it)
const SENTENCES: [(&str, &str); 13] = [
    ("en-US", "Bob may pour some blue paint."),
    ("de", "Peter mag Bücher über Bonn."),
    ("fr", "Papa boit un peu de bonne soupe."),
    ("es", "Pablo bebe mucho vino bueno."),
    ("it", "Paolo beve molto buono vino."),
    ("pt", "O pombo bebe muito bem."),
    ("fi", "Poika pani mummon kuppiin."),
    ("ru", "Папа пьёт молоко утром."),
    ("pl", "Mama pije mleko w domu."),
    ("nl", "Mijn broer poetst de boot."),
    ("sv", "Pappa bor på ön med mamma."),
    ("cs", "Maminka peče buchty pro Bobu."),
    // Kana: espeak-ng reads no kanji. "Every day I eat bread and beans."
    ("ja", "まいにち ぱんと まめを たべます。"),
];

const BILABIAL: [char; 6] = ['p', 'b', 'm', 'β', 'ɸ', 'ɓ'];
const ROUNDED: [char; 9] = ['u', 'o', 'y', 'ø', 'œ', 'ɔ', 'ʊ', 'ʏ', 'ɒ'];

/// `text` spoken by the offline engine in `language`'s default voice.
fn speak(engine: &OfflineEngine, language: &str, text: &str) -> Utterance {
    let voice = Voice {
        language: language.to_owned(),
        ..Voice::default()
    };
    engine.synthesize(text, &voice).unwrap()
}

#[test]
fn every_language_maps_every_phoneme_and_closes_the_lips_on_bilabials() {
    let engine = OfflineEngine::new().unwrap();
    for (language, text) in SENTENCES {
        let u = speak(&engine, language, text);
        let phonemes: Vec<&str> = u.phonemes.iter().map(|p| p.ipa.as_str()).collect();
        eprintln!("{language}: {phonemes:?}");
        assert!(phonemes.len() > 8, "{language}: {phonemes:?}");
        let unmapped: Vec<&&str> = phonemes
            .iter()
            .filter(|p| visemes_for_ipa(p).is_none())
            .collect();
        assert!(unmapped.is_empty(), "{language}: unmapped {unmapped:?}");
        let mut bilabials = 0;
        let mut rounded = 0;
        for p in &u.phonemes {
            let at = |id: u8| {
                u.visemes
                    .iter()
                    .any(|v| v.id.get() == id && (v.offset_ms - p.offset_ms).abs() < 0.5)
            };
            if p.ipa.chars().next().is_some_and(|c| BILABIAL.contains(&c)) {
                bilabials += 1;
                assert!(
                    at(21),
                    "{language}: {} at {} ms does not close the lips",
                    p.ipa,
                    p.offset_ms
                );
            }
            if p.ipa.chars().next().is_some_and(|c| ROUNDED.contains(&c)) {
                rounded += 1;
                assert!(
                    at(7) || at(8) || at(3),
                    "{language}: {} at {} ms does not round",
                    p.ipa,
                    p.offset_ms
                );
            }
        }
        assert!(
            bilabials >= 2,
            "{language}: {bilabials} bilabials in {phonemes:?}"
        );
        assert!(rounded >= 1, "{language}: no rounded vowel in {phonemes:?}");
    }
}

#[test]
fn every_language_marks_stressed_vowels() {
    let engine = OfflineEngine::new().unwrap();
    for (language, text) in SENTENCES {
        let u = speak(&engine, language, text);
        let stressed: Vec<&str> = u
            .phonemes
            .iter()
            .filter(|p| p.stress == Stress::Primary)
            .map(|p| p.ipa.as_str())
            .collect();
        eprintln!("{language}: stressed {stressed:?}");
        // Each sentence has at least three content words, each with a stressed vowel.
        assert!(stressed.len() >= 2, "{language}: stressed {stressed:?}");
        let consonants: Vec<&&str> = stressed
            .iter()
            .filter(|p| {
                visemes_for_ipa(p)
                    .is_some_and(|v| v.as_slice().iter().all(|id| id.get() > 11 || id.get() == 0))
            })
            .collect();
        assert!(
            consonants.is_empty(),
            "{language}: stressed consonants {consonants:?}"
        );
    }
}

/// Languages as users tag them (BCP 47 with a region espeak-ng has no voice of its own for)
/// speak the language's voice: "fr-FR" as "fr".
#[test]
fn a_region_without_its_own_voice_speaks_the_languages() {
    let engine = OfflineEngine::new().unwrap();
    for (tagged, base, text) in [
        ("fr-FR", "fr", "Papa boit un peu de bonne soupe."),
        ("de-DE", "de", "Peter mag Bücher über Bonn."),
        ("es-ES", "es", "Pablo bebe mucho vino bueno."),
    ] {
        let region = speak(&engine, tagged, text);
        let language = speak(&engine, base, text);
        let phonemes =
            |u: &Utterance| -> Vec<String> { u.phonemes.iter().map(|p| p.ipa.clone()).collect() };
        assert!(!region.pcm.is_empty(), "{tagged} speaks");
        assert_eq!(
            phonemes(&region),
            phonemes(&language),
            "{tagged} speaks as {base}"
        );
    }
}
