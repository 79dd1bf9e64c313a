//! The offline engine's English phonemes (IPA) in the phone set of the CMU acoustic models
//! (ARPAbet, 39 phones): what the aligner asks the model to find.

use crate::speech::ipa::decomposed_unless;

/// The model's phones.
pub(super) const PHONES: [&str; 39] = [
    "AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G", "HH",
    "IH", "IY", "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T", "TH", "UH",
    "UW", "V", "W", "Y", "Z", "ZH",
];

/// Each phone as the engine writes it (IPA), in [`PHONES`]' order: what a phone the model
/// hears looks like to the viseme map.
const IPA: [&str; 39] = [
    "ɑ", "æ", "ʌ", "ɔ", "aʊ", "aɪ", "b", "tʃ", "d", "ð", "ɛ", "ɚ", "eɪ", "f", "ɡ", "h", "ɪ", "i",
    "dʒ", "k", "l", "m", "n", "ŋ", "oʊ", "ɔɪ", "p", "ɹ", "s", "ʃ", "t", "θ", "ʊ", "u", "v", "w",
    "j", "z", "ʒ",
];

/// The IPA of one of the model's phones (`"AY"` is `"aɪ"`); None for a name it has not
/// (silence, noise).
pub(super) fn ipa_of(phone: &str) -> Option<&'static str> {
    PHONES.iter().position(|&p| p == phone).map(|i| IPA[i])
}

/// Sounds of two or more symbols, matched before single ones.
const CLUSTERS: [(&str, &[&str]); 13] = [
    ("tʃ", &["CH"]),
    // Japanese u, the lips compressed: nearer English u than the spread ɯ.
    ("ɯᵝ", &["UW"]),
    ("dʒ", &["JH"]),
    ("aɪ", &["AY"]),
    ("aʊ", &["AW"]),
    ("eɪ", &["EY"]),
    ("oʊ", &["OW"]),
    ("əʊ", &["OW"]),
    ("ɔɪ", &["OY"]),
    ("ɪə", &["IH", "AH"]),
    ("eə", &["EH", "AH"]),
    ("ɛə", &["EH", "AH"]),
    ("ʊə", &["UH", "AH"]),
];

/// One symbol's phone, by where and how it is articulated; the sounds of other languages
/// as the nearest English one (French ʁ as R, German x as K, Turkish ɯ as IH).
fn single(c: char) -> Option<&'static str> {
    Some(match c {
        'æ' | 'a' | 'ɶ' => "AE",
        'ɐ' | 'ʌ' | 'ə' | 'ɤ' | 'ɘ' => "AH",
        'ɑ' | 'ɒ' => "AA",
        'ɔ' => "AO",
        'o' => "OW",
        'e' | 'ɛ' => "EH",
        'ɪ' | 'ᵻ' | 'ɨ' | 'ɯ' => "IH",
        'i' => "IY",
        'u' | 'y' | 'ʉ' => "UW",
        'ʊ' | 'ʏ' => "UH",
        'ɚ' | 'ɜ' | 'ɝ' | 'ø' | 'œ' | 'ɵ' | 'ɞ' => "ER",
        'p' => "P",
        'b' | 'β' => "B",
        't' | 'ʔ' | 'ʈ' => "T",
        'd' | 'ɾ' | 'ɽ' | 'ɖ' => "D",
        'k' | 'x' | 'c' | 'q' => "K",
        'ɡ' | 'g' | 'ɣ' | 'ɟ' | 'ɢ' => "G",
        'f' | 'ɸ' => "F",
        'v' | 'ʋ' => "V",
        'θ' => "TH",
        'ð' => "DH",
        's' => "S",
        'z' => "Z",
        'ʃ' | 'ɕ' | 'ʂ' => "SH",
        'ʒ' | 'ʑ' | 'ʐ' => "ZH",
        'h' | 'ç' | 'ħ' | 'ʕ' | 'ɦ' | 'χ' => "HH",
        'm' | 'ɱ' => "M",
        'n' | 'ɲ' | 'ɳ' => "N",
        'ŋ' | 'ɴ' => "NG",
        'l' | 'ɫ' | 'ʎ' | 'ɭ' => "L",
        'ɹ' | 'r' | 'ʁ' | 'ʀ' | 'ɻ' => "R",
        'w' | 'ʍ' | 'ɥ' => "W",
        'j' | 'ʝ' => "Y",
        _ => return None,
    })
}

/// Marks that change no phone: length, stress, syllabic and other diacritics.
fn is_mark(c: char) -> bool {
    matches!(c, 'ː' | 'ˑ' | 'ˈ' | 'ˌ' | '\u{0300}'..='\u{036F}')
}

/// The model's phones for one phoneme of the engine (`"aɪ"`, `"ɔːɹ"`, `"əl"`), in order; empty
/// for a pause or a sound the model has no phone for.
pub(super) fn phones_for_ipa(ipa: &str) -> Vec<&'static str> {
    let symbols: String = decomposed_unless(ipa, |c| single(c).is_some())
        .chars()
        .filter(|&c| !is_mark(c))
        .collect();
    let mut rest = symbols.as_str();
    let mut out = Vec::new();
    while let Some(c) = rest.chars().next() {
        if let Some((cluster, phones)) = CLUSTERS.iter().find(|(k, _)| rest.starts_with(k)) {
            out.extend_from_slice(phones);
            rest = &rest[cluster.len()..];
            continue;
        }
        out.extend(single(c));
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn english_phonemes_become_the_models_phones() {
        assert_eq!(phones_for_ipa("aɪ"), ["AY"]);
        assert_eq!(phones_for_ipa("ɔːɹ"), ["AO", "R"]);
        assert_eq!(phones_for_ipa("əl"), ["AH", "L"]);
        assert_eq!(phones_for_ipa("tʃ"), ["CH"]);
        assert_eq!(phones_for_ipa("ˈiː"), ["IY"]);
        assert_eq!(phones_for_ipa("n̩"), ["N"]);
        // espeak-ng's Japanese: a precomposed ä, the retroflex flap, the compressed u.
        assert_eq!(phones_for_ipa("ä"), ["AE"]);
        assert_eq!(phones_for_ipa("ɽ"), ["D"]);
        assert_eq!(phones_for_ipa("ɯᵝ"), ["UW"]);
        assert_eq!(phones_for_ipa("ç"), ["HH"]);
        assert!(phones_for_ipa("_").is_empty());
        // Each phone's IPA is that phone again.
        for p in PHONES {
            assert_eq!(phones_for_ipa(ipa_of(p).unwrap()), [p]);
        }
        assert_eq!(ipa_of("SIL"), None);
        // Every phone named is one the model has.
        for ipa in [
            "æ", "ɐ", "ɚ", "ɾ", "ʔ", "eə", "ʊə", "oʊ", "ʒ", "θ", "ŋ", "j",
        ] {
            for p in phones_for_ipa(ipa) {
                assert!(PHONES.contains(&p), "{ipa} -> {p}");
            }
        }
    }
}
