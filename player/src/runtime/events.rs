//! The `--events` file: one JSON object per line event, appended in order by a thread of its
//! own (the frame never waits on the disk), each written as soon as it comes; a write that fails
//! (a full disk) is tried again every 500 ms with what followed, so nothing is lost or doubled;
//! what is still unwritten when the log is dropped (at exit, or as a failing frame loop
//! unwinds) is written before it goes.

use std::fs::{File, OpenOptions};
use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::Context;
use npc_core::agent::Line;
use npc_core::disk::Disk;
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

/// How often a failed write of the events file is tried again.
const RETRY: Duration = Duration::from_millis(500);

/// The events file, opened for appending, and its writer thread.
#[derive(Debug)]
pub struct EventLog {
    lines: Option<mpsc::Sender<String>>,
    writer: Option<JoinHandle<()>>,
    /// The run's clock: each event gets `t_ms`, ms since this, when it is set.
    origin: Option<Instant>,
}

impl EventLog {
    /// Opens (creating if needed) `path` for appending.
    pub fn open(path: &Path, disk: Disk) -> anyhow::Result<Self> {
        crate::output::check_folder(path)?;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        let (lines, received) = mpsc::channel();
        let shown = path.to_owned();
        let writer = std::thread::Builder::new()
            .name("events-writer".to_owned())
            .spawn(move || write_lines(&disk, file, &received, &shown))
            .context("cannot start the events file's writer")?;
        Ok(Self {
            lines: Some(lines),
            writer: Some(writer),
            origin: None,
        })
    }

    /// Stamps events from now on with `t_ms` since `origin`.
    pub fn set_origin(&mut self, origin: Instant) {
        self.origin = Some(origin);
    }

    /// Hands one event to the writer, as one line.
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
        if let Some(lines) = &self.lines
            && lines.send(text).is_err()
        {
            tracing::warn!("the events file's writer has stopped");
        }
    }
}

impl Drop for EventLog {
    /// Every event handed over is written (when the disk takes it) before the log goes.
    fn drop(&mut self) {
        self.lines = None;
        if let Some(writer) = self.writer.take()
            && writer.join().is_err()
        {
            tracing::warn!("the events file's writer panicked");
        }
    }
}

/// The writer's loop: each line appended as it comes; after a failure, the bytes not written
/// are tried again with what followed, every [`RETRY`].
fn write_lines(disk: &Disk, mut file: File, lines: &mpsc::Receiver<String>, path: &Path) {
    let mut unwritten: Vec<u8> = Vec::new();
    let mut failing = false;
    loop {
        let next = if unwritten.is_empty() {
            lines
                .recv()
                .map_err(|_| mpsc::RecvTimeoutError::Disconnected)
        } else {
            lines.recv_timeout(RETRY)
        };
        let closed = match next {
            Ok(line) => {
                unwritten.extend_from_slice(line.as_bytes());
                unwritten.extend(lines.try_iter().flat_map(String::into_bytes));
                false
            }
            Err(mpsc::RecvTimeoutError::Timeout) => false,
            Err(mpsc::RecvTimeoutError::Disconnected) => true,
        };
        match disk.append_all(&mut file, &mut unwritten) {
            Ok(()) if failing => {
                failing = false;
                tracing::info!("{} written again", path.display());
            }
            Ok(()) => {}
            Err(e) if !failing => {
                failing = true;
                tracing::warn!(
                    "cannot write the events file {}: {e}; trying again every {} ms",
                    path.display(),
                    RETRY.as_millis()
                );
            }
            Err(_) => {}
        }
        if closed {
            if !unwritten.is_empty() {
                tracing::warn!(
                    "{}: {} bytes of events could not be written",
                    path.display(),
                    unwritten.len()
                );
            }
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn numbered(i: u32) -> LineEvent {
        LineEvent(json!({"event": "test", "i": i}))
    }

    #[test]
    fn every_event_handed_over_is_in_the_file_in_order_once_the_log_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let mut log = EventLog::open(&path, Disk::local()).unwrap();
        for i in 0..2_000 {
            log.write(&numbered(i));
        }
        drop(log);
        let text = std::fs::read_to_string(&path).unwrap();
        let seen: Vec<u64> = text
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["i"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        assert_eq!(seen, (0..2_000).collect::<Vec<u64>>());
    }

    #[test]
    fn a_full_disk_neither_holds_the_caller_nor_fails_it() {
        // /dev/full (Linux) refuses every write with ENOSPC.
        let mut log = EventLog::open(Path::new("/dev/full"), Disk::local()).unwrap();
        for i in 0..100 {
            log.write(&numbered(i));
        }
        // Dropped while the disk is still full: the writer says what it could not write and
        // goes.
        drop(log);
    }
}
