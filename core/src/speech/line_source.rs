//! Where a line's visemes come from, for baking and for the studio's timeline: offline speech
//! of a text, the sound of a recording (audio analysis), or a viseme file. Each gives the
//! line's [`LineCue`] (what the face performs) and, with audio, the samples.

use std::fs;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::Utterance;
use super::mouth_net::HeardFrame;
use super::unscripted::visemes_from_sound;
use super::wav;
use crate::anim::LineCue;
use crate::anim::lipsync::{TrackError, VisemeEvent, VisemeTrack};

/// Why a line could not be read or spoken.
#[derive(Debug, Error)]
pub enum LineSourceError {
    #[error("cannot read audio {path}: {source}")]
    Audio { path: PathBuf, source: hound::Error },
    #[error("cannot read viseme file {path}: {source}")]
    VisemeFile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: {message}")]
    VisemeJson {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: {source}")]
    Track { path: PathBuf, source: TrackError },
    #[error("the line's visemes: {0}")]
    Visemes(#[from] TrackError),
    #[error(transparent)]
    Speech(#[from] super::SpeechError),
    #[error("cannot align the script to the recording: {0}")]
    Align(#[from] super::align::AlignError),
}

/// A line ready to bake.
#[derive(Clone, Debug)]
pub struct LineSource {
    /// What the face performs: the track and, with audio, its loudness.
    pub cue: LineCue,
    /// Mono samples in -1..1 and their rate, when the line has audio.
    pub audio: Option<(Vec<f32>, u32)>,
    /// The synthesised utterance, when the line was spoken from text.
    pub utterance: Option<Utterance>,
    /// A recording lip-synced from its sound alone: each 10 ms frame's mouth class as heard,
    /// with the mouth network's belief in it (empty otherwise).
    pub heard: Vec<HeardFrame>,
}

impl LineSource {
    /// Speaks `text` with the offline engine.
    #[cfg(feature = "espeak")]
    pub fn from_text(text: &str, voice: &crate::project::Voice) -> Result<Self, LineSourceError> {
        use super::SpeechEngine;
        let utterance = super::OfflineEngine::new()?.synthesize(text, voice)?;
        Ok(Self::from_utterance(utterance)?)
    }

    /// A synthesised utterance.
    pub fn from_utterance(utterance: Utterance) -> Result<Self, TrackError> {
        let samples: Vec<f32> = utterance
            .pcm
            .iter()
            .map(|&s| f32::from(s) / 32768.0)
            .collect();
        Ok(Self {
            cue: LineCue::from_utterance(&utterance)?,
            audio: Some((samples, utterance.sample_rate)),
            utterance: Some(utterance),
            heard: Vec::new(),
        })
    }

    /// Lip sync from the sound of a WAV file alone, spoken in `language` (BCP 47): the phones
    /// the acoustic model hears in English, else the mouth network's reading of the sound
    /// ([`super::unscripted`]).
    pub fn from_wav(path: &Path, language: &str) -> Result<Self, LineSourceError> {
        let (samples, rate) = wav::read_mono(path).map_err(|source| LineSourceError::Audio {
            path: path.to_owned(),
            source,
        })?;
        let heard = visemes_from_sound(&samples, rate, language);
        Ok(Self {
            cue: LineCue::from_recording(VisemeTrack::from_events(heard.visemes)?, &samples, rate),
            audio: Some((samples, rate)),
            utterance: None,
            heard: heard.frames,
        })
    }

    /// A recording and its script: the script spoken by the offline engine in `voice`, its
    /// timing aligned to the recording's sound ([`super::align`]).
    #[cfg(feature = "espeak")]
    pub fn from_wav_and_script(
        path: &Path,
        script: &str,
        voice: &crate::project::Voice,
    ) -> Result<Self, LineSourceError> {
        use super::SpeechEngine;
        let (samples, rate) = wav::read_mono(path).map_err(|source| LineSourceError::Audio {
            path: path.to_owned(),
            source,
        })?;
        let synthesis = super::OfflineEngine::new()?.synthesize(script, voice)?;
        let aligned = super::align::align(&samples, rate, &synthesis, &voice.language)?.utterance;
        Ok(Self::from_utterance(aligned)?)
    }

    /// A viseme file: `[{"id": 21, "offset_ms": 120}, ...]`.
    pub fn from_visemes(path: &Path) -> Result<Self, LineSourceError> {
        Ok(Self {
            cue: LineCue::from_track(read_track(path)?),
            audio: None,
            utterance: None,
            heard: Vec::new(),
        })
    }
}

/// Reads a viseme track from JSON: `[{"id": 21, "offset_ms": 120}, ...]`.
pub fn read_track(path: &Path) -> Result<VisemeTrack, LineSourceError> {
    let text = fs::read_to_string(path).map_err(|source| LineSourceError::VisemeFile {
        path: path.to_owned(),
        source,
    })?;
    let events: Vec<VisemeEvent> = serde_json::from_str(&text).map_err(|e| {
        let location = format!(" at line {} column {}", e.line(), e.column());
        LineSourceError::VisemeJson {
            path: path.to_owned(),
            line: e.line(),
            column: e.column(),
            message: e.to_string().replace(&location, ""),
        }
    })?;
    VisemeTrack::from_events(events).map_err(|source| LineSourceError::Track {
        path: path.to_owned(),
        source,
    })
}
