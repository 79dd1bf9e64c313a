//! `heard.jsonl` and `heard/`: what the player heard the person say, for the agents
//! (protocol 1.1). Each utterance is a WAV `heard/NNNN.wav` and one JSON line
//! `{"seq", "to", "audio", "start_ms", "end_ms", "text", "words"}` appended to `heard.jsonl`.
//!
//! The WAV is written first (a temporary file renamed into place), then the line in one
//! `write` call, so an agent that sees a line finds its recording complete. Numbering goes on
//! from the lines already in the file, so a restarted player never reuses a recording's name.
//! Only the player writes here: bytes an agent appends are left alone, with a warning.

use std::fs::{self, OpenOptions};
use std::io::{self, Cursor};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::disk::Disk;
use thiserror::Error;

/// The file of heard utterances, in the agent directory.
pub const HEARD_FILE: &str = "heard.jsonl";
/// The folder of their recordings.
pub const HEARD_DIR: &str = "heard";

/// A word recognised in an utterance, ms on the run's clock.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HeardWord {
    pub word: String,
    pub start_ms: f64,
    pub end_ms: f64,
}

/// One heard utterance as written to `heard.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HeardLine {
    pub seq: u64,
    /// The NPC it was addressed to; `None` (JSON null) when nobody was.
    pub to: Option<String>,
    /// Its recording, relative to the agent directory.
    pub audio: String,
    /// First and last voiced moment, ms on the run's clock (the events file's and the
    /// record's `time_ms`).
    pub start_ms: f64,
    pub end_ms: f64,
    /// What was said, when a recognizer heard it; `None` otherwise.
    pub text: Option<String>,
    pub words: Option<Vec<HeardWord>>,
}

/// Why an utterance could not be written.
#[derive(Debug, Error)]
pub enum HeardError {
    #[error("cannot create {path}: {io}")]
    Folder { path: PathBuf, io: io::Error },
    #[error("cannot write the recording {path}: {why}")]
    Recording { path: PathBuf, why: String },
    #[error("cannot append to {path}: {io}")]
    Append { path: PathBuf, io: io::Error },
}

/// What is written for one utterance, before it has a seq.
#[derive(Clone, Debug, PartialEq)]
pub struct Heard {
    pub to: Option<String>,
    pub start_ms: f64,
    pub end_ms: f64,
    pub text: Option<String>,
    pub words: Option<Vec<HeardWord>>,
}

/// The player's side of `heard.jsonl`.
#[derive(Debug)]
pub struct HeardLog {
    dir: PathBuf,
    disk: Disk,
    next_seq: u64,
    /// The file's length after the player's last append (None before its first).
    known_len: Option<u64>,
}

impl HeardLog {
    /// The log of the agent directory `dir`, numbering on after the lines already there (a
    /// line that is not the player's is passed over).
    #[must_use]
    pub fn open(dir: &Path, disk: Disk) -> Self {
        let path = dir.join(HEARD_FILE);
        let next_seq = fs::read(&path).map_or(0, |bytes| {
            bytes
                .split(|b| *b == b'\n')
                .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
                .filter_map(|v| v.get("seq").and_then(Value::as_u64))
                .max()
                .map_or(0, |m| m + 1)
        });
        Self {
            dir: dir.to_owned(),
            disk,
            next_seq,
            known_len: None,
        }
    }

    /// The seq the next utterance gets.
    #[must_use]
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Writes one utterance: `pcm` (mono, `sample_rate`) as `heard/NNNN.wav`, then its line.
    /// Returns the line written and any warning (bytes someone else appended).
    ///
    /// # Errors
    /// The folder or the recording cannot be written, or the line cannot be appended;
    /// nothing written before is touched, and the seq is not used up.
    pub fn write(
        &mut self,
        heard: Heard,
        pcm: &[i16],
        sample_rate: u32,
    ) -> Result<(HeardLine, Option<String>), HeardError> {
        let seq = self.next_seq;
        let folder = self.dir.join(HEARD_DIR);
        fs::create_dir_all(&folder).map_err(|io| HeardError::Folder {
            path: folder.clone(),
            io,
        })?;
        let audio = format!("{HEARD_DIR}/{seq:04}.wav");
        let wav_path = self.dir.join(&audio);
        let bytes = wav_bytes(pcm, sample_rate).map_err(|why| HeardError::Recording {
            path: wav_path.clone(),
            why,
        })?;
        self.disk
            .write_atomically(&wav_path, &bytes, ".tmp")
            .map_err(|e| HeardError::Recording {
                path: wav_path.clone(),
                why: e.to_string(),
            })?;
        let line = HeardLine {
            seq,
            to: heard.to,
            audio,
            start_ms: round_ms(heard.start_ms),
            end_ms: round_ms(heard.end_ms),
            text: heard.text,
            words: heard.words,
        };
        let warning = self.append(&line)?;
        self.next_seq += 1;
        Ok((line, warning))
    }

    fn append(&mut self, line: &HeardLine) -> Result<Option<String>, HeardError> {
        let path = self.dir.join(HEARD_FILE);
        let failed = |io| HeardError::Append {
            path: path.clone(),
            io,
        };
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(failed)?;
        let len = file.metadata().map_err(failed)?.len();
        let mut warning = None;
        let mut text = String::new();
        if self.known_len.is_some_and(|known| len != known) {
            warning = Some(format!(
                "{}: changed by someone else since the player's last line ({} bytes now); \
                 agents must not write it, what they wrote is ignored",
                path.display(),
                len
            ));
        }
        // A line of someone else's left without its newline must not swallow ours.
        if len > 0 && !ends_with_newline(&path, len) {
            text.push('\n');
        }
        text.push_str(&serde_json::to_string(line).unwrap_or_default());
        text.push('\n');
        let mut bytes = text.into_bytes();
        let whole = bytes.len() as u64;
        if let Err(io) = self.disk.append_all(&mut file, &mut bytes) {
            // A line cut short (the disk filled part way) is taken back, so the file holds
            // whole lines only and the same line can be written again.
            if file.set_len(len).is_err() {
                self.known_len = Some(len + whole - bytes.len() as u64);
            }
            return Err(failed(io));
        }
        self.known_len = Some(len + whole);
        Ok(warning)
    }
}

fn ends_with_newline(path: &Path, len: u64) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let mut last = [0u8; 1];
    fs::File::open(path)
        .and_then(|mut f| {
            f.seek(SeekFrom::Start(len - 1))?;
            f.read_exact(&mut last)
        })
        .is_ok()
        && last[0] == b'\n'
}

/// Milliseconds to a tenth, so the file reads cleanly.
fn round_ms(ms: f64) -> f64 {
    (ms * 10.0).round() / 10.0
}

/// A mono 16-bit WAV in memory.
fn wav_bytes(pcm: &[i16], sample_rate: u32) -> Result<Vec<u8>, String> {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut cursor = Cursor::new(Vec::new());
    {
        let mut writer = hound::WavWriter::new(&mut cursor, spec).map_err(|e| e.to_string())?;
        let mut samples = writer.get_i16_writer(pcm.len() as u32);
        for &s in pcm {
            samples.write_sample(s);
        }
        samples.flush().map_err(|e| e.to_string())?;
        writer.finalize().map_err(|e| e.to_string())?;
    }
    Ok(cursor.into_inner())
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn heard(to: Option<&str>) -> Heard {
        Heard {
            to: to.map(str::to_owned),
            start_ms: 1_234.56,
            end_ms: 2_000.0,
            text: Some("hello there".to_owned()),
            words: None,
        }
    }

    fn lines(dir: &Path) -> Vec<Value> {
        fs::read_to_string(dir.join(HEARD_FILE))
            .expect("heard.jsonl")
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    #[test]
    fn each_utterance_is_a_recording_and_a_line() {
        let dir = tempfile::tempdir().expect("temp");
        let mut log = HeardLog::open(dir.path(), Disk::local());
        let (line, warning) = log
            .write(heard(Some("Elara")), &[0, 1000, -1000], 16_000)
            .expect("write");
        assert!(warning.is_none());
        assert_eq!(line.audio, "heard/0000.wav");
        let (samples, rate) =
            crate::speech::wav::read_mono(&dir.path().join(&line.audio)).expect("wav");
        assert_eq!((samples.len(), rate), (3, 16_000));
        log.write(heard(None), &[0; 10], 16_000).expect("write");
        let written = lines(dir.path());
        assert_eq!(written.len(), 2);
        assert_eq!(written[0]["to"], "Elara");
        assert_eq!(written[0]["start_ms"], 1234.6);
        assert_eq!(written[1]["seq"], 1);
        assert!(written[1]["to"].is_null());
        assert!(written[1]["words"].is_null());
        // A restarted player numbers on.
        let mut again = HeardLog::open(dir.path(), Disk::local());
        assert_eq!(again.next_seq(), 2);
        let (line, _) = again.write(heard(None), &[0; 10], 16_000).expect("write");
        assert_eq!(line.audio, "heard/0002.wav");
    }

    #[test]
    fn what_an_agent_appends_is_kept_and_warned_about() {
        let dir = tempfile::tempdir().expect("temp");
        let mut log = HeardLog::open(dir.path(), Disk::local());
        log.write(heard(None), &[0; 10], 16_000).expect("write");
        let path = dir.path().join(HEARD_FILE);
        let mut f = OpenOptions::new().append(true).open(&path).expect("open");
        f.write_all(b"{\"agent\": \"was here\"}").expect("append");
        let (_, warning) = log.write(heard(None), &[0; 10], 16_000).expect("write");
        assert!(warning.is_some_and(|w| w.contains("must not write")));
        let text = fs::read_to_string(&path).expect("read");
        assert!(
            text.contains("{\"agent\": \"was here\"}\n{\"seq\":1"),
            "{text}"
        );
        assert_eq!(lines(dir.path()).len(), 3);
    }

    #[test]
    fn an_unwritable_recording_is_an_error_and_loses_nothing() {
        let dir = tempfile::tempdir().expect("temp");
        let mut log = HeardLog::open(dir.path(), Disk::local());
        log.write(heard(None), &[0; 10], 16_000).expect("write");
        // Something that is not a file stands where the next recording goes (as root, the
        // one failure permissions cannot cause).
        fs::create_dir(dir.path().join("heard/0001.wav")).expect("block");
        let e = log
            .write(heard(None), &[0; 10], 16_000)
            .expect_err("blocked");
        assert!(e.to_string().contains("heard/0001.wav"), "{e}");
        assert_eq!(log.next_seq(), 1);
        assert_eq!(lines(dir.path()).len(), 1);
        // A folder that cannot be made.
        let other = tempfile::tempdir().expect("temp");
        fs::write(other.path().join(HEARD_DIR), b"a file").expect("file");
        let e = HeardLog::open(other.path(), Disk::local())
            .write(heard(None), &[0; 10], 16_000)
            .expect_err("no folder");
        assert!(e.to_string().contains("cannot create"), "{e}");
    }
}
