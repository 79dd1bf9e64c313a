//! Talking with them, end to end: real read speech (two LibriVox utterances, the second spoken
//! over her first reply) sent into the microphone's path at real-time pace, the player's world
//! and conductor live at 30 frames a second. The NPC in front of the camera is addressed: it turns its head to
//! the person, its brows flash within 300 ms of the first sound, `heard.jsonl` gets one line
//! per utterance at the speech's times (PocketSphinx's word alignment of the recordings, not
//! our detector, gives them), and the example agent's reply is spoken by that NPC. The same
//! run without the microphone is the control: nothing of that happens.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use common::{world_demo, write_lines};
use glam::Vec3;
use npc_core::ArkitTarget;
use npc_core::hearing::{FRAME, VOICE_RATE};
use npc_player::{
    Conductor, ConductorOptions, Live, MicChunk, MicFeed, MicMessage, MicSource, World,
};
use npc_render::{Camera, MeshStoreBuilder};
use serde_json::Value;

const FPS: u32 = 30;
/// Silence before the first utterance and after the second, s.
const PAUSE_S: f64 = 1.5;
/// How long after her reply begins the person speaks again, s.
const BARGE_IN_S: f64 = 0.6;
/// How long the run goes on after the person's last sound, s.
const AFTER_S: f64 = 6.0;
/// The longest the heard run may take, whatever happens, s.
const LONGEST_S: f64 = 60.0;

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

/// The person in front of the player: two utterances and where their words are, s.
struct Person {
    first: Vec<f32>,
    second: Vec<f32>,
    words: [(f64, f64); 2],
}

fn person(a: &Clip, b: &Clip) -> Person {
    let voice = |c: &Clip| npc_core::speech::resample(&c.samples, c.rate, VOICE_RATE).unwrap();
    Person {
        first: voice(a),
        second: voice(b),
        words: [a.speech, b.speech],
    }
}

impl Person {
    /// Speaks into `tx` from now: silence, the first utterance, silence until `replying` says
    /// her reply has begun and `BARGE_IN_S` more (so the second utterance is spoken over the
    /// reply however long the machine took to make it), the second, silence, the end; in 16 ms
    /// chunks at real-time pace, each timed as a microphone times its chunks. The thread
    /// returns where the speech was (first word to last), s from the first sample.
    fn speak(
        self,
        tx: mpsc::Sender<MicMessage>,
        replying: Arc<AtomicBool>,
    ) -> JoinHandle<Vec<(f64, f64)>> {
        thread::spawn(move || {
            let silence = vec![0.0f32; FRAME];
            let mut mic = Microphone::new(tx);
            mic.silence(&silence, PAUSE_S);
            let a_at = mic.seconds();
            mic.speak(&self.first);
            let gave_up = Instant::now() + Duration::from_secs_f64(LONGEST_S / 2.0);
            while !replying.load(Ordering::Relaxed) && Instant::now() < gave_up {
                mic.silence(&silence, 0.1);
            }
            mic.silence(&silence, BARGE_IN_S);
            let b_at = mic.seconds();
            mic.speak(&self.second);
            mic.silence(&silence, PAUSE_S);
            mic.end();
            let [a, b] = self.words;
            vec![(a_at + a.0, a_at + a.1), (b_at + b.0, b_at + b.1)]
        })
    }
}

/// A microphone's timing of sent sound: each chunk heard when its last sample would have been
/// spoken, counted from the first.
struct Microphone {
    tx: mpsc::Sender<MicMessage>,
    start: Instant,
    sent: usize,
}

impl Microphone {
    fn new(tx: mpsc::Sender<MicMessage>) -> Self {
        Self {
            tx,
            start: Instant::now(),
            sent: 0,
        }
    }

    /// Seconds sent so far.
    fn seconds(&self) -> f64 {
        self.sent as f64 / f64::from(VOICE_RATE)
    }

    fn speak(&mut self, samples: &[f32]) {
        for chunk in samples.chunks(FRAME) {
            self.sent += chunk.len();
            let heard_at = self.start + Duration::from_secs_f64(self.seconds());
            if let Some(wait) = heard_at.checked_duration_since(Instant::now()) {
                thread::sleep(wait);
            }
            // The run may be over: nobody listens any more.
            let _ = self.tx.send(MicMessage::Chunk(MicChunk {
                samples: chunk.to_vec(),
                heard_at,
            }));
        }
    }

    fn silence(&mut self, chunk: &[f32], seconds: f64) {
        let until = self.seconds() + seconds;
        while self.seconds() < until {
            self.speak(chunk);
        }
    }

    fn end(&self) {
        let _ = self.tx.send(MicMessage::Ended);
    }
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
    /// Where the person's speech was (first word to last), s from the microphone's start.
    speech: Vec<(f64, f64)>,
    events: Vec<Value>,
    heard: Vec<Value>,
    /// The agent directory (kept until the run is dropped).
    agent: PathBuf,
    _tmp: tempfile::TempDir,
}

/// Plays the world with the camera 2 m from Elara, 40 degrees to her side, looking at her:
/// with a person, until `AFTER_S` after they end, and the example agent answers them;
/// without, for `seconds`.
fn run(person: Option<Person>, seconds: f64) -> Run {
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
    let agent_done = Arc::new(AtomicBool::new(false));
    let replying = Arc::new(AtomicBool::new(false));
    let mut answerer = None;
    let mut speaker = None;
    if let Some(person) = person {
        let (tx, feed) = MicFeed::new();
        live = live.hear_from(MicSource::Feed(feed), &d.agent).unwrap();
        speaker = Some((person, tx));
        let dir = d.agent.clone();
        let done = Arc::clone(&agent_done);
        answerer = Some(thread::spawn(move || {
            let script = npc_player::load_script(None).unwrap();
            let done = || done.load(Ordering::Relaxed);
            if let Err(e) =
                npc_player::run_answerer(&dir, &script, &done, npc_player::Naming::Answerer)
            {
                eprintln!("the example agent stopped: {e:#}");
            }
        }));
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
    // The person starts speaking with the run's clock.
    let speaking = speaker.map(|(person, tx)| person.speak(tx, Arc::clone(&replying)));
    let mut seen = Vec::new();
    let longest = if speaking.is_some() {
        LONGEST_S
    } else {
        seconds
    };
    let mut end = start + Duration::from_secs_f64(longest);
    let mut frame = 0u32;
    loop {
        frame += 1;
        let due = start + Duration::from_secs_f64(f64::from(frame) / f64::from(FPS));
        if due >= end {
            break;
        }
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            thread::sleep(wait);
        }
        if speaking.as_ref().is_some_and(JoinHandle::is_finished) {
            end = end.min(due + Duration::from_secs_f64(AFTER_S));
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
        if seen.last().is_some_and(|s| s.answering) {
            replying.store(true, Ordering::Relaxed);
        }
    }
    drop(live);
    agent_done.store(true, Ordering::Relaxed);
    if let Some(answerer) = answerer {
        answerer.join().unwrap();
    }
    let speech = speaking.map(|s| s.join().unwrap()).unwrap_or_default();
    let read = |p: &Path| -> Vec<Value> {
        fs::read_to_string(p)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    Run {
        seen,
        speech,
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
    let a = clip(&dir, "sense_and_sensibility_01_austen_64kb-0880");
    let b = clip(&dir, "sense_and_sensibility_01_austen_64kb-0930");
    let heard_run = run(Some(person(&a, &b)), 0.0);
    let speech = heard_run.speech.clone();
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
        thread::sleep(Duration::from_millis(20));
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
