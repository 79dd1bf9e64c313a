//! `agent-sim --answer`: the other half of talking with the NPCs. It reads `heard.jsonl` as
//! the player writes it and answers each utterance addressed to an NPC with the script's next
//! reply, spoken by that NPC in the conversation `conversations/person.jsonl` (named in
//! `active.json` beside the others). Utterances addressed to nobody are left unanswered.

use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::Context;
use npc_core::agent::heard::HEARD_FILE;
use serde_json::{Value, json};

use super::{POLL, Script, append_line, write_json};

/// The conversation the replies go to.
pub const ANSWER_CONVERSATION: &str = "conversations/person.jsonl";

/// Who names the answers' conversation in `active.json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Naming {
    /// The answerer adds it to what is there (alone on the directory).
    Answerer,
    /// The script's simulator writes it with its own conversation (both run together: two
    /// writers of one file would undo each other's changes).
    Simulator,
}

/// Answers heard utterances until `done()` says so (asked between polls of `heard.jsonl`).
/// Returns how many it answered.
pub fn answer(
    dir: &Path,
    script: &Script,
    done: &dyn Fn() -> bool,
    naming: Naming,
) -> anyhow::Result<usize> {
    if script.answers.is_empty() {
        anyhow::bail!("the script has no \"answers\" to reply with");
    }
    let conv_path = dir.join(ANSWER_CONVERSATION);
    if let Some(parent) = conv_path.parent() {
        fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let mut next_seq = super::existing_lines(&conv_path)? as u64;
    let mut offset = 0u64;
    let mut partial = Vec::new();
    let mut answered = 0;
    loop {
        if naming == Naming::Answerer {
            name_in_active(dir)?;
        }
        for heard in read_new(&dir.join(HEARD_FILE), &mut offset, &mut partial) {
            let Some(to) = heard.get("to").and_then(Value::as_str) else {
                continue;
            };
            let reply = &script.answers[answered % script.answers.len()];
            let audio = format!("lines/person-{next_seq:04}.wav");
            let line = json!({
                "seq": next_seq,
                "speaker_id": to,
                "text": reply,
                "audio": audio,
                "stream": true,
                "reply_to": heard.get("seq"),
                "written_unix_ms": crate::runtime::events::unix_ms(),
            });
            append_line(&conv_path, &line)?;
            stream_reply(&dir.join(&audio), reply)?;
            next_seq += 1;
            answered += 1;
        }
        if done() {
            return Ok(answered);
        }
        thread::sleep(POLL);
    }
}

/// Samples written at a time, and how long after the one before (a speech service sending
/// its sound a little faster than real time).
const CHUNK_MS: u64 = 100;
const CHUNK_EVERY_MS: u64 = 60;

/// Speaks `text` with the offline engine and writes its sound into `path` as a streaming
/// speech service would: the header (sizes unknown), then 100 ms of sound every 60 ms, then
/// the end marker `path.done`.
fn stream_reply(path: &Path, text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let engine = npc_core::speech::OfflineEngine::new()?;
    let utterance = npc_core::speech::SpeechEngine::synthesize(
        &engine,
        text,
        &npc_core::project::Voice::default(),
    )?;
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let mut file =
        fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let rate = utterance.sample_rate;
    file.write_all(&npc_core::speech::growing_wav::streaming_header(rate, 1))?;
    let per_chunk = (rate as usize * CHUNK_MS as usize / 1000).max(1);
    for chunk in utterance.pcm.chunks(per_chunk) {
        let bytes: Vec<u8> = chunk.iter().flat_map(|s| s.to_le_bytes()).collect();
        file.write_all(&bytes)?;
        file.flush()?;
        thread::sleep(Duration::from_millis(CHUNK_EVERY_MS));
    }
    drop(file);
    fs::write(crate::runtime::marker_of(path), b"")
        .with_context(|| format!("cannot write the end marker of {}", path.display()))
}

/// Adds the answers' conversation to `active.json` when it is not named there.
fn name_in_active(dir: &Path) -> anyhow::Result<()> {
    let path = dir.join("active.json");
    let active: Value = fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| json!({"conversations": []}));
    let mut conversations = match active.get("conversations") {
        Some(Value::Array(a)) => a.clone(),
        _ => match active.get("conversation") {
            Some(Value::String(file)) => {
                vec![json!({"file": file, "speakers": active.get("speakers")})]
            }
            _ => Vec::new(),
        },
    };
    let named = conversations
        .iter()
        .any(|c| c.get("file").and_then(Value::as_str) == Some(ANSWER_CONVERSATION));
    if named {
        return Ok(());
    }
    conversations.push(json!({"file": ANSWER_CONVERSATION}));
    write_json(dir, "active.json", &json!({"conversations": conversations}))
}

/// The complete lines appended to `path` since `offset`, parsed (lines that are not JSON
/// objects skipped).
fn read_new(path: &Path, offset: &mut u64, partial: &mut Vec<u8>) -> Vec<Value> {
    let Ok(mut file) = fs::File::open(path) else {
        return Vec::new();
    };
    if file.seek(SeekFrom::Start(*offset)).is_err() {
        return Vec::new();
    }
    let mut bytes = Vec::new();
    if file.read_to_end(&mut bytes).is_err() {
        return Vec::new();
    }
    *offset += bytes.len() as u64;
    partial.extend_from_slice(&bytes);
    let Some(end) = partial.iter().rposition(|b| *b == b'\n') else {
        return Vec::new();
    };
    let complete: Vec<u8> = partial.drain(..=end).collect();
    complete
        .split(|b| *b == b'\n')
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .filter(Value::is_object)
        .collect()
}

/// Whether `answer` is done, given how long it may run in seconds (none: never done).
pub fn deadline(seconds: Option<f64>) -> impl Fn() -> bool {
    let until = seconds
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| Instant::now() + Duration::from_secs_f64(s));
    move || until.is_some_and(|u| Instant::now() >= u)
}
