//! Speaks sentences with MBROLA voices into a folder and writes the list `npc-player
//! eval-lipsync` grades (`WAV<TAB>LABELS<TAB>LANGUAGE<TAB>SCRIPT`): each line of standard input
//! is `VOICE<TAB>LANGUAGE<TAB>SENTENCE` (an MBROLA voice such as `de1`, a BCP 47 tag). The
//! labels are the phone files MBROLA spoke from (`npc_core::speech::mbrola::speak`, as the
//! grading tests make them).
//!
//! `cargo run --example mbrola_list -- DIR < SENTENCES > DIR/list.tsv`

#![allow(clippy::print_stderr, clippy::print_stdout)]

use std::io::BufRead as _;
use std::path::Path;
use std::process::ExitCode;

use npc_core::speech::mbrola::speak;

fn main() -> ExitCode {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: mbrola_list DIR < SENTENCES (lines VOICE<TAB>LANGUAGE<TAB>SENTENCE)");
        return ExitCode::FAILURE;
    };
    let dir = Path::new(&dir);
    let voices = std::env::var("NPC_MBROLA").unwrap_or_else(|_| "/usr/share/mbrola".to_owned());
    let mut count = std::collections::HashMap::<String, usize>::new();
    for (n, line) in std::io::stdin().lock().lines().enumerate() {
        let Ok(line) = line else {
            eprintln!("standard input could not be read at line {}", n + 1);
            return ExitCode::FAILURE;
        };
        let [voice, language, sentence] = line.split('\t').collect::<Vec<_>>()[..] else {
            if !line.trim().is_empty() {
                eprintln!("line {}: not VOICE<TAB>LANGUAGE<TAB>SENTENCE", n + 1);
            }
            continue;
        };
        let k = count.entry(voice.to_owned()).or_default();
        *k += 1;
        let name = format!("{voice}_{k:03}");
        match speak(Path::new(&voices), voice, sentence, dir, &name) {
            Ok(_) => println!("{name}.wav\t{name}.pho\t{language}\t{sentence}"),
            Err(e) => {
                eprintln!("{voice}, line {}: {e}", n + 1);
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
