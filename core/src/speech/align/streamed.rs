//! A recording aligned to its script as it arrives (a streamed line with `text`): the acoustic
//! model follows the script piece by piece, and each phoneme's visemes are sent once the
//! search has settled where it was heard. The events are the ones [`super::align_by_model`]
//! gives for the same phonemes, so a line streamed and a line read whole move the mouth alike.

use super::by_model::{PhoneMap, script_phones};
use super::{Utterance, warped};
use crate::anim::lipsync::VisemeEvent;
use crate::speech::acoustic::{AcousticModel, Following, Heard};
use crate::speech::loudness::with_pauses;

/// The script followed through a recording as it arrives.
#[derive(Debug)]
pub struct StreamedAlignment {
    synthesis: Utterance,
    following: Following,
    sample_rate: u32,
    /// Samples fed so far.
    fed: usize,
    /// The time of the last event sent, once one was.
    last_ms: Option<f64>,
    /// The recording is settled up to here, ms.
    settled_ms: f64,
}

impl StreamedAlignment {
    /// `synthesis` (the script spoken by the offline engine) to be followed through a
    /// recording at `sample_rate`.
    ///
    /// # Errors
    /// No PocketSphinx library or model, a rate under 16 kHz, or nothing in the script the
    /// model can hear.
    pub fn new(
        model: &AcousticModel,
        synthesis: Utterance,
        sample_rate: u32,
    ) -> Result<Self, String> {
        let following = model.follow(sample_rate, &script_phones(&synthesis))?;
        Ok(Self {
            synthesis,
            following,
            sample_rate,
            fed: 0,
            last_ms: None,
            settled_ms: 0.0,
        })
    }

    /// The visemes settled by the recording so far (`samples`: all of it that has arrived,
    /// of which the part not yet fed is searched), in order, after those already sent.
    ///
    /// # Errors
    /// The decoder failed.
    pub fn heard(&mut self, samples: &[f32]) -> Result<Vec<VisemeEvent>, String> {
        if samples.len() > self.fed {
            self.following.feed(&samples[self.fed..])?;
            self.fed = samples.len();
        }
        let settled = self.following.settled();
        self.settled_ms = settled.until_ms;
        let Some(next) = self.synthesis.phonemes.get(settled.phonemes) else {
            // Every phoneme is settled; the last one's length waits for the end.
            return Ok(Vec::new());
        };
        // The synthesis's visemes up to the first phoneme not settled, on the recording.
        let until_synthesis = next.offset_ms;
        let events = self.events(&settled.heard, settled.until_ms, |e| {
            e.offset_ms < until_synthesis
        });
        Ok(self.after_last(events))
    }

    /// How far the recording is settled, ms: the visemes up to here have been given.
    #[must_use]
    pub fn settled_ms(&self) -> f64 {
        self.settled_ms
    }

    /// The recording has ended (`samples`: all of it): the visemes of the rest of the script.
    ///
    /// # Errors
    /// The decoder failed, or its search did not follow the script to its end.
    pub fn finish(&mut self, samples: &[f32]) -> Result<Vec<VisemeEvent>, String> {
        if samples.len() > self.fed {
            self.following.feed(&samples[self.fed..])?;
            self.fed = samples.len();
        }
        let heard = self.following.finish()?;
        let recording_ms = self.fed as f64 * 1000.0 / f64::from(self.sample_rate);
        self.settled_ms = recording_ms;
        let events = self.events(&heard, recording_ms, |_| true);
        Ok(self.after_last(events))
    }

    /// The synthesis's visemes that `keep` keeps, through where `heard` heard their phonemes
    /// (the recording known up to `until_ms`), with its silences.
    fn events(
        &self,
        heard: &Heard,
        until_ms: f64,
        keep: impl Fn(&VisemeEvent) -> bool,
    ) -> Vec<VisemeEvent> {
        let map = PhoneMap::new(&self.synthesis, heard, until_ms);
        let kept = Utterance {
            visemes: self
                .synthesis
                .visemes
                .iter()
                .copied()
                .filter(|e| keep(e))
                .collect(),
            ..Utterance::default()
        };
        let aligned = warped(&kept, &|t| map.map(t), &[], self.sample_rate);
        with_pauses(aligned.visemes, &heard.silences)
    }

    /// The events after the last one sent (all of them the first time); the last sent moves.
    fn after_last(&mut self, events: Vec<VisemeEvent>) -> Vec<VisemeEvent> {
        let out: Vec<VisemeEvent> = match self.last_ms {
            None => events,
            Some(last) => events.into_iter().filter(|e| e.offset_ms > last).collect(),
        };
        if let Some(e) = out.last() {
            self.last_ms = Some(e.offset_ms);
        }
        out
    }
}
