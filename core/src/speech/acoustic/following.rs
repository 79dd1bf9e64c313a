//! Forced alignment as the sound arrives: the script's grammar searched piece by piece, and
//! after each piece the best path so far read back onto the script. What the path says about
//! sound well behind the last piece rarely changes; what it says about the last few frames
//! does, so only phones that ended a guard's length before the end are called settled.

use super::library::Decoder;
use super::{FRAME_MS, Heard, MODEL_RATE, ScriptPhone, dithered_pcm, forced};
use crate::speech::resample::StreamResampler;

/// A phone is settled once the search has heard this much sound past its end, ms.
pub const GUARD_MS: f64 = 60.0;

/// The script followed through a recording that is still arriving.
#[derive(Debug)]
pub struct Following {
    decoder: Decoder,
    /// For each model phone of the grammar, the script phoneme it belongs to.
    owners: Vec<usize>,
    phonemes: usize,
    resampler: StreamResampler,
    /// Model-rate samples searched so far.
    searched: usize,
    /// The utterance was ended and its final path read.
    finished: bool,
}

/// What the search has settled so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settled {
    /// The script's phonemes heard and settled so far (a prefix of the script), with the
    /// silences heard up to `until_ms`; the phonemes after them have no spans.
    pub heard: Heard,
    /// How many of the script's phonemes are settled.
    pub phonemes: usize,
    /// The sound is settled up to here, ms.
    pub until_ms: f64,
}

impl Following {
    pub(super) fn new(
        mut decoder: Decoder,
        script: &[ScriptPhone<'_>],
        sample_rate: u32,
    ) -> Result<Self, String> {
        let (grammar, owners) = forced::grammar(script);
        if owners.is_empty() {
            return Err("the script has no phones the acoustic model knows".to_owned());
        }
        if sample_rate < MODEL_RATE {
            return Err(format!(
                "the recording is sampled at {sample_rate} Hz; the acoustic model needs \
                 {MODEL_RATE} Hz or more"
            ));
        }
        decoder.search_grammar(&grammar)?;
        decoder.start()?;
        Ok(Self {
            decoder,
            owners,
            phonemes: script.len(),
            resampler: StreamResampler::new(sample_rate, MODEL_RATE)?,
            searched: 0,
            finished: false,
        })
    }

    /// Searches on through `samples` (-1..1, the next piece of the recording).
    ///
    /// # Errors
    /// The decoder failed, or the utterance was finished.
    pub fn feed(&mut self, samples: &[f32]) -> Result<(), String> {
        if self.finished {
            return Err("the recording was already finished".to_owned());
        }
        let mut model = Vec::with_capacity(samples.len());
        self.resampler.push(samples, &mut model);
        self.searched += model.len();
        self.decoder.feed(&dithered_pcm(&model))
    }

    /// Sound searched so far, ms.
    #[must_use]
    pub fn searched_ms(&self) -> f64 {
        self.searched as f64 * 1000.0 / f64::from(MODEL_RATE)
    }

    /// The phonemes settled so far: those whose phones all ended [`GUARD_MS`] or more before
    /// the end of the sound searched, on the best path so far.
    ///
    /// The path read this way is the final one for read speech (LibriVox: fed whole at the
    /// end, 82.8% of frames in the right class; settled as it arrives, 82.5%); in
    /// conversational speech with long pauses (MFA's clips) the search runs ahead through
    /// the script in the pauses and finds its way back only at the end, which no settling
    /// rule can wait for (settled only where five reads in a row agreed: 66.9% against
    /// 64.7%, for 400 ms more delay).
    #[must_use]
    pub fn settled(&self) -> Settled {
        let until = self.searched_ms() - GUARD_MS;
        settle(&self.decoder.partial(), &self.owners, self.phonemes, until)
    }

    /// Ends the recording: where the whole script was heard.
    ///
    /// # Errors
    /// The decoder failed, or its search did not follow the script to its end.
    pub fn finish(&mut self) -> Result<Heard, String> {
        if self.finished {
            return Err("the recording was already finished".to_owned());
        }
        self.finished = true;
        let segments = self.decoder.finish()?;
        forced::heard(&segments, &self.owners, self.phonemes)
    }
}

/// The prefix of the script that `segments` (a best path so far) heard wholly before `until`
/// ms: a phoneme counts when all of its model phones ended by then.
fn settle(
    segments: &[super::library::Segment],
    owners: &[usize],
    phonemes: usize,
    until: f64,
) -> Settled {
    let ended: Vec<&super::library::Segment> = segments
        .iter()
        .take_while(|s| (s.last + 1) as f64 * FRAME_MS <= until)
        .collect();
    let mut heard = Heard {
        phones: vec![Vec::new(); phonemes],
        silences: Vec::new(),
    };
    let mut phones = Vec::new();
    for s in ended {
        let span = (s.first as f64 * FRAME_MS, (s.last + 1) as f64 * FRAME_MS);
        match forced::step(&s.word) {
            forced::Step::Empty => {}
            forced::Step::Silence => heard.silences.push(span),
            forced::Step::Phone => phones.push(span),
        }
    }
    // Whole phonemes only: those before the phoneme of the first model phone not yet heard
    // (a phoneme of two model phones with one heard waits).
    let count = owners.get(phones.len()).copied().unwrap_or(phonemes);
    for (span, &owner) in phones.iter().zip(owners) {
        if owner < count {
            heard.phones[owner].push(*span);
        }
    }
    let until_ms = heard
        .phones
        .iter()
        .flatten()
        .chain(&heard.silences)
        .map(|s| s.1)
        .fold(0.0, f64::max);
    Settled {
        heard,
        phonemes: count,
        until_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::speech::acoustic::library::Segment;

    fn seg(word: &str, first: usize, last: usize) -> Segment {
        Segment {
            word: word.to_owned(),
            first,
            last,
        }
    }

    #[test]
    fn only_whole_phonemes_heard_before_the_guard_are_settled() {
        // Three phonemes; the second is two model phones.
        let owners = [0, 1, 1, 2];
        let path = [
            seg("sil", 0, 9),
            seg("ph_m", 10, 14),
            seg("(NULL)", 15, 15),
            seg("ph_aa", 15, 24),
            seg("ph_r", 25, 29),
            seg("ph_t", 30, 39),
        ];
        // Up to 260 ms: the m is settled, the second phoneme's first phone alone is not
        // enough.
        let s = settle(&path, &owners, 3, 260.0);
        assert_eq!(s.phonemes, 1);
        assert_eq!(s.heard.phones[0], [(100.0, 150.0)]);
        assert!(s.heard.phones[1].is_empty());
        assert_eq!(s.heard.silences, [(0.0, 100.0)]);
        assert_eq!(s.until_ms, 150.0);
        // Up to 300 ms: both of its phones have ended.
        let s = settle(&path, &owners, 3, 300.0);
        assert_eq!(s.phonemes, 2);
        assert_eq!(s.heard.phones[1], [(150.0, 250.0), (250.0, 300.0)]);
        assert!(s.heard.phones[2].is_empty());
        // Nothing ended yet: nothing settled.
        let s = settle(&path, &owners, 3, 50.0);
        assert_eq!((s.phonemes, s.until_ms), (0, 0.0));
    }
}
