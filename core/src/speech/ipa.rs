//! IPA phonemes -> visemes, by articulation, for every language espeak-ng speaks: where the
//! lips close (bilabials), where the lower lip meets the teeth (labiodentals), where the tongue
//! is (dental, alveolar, postalveolar, palatal, velar), and for vowels how open and how
//! rounded the mouth is. Length marks, stress, tones and diacritics do not change the mouth's
//! shape and are passed over (a precomposed letter such as espeak-ng's Japanese ä is read as
//! its letter and its diacritic), except the compressed lips of Japanese ɯᵝ, which round it; a
//! diphthong or affricate gives one viseme per part, as Azure's events do.

use unicode_normalization::UnicodeNormalization;

use crate::viseme::VisemeId;

/// Most visemes one phoneme gives.
const MOST: usize = 4;

/// The visemes of one phoneme, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhonemeVisemes {
    ids: [VisemeId; MOST],
    len: u8,
}

impl PhonemeVisemes {
    /// The silence viseme alone (a pause).
    pub const SILENCE: Self = Self {
        ids: [VisemeId::SILENCE; MOST],
        len: 1,
    };

    #[must_use]
    pub fn as_slice(&self) -> &[VisemeId] {
        &self.ids[..usize::from(self.len)]
    }

    /// The last viseme made with the lips compressed (`ᵝ`): a close spread vowel (ɯ) takes the
    /// rounded u's viseme; the rest keep theirs.
    fn compress_last(&mut self) {
        let len = usize::from(self.len);
        if len > 0 && self.ids[len - 1].get() == 6 {
            self.ids[len - 1] = VisemeId::new_or_silence(7);
        }
    }

    fn push(&mut self, id: VisemeId) {
        let len = usize::from(self.len);
        // A repeated shape (a long consonant spelled twice) is one viseme.
        if len > 0 && self.ids[len - 1] == id {
            return;
        }
        if len < MOST {
            self.ids[len] = id;
            self.len += 1;
        }
    }
}

/// Whether `c` only modifies the sound before it (length, stress, tone, diacritics, tie bars,
/// syllable marks): it leaves the mouth as it is.
fn is_modifier(c: char) -> bool {
    matches!(
        c,
        'ː' | 'ˑ'
            | 'ˈ'
            | 'ˌ'
            | 'ʰ'
            | 'ʱ'
            | 'ʲ'
            | 'ʷ'
            | 'ˠ'
            | 'ˤ'
            | 'ʼ'
            | 'ⁿ'
            | 'ˡ'
            | 'ˀ'
            | '˞'
            | '.'
            | '-'
            | '\''
            | ','
            | '%'
            | '='
            | '˥'
            | '˦'
            | '˧'
            | '˨'
            | '˩'
    ) || c.is_ascii_digit()
        || ('\u{0300}'..='\u{036F}').contains(&c)
}

/// The viseme of one IPA letter, by where and how it is made; `None` for a letter that is not
/// an IPA sound.
#[allow(clippy::match_same_arms)] // grouped by articulation, not by result
fn viseme_of(c: char) -> Option<u8> {
    Some(match c {
        // Lips together.
        'p' | 'b' | 'm' | 'ɓ' | 'ʙ' | 'ɸ' | 'β' => 21,
        // Lower lip to the upper teeth.
        'f' | 'v' | 'ɱ' | 'ʋ' => 18,
        // Tongue between the teeth.
        'ð' => 17,
        'θ' => 19,
        // Tongue tip at the ridge: stops, nasals, taps and trills (espeak-ng's `r` in German,
        // Spanish, Turkish, Italian: the lips take no part, unlike English ɹ).
        't' | 'd' | 'n' | 'ɗ' | 'ʈ' | 'ɖ' | 'ɳ' | 'ɾ' | 'ɽ' | 'r' => 19,
        // Sibilants.
        's' | 'z' => 15,
        'ʃ' | 'ʒ' | 'ʂ' | 'ʐ' | 'ɕ' | 'ʑ' => 16,
        // Approximant rhotics (English r), made with the lips a little rounded.
        'ɹ' | 'ɻ' => 13,
        // Laterals.
        'l' | 'ɫ' | 'ɭ' | 'ʎ' | 'ʟ' | 'ɬ' | 'ɮ' | 'ɺ' => 14,
        // Palatal: the tongue raised, the lips spread.
        'j' | 'ç' | 'ʝ' => 6,
        'ɲ' => 19,
        // Back of the tongue (velar, palatal stops, uvular).
        'k' | 'g' | 'ɡ' | 'ŋ' | 'x' | 'ɣ' | 'ɰ' | 'c' | 'ɟ' | 'q' | 'ɢ' | 'ɴ' | 'χ' | 'ʁ' | 'ʀ' => {
            20
        }
        // Rounded approximants.
        'w' | 'ʍ' | 'ɥ' => 7,
        // Throat: the mouth as it is, a little open.
        'h' | 'ɦ' | 'ħ' | 'ʕ' | 'ʔ' | 'ʜ' | 'ʢ' | 'ʡ' => 12,
        // Close vowels: spread, or rounded.
        'i' | 'ɪ' | 'ɨ' | 'ɯ' => 6,
        'y' | 'ʏ' | 'u' | 'ʉ' | 'ʊ' => 7,
        // Mid vowels.
        'e' | 'ɛ' | 'ɘ' | 'ɜ' => 4,
        'ø' | 'œ' | 'o' | 'ɵ' | 'ɞ' => 8,
        'ɤ' | 'ə' | 'ɐ' | 'ʌ' | 'æ' => 1,
        'ɚ' | 'ɝ' => 5,
        // Open vowels.
        'a' | 'ɑ' => 2,
        'ɶ' | 'ɒ' | 'ɔ' => 3,
        _ => return None,
    })
}

/// The visemes of a phoneme espeak-ng reports for a voice of `language` (BCP 47): as
/// `visemes_for_ipa`, where the voice's own spelling of a sound differs from the IPA chart.
/// espeak-ng's German writes its vocalised r (ɐ: "Wasser" `vˈasɜ`, "oder") as ɜ, where its
/// English means the vowel of "bird" (`bˈɜːd`): in German it opens the mouth as ɐ does.
#[must_use]
pub fn visemes_for_ipa_in(language: &str, phoneme: &str) -> Option<PhonemeVisemes> {
    let primary = language.split(['-', '_']).next().unwrap_or("");
    if primary.eq_ignore_ascii_case("de") && phoneme.contains('ɜ') {
        return visemes_for_ipa(&phoneme.replace('ɜ', "ɐ"));
    }
    visemes_for_ipa(phoneme)
}

/// `phoneme` with each letter that `known` does not know decomposed (Unicode's canonical
/// decomposition: espeak-ng's Japanese ä as a and its diaeresis); known letters stay whole (ç
/// is a palatal fricative, not c with a cedilla).
pub(crate) fn decomposed_unless(phoneme: &str, known: impl Fn(char) -> bool) -> String {
    let mut letters = String::with_capacity(phoneme.len());
    for c in phoneme.chars() {
        if known(c) {
            letters.push(c);
        } else {
            letters.extend(std::iter::once(c).nfd());
        }
    }
    letters
}

/// Lips compressed (pressed together at the corners, not pushed forward), as espeak-ng writes
/// Japanese u: ɯᵝ.
const COMPRESSED: char = 'ᵝ';

/// The visemes of an IPA phoneme as espeak-ng reports it (`"tʃ"`, `"aɪ"`, `"ɛː"`, `"œ̃"`).
/// An empty phoneme is a pause; `None` when it holds a letter that is not an IPA sound.
#[must_use]
pub fn visemes_for_ipa(phoneme: &str) -> Option<PhonemeVisemes> {
    let mut out = PhonemeVisemes {
        ids: [VisemeId::SILENCE; MOST],
        len: 0,
    };
    let letters = decomposed_unless(phoneme, |c| viseme_of(c).is_some());
    for c in letters.chars().filter(|&c| !is_modifier(c) && c != '_') {
        if c == COMPRESSED {
            out.compress_last();
            continue;
        }
        out.push(VisemeId::new_or_silence(viseme_of(c)?));
    }
    if out.len == 0 {
        return Some(PhonemeVisemes::SILENCE);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(p: &str) -> Vec<u8> {
        visemes_for_ipa(p)
            .expect("an IPA sound")
            .as_slice()
            .iter()
            .map(|v| v.get())
            .collect()
    }

    #[test]
    fn maps_by_articulation() {
        assert_eq!(raw("b"), [21]);
        assert_eq!(raw("ɸ"), [21]);
        assert_eq!(raw("v"), [18]);
        assert_eq!(raw("tʃ"), [19, 16]);
        assert_eq!(raw("t͡ʃ"), [19, 16], "a tie bar joins, it is not a sound");
        assert_eq!(raw("aɪ"), [2, 6]);
        assert_eq!(raw("uː"), [7]);
        assert_eq!(raw("ˈɛː"), [4]);
        assert_eq!(raw("y"), [7], "a rounded front vowel rounds");
        assert_eq!(raw("œ̃"), [8], "nasal vowels keep their mouth");
        assert_eq!(raw("ll"), [14]);
        assert_eq!(raw("ä"), [2], "a precomposed letter is its letter");
        assert_eq!(raw("ç"), [6], "a letter of the chart stays whole");
        assert_eq!(raw("o̞"), [8]);
        assert_eq!(raw("ɯ"), [6], "Korean and Turkish ɯ spread the lips");
        assert_eq!(raw("ɯᵝ"), [7], "Japanese u compresses them");
        assert_eq!(raw("ma5"), [21, 2], "tones are passed over");
        assert_eq!(raw(""), [0]);
        assert!(visemes_for_ipa("Q").is_none());
    }

    #[test]
    fn a_trill_is_the_tongue_tip_and_only_english_r_rounds() {
        assert_eq!(raw("r"), [19], "German, Spanish, Turkish r");
        assert_eq!(raw("ɾ"), [19]);
        assert_eq!(raw("ɹ"), [13], "English r");
    }

    #[test]
    fn german_writes_its_vocalised_r_as_the_vowel_of_bird() {
        let ids = |language, p| {
            visemes_for_ipa_in(language, p)
                .expect("an IPA sound")
                .as_slice()
                .iter()
                .map(|v| v.get())
                .collect::<Vec<u8>>()
        };
        assert_eq!(ids("de-DE", "ɜ"), [1], "Wasser: vˈasɜ");
        assert_eq!(ids("en-US", "ɜː"), [4], "bird: bˈɜːd");
        assert_eq!(ids("de", "t"), [19]);
    }
}
