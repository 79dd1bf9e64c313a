//! What a face needs to perform one line, built in one place for every path that speaks: the
//! live player (window, `render`, offscreen and headless runs), `npc-player bake` and the
//! studio's timeline. [`FaceAnimator::start_line`](crate::anim::face::FaceAnimator::start_line) is
//! the one way to start it, so no path can forget a part (the loudness that moves the jaw, the
//! speaking flag that makes the gaze avert like a speaker's).

use crate::anim::lipsync::{Loudness, TrackError, VisemeTrack};
use crate::anim::stresses;
use crate::speech::Utterance;
use crate::viseme::VisemeId;

/// Silence after the last viseme (or the end of the audio) in which the mouth settles, ms.
/// A bake covers it; the studio's timeline shows it.
pub const TAIL_MS: f64 = 500.0;

/// A silence at least this long between visemes ends a phrase, ms (the speaker may breathe).
pub const PHRASE_PAUSE_MS: f64 = 180.0;

/// One line as a face performs it: the viseme track on the line's audio clock and, when the
/// line has audio, its loudness (the jaw follows it).
#[derive(Clone, Debug, PartialEq)]
pub struct LineCue {
    pub track: VisemeTrack,
    /// Loudness of the line's audio; `None` for a bare viseme track.
    pub loudness: Option<Loudness>,
    /// Length of the line's audio, ms; `None` for a bare viseme track.
    pub audio_ms: Option<f64>,
    /// Where its stressed syllables start, ms, ascending (beats, nods and brow flashes are
    /// timed to them): the engine's stress marks, or the loudness of a recording.
    pub stresses_ms: Vec<f64>,
    /// Where each word starts, ms (requested gestures start at a word); empty when unknown.
    pub words_ms: Vec<f64>,
}

impl LineCue {
    /// The cue of a synthesised utterance: its visemes and the loudness of its audio.
    pub fn from_utterance(utterance: &Utterance) -> Result<Self, TrackError> {
        let samples: Vec<f32> = utterance
            .pcm
            .iter()
            .map(|&s| f32::from(s) / 32768.0)
            .collect();
        let mut cue = Self::from_recording(
            VisemeTrack::from_events(utterance.visemes.clone())?,
            &samples,
            utterance.sample_rate,
        );
        let marked = stresses::from_phonemes(&utterance.phonemes);
        if !marked.is_empty() {
            cue.stresses_ms = marked;
        }
        cue.words_ms = utterance.words.iter().map(|w| w.offset_ms).collect();
        Ok(cue)
    }

    /// The cue of recorded audio (mono samples in -1..1) whose visemes are `track`.
    #[must_use]
    pub fn from_recording(track: VisemeTrack, samples: &[f32], sample_rate: u32) -> Self {
        let loudness = Loudness::from_samples(samples, sample_rate);
        Self {
            track,
            stresses_ms: stresses::from_loudness(&loudness),
            words_ms: Vec::new(),
            loudness: Some(loudness),
            audio_ms: Some(samples.len() as f64 * 1000.0 / f64::from(sample_rate.max(1))),
        }
    }

    /// The cue of a viseme track without audio (a viseme file): the jaw follows the visemes.
    #[must_use]
    pub fn from_track(track: VisemeTrack) -> Self {
        Self {
            track,
            loudness: None,
            audio_ms: None,
            stresses_ms: Vec::new(),
            words_ms: Vec::new(),
        }
    }

    /// Where each phrase of the line starts, ms: its first sound, and every sound after a
    /// silence of at least [`PHRASE_PAUSE_MS`]. Bodies take a quick breath before each.
    #[must_use]
    pub fn phrase_starts_ms(&self) -> Vec<f64> {
        self.phrases_ms()
            .into_iter()
            .map(|(start, _)| start)
            .collect()
    }

    /// The line's phrases as (start, end) ms: from a first sound to the silence that ends it,
    /// a phrase ending at a silence of at least [`PHRASE_PAUSE_MS`] (or the track's end).
    #[must_use]
    pub fn phrases_ms(&self) -> Vec<(f64, f64)> {
        let mut phrases = Vec::new();
        // The phrase being read (its start), and when the silence in it began.
        let mut open: Option<f64> = None;
        let mut silent_since: Option<f64> = None;
        let mut last_ms = 0.0;
        for e in self.track.events() {
            last_ms = e.offset_ms;
            if e.id == VisemeId::SILENCE {
                silent_since.get_or_insert(e.offset_ms);
                continue;
            }
            match (open, silent_since.take()) {
                (None, _) => open = Some(e.offset_ms),
                (Some(start), Some(since)) if e.offset_ms - since >= PHRASE_PAUSE_MS => {
                    phrases.push((start, since));
                    open = Some(e.offset_ms);
                }
                _ => {}
            }
        }
        if let Some(start) = open {
            phrases.push((start, silent_since.unwrap_or(last_ms).max(start)));
        }
        phrases
    }

    /// How long a bake of this line runs by default: the audio or the last viseme, whichever
    /// ends later, then [`TAIL_MS`] of settling.
    #[must_use]
    pub fn baked_ms(&self) -> f64 {
        self.audio_ms
            .unwrap_or(0.0)
            .max(self.track.last_offset_ms())
            + TAIL_MS
    }
}

/// The seed of an NPC's face (gaze and blinks): the project's seed and the NPC's speaker id,
/// mixed so that neighbouring seeds and similar ids give unrelated sequences. Every path that
/// animates the NPC (player, `bake --npc`, studio) derives it here; `--record` and `bake` print
/// it. FNV-1a over the id's bytes, then the SplitMix64 finaliser over that xor the seed.
#[must_use]
pub fn face_seed(project_seed: u64, npc: &str) -> u64 {
    const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
    let id_hash = npc.bytes().fold(FNV_OFFSET, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(FNV_PRIME)
    });
    let mut z = (id_hash ^ project_seed).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::lipsync::VisemeEvent;
    use crate::viseme::VisemeId;

    fn track() -> VisemeTrack {
        let id = |n| VisemeId::new(n).unwrap_or(VisemeId::SILENCE);
        VisemeTrack::from_events(vec![
            VisemeEvent::new(id(0), 0.0),
            VisemeEvent::new(id(2), 100.0),
            VisemeEvent::new(id(0), 300.0),
        ])
        .unwrap_or_default()
    }

    #[test]
    fn seeds_differ_by_npc_and_by_project_and_repeat() {
        assert_ne!(face_seed(7, "elara"), face_seed(7, "bram"));
        assert_ne!(face_seed(7, "elara"), face_seed(8, "elara"));
        assert_ne!(face_seed(0, ""), 0);
    }

    /// The documented algorithm (FNV-1a over the id, SplitMix64's finaliser over it xor the
    /// seed), computed apart from this code (a few lines of Python over 64-bit integers): a
    /// recorded seed stays the same across versions and machines.
    #[test]
    fn seeds_are_the_documented_mix_pinned_by_an_independent_computation() {
        assert_eq!(face_seed(7, "elara"), 0x66d0_fe31_5554_b046);
        assert_eq!(face_seed(0, "Elara"), 0xba41_92a0_b4cc_1783);
        assert_eq!(face_seed(1_234_567_890_123, "Elara"), 0x0792_9602_732f_2734);
    }

    /// Neighbouring project seeds give unrelated face seeds: about half the bits differ.
    #[test]
    fn neighbouring_seeds_give_unrelated_face_seeds() {
        let flips: Vec<u32> = (0..1000u64)
            .map(|s| (face_seed(s, "Elara") ^ face_seed(s + 1, "Elara")).count_ones())
            .collect();
        let mean = f64::from(flips.iter().sum::<u32>()) / flips.len() as f64;
        assert!((30.0..34.0).contains(&mean), "{mean} of 64 bits differ");
        assert!(
            flips.iter().all(|&f| f >= 12),
            "no neighbour is nearly the same"
        );
    }

    #[test]
    fn a_bake_covers_the_audio_or_the_track_and_the_tail() {
        let bare = LineCue::from_track(track());
        assert_eq!(bare.baked_ms(), 300.0 + TAIL_MS);
        let recorded = LineCue::from_recording(track(), &[0.1; 16_000], 16_000);
        assert_eq!(recorded.audio_ms, Some(1000.0));
        assert_eq!(recorded.baked_ms(), 1000.0 + TAIL_MS);
        assert!(recorded.loudness.is_some());
    }

    #[test]
    #[allow(clippy::unwrap_used)]
    fn phrases_start_at_the_first_sound_and_after_each_long_silence() {
        let e = |id: u32, offset_ms: f64| VisemeEvent::new(VisemeId::new(id).unwrap(), offset_ms);
        let track = VisemeTrack::from_events(vec![
            e(0, 0.0),
            e(21, 120.0),
            e(2, 200.0),
            e(0, 400.0),
            e(6, 500.0),
            e(0, 700.0),
            e(0, 750.0),
            e(11, 950.0),
            e(0, 1100.0),
        ])
        .unwrap();
        let cue = LineCue::from_track(track);
        // The 100 ms gap at 400 is a breath too short to count; the 250 ms one at 700 is one.
        assert_eq!(cue.phrase_starts_ms(), vec![120.0, 950.0]);
        // Each ends where the silence after its last sound begins.
        assert_eq!(cue.phrases_ms(), vec![(120.0, 700.0), (950.0, 1100.0)]);
    }
}
