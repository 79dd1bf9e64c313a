//! `--record FILE`: the live world frame by frame as JSON Lines, one object per NPC per frame,
//! with the numbers that were drawn (docs/record.md). Recording proves that the player plays
//! what `bake` and the studio show: the weights are the face animator's final pose, the same
//! stage `bake` writes as `"final"`.
//!
//! The frame's numbers are copied out on the frame's thread (a few kilobytes) and turned into
//! JSON by a writer thread of its own, buffered, so recording costs the frame little. The
//! queue between them is bounded: a slow disk slows the frames rather than losing lines.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;

use anyhow::{Context, anyhow};
use npc_core::body::HumanoidBone;
use serde::Serialize;
use serde::ser::SerializeMap;

use crate::world::World;

/// Frames that may wait for the writer before a frame waits.
const QUEUE_FRAMES: usize = 256;

/// One NPC in one frame, as a record line.
#[derive(Debug, Serialize)]
struct NpcFrame {
    frame: u64,
    time_ms: f64,
    npc: String,
    seed: u64,
    /// The NPC's root on the ground, metres.
    position: [f32; 3],
    speaking: bool,
    /// The person in front of the player is speaking to it (absent when not).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    listening: bool,
    /// It shows that it is thinking (absent when not).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    thinking: bool,
    line: Option<LineAt>,
    /// The final pose, in the order of `bake`'s `"targets"`.
    weights: Vec<f32>,
    joints: Joints,
    /// Each humanoid bone's avatar-space turn from rest, as `bake --body` writes them.
    rotations: Rotations,
    /// The hips in the avatar's space, metres.
    #[serde(skip_serializing_if = "Option::is_none")]
    hips_position: Option<[f32; 3]>,
    /// The avatar's own shapes, in the order of `bake --npc`'s `own.targets`.
    #[serde(skip_serializing_if = "Option::is_none")]
    own: Option<Vec<f32>>,
}

/// The line an NPC speaks and where its audio is.
#[derive(Debug, Serialize)]
struct LineAt {
    conversation: String,
    seq: u64,
    audio_ms: f64,
}

/// World positions of the humanoid bones, as `{"hips": [x, y, z], ...}`.
#[derive(Debug)]
struct Joints(Vec<(HumanoidBone, [f32; 3])>);

impl Serialize for Joints {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (bone, p) in &self.0 {
            map.serialize_entry(bone.name(), p)?;
        }
        map.end()
    }
}

/// Turns of the humanoid bones, as `{"hips": [x, y, z, w], ...}`.
#[derive(Debug)]
struct Rotations(Vec<(HumanoidBone, [f32; 4])>);

impl Serialize for Rotations {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (bone, q) in &self.0 {
            map.serialize_entry(bone.name(), q)?;
        }
        map.end()
    }
}

/// Writes a record file.
#[derive(Debug)]
pub struct Recorder {
    path: PathBuf,
    frames: Option<mpsc::SyncSender<Vec<NpcFrame>>>,
    writer: Option<thread::JoinHandle<std::io::Result<u64>>>,
    frame: u64,
}

impl Recorder {
    /// Creates (or empties) the record file at `path`.
    pub fn create(path: &Path) -> anyhow::Result<Self> {
        let file = File::create(path)
            .with_context(|| format!("cannot create the record file {}", path.display()))?;
        let (tx, rx) = mpsc::sync_channel::<Vec<NpcFrame>>(QUEUE_FRAMES);
        let writer = thread::Builder::new()
            .name("npc-record".to_owned())
            .spawn(move || {
                let mut out = BufWriter::new(file);
                let mut lines = 0;
                for frame in rx {
                    for npc in &frame {
                        serde_json::to_writer(&mut out, npc)?;
                        out.write_all(b"\n")?;
                        lines += 1;
                    }
                }
                out.flush()?;
                Ok(lines)
            })
            .context("cannot start the record writer")?;
        Ok(Self {
            path: path.to_owned(),
            frames: Some(tx),
            writer: Some(writer),
            frame: 0,
        })
    }

    /// Records the world as it is now, `time_ms` into the run.
    pub fn record(&mut self, world: &World, time_ms: f64) -> anyhow::Result<()> {
        let frame = frame_of(world, self.frame, time_ms);
        self.frame += 1;
        let sent = self.frames.as_ref().is_some_and(|f| f.send(frame).is_ok());
        if sent {
            Ok(())
        } else {
            // The writer stopped: its error says why.
            Err(self
                .finish()
                .err()
                .unwrap_or_else(|| anyhow!("the record writer of {} stopped", self.path.display())))
        }
    }

    /// Writes out what is queued and closes the file; returns the lines written.
    pub fn finish(&mut self) -> anyhow::Result<u64> {
        self.frames = None;
        let Some(writer) = self.writer.take() else {
            return Ok(0);
        };
        let written = writer
            .join()
            .map_err(|_| anyhow!("the record writer of {} panicked", self.path.display()))?;
        written.with_context(|| format!("cannot write the record file {}", self.path.display()))
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        if let Err(e) = self.finish() {
            tracing::warn!("{e:#}");
        }
    }
}

/// Every NPC of the world in frame `frame`.
fn frame_of(world: &World, frame: u64, time_ms: f64) -> Vec<NpcFrame> {
    world
        .npcs
        .iter()
        .map(|npc| {
            let avatar = &world.content.avatars[npc.avatar];
            let model = npc.model();
            let joints = avatar
                .humanoid
                .bones()
                .iter()
                .filter_map(|&(bone, joint)| {
                    let local = npc
                        .node_world
                        .get(joint)?
                        .transform_point3(glam::Vec3::ZERO);
                    Some((bone, model.transform_point3(local).to_array()))
                })
                .collect();
            let reader = &avatar.pose_reader;
            let rotations = reader
                .bones()
                .iter()
                .map(|&(bone, _)| bone)
                .zip(reader.rotations(&avatar.skeleton, &npc.body.locals))
                .collect();
            NpcFrame {
                frame,
                time_ms,
                npc: npc.id.clone(),
                seed: npc.seed,
                position: npc.position.to_array(),
                speaking: npc.speaking(),
                listening: npc.listens_to_person(),
                thinking: npc.face.thinking(),
                line: npc.line.as_ref().map(|l| LineAt {
                    conversation: l.conversation.clone(),
                    seq: l.seq,
                    audio_ms: npc.audio_ms,
                }),
                weights: npc.face.frame().final_pose().0.to_vec(),
                joints: Joints(joints),
                rotations: Rotations(rotations),
                hips_position: reader
                    .hips_position(&avatar.skeleton, &npc.body.locals)
                    .map(|p| p.to_array()),
                own: npc.face.own().map(|o| o.weights().to_vec()),
            }
        })
        .collect()
}
