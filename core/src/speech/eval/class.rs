//! The seven mouth classes the measure compares, and the class of each labelled phone.

use std::fmt;

/// The seven mouth classes the measure compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MouthClass {
    Silence,
    Closed,
    Labiodental,
    Rounded,
    Open,
    Spread,
    Other,
}

impl MouthClass {
    /// Every class, in the order of [`Score::confusion`].
    pub const ALL: [Self; 7] = [
        Self::Silence,
        Self::Closed,
        Self::Labiodental,
        Self::Rounded,
        Self::Open,
        Self::Spread,
        Self::Other,
    ];

    /// This class's place in [`Self::ALL`].
    #[must_use]
    pub fn index(self) -> usize {
        self as usize
    }

    /// A vowel's mouth (rounded, open or spread).
    #[must_use]
    pub fn is_vowel(self) -> bool {
        matches!(self, Self::Rounded | Self::Open | Self::Spread)
    }

    /// The class of an Azure viseme id.
    #[must_use]
    pub fn of_viseme(id: u8) -> Self {
        match id {
            0 => Self::Silence,
            21 => Self::Closed,
            18 => Self::Labiodental,
            3 | 7 | 8 | 10 | 13 | 16 => Self::Rounded,
            1 | 2 | 9 | 11 => Self::Open,
            4..=6 => Self::Spread,
            _ => Self::Other,
        }
    }

    /// The class of an MBROLA voice's SAMPA phone (`_` is silence), in no language in
    /// particular: [`Self::of_sampa_in`] with no language.
    #[must_use]
    pub fn of_sampa(phone: &str) -> Self {
        Self::of_sampa_in("", phone)
    }

    /// The class of an MBROLA voice's SAMPA phone spoken in `language` (BCP 47). Phones take
    /// the class of the viseme Azure's documented phone table gives them (ə is viseme 1, open;
    /// j is 6, spread; English ɹ is 13, rounded; ʃ ʒ tʃ dʒ are 16, rounded; ɝ and ɜ are 5, spread;
    /// ʊ is 4, spread), and
    /// sounds Azure's English table lacks that of the nearest by articulation. Stress and
    /// length marks (`:`, `/`, digits) and a glottal onset (`?a`) do not change the mouth.
    /// The voices' own symbols: us1-3 and en1 (English), fr1-4, de1-6, es1-2 and mx1, it3-4,
    /// pt1 and br1 (whose nasal vowels are `em`, `am`, `om`...), nl2, tr1-2 (where `y` and `@'`
    /// are the rounded front vowels and `@` the unrounded back one).
    #[must_use]
    pub fn of_sampa_in(language: &str, phone: &str) -> Self {
        let primary = language.split(['-', '_']).next().unwrap_or("");
        let english = primary.eq_ignore_ascii_case("en");
        let mut p = phone.trim_start_matches('?').trim_end_matches([':', '/']);
        // A stress digit after a letter (it3's "a1"); "2", "6" and "9" are vowels themselves.
        while let [.., before, last] = p.as_bytes()
            && last.is_ascii_digit()
            && before.is_ascii_alphabetic()
        {
            p = &p[..p.len() - 1];
        }
        match p {
            "_" | "" => Self::Silence,
            "r" if english => Self::Rounded,
            "r=" | "3" if english => Self::Spread,
            "U" | "U@" if english => Self::Spread,
            "@" if primary.eq_ignore_ascii_case("tr") => Self::Spread,
            "p" | "p_h" | "b" | "m" => Self::Closed,
            // Azure's 16 (ʃ ʒ tʃ dʒ), a rounded viseme: the lips push forward.
            "S" | "Z" | "tS" | "dZ" => Self::Rounded,
            "f" | "v" | "pf" => Self::Labiodental,
            "u" | "U" | "o" | "O" | "@U" | "OI" | "w" | "y" | "Y" | "2" | "9" | "o~" | "9~"
            | "H" | "Q" | "U@" | "OY" | "o^" | "9^" | "@'" | "9y" | "om" | "um" | "oo" | "O2" => {
                Self::Rounded
            }
            "a" | "A" | "{" | "V" | "AI" | "aI" | "aU" | "Au" | "a~" | "a^" | "6" | "E~" | "E^"
            | "@" | "am" => Self::Open,
            "i" | "I" | "e" | "E" | "EI" | "Ei" | "eI" | "I@" | "e@" | "e~" | "j" | "jj" | "em"
            | "im" | "ee" | "3" | "r=" => Self::Spread,
            _ if p.starts_with("6~") => Self::Open,
            _ if p.len() > 1 && p.ends_with('~') => Self::of_sampa_in(language, &p[..p.len() - 1]),
            _ => Self::Other,
        }
    }

    /// The class of an English ARPAbet phone (any case; a stress digit passes over), by the
    /// same table as English SAMPA: ʊ (UH) and ɝ (ER) spread, ɹ (R) and ʃ ʒ tʃ dʒ rounded, ə
    /// (AX, AH) open.
    #[must_use]
    pub fn of_arpabet(phone: &str) -> Self {
        let p = phone
            .trim_end_matches(|c: char| c.is_ascii_digit())
            .to_ascii_lowercase();
        match p.as_str() {
            "" | "sil" | "pau" | "sp" | "spn" | "h#" => Self::Silence,
            "p" | "b" | "m" => Self::Closed,
            "f" | "v" => Self::Labiodental,
            "uw" | "ow" | "ao" | "oy" | "w" | "r" | "sh" | "zh" | "ch" | "jh" => Self::Rounded,
            "aa" | "ae" | "ah" | "ax" | "aw" | "ay" => Self::Open,
            "iy" | "ih" | "ix" | "eh" | "ey" | "y" | "uh" | "er" | "axr" => Self::Spread,
            _ => Self::Other,
        }
    }

    /// The class of a phone of Japanese HTS labels (JSUT, Open JTalk: `a i u e o`, devoiced
    /// `A I U E O`, `N`, `cl`, consonants in romaji). Japanese u is compressed rather than
    /// pushed forward; it takes the rounded class as VRM's five vowel shapes (aa ih ou ee oh)
    /// give it "ou". ɕ tɕ dʑ (`sh ch j`) take Azure's 16 as ʃ tʃ dʒ do, ɸ (`f`) Azure's f, and
    /// palatalised consonants (`my`, `ky`) their consonant's class; the geminate hold (`cl`) and
    /// the moraic nasal (`N`), whose mouth is the next sound's, are other.
    #[must_use]
    pub fn of_japanese(phone: &str) -> Self {
        match phone {
            "sil" | "pau" | "" => Self::Silence,
            "p" | "b" | "m" | "py" | "by" | "my" => Self::Closed,
            "f" | "v" => Self::Labiodental,
            "u" | "U" | "o" | "O" | "w" | "sh" | "ch" | "j" => Self::Rounded,
            "a" | "A" => Self::Open,
            "i" | "I" | "e" | "E" | "y" => Self::Spread,
            _ => Self::Other,
        }
    }
}

impl MouthClass {
    /// The class of a phone of festvox's Russian phone set (msu_ru, as the festvox-ru voice
    /// labels its utterances), from the features the set gives each: its labials (`p b m`,
    /// palatalised `pp bb mm`) closed, its labio-dentals (`f v ff vv`) labiodental, its rounded
    /// vowels (`uu oo u ur`) rounded, `aa a` and the reduced `ae ay` (ə-like) open, `ii yy i y
    /// ee e` (ɨ among them) and `j` spread; ʂ ʐ ɕː tɕ (`sh zh sch ch`) take Azure's 16 as ʃ ʒ tʃ
    /// do, rounded; the trill (`r rr`) is the tongue tip's, other.
    #[must_use]
    pub fn of_festvox_russian(phone: &str) -> Self {
        match phone {
            "pau" | "" => Self::Silence,
            "p" | "pp" | "b" | "bb" | "m" | "mm" => Self::Closed,
            "f" | "ff" | "v" | "vv" => Self::Labiodental,
            "uu" | "oo" | "u" | "ur" | "sh" | "zh" | "sch" | "ch" => Self::Rounded,
            "aa" | "a" | "ae" | "ay" => Self::Open,
            "ii" | "yy" | "i" | "y" | "ee" | "e" | "j" => Self::Spread,
            _ => Self::Other,
        }
    }
}

/// The symbol set a label file names its phones in, which decides each phone's class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PhoneSymbols {
    /// An MBROLA voice's SAMPA, spoken in a language (BCP 47): [`MouthClass::of_sampa_in`].
    Sampa(String),
    /// English ARPAbet, any case, stress digits allowed (CMU's dictionary, festvox's ARCTIC
    /// labels): [`MouthClass::of_arpabet`].
    Arpabet,
    /// The romaji-like phones of Japanese HTS labels (JSUT, Open JTalk):
    /// [`MouthClass::of_japanese`].
    Japanese,
    /// The Russian phones of festvox's msu_ru phone set (`pau`, `pp`, `oo`, `sch`, ...):
    /// [`MouthClass::of_festvox_russian`].
    FestvoxRussian,
}

impl PhoneSymbols {
    /// The symbols of an HTK or Festival label file (`.lab`) in `language`: Japanese's HTS
    /// phones for Japanese, festvox's msu_ru phones for Russian, else ARPAbet.
    #[must_use]
    pub fn of_lab_in(language: &str) -> Self {
        let primary = language.split(['-', '_']).next().unwrap_or("");
        if primary.eq_ignore_ascii_case("ja") {
            Self::Japanese
        } else if primary.eq_ignore_ascii_case("ru") {
            Self::FestvoxRussian
        } else {
            Self::Arpabet
        }
    }

    /// The mouth class of `phone` in these symbols.
    #[must_use]
    pub fn class(&self, phone: &str) -> MouthClass {
        match self {
            Self::Sampa(language) => MouthClass::of_sampa_in(language, phone),
            Self::Arpabet => MouthClass::of_arpabet(phone),
            Self::Japanese => MouthClass::of_japanese(phone),
            Self::FestvoxRussian => MouthClass::of_festvox_russian(phone),
        }
    }
}

impl fmt::Display for MouthClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_follow_the_measures_table() {
        assert_eq!(MouthClass::of_viseme(21), MouthClass::Closed);
        assert_eq!(MouthClass::of_viseme(18), MouthClass::Labiodental);
        assert_eq!(MouthClass::of_viseme(13), MouthClass::Rounded);
        assert_eq!(MouthClass::of_viseme(11), MouthClass::Open);
        assert_eq!(MouthClass::of_viseme(6), MouthClass::Spread);
        assert_eq!(MouthClass::of_viseme(15), MouthClass::Other);
        assert_eq!(MouthClass::of_sampa("y:"), MouthClass::Rounded);
        assert_eq!(MouthClass::of_sampa("pf"), MouthClass::Labiodental);
        assert_eq!(MouthClass::of_sampa("S"), MouthClass::Rounded, "Azure's 16");
        assert_eq!(MouthClass::of_sampa("tS"), MouthClass::Rounded);
        assert_eq!(MouthClass::of_sampa("s"), MouthClass::Other);
        // Azure's table: ə open, j spread; English ɹ rounded, elsewhere a tongue sound.
        assert_eq!(MouthClass::of_sampa("@"), MouthClass::Open);
        assert_eq!(MouthClass::of_sampa("j"), MouthClass::Spread);
        assert_eq!(MouthClass::of_sampa_in("en-US", "r"), MouthClass::Rounded);
        assert_eq!(MouthClass::of_sampa_in("es-ES", "r"), MouthClass::Other);
        assert_eq!(MouthClass::of_sampa_in("tr-TR", "@"), MouthClass::Spread);
        // Marks pass over; vowels named by digits stay vowels.
        assert_eq!(MouthClass::of_sampa("o/"), MouthClass::Rounded);
        assert_eq!(MouthClass::of_sampa("a1"), MouthClass::Open);
        assert_eq!(MouthClass::of_sampa("?E:"), MouthClass::Spread);
        assert_eq!(MouthClass::of_sampa("2:"), MouthClass::Rounded);
        assert_eq!(MouthClass::of_sampa("6"), MouthClass::Open);
        assert_eq!(MouthClass::of_sampa("u~"), MouthClass::Rounded);
        assert_eq!(MouthClass::of_sampa("6~j~"), MouthClass::Open);
    }

    #[test]
    fn arpabet_and_japanese_phones_take_the_classes_of_their_sounds() {
        assert_eq!(MouthClass::of_arpabet("M"), MouthClass::Closed);
        assert_eq!(MouthClass::of_arpabet("uw1"), MouthClass::Rounded);
        assert_eq!(MouthClass::of_arpabet("ax"), MouthClass::Open);
        assert_eq!(MouthClass::of_arpabet("er"), MouthClass::Spread);
        assert_eq!(MouthClass::of_arpabet("r"), MouthClass::Rounded);
        assert_eq!(MouthClass::of_arpabet("dh"), MouthClass::Other);
        assert_eq!(MouthClass::of_arpabet("pau"), MouthClass::Silence);
        assert_eq!(MouthClass::of_japanese("my"), MouthClass::Closed);
        assert_eq!(
            MouthClass::of_japanese("U"),
            MouthClass::Rounded,
            "devoiced u"
        );
        assert_eq!(
            MouthClass::of_japanese("y"),
            MouthClass::Spread,
            "a glide, not ü"
        );
        assert_eq!(MouthClass::of_japanese("N"), MouthClass::Other);
        assert_eq!(MouthClass::of_japanese("sil"), MouthClass::Silence);
        // The same symbol in another set: SAMPA's y is ü.
        assert_eq!(
            PhoneSymbols::Sampa("de-DE".into()).class("y"),
            MouthClass::Rounded
        );
        assert_eq!(PhoneSymbols::of_lab_in("ja-JP"), PhoneSymbols::Japanese);
        assert_eq!(PhoneSymbols::of_lab_in("en-US"), PhoneSymbols::Arpabet);
    }
}
