//! Where a line's visemes come from, for baking and for the studio's timeline: offline speech
//! of a text, the sound of a recording (audio analysis), or a viseme file. Each gives the
//! line's [`LineCue`] (what the face performs) and, with audio, the samples.

use std::fs;
use std::path::Path;

use anyhow::Context;
use npc_core::LineCue;
use npc_core::anim::lipsync::{VisemeEvent, VisemeTrack};
use npc_core::project::Voice;
use npc_core::speech::analysis::{AnalysisSettings, analyse, track_from_analysis};
use npc_core::speech::{OfflineEngine, SpeechEngine, Utterance, wav};

/// A line ready to bake.
#[derive(Clone, Debug)]
pub struct LineSource {
    /// What the face performs: the track and, with audio, its loudness.
    pub cue: LineCue,
    /// Mono samples in -1..1 and their rate, when the line has audio.
    pub audio: Option<(Vec<f32>, u32)>,
    /// The synthesised utterance, when the line was spoken from text.
    pub utterance: Option<Utterance>,
}

impl LineSource {
    /// Speaks `text` with the offline engine.
    pub fn from_text(text: &str, voice: &Voice) -> anyhow::Result<Self> {
        let utterance = OfflineEngine::new()?.synthesize(text, voice)?;
        let samples: Vec<f32> = utterance
            .pcm
            .iter()
            .map(|&s| f32::from(s) / 32768.0)
            .collect();
        Ok(Self {
            cue: LineCue::from_utterance(&utterance)?,
            audio: Some((samples, utterance.sample_rate)),
            utterance: Some(utterance),
        })
    }

    /// Lip sync from the sound of a WAV file alone.
    pub fn from_wav(path: &Path) -> anyhow::Result<Self> {
        let (samples, rate) = wav::read_mono(path)
            .with_context(|| format!("cannot read audio {}", path.display()))?;
        let settings = AnalysisSettings::default();
        let events = track_from_analysis(&analyse(&samples, rate, &settings), &settings);
        Ok(Self {
            cue: LineCue::from_recording(VisemeTrack::from_events(events)?, &samples, rate),
            audio: Some((samples, rate)),
            utterance: None,
        })
    }

    /// A viseme file: `[{"id": 21, "offset_ms": 120}, ...]`.
    pub fn from_visemes(path: &Path) -> anyhow::Result<Self> {
        Ok(Self {
            cue: LineCue::from_track(read_track(path)?),
            audio: None,
            utterance: None,
        })
    }
}

/// Reads a viseme track from JSON: `[{"id": 21, "offset_ms": 120}, ...]`.
pub fn read_track(path: &Path) -> anyhow::Result<VisemeTrack> {
    let text = fs::read_to_string(path)
        .with_context(|| format!("cannot read viseme file {}", path.display()))?;
    let events: Vec<VisemeEvent> = serde_json::from_str(&text).map_err(|e| {
        let location = format!(" at line {} column {}", e.line(), e.column());
        let message = e.to_string().replace(&location, "");
        anyhow::anyhow!("{}:{}:{}: {message}", path.display(), e.line(), e.column())
    })?;
    VisemeTrack::from_events(events).with_context(|| format!("{}", path.display()))
}
