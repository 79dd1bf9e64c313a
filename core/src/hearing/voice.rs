//! The person's speech cut into utterances: each 16 ms frame of the microphone scored by a
//! voice activity detector (earshot's network), with hysteresis. An utterance begins when
//! speech has lasted [`VoiceSettings::onset_ms`] (its onset is the first voiced frame) and ends
//! after [`VoiceSettings::end_hang_ms`] of silence (its end is the last voiced frame).
//!
//! Times are on the stream's own sample clock (ms since its first sample), so the same sound
//! always gives the same utterances, however it was chunked.

use std::collections::VecDeque;

use super::settings::VoiceSettings;
use super::stresses::LiveStresses;

/// The detector's sample rate: the microphone is brought to it first.
pub const VOICE_RATE: u32 = 16_000;
/// Samples of one detector frame (16 ms).
pub const FRAME: usize = 256;
/// One frame, ms.
pub const FRAME_MS: f64 = FRAME as f64 * 1000.0 / VOICE_RATE as f64;

/// What the segmenter hears.
#[derive(Clone, Debug, PartialEq)]
pub enum VoiceEvent {
    /// The person started speaking; `start_ms` is the first voiced frame.
    Onset { start_ms: f64 },
    /// A stressed syllable (a strong loudness onset) inside speech.
    Stress { at_ms: f64 },
    /// The person stopped: one utterance, its sound and times.
    Utterance(HeardSpeech),
    /// Speech too short to be an utterance (noise); the onset reported before it is void.
    Dropped { start_ms: f64, end_ms: f64 },
}

/// One utterance of the person.
#[derive(Clone, Debug, PartialEq)]
pub struct HeardSpeech {
    /// First and last voiced moment, ms on the stream's clock.
    pub start_ms: f64,
    pub end_ms: f64,
    /// Its sound at [`VOICE_RATE`], from `audio_start_ms` (a little before the onset) to a
    /// little after the end.
    pub samples: Vec<f32>,
    pub audio_start_ms: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    /// No speech; `run` voiced frames in a row so far, the first at `first`.
    Silent { first: u64, run: u32 },
    /// In an utterance that began at frame `start`; the last voiced frame so far.
    Speaking { start: u64, last_voiced: u64 },
}

/// Cuts a stream of 16 kHz mono samples into utterances.
pub struct VoiceSegmenter {
    detector: Box<earshot::Detector>,
    settings: VoiceSettings,
    /// Samples waiting to fill a frame.
    pending: Vec<f32>,
    /// Frames seen so far.
    frames: u64,
    /// The last frames heard while silent (the pre-roll and the onset's run).
    recent: VecDeque<f32>,
    /// The utterance's sound so far, and the frame it starts at.
    audio: Vec<f32>,
    audio_first: u64,
    state: State,
    stresses: LiveStresses,
}

impl std::fmt::Debug for VoiceSegmenter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VoiceSegmenter")
            .field("frames", &self.frames)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

fn frames_for(ms: f64) -> u64 {
    (ms.max(0.0) / FRAME_MS).ceil() as u64
}

impl VoiceSegmenter {
    #[must_use]
    pub fn new(settings: &VoiceSettings) -> Self {
        Self {
            detector: earshot::Detector::default_boxed(),
            settings: settings.clone(),
            pending: Vec::with_capacity(FRAME),
            frames: 0,
            recent: VecDeque::new(),
            audio: Vec::new(),
            audio_first: 0,
            state: State::Silent { first: 0, run: 0 },
            stresses: LiveStresses::default(),
        }
    }

    /// Whether the person is speaking (an utterance has begun and not ended).
    #[must_use]
    pub fn speaking(&self) -> bool {
        matches!(self.state, State::Speaking { .. })
    }

    /// The sound of the utterance under way so far (from its pre-roll on); empty between
    /// utterances.
    #[must_use]
    pub fn utterance_audio(&self) -> &[f32] {
        if self.speaking() { &self.audio } else { &[] }
    }

    /// The stream's clock: how much has been heard, ms.
    #[must_use]
    pub fn heard_ms(&self) -> f64 {
        self.frames as f64 * FRAME_MS
    }

    /// Hears `samples` (16 kHz mono, -1..1), appending what happened to `out`.
    pub fn push(&mut self, samples: &[f32], out: &mut Vec<VoiceEvent>) {
        for &s in samples {
            self.pending.push(if s.is_finite() {
                s.clamp(-1.0, 1.0)
            } else {
                0.0
            });
            if self.pending.len() == FRAME {
                let frame = std::mem::take(&mut self.pending);
                self.frame(&frame, out);
                self.pending = frame;
                self.pending.clear();
            }
        }
    }

    /// Ends the stream: an utterance under way ends at its last voiced frame.
    pub fn finish(&mut self, out: &mut Vec<VoiceEvent>) {
        if let State::Speaking { start, last_voiced } = self.state {
            self.end(start, last_voiced, out);
        }
    }

    fn frame(&mut self, frame: &[f32], out: &mut Vec<VoiceEvent>) {
        let index = self.frames;
        self.frames += 1;
        let voiced = self.detector.predict_f32(frame) >= self.settings.threshold;
        let at_ms = index as f64 * FRAME_MS;
        match self.state {
            State::Silent { first, run } => {
                self.recent.extend(frame.iter().copied());
                let keep = (frames_for(self.settings.preroll_ms + self.settings.onset_ms) + 1)
                    as usize
                    * FRAME;
                while self.recent.len() > keep {
                    self.recent.pop_front();
                }
                self.stresses.hear(frame, at_ms, false);
                if !voiced {
                    self.state = State::Silent { first: 0, run: 0 };
                    return;
                }
                let (first, run) = if run == 0 {
                    (index, 1)
                } else {
                    (first, run + 1)
                };
                if u64::from(run) >= frames_for(self.settings.onset_ms).max(1) {
                    // The utterance's sound: the pre-roll, then everything from here on.
                    let held = (self.recent.len() / FRAME) as u64;
                    let oldest = index + 1 - held;
                    let from = first
                        .saturating_sub(frames_for(self.settings.preroll_ms))
                        .max(oldest);
                    self.audio.clear();
                    self.audio.extend(
                        self.recent
                            .iter()
                            .skip((from - oldest) as usize * FRAME)
                            .copied(),
                    );
                    self.audio_first = from;
                    self.recent.clear();
                    self.state = State::Speaking {
                        start: first,
                        last_voiced: index,
                    };
                    self.stresses.begin();
                    out.push(VoiceEvent::Onset {
                        start_ms: first as f64 * FRAME_MS,
                    });
                } else {
                    self.state = State::Silent { first, run };
                }
            }
            State::Speaking { start, last_voiced } => {
                self.audio.extend_from_slice(frame);
                if let Some(at_ms) = self.stresses.hear(frame, at_ms, voiced) {
                    out.push(VoiceEvent::Stress { at_ms });
                }
                let last_voiced = if voiced { index } else { last_voiced };
                let silent_ms = (index - last_voiced) as f64 * FRAME_MS;
                let long_ms = (index + 1 - start) as f64 * FRAME_MS;
                if silent_ms >= self.settings.end_hang_ms
                    || long_ms >= self.settings.max_utterance_ms
                {
                    self.end(start, last_voiced, out);
                } else {
                    self.state = State::Speaking { start, last_voiced };
                }
            }
        }
    }

    fn end(&mut self, start: u64, last_voiced: u64, out: &mut Vec<VoiceEvent>) {
        let start_ms = start as f64 * FRAME_MS;
        let end_ms = (last_voiced + 1) as f64 * FRAME_MS;
        self.state = State::Silent { first: 0, run: 0 };
        let samples = std::mem::take(&mut self.audio);
        if end_ms - start_ms < self.settings.min_utterance_ms {
            out.push(VoiceEvent::Dropped { start_ms, end_ms });
            return;
        }
        out.push(VoiceEvent::Utterance(HeardSpeech {
            start_ms,
            end_ms,
            samples,
            audio_start_ms: self.audio_first as f64 * FRAME_MS,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test sound: a voice-like buzz (a 140 Hz pulse train through vowel-like resonances,
    /// with a syllable rhythm) for `ms`, standing in for speech in unit tests only; the
    /// end-to-end tests use real recordings.
    fn buzz(ms: f64) -> Vec<f32> {
        let n = (ms * f64::from(VOICE_RATE) / 1000.0) as usize;
        let mut out = Vec::with_capacity(n);
        let (mut y1, mut y2) = (0.0f32, 0.0f32);
        for i in 0..n {
            let t = i as f32 / VOICE_RATE as f32;
            let pulse = if i % (VOICE_RATE as usize / 140) == 0 {
                1.0
            } else {
                0.0
            };
            // One resonance near 700 Hz.
            let r = 0.97f32;
            let w = std::f32::consts::TAU * 700.0 / VOICE_RATE as f32;
            let y = pulse + 2.0 * r * w.cos() * y1 - r * r * y2;
            y2 = y1;
            y1 = y;
            let syllables = 0.55 + 0.45 * (std::f32::consts::TAU * 4.0 * t).sin();
            out.push(0.05 * y * syllables);
        }
        out
    }

    fn events_of(chunks: &[Vec<f32>], settings: &VoiceSettings) -> Vec<VoiceEvent> {
        let mut seg = VoiceSegmenter::new(settings);
        let mut out = Vec::new();
        for c in chunks {
            seg.push(c, &mut out);
        }
        seg.finish(&mut out);
        out
    }

    #[test]
    fn silence_is_not_speech() {
        let out = events_of(&[vec![0.0; 32_000]], &VoiceSettings::default());
        assert!(out.is_empty(), "{out:?}");
    }

    #[test]
    fn the_same_sound_in_any_chunks_gives_the_same_utterances() {
        let mut sound = vec![0.0; 8_000];
        sound.extend(buzz(1_500.0));
        sound.extend(vec![0.0; 8_000]);
        let whole = events_of(std::slice::from_ref(&sound), &VoiceSettings::default());
        let chunks: Vec<Vec<f32>> = sound.chunks(333).map(<[f32]>::to_vec).collect();
        assert_eq!(whole, events_of(&chunks, &VoiceSettings::default()));
    }
}
