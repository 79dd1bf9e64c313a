//! Which phonemes of a line carry stress. espeak-ng's phoneme events say which phoneme sounds
//! when but not its stress; its transcript of the same text (`espeak_TextToPhonemes`) marks
//! stressed syllables with ˈ and ˌ before their vowels. [`StressMarks`] reads that transcript
//! and hands the stress to each event's phoneme as it comes, matching the two sequences in
//! order (a phoneme the transcript lacks is skipped over without losing the place).

use super::Stress;

/// How far ahead in the transcript a phoneme event is looked for.
const LOOKAHEAD: usize = 4;

const PRIMARY: char = 'ˈ';
const SECONDARY: char = 'ˌ';

/// The transcript's phonemes in order, each with its stress, and how far the events got.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StressMarks {
    phonemes: Vec<(String, Stress)>,
    next: usize,
}

impl StressMarks {
    /// Reads a transcript whose phonemes are separated by `separator` and words by spaces
    /// (what `espeak_TextToPhonemes` writes in IPA mode with a separator). A mark applies to
    /// the phoneme it is written on or, written alone, to the next phoneme.
    #[must_use]
    pub fn parse(transcript: &str, separator: char) -> Self {
        let mut phonemes = Vec::new();
        let mut pending = Stress::None;
        for token in transcript.split(|c: char| c == separator || c.is_whitespace()) {
            let mut stress = pending;
            let mut ipa = String::new();
            for c in token.chars() {
                match c {
                    PRIMARY => stress = stress.max(Stress::Primary),
                    SECONDARY => stress = stress.max(Stress::Secondary),
                    _ => ipa.push(c),
                }
            }
            if ipa.is_empty() {
                pending = stress;
            } else {
                phonemes.push((ipa, stress));
                pending = Stress::None;
            }
        }
        Self { phonemes, next: 0 }
    }

    /// The stress of the next phoneme event, `ipa` (as the events spell it): found a few
    /// phonemes ahead at most, else unstressed and the place kept.
    pub fn next(&mut self, ipa: &str) -> Stress {
        let ahead = self
            .phonemes
            .iter()
            .enumerate()
            .skip(self.next)
            .take(LOOKAHEAD);
        for (i, (spelled, stress)) in ahead {
            if spelled == ipa {
                self.next = i + 1;
                return *stress;
            }
        }
        Stress::None
    }

    /// How many of the transcript's phonemes are stressed.
    #[must_use]
    pub fn stressed(&self) -> usize {
        self.phonemes.iter().filter(|(_, s)| !s.is_none()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_go_to_the_phoneme_they_are_written_on_or_before() {
        let mut marks = StressMarks::parse("h_ə_l_ˈoʊ t_ɹ_ˌæ_v ˈ_ɛ_l", '_');
        assert_eq!(marks.stressed(), 3);
        let got: Vec<Stress> = ["h", "ə", "l", "oʊ", "t", "ɹ", "æ", "v", "ɛ", "l"]
            .iter()
            .map(|p| marks.next(p))
            .collect();
        use Stress::{None as N, Primary as P, Secondary as S};
        assert_eq!(got, [N, N, N, P, N, N, S, N, P, N]);
    }

    #[test]
    fn a_phoneme_the_transcript_lacks_keeps_the_place() {
        let mut marks = StressMarks::parse("w_ˈɜː_l_d", '_');
        assert_eq!(marks.next("w"), Stress::None);
        assert_eq!(marks.next("ʔ"), Stress::None);
        assert_eq!(marks.next("ɜː"), Stress::Primary);
        assert_eq!(marks.next("l"), Stress::None);
        // Past the end nothing is stressed.
        assert_eq!(marks.next("d"), Stress::None);
        assert_eq!(marks.next("ɜː"), Stress::None);
    }
}
