//! Forced alignment: the model searched along the script's phones alone, one word per phone,
//! with optional silence between words.

use std::fmt::Write as _;
use std::path::Path;

use super::library::{self, Decoder};
use super::{FRAME_MS, Heard, ScriptPhone, arpabet};

/// The dictionary word for a silence between words.
const SILENCE: &str = "sil";
/// What the decoder calls a step of the grammar that hears nothing.
const NULL_STEP: &str = "(NULL)";

/// The search's settings over PocketSphinx's defaults.
const SETTINGS: [(&str, &str); 5] = [
    // Wide beams: the grammar is one path, so the search stays small. At 1e-80 the search
    // lost the path in MFA's cold_corpus (a speaker with a cold, long pauses: "followed the
    // script for 0 of its 217 phones"); at 1e-120 and wider it follows it, and the
    // LibriVox figures do not move.
    ("-beam", "1e-160"),
    ("-pbeam", "1e-160"),
    ("-wbeam", "1e-140"),
    // Silences only where the grammar allows them (between words).
    ("-fsgusefiller", "no"),
    // On or off, 84.2% of the LibriVox frames in the right class (core/tests/alignment.rs);
    // on as for phone recognition, where it gained 2.8 points.
    ("-remove_noise", "yes"),
];

/// A decoder that knows each phone as a word of its own, and the silence.
pub(super) fn new_decoder(dir: &Path, sample_rate: u32) -> Result<Decoder, String> {
    let mut decoder = Decoder::new(dir, sample_rate, &SETTINGS)?;
    for phone in arpabet::PHONES {
        decoder.add_word(&word_of(phone), phone)?;
    }
    decoder.add_word(SILENCE, "SIL")?;
    Ok(decoder)
}

fn word_of(phone: &str) -> String {
    format!("ph_{}", phone.to_ascii_lowercase())
}

/// The script as a grammar of one path (its phones, an optional silence before each word and
/// at the end), and for each phone of that path the script phoneme it belongs to.
pub(super) fn grammar(script: &[ScriptPhone<'_>]) -> (String, Vec<usize>) {
    let mut body = String::new();
    let mut owners = Vec::new();
    for (i, phone) in script.iter().enumerate() {
        let phones = arpabet::phones_for_ipa(phone.ipa);
        if phone.starts_word || owners.is_empty() {
            body.push_str(" [sil]");
        }
        for p in phones {
            let _ = write!(body, " {}", word_of(p));
            owners.push(i);
        }
    }
    body.push_str(" [sil]");
    (
        format!("#JSGF V1.0;\ngrammar script;\npublic <script> ={body};\n"),
        owners,
    )
}

/// What a step of the decoder's path is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// One of the grammar's empty steps (an optional silence not taken).
    Empty,
    /// A silence (or the decoder's own markers of the utterance's ends).
    Silence,
    /// One of the script's phones.
    Phone,
}

pub(super) fn step(word: &str) -> Step {
    if word == NULL_STEP {
        Step::Empty
    } else if word == SILENCE || word.starts_with('<') {
        Step::Silence
    } else {
        Step::Phone
    }
}

/// The decoder's words back on the script's phonemes.
pub(super) fn heard(
    segments: &[library::Segment],
    owners: &[usize],
    phonemes: usize,
) -> Result<Heard, String> {
    let mut out = Heard {
        phones: vec![Vec::new(); phonemes],
        silences: Vec::new(),
    };
    let mut next = 0;
    for s in segments {
        let span = (s.first as f64 * FRAME_MS, (s.last + 1) as f64 * FRAME_MS);
        match step(&s.word) {
            Step::Empty => continue,
            Step::Silence => {
                out.silences.push(span);
                continue;
            }
            Step::Phone => {}
        }
        let owner = *owners
            .get(next)
            .ok_or_else(|| "the acoustic model heard more phones than the script has".to_owned())?;
        next += 1;
        out.phones[owner].push(span);
    }
    if next != owners.len() {
        return Err(format!(
            "the acoustic model followed the script for {next} of its {} phones",
            owners.len()
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn phone(ipa: &str, starts_word: bool) -> ScriptPhone<'_> {
        ScriptPhone { ipa, starts_word }
    }

    #[test]
    fn the_grammar_is_the_scripts_phones_with_silence_between_words() {
        let script = [phone("h", true), phone("aɪ", false), phone("ðɛɹ", true)];
        let (g, owners) = grammar(&script);
        assert!(
            g.contains("= [sil] ph_hh ph_ay [sil] ph_dh ph_eh ph_r [sil];"),
            "{g}"
        );
        assert_eq!(owners, [0, 1, 2, 2, 2]);
    }

    #[test]
    fn the_words_heard_land_on_their_phonemes() {
        let seg = |word: &str, first, last| library::Segment {
            word: word.to_owned(),
            first,
            last,
        };
        let owners = [0, 1, 1];
        let segments = [
            seg("sil", 0, 9),
            seg("ph_hh", 10, 14),
            seg("(NULL)", 15, 15),
            seg("ph_eh", 15, 24),
            seg("ph_r", 25, 29),
        ];
        let heard = heard(&segments, &owners, 3).unwrap();
        assert_eq!(heard.silences, [(0.0, 100.0)]);
        assert_eq!(
            heard.phones,
            [
                vec![(100.0, 150.0)],
                vec![(150.0, 250.0), (250.0, 300.0)],
                vec![]
            ]
        );
        // Fewer phones than the script: the search stopped short, which is said.
        assert!(super::heard(&segments[..4], &owners, 3).is_err());
    }
}
