//! Takes read from what the tools write (bakes, records) and from glTF files' animations.

use std::collections::BTreeMap;

use glam::{Quat, Vec3};
use serde::Deserialize;

use super::{BodyTrack, OwnTrack, Take, TakeError, estimated_fps};
use crate::anim::timeline::Bake;
use crate::arkit::{ARKIT_TARGET_COUNT, ArkitTarget, CanonicalTarget};
use crate::asset::Asset;
use crate::asset::animation::Property;
use crate::body::{BodyBake, HumanoidBone, HumanoidPose};

/// The parts of `npc-player bake`'s JSON a take needs.
#[derive(Deserialize)]
struct BakeFile {
    fps: f64,
    targets: Vec<String>,
    times_ms: Vec<f64>,
    stages: BakeStages,
    body: Option<BakeBody>,
    own: Option<BakeOwn>,
}

#[derive(Deserialize)]
struct BakeOwn {
    targets: Vec<String>,
    weights: Vec<Vec<f32>>,
}

#[derive(Deserialize)]
struct BakeStages {
    #[serde(rename = "final")]
    last: Vec<Vec<f32>>,
}

#[derive(Deserialize)]
struct BakeBody {
    bones: Vec<String>,
    rotations: Vec<Vec<Vec<[f32; 4]>>>,
    #[serde(default)]
    hips_position: Vec<[f32; 3]>,
}

/// One line of a frame record.
#[derive(Deserialize)]
struct RecordLine {
    time_ms: f64,
    npc: String,
    line: Option<RecordLineAt>,
    weights: Vec<f32>,
    #[serde(default)]
    rotations: BTreeMap<String, [f32; 4]>,
    hips_position: Option<[f32; 3]>,
}

#[derive(Deserialize)]
struct RecordLineAt {
    seq: u64,
}

/// A JSON error at its place (`line` counted from `first_line`), without serde's own
/// "at line L column C" suffix.
fn json_error(e: &serde_json::Error, first_line: usize) -> TakeError {
    let message = e.to_string();
    let message = message
        .rsplit_once(" at line ")
        .map_or(message.as_str(), |(m, _)| m)
        .to_owned();
    TakeError::At {
        line: first_line + e.line().max(1) - 1,
        column: e.column().max(1),
        message,
    }
}

impl Take {
    /// The take a bake wrote: its final weights, and its body (the last layer) when baked
    /// with `--body`.
    pub fn from_bake_json(text: &str, name: &str) -> Result<Self, TakeError> {
        let bake: BakeFile = serde_json::from_str(text).map_err(|e| json_error(&e, 1))?;
        let order = bake
            .targets
            .iter()
            .map(|n| {
                ArkitTarget::from_name(n)
                    .ok_or_else(|| TakeError::Invalid(format!("unknown target {n:?} in targets")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let weights = bake
            .stages
            .last
            .iter()
            .enumerate()
            .map(|(i, row)| {
                if row.len() != order.len() {
                    return Err(TakeError::Invalid(format!(
                        "frame {i} of stages.final has {} weights for {} targets",
                        row.len(),
                        order.len()
                    )));
                }
                let mut w = [0.0; ARKIT_TARGET_COUNT];
                for (&t, &v) in order.iter().zip(row) {
                    w[t.index()] = v;
                }
                Ok(w)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let body = bake.body.map(body_of_bake).transpose()?;
        Take {
            name: name.to_owned(),
            fps: bake.fps,
            times_ms: bake.times_ms,
            weights,
            body,
            own: bake.own.map(|o| OwnTrack {
                targets: o.targets,
                weights: o.weights,
            }),
            head: None,
            gaps_ms: Vec::new(),
        }
        .checked()
    }

    /// The take of a face bake and, when given, a body baked at the same frame rate over the
    /// same line (as the studio bakes them): the final weights, the body's last layer.
    pub fn from_bakes(
        name: &str,
        face: &Bake,
        fps: f64,
        body: Option<&BodyBake>,
    ) -> Result<Self, TakeError> {
        let weights = face.frames.iter().map(|f| f.final_pose().0).collect();
        let body = body
            .map(|body| {
                let bones = body
                    .bones
                    .iter()
                    .filter_map(|n| HumanoidBone::from_name(n))
                    .collect::<Vec<_>>();
                let last_frame = body
                    .rotations
                    .len()
                    .checked_sub(1)
                    .ok_or(TakeError::Empty)?;
                let poses = (0..face.times_ms.len())
                    .map(|i| {
                        let f = i.min(last_frame);
                        last_layer_pose(&body.rotations[f], body.hips_position.get(f))
                    })
                    .collect();
                Ok(BodyTrack { bones, poses })
            })
            .transpose()?;
        Take {
            name: name.to_owned(),
            fps,
            times_ms: face.times_ms.clone(),
            weights,
            body,
            own: face.own.as_ref().map(|o| OwnTrack {
                targets: o.targets.clone(),
                weights: o.weights.clone(),
            }),
            head: None,
            gaps_ms: Vec::new(),
        }
        .checked()
    }

    /// The frames of NPC `npc` in a frame record (JSON Lines), from its first recorded frame
    /// (or, with `seq`, those in which it speaks line `seq` of its conversation).
    pub fn from_record(text: &str, npc: &str, seq: Option<u64>) -> Result<Self, TakeError> {
        let mut frames = Vec::new();
        let mut npcs = std::collections::BTreeSet::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let frame: RecordLine =
                serde_json::from_str(line).map_err(|e| json_error(&e, i + 1))?;
            if frame.npc != npc {
                npcs.insert(frame.npc);
                continue;
            }
            if seq.is_some_and(|s| frame.line.as_ref().is_none_or(|l| l.seq != s)) {
                continue;
            }
            if frame.weights.len() != ARKIT_TARGET_COUNT {
                return Err(TakeError::At {
                    line: i + 1,
                    column: 1,
                    message: format!("{} weights, not {ARKIT_TARGET_COUNT}", frame.weights.len()),
                });
            }
            frames.push(frame);
        }
        if frames.is_empty() {
            let npcs: Vec<String> = npcs.into_iter().collect();
            return Err(TakeError::Invalid(match seq {
                Some(s) => format!("NPC {npc} speaks no line {s} in the record"),
                None if npcs.is_empty() => format!("no frame of NPC {npc} in the record"),
                None => format!(
                    "no frame of NPC {npc} in the record (it has {})",
                    npcs.join(", ")
                ),
            }));
        }
        let start = frames[0].time_ms;
        let times_ms: Vec<f64> = frames.iter().map(|f| f.time_ms - start).collect();
        let weights = frames
            .iter()
            .map(|f| {
                let mut w = [0.0; ARKIT_TARGET_COUNT];
                w.copy_from_slice(&f.weights);
                w
            })
            .collect();
        let bones: Vec<HumanoidBone> = frames[0]
            .rotations
            .keys()
            .filter_map(|n| HumanoidBone::from_name(n))
            .collect();
        let body = (!bones.is_empty()).then(|| BodyTrack {
            poses: frames
                .iter()
                .map(|f| HumanoidPose {
                    rotations: bones
                        .iter()
                        .map(|b| {
                            f.rotations
                                .get(b.name())
                                .map_or(Quat::IDENTITY, |&q| quat(q))
                        })
                        .collect(),
                    hips_position: f.hips_position.map(Vec3::from),
                })
                .collect(),
            bones,
        });
        Take {
            name: match seq {
                Some(s) => format!("{npc} line {s}"),
                None => npc.to_owned(),
            },
            fps: estimated_fps(&times_ms),
            times_ms,
            weights,
            body,
            own: None,
            head: None,
            gaps_ms: Vec::new(),
        }
        .checked()
    }

    /// The face of clip `clip` of `asset`, sampled at `fps`: each frame's weights of the
    /// targets the asset's meshes name as ARKit targets (the first mesh animating a target
    /// gives it). `None` when the clip animates no ARKit target.
    #[must_use]
    pub fn from_gltf_clip(asset: &Asset, clip: usize, fps: f64) -> Option<Self> {
        let clip = asset.clips.get(clip)?;
        let mut targets = Vec::new();
        for channel in &clip.channels {
            if channel.property != Property::Weights {
                continue;
            }
            let Some(mesh) = asset.nodes.get(channel.node).and_then(|n| n.mesh) else {
                continue;
            };
            for (t, name) in asset.meshes.get(mesh)?.target_names.iter().enumerate() {
                if let Some(CanonicalTarget::Arkit(a)) = name.canonical
                    && !targets.iter().any(|&(b, _, _)| b == a)
                {
                    targets.push((a, channel.node, t));
                }
            }
        }
        if targets.is_empty() || !(fps > 0.0 && fps.is_finite()) {
            return None;
        }
        let count = (f64::from(clip.duration_s) * fps + 1e-6).floor() as usize + 1;
        let mut locals = asset.nodes.iter().map(|n| n.transform).collect::<Vec<_>>();
        let mut node_weights = vec![Vec::new(); asset.nodes.len()];
        let mut times_ms = Vec::with_capacity(count);
        let mut weights = Vec::with_capacity(count);
        for i in 0..count {
            let t_s = i as f64 / fps;
            clip.sample(t_s as f32, false, &mut locals, &mut node_weights);
            let mut w = [0.0; ARKIT_TARGET_COUNT];
            for &(a, node, t) in &targets {
                w[a.index()] = node_weights[node].get(t).copied().unwrap_or(0.0);
            }
            times_ms.push(t_s * 1000.0);
            weights.push(w);
        }
        Some(Take {
            name: clip.name.clone(),
            fps,
            times_ms,
            weights,
            body: None,
            own: None,
            head: None,
            gaps_ms: Vec::new(),
        })
    }
}

/// A bake's frame as a pose: the last layer's turns, and the hips.
fn last_layer_pose(layers: &[Vec<[f32; 4]>], hips: Option<&[f32; 3]>) -> HumanoidPose {
    HumanoidPose {
        rotations: layers
            .last()
            .map(|last| last.iter().map(|&q| quat(q)).collect())
            .unwrap_or_default(),
        hips_position: hips.map(|&p| Vec3::from(p)),
    }
}

fn quat(q: [f32; 4]) -> Quat {
    Quat::from_array(q).normalize()
}

fn body_of_bake(body: BakeBody) -> Result<BodyTrack, TakeError> {
    let bones = body
        .bones
        .iter()
        .map(|n| {
            HumanoidBone::from_name(n)
                .ok_or_else(|| TakeError::Invalid(format!("unknown bone {n:?} in body.bones")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let poses = body
        .rotations
        .into_iter()
        .enumerate()
        .map(|(i, layers)| last_layer_pose(&layers, body.hips_position.get(i)))
        .collect();
    Ok(BodyTrack { bones, poses })
}
