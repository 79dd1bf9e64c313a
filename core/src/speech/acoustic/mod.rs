//! Where a recording's phones are, found by an acoustic model: PocketSphinx's US English
//! model searched along the script's phones alone (forced alignment), with optional silence
//! between words. It hears speech as an acoustic model trained on many speakers does, where
//! warping onto a synthesis only compares two sounds.

mod arpabet;
mod library;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::resample::resample;
use library::Decoder;

/// Where Debian's pocketsphinx-en-us puts the model.
const DEBIAN_MODEL: &str = "/usr/share/pocketsphinx/model/en-us/en-us";
/// Names another model folder (same phone set).
pub const MODEL_ENV: &str = "NPC_ACOUSTIC_MODEL";
/// The dictionary word for a silence between words.
const SILENCE: &str = "sil";
/// What the decoder calls a step of the grammar that hears nothing.
const NULL_STEP: &str = "(NULL)";
/// The model's frames, ms.
const FRAME_MS: f64 = 10.0;
/// The model is trained on wideband speech at this rate: its filters reach 6.8 kHz.
const MODEL_RATE: u32 = 16_000;

/// One phoneme of the script, as the engine spoke it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScriptPhone<'a> {
    pub ipa: &'a str,
    /// It begins a word (a silence may come before it).
    pub starts_word: bool,
}

/// Where the model heard the script.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Heard {
    /// For each phoneme of the script, its start and end in the recording, ms; None for one
    /// the model has no phone for (a pause).
    pub phones: Vec<Option<(f64, f64)>>,
    /// The silences heard between words, (start, end) ms.
    pub silences: Vec<(f64, f64)>,
}

/// The US English acoustic model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AcousticModel {
    dir: PathBuf,
}

impl AcousticModel {
    /// The model for `language` (a BCP 47 tag, "en-US"), from `NPC_ACOUSTIC_MODEL` or where
    /// Debian's pocketsphinx-en-us installs it.
    ///
    /// # Errors
    /// A language the model does not speak, or no model installed (the reason, in words).
    pub fn for_language(language: &str) -> Result<Self, String> {
        let primary = language.split(['-', '_']).next().unwrap_or("");
        if !primary.eq_ignore_ascii_case("en") {
            return Err(format!("no acoustic model speaks {language}"));
        }
        let dir =
            std::env::var_os(MODEL_ENV).map_or_else(|| PathBuf::from(DEBIAN_MODEL), PathBuf::from);
        Self::at(&dir)
    }

    /// The model in `dir` (PocketSphinx's files: mdef, means, variances, ...).
    ///
    /// # Errors
    /// The folder lacks the model's files.
    pub fn at(dir: &Path) -> Result<Self, String> {
        let missing: Vec<&str> = ["mdef", "means", "variances", "transition_matrices"]
            .into_iter()
            .filter(|f| !dir.join(f).is_file())
            .collect();
        if missing.is_empty() {
            Ok(Self {
                dir: dir.to_owned(),
            })
        } else {
            Err(format!(
                "no acoustic model in {} ({} missing): install the Debian package \
                 pocketsphinx-en-us, or set {MODEL_ENV} to a PocketSphinx model folder",
                dir.display(),
                missing.join(", ")
            ))
        }
    }

    /// Where in `samples` (-1..1 at `sample_rate`) the model hears `script`'s phonemes.
    ///
    /// # Errors
    /// No PocketSphinx library, a sample rate under 16 kHz, a script with nothing the model
    /// can hear, or a search that did not follow the script to its end. A recording sampled
    /// faster is resampled to 16 kHz, the rate the model was trained at.
    pub fn align(
        &self,
        samples: &[f32],
        sample_rate: u32,
        script: &[ScriptPhone<'_>],
    ) -> Result<Heard, String> {
        if sample_rate < MODEL_RATE {
            return Err(format!(
                "the recording is sampled at {sample_rate} Hz; the acoustic model needs \
                 {MODEL_RATE} Hz or more"
            ));
        }
        let (grammar, owners) = grammar(script);
        if owners.is_empty() {
            return Err("the script has no phones the acoustic model knows".to_owned());
        }
        // At other rates the search found no path through the script (espeak-ng's 22050 Hz).
        let samples = resample(samples, sample_rate, MODEL_RATE)?;
        let pcm = dithered_pcm(&samples);
        // A decoder of its own for each recording (12-17 ms to make: the model is mapped, not
        // read). One reused across recordings carries state from one to the next that
        // misplaced the phones of the second (36% of frames right where a fresh one gets 83%).
        let segments = new_decoder(&self.dir, MODEL_RATE)?.decode(&grammar, &pcm)?;
        heard(&segments, &owners, script.len())
    }
}

/// `samples` as 16-bit PCM with a least significant bit of noise (the same for the same
/// sound). Digital silence (a synthesis's pauses, a gated recording) has no spectrum: the
/// model's silence is trained on room noise, and the search found no path through a
/// synthesis's exact zeros.
fn dithered_pcm(samples: &[f32]) -> Vec<i16> {
    let mut state: u32 = 0x9E37_79B9;
    samples
        .iter()
        .map(|&s| {
            // xorshift32: cheap, seeded, the same noise on every run.
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let noise = f32::from((state >> 30) as u8) - 1.5;
            (s.clamp(-1.0, 1.0) * 32_767.0 + noise).round() as i16
        })
        .collect()
}

/// A decoder that knows each phone as a word of its own, and the silence.
fn new_decoder(dir: &Path, sample_rate: u32) -> Result<Decoder, String> {
    let mut decoder = Decoder::new(dir, sample_rate)?;
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
fn grammar(script: &[ScriptPhone<'_>]) -> (String, Vec<usize>) {
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

/// The decoder's words back on the script's phonemes.
fn heard(
    segments: &[library::Segment],
    owners: &[usize],
    phonemes: usize,
) -> Result<Heard, String> {
    let mut out = Heard {
        phones: vec![None; phonemes],
        silences: Vec::new(),
    };
    let mut next = 0;
    for s in segments {
        // The grammar's empty steps (an optional silence not taken).
        if s.word == NULL_STEP {
            continue;
        }
        let span = (s.first as f64 * FRAME_MS, (s.last + 1) as f64 * FRAME_MS);
        if s.word == SILENCE || s.word.starts_with('<') {
            out.silences.push(span);
            continue;
        }
        let owner = *owners
            .get(next)
            .ok_or_else(|| "the acoustic model heard more phones than the script has".to_owned())?;
        next += 1;
        let phone = &mut out.phones[owner];
        *phone = Some(phone.map_or(span, |(start, _)| (start, span.1)));
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
            [Some((100.0, 150.0)), Some((150.0, 300.0)), None]
        );
        // Fewer phones than the script: the search stopped short, which is said.
        assert!(super::heard(&segments[..4], &owners, 3).is_err());
    }
}
