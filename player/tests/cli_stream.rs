//! `npc-player run --stream vmc://HOST:PORT` received by python-osc (a VMC receiver's OSC
//! decoder that no one here wrote), on loopback: one avatar per port in roster order, every
//! VMC address, Unity's bone names, and the jawOpen of a spoken line equal to what the
//! `--record` file says the face drew in the same frame.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use common::npc_player;
use serde_json::Value;

/// Elara's line: long open vowels. A debug build on a loaded machine draws a few frames a
/// second, and a short vowel falls between them (the line once used, "Many merry men made
/// maps.", opened the jaw past 0.1 in one frame of 54, and `A` in one of 51).
const LINE: &str =
    "{\"seq\": 0, \"speaker_id\": \"Elara\", \"text\": \"Aah, ah, ha ha, far, far apart.\"}\n";

/// The demo project with one line for Elara, in `dir`; returns the project and agent folder.
fn demo_with_a_line(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    npc_core::procedural::generate::generate(&dir.join("assets")).unwrap();
    let project = dir.join("demo.ron");
    npc_core::project::demo_project().save(&project).unwrap();
    let agent = dir.join("agent");
    std::fs::create_dir_all(agent.join("conversations")).unwrap();
    std::fs::write(
        agent.join("active.json"),
        r#"{"conversation": "conversations/c.jsonl", "speakers": ["Elara", "Bram"]}"#,
    )
    .unwrap();
    std::fs::write(agent.join("conversations/c.jsonl"), LINE).unwrap();
    (project, agent)
}

/// Runs the demo headless for 5 s, recording and streaming to `url`; returns the record.
fn run_streaming(dir: &Path, url: &str) -> std::path::PathBuf {
    let (project, agent) = demo_with_a_line(dir);
    let record = dir.join("record.jsonl");
    let out = npc_player(&[
        "run",
        "--project",
        project.to_str().unwrap(),
        "--agent-dir",
        agent.to_str().unwrap(),
        "--headless",
        "--size",
        "32x24",
        "--mute",
        "--duration",
        "5",
        "--record",
        record.to_str().unwrap(),
        "--stream",
        url,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    record
}

/// Elara's recorded jawOpen by time (tenths of a ms).
fn recorded_jaw(record: &Path) -> HashMap<i64, f64> {
    let jaw = npc_core::ArkitTarget::JawOpen.index();
    std::fs::read_to_string(record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["npc"] == "Elara")
        .map(|l| {
            let t = l["time_ms"].as_f64().unwrap();
            (
                (t * 10.0).round() as i64,
                l["weights"][jaw].as_f64().unwrap(),
            )
        })
        .collect()
}

/// How many frames the record holds for `npc`: what a stream sends of it at most (one pose
/// a frame at most, at its rate), however fast the machine draws.
fn recorded_frames(record: &Path, npc: &str) -> usize {
    std::fs::read_to_string(record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["npc"] == npc)
        .count()
}

/// That `sent` poses arrived for `npc` of the `frames` it was drawn in: all but a few (the
/// run's first and last frames may fall outside the receiver's window), over a run long
/// enough to tell.
fn assert_every_frame_sent(sent: usize, frames: usize, npc: &str) {
    assert!(frames >= 10, "{npc}: only {frames} frames were drawn");
    assert!(
        sent * 10 >= frames * 9,
        "{npc}: {sent} poses arrived of {frames} frames drawn"
    );
}

/// Starts a receiver tool; returns once it listens.
fn receiver(python: &str, tool: &str, args: &[String]) -> std::process::Child {
    let tool = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/tools")
        .join(tool);
    let mut child = Command::new(python)
        .arg(&tool)
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut ready = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut ready)
        .unwrap();
    assert_eq!(ready.trim(), "listening");
    child
}

/// python3 with `module` (python-osc's `pythonosc`, `pylivelinkface`): `NPC_PYTHON`, else the one scripts/setup.sh prepares, else
/// `python3` when it has the package; None (a failure under CI) when there is none.
fn python_with(module: &str) -> Option<String> {
    let home = std::env::var("HOME").unwrap_or_default();
    let candidates = [
        std::env::var("NPC_PYTHON").ok(),
        Some(format!("{home}/.cache/living-npc/python/bin/python3")),
        Some("python3".to_owned()),
    ];
    for python in candidates.into_iter().flatten() {
        let has = Command::new(&python)
            .args(["-c", &format!("import {module}")])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if has {
            return Some(python);
        }
    }
    common::not_run(
        &format!("no python3 with {module}"),
        "scripts/setup.sh installs it",
    );
    None
}

#[test]
fn a_vmc_receiver_gets_every_npc_and_the_mouth_the_record_drew() {
    let Some(python) = python_with("pythonosc") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // Three NPCs on three ports from a base no one else here uses.
    let base = 39_800 + (std::process::id() % 100) as u16 * 3;
    let received = dir.join("received.jsonl");
    let mut listening = receiver(
        &python,
        "vmc_receive.py",
        &[
            base.to_string(),
            "3".to_owned(),
            "9".to_owned(),
            received.display().to_string(),
        ],
    );
    let record = run_streaming(dir, &format!("vmc://127.0.0.1:{base}"));
    assert!(listening.wait().unwrap().success());
    let packets: Vec<Value> = std::fs::read_to_string(&received)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // One avatar per port, in roster order.
    let on = |i: u16| -> Vec<&Value> { packets.iter().filter(|p| p["port"] == base + i).collect() };
    let elara = on(0);
    assert_every_frame_sent(elara.len(), recorded_frames(&record, "Elara"), "Elara");
    assert!(!on(1).is_empty() && !on(2).is_empty(), "Bram and Mira too");
    let first = elara[0];
    let addresses: Vec<&str> = first["addresses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    for a in [
        "/VMC/Ext/OK",
        "/VMC/Ext/T",
        "/VMC/Ext/Root/Pos",
        "/VMC/Ext/Bone/Pos",
        "/VMC/Ext/Blend/Apply",
    ] {
        assert!(addresses.contains(&a), "{a} missing: {addresses:?}");
    }
    assert_eq!(addresses.last(), Some(&"/VMC/Ext/Blend/Apply"));
    assert!(first["blends"].as_u64().unwrap() >= 52);
    for bone in [
        "Hips",
        "Spine",
        "Head",
        "LeftUpperArm",
        "RightHand",
        "LeftUpperLeg",
    ] {
        assert!(
            first["bones"].get(bone).is_some(),
            "{bone}: {}",
            first["bones"]
        );
    }
    // The jaw the receiver got is what the record says was drawn at that time.
    let drawn = recorded_jaw(&record);
    let (mut matched, mut open, mut worst) = (0, 0, 0.0f64);
    for p in &elara {
        let t_ms = p["t"].as_f64().unwrap() * 1000.0;
        let got = p["jaw"].as_f64().unwrap();
        let key = (t_ms * 10.0).round() as i64;
        if let Some(want) = (key - 1..=key + 1).find_map(|k| drawn.get(&k)) {
            matched += 1;
            worst = worst.max((got - want).abs());
            open += usize::from(got > 0.1);
        }
    }
    eprintln!(
        "{} packets for Elara, {matched} matched to recorded frames, jaw open in {open}, worst \
         difference {worst}",
        elara.len()
    );
    assert!(
        matched * 10 >= elara.len() * 9,
        "{matched} of {}",
        elara.len()
    );
    let drawn_open = drawn.values().filter(|&&jaw| jaw > 0.1).count();
    assert!(
        drawn_open >= 3 && open * 10 >= drawn_open * 9,
        "the line moved the jaw in {drawn_open} frames drawn, {open} sent"
    );
    assert!(worst < 1e-4, "jawOpen sent {worst} away from the record");
}

#[test]
fn a_live_link_face_decoder_gets_every_subject_and_the_mouth_the_record_drew() {
    let Some(python) = python_with("pylivelinkface") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let port = 41_800 + (std::process::id() % 100) as u16;
    let received = dir.join("received.jsonl");
    let mut listening = receiver(
        &python,
        "livelink_receive.py",
        &[
            port.to_string(),
            "9".to_owned(),
            received.display().to_string(),
        ],
    );
    let record = run_streaming(dir, &format!("livelink://127.0.0.1:{port}"));
    assert!(listening.wait().unwrap().success());
    let packets: Vec<Value> = std::fs::read_to_string(&received)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        packets.iter().all(|p| p["ok"] == true),
        "every packet held a face"
    );
    let subjects: std::collections::BTreeSet<&str> = packets
        .iter()
        .map(|p| p["subject"].as_str().unwrap())
        .collect();
    assert_eq!(
        subjects.into_iter().collect::<Vec<_>>(),
        ["Bram", "Elara", "Mira"]
    );
    let elara: Vec<&Value> = packets.iter().filter(|p| p["subject"] == "Elara").collect();
    let drawn = recorded_jaw(&record);
    let (mut matched, mut open, mut worst) = (0, 0, 0.0f64);
    for p in &elara {
        let fps = p["fps"].as_f64().unwrap();
        let t_ms = (p["frame"].as_f64().unwrap() + p["sub_frame"].as_f64().unwrap()) / fps * 1000.0;
        let got = p["jaw"].as_f64().unwrap();
        let key = (t_ms * 10.0).round() as i64;
        if let Some(want) = (key - 2..=key + 2).find_map(|k| drawn.get(&k)) {
            matched += 1;
            worst = worst.max((got - want).abs());
            open += usize::from(got > 0.1);
        }
    }
    eprintln!(
        "{} packets for Elara, {matched} matched to recorded frames, jaw open in {open}, worst \
         difference {worst}",
        elara.len()
    );
    assert_every_frame_sent(elara.len(), recorded_frames(&record, "Elara"), "Elara");
    assert!(
        matched * 10 >= elara.len() * 9,
        "{matched} of {}",
        elara.len()
    );
    let drawn_open = drawn.values().filter(|&&jaw| jaw > 0.1).count();
    assert!(
        drawn_open >= 3 && open * 10 >= drawn_open * 9,
        "the line moved the jaw in {drawn_open} frames drawn, {open} sent"
    );
    assert!(worst < 1e-4, "jawOpen sent {worst} away from the record");
}

/// `capture --listen livelink://` records what pylivelinkface's encoder sends (as the iPhone
/// app does) as a take: the subject's frames in order, JawOpen and the head's yaw as sent.
#[test]
fn a_live_link_face_sender_is_captured_as_a_take() {
    let Some(python) = python_with("pylivelinkface") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let take = tmp.path().join("take.csv");
    let port = 42_800 + (std::process::id() % 100) as u16;
    let mut capture = Command::new(env!("CARGO_BIN_EXE_npc-player"))
        .args([
            "capture",
            "--listen",
            &format!("livelink://127.0.0.1:{port}"),
        ])
        .arg("--out")
        .arg(&take)
        .args(["--seconds", "4"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // It says when it listens.
    let mut said = String::new();
    let mut stderr = BufReader::new(capture.stderr.take().unwrap());
    stderr.read_line(&mut said).unwrap();
    assert!(said.starts_with("listening"), "{said}");
    let frames = 90;
    let tool = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/tools/livelink_send.py");
    let sent = Command::new(&python)
        .arg(&tool)
        .args([port.to_string(), frames.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = capture.wait().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    assert!(status.success(), "{said}{rest}");
    let csv = std::fs::read_to_string(&take).unwrap();
    let take = npc_core::take::read_livelink_csv(&csv, "Phone").unwrap();
    let jaw: Vec<f32> = take
        .weights
        .iter()
        .map(|w| w[npc_core::ArkitTarget::JawOpen.index()])
        .collect();
    eprintln!("{} of {frames} frames captured: {}", jaw.len(), rest.trim());
    assert!(jaw.len() * 10 >= frames * 9, "{} frames", jaw.len());
    assert!(jaw.windows(2).all(|w| w[1] > w[0]), "in order: {jaw:?}");
    for j in &jaw {
        let i = (j * frames as f32).round();
        assert!(
            (j - i / frames as f32).abs() < 1e-6,
            "{j} was sent as some i/{frames}"
        );
    }
    let head = take.head.as_ref().unwrap();
    assert!(
        head.iter().all(|h| (h.yaw_deg - 18.0).abs() < 1e-3),
        "{:?}",
        head[0]
    );
}

/// A project's `streams` list streams without `--stream`, at the rate its URL asks for
/// (`?hz=20`: Elara's frames 50 ms apart on the run's clock, as pylivelinkface reads them).
#[test]
fn a_projects_streams_list_streams_at_its_rate() {
    let Some(python) = python_with("pylivelinkface") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let port = 41_900 + (std::process::id() % 100) as u16;
    let received = dir.join("received.jsonl");
    let mut listening = receiver(
        &python,
        "livelink_receive.py",
        &[
            port.to_string(),
            "9".to_owned(),
            received.display().to_string(),
        ],
    );
    let (project, agent) = demo_with_a_line(dir);
    let mut with_streams = npc_core::project::Project::load(&project).unwrap();
    with_streams.streams = vec![format!("livelink://127.0.0.1:{port}?hz=20")];
    with_streams.save(&project).unwrap();
    let out = npc_player(&[
        "run",
        "--project",
        project.to_str().unwrap(),
        "--agent-dir",
        agent.to_str().unwrap(),
        "--headless",
        "--size",
        "32x24",
        "--mute",
        "--duration",
        "4",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(listening.wait().unwrap().success());
    let times: Vec<f64> = std::fs::read_to_string(&received)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|p| p["subject"] == "Elara")
        .map(|p| {
            (p["frame"].as_f64().unwrap() + p["sub_frame"].as_f64().unwrap())
                / p["fps"].as_f64().unwrap()
        })
        .collect();
    eprintln!("{} packets for Elara in 4 s at 20 Hz", times.len());
    // At most 20 a second over 4 s (how many of those come depends on the machine's frame
    // rate); never two closer than 50 ms.
    assert!(times.len() >= 10 && times.len() <= 82, "{}", times.len());
    for pair in times.windows(2) {
        assert!(
            pair[1] - pair[0] >= 0.049,
            "{pair:?}: sent faster than 20 Hz"
        );
    }

    // A bad URL in the list is refused by name before anything runs.
    with_streams.streams = vec!["osc://127.0.0.1:9000".to_owned()];
    with_streams.save(&project).unwrap();
    let out = npc_player(&[
        "run",
        "--project",
        project.to_str().unwrap(),
        "--headless",
        "--duration",
        "1",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("streams[0]") && stderr.contains("vmc://HOST:PORT"),
        "{stderr}"
    );
}

/// `capture --listen vmc://` records what python-osc sends as a VMC sender does: the ARKit
/// blend shapes and VRM's blink in order, the head bone's turn, and the frames where the sender
/// said tracking was lost as the take's gaps.
#[test]
fn a_vmc_sender_is_captured_as_a_take_with_its_gaps() {
    let Some(python) = python_with("pythonosc") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let take = tmp.path().join("take.csv");
    let port = 43_000 + (std::process::id() % 100) as u16;
    let mut capture = Command::new(env!("CARGO_BIN_EXE_npc-player"))
        .args(["capture", "--listen", &format!("vmc://127.0.0.1:{port}")])
        .arg("--out")
        .arg(&take)
        .args(["--seconds", "4"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = String::new();
    let mut stderr = BufReader::new(capture.stderr.take().unwrap());
    stderr.read_line(&mut said).unwrap();
    assert!(said.starts_with("listening for VMC"), "{said}");
    let (frames, lost): (usize, std::ops::Range<usize>) = (90, 40..45);
    let tool = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/tools/vmc_send.py");
    let sent = Command::new(&python)
        .arg(&tool)
        .args([usize::from(port), frames, lost.start, lost.end].map(|n| n.to_string()))
        .status()
        .unwrap();
    assert!(sent.success());
    let status = capture.wait().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    assert!(status.success(), "{said}{rest}");
    assert!(
        rest.contains("not ARKit weights") && rest.contains('A'),
        "{rest}"
    );
    let csv = std::fs::read_to_string(&take).unwrap();
    let take = npc_core::take::read_livelink_csv(&csv, "vmc").unwrap();
    let w = |t: npc_core::ArkitTarget| -> Vec<f32> {
        take.weights.iter().map(|w| w[t.index()]).collect()
    };
    let jaw = w(npc_core::ArkitTarget::JawOpen);
    eprintln!(
        "{} of {frames} frames captured, {} gaps: {}",
        jaw.len(),
        take.gaps_ms.len(),
        rest.trim()
    );
    let tracked = frames - lost.len();
    assert!(jaw.len() * 10 >= tracked * 9, "{} frames", jaw.len());
    assert!(jaw.len() <= tracked, "no untracked frame is a frame");
    assert!(jaw.windows(2).all(|w| w[1] > w[0]), "in order: {jaw:?}");
    assert!(
        jaw.iter()
            .all(|j| !lost.contains(&((j * frames as f32).round() as usize))),
        "no frame from the lost stretch: {jaw:?}"
    );
    assert!(
        (1..=lost.len()).contains(&take.gaps_ms.len()),
        "{:?}",
        take.gaps_ms
    );
    assert!(
        w(npc_core::ArkitTarget::EyeBlinkLeft)
            .iter()
            .all(|&b| b == 0.5)
    );
    let head = take.head.as_ref().unwrap();
    assert!(
        head.iter().all(|h| (h.yaw_deg - 18.0).abs() < 1e-2),
        "{:?}",
        head[0]
    );
}

/// `?npc=ID` sends that NPC alone, to PORT itself (a receiver that takes one avatar): every
/// packet python-osc reads is on PORT, none on the next, and its root stands where Bram does.
#[test]
fn a_stream_can_choose_one_npc_for_one_port() {
    let Some(python) = python_with("pythonosc") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let base = 40_200 + (std::process::id() % 100) as u16 * 2;
    let received = dir.join("received.jsonl");
    let mut listening = receiver(
        &python,
        "vmc_receive.py",
        &[
            base.to_string(),
            "2".to_owned(),
            "9".to_owned(),
            received.display().to_string(),
        ],
    );
    let record = run_streaming(dir, &format!("vmc://127.0.0.1:{base}?npc=Bram"));
    assert!(listening.wait().unwrap().success());
    let packets: Vec<Value> = std::fs::read_to_string(&received)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_every_frame_sent(packets.len(), recorded_frames(&record, "Bram"), "Bram");
    assert!(
        packets.iter().all(|p| p["port"] == base),
        "Bram alone, on PORT"
    );
    // Where each NPC stood first, as the record says.
    let stood = |id: &str| -> f64 {
        let line = std::fs::read_to_string(&record)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|l| l["npc"] == id)
            .unwrap();
        line["position"][0].as_f64().unwrap()
    };
    // Unity's x is glTF's mirrored.
    let root_x = packets[0]["root"][1].as_f64().unwrap();
    let off = |id: &str| (root_x + stood(id)).abs();
    assert!(
        off("Bram") < 0.05,
        "root x {root_x}, Bram at x {}",
        stood("Bram")
    );
    assert!(off("Elara") > 0.5 && off("Mira") > 0.5);
}

/// `--line-audio DIR` keeps each synthesised line's sound for the engine the NPCs stream to:
/// `line_started` names the WAV, whose length is the line's (its `line_finished` comes that
/// much later on the same clock), and the mouth the record drew moves within it.
#[test]
fn a_lines_sound_is_kept_for_the_engine_on_the_streams_clock() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (project, agent) = demo_with_a_line(dir);
    let record = dir.join("record.jsonl");
    let events = dir.join("events.jsonl");
    let kept = dir.join("line-audio");
    let out = npc_player(&[
        "run",
        "--project",
        project.to_str().unwrap(),
        "--agent-dir",
        agent.to_str().unwrap(),
        "--headless",
        "--size",
        "32x24",
        "--mute",
        "--duration",
        "5",
        "--record",
        record.to_str().unwrap(),
        "--events",
        events.to_str().unwrap(),
        "--line-audio",
        kept.to_str().unwrap(),
        "--stream",
        "livelink://127.0.0.1:9",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events: Vec<Value> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let event = |name: &str| events.iter().find(|e| e["event"] == name).unwrap();
    let started = event("line_started");
    let wav = Path::new(
        started["audio"]
            .as_str()
            .expect("line_started names its audio"),
    );
    assert_eq!(wav.parent(), Some(kept.as_path()));
    let (samples, rate) = npc_core::speech::wav::read_mono(wav).unwrap();
    let wav_ms = samples.len() as f64 * 1000.0 / f64::from(rate);
    let start_ms = started["t_ms"].as_f64().unwrap();
    let spoken_ms = event("line_finished")["t_ms"].as_f64().unwrap() - start_ms;
    eprintln!(
        "kept {} ({wav_ms:.0} ms); the line took {spoken_ms:.0} ms",
        wav.display()
    );
    assert!(wav_ms > 500.0 && (spoken_ms - wav_ms).abs() < 150.0);
    let open: Vec<f64> = recorded_jaw(&record)
        .into_iter()
        .filter(|&(_, jaw)| jaw > 0.1)
        .map(|(t, _)| t as f64 / 10.0)
        .collect();
    assert!(!open.is_empty(), "the mouth moved");
    assert!(
        open.iter()
            .all(|&t| t >= start_ms && t <= start_ms + wav_ms + 100.0),
        "the mouth moves while the kept sound plays: {start_ms}..{}",
        start_ms + wav_ms
    );
}

/// A VRoid Studio avatar (no ARKit shapes of its own) streamed over VMC: python-osc receives
/// its VRM expressions by their VRM 0.x names, as VSeeFace and UniVRM receivers take them, and
/// the vowel `A` opens while it speaks.
#[test]
fn a_vroid_avatar_streams_its_vrm_expressions_by_name() {
    let test = "a_vroid_avatar_streams_its_vrm_expressions_by_name";
    let Some(python) = python_with("pythonosc") else {
        return;
    };
    let Some(avatar) = common::vrm_avatar("suzuha.vrm") else {
        eprintln!("{test}: NOT RUN, suzuha.vrm is not fetched (scripts/setup.sh fetches it)");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let base = 40_500 + (std::process::id() % 100) as u16;
    let received = dir.join("received.jsonl");
    let mut listening = receiver(
        &python,
        "vmc_receive.py",
        &[
            base.to_string(),
            "1".to_owned(),
            // The run's 8 seconds and its loading, on a loaded machine.
            "14".to_owned(),
            received.display().to_string(),
        ],
    );
    let (project, agent) = demo_with_a_line(dir);
    let mut vroid = npc_core::project::Project::load(&project).unwrap();
    for npc in &mut vroid.npcs {
        npc.avatar.body = avatar.clone();
        npc.avatar.head = None;
    }
    vroid.save(&project).unwrap();
    let record = dir.join("record.jsonl");
    let out = npc_player(&[
        "run",
        "--project",
        project.to_str().unwrap(),
        "--agent-dir",
        agent.to_str().unwrap(),
        "--headless",
        "--size",
        "32x24",
        "--mute",
        "--duration",
        // Long enough for the line to be heard on a loaded machine (the test binary runs its
        // tests side by side): a debug build loads the avatar's textures for a few seconds.
        "8",
        "--record",
        record.to_str().unwrap(),
        "--stream",
        &format!("vmc://127.0.0.1:{base}?npc=Elara"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(listening.wait().unwrap().success());
    let packets: Vec<Value> = std::fs::read_to_string(&received)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_every_frame_sent(packets.len(), recorded_frames(&record, "Elara"), "Elara");
    let watched = packets[0]["watched"].as_object().expect("presets sent");
    for name in ["A", "I", "U", "E", "O", "Blink_L", "Blink_R"] {
        assert!(watched.contains_key(name), "{name} in {watched:?}");
    }
    let a: Vec<f64> = packets
        .iter()
        .map(|p| p["watched"]["A"].as_f64().unwrap())
        .collect();
    let peak = a.iter().copied().fold(0.0, f64::max);
    eprintln!("A over {} packets: {a:.2?}", a.len());
    assert!(peak > 0.3, "the mouth opened on A");
    assert!(a.iter().any(|&v| v < 0.05), "and closed");
}

/// A real capture recorded on an iPhone (the Face Cap recording scripts/setup.sh fetches: 52
/// ARKit curves at 30 fps) replays over Live Link Face and comes back through `capture`
/// identically: every frame, in order, every weight as recorded. Then through VMC, with a gap.
#[test]
fn a_real_iphone_capture_replays_through_capture_identically() {
    let test = "a_real_iphone_capture_replays_through_capture_identically";
    let Some(facecap) = common::facecap() else {
        eprintln!("{test}: NOT RUN, the Face Cap recording is not fetched (scripts/setup.sh)");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    // The recording as a take, written as CSV: what is sent and what must come back.
    let sent_csv = tmp.path().join("sent.csv");
    let asset = npc_core::asset::Asset::load(&facecap).unwrap();
    let mut sent = (0..asset.clips.len())
        .find_map(|c| npc_core::take::Take::from_gltf_clip(&asset, c, 30.0))
        .unwrap();
    // Four seconds of it, with two frames where the face was lost.
    let keep = sent.times_ms.iter().filter(|&&t| t < 4000.0).count();
    sent.times_ms.truncate(keep);
    sent.weights.truncate(keep);
    sent.head = None;
    let lost: Vec<usize> = vec![40, 41];
    sent.gaps_ms = lost.iter().map(|&i| sent.times_ms[i]).collect();
    for &i in lost.iter().rev() {
        sent.times_ms.remove(i);
        sent.weights.remove(i);
    }
    std::fs::write(&sent_csv, npc_core::take::write_livelink_csv(&sent)).unwrap();
    let sent = npc_core::take::read_livelink_csv(&std::fs::read_to_string(&sent_csv).unwrap(), "x")
        .unwrap();
    for (protocol, port) in [("livelink", 43_300u16), ("vmc", 43_400)] {
        let port = port + (std::process::id() % 100) as u16;
        let back = tmp.path().join(format!("{protocol}.csv"));
        let url = format!("{protocol}://127.0.0.1:{port}");
        let mut capture = Command::new(env!("CARGO_BIN_EXE_npc-player"))
            .args(["capture", "--listen", &url])
            .arg("--out")
            .arg(&back)
            .args(["--seconds", "6"])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut said = String::new();
        let mut stderr = BufReader::new(capture.stderr.take().unwrap());
        stderr.read_line(&mut said).unwrap();
        assert!(said.starts_with("listening"), "{said}");
        let out = npc_player(&["replay", sent_csv.to_str().unwrap(), "--to", &url]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(capture.wait().unwrap().success());
        let got = npc_core::take::read_livelink_csv(&std::fs::read_to_string(&back).unwrap(), "y")
            .unwrap();
        eprintln!(
            "{protocol}: {} of {} frames and {} of {} gaps back",
            got.times_ms.len(),
            sent.times_ms.len(),
            got.gaps_ms.len(),
            sent.gaps_ms.len()
        );
        assert_eq!(got.times_ms.len(), sent.times_ms.len(), "every frame");
        assert_eq!(got.gaps_ms.len(), sent.gaps_ms.len(), "every gap");
        assert_eq!(got.weights, sent.weights, "every weight as recorded");
        // Timed on arrival: the frames keep the recording's pace, so they arrive over as long
        // as the recording lasts (sent all at once, they would arrive within moments). A
        // loaded machine may hold the sender back now and then, which only lengthens it.
        let span = |t: &[f64]| t.last().unwrap() - t.first().unwrap();
        let (got_span, sent_span) = (span(&got.times_ms), span(&sent.times_ms));
        assert!(
            got_span >= 0.8 * sent_span && got_span <= sent_span + 3000.0,
            "{protocol}: the frames arrived over {got_span} ms; the recording lasts {sent_span} ms"
        );
    }
}
