//! Word recognition: what a person said, heard by the model with PocketSphinx's US English
//! language model and pronouncing dictionary (both in Debian's pocketsphinx-en-us). Good
//! enough to give agents a first transcript; agents that need better run their own
//! speech-to-text on the recording.

use std::path::{Path, PathBuf};

use super::library::Decoder;
use super::{FRAME_MS, MODEL_RATE, model_pcm};

/// A word the model heard, ms from the recording's start.
#[derive(Clone, Debug, PartialEq)]
pub struct HeardWord {
    pub word: String,
    pub start_ms: f64,
    pub end_ms: f64,
}

/// A decoder over the word language model, made once and used for many utterances.
#[derive(Debug)]
pub struct WordRecognizer {
    decoder: Decoder,
    /// An utterance is being fed.
    listening: bool,
}

/// The decoder's search, tuned for answering while the person is still in the room: the
/// first (tree) pass alone, whose words are ready as the sound ends; the flat and best-path
/// passes that PocketSphinx runs after it by default took longer than the utterance.
const LIVE_SEARCH: [(&str, &str); 2] = [("-fwdflat", "no"), ("-bestpath", "no")];

/// `name` beside the model folder (as pocketsphinx-en-us lays it out: `en-us/en-us.lm.bin`
/// next to `en-us/en-us/`), or inside it.
fn beside(model: &Path, name: &str) -> Option<PathBuf> {
    let parent = model.parent().map(|p| p.join(name));
    parent
        .into_iter()
        .chain([model.join(name)])
        .find(|p| p.is_file())
}

fn utf8(path: &Path) -> Result<&str, String> {
    path.to_str()
        .ok_or_else(|| format!("{} is not a UTF-8 path", path.display()))
}

impl WordRecognizer {
    /// A recognizer over the model in `model` and the language model and dictionary beside it.
    ///
    /// # Errors
    /// No PocketSphinx library, or no language model or dictionary beside the model.
    pub fn new(model: &Path) -> Result<Self, String> {
        let missing = |what: &str| {
            format!(
                "no {what} beside the acoustic model in {} (from the Debian package \
                 pocketsphinx-en-us)",
                model.display()
            )
        };
        let lm = beside(model, "en-us.lm.bin").ok_or_else(|| missing("language model"))?;
        let dict = beside(model, "cmudict-en-us.dict").ok_or_else(|| missing("dictionary"))?;
        let mut settings = vec![("-lm", utf8(&lm)?), ("-dict", utf8(&dict)?)];
        settings.extend_from_slice(&LIVE_SEARCH);
        Ok(Self {
            decoder: Decoder::new(model, MODEL_RATE, &settings)?,
            listening: false,
        })
    }

    /// Starts an utterance heard live: its sound comes in pieces ([`Self::feed`], 16 kHz),
    /// searched as it comes, so the words are ready soon after it ends ([`Self::finish`]).
    ///
    /// # Errors
    /// The decoder failed.
    pub fn begin(&mut self) -> Result<(), String> {
        if self.listening {
            let _ = self.decoder.finish();
        }
        self.decoder.start()?;
        self.listening = true;
        Ok(())
    }

    /// The next piece of the utterance begun, 16 kHz, -1..1.
    ///
    /// # Errors
    /// No utterance begun, or the decoder failed.
    pub fn feed(&mut self, samples: &[f32]) -> Result<(), String> {
        if !self.listening {
            return Err("no utterance was begun".to_owned());
        }
        self.decoder.feed(&super::dithered_pcm(samples))
    }

    /// Ends the utterance begun: its words, ms from its first sample fed.
    ///
    /// # Errors
    /// No utterance begun, or the decoder failed.
    pub fn finish(&mut self) -> Result<Vec<HeardWord>, String> {
        if !self.listening {
            return Err("no utterance was begun".to_owned());
        }
        self.listening = false;
        Ok(words_of(self.decoder.finish()?))
    }

    /// The words heard in `samples` (-1..1 at `sample_rate`, 16 kHz or more), in order;
    /// silences, fillers and noises left out, alternative pronunciations by their word.
    ///
    /// # Errors
    /// A sample rate under 16 kHz, or the decoder failed.
    pub fn recognize(
        &mut self,
        samples: &[f32],
        sample_rate: u32,
    ) -> Result<Vec<HeardWord>, String> {
        let pcm = model_pcm(samples, sample_rate)?;
        if self.listening {
            self.listening = false;
            let _ = self.decoder.finish();
        }
        Ok(words_of(self.decoder.decode(&pcm)?))
    }
}

fn words_of(segments: Vec<super::library::Segment>) -> Vec<HeardWord> {
    segments
        .into_iter()
        .filter_map(|s| {
            let word = spoken_word(&s.word)?;
            Some(HeardWord {
                word,
                start_ms: s.first as f64 * FRAME_MS,
                end_ms: (s.last + 1) as f64 * FRAME_MS,
            })
        })
        .collect()
}

/// The word as said, or None for the decoder's markers (`<s>`, `<sil>`, `[NOISE]`, `+um+`);
/// `read(2)` is `read`.
fn spoken_word(token: &str) -> Option<String> {
    if token.starts_with(['<', '[', '+']) || token.is_empty() {
        return None;
    }
    let word = token.split('(').next().unwrap_or(token);
    (!word.is_empty()).then(|| word.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_not_words_and_variants_are_their_word() {
        assert_eq!(spoken_word("<s>"), None);
        assert_eq!(spoken_word("<sil>"), None);
        assert_eq!(spoken_word("[NOISE]"), None);
        assert_eq!(spoken_word("+um+"), None);
        assert_eq!(spoken_word("read(2)"), Some("read".to_owned()));
        assert_eq!(spoken_word("letter"), Some("letter".to_owned()));
    }
}
