//! Idle life on every skeleton family: the project's own body (Mixamo names, its own clips), a
//! Quaternius character (Unreal names, no clips: it plays the built-in body's, retargeted) and
//! a VALID character (Mixamo names without the prefix, centimetres under a 0.01 scale, set to
//! stand without clips: posture and idle life alone), standing for a minute in the world and
//! read back from the frame record (`--record`'s format) as a user would read it. And a walk
//! on the VALID rig in centimetres.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use glam::Vec3;
use npc_core::asset::Asset;
use npc_core::body::BodySettings;
use npc_core::body::humanoid::CORE_BONES;
use npc_core::project::{Project, demo_project};
use npc_player::{Live, Recorder, World};
use npc_render::MeshStoreBuilder;

/// The NPCs of the test world and the avatar each stands in (relative to ../shared/assets,
/// or the project's own).
const FAMILIES: [(&str, Option<&str>); 3] = [
    ("Elara", None),
    ("Bram", Some("avatars/Quaternius_Superhero_Male.glb")),
    ("Mira", Some("avatars/VALID_White_M_1_Casual.glb")),
];

/// The NPC set to stand without clips (posture and idle life alone).
const STANDS_WITHOUT_CLIPS: &str = "Mira";

/// One NPC's recorded frame: its root and its joints by VRM name.
#[derive(Debug, Clone)]
struct Frame {
    position: Vec3,
    joints: HashMap<String, Vec3>,
}

impl Frame {
    fn joint(&self, name: &str) -> Vec3 {
        *self
            .joints
            .get(name)
            .unwrap_or_else(|| panic!("no joint {name} in the record"))
    }
}

/// A world of the three families; `None` when a shared avatar is missing (outside CI).
struct Families {
    _tmp: tempfile::TempDir,
    project: PathBuf,
    /// Each NPC's body file.
    bodies: Vec<(String, PathBuf)>,
}

fn families() -> Option<Families> {
    let tmp = tempfile::tempdir().unwrap();
    npc_core::procedural::generate::generate(&tmp.path().join("assets")).unwrap();
    let mut project = demo_project();
    let mut bodies = Vec::new();
    for (npc, (id, avatar)) in project.npcs.iter_mut().zip(FAMILIES) {
        assert_eq!(npc.id, id);
        if id == STANDS_WITHOUT_CLIPS {
            npc.body = Some(BodySettings {
                built_in_clips: false,
                ..BodySettings::default()
            });
        }
        if let Some(relative) = avatar {
            npc.avatar.body = common::shared_asset(relative)?;
        }
        bodies.push((
            id.to_owned(),
            Project::resolve(&tmp.path().join("p.ron"), &npc.avatar.body),
        ));
    }
    let file = tmp.path().join("p.ron");
    project.save(&file).unwrap();
    Some(Families {
        _tmp: tmp,
        project: file,
        bodies,
    })
}

/// Runs the world for `seconds` at `fps` (no agents: everyone idles) with the record on and
/// returns the record's bytes.
fn run(project: &Path, seconds: u32, fps: u32, record: &Path) -> Vec<u8> {
    let mut meshes = MeshStoreBuilder::default();
    let world = World::load(project, &mut meshes).unwrap();
    let mut live = Live::new(world, None).recording(Some(Recorder::create(record).unwrap()));
    let start = Instant::now();
    for frame in 0..seconds * fps {
        let now = start + Duration::from_secs_f64(f64::from(frame + 1) / f64::from(fps));
        let camera = live.world.overview_camera().position;
        live.step(now, 1.0 / fps as f32, camera).unwrap();
    }
    live.finish().unwrap();
    std::fs::read(record).unwrap()
}

/// The record's frames by NPC.
fn frames(bytes: &[u8]) -> HashMap<String, Vec<Frame>> {
    let mut by_npc: HashMap<String, Vec<Frame>> = HashMap::new();
    let v3 = |v: &serde_json::Value| {
        let a: Vec<f32> = serde_json::from_value(v.clone()).unwrap();
        Vec3::new(a[0], a[1], a[2])
    };
    for line in std::str::from_utf8(bytes).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let joints = v["joints"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, p)| (k.clone(), v3(p)))
            .collect();
        by_npc
            .entry(v["npc"].as_str().unwrap().to_owned())
            .or_default()
            .push(Frame {
                position: v3(&v["position"]),
                joints,
            });
    }
    by_npc
}

/// How tall the avatar stands at rest (what is drawn, metres).
fn height_of(body: &Path) -> f32 {
    Asset::load(body).unwrap().rest_height().unwrap()
}

/// Distance from `p` to the segment `a`-`b`.
fn to_segment(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_squared().max(1e-9)).clamp(0.0, 1.0);
    p.distance(a + ab * t)
}

/// The character's front (level, unit) from where its feet point.
fn front(f: &Frame) -> Vec3 {
    let d = f.joint("leftToes") - f.joint("leftFoot") + f.joint("rightToes") - f.joint("rightFoot");
    Vec3::new(d.x, 0.0, d.z).normalize()
}

/// How strongly `signal` (sampled at `fps`) moves at `hz`: the amplitude of that frequency
/// under a Hann window (which keeps neighbouring rhythms, such as a clip's own breathing, from
/// leaking in).
fn amplitude_at(signal: &[f32], fps: f32, hz: f32) -> f32 {
    let n = signal.len() as f32;
    let mean = signal.iter().sum::<f32>() / n;
    let (mut re, mut im) = (0.0_f64, 0.0_f64);
    for (i, v) in signal.iter().enumerate() {
        let window = 0.5 - 0.5 * (std::f32::consts::TAU * i as f32 / (n - 1.0)).cos();
        let phase = f64::from(std::f32::consts::TAU * hz * i as f32 / fps);
        let x = f64::from((v - mean) * window);
        re += x * phase.cos();
        im += x * phase.sin();
    }
    (re.hypot(im) / f64::from(n)) as f32
}

#[test]
fn every_family_stands_breathes_and_shifts_its_weight_for_a_minute() {
    let Some(f) = families() else { return };
    let record = f._tmp.path().join("idle.jsonl");
    let fps = 30;
    // Off the built-in clip's own breath (every 4 s), so the two can be told apart.
    let breaths_per_min = 12.0;
    let mut project = Project::load(&f.project).unwrap();
    project.body.breathing.rate_per_min = breaths_per_min;
    for npc in &mut project.npcs {
        if let Some(body) = &mut npc.body {
            body.breathing.rate_per_min = breaths_per_min;
        }
    }
    project.save(&f.project).unwrap();
    let by_npc = frames(&run(&f.project, 60, fps, &record));
    for (id, body) in &f.bodies {
        let height = height_of(body);
        let frames = &by_npc[id];
        assert_eq!(frames.len(), 60 * fps as usize, "{id}");
        // Every core bone is mapped (the record names what the map found).
        for bone in CORE_BONES {
            assert!(
                frames[0].joints.contains_key(bone.name()),
                "{id}: {} not mapped",
                bone.name()
            );
        }
        let first = &frames[0];
        let hip_width = first
            .joint("leftUpperLeg")
            .distance(first.joint("rightUpperLeg"));
        let (mut lateral_min, mut lateral_max) = (f32::INFINITY, f32::NEG_INFINITY);
        let mut slide: f32 = 0.0;
        let mut lift: f32 = 0.0;
        let mut chest = Vec::new();
        let (mut worst_knee, mut worst_elbow) = (f32::INFINITY, f32::NEG_INFINITY);
        for (n, frame) in frames.iter().enumerate() {
            let j = |name: &str| frame.joint(name);
            // The body's own frame this frame (it may turn toward what it attends to).
            let front = front(frame);
            let left = Vec3::Y.cross(front);
            let own = |p: Vec3| Vec3::new(p.dot(left), p.y, p.dot(front));
            // No T-pose: both hands well below the shoulders.
            for side in ["left", "right"] {
                let hand = j(&format!("{side}Hand"));
                let shoulder = j(&format!("{side}UpperArm"));
                assert!(
                    shoulder.y - hand.y >= 0.2 * height,
                    "{id} frame {n}: {side} hand {:.3} m below the shoulder (height {:.2} m)",
                    shoulder.y - hand.y,
                    height
                );
                // Hands outside the torso.
                let clear = to_segment(hand, j("hips"), j("neck"));
                assert!(
                    clear > 0.6 * hip_width,
                    "{id} frame {n}: {side} hand {clear:.3} m from the torso's axis"
                );
                // Knees bend forward, elbows backward (the forearm ahead of the upper arm).
                let bend = |a: Vec3, b: Vec3, c: Vec3| {
                    let line = (c - a).normalize();
                    (b - a - line * (b - a).dot(line)).dot(front)
                };
                let knee = bend(
                    j(&format!("{side}UpperLeg")),
                    j(&format!("{side}LowerLeg")),
                    j(&format!("{side}Foot")),
                );
                // Within a centimetre: a nearly straight joint has no clear side.
                assert!(
                    knee > -0.01,
                    "{id} frame {n}: {side} knee bends back {knee:.3}"
                );
                let elbow = bend(shoulder, j(&format!("{side}LowerArm")), hand);
                assert!(
                    elbow < 0.01,
                    "{id} frame {n}: {side} elbow bends forward {elbow:.3}"
                );
                worst_knee = worst_knee.min(knee);
                worst_elbow = worst_elbow.max(elbow);
                // Feet planted: no sliding, no lifting.
                let ankle = own(j(&format!("{side}Foot")) - frame.position);
                let first_front = self::front(first);
                let ankle0 = {
                    let p = first.joint(&format!("{side}Foot")) - first.position;
                    let l = Vec3::Y.cross(first_front);
                    Vec3::new(p.dot(l), p.y, p.dot(first_front))
                };
                slide = slide.max(Vec3::new(ankle.x - ankle0.x, 0.0, ankle.z - ankle0.z).length());
                lift = lift.max((ankle.y - ankle0.y).abs());
            }
            let lateral = (j("hips") - frame.position).dot(left);
            lateral_min = lateral_min.min(lateral);
            lateral_max = lateral_max.max(lateral);
            chest.push(j("chest").y - j("spine").y);
        }
        eprintln!(
            "{id}: slide {slide:.4} m, lift {lift:.4} m, hips moved {:.3} m sideways; \
             knees bend forward by at least {worst_knee:.3} m, elbows back by {:.3} m",
            lateral_max - lateral_min,
            -worst_elbow
        );
        assert!(slide < 0.02, "{id}: a foot slid {slide:.3} m");
        assert!(lift < 0.03, "{id}: a foot rose {lift:.3} m");
        assert!(
            lateral_max - lateral_min >= 0.03,
            "{id}: the hips moved only {:.3} m sideways in a minute",
            lateral_max - lateral_min
        );
        // The chest rises at the set breathing rate: more at that rate than 10% off it.
        let hz = breaths_per_min / 60.0;
        let [at, slower, faster] =
            [1.0, 0.9, 1.1].map(|k| amplitude_at(&chest, fps as f32, hz * k));
        eprintln!(
            "{id}: chest rises {:.2} mm at {breaths_per_min} breaths a minute, {:.2} / {:.2} mm 10% slower / faster",
            at * 1000.0,
            slower * 1000.0,
            faster * 1000.0
        );
        assert!(
            at > 2.0 * slower.max(faster),
            "{id}: the chest does not rise at {breaths_per_min} breaths a minute"
        );
    }
}

#[test]
fn the_same_seed_gives_the_same_bytes_and_frame_rates_agree() {
    let Some(f) = families() else { return };
    let dir = f._tmp.path();
    let a = run(&f.project, 4, 30, &dir.join("a.jsonl"));
    let b = run(&f.project, 4, 30, &dir.join("b.jsonl"));
    assert!(a == b, "two runs of the same seed wrote different records");
    let seconds = 12;
    let runs: Vec<(u32, HashMap<String, Vec<Frame>>)> = [30, 60, 144]
        .into_iter()
        .map(|fps| {
            let bytes = run(&f.project, seconds, fps, &dir.join(format!("{fps}.jsonl")));
            (fps, frames(&bytes))
        })
        .collect();
    let (base_fps, base) = &runs[0];
    for (fps, other) in &runs[1..] {
        for (id, _) in &f.bodies {
            let mut worst: (f32, &str, u32) = (0.0, "", 0);
            for second in 1..=seconds {
                let a = &base[id][(second * base_fps - 1) as usize];
                let b = &other[id][(second * fps - 1) as usize];
                for (name, p) in &a.joints {
                    let d = p.distance(b.joint(name));
                    if d > worst.0 {
                        worst = (d, name, second);
                    }
                }
            }
            eprintln!(
                "{id}: {base_fps} vs {fps} fps: largest difference {:.4} m ({} at {} s)",
                worst.0, worst.1, worst.2
            );
            assert!(
                worst.0 < 0.005,
                "{id}: {base_fps} and {fps} fps differ by {:.3} m at {} ({} s)",
                worst.0,
                worst.1,
                worst.2
            );
        }
    }
}

#[test]
fn a_rig_in_centimetres_walks_with_its_feet_in_alternation() {
    let Some(f) = families() else { return };
    let mut project = Project::load(&f.project).unwrap();
    // Mira (VALID, centimetres) plays the built-in walk, retargeted.
    project.npcs[2].body = None;
    project.save(&f.project).unwrap();
    let mut meshes = MeshStoreBuilder::default();
    let world = World::load(&f.project, &mut meshes).unwrap();
    let record = f._tmp.path().join("walk.jsonl");
    let mut live = Live::new(world, None).recording(Some(Recorder::create(&record).unwrap()));
    let mira = live.world.npc_index("Mira").unwrap();
    let start_at = live.world.npcs[mira].position;
    let heading = live.world.npcs[mira].heading;
    let ahead = Vec3::new(heading.sin(), 0.0, heading.cos());
    live.world.npcs[mira].goal = start_at + ahead * 4.0;
    let fps = 30;
    let start = Instant::now();
    for frame in 0..3 * fps {
        let now = start + Duration::from_secs_f64(f64::from(frame + 1) / f64::from(fps));
        let camera = live.world.overview_camera().position;
        live.step(now, 1.0 / fps as f32, camera).unwrap();
    }
    live.finish().unwrap();
    let frames = &frames(&std::fs::read(&record).unwrap())["Mira"];
    let walked = frames.last().unwrap().position.distance(start_at);
    assert!(walked > 2.0, "walked only {walked:.2} m in 3 s");
    let hips_at_rest = frames[0].joint("hips").y - frames[0].position.y;
    // Which foot is ahead, frame by frame (after the first half second of turning).
    let mut leads = Vec::new();
    for frame in &frames[(fps / 2) as usize..] {
        let hips = frame.joint("hips").y - frame.position.y;
        assert!(
            (hips - hips_at_rest).abs() < 0.15 * hips_at_rest,
            "the hips at {hips:.2} m while walking, {hips_at_rest:.2} m standing"
        );
        let front = (frame.joint("hips") - frames[0].joint("hips")).normalize_or_zero();
        leads.push((frame.joint("leftFoot") - frame.joint("rightFoot")).dot(front) > 0.0);
    }
    let changes = leads.windows(2).filter(|w| w[0] != w[1]).count();
    eprintln!("Mira walked {walked:.2} m; the leading foot changed {changes} times");
    assert!(
        changes >= 3,
        "the leading foot changed {changes} times in 2.5 s"
    );
}
