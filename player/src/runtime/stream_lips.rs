//! Where a streamed line's visemes come from as its sound arrives: its script followed through
//! the sound ([`StreamedAlignment`]) when it has one, else the sound block by block
//! ([`BlockLipSync`]). A phoneme of the script is settled only once the search has heard it
//! end (230 ms after its sound arrived at the median, core/tests/alignment.rs), so while the
//! stream is barely ahead of playback (a voice streamed at real-time pace) the script lags
//! what the mouth needs; there the sound's blocks, 100 ms behind, fill in until the script
//! catches up.

use npc_core::anim::lipsync::VisemeEvent;
use npc_core::speech::Utterance;
use npc_core::speech::acoustic::AcousticModel;
use npc_core::speech::align::StreamedAlignment;

use super::block_lips::BlockLipSync;

/// The mouth needs its visemes this far ahead of playback, ms (a viseme's onset leads its
/// sound; the face blends towards it).
const NEEDED_AHEAD_MS: f64 = 80.0;

/// A streamed line's lip sync.
#[derive(Debug)]
pub struct StreamLipSync {
    source: Source,
    language: String,
    /// The time of the last viseme given, ms.
    given_ms: Option<f64>,
}

#[derive(Debug)]
enum Source {
    /// The script spoken by the offline engine, followed once the sound's rate is known.
    Script(Utterance),
    /// The script followed through the sound, and the sound for where it lags.
    Following(Box<StreamedAlignment>, BlockLipSync),
    /// The sound alone.
    Sound(BlockLipSync),
}

impl StreamLipSync {
    /// Lip sync from the sound alone, spoken in `language`.
    #[must_use]
    pub fn from_sound(language: &str) -> Self {
        Self {
            source: Source::Sound(BlockLipSync::default()),
            language: language.to_owned(),
            given_ms: None,
        }
    }

    /// Lip sync from the sound alone for a line that started as one with a script does (before
    /// a block's look-ahead has arrived): each block as soon as it has arrived.
    #[must_use]
    pub fn from_sound_filling_in(language: &str) -> Self {
        Self {
            source: Source::Sound(BlockLipSync::filling_in()),
            ..Self::from_sound(language)
        }
    }

    /// Lip sync from `script` (the line's text spoken by the offline engine) followed through
    /// the sound.
    #[must_use]
    pub fn from_script(script: Utterance, language: &str) -> Self {
        Self {
            source: Source::Script(script),
            ..Self::from_sound(language)
        }
    }

    /// Whether the script is being followed.
    #[must_use]
    pub fn follows_script(&self) -> bool {
        !matches!(self.source, Source::Sound(_))
    }

    /// The visemes of `samples` (all of the sound at `rate` that has arrived; all there will
    /// be when `last`) not given yet, in order, with the line played up to `played_ms`.
    pub fn visemes(
        &mut self,
        samples: &[f32],
        rate: u32,
        played_ms: f64,
        last: bool,
    ) -> Vec<VisemeEvent> {
        if rate == 0 {
            return Vec::new();
        }
        if let Source::Script(script) = &mut self.source {
            let script = std::mem::take(script);
            self.source = match AcousticModel::for_language(&self.language)
                .and_then(|model| StreamedAlignment::new(&model, script, rate))
            {
                Ok(aligned) => Source::Following(Box::new(aligned), BlockLipSync::filling_in()),
                Err(why) => {
                    tracing::warn!("a streamed line lip-synced from its sound: {why}");
                    Source::Sound(BlockLipSync::filling_in())
                }
            };
        }
        let events = match &mut self.source {
            Source::Following(aligned, sound) => {
                let followed = if last {
                    aligned.finish(samples)
                } else {
                    aligned.heard(samples)
                };
                match followed {
                    Ok(mut events) => {
                        if !last && aligned.settled_ms() < played_ms + NEEDED_AHEAD_MS {
                            // The script lags: the sound from where it was given.
                            sound.skip_to(self.given_ms.unwrap_or(0.0), rate);
                            events.extend(sound.blocks(samples, rate, false));
                        }
                        events
                    }
                    Err(why) => {
                        tracing::warn!(
                            "a streamed line lip-synced from its sound from here: its script \
                             was lost ({why})"
                        );
                        let mut sound = BlockLipSync::after(self.given_ms.unwrap_or(0.0), rate);
                        let events = sound.blocks(samples, rate, last);
                        self.source = Source::Sound(sound);
                        events
                    }
                }
            }
            Source::Sound(sound) => sound.blocks(samples, rate, last),
            Source::Script(_) => Vec::new(),
        };
        self.after_given(events)
    }

    /// The mouth at rest at `at_ms` (an underrun: the sound stopped there), if that is after
    /// the last viseme given.
    pub fn rest(&mut self, at_ms: f64) -> Option<VisemeEvent> {
        if self.given_ms.is_some_and(|last| at_ms <= last) {
            return None;
        }
        self.given_ms = Some(at_ms);
        Some(VisemeEvent::new(npc_core::VisemeId::SILENCE, at_ms))
    }

    /// The events at or after the last given (any before it are past), in order.
    fn after_given(&mut self, events: Vec<VisemeEvent>) -> Vec<VisemeEvent> {
        let mut out = Vec::with_capacity(events.len());
        for e in events {
            if self.given_ms.is_none_or(|last| e.offset_ms >= last) {
                self.given_ms = Some(e.offset_ms);
                out.push(e);
            }
        }
        out
    }
}
