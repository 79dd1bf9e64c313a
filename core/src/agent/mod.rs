//! The agent directory: how conversational agents (any language, any process) tell the
//! player what to say, through a shared folder of JSON files.
//!
//! ```text
//! AGENT_DIR/
//!   active.json          which conversations play now, and their speakers   (agents write)
//!   npc_state.json       NPC positions (0-1 map coordinates), time of day   (agents write)
//!   conversations/*.jsonl  one JSON object per spoken line, appended         (agents write)
//!   spoken.json          last seq whose audio finished, per conversation    (player writes)
//!   heard.jsonl, heard/  what the person said, one line and WAV per utterance (player writes)
//! ```
//!
//! The protocol is documented for agent authors in `docs/agent-protocol.md`; the rules for
//! each field are in [`protocol`]. This module is the player-side core, without audio:
//! [`AgentDirectory::poll`] reads whatever changed and hands out, per conversation, the next
//! line to speak; [`AgentDirectory::line_finished`] is called when that line's audio ended,
//! which records it in `spoken.json` (atomically) and lets the next line of that
//! conversation go.
//!
//! Guarantees: each valid line is handed out once, in seq order, one at a time per
//! conversation; conversations progress independently; nothing at or below the `last_seq`
//! of `spoken.json` is handed out again after a restart; no file content makes it panic or
//! stall (bad input becomes [`AgentEvent::Warning`] / [`AgentEvent::Rejected`]).

pub mod cues;
pub mod heard;
pub mod heard_writer;
pub mod paths;
pub mod protocol;
pub mod reader;
pub mod schedule;
pub mod spoken;
mod spoken_writer;
#[cfg(not(feature = "watch"))]
#[path = "poll_only.rs"]
pub mod watch;
#[cfg(feature = "watch")]
pub mod watch;

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use paths::{PathError, confine};
pub use protocol::{
    Active, ActiveConversation, Interrupted, Line, LineError, NpcPosition, NpcState, Parsed,
    Spoken, SpokenEntry,
};
pub use reader::{ConversationReader, ReadError, ReadItem, ReadOutcome, ReaderOptions};
pub use schedule::{ConversationQueue, DEFAULT_GAP_TIMEOUT, Resolved, SpeakerMap};
pub use spoken_writer::SPOKEN_RETRY;
use spoken_writer::SpokenWriter;
pub use watch::{DEFAULT_POLL_INTERVAL, DirWatcher};

use crate::project::Npc;

/// Name of the file listing the active conversations.
pub const ACTIVE_FILE: &str = "active.json";
/// Name of the file with NPC positions and the time of day.
pub const NPC_STATE_FILE: &str = "npc_state.json";
/// Name of the customary folder of conversation files (watched when present).
pub const CONVERSATIONS_DIR: &str = "conversations";

/// Settings of an [`AgentDirectory`].
#[derive(Clone, Debug)]
pub struct AgentOptions {
    /// How long a missing seq is waited for before moving on.
    pub gap_timeout: Duration,
    /// Longest conversation line accepted, bytes.
    pub max_line_bytes: usize,
    /// Most bytes read from one conversation file per poll.
    pub max_read_per_poll: usize,
    /// Largest `active.json` / `npc_state.json` read, bytes.
    pub max_json_bytes: u64,
    /// Watch the folder for changes (`notify`); when false, [`AgentDirectory::wait`] just
    /// sleeps up to the poll interval.
    pub watch: bool,
    /// The polling fallback: [`AgentDirectory::wait`] returns at least this often.
    pub poll_interval: Duration,
    /// Where `spoken.json` is written (the machine's disk; a benchmark's faulty one).
    pub disk: crate::disk::Disk,
}

impl Default for AgentOptions {
    fn default() -> Self {
        Self {
            gap_timeout: DEFAULT_GAP_TIMEOUT,
            max_line_bytes: reader::DEFAULT_MAX_LINE_BYTES,
            max_read_per_poll: reader::DEFAULT_MAX_READ_PER_POLL,
            max_json_bytes: 1024 * 1024,
            watch: true,
            poll_interval: DEFAULT_POLL_INTERVAL,
            disk: crate::disk::Disk::local(),
        }
    }
}

/// Something [`AgentDirectory::poll`] found.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentEvent {
    /// The next line of `conversation` (as active.json names it) is ready to speak, by `npc`
    /// (a roster id; the speaker id itself when the roster is empty). Call
    /// [`AgentDirectory::line_finished`] when its audio has ended.
    LineReady {
        conversation: String,
        line: Line,
        npc: String,
    },
    /// A line was invalid and skipped; `file_line` is `FILE:LINE` (1-based).
    Rejected {
        conversation: String,
        file_line: String,
        reason: String,
    },
    /// Something was repaired, ignored or waited for; each distinct problem is reported once.
    Warning(String),
    /// A new `active.json` took effect (only the conversations that passed the checks).
    ActiveChanged(Active),
    /// A new `npc_state.json` took effect.
    NpcStateChanged(NpcState),
}

/// Errors of the agent directory itself (bad file content never is one).
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("agent directory {}", dir.display())]
    Open { dir: PathBuf, source: io::Error },
    #[error("agent directory {}: not a directory", dir.display())]
    NotADirectory { dir: PathBuf },
    #[error("{conversation:?} is not a conversation of this agent directory")]
    UnknownConversation { conversation: String },
}

#[derive(Debug)]
struct Conversation {
    reader: ConversationReader,
    queue: ConversationQueue,
    last_error: Option<String>,
}

/// What was last seen of `active.json` or `npc_state.json`.
#[derive(Debug, Default)]
struct JsonFileState {
    bytes: Option<Vec<u8>>,
    problem: Option<String>,
}

/// The player's view of an agent directory, without audio.
#[derive(Debug)]
pub struct AgentDirectory {
    root: PathBuf,
    options: AgentOptions,
    speakers: SpeakerMap,
    /// Every conversation ever active (those no longer active keep their state).
    conversations: BTreeMap<String, Conversation>,
    active: Active,
    active_file: JsonFileState,
    npc_state: NpcState,
    npc_state_file: JsonFileState,
    spoken: Spoken,
    /// Writes `spoken.json` off the caller's thread, retrying a write that fails.
    spoken_writer: SpokenWriter,
    pending: Vec<AgentEvent>,
    watcher: Option<DirWatcher>,
    more_input: bool,
}

/// Reads a small JSON file of the agent directory. `Ok(None)`: it does not exist.
/// Resolves a line's recording inside the agent directory and checks that it reads as WAV;
/// the line then names it by its full path.
fn resolve_audio(root: &Path, line: &mut Line) -> Result<(), String> {
    let Some(name) = &line.audio else {
        return Ok(());
    };
    let path = confine(root, name).map_err(|e| format!("\"audio\": {e}"))?;
    // A streamed line's recording is still being written (it may not exist yet).
    if !line.streamed() {
        hound::WavReader::open(&path)
            .map_err(|e| format!("\"audio\": {name} cannot be read as WAV ({e})"))?;
    }
    line.audio = Some(path.display().to_string());
    Ok(())
}

fn read_small(root: &Path, name: &str, limit: u64) -> Result<Option<Vec<u8>>, String> {
    let path = confine(root, name).map_err(|e| e.to_string())?;
    let meta = match fs::metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    if !meta.is_file() {
        return Err("not a regular file".to_owned());
    }
    if meta.len() > limit {
        return Err(format!("larger than {limit} bytes"));
    }
    let file = match fs::File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(format!("larger than {limit} bytes"));
    }
    Ok(Some(bytes))
}

/// Reads `name` when its content changed since last time; problems are reported once each.
fn changed_text(
    root: &Path,
    name: &str,
    limit: u64,
    warn_missing: bool,
    state: &mut JsonFileState,
    events: &mut Vec<AgentEvent>,
) -> Option<String> {
    let problem = |state: &mut JsonFileState, p: String, events: &mut Vec<AgentEvent>| {
        if state.problem.as_ref() != Some(&p) {
            events.push(AgentEvent::Warning(p.clone()));
            state.problem = Some(p);
        }
    };
    match read_small(root, name, limit) {
        Ok(None) => {
            if warn_missing {
                problem(
                    state,
                    format!("{name} not found; waiting for an agent to write it"),
                    events,
                );
            }
            None
        }
        Err(e) => {
            problem(
                state,
                format!("{name}: {e}; keeping the previous one"),
                events,
            );
            None
        }
        Ok(Some(bytes)) => {
            if state.bytes.as_ref() == Some(&bytes) {
                return None;
            }
            state.bytes = Some(bytes.clone());
            state.problem = None;
            match String::from_utf8(bytes) {
                Ok(text) => Some(text),
                Err(_) => {
                    problem(
                        state,
                        format!("{name}: not UTF-8; keeping the previous one"),
                        events,
                    );
                    None
                }
            }
        }
    }
}

impl AgentDirectory {
    /// Opens the agent directory `dir` for the NPCs of `roster`, reading `spoken.json` to
    /// resume (a missing or corrupt one means nothing was spoken; the warning comes with the
    /// first [`poll`](Self::poll)). Other files are read by `poll`.
    pub fn open(dir: &Path, roster: &[Npc], options: AgentOptions) -> Result<Self, AgentError> {
        let open_err = |source| AgentError::Open {
            dir: dir.to_path_buf(),
            source,
        };
        let meta = fs::metadata(dir).map_err(open_err)?;
        if !meta.is_dir() {
            return Err(AgentError::NotADirectory {
                dir: dir.to_path_buf(),
            });
        }
        let root = dir.canonicalize().map_err(open_err)?;
        let spoken_path = root.join(spoken::SPOKEN_FILE);
        let loaded = spoken::load(&spoken_path);
        let watcher = options.watch.then(|| {
            let mut w = DirWatcher::new(
                &[root.clone(), root.join(CONVERSATIONS_DIR)],
                options.poll_interval,
            );
            w.ignore_prefixes(&[spoken::SPOKEN_FILE, spoken::SPOKEN_TEMP_PREFIX]);
            w
        });
        Ok(Self {
            root,
            speakers: SpeakerMap::new(roster),
            conversations: BTreeMap::new(),
            active: Active::default(),
            active_file: JsonFileState::default(),
            npc_state: NpcState::default(),
            npc_state_file: JsonFileState::default(),
            spoken: loaded.value,
            spoken_writer: SpokenWriter::new(spoken_path, options.disk.clone()),
            pending: loaded
                .warnings
                .into_iter()
                .map(AgentEvent::Warning)
                .collect(),
            watcher,
            more_input: false,
            options,
        })
    }

    /// The agent directory (canonical path).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The conversations active now (those of the last good `active.json` that passed the
    /// path checks).
    pub fn active(&self) -> &Active {
        &self.active
    }

    /// The last good `npc_state.json`.
    pub fn npc_state(&self) -> &NpcState {
        &self.npc_state
    }

    /// What `spoken.json` holds (as last read or written).
    pub fn spoken(&self) -> &Spoken {
        &self.spoken
    }

    /// The NPC speaking for `speaker_id`, when it is in the roster or was given a stand-in.
    pub fn npc_for(&self, speaker_id: &str) -> Option<&str> {
        self.speakers.get(speaker_id)
    }

    /// The scheduling state of a conversation.
    pub fn queue(&self, conversation: &str) -> Option<&ConversationQueue> {
        self.conversations.get(conversation).map(|c| &c.queue)
    }

    /// True when the last poll stopped at the per-poll read limit: poll again soon.
    pub fn has_unread_input(&self) -> bool {
        self.more_input
    }

    /// The earliest moment a waited-for seq gap times out, so a caller can sleep until then.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.active
            .conversations
            .iter()
            .filter_map(|c| self.conversations.get(&c.file))
            .filter_map(|c| c.queue.next_deadline())
            .min()
    }

    /// Blocks until a file event, the poll interval or `timeout`, whichever comes first.
    /// Returns true when a file event came. Returns at once when input is left unread.
    pub fn wait(&mut self, timeout: Duration) -> bool {
        if self.more_input {
            return true;
        }
        match self.watcher.as_mut() {
            Some(w) => w.wait(timeout),
            None => {
                std::thread::sleep(timeout.min(self.options.poll_interval));
                false
            }
        }
    }

    /// Reads what changed and returns what happened, including at most one new
    /// [`AgentEvent::LineReady`] per conversation (none while its previous line is in flight).
    pub fn poll(&mut self, now: Instant) -> Vec<AgentEvent> {
        let mut events = std::mem::take(&mut self.pending);
        events.extend(
            self.spoken_writer
                .take_reports()
                .into_iter()
                .map(AgentEvent::Warning),
        );
        if let Some(w) = self.watcher.as_mut() {
            events.extend(w.take_errors().into_iter().map(AgentEvent::Warning));
        }
        self.refresh_active(&mut events);
        self.refresh_npc_state(&mut events);
        self.more_input = false;
        let names: Vec<String> = self
            .active
            .conversations
            .iter()
            .map(|c| c.file.clone())
            .collect();
        for name in names {
            self.poll_conversation(&name, now, &mut events);
        }
        events
    }

    fn poll_conversation(&mut self, name: &str, now: Instant, events: &mut Vec<AgentEvent>) {
        let Some(conv) = self.conversations.get_mut(name) else {
            return;
        };
        match conv.reader.read() {
            Ok(out) => {
                conv.last_error = None;
                if let Some(why) = out.restarted {
                    events.push(AgentEvent::Warning(format!(
                        "{name}: {why}; reading it again from the start (lines already spoken are not repeated)"
                    )));
                    conv.queue.file_restarted();
                }
                self.more_input |= out.more;
                for item in out.items {
                    match item {
                        ReadItem::Line {
                            mut line,
                            warnings,
                            file_line,
                        } => {
                            events.extend(warnings.into_iter().map(AgentEvent::Warning));
                            if let Err(reason) = resolve_audio(&self.root, &mut line) {
                                conv.queue.mark_rejected(line.seq);
                                events.push(AgentEvent::Rejected {
                                    conversation: name.to_owned(),
                                    file_line,
                                    reason,
                                });
                                continue;
                            }
                            self.speakers.claim(&line.speaker_id);
                            conv.queue.push(line);
                        }
                        ReadItem::Rejected {
                            file_line,
                            reason,
                            seq,
                        } => {
                            if let Some(seq) = seq {
                                conv.queue.mark_rejected(seq);
                            }
                            events.push(AgentEvent::Rejected {
                                conversation: name.to_owned(),
                                file_line,
                                reason,
                            });
                        }
                    }
                }
            }
            Err(e) => {
                let msg = format!("{name}: cannot be read: {e}");
                if conv.last_error.as_ref() != Some(&msg) {
                    events.push(AgentEvent::Warning(msg.clone()));
                    conv.last_error = Some(msg);
                }
            }
        }
        let ready = conv.queue.next_ready(now);
        events.extend(
            conv.queue
                .take_warnings()
                .into_iter()
                .map(AgentEvent::Warning),
        );
        if let Some(line) = ready {
            let resolved = self.speakers.resolve(&line.speaker_id, line.gender);
            if let Some(w) = resolved.warning {
                events.push(AgentEvent::Warning(format!("{name}: {w}")));
            }
            events.push(AgentEvent::LineReady {
                conversation: name.to_owned(),
                line,
                npc: resolved.npc,
            });
        }
    }

    fn refresh_active(&mut self, events: &mut Vec<AgentEvent>) {
        let Some(text) = changed_text(
            &self.root,
            ACTIVE_FILE,
            self.options.max_json_bytes,
            true,
            &mut self.active_file,
            events,
        ) else {
            return;
        };
        let parsed = match Active::parse(&text) {
            Ok(p) => p,
            Err(reason) => {
                events.push(AgentEvent::Warning(format!(
                    "{ACTIVE_FILE}: {reason}; keeping the previous conversations"
                )));
                return;
            }
        };
        events.extend(
            parsed
                .warnings
                .into_iter()
                .map(|w| AgentEvent::Warning(format!("{ACTIVE_FILE}: {w}"))),
        );
        let mut kept = Vec::new();
        for c in parsed.value.conversations {
            if let Err(e) = confine(&self.root, &c.file) {
                events.push(AgentEvent::Warning(format!(
                    "{ACTIVE_FILE}: {e}; conversation ignored"
                )));
                continue;
            }
            for s in &c.speakers {
                self.speakers.claim(s);
            }
            if !self.conversations.contains_key(&c.file) {
                let conv = Conversation {
                    reader: ConversationReader::new(
                        &self.root,
                        &c.file,
                        ReaderOptions {
                            max_line_bytes: self.options.max_line_bytes,
                            max_read_per_poll: self.options.max_read_per_poll,
                        },
                    ),
                    queue: ConversationQueue::new(
                        &c.file,
                        self.spoken.last_seq(&c.file),
                        self.options.gap_timeout,
                    ),
                    last_error: None,
                };
                self.conversations.insert(c.file.clone(), conv);
            }
            if let Some(w) = self.watcher.as_mut()
                && let Some(parent) = Path::new(&c.file).parent()
                && !parent.as_os_str().is_empty()
            {
                w.add_dir(&self.root.join(parent));
            }
            kept.push(c);
        }
        self.active = Active {
            conversations: kept,
        };
        events.push(AgentEvent::ActiveChanged(self.active.clone()));
    }

    fn refresh_npc_state(&mut self, events: &mut Vec<AgentEvent>) {
        let Some(text) = changed_text(
            &self.root,
            NPC_STATE_FILE,
            self.options.max_json_bytes,
            false,
            &mut self.npc_state_file,
            events,
        ) else {
            return;
        };
        match NpcState::parse(&text) {
            Ok(parsed) => {
                events.extend(
                    parsed
                        .warnings
                        .into_iter()
                        .map(|w| AgentEvent::Warning(format!("{NPC_STATE_FILE}: {w}"))),
                );
                self.npc_state = parsed.value;
                events.push(AgentEvent::NpcStateChanged(self.npc_state.clone()));
            }
            Err(reason) => events.push(AgentEvent::Warning(format!(
                "{NPC_STATE_FILE}: {reason}; keeping the previous state"
            ))),
        }
    }

    /// The audio of line `seq` of `conversation` has ended: records it in `spoken.json`
    /// (written atomically) and lets the conversation's next line go at the next poll.
    /// Returns false, changing nothing, when that line is not the one in flight.
    pub fn line_finished(&mut self, conversation: &str, seq: u64) -> Result<bool, AgentError> {
        self.pass_line(conversation, seq, |entry, last_seq| {
            entry.last_seq = Some(last_seq);
        })
    }

    /// The person spoke over line `seq` of `conversation` after `at_ms` of its audio: the
    /// conversation goes on past it (its next line goes at the next poll), and `spoken.json`
    /// says so under `interrupted` while `last_seq` stays at the last line heard whole.
    /// Returns false, changing nothing, when that line is not the one in flight.
    pub fn line_interrupted(
        &mut self,
        conversation: &str,
        seq: u64,
        at_ms: f64,
    ) -> Result<bool, AgentError> {
        self.pass_line(conversation, seq, |entry, _| {
            entry.interrupted = Some(Interrupted {
                seq,
                at_ms: at_ms.max(0.0).round() as u64,
            });
        })
    }

    /// Lets the conversation go on past line `seq` in flight, `record`s it in its entry of
    /// `spoken.json` (given the conversation's last seq done) and writes that.
    fn pass_line(
        &mut self,
        conversation: &str,
        seq: u64,
        record: impl FnOnce(&mut SpokenEntry, u64),
    ) -> Result<bool, AgentError> {
        let conv = self.conversations.get_mut(conversation).ok_or_else(|| {
            AgentError::UnknownConversation {
                conversation: conversation.to_owned(),
            }
        })?;
        if !conv.queue.finished(seq) {
            return Ok(false);
        }
        let last_seq = conv.queue.last_seq().unwrap_or(seq);
        let entry = self
            .spoken
            .conversations
            .entry(conversation.to_owned())
            .or_default();
        record(entry, last_seq);
        self.write_spoken();
        Ok(true)
    }

    /// Hands the state over to the writer: the caller never waits on the disk.
    fn write_spoken(&mut self) {
        self.spoken_writer.submit(&self.spoken);
    }

    /// Whether `spoken.json` on disk is behind the lines passed (a write not yet done, or
    /// failing and being retried).
    #[must_use]
    pub fn spoken_behind(&self) -> bool {
        self.spoken_writer.behind()
    }

    /// Waits up to `timeout` for `spoken.json` to hold every line passed; whether it does.
    /// (The frame never needs to: the writer catches up on its own, and before it is dropped.)
    pub fn flush_spoken(&self, timeout: Duration) -> bool {
        self.spoken_writer.flush(timeout)
    }
}
