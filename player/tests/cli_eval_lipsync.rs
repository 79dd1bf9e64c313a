//! `npc-player eval-lipsync` as a user runs it: an MBROLA voice (Debian's us1) speaks a
//! sentence from espeak-ng's phone file, and the command grades the lip sync of the sound
//! alone, streamed and with its script against those exact labels.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

use common::{fetched, not_run, npc_player, one_line_failure};

const SENTENCE: &str = "Bob bought a map from the old man by the bridge.";

/// The sentence spoken by us1 into `dir`: (WAV, PHO) names, or None when MBROLA is missing.
fn spoken(dir: &std::path::Path) -> Option<(String, String)> {
    let voice = std::path::Path::new("/usr/share/mbrola/us1/us1");
    if !voice.is_file() || Command::new("mbrola").arg("-h").output().is_err() {
        not_run(
            "eval-lipsync on an MBROLA voice",
            "scripts/setup.sh installs mbrola and mbrola-us1 from Debian contrib and non-free",
        );
        return None;
    }
    let pho = dir.join("bob.pho");
    let ok = Command::new("espeak-ng")
        .args(["-v", "mb-us1", "-q", "--pho"])
        .arg(format!("--phonout={}", pho.display()))
        .arg(SENTENCE)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let ok = Command::new("mbrola")
        .arg("-e")
        .arg(voice)
        .arg(&pho)
        .arg(dir.join("bob.wav"))
        .status()
        .unwrap()
        .success();
    assert!(ok);
    Some(("bob.wav".into(), "bob.pho".into()))
}

/// The share of frames right that a printed line reports.
fn share(stdout: &str, prefix: &str) -> f64 {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} in {stdout}"));
    line[prefix.len()..]
        .trim()
        .split('%')
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn a_list_of_labelled_recordings_is_graded_per_language() {
    let dir = tempfile::tempdir().unwrap();
    let Some((wav, pho)) = spoken(dir.path()) else {
        return;
    };
    let list = dir.path().join("list.tsv");
    std::fs::write(
        &list,
        format!("# a comment\n{wav}\t{pho}\ten-US\t{SENTENCE}\n"),
    )
    .unwrap();
    let out = npc_player(&["eval-lipsync", list.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Measured 2026-12-04 on this sentence: about 60% alone, 90% with the script.
    assert!(share(&stdout, "en-US sound alone:") > 40.0, "{stdout}");
    assert!(share(&stdout, "en-US with the script:") > 75.0, "{stdout}");
    assert!(stdout.contains("real time"), "{stdout}");
    assert!(!stdout.contains("streamed:"), "only asked for: {stdout}");
}

/// (closed, closures) that a printed line reports.
fn closures(stdout: &str, prefix: &str) -> (usize, usize) {
    let line = stdout.lines().find(|l| l.starts_with(prefix)).unwrap();
    let counts = line.split("p/b/m closed").nth(1).unwrap();
    let counts = counts.trim().split(';').next().unwrap();
    let (closed, all) = counts.split_once('/').unwrap();
    (closed.trim().parse().unwrap(), all.trim().parse().unwrap())
}

#[test]
fn the_p_b_and_m_left_open_are_listed_with_what_is_around_them() {
    let dir = tempfile::tempdir().unwrap();
    let Some((wav, pho)) = spoken(dir.path()) else {
        return;
    };
    let list = dir.path().join("list.tsv");
    std::fs::write(&list, format!("{wav}\t{pho}\ten-US\t{SENTENCE}\n")).unwrap();
    let out = npc_player(&[
        "eval-lipsync",
        "--misses",
        "--streamed",
        list.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    for (path, prefix) in [
        ("sound alone", "en-US sound alone:"),
        ("with the script", "en-US with the script:"),
        ("streamed", "en-US streamed:"),
    ] {
        let starts = format!("bob.wav {path}: closures start ");
        let listed: Vec<&str> = stdout
            .lines()
            .filter(|l| l.contains(&format!("bob.wav {path}: ")) && !l.contains(&starts))
            .collect();
        let (closed, all) = closures(&stdout, prefix);
        assert_eq!(listed.len(), all - closed, "{path}: {stdout}");
        for line in listed {
            assert!(
                line.contains("ms open (") && line.contains("events "),
                "{line}"
            );
        }
        // Where each p, b and m's nearest closure starts, one word each.
        let line = stdout.lines().find(|l| l.contains(&starts));
        let words = line.map(|l| {
            l.split(&starts)
                .nth(1)
                .unwrap_or("")
                .split_whitespace()
                .count()
        });
        assert_eq!(words, Some(all), "{path}: {stdout}");
    }
    // Measured 2026-12-06: from the sound alone the p of "map from" is left open.
    assert!(stdout.contains("bob.wav sound alone: p "), "{stdout}");
}

#[test]
fn a_list_naming_a_missing_phone_file_fails_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("list.tsv");
    std::fs::write(&list, "a.wav\tmissing.pho\ten-US\n").unwrap();
    let line = one_line_failure(&npc_player(&["eval-lipsync", list.to_str().unwrap()]));
    assert!(line.contains("missing.pho"), "{line}");
    std::fs::write(&list, "only one field\n").unwrap();
    let line = one_line_failure(&npc_player(&["eval-lipsync", list.to_str().unwrap()]));
    assert!(line.contains("line 1"), "{line}");
}

#[test]
fn htk_label_files_of_real_recordings_are_graded_in_their_own_phones() {
    let Some(dir) = fetched("NPC_LABELLED_SPEECH", "labelled") else {
        return;
    };
    let list = tempfile::tempdir().unwrap();
    let path = list.path().join("list.tsv");
    let d = dir.display();
    std::fs::write(
        &path,
        format!(
            "{d}/BASIC5000_0001.wav\t{d}/BASIC5000_0001_mono.lab\tja-JP\n\
             {d}/arctic_a0009.wav\t{d}/arctic_a0009_phone.lab\ten-US\n"
        ),
    )
    .unwrap();
    let out = npc_player(&["eval-lipsync", path.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    // Measured 2026-12-06: 69.9% (Japanese, HTS phones) and 85.7% (English, ARPAbet) of
    // frames.
    assert!(share(&stdout, "ja-JP sound alone:") > 60.0, "{stdout}");
    assert!(share(&stdout, "en-US sound alone:") > 75.0, "{stdout}");
    assert_eq!(closures(&stdout, "en-US sound alone:").1, 2, "{stdout}");
    // A Praat TextGrid's phone tier (27 s of spontaneous English): 67.8% of frames measured
    // 2026-12-07.
    std::fs::write(
        &path,
        format!("{d}/acoustic_corpus.wav\t{d}/acoustic_corpus.TextGrid\ten-US\n"),
    )
    .unwrap();
    let out = npc_player(&["eval-lipsync", path.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(share(&stdout, "en-US sound alone:") > 60.0, "{stdout}");
    std::fs::write(&path, format!("{d}/arctic_a0009.wav\tlabels.txt\ten-US\n")).unwrap();
    let line = one_line_failure(&npc_player(&["eval-lipsync", path.to_str().unwrap()]));
    assert!(line.contains("(.pho)") && line.contains("(.lab)"), "{line}");
}
