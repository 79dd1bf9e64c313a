//! Where a recording's phones are, found by an acoustic model: PocketSphinx's US English
//! model searched along the script's phones alone (forced alignment), with optional silence
//! between words. It hears speech as an acoustic model trained on many speakers does, where
//! warping onto a synthesis only compares two sounds.

mod arpabet;
mod following;
mod forced;
mod library;
mod phones;
mod words;

use std::path::{Path, PathBuf};

use super::resample::resample;

pub use following::{Following, GUARD_MS, Settled};
pub use phones::HeardPhone;
pub use words::{HeardWord, WordRecognizer};

/// Where Debian's pocketsphinx-en-us puts the model.
const DEBIAN_MODEL: &str = "/usr/share/pocketsphinx/model/en-us/en-us";
/// Names another model folder (same phone set).
pub const MODEL_ENV: &str = "NPC_ACOUSTIC_MODEL";
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
    /// For each phoneme of the script, the start and end in the recording of each of its
    /// model phones ("ɔːɹ" is AO and R), ms; none for one the model has no phone for (a pause).
    pub phones: Vec<Vec<(f64, f64)>>,
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
        Self::installed()
    }

    /// The installed model, whatever the language: its phones still tell the mouth's shapes
    /// apart in speech of other languages (a closure, a rounded or an open vowel sound alike
    /// across languages), which the phone recogniser uses when there is no script.
    ///
    /// # Errors
    /// No model installed (the reason, in words).
    pub fn installed() -> Result<Self, String> {
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
        let (grammar, owners) = forced::grammar(script);
        if owners.is_empty() {
            return Err("the script has no phones the acoustic model knows".to_owned());
        }
        let pcm = model_pcm(samples, sample_rate)?;
        // A decoder of its own for each recording (12-17 ms to make: the model is mapped, not
        // read). One reused across recordings carries state from one to the next that
        // misplaced the phones of the second (36% of frames right where a fresh one gets 83%).
        let segments =
            forced::new_decoder(&self.dir, MODEL_RATE)?.decode_grammar(&grammar, &pcm)?;
        forced::heard(&segments, &owners, script.len())
    }

    /// Forced alignment of `script` over a recording at `sample_rate` that is still
    /// arriving: feed it piece by piece, read what is settled as it goes.
    ///
    /// # Errors
    /// No PocketSphinx library, a sample rate under 16 kHz, or a script with nothing the
    /// model can hear.
    pub fn follow(
        &self,
        sample_rate: u32,
        script: &[ScriptPhone<'_>],
    ) -> Result<Following, String> {
        Following::new(
            forced::new_decoder(&self.dir, MODEL_RATE)?,
            script,
            sample_rate,
        )
    }

    /// The phones the model hears in `samples` (-1..1 at `sample_rate`) without a script, in
    /// order, silences and noises included.
    ///
    /// # Errors
    /// No PocketSphinx library, no phone model, or a sample rate under 16 kHz.
    pub fn recognize(&self, samples: &[f32], sample_rate: u32) -> Result<Vec<HeardPhone>, String> {
        let pcm = model_pcm(samples, sample_rate)?;
        phones::recognize(&self.dir, MODEL_RATE, &pcm)
    }

    /// A recognizer of the words said, over this model and the language model beside it.
    ///
    /// # Errors
    /// No PocketSphinx library, or no language model or dictionary beside the model.
    pub fn words(&self) -> Result<WordRecognizer, String> {
        WordRecognizer::new(&self.dir)
    }
}

/// `samples` as the model hears them: at its rate, as dithered 16-bit PCM.
fn model_pcm(samples: &[f32], sample_rate: u32) -> Result<Vec<i16>, String> {
    if sample_rate < MODEL_RATE {
        return Err(format!(
            "the recording is sampled at {sample_rate} Hz; the acoustic model needs \
             {MODEL_RATE} Hz or more"
        ));
    }
    // At other rates the model's filter bank is not the one it was trained with.
    let samples = resample(samples, sample_rate, MODEL_RATE)?;
    Ok(dithered_pcm(&samples))
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
