//! Which engine speaks a line: Azure when the project asks for it and a key is set, with the
//! offline engine taking over any line Azure cannot speak (no key, no network, a timeout, a
//! broken connection); the offline engine otherwise. After failures in a row, a breaker sends
//! lines offline for a while without waiting on Azure ([`super::breaker`]).

use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use super::breaker::Breaker;
use npc_core::project::{SpeechEngine as EngineChoice, Voice};
use npc_core::speech::azure::{AzureConfig, AzureEngine};
use npc_core::speech::{OfflineEngine, SpeechEngine, SpeechError, Utterance};

/// The engines of a project.
pub struct Speaker {
    primary: Option<Box<dyn SpeechEngine>>,
    /// The offline engine, or why it cannot speak (its data missing, say): then every line it
    /// would speak is refused with that reason and the player keeps running.
    offline: Result<OfflineEngine, String>,
    /// Whether lines may try the primary engine now.
    breaker: Mutex<Breaker>,
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
            breaker: Mutex::new(Breaker::default()),
        })
    }

    /// With `primary` in front of the offline engine (a test fake, in the tests).
    #[cfg(test)]
    pub fn with_primary(primary: Box<dyn SpeechEngine>) -> Result<Self, SpeechError> {
        Ok(Self {
            primary: Some(primary),
            offline: offline(),
            breaker: Mutex::new(Breaker::default()),
        })
    }

    /// Speaks a line: with the primary engine when there is one, offline when it fails.
    pub fn synthesize(&self, text: &str, voice: &Voice) -> Result<Utterance, SpeechError> {
        let call = self.primary.as_ref().and_then(|primary| {
            let now = Instant::now();
            let mut breaker = self.breaker();
            breaker.allows(now).then(|| (primary, breaker.began(now)))
        });
        if let Some((primary, call)) = call {
            let result = primary.synthesize(text, voice);
            self.breaker().ended(call);
            match result {
                Ok(u) => {
                    if let Some(said) = self.breaker().succeeded() {
                        tracing::info!("{said}");
                    }
                    return Ok(u);
                }
                Err(SpeechError::EmptyText) => return Err(SpeechError::EmptyText),
                Err(e) => {
                    tracing::warn!("{e}; this line is spoken offline");
                    if let Some(said) = self.breaker().failed(Instant::now()) {
                        tracing::warn!("{said}");
                    }
                }
            }
        }
        match &self.offline {
            Ok(engine) => engine.synthesize(text, voice),
            Err(why) => Err(SpeechError::EngineUnavailable(why.clone())),
        }
    }
}

impl Speaker {
    /// Lets at most `calls` lines wait on the primary engine at once; others are spoken
    /// offline (so a hung service never holds every synthesis worker).
    #[must_use]
    pub fn limit_cloud_calls(self, calls: usize) -> Self {
        Self {
            breaker: Mutex::new(Breaker::with_max_calls(calls)),
            ..self
        }
    }

    /// Speaks `text` with the offline engine alone, to load a voice's data before the first
    /// line (never the cloud: a slow or hung service would hold the start).
    pub fn warm_up(&self, text: &str, voice: &Voice) {
        if let Ok(engine) = &self.offline {
            let _ = engine.synthesize(text, voice);
        }
    }

    fn breaker(&self) -> std::sync::MutexGuard<'_, Breaker> {
        self.breaker.lock().unwrap_or_else(PoisonError::into_inner)
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

    /// A test fake: an engine that counts the lines it is asked for and fails each.
    struct CountingFailureFake(std::sync::Arc<std::sync::atomic::AtomicU32>);

    impl SpeechEngine for CountingFailureFake {
        fn synthesize_streaming(
            &self,
            _text: &str,
            _voice: &Voice,
            _sink: &mut dyn FnMut(SpeechChunk),
        ) -> Result<(), SpeechError> {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Err(SpeechError::Azure("timed out after 10 s".to_owned()))
        }
    }

    #[test]
    fn after_failures_in_a_row_lines_go_offline_without_asking_the_cloud() {
        let asked = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let speaker =
            Speaker::with_primary(Box::new(CountingFailureFake(asked.clone()))).expect("espeak-ng");
        for _ in 0..6 {
            let u = speaker
                .synthesize("Good morning.", &Voice::default())
                .expect("offline");
            assert!(u.duration_ms() > 300.0);
        }
        assert_eq!(
            asked.load(std::sync::atomic::Ordering::Relaxed),
            super::super::breaker::FAILURES_TO_OPEN,
            "the breaker opened after the third failure"
        );
    }
}
