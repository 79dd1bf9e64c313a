//! `npc-player agent-sim`: a small agent for demos and tests. It names one conversation in
//! `active.json`, then appends the script's lines one by one, each after `spoken.json` says the
//! previous one was heard, moving the speakers a little and advancing the time of day as it
//! goes. It exits once the last line was heard, or with an error when the player does not get
//! to a line in time (30 s / speed per line).
//!
//! Script (JSON): `{"conversation": "conversations/demo.jsonl", "speakers": ["Elara", "Bram"],
//! "lines": [{"speaker_id": "Elara", "gender": "female", "phase": "start", "text": "..."}]}`;
//! `conversation` is optional (that default). Run again on the same directory, it continues
//! after the lines already in the conversation file. Each line carries an extra field,
//! `written_unix_ms` (when it was appended), which the runtime uses to report latency.

mod answer;

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use npc_core::agent::Spoken;
use serde_json::{Value, json};

pub use answer::{ANSWER_CONVERSATION, Naming, answer, deadline};

/// The demo conversation (`projects/demo-script.json`), the default script.
pub const DEMO_SCRIPT: &str = include_str!("../../../projects/demo-script.json");
/// The conversation file a script without `conversation` writes.
pub const DEFAULT_CONVERSATION: &str = "conversations/demo.jsonl";

const POLL: Duration = Duration::from_millis(50);
const LINE_TIMEOUT_S: f64 = 30.0;

/// A parsed script.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    pub conversation: String,
    pub speakers: Vec<String>,
    /// Each line as written (without `seq`, which the simulator adds).
    pub lines: Vec<serde_json::Map<String, Value>>,
    /// What an NPC says back to the person in front of the player, in turn (`--answer`).
    pub answers: Vec<String>,
}

impl Script {
    /// Parses a script; every line needs a string `speaker_id` and `text`.
    pub fn parse(text: &str) -> anyhow::Result<Self> {
        let v: Value = serde_json::from_str(text).context("the script is not valid JSON")?;
        let conversation = match v.get("conversation") {
            None | Some(Value::Null) => DEFAULT_CONVERSATION.to_owned(),
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(_) => bail!("the script's \"conversation\" must be a non-empty string"),
        };
        let speakers = v
            .get("speakers")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let Some(items) = v.get("lines").and_then(Value::as_array) else {
            bail!("the script needs a \"lines\" array");
        };
        let mut lines = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let Some(obj) = item.as_object() else {
                bail!("script line {i} is not an object");
            };
            for key in ["speaker_id", "text"] {
                if !obj.get(key).is_some_and(Value::is_string) {
                    bail!("script line {i} needs a string {key:?}");
                }
            }
            let mut obj = obj.clone();
            obj.remove("seq");
            lines.push(obj);
        }
        let answers = match v.get("answers") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| {
                    x.as_str()
                        .map(str::to_owned)
                        .context("the script's \"answers\" must be strings")
                })
                .collect::<anyhow::Result<_>>()?,
            Some(_) => bail!("the script's \"answers\" must be an array of strings"),
        };
        Ok(Self {
            conversation,
            speakers,
            lines,
            answers,
        })
    }
}

/// Reads a script file, or the demo's when `None`.
pub fn load_script(script: Option<&Path>) -> anyhow::Result<Script> {
    let text = match script {
        Some(path) => fs::read_to_string(path)
            .with_context(|| format!("cannot read the script {}", path.display()))?,
        None => DEMO_SCRIPT.to_owned(),
    };
    Script::parse(&text)
}

/// Runs the simulator on `dir` with `script` (the demo script when `None`).
pub fn run(dir: &Path, script: Option<&Path>, speed: f64) -> anyhow::Result<()> {
    if !(speed.is_finite() && speed > 0.0) {
        bail!("--speed must be a positive number, not {speed}");
    }
    let script = load_script(script)?;
    if !dir.is_dir() {
        bail!("the agent directory {} does not exist", dir.display());
    }
    let conv_path = dir.join(&script.conversation);
    if let Some(parent) = conv_path.parent() {
        fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    // The answers to the person (`--answer`) play beside the script's conversation.
    write_json(
        dir,
        "active.json",
        &json!({"conversations": [
            {"file": script.conversation, "speakers": script.speakers},
            {"file": ANSWER_CONVERSATION},
        ]}),
    )?;
    let timeout = Duration::from_secs_f64(LINE_TIMEOUT_S / speed);
    let already = existing_lines(&conv_path)?;
    for (i, line) in script.lines.iter().enumerate().skip(already) {
        let seq = i as u64;
        write_state(dir, &script, i)?;
        if seq > 0 {
            wait_spoken(dir, &script.conversation, seq - 1, timeout)?;
        }
        let mut obj = serde_json::Map::new();
        obj.insert("seq".to_owned(), json!(seq));
        obj.extend(line.clone());
        // Lets the runtime report the delay from this append to the line's first audio.
        obj.insert(
            "written_unix_ms".to_owned(),
            json!(crate::runtime::events::unix_ms()),
        );
        append_line(&conv_path, &Value::Object(obj))?;
    }
    if let Some(last) = script.lines.len().checked_sub(1) {
        wait_spoken(dir, &script.conversation, last as u64, timeout)?;
        write_state(dir, &script, script.lines.len())?;
    }
    Ok(())
}

/// How many non-blank lines the conversation file already holds.
pub(crate) fn existing_lines(path: &Path) -> anyhow::Result<usize> {
    match fs::read(path) {
        Ok(bytes) => Ok(bytes
            .split(|b| *b == b'\n')
            .filter(|l| l.iter().any(|b| !b.is_ascii_whitespace()))
            .count()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

pub(crate) fn append_line(path: &Path, line: &Value) -> anyhow::Result<()> {
    let mut text = line.to_string();
    text.push('\n');
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.flush())
        .with_context(|| format!("cannot append to {}", path.display()))
}

/// Waits until `spoken.json` says `seq` of `conversation` was heard.
fn wait_spoken(dir: &Path, conversation: &str, seq: u64, timeout: Duration) -> anyhow::Result<()> {
    let start = Instant::now();
    loop {
        if last_spoken(dir, conversation).is_some_and(|s| s >= seq) {
            return Ok(());
        }
        if start.elapsed() >= timeout {
            bail!(
                "timed out after {:.1} s waiting for line {seq} of {conversation} to be spoken (is `npc-player run` watching {}?)",
                timeout.as_secs_f64(),
                dir.display()
            );
        }
        thread::sleep(POLL);
    }
}

fn last_spoken(dir: &Path, conversation: &str) -> Option<u64> {
    let text = fs::read_to_string(dir.join("spoken.json")).ok()?;
    Spoken::parse(&text).ok()?.value.last_seq(conversation)
}

/// Writes `npc_state.json`: the speakers drift towards each other, the day moves on.
fn write_state(dir: &Path, script: &Script, step: usize) -> anyhow::Result<()> {
    let t = step as f64;
    let npcs: Vec<Value> = script
        .speakers
        .iter()
        .enumerate()
        .map(|(k, id)| {
            let side = if k % 2 == 0 { -1.0 } else { 1.0 };
            // They walk up to each other: about 6 m apart at the first line, 2 m by the
            // fourth (the demo map is 240 m across).
            let x = 0.5 + side * (0.012 - 0.002 * t).max(0.004);
            let y = 0.505 + 0.002 * (t + k as f64).sin();
            json!({"id": id, "x": x.clamp(0.0, 1.0), "y": y.clamp(0.0, 1.0)})
        })
        .collect();
    let time_of_day = (0.35 + 0.002 * t).clamp(0.0, 1.0);
    write_json(
        dir,
        "npc_state.json",
        &json!({"time_of_day": time_of_day, "npcs": npcs}),
    )
}

pub(crate) fn write_json(dir: &Path, name: &str, value: &Value) -> anyhow::Result<()> {
    let path: PathBuf = dir.join(name);
    npc_core::atomic::write_atomically(&path, value.to_string().as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_script_has_six_lines_between_elara_and_bram() {
        let s = Script::parse(DEMO_SCRIPT).expect("demo script");
        assert_eq!(s.conversation, DEFAULT_CONVERSATION);
        assert_eq!(s.speakers, ["Elara", "Bram"]);
        assert_eq!(s.lines.len(), 6);
    }

    #[test]
    fn bad_scripts_are_refused_with_a_message() {
        assert!(Script::parse("{}").is_err());
        assert!(Script::parse(r#"{"lines": [{"text": "hi"}]}"#).is_err());
        assert!(Script::parse("nope").is_err());
    }
}
