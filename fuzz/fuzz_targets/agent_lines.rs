//! Fuzzes the agent-directory readers with what an agent might write: the conversation reader
//! (the bytes appended to a file in a few pieces, read after each, as the player reads a file
//! that an agent is still writing) and the parsers of `active.json`, `npc_state.json` and
//! `spoken.json`. None may panic; the reader never holds more than its line limit.

#![no_main]

use std::fs::OpenOptions;
use std::io::Write;

use libfuzzer_sys::fuzz_target;
use npc_core::agent::protocol::{Active, NpcState, Spoken};
use npc_core::agent::reader::{ConversationReader, ReaderOptions};

/// A small line limit, so the fuzzer reaches the long-line paths with short inputs.
const MAX_LINE: usize = 256;

fuzz_target!(|data: &[u8]| {
    let Some((&split, bytes)) = data.split_first() else {
        return;
    };
    if let Ok(text) = std::str::from_utf8(bytes) {
        let _ = Active::parse(text);
        let _ = NpcState::parse(text);
        let _ = Spoken::parse(text);
    }
    let dir = tempfile::tempdir().expect("a temp folder");
    let path = dir.path().join("c.jsonl");
    let options = ReaderOptions {
        max_line_bytes: MAX_LINE,
        max_read_per_poll: 97,
    };
    let mut reader = ConversationReader::new(dir.path(), "c.jsonl", options);
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .expect("the conversation file");
    // Append in pieces whose size the first byte picks, reading after each.
    let piece = usize::from(split).max(1);
    for chunk in bytes.chunks(piece) {
        file.write_all(chunk).expect("append");
        loop {
            let Ok(outcome) = reader.read() else { break };
            assert!(reader.buffered_bytes() <= MAX_LINE);
            if !outcome.more {
                break;
            }
        }
    }
});
