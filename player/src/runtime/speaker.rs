//! Which engine speaks a line: Azure when the project asks for it and a key is set, with the
//! offline engine taking over any line Azure cannot speak (no key, no network, a timeout, a
//! broken connection); the offline engine otherwise.

use npc_core::project::{SpeechEngine as EngineChoice, Voice};
use npc_core::speech::azure::{AzureConfig, AzureEngine};
use npc_core::speech::{OfflineEngine, SpeechEngine, SpeechError, Utterance};

/// The engines of a project.
pub struct Speaker {
    primary: Option<Box<dyn SpeechEngine>>,
    /// The offline engine, or why it cannot speak (its data missing, say): then every line it
    /// would speak is refused with that reason and the player keeps running.
    offline: Result<OfflineEngine, String>,
}

impl std::fmt::Debug for Speaker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Speaker")
            .field("primary", &self.primary.is_some())
            .finish_non_exhaustive()
    }
}

impl Speaker {
    /// The engines for the project's choice. Without a working offline engine it says once
    /// why, and lines that need it are refused with the reason.
    pub fn for_project(choice: &EngineChoice) -> Result<Self, SpeechError> {
        let primary: Option<Box<dyn SpeechEngine>> = match choice {
            EngineChoice::Offline => None,
            EngineChoice::Azure { region } => match AzureConfig::from_env(region) {
                Ok(config) => Some(Box::new(AzureEngine::new(config))),
                Err(e) => {
                    tracing::warn!("{e}; every line is spoken offline");
                    None
                }
            },
        };
        Ok(Self {
            primary,
            offline: offline(),
        })
    }

    /// With `primary` in front of the offline engine (a test fake, in the tests).
    #[cfg(test)]
    pub fn with_primary(primary: Box<dyn SpeechEngine>) -> Result<Self, SpeechError> {
        Ok(Self {
            primary: Some(primary),
            offline: offline(),
        })
    }

    /// Speaks a line: with the primary engine when there is one, offline when it fails.
    pub fn synthesize(&self, text: &str, voice: &Voice) -> Result<Utterance, SpeechError> {
        if let Some(primary) = &self.primary {
            match primary.synthesize(text, voice) {
                Ok(u) => return Ok(u),
                Err(SpeechError::EmptyText) => return Err(SpeechError::EmptyText),
                Err(e) => tracing::warn!("{e}; this line is spoken offline"),
            }
        }
        match &self.offline {
            Ok(engine) => engine.synthesize(text, voice),
            Err(why) => Err(SpeechError::EngineUnavailable(why.clone())),
        }
    }
}

/// The offline engine, or why it cannot speak (said once, here).
fn offline() -> Result<OfflineEngine, String> {
    OfflineEngine::new().map_err(|e| {
        let why = match e {
            SpeechError::EngineUnavailable(why) => why,
            other => other.to_string(),
        };
        tracing::error!("offline speech cannot start: {why}; lines are refused until it can");
        why
    })
}

#[cfg(test)]
mod tests {
    use npc_core::speech::SpeechChunk;

    use super::*;

    /// A test fake: an engine that always fails as a dropped connection does.
    struct FailingEngineFake;

    impl SpeechEngine for FailingEngineFake {
        fn synthesize_streaming(
            &self,
            _text: &str,
            _voice: &Voice,
            _sink: &mut dyn FnMut(SpeechChunk),
        ) -> Result<(), SpeechError> {
            Err(SpeechError::Azure(
                "the connection closed before the line was complete".to_owned(),
            ))
        }
    }

    #[test]
    fn a_line_the_primary_cannot_speak_is_spoken_offline() {
        let speaker = Speaker::with_primary(Box::new(FailingEngineFake)).expect("espeak-ng");
        let u = speaker
            .synthesize("Good morning.", &Voice::default())
            .expect("offline");
        assert!(u.duration_ms() > 300.0);
        assert!(!u.visemes.is_empty());
        assert!(matches!(
            speaker.synthesize("  ", &Voice::default()),
            Err(SpeechError::EmptyText)
        ));
    }
}
