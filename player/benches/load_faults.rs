//! The live runtime under load and faults, headless, no drawing: 50 conversations at once with
//! lines appended at 10 a second in all (each stamped with its append time), the conductor
//! stepped every 16 ms on this thread as a frame loop would, the offline speech engine, sound
//! timed by the offline clock. Runs a load phase, then each fault on the same load:
//!
//! - `spoken-refused`: `spoken.json`'s path taken by a folder for 3 s, as a full disk or a
//!   deleted folder refuses the write;
//! - `disk-slow`: every write of `spoken.json`, the events file and `heard/` takes 200 ms
//!   longer (a fault-injecting [`Storage`] the runtime writes through), the whole phase;
//! - `disk-full`: those writes refused with ENOSPC for 3 s, as a full disk refuses them;
//! - `dir-recreated`: the whole agent directory deleted and made again by its agent (every
//!   conversation file restored, numbering continued);
//! - `agent-killed`: an agent dies half way through writing a line; restarted 1.5 s later, it
//!   ends the fragment with a newline and writes the line again;
//! - `engine-hangs`: the project speaks with Azure, whose endpoint (`AZURE_SPEECH_ENDPOINT`) is
//!   a local server that takes every connection and never answers: each line Azure is asked
//!   for waits out its 10 s timeout and is spoken offline, until the breaker sends lines
//!   offline at once (run in a child process of this benchmark, for its environment).
//!
//! In every phase a person speaks to the NPCs twice a second: each utterance goes to the
//! runtime's heard writer on the same disk, and must land in `heard.jsonl` once, in order.
//!
//! Prints, per phase: line appended -> first audio p50/p95/max, frame (one conductor step)
//! p50/p99/max, lines appended, spoken, refused, lost and spoken twice; utterances heard,
//! written and lost; and whether `spoken.json` holds every line spoken at the end. `cargo bench --bench
//! load_faults` runs 120 s of load and 30 s per fault; `cargo test` runs each for 3 s on 5
//! conversations as a smoke test (the same accounting, asserted).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use npc_core::agent::heard::Heard;
use npc_core::agent::heard_writer::HeardWriter;
use npc_core::disk::{Disk, Storage};
use npc_core::project::Project;
use npc_player::{Conductor, ConductorOptions};
use serde_json::{Value, json};

const TEXTS: [&str; 5] = [
    "Yes.",
    "Good morning.",
    "The road is long.",
    "We leave at dawn.",
    "Indeed, friend.",
];
const SPEAKERS: [[&str; 2]; 3] = [["Elara", "Bram"], ["Bram", "Mira"], ["Mira", "Elara"]];
const FRAME: Duration = Duration::from_millis(16);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    None,
    SpokenRefused,
    DiskSlow,
    DiskFull,
    DirRecreated,
    AgentKilled,
    EngineHangs,
}

impl Fault {
    fn name(self) -> &'static str {
        match self {
            Self::None => "load",
            Self::SpokenRefused => "spoken-refused",
            Self::DiskSlow => "disk-slow",
            Self::DiskFull => "disk-full",
            Self::DirRecreated => "dir-recreated",
            Self::AgentKilled => "agent-killed",
            Self::EngineHangs => "engine-hangs",
        }
    }
}

/// The benchmark's fault-injecting disk: every write waits `slow_ms` first, and is refused
/// with ENOSPC while `full` is set.
#[derive(Debug, Default)]
struct FaultyDisk {
    slow_ms: AtomicU64,
    full: AtomicBool,
    /// Writes it refused.
    refused: AtomicU64,
}

impl FaultyDisk {
    fn fault(&self) -> std::io::Result<()> {
        thread::sleep(Duration::from_millis(self.slow_ms.load(Ordering::SeqCst)));
        if self.full.load(Ordering::SeqCst) {
            self.refused.fetch_add(1, Ordering::SeqCst);
            // What a full disk says: "No space left on device".
            return Err(std::io::Error::from_raw_os_error(28));
        }
        Ok(())
    }
}

impl Storage for FaultyDisk {
    fn write_atomically(&self, path: &Path, bytes: &[u8], prefix: &str) -> std::io::Result<()> {
        self.fault()?;
        npc_core::atomic::write_atomically_via(path, bytes, prefix)
    }

    fn append(&self, file: &mut fs::File, bytes: &[u8]) -> std::io::Result<usize> {
        self.fault()?;
        file.write(bytes)
    }
}

/// What one phase measured.
struct Report {
    /// Utterances the person said, and those in `heard.jsonl` (once each, in order).
    heard: usize,
    heard_written: usize,
    /// Whether `spoken.json` held every line spoken when the run ended.
    spoken_file_whole: bool,
    /// Writes the faulty disk refused.
    writes_refused: u64,
    /// The last seq started in each conversation.
    last_started: BTreeMap<String, u64>,
    appended: usize,
    spoken: usize,
    refused: usize,
    lost: usize,
    twice: usize,
    first_audio: Vec<f64>,
    frames: Vec<f64>,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn conversation(i: usize) -> String {
    format!("conversations/c{i:02}.jsonl")
}

fn write_active(agent: &Path, conversations: usize) {
    let list: Vec<Value> = (0..conversations)
        .map(|i| json!({"file": conversation(i), "speakers": SPEAKERS[i % SPEAKERS.len()]}))
        .collect();
    fs::write(
        agent.join("active.json"),
        json!({ "conversations": list }).to_string(),
    )
    .unwrap();
}

fn append(agent: &Path, file: &str, text: &str) {
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(agent.join(file))
        .unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

/// The agents: a line every `period`, round robin over the conversations, until `stop`; the
/// fault half way. Returns every (conversation, seq) appended whole.
fn agents(
    agent: &Path,
    conversations: usize,
    period: Duration,
    seconds: f64,
    fault: Fault,
    disk: &FaultyDisk,
) -> Vec<(String, u64)> {
    let start = Instant::now();
    let end = start + Duration::from_secs_f64(seconds);
    let fault_at = start + Duration::from_secs_f64(seconds / 2.0);
    let mut faulted = false;
    let mut written: Vec<Vec<String>> = vec![Vec::new(); conversations];
    let mut appended = Vec::new();
    let mut restart: Option<(Instant, String, String)> = None;
    let mut unblock: Option<Instant> = None;
    let mut room_again: Option<Instant> = None;
    let mut i = 0usize;
    loop {
        let due = start + period * u32::try_from(i).unwrap();
        if due >= end {
            break;
        }
        thread::sleep(due.saturating_duration_since(Instant::now()));
        let now = Instant::now();
        if let Some(at) = unblock
            && now >= at
        {
            fs::remove_dir_all(agent.join("spoken.json")).unwrap();
            unblock = None;
        }
        if room_again.is_some_and(|at| now >= at) {
            disk.full.store(false, Ordering::SeqCst);
            room_again = None;
        }
        if let Some((at, file, line)) = restart.take() {
            if now >= at {
                // Restarted: the fragment ended, the line written again.
                append(agent, &file, &format!("\n{line}"));
            } else {
                restart = Some((at, file, line));
            }
        }
        let c = i % conversations;
        let seq = written[c].len() as u64;
        let speakers = SPEAKERS[c % SPEAKERS.len()];
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64()
            * 1000.0;
        let line = json!({"seq": seq, "speaker_id": speakers[(seq % 2) as usize],
                          "text": TEXTS[i % TEXTS.len()], "written_unix_ms": stamp})
        .to_string()
            + "\n";
        let file = conversation(c);
        if !faulted && now >= fault_at {
            faulted = true;
            match fault {
                Fault::None | Fault::EngineHangs | Fault::DiskSlow => {}
                Fault::DiskFull => {
                    disk.full.store(true, Ordering::SeqCst);
                    room_again = Some(now + Duration::from_secs(3));
                }
                Fault::SpokenRefused => {
                    let blocked = agent.join("spoken.json");
                    let _ = fs::remove_file(&blocked);
                    fs::create_dir_all(blocked.join("in-the-way")).unwrap();
                    unblock = Some(now + Duration::from_secs(3));
                }
                Fault::DirRecreated => {
                    // The runtime may be writing into it as it goes (heard/): deleted
                    // again until it is gone, as `rm -rf` run again would.
                    for _ in 0..100 {
                        if fs::remove_dir_all(agent).is_ok() || !agent.exists() {
                            break;
                        }
                        thread::sleep(Duration::from_millis(10));
                    }
                    assert!(!agent.exists(), "cannot delete {}", agent.display());
                    thread::sleep(Duration::from_millis(200));
                    fs::create_dir_all(agent.join("conversations")).unwrap();
                    write_active(agent, conversations);
                    for (k, lines) in written.iter().enumerate() {
                        append(agent, &conversation(k), &lines.concat());
                    }
                }
                Fault::AgentKilled => {
                    // Half the line, then the agent is gone.
                    let (half, _) = line.split_at(line.len() / 2);
                    append(agent, &file, half);
                    restart = Some((now + Duration::from_millis(1_500), file, line.clone()));
                    written[c].push(line);
                    appended.push((conversation(c), seq));
                    i += 1;
                    continue;
                }
            }
        }
        append(agent, &file, &line);
        written[c].push(line);
        appended.push((conversation(c), seq));
        i += 1;
    }
    if let Some((_, file, line)) = restart {
        append(agent, &file, &format!("\n{line}"));
    }
    if unblock.is_some() {
        fs::remove_dir_all(agent.join("spoken.json")).unwrap();
    }
    disk.full.store(false, Ordering::SeqCst);
    appended
}

fn phase(project: &Path, conversations: usize, seconds: f64, fault: Fault) -> Report {
    let dir = tempfile::tempdir().unwrap();
    let agent = dir.path().join("agent");
    fs::create_dir_all(agent.join("conversations")).unwrap();
    write_active(&agent, conversations);
    let events = dir.path().join("events.jsonl");
    let project_file = Project::load(project).unwrap();
    let faulty = Arc::new(FaultyDisk::default());
    if fault == Fault::DiskSlow {
        faulty.slow_ms.store(200, Ordering::SeqCst);
    }
    let disk = Disk::new(Arc::clone(&faulty) as Arc<dyn Storage>);
    let mut conductor = Conductor::open(
        &project_file,
        &ConductorOptions {
            agent_dir: agent.clone(),
            events: Some(events.clone()),
            gap_timeout: Duration::from_secs(3),
            synthesis_deadline: npc_player::SYNTHESIS_DEADLINE,
            wait_for_synthesis: false,
            sound: false,
            line_audio: None,
            disk: disk.clone(),
        },
    )
    .unwrap();
    let person = person(&agent, disk, seconds);
    // 10 lines a second in all.
    let period = Duration::from_millis(100);
    let driver = {
        let (agent, faulty) = (agent.clone(), Arc::clone(&faulty));
        thread::spawn(move || agents(&agent, conversations, period, seconds, fault, &faulty))
    };
    let mut frames = Vec::new();
    let mut cues = Vec::new();
    let mut quiet_since: Option<Instant> = None;
    let origin = Instant::now();
    conductor.set_origin(origin);
    loop {
        let began = Instant::now();
        conductor.step(began, &mut cues).unwrap();
        cues.clear();
        frames.push(began.elapsed().as_secs_f64() * 1000.0);
        if driver.is_finished() {
            // The agents are done: run until nothing plays for 4 s (gaps time out in 3 s).
            if conductor.busy() {
                quiet_since = None;
            } else if quiet_since.get_or_insert(began).elapsed() > Duration::from_secs(4) {
                break;
            }
            if began.duration_since(origin).as_secs_f64() > seconds + 60.0 {
                break;
            }
        }
        thread::sleep(FRAME.saturating_sub(began.elapsed()));
    }
    let appended = driver.join().unwrap();
    drop(conductor);
    let (heard, landed) = person.join().unwrap();
    let mut report = account(&appended, &fs::read_to_string(&events).unwrap(), frames);
    report.heard = heard;
    // The agent's deleting its folder takes the lines written before with it: there the
    // writer's word (each seq once, in order) is what is counted.
    report.heard_written = if fault == Fault::DirRecreated {
        landed
    } else {
        heard_in_file(&agent)
    };
    report.spoken_file_whole = spoken_file_whole(&agent, &report.last_started);
    report.writes_refused = faulty.refused.load(Ordering::SeqCst);
    if fault == Fault::DiskFull {
        assert!(report.writes_refused > 0, "the disk never refused a write");
    }
    report
}

/// The person: an utterance every 500 ms for `seconds`, handed to the runtime's heard writer
/// on `disk`. Returns how many were said and how many the writer says landed (seqs 0, 1, ...
/// in order, each once).
fn person(agent: &Path, disk: Disk, seconds: f64) -> thread::JoinHandle<(usize, usize)> {
    let agent = agent.to_owned();
    thread::spawn(move || {
        let landed = Arc::new(std::sync::Mutex::new(Vec::new()));
        let theirs = Arc::clone(&landed);
        let writer = HeardWriter::start(&agent, disk, move |outcome| {
            if let npc_core::agent::heard_writer::HeardWritten::Line { line, .. } = outcome {
                theirs.lock().unwrap().push(line.seq);
            }
        })
        .unwrap();
        let start = Instant::now();
        let mut said = 0usize;
        while start.elapsed().as_secs_f64() < seconds {
            let t = start.elapsed().as_secs_f64() * 1000.0;
            writer.submit(
                Heard {
                    to: Some("Elara".to_owned()),
                    start_ms: t,
                    end_ms: t + 400.0,
                    text: Some(format!("utterance {said}")),
                    words: None,
                },
                vec![0; 6_400],
                16_000,
            );
            said += 1;
            thread::sleep(Duration::from_millis(500));
        }
        drop(writer);
        let seqs = landed.lock().unwrap().clone();
        let in_order = seqs.iter().enumerate().all(|(i, &s)| s == i as u64);
        assert!(in_order, "heard seqs out of order or twice: {seqs:?}");
        (said, seqs.len())
    })
}

/// Distinct utterances in `heard.jsonl`, checked to be whole lines in the order said.
fn heard_in_file(agent: &Path) -> usize {
    let text = fs::read_to_string(agent.join("heard.jsonl")).unwrap_or_default();
    let said: Vec<String> = text
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["text"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let expected: Vec<String> = (0..said.len()).map(|i| format!("utterance {i}")).collect();
    assert_eq!(said, expected, "heard.jsonl: each utterance once, in order");
    said.len()
}

/// Whether `spoken.json` names, for every conversation, the last line that started (or a
/// later one).
fn spoken_file_whole(agent: &Path, last_started: &BTreeMap<String, u64>) -> bool {
    let Ok(text) = fs::read_to_string(agent.join("spoken.json")) else {
        return last_started.is_empty();
    };
    let spoken: Value = serde_json::from_str(&text).unwrap();
    last_started.iter().all(|(conversation, &seq)| {
        spoken["conversations"][conversation]["last_seq"]
            .as_u64()
            .is_some_and(|last| last >= seq)
    })
}

fn account(appended: &[(String, u64)], log: &str, mut frames: Vec<f64>) -> Report {
    let mut started: BTreeMap<(String, u64), usize> = BTreeMap::new();
    let mut refused: BTreeMap<(String, u64), String> = BTreeMap::new();
    let mut first_audio = Vec::new();
    for event in log
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
    {
        let key = || {
            (
                event["conversation"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                event["seq"].as_u64().unwrap_or(u64::MAX),
            )
        };
        match event["event"].as_str() {
            Some("line_started") => {
                *started.entry(key()).or_default() += 1;
                if let Some(ms) = event["append_latency_ms"].as_f64() {
                    first_audio.push(ms);
                }
            }
            Some("line_rejected") => {
                refused.insert(key(), event["reason"].to_string());
            }
            _ => {}
        }
    }
    let missing: Vec<&(String, u64)> = appended
        .iter()
        .filter(|k| !started.contains_key(*k) && !refused.contains_key(*k))
        .collect();
    for (conversation, seq) in missing.iter().take(5) {
        println!("  lost: {conversation} seq {seq}; its events:");
        for line in log.lines().filter(|l| l.contains(conversation.as_str())) {
            println!("    {line}");
        }
    }
    let lost = missing.len();
    first_audio.sort_by(f64::total_cmp);
    frames.sort_by(f64::total_cmp);
    let mut last_started: BTreeMap<String, u64> = BTreeMap::new();
    for (conversation, seq) in started.keys() {
        let last = last_started.entry(conversation.clone()).or_default();
        *last = (*last).max(*seq);
    }
    Report {
        heard: 0,
        heard_written: 0,
        spoken_file_whole: false,
        writes_refused: 0,
        last_started,
        appended: appended.len(),
        spoken: started.len(),
        refused: refused.len(),
        lost,
        twice: started.values().filter(|&&n| n > 1).count(),
        first_audio,
        frames,
    }
}

/// The child process that runs the `engine-hangs` phase is told so by this variable.
const PHASE_VAR: &str = "NPC_LOAD_FAULTS_PHASE";

fn print(fault: Fault, conversations: usize, seconds: f64, r: &Report) {
    let (a, f) = (&r.first_audio, &r.frames);
    println!(
        "load_faults {:<15} {conversations} conversations, 10 lines/s, {seconds:.0} s: \
         line -> first audio p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms; frame p50 {:.2} ms, \
         p99 {:.2} ms, max {:.2} ms; appended {}, spoken {}, refused {}, lost {}, \
         spoken twice {}; heard {}, written {}, lost {}; spoken.json whole: {}; writes refused {}",
        fault.name(),
        percentile(a, 0.5),
        percentile(a, 0.95),
        a.last().copied().unwrap_or(f64::NAN),
        percentile(f, 0.5),
        percentile(f, 0.99),
        f.last().copied().unwrap_or(f64::NAN),
        r.appended,
        r.spoken,
        r.refused,
        r.lost,
        r.twice,
        r.heard,
        r.heard_written,
        r.heard - r.heard_written,
        r.spoken_file_whole,
        r.writes_refused,
    );
    assert_eq!(r.twice, 0, "{}: a line spoken twice", fault.name());
    assert_eq!(r.lost, 0, "{}: a line lost", fault.name());
    assert_eq!(
        r.heard,
        r.heard_written,
        "{}: an utterance lost",
        fault.name()
    );
    assert!(r.spoken_file_whole, "{}: spoken.json behind", fault.name());
}

/// Runs the `engine-hangs` phase in a child process whose environment points Azure at a local
/// server that accepts connections and never answers.
fn engine_hangs(bench: bool) {
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = server.local_addr().unwrap().port();
    thread::spawn(move || {
        // Every connection is held open, unanswered.
        let mut held = Vec::new();
        for stream in server.incoming() {
            held.push(stream);
        }
    });
    let mut child = std::process::Command::new(std::env::current_exe().unwrap());
    if bench {
        child.arg("--bench");
    }
    let out = child
        .env(PHASE_VAR, "engine-hangs")
        .env("AZURE_SPEECH_KEY", "a-key-for-a-server-that-never-answers")
        .env(
            "AZURE_SPEECH_ENDPOINT",
            format!("ws://127.0.0.1:{port}/cognitiveservices/websocket/v1"),
        )
        .output()
        .unwrap();
    print!("{}", String::from_utf8_lossy(&out.stdout));
    assert!(
        out.status.success(),
        "the engine-hangs phase failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    // In the smoke test each conversation gets about one line, as each gets one in 5 s under
    // the full load: a line then never waits behind the one before it.
    let (conversations, load_s, fault_s) = if bench {
        (50, 120.0, 30.0)
    } else {
        (30, 3.0, 3.0)
    };
    let dir = tempfile::tempdir().unwrap();
    let project: PathBuf = dir.path().join("demo.ron");
    let demo =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo.ron"))
            .unwrap();
    if std::env::var(PHASE_VAR).as_deref() == Ok("engine-hangs") {
        assert!(demo.contains("speech: Offline"));
        let azure = demo.replace("speech: Offline", "speech: Azure(region: \"westeurope\")");
        fs::write(&project, azure).unwrap();
        let r = phase(&project, conversations, fault_s, Fault::EngineHangs);
        print(Fault::EngineHangs, conversations, fault_s, &r);
        return;
    }
    fs::write(&project, demo).unwrap();
    let phases = [
        (Fault::None, load_s),
        (Fault::SpokenRefused, fault_s),
        (Fault::DiskSlow, fault_s),
        (Fault::DiskFull, fault_s),
        (Fault::DirRecreated, fault_s),
        (Fault::AgentKilled, fault_s),
    ];
    for (fault, seconds) in phases {
        let r = phase(&project, conversations, seconds, fault);
        print(fault, conversations, seconds, &r);
    }
    engine_hangs(bench);
}
