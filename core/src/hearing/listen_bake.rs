//! A listener baked over a recording of the person: the recording heard as the live player
//! hears its microphone (the voice segmenter fed 16 ms at a time, each event acted on from the
//! moment it is heard), the NPC attending as [`PersonAttention`] makes it, its face stepped at
//! a fixed frame rate as a listener's and its nods taken from its listening plan. What the
//! studio's "listen to a recording" plots.

use crate::anim::face::{FaceAnimator, FaceSettings};
use crate::anim::timeline::{Bake, BakeError, frame_times};
use crate::body::GestureSettings;
use crate::speech::resample;

use super::ListenSettings;
use super::attention::{PersonAttention, Talk};
use super::voice::{FRAME, FRAME_MS, VOICE_RATE, VoiceEvent, VoiceSegmenter};

/// What to bake.
#[derive(Clone, Debug, PartialEq)]
pub struct ListenBakeOptions {
    pub fps: f64,
    /// The NPC's face seed (gaze, blinks, which stresses get a nod).
    pub seed: u64,
    /// How long to go on after the recording (the wait for a reply, the thinking face), ms.
    pub after_ms: f64,
}

impl Default for ListenBakeOptions {
    fn default() -> Self {
        Self {
            fps: 60.0,
            seed: 0,
            after_ms: 2_000.0,
        }
    }
}

/// The listener over the recording, frame by frame, and what it heard.
#[derive(Clone, Debug)]
pub struct ListenBake {
    /// The face at every frame, every stage.
    pub face: Bake,
    /// The head's nod at every frame, degrees (the listening plan's).
    pub nod_deg: Vec<f32>,
    /// Whether it shows that it is thinking, at every frame.
    pub thinking: Vec<bool>,
    /// The person's utterances, first and last voiced moment, ms on the recording's clock.
    pub utterances: Vec<(f64, f64)>,
    /// When each utterance's onset was heard (acted on), ms.
    pub onsets_heard_ms: Vec<f64>,
    /// The person's stressed syllables, ms, and whether each got a nod.
    pub stresses: Vec<(f64, bool)>,
}

/// Why a listener could not be baked.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ListenBakeError {
    #[error("the recording is empty")]
    NoRecording,
    #[error("the recording cannot be brought to 16 kHz: {0}")]
    Resample(String),
    #[error(transparent)]
    Bake(#[from] BakeError),
}

/// What the segmenter heard, and when it was heard (ms of the recording fed so far).
struct Heard {
    event: VoiceEvent,
    heard_ms: f64,
}

/// Every event of `samples` (16 kHz), each with when it was heard.
fn hear(samples: &[f32], settings: &ListenSettings) -> Vec<Heard> {
    let mut segmenter = VoiceSegmenter::new(&settings.voice);
    let mut out = Vec::new();
    let mut events = Vec::new();
    for (i, chunk) in samples.chunks(FRAME).enumerate() {
        segmenter.push(chunk, &mut events);
        let heard_ms = (i + 1) as f64 * FRAME_MS;
        out.extend(events.drain(..).map(|event| Heard { event, heard_ms }));
    }
    segmenter.finish(&mut events);
    let end = samples.len() as f64 * 1000.0 / f64::from(VOICE_RATE);
    out.extend(events.drain(..).map(|event| Heard {
        event,
        heard_ms: end,
    }));
    out
}

/// The NPC listening to `samples` (mono, -1..1, at `rate`) spoken to it, as the live player
/// would have it listen with no reply coming.
///
/// # Errors
/// An empty recording, one that cannot be resampled, or bad frame settings.
pub fn bake_listening(
    samples: &[f32],
    rate: u32,
    listen: &ListenSettings,
    face_settings: &FaceSettings,
    gestures: &GestureSettings,
    options: &ListenBakeOptions,
) -> Result<ListenBake, ListenBakeError> {
    if samples.is_empty() || rate == 0 {
        return Err(ListenBakeError::NoRecording);
    }
    let voice = resample(samples, rate, VOICE_RATE).map_err(ListenBakeError::Resample)?;
    let heard = hear(&voice, listen);
    let recording_ms = samples.len() as f64 * 1000.0 / f64::from(rate);
    let times = frame_times(options.fps, recording_ms + options.after_ms.max(0.0))?;
    let mut face = FaceAnimator::new(face_settings.clone(), options.seed);
    face.set_speaking(false);
    let mut attention = PersonAttention::default();
    let mut talk: Talk = None;
    let mut out = ListenBake {
        face: Bake {
            times_ms: Vec::with_capacity(times.len()),
            frames: Vec::with_capacity(times.len()),
            own: None,
        },
        nod_deg: Vec::with_capacity(times.len()),
        thinking: Vec::with_capacity(times.len()),
        utterances: Vec::new(),
        onsets_heard_ms: Vec::new(),
        stresses: Vec::new(),
    };
    let mut next = heard.iter().peekable();
    let mut previous = 0.0;
    for &t in &times {
        let dt = t - previous;
        previous = t;
        if let Some((_, at_ms)) = talk.as_mut() {
            *at_ms += dt;
        }
        attention.attend(listen, &mut face, dt);
        // What was heard by this frame, acted on as the live player acts on it.
        while let Some(h) = next.next_if(|h| h.heard_ms <= t) {
            match &h.event {
                VoiceEvent::Onset { .. } => {
                    attention.started(listen, gestures, &mut face, &mut talk, false);
                    out.onsets_heard_ms.push(h.heard_ms);
                }
                VoiceEvent::Stress { at_ms } => {
                    let nodded = attention.stress(listen, options.seed, &mut talk);
                    out.stresses.push((*at_ms, nodded));
                }
                VoiceEvent::Dropped { .. } => attention.stopped(true, false, &mut talk),
                VoiceEvent::Utterance(speech) => {
                    attention.stopped(false, false, &mut talk);
                    out.utterances.push((speech.start_ms, speech.end_ms));
                }
            }
        }
        // A listener's face has no line: its update cannot fail.
        let _ = face.update(t, dt);
        out.face.times_ms.push(t);
        out.face.frames.push(*face.frame());
        out.nod_deg.push(
            talk.as_ref()
                .map_or(0.0, |(plan, at_ms)| plan.nod_deg(*at_ms)),
        );
        out.thinking.push(face.thinking());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn silence_is_not_heard_and_nothing_moves_for_it() {
        let bake = bake_listening(
            &vec![0.0; 16_000],
            16_000,
            &ListenSettings::default(),
            &FaceSettings::default(),
            &GestureSettings::default(),
            &ListenBakeOptions::default(),
        )
        .unwrap();
        assert!(bake.utterances.is_empty() && bake.onsets_heard_ms.is_empty());
        assert!(bake.nod_deg.iter().all(|&d| d == 0.0));
        assert!(!bake.thinking.iter().any(|&t| t));
        assert_eq!(bake.face.frames.len(), bake.face.times_ms.len());
        assert_eq!(
            bake_listening(
                &[],
                16_000,
                &ListenSettings::default(),
                &FaceSettings::default(),
                &GestureSettings::default(),
                &ListenBakeOptions::default(),
            )
            .unwrap_err(),
            ListenBakeError::NoRecording
        );
    }
}
