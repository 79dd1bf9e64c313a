//! The files of the agent directory, as data: conversation lines, `active.json`,
//! `npc_state.json` and `spoken.json`.
//!
//! Every type derives `Serialize` / `Deserialize` in its canonical form (what the player
//! writes and what the examples in `docs/agent-protocol.md` show). Reading what agents
//! wrote goes through the lenient `parse` functions instead, which apply the field-by-field
//! rules below and return warnings rather than failing where a value can be repaired.
//!
//! # Conversation line (one JSON object per line of a `.jsonl` file)
//!
//! | field        | rule |
//! |--------------|------|
//! | `seq`        | required, a JSON integer `>= 0`; otherwise the line is **rejected** |
//! | `speaker_id` | required, a non-empty string (surrounding spaces are trimmed); otherwise **rejected** |
//! | `text`       | required (unless the line has `audio`), a string with something besides white space; otherwise **rejected** |
//! | `audio`      | optional: a recording (WAV) to play instead of synthesising, a path inside the agent directory; not a string, or not a safe relative path: **rejected** (a missing or unreadable file is rejected by the directory) |
//! | `phase`      | optional string; `null` = absent; another type is dropped with a warning |
//! | `gender`     | optional `"female"` / `"male"` (any case); `null` = absent; anything else is dropped with a warning |
//! | other fields | kept in [`Line::extra`] and ignored by this version |
//!
//! A line that is not a JSON object, or not valid JSON, is rejected. A rejected line that
//! still carried a readable `seq` tells the scheduler that this seq will not come, so the
//! conversation does not wait for it.
//!
//! # `active.json`
//!
//! * `{"conversations": [{"file": F, "speakers": [..]}, ..]}`, or the single form
//!   `{"conversation": F, "speakers": [..]}`. When both keys are present `conversations`
//!   wins, with a warning.
//! * `"conversations": null`, `"conversation": null`, or `[]` = nothing active (no warning).
//!   An object with neither key = nothing active, with a warning.
//! * `conversations` that is not an array, `conversation` that is not a string, a file that
//!   is not JSON or not an object: the whole file is an **error** (the caller keeps the
//!   previous conversations).
//! * An entry without a non-empty string `file` is ignored with a warning. A bare string
//!   entry is taken as `{"file": that}` with a warning. A file named twice: the later entry
//!   is ignored with a warning.
//! * `speakers`: optional; not an array = no speakers, with a warning; items that are not
//!   non-empty strings are dropped with a warning; repeated ids are kept once.
//!
//! # `npc_state.json`
//!
//! * Not JSON or not an object: an **error** (the caller keeps the previous state).
//! * `time_of_day`: absent / `null` = unknown (`None`, the player's clock runs on); not a
//!   number = `None` with a warning; outside 0-1 = clamped with a warning.
//! * `npcs`: absent / `null` = empty; not an array = empty with a warning. An entry that is
//!   not an object, or has no non-empty string `id`, or no number `x` or `y`, is ignored
//!   with a warning; `x` / `y` outside 0-1 are clamped with a warning; an id given twice:
//!   the later entry wins, with a warning.
//!
//! # `spoken.json` (written by the player)
//!
//! * Not JSON, not an object, or `conversations` not an object: an **error** (the caller
//!   starts empty, with a warning).
//! * An entry whose value has no integer `last_seq >= 0` is ignored with a warning.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::cues::Behaviour;
use crate::project::Gender;

/// A value read from an agent file, with what had to be repaired on the way.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed<T> {
    pub value: T,
    /// Human-readable notes on fields that were dropped, clamped or defaulted.
    pub warnings: Vec<String>,
}

/// One spoken line of a conversation file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub seq: u64,
    pub speaker_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gender: Option<Gender>,
    pub text: String,
    /// A recording to play instead of synthesising the text: a path relative to the agent
    /// directory (resolved inside it by the directory when the line is read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio: Option<String>,
    /// Fields other than the above, kept as written (the behaviour cues among them).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// What the line asks of the speaker's face and body, read from `extra`.
    #[serde(skip)]
    pub behaviour: Behaviour,
}

impl Line {
    /// Whether its `audio` is streamed: still being written as it plays (`"stream": true`,
    /// protocol 1.1), ended by a marker file `<audio>.done`.
    #[must_use]
    pub fn streamed(&self) -> bool {
        self.audio.is_some() && self.extra.get("stream") == Some(&Value::Bool(true))
    }
}

/// Why a conversation line was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct LineError {
    pub reason: String,
    /// The line's `seq` when it could still be read, so the scheduler need not wait for it.
    pub seq: Option<u64>,
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Shortens a JSON value for a message.
fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        let cut: String = s.chars().take(40).collect();
        format!("{cut}...")
    } else {
        s
    }
}

fn parse_gender(v: &Value) -> Result<Option<Gender>, String> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "female" => Ok(Some(Gender::Female)),
            "male" => Ok(Some(Gender::Male)),
            _ => Err(format!(
                "unknown gender {}; expected \"female\" or \"male\"; ignored",
                show(v)
            )),
        },
        other => Err(format!(
            "gender must be a string, got {}; ignored",
            type_name(other)
        )),
    }
}

impl Line {
    /// Reads one line of a conversation file (without its newline) by the rules of the
    /// module documentation.
    pub fn parse(text: &str) -> Result<Parsed<Line>, LineError> {
        let value: Value = serde_json::from_str(text).map_err(|e| LineError {
            reason: format!("not valid JSON ({e})"),
            seq: None,
        })?;
        let Value::Object(mut map) = value else {
            return Err(LineError {
                reason: format!("must be a JSON object, got {}", type_name(&value)),
                seq: None,
            });
        };
        let seq = match map.remove("seq") {
            None => {
                return Err(LineError {
                    reason: "no \"seq\"".to_owned(),
                    seq: None,
                });
            }
            Some(v) => match v.as_u64() {
                Some(n) => n,
                None => {
                    return Err(LineError {
                        reason: format!("\"seq\" must be an integer >= 0, got {}", show(&v)),
                        seq: None,
                    });
                }
            },
        };
        let reject = |reason: String| LineError {
            reason,
            seq: Some(seq),
        };
        let speaker_id = match map.remove("speaker_id") {
            None => return Err(reject("no \"speaker_id\"".to_owned())),
            Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_owned(),
            Some(Value::String(_)) => return Err(reject("\"speaker_id\" is empty".to_owned())),
            Some(v) => {
                return Err(reject(format!(
                    "\"speaker_id\" must be a string, got {}",
                    type_name(&v)
                )));
            }
        };
        let audio = match map.remove("audio") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => {
                super::paths::check_name(&s).map_err(|e| reject(format!("\"audio\": {e}")))?;
                Some(s)
            }
            Some(v) => {
                return Err(reject(format!(
                    "\"audio\" must be a string, got {}",
                    type_name(&v)
                )));
            }
        };
        let text = match map.remove("text") {
            None if audio.is_some() => String::new(),
            None => return Err(reject("no \"text\"".to_owned())),
            Some(Value::String(s)) if !s.trim().is_empty() => s,
            Some(Value::String(_)) => return Err(reject("\"text\" is empty".to_owned())),
            Some(v) => {
                return Err(reject(format!(
                    "\"text\" must be a string, got {}",
                    type_name(&v)
                )));
            }
        };
        let mut warnings = Vec::new();
        let phase = match map.remove("phase") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(v) => {
                warnings.push(format!(
                    "\"phase\" must be a string, got {}; ignored",
                    type_name(&v)
                ));
                None
            }
        };
        let gender = match map.remove("gender") {
            None => None,
            Some(v) => parse_gender(&v).unwrap_or_else(|w| {
                warnings.push(w);
                None
            }),
        };
        let behaviour = Behaviour::read(&map, &mut warnings);
        Ok(Parsed {
            value: Line {
                seq,
                speaker_id,
                phase,
                gender,
                text,
                audio,
                extra: map,
                behaviour,
            },
            warnings,
        })
    }
}

/// One conversation that plays now.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActiveConversation {
    /// The conversation file, relative to the agent directory, exactly as active.json names
    /// it (this string is also the key of `spoken.json`).
    pub file: String,
    /// Speaker ids taking part (the NPC slots).
    #[serde(default)]
    pub speakers: Vec<String>,
}

/// `active.json`: which conversations play now.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Active {
    pub conversations: Vec<ActiveConversation>,
}

fn parse_speakers(v: Option<Value>, at: &str, warnings: &mut Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    match v {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.into_iter().enumerate() {
                match item {
                    Value::String(s) if !s.trim().is_empty() => {
                        let s = s.trim().to_owned();
                        if !out.contains(&s) {
                            out.push(s);
                        }
                    }
                    other => warnings.push(format!(
                        "{at}speakers[{i}]: must be a non-empty string, got {}; ignored",
                        show(&other)
                    )),
                }
            }
        }
        Some(other) => warnings.push(format!(
            "{at}\"speakers\" must be an array, got {}; no speakers",
            type_name(&other)
        )),
    }
    out
}

impl Active {
    /// Reads `active.json` by the rules of the module documentation. `Err` means the whole
    /// file is unusable (keep the previous one).
    pub fn parse(text: &str) -> Result<Parsed<Active>, String> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| format!("not valid JSON ({e})"))?;
        let Value::Object(mut map) = value else {
            return Err(format!("must be a JSON object, got {}", type_name(&value)));
        };
        let mut warnings = Vec::new();
        let mut conversations: Vec<ActiveConversation> = Vec::new();
        let mut add = |c: ActiveConversation, warnings: &mut Vec<String>| {
            if conversations.iter().any(|o| o.file == c.file) {
                warnings.push(format!(
                    "{:?} is named twice; the later entry is ignored",
                    c.file
                ));
            } else {
                conversations.push(c);
            }
        };
        if let Some(list) = map.remove("conversations") {
            if map.contains_key("conversation") {
                warnings.push(
                    "both \"conversations\" and \"conversation\" are given; \"conversation\" is ignored"
                        .to_owned(),
                );
            }
            match list {
                Value::Null => {}
                Value::Array(items) => {
                    for (i, item) in items.into_iter().enumerate() {
                        let at = format!("conversations[{i}]: ");
                        match item {
                            Value::String(file) if !file.is_empty() => {
                                warnings.push(format!(
                                    "{at}a bare string; taken as {{\"file\": {file:?}}}"
                                ));
                                add(
                                    ActiveConversation {
                                        file,
                                        speakers: Vec::new(),
                                    },
                                    &mut warnings,
                                );
                            }
                            Value::Object(mut entry) => match entry.remove("file") {
                                Some(Value::String(file)) if !file.is_empty() => {
                                    let speakers = parse_speakers(
                                        entry.remove("speakers"),
                                        &at,
                                        &mut warnings,
                                    );
                                    add(ActiveConversation { file, speakers }, &mut warnings);
                                }
                                other => warnings.push(format!(
                                    "{at}needs a non-empty string \"file\", got {}; entry ignored",
                                    other.as_ref().map_or_else(|| "nothing".to_owned(), show)
                                )),
                            },
                            other => warnings.push(format!(
                                "{at}must be an object, got {}; entry ignored",
                                show(&other)
                            )),
                        }
                    }
                }
                other => {
                    return Err(format!(
                        "\"conversations\" must be an array, got {}",
                        type_name(&other)
                    ));
                }
            }
        } else if let Some(single) = map.remove("conversation") {
            match single {
                Value::Null => {}
                Value::String(file) if !file.is_empty() => {
                    let speakers = parse_speakers(map.remove("speakers"), "", &mut warnings);
                    add(ActiveConversation { file, speakers }, &mut warnings);
                }
                other => {
                    return Err(format!(
                        "\"conversation\" must be a non-empty string, got {}",
                        show(&other)
                    ));
                }
            }
        } else {
            warnings.push(
                "names no conversation (neither \"conversations\" nor \"conversation\"); nothing plays"
                    .to_owned(),
            );
        }
        Ok(Parsed {
            value: Active { conversations },
            warnings,
        })
    }
}

/// Where one NPC stands, in normalised 0-1 map coordinates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NpcPosition {
    pub id: String,
    pub x: f64,
    pub y: f64,
}

/// `npc_state.json`: NPC positions and the in-game time.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NpcState {
    /// Fraction of the day, 0-1 (0 = midnight, 0.5 = noon); `None` when not given.
    #[serde(default)]
    pub time_of_day: Option<f64>,
    #[serde(default)]
    pub npcs: Vec<NpcPosition>,
}

fn clamp_unit(v: f64, what: &str, warnings: &mut Vec<String>) -> f64 {
    if (0.0..=1.0).contains(&v) {
        v
    } else {
        let c = v.clamp(0.0, 1.0);
        warnings.push(format!("{what} {v} is outside 0-1; clamped to {c}"));
        c
    }
}

impl NpcState {
    /// Reads `npc_state.json` by the rules of the module documentation. `Err` means the whole
    /// file is unusable (keep the previous state).
    pub fn parse(text: &str) -> Result<Parsed<NpcState>, String> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| format!("not valid JSON ({e})"))?;
        let Value::Object(mut map) = value else {
            return Err(format!("must be a JSON object, got {}", type_name(&value)));
        };
        let mut warnings = Vec::new();
        let time_of_day = match map.remove("time_of_day") {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) => match n.as_f64() {
                Some(t) => Some(clamp_unit(t, "time_of_day", &mut warnings)),
                None => {
                    warnings.push(format!("time_of_day {n} is not usable; ignored"));
                    None
                }
            },
            Some(other) => {
                warnings.push(format!(
                    "time_of_day must be a number, got {}; ignored",
                    show(&other)
                ));
                None
            }
        };
        let mut npcs: Vec<NpcPosition> = Vec::new();
        match map.remove("npcs") {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for (i, item) in items.into_iter().enumerate() {
                    let Value::Object(entry) = item else {
                        warnings.push(format!(
                            "npcs[{i}]: must be an object, got {}; ignored",
                            show(&item)
                        ));
                        continue;
                    };
                    let id = match entry.get("id") {
                        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_owned(),
                        _ => {
                            warnings.push(format!(
                                "npcs[{i}]: needs a non-empty string \"id\"; ignored"
                            ));
                            continue;
                        }
                    };
                    let coord = |key: &str| entry.get(key).and_then(Value::as_f64);
                    let (Some(x), Some(y)) = (coord("x"), coord("y")) else {
                        let missing = if coord("x").is_none() { "x" } else { "y" };
                        warnings.push(format!(
                            "npcs[{i}] ({id}): needs a number \"{missing}\"; ignored"
                        ));
                        continue;
                    };
                    let x = clamp_unit(x, &format!("npcs[{i}] ({id}): x"), &mut warnings);
                    let y = clamp_unit(y, &format!("npcs[{i}] ({id}): y"), &mut warnings);
                    if let Some(old) = npcs.iter_mut().find(|p| p.id == id) {
                        warnings.push(format!(
                            "npcs[{i}]: {id} is given twice; the later position wins"
                        ));
                        old.x = x;
                        old.y = y;
                    } else {
                        npcs.push(NpcPosition { id, x, y });
                    }
                }
            }
            Some(other) => warnings.push(format!(
                "\"npcs\" must be an array, got {}; no positions",
                type_name(&other)
            )),
        }
        Ok(Parsed {
            value: NpcState { time_of_day, npcs },
            warnings,
        })
    }
}

/// How far one conversation has been spoken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpokenEntry {
    /// The seq of the last line whose audio has finished (none when the only line so far was
    /// interrupted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_seq: Option<u64>,
    /// The last line cut off because the person spoke over it (protocol 1.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<Interrupted>,
}

/// A line the person interrupted: its seq and how much of its audio had been heard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interrupted {
    pub seq: u64,
    /// Audio heard before it stopped, ms.
    pub at_ms: u64,
}

impl SpokenEntry {
    /// An entry whose last line was heard whole.
    #[must_use]
    pub fn heard(last_seq: u64) -> Self {
        Self {
            last_seq: Some(last_seq),
            interrupted: None,
        }
    }

    /// Where the conversation goes on after a restart: past the last line heard whole or
    /// interrupted.
    #[must_use]
    pub fn resume_after(&self) -> Option<u64> {
        match (self.last_seq, self.interrupted) {
            (Some(a), Some(b)) => Some(a.max(b.seq)),
            (a, b) => a.or(b.map(|i| i.seq)),
        }
    }
}

/// `spoken.json`, keyed by the conversation file as active.json names it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spoken {
    pub conversations: BTreeMap<String, SpokenEntry>,
}

impl Spoken {
    /// Reads `spoken.json` by the rules of the module documentation. `Err` means the whole
    /// file is unusable (start empty).
    pub fn parse(text: &str) -> Result<Parsed<Spoken>, String> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| format!("not valid JSON ({e})"))?;
        let Value::Object(mut map) = value else {
            return Err(format!("must be a JSON object, got {}", type_name(&value)));
        };
        let mut warnings = Vec::new();
        let mut conversations = BTreeMap::new();
        match map.remove("conversations") {
            None | Some(Value::Null) => {}
            Some(Value::Object(entries)) => {
                for (file, entry) in entries {
                    let last_seq = entry.get("last_seq").and_then(Value::as_u64);
                    let interrupted = entry.get("interrupted").and_then(|i| {
                        Some(Interrupted {
                            seq: i.get("seq")?.as_u64()?,
                            at_ms: i.get("at_ms")?.as_f64()?.max(0.0) as u64,
                        })
                    });
                    if last_seq.is_some() || interrupted.is_some() {
                        conversations.insert(
                            file,
                            SpokenEntry {
                                last_seq,
                                interrupted,
                            },
                        );
                    } else {
                        warnings.push(format!(
                            "{file:?}: needs an integer \"last_seq\" >= 0, got {}; ignored",
                            show(&entry)
                        ));
                    }
                }
            }
            Some(other) => {
                return Err(format!(
                    "\"conversations\" must be an object, got {}",
                    type_name(&other)
                ));
            }
        }
        Ok(Parsed {
            value: Spoken { conversations },
            warnings,
        })
    }

    /// The seq `file` goes on after: its last line heard whole, or interrupted if later.
    pub fn last_seq(&self, file: &str) -> Option<u64> {
        self.conversations
            .get(file)
            .and_then(SpokenEntry::resume_after)
    }
}
