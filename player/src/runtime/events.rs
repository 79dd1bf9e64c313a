//! The `--events` file: one JSON object per line event, appended and flushed one by one so a
//! killed process loses nothing it wrote.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use npc_core::agent::Line;
use serde_json::{Value, json};

/// One event of the events file.
#[derive(Clone, Debug, PartialEq)]
pub struct LineEvent(Value);

impl LineEvent {
    /// `line_started` / `line_finished` / `line_rejected` for a line handed out by the
    /// directory; `latency` only for `line_started`.
    #[must_use]
    /// `line_finished`, with `spoken_latency_ms`: from the end of the line's audio to
    /// spoken.json's new state handed to its writer thread (when known).
    pub fn finished(
        conversation: &str,
        line: &Line,
        npc: &str,
        spoken_after: Option<Duration>,
    ) -> Self {
        let mut e = Self::line("line_finished", conversation, line, npc, None);
        if let (Some(d), Some(map)) = (spoken_after, e.0.as_object_mut()) {
            map.insert(
                "spoken_latency_ms".to_owned(),
                json!(d.as_secs_f64() * 1000.0),
            );
        }
        e
    }

    pub fn line(
        event: &str,
        conversation: &str,
        line: &Line,
        npc: &str,
        latency: Option<Duration>,
    ) -> Self {
        let mut v = json!({
            "event": event,
            "conversation": conversation,
            "seq": line.seq,
            "speaker_id": line.speaker_id,
            "npc": npc,
        });
        if let (Some(latency), Some(map)) = (latency, v.as_object_mut()) {
            map.insert(
                "latency_ms".to_owned(),
                json!(latency.as_secs_f64() * 1000.0),
            );
            // An agent that stamps its lines (the simulator does) gets the whole delay from
            // the append to the first audio, file watching included.
            if let Some(written) = line.extra.get("written_unix_ms").and_then(Value::as_f64) {
                map.insert("append_latency_ms".to_owned(), json!(unix_ms() - written));
            }
        }
        Self(v)
    }

    /// The event with `audio`: the file the line's sound is in, when there is one.
    #[must_use]
    pub fn with_audio(mut self, audio: Option<&Path>) -> Self {
        if let (Some(path), Some(map)) = (audio, self.0.as_object_mut()) {
            map.insert("audio".to_owned(), json!(path.display().to_string()));
        }
        self
    }

    /// `line_rejected` for a valid line that could not be spoken, with the reason.
    #[must_use]
    pub fn refused(conversation: &str, line: &Line, npc: &str, reason: &str) -> Self {
        let mut e = Self::line("line_rejected", conversation, line, npc, None);
        if let Some(map) = e.0.as_object_mut() {
            map.insert("reason".to_owned(), json!(reason));
        }
        e
    }

    /// `line_started` for a streamed line: `latency` from the line seen to its first sound,
    /// `first_chunk` from its first samples arriving to its first sound, not counting
    /// `held_for_person`: how long it waited for the person speaking to its NPC to stop.
    #[must_use]
    pub fn streamed_start(
        conversation: &str,
        line: &Line,
        npc: &str,
        latency: Duration,
        first_chunk: Option<Duration>,
        held_for_person: Option<Duration>,
    ) -> Self {
        let mut e = Self::line("line_started", conversation, line, npc, Some(latency));
        if let Some(map) = e.0.as_object_mut() {
            map.insert("streamed".to_owned(), json!(true));
            if let Some(d) = held_for_person {
                map.insert(
                    "held_for_person_ms".to_owned(),
                    json!(round_ms(d.as_secs_f64() * 1000.0)),
                );
            }
            if let Some(d) = first_chunk {
                map.insert(
                    "first_chunk_to_sound_ms".to_owned(),
                    json!(round_ms(d.as_secs_f64() * 1000.0)),
                );
            }
        }
        e
    }

    /// `line_incomplete`: a streamed line ended before its end marker (why).
    #[must_use]
    pub fn incomplete(conversation: &str, line: &Line, npc: &str, why: &str) -> Self {
        let mut e = Self::line("line_incomplete", conversation, line, npc, None);
        if let Some(map) = e.0.as_object_mut() {
            map.insert("reason".to_owned(), json!(why));
        }
        e
    }

    /// `line_interrupted`: the person spoke over the line after `at_ms` of its audio.
    #[must_use]
    pub fn interrupted(conversation: &str, line: &Line, npc: &str, at_ms: f64) -> Self {
        let mut e = Self::line("line_interrupted", conversation, line, npc, None);
        if let Some(map) = e.0.as_object_mut() {
            map.insert("at_ms".to_owned(), json!(round_ms(at_ms)));
        }
        e
    }

    /// An event of the person in front of the player: `event` with `fields`.
    #[must_use]
    pub fn person(event: &str, fields: Value) -> Self {
        let mut v = json!({ "event": event });
        if let (Some(map), Value::Object(more)) = (v.as_object_mut(), fields) {
            map.extend(more);
        }
        Self(v)
    }

    /// `line_rejected` for a line that was invalid in the file (it has no usable seq).
    #[must_use]
    pub fn rejected_input(conversation: &str, file_line: &str, reason: &str) -> Self {
        Self(json!({
            "event": "line_rejected",
            "conversation": conversation,
            "file_line": file_line,
            "reason": reason,
        }))
    }
}

/// Milliseconds since the Unix epoch, now.
#[must_use]
pub fn unix_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// Milliseconds to a tenth, so the file reads cleanly.
#[must_use]
pub fn round_ms(ms: f64) -> f64 {
    (ms * 10.0).round() / 10.0
}

/// The events file, opened for appending.
#[derive(Debug)]
pub struct EventLog {
    file: File,
    /// The run's clock: each event gets `t_ms`, ms since this, when it is set.
    origin: Option<Instant>,
}

impl EventLog {
    /// Opens (creating if needed) `path` for appending.
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        crate::output::check_folder(path)?;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        Ok(Self { file, origin: None })
    }

    /// Stamps events from now on with `t_ms` since `origin`.
    pub fn set_origin(&mut self, origin: Instant) {
        self.origin = Some(origin);
    }

    /// Appends one event as one line, flushed; a failure is logged, not fatal.
    pub fn write(&mut self, event: &LineEvent) {
        let mut value = event.0.clone();
        if let (Some(origin), Some(map)) = (self.origin, value.as_object_mut())
            && !map.contains_key("t_ms")
        {
            let t = Instant::now().saturating_duration_since(origin);
            map.insert("t_ms".to_owned(), json!(round_ms(t.as_secs_f64() * 1000.0)));
        }
        let mut text = value.to_string();
        text.push('\n');
        if let Err(e) = self
            .file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.flush())
        {
            tracing::warn!("cannot write the events file: {e}");
        }
    }
}
