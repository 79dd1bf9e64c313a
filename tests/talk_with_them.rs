//! Talking with them, end to end: real read speech (two LibriVox utterances, a pause between)
//! played into the microphone's path at real-time pace, the player's world and conductor live
//! at 30 frames a second. The NPC in front of the camera is addressed: it turns its head to
//! the person, its brows flash within 300 ms of the first sound, `heard.jsonl` gets one line
//! per utterance at the speech's times (PocketSphinx's word alignment of the recordings, not
//! our detector, gives them), and the example agent's reply is spoken by that NPC. The same
//! run without the microphone is the control: nothing of that happens.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{world_demo, write_lines};
use glam::Vec3;
use npc_core::ArkitTarget;
use npc_player::{Conductor, ConductorOptions, Live, MicSource, World};
use npc_render::{Camera, MeshStoreBuilder};
use serde_json::Value;

const FPS: u32 = 30;
/// Silence around and between the two utterances, s.
const PAUSE_S: f64 = 1.5;

/// A clip of read speech and where its words are (first word's start, last word's end), s.
struct Clip {
    samples: Vec<f32>,
    rate: u32,
    speech: (f64, f64),
}

fn librivox_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("NPC_LIBRIVOX")
        .map(PathBuf::from)
        .or_else(|| Some(common::cache_dir()?.join("librivox")))?;
    let there = dir
        .join("sense_and_sensibility_01_austen_64kb-0880.wav")
        .exists();
    if !there {
        common::not_run(
            &format!("no LibriVox clips in {}", dir.display()),
            "scripts/setup.sh fetches them",
        );
    }
    there.then_some(dir)
}

fn clip(dir: &Path, name: &str) -> Clip {
    let (samples, rate) =
        npc_core::speech::wav::read_mono(&dir.join(format!("{name}.wav"))).unwrap();
    let phones: Value =
        serde_json::from_str(&fs::read_to_string(dir.join(format!("{name}.phone.json"))).unwrap())
            .unwrap();
    let words: Vec<(f64, f64)> = phones["w"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| !w["t"].as_str().unwrap().starts_with('<'))
        .map(|w| {
            let b = w["b"].as_f64().unwrap();
            (b, b + w["d"].as_f64().unwrap())
        })
        .collect();
    Clip {
        samples,
        rate,
        speech: (words[0].0, words[words.len() - 1].1),
    }
}

/// Silence, clip a, silence, clip b, silence, as one WAV; returns where the speech is, s.
fn person_recording(a: &Clip, b: &Clip, path: &Path) -> Vec<(f64, f64)> {
    assert_eq!(a.rate, b.rate);
    let pause = vec![0.0f32; (PAUSE_S * f64::from(a.rate)) as usize];
    let mut all = pause.clone();
    all.extend(&a.samples);
    all.extend(&pause);
    let b_at = all.len() as f64 / f64::from(a.rate);
    all.extend(&b.samples);
    all.extend(&pause);
    let pcm: Vec<i16> = all.iter().map(|s| (s * 32_767.0) as i16).collect();
    npc_core::speech::wav::write(path, &pcm, a.rate).unwrap();
    vec![
        (PAUSE_S + a.speech.0, PAUSE_S + a.speech.1),
        (b_at + b.speech.0, b_at + b.speech.1),
    ]
}

/// Where the head of NPC `i` faces, in the world.
fn head_forward(world: &World, i: usize) -> Vec3 {
    let avatar = &world.content.avatars[world.npcs[i].avatar];
    joint_forward(world, i, avatar.head_joint.unwrap())
}

/// Where the upper torso of NPC `i` faces, in the world.
fn torso_forward(world: &World, i: usize) -> Vec3 {
    use npc_core::body::HumanoidBone as B;
    let map = &world.content.avatars[world.npcs[i].avatar].humanoid;
    let j = map
        .joint(B::UpperChest)
        .or_else(|| map.joint(B::Chest))
        .or_else(|| map.joint(B::Spine))
        .unwrap();
    joint_forward(world, i, j)
}

/// Where joint `j` of NPC `i` faces (its rest pose's front turned as it is now), in the world.
fn joint_forward(world: &World, i: usize, j: usize) -> Vec3 {
    let npc = &world.npcs[i];
    let avatar = &world.content.avatars[npc.avatar];
    let rest = avatar.skeleton.rest_world()[j]
        .to_scale_rotation_translation()
        .1;
    let now = npc.node_world[j].to_scale_rotation_translation().1;
    npc.model()
        .transform_vector3((now * rest.inverse()) * Vec3::Z)
        .normalize()
}

/// One frame of Elara as seen: run time, her brows, the angle between her head and the
/// camera, her jaw, whether she speaks a line of the person's conversation.
#[derive(Clone, Copy, Debug)]
struct Seen {
    t_ms: f64,
    brows: f32,
    head_off_deg: f32,
    /// The angle between her upper torso's front and the camera, level (yaw only).
    torso_off_deg: f32,
    jaw: f32,
    answering: bool,
    /// Another NPC (not the one spoken to) attends to the person: a glance.
    others_glance: bool,
}

struct Run {
    seen: Vec<Seen>,
    events: Vec<Value>,
    heard: Vec<Value>,
    /// The agent directory (kept until the run is dropped).
    agent: PathBuf,
    _tmp: tempfile::TempDir,
}

/// Plays the world for `seconds` with the camera 2 m from Elara, 40 degrees to her side,
/// looking at her; with `mic`, the person speaks that recording, and the example agent
/// answers.
fn run(mic: Option<&Path>, seconds: f64) -> Run {
    let d = world_demo();
    // Bram and Mira talk meanwhile: a listener of theirs, Elara looks at them unless the
    // person draws her attention.
    let talk = "The miller says the river is high this year, and the bridge may close before \
                the market. If it does, the carts must go round by the old ford, and that road \
                is slow in the rain. We should send word to the farms today.";
    write_lines(
        &d.agent,
        &[
            ("Bram", talk),
            ("Mira", talk),
            ("Bram", talk),
            ("Mira", talk),
        ],
    );
    let events = d.tmp.path().join("events.jsonl");
    let mut meshes = MeshStoreBuilder::default();
    let world = World::load(&d.project, &mut meshes).unwrap();
    let conductor = Conductor::open(
        &world.project,
        &ConductorOptions {
            agent_dir: d.agent.clone(),
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
    let mut live = Live::new(world, Some(conductor));
    if let Some(wav) = mic {
        live = live
            .hear_from(MicSource::File(wav.to_owned()), &d.agent)
            .unwrap();
        let dir = d.agent.clone();
        std::thread::spawn(move || {
            let script = npc_player::load_script(None).unwrap();
            // It stops before the run ends and its folder goes.
            let until = Instant::now() + Duration::from_secs_f64(seconds - 1.0);
            if let Err(e) =
                npc_player::run_answerer(&dir, &script, Some(until), npc_player::Naming::Answerer)
            {
                eprintln!("the example agent stopped: {e:#}");
            }
        });
    }
    // Step once so her head and heading are placed, then put the camera.
    let start = Instant::now();
    live.step(start, 1.0 / FPS as f32, Vec3::new(0.0, 1.7, 10.0))
        .unwrap();
    let npc = &live.world.npcs[elara];
    let head = npc.head_position(&live.world.content.avatars[npc.avatar]);
    let front = npc.model().transform_vector3(Vec3::Z).normalize();
    let side = Vec3::Y.cross(front).normalize();
    let angle = 40f32.to_radians();
    let eye = head + (front * angle.cos() + side * angle.sin()) * 2.0;
    let camera = Camera::looking_at(eye, head);
    let mut seen = Vec::new();
    let frames = (seconds * f64::from(FPS)) as u32;
    for frame in 1..frames {
        let due = start + Duration::from_secs_f64(f64::from(frame) / f64::from(FPS));
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        live.step_facing(
            due,
            1.0 / FPS as f32,
            camera.position,
            camera.target - camera.position,
        )
        .unwrap();
        let npc = &live.world.npcs[elara];
        let to_camera = (camera.position
            - npc.head_position(&live.world.content.avatars[npc.avatar]))
        .normalize();
        let pose = npc.face.frame().final_pose();
        seen.push(Seen {
            t_ms: live.run_ms(due),
            brows: pose.get(ArkitTarget::BrowInnerUp),
            head_off_deg: head_forward(&live.world, elara)
                .angle_between(to_camera)
                .to_degrees(),
            torso_off_deg: level(torso_forward(&live.world, elara))
                .angle_between(level(to_camera))
                .to_degrees(),
            jaw: pose.get(ArkitTarget::JawOpen),
            answering: npc
                .line
                .as_ref()
                .is_some_and(|l| l.conversation == npc_player::ANSWER_CONVERSATION),
            others_glance: live
                .world
                .npcs
                .iter()
                .enumerate()
                .any(|(i, n)| i != elara && n.attends_person()),
        });
    }
    drop(live);
    let read = |p: &Path| -> Vec<Value> {
        fs::read_to_string(p)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    Run {
        seen,
        events: read(&events),
        heard: read(&d.agent.join("heard.jsonl")),
        agent: d.agent.clone(),
        _tmp: d.tmp,
    }
}

fn level(v: Vec3) -> Vec3 {
    Vec3::new(v.x, 0.0, v.z).normalize()
}

fn event<'a>(run: &'a Run, name: &str) -> Vec<&'a Value> {
    run.events.iter().filter(|e| e["event"] == name).collect()
}

#[test]
fn the_npc_in_front_listens_hears_and_answers_the_person() {
    let Some(dir) = librivox_dir() else {
        eprintln!(
            "the_npc_in_front_listens_hears_and_answers_the_person: NOT RUN, no LibriVox clips"
        );
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let wav = tmp.path().join("person.wav");
    let a = clip(&dir, "sense_and_sensibility_01_austen_64kb-0880");
    let b = clip(&dir, "sense_and_sensibility_01_austen_64kb-0930");
    let speech = person_recording(&a, &b, &wav);
    let seconds = speech[1].1 + PAUSE_S + 8.0;
    let heard_run = run(Some(&wav), seconds);
    let control = run(None, speech[0].1 + 1.0);

    let mic = event(&heard_run, "microphone_started");
    assert_eq!(mic.len(), 1, "{:?}", heard_run.events);
    let mic_ms = mic[0]["stream_start_ms"].as_f64().unwrap();

    // One heard line per utterance, for Elara, at the speech's times (within 100 ms).
    assert_eq!(heard_run.heard.len(), 2, "{:?}", heard_run.heard);
    for (line, (from, to)) in heard_run.heard.iter().zip(&speech) {
        assert_eq!(line["to"], "Elara", "{line}");
        let start = line["start_ms"].as_f64().unwrap() - mic_ms;
        let end = line["end_ms"].as_f64().unwrap() - mic_ms;
        eprintln!(
            "utterance {from:.3}-{to:.3} s (labels) heard {:.3}-{:.3} s; text {}",
            start / 1000.0,
            end / 1000.0,
            line["text"]
        );
        assert!(
            (start - from * 1000.0).abs() <= 100.0,
            "start {start} vs {from}"
        );
        assert!((end - to * 1000.0).abs() <= 100.0, "end {end} vs {to}");
        assert!(
            heard_run.heard[0]["audio"]
                .as_str()
                .unwrap()
                .starts_with("heard/")
        );
    }

    // The brows flash within 300 ms of the first sound; the control's never do.
    let onset = mic_ms + speech[0].0 * 1000.0;
    let flash = heard_run
        .seen
        .iter()
        .find(|s| s.t_ms >= onset - 50.0 && s.brows > 0.2)
        .expect("a brow flash");
    eprintln!(
        "brows up {:.0} ms after the first sound",
        flash.t_ms - onset
    );
    assert!(flash.t_ms - onset <= 300.0);
    assert!(control.seen.iter().all(|s| s.brows < 0.2));

    // The others nearby glance at the person as they start; in the control nobody does.
    assert!(
        heard_run
            .seen
            .iter()
            .any(|s| s.others_glance && s.t_ms >= onset && s.t_ms <= onset + 500.0)
    );
    assert!(control.seen.iter().all(|s| !s.others_glance));

    // Her head turns to the camera while the person speaks; the control's stays away.
    let during = |r: &Run| {
        r.seen
            .iter()
            .filter(|s| {
                let t = s.t_ms - mic_ms;
                t > speech[0].0 * 1000.0 + 1_000.0 && t < speech[0].1 * 1000.0
            })
            .map(|s| s.head_off_deg)
            .fold(0.0f32, f32::max)
    };
    let before = heard_run.seen[0].head_off_deg;
    eprintln!(
        "head off the camera: {before:.1} deg before, at most {:.1} while heard, control {:.1}",
        during(&heard_run),
        during(&control)
    );
    assert!(during(&heard_run) < 20.0);
    assert!(during(&control) > 25.0);
    // Her upper torso turns to the camera too: here with her whole body, the camera being
    // further than her head alone turns while she attends to the others (the chest's share of
    // a head turn is core's look_at test).
    let torso = |r: &Run| {
        let during: Vec<f32> = r
            .seen
            .iter()
            .filter(|s| {
                let t = s.t_ms - mic_ms;
                t > speech[0].0 * 1000.0 + 1_000.0 && t < speech[0].1 * 1000.0
            })
            .map(|s| s.torso_off_deg)
            .collect();
        during.iter().sum::<f32>() / during.len() as f32
    };
    let turned = torso(&control) - torso(&heard_run);
    eprintln!(
        "torso off the camera: {:.1} deg while heard, control {:.1}: turned {turned:.1} deg",
        torso(&heard_run),
        torso(&control)
    );
    assert!(
        torso(&heard_run) < 15.0 && turned > 20.0,
        "torso turned {turned} deg"
    );

    // The example agent's reply is spoken by her, mouth moving.
    let started: Vec<&Value> = event(&heard_run, "line_started")
        .into_iter()
        .filter(|e| e["conversation"] == npc_player::ANSWER_CONVERSATION)
        .collect();
    assert!(
        !started.is_empty(),
        "no reply was spoken: {:?}",
        heard_run.events
    );
    assert_eq!(started[0]["npc"], "Elara");
    // Turn-taking: no reply starts while the person is speaking to her.
    let turns: Vec<(f64, f64)> = event(&heard_run, "person_started")
        .iter()
        .zip(event(&heard_run, "person_stopped"))
        .map(|(a, b)| (a["t_ms"].as_f64().unwrap(), b["t_ms"].as_f64().unwrap()))
        .collect();
    for reply in &started {
        let t = reply["t_ms"].as_f64().unwrap();
        assert!(
            turns.iter().all(|&(a, b)| t < a || t > b),
            "a reply started at {t} ms while the person spoke ({turns:?})"
        );
    }
    // The person spoke again over her first reply: it stopped within 200 ms of their onset
    // (as the detector placed it: how far that is from the labels is checked above).
    let second_onset = event(&heard_run, "person_started")[1]["start_ms"]
        .as_f64()
        .unwrap();
    let interrupted = event(&heard_run, "line_interrupted");
    assert!(
        !interrupted.is_empty(),
        "the second utterance did not stop her reply"
    );
    let stopped_after = interrupted[0]["t_ms"].as_f64().unwrap() - second_onset;
    eprintln!("barge-in: silent {stopped_after:.0} ms after the person's onset");
    assert!(stopped_after <= 200.0);
    let spoken: Value =
        serde_json::from_str(&fs::read_to_string(heard_run.agent.join("spoken.json")).unwrap())
            .unwrap();
    let entry = &spoken["conversations"][npc_player::ANSWER_CONVERSATION];
    assert_eq!(
        entry["interrupted"]["seq"], interrupted[0]["seq"],
        "{spoken}"
    );
    let jaw = heard_run
        .seen
        .iter()
        .filter(|s| s.answering)
        .map(|s| s.jaw)
        .fold(0.0f32, f32::max);
    assert!(jaw > 0.15, "her jaw opened {jaw} at most over the reply");
}

/// Turn-taking: while the person speaks to Elara, her reply waits, whole or streamed, even
/// when it is ready; Bram, not spoken to, speaks his meanwhile. When the person stops, hers
/// starts at once.
#[test]
fn replies_ready_while_the_person_speaks_wait_for_them_to_stop() {
    for streamed in [false, true] {
        reply_waits_for_the_person(streamed);
    }
}

fn reply_waits_for_the_person(streamed: bool) {
    let d = world_demo();
    // Two conversations: a reply of hers (text, or a stream complete before she may speak)
    // and a line of Bram's.
    let line = |who: &str, text: &str| {
        format!("{{\"seq\": 0, \"speaker_id\": \"{who}\", \"text\": \"{text}\"}}\n")
    };
    let hers = if streamed {
        fs::create_dir_all(d.agent.join("lines")).unwrap();
        let rate = 16_000;
        let mut wav = npc_core::speech::growing_wav::streaming_header(rate, 1);
        wav.extend(std::iter::repeat_n(0u8, rate as usize / 2));
        fs::write(d.agent.join("lines/s.wav"), &wav).unwrap();
        fs::write(d.agent.join("lines/s.wav.done"), b"").unwrap();
        "{\"seq\": 0, \"speaker_id\": \"Elara\", \"audio\": \"lines/s.wav\", \"stream\": true}\n"
            .to_owned()
    } else {
        line("Elara", "Well met.")
    };
    fs::write(d.agent.join("conversations/e.jsonl"), hers).unwrap();
    fs::write(
        d.agent.join("conversations/b.jsonl"),
        line("Bram", "Good day."),
    )
    .unwrap();
    fs::write(
        d.agent.join("active.json"),
        "{\"conversations\": [{\"file\": \"conversations/e.jsonl\"}, {\"file\": \
         \"conversations/b.jsonl\"}]}",
    )
    .unwrap();
    let world = {
        let mut meshes = MeshStoreBuilder::default();
        World::load(&d.project, &mut meshes).unwrap()
    };
    let mut conductor = Conductor::open(
        &world.project,
        &ConductorOptions {
            agent_dir: d.agent.clone(),
            events: None,
            gap_timeout: Duration::from_secs(3),
            synthesis_deadline: npc_player::SYNTHESIS_DEADLINE,
            wait_for_synthesis: true,
            sound: false,
            line_audio: None,
            disk: npc_core::disk::Disk::local(),
        },
    )
    .unwrap();
    let speaker = |cue: &npc_player::Cue| match cue {
        npc_player::Cue::Speak { npc, .. } | npc_player::Cue::SpeakStreamed { npc, .. } => {
            Some(npc.clone())
        }
        _ => None,
    };
    // The person speaks to Elara for 1.5 s.
    conductor.hold(Some("Elara"));
    let start = Instant::now();
    let mut started = Vec::new();
    while start.elapsed() < Duration::from_millis(1_500) {
        let mut cues = Vec::new();
        conductor.step(Instant::now(), &mut cues).unwrap();
        started.extend(cues.iter().filter_map(speaker));
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !started.iter().any(|n| n == "Elara"),
        "streamed {streamed}: Elara spoke over the person: {started:?}"
    );
    assert!(started.iter().any(|n| n == "Bram"), "{started:?}");
    // They stop: hers starts at the next step.
    conductor.hold(None);
    let mut cues = Vec::new();
    conductor.step(Instant::now(), &mut cues).unwrap();
    let hers: Vec<String> = cues.iter().filter_map(speaker).collect();
    assert_eq!(
        hers,
        ["Elara"],
        "streamed {streamed}: her reply started when the person stopped"
    );
}
