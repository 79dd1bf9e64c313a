//! The microphone light: whether the player hears the person, how loud, whom they speak to,
//! and that what they said went to the agents.

/// How long "sent" stays lit after an utterance is written, ms.
const SENT_MS: f64 = 1_500.0;

/// What the light shows.
#[derive(Clone, Debug, PartialEq)]
pub enum MicLight {
    /// No microphone in this run, or it stopped.
    Off,
    /// Listening; the person is quiet. `level`: the sound's loudness, 0-1.
    Listening { level: f32 },
    /// The person is speaking, to `to` when to an NPC.
    Hearing { level: f32, to: Option<String> },
    /// An utterance has just been written for the agents.
    Sent { to: Option<String> },
}

/// Follows the person's events to light the microphone.
#[derive(Debug, Default)]
pub struct MicTracker {
    speaking_to: Option<Option<String>>,
    sent: Option<(Option<String>, f64)>,
}

impl MicTracker {
    /// The person started speaking to `to`.
    pub fn onset(&mut self, to: Option<String>) {
        self.speaking_to = Some(to);
        self.sent = None;
    }

    /// They stopped, or it was noise.
    pub fn stopped(&mut self) {
        self.speaking_to = None;
    }

    /// Their utterance to `to` was written at `run_ms`.
    pub fn sent(&mut self, to: Option<String>, run_ms: f64) {
        self.sent = Some((to, run_ms));
    }

    /// Whom the person speaks to now, or has just spoken to.
    #[must_use]
    pub fn addressed(&self, run_ms: f64) -> Option<&str> {
        match (&self.speaking_to, &self.sent) {
            (Some(to), _) => to.as_deref(),
            (None, Some((to, at))) if run_ms - at < SENT_MS => to.as_deref(),
            _ => None,
        }
    }

    /// The light at `run_ms`, with the microphone `open` and its `level` (0-1).
    #[must_use]
    pub fn light(&self, open: bool, level: f32, run_ms: f64) -> MicLight {
        if !open && self.speaking_to.is_none() {
            return MicLight::Off;
        }
        let level = if level.is_finite() {
            level.clamp(0.0, 1.0)
        } else {
            0.0
        };
        match (&self.speaking_to, &self.sent) {
            (Some(to), _) => MicLight::Hearing {
                level,
                to: to.clone(),
            },
            (None, Some((to, at))) if run_ms - at < SENT_MS => MicLight::Sent { to: to.clone() },
            _ => MicLight::Listening { level },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_light_follows_the_person() {
        let mut mic = MicTracker::default();
        assert_eq!(mic.light(false, 0.5, 0.0), MicLight::Off);
        assert_eq!(
            mic.light(true, 0.2, 0.0),
            MicLight::Listening { level: 0.2 }
        );
        mic.onset(Some("Elara".to_owned()));
        assert_eq!(
            mic.light(true, 2.0, 10.0),
            MicLight::Hearing {
                level: 1.0,
                to: Some("Elara".to_owned())
            }
        );
        assert_eq!(mic.addressed(10.0), Some("Elara"));
        mic.stopped();
        mic.sent(Some("Elara".to_owned()), 1_000.0);
        assert_eq!(
            mic.light(true, 0.0, 1_200.0),
            MicLight::Sent {
                to: Some("Elara".to_owned())
            }
        );
        assert_eq!(mic.addressed(1_200.0), Some("Elara"));
        assert_eq!(
            mic.light(true, 0.1, 1_000.0 + SENT_MS),
            MicLight::Listening { level: 0.1 }
        );
        assert_eq!(mic.addressed(1_000.0 + SENT_MS), None);
    }
}
