//! A take written into an avatar's GLB as one more animation clip: morph weights on every
//! mesh the face rig drives (through the same [`crate::asset::FaceRig::apply`] the player
//! draws with) and, when the take has a body, the humanoid joints' rotations and the hips'
//! translation. Everything already in the file (meshes, skins, materials, textures, clips,
//! extensions) is kept byte for byte; the new data is appended to its binary chunk.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{Take, TakeError};
use crate::anim::pose::Pose;
use crate::asset::glb::{join_glb, split_glb};
use crate::asset::{Asset, FaceRig};
use crate::body::{HumanoidBone, HumanoidMap, HumanoidPose, Skeleton, joint_locals};

const FLOAT: u32 = 5126;

/// The GLB `glb` with `take` added as a clip named after it. `bones` places humanoid bones
/// by joint name where the rig's names do not (as a project's `avatar.bones` does). The body
/// plays exactly on the avatar the take was made with; on another rig its bones turn as far
/// from their rest as the take's did.
pub fn glb_with_take(
    glb: &[u8],
    take: &Take,
    bones: &BTreeMap<String, String>,
) -> Result<Vec<u8>, TakeError> {
    let avatar = |m: String| TakeError::Avatar(m);
    if glb.get(..4) != Some(b"glTF") {
        return Err(avatar(
            "not a GLB file (a .gltf can be packed into one with gltf-pipeline or Blender)"
                .to_owned(),
        ));
    }
    let asset = Asset::from_bytes(glb, None).map_err(|e| avatar(e.to_string()))?;
    let (json_chunk, bin_chunk) = split_glb(glb).map_err(|e| avatar(e.to_string()))?;
    let mut doc: Value =
        serde_json::from_slice(json_chunk).map_err(|e| avatar(format!("its JSON: {e}")))?;
    let mut out = Appender {
        bin: bin_chunk.unwrap_or_default().to_vec(),
        views: Vec::new(),
        accessors: Vec::new(),
        first_view: array_len(&doc, "bufferViews"),
        first_accessor: array_len(&doc, "accessors"),
    };
    if doc["buffers"]
        .get(0)
        .is_some_and(|b| b.get("uri").is_some())
    {
        return Err(avatar(
            "its first buffer is a separate file, not the GLB's binary chunk".to_owned(),
        ));
    }

    let times: Vec<f32> = take.times_ms.iter().map(|&t| (t / 1000.0) as f32).collect();
    if let Some(i) = times.windows(2).position(|w| w[1] <= w[0]) {
        return Err(TakeError::Invalid(format!(
            "frames {i} and {} fall on the same time in seconds",
            i + 1
        )));
    }
    let input = out.floats(&times, "SCALAR", true);
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    let mut add = |output: usize, node: usize, path: &str| {
        samplers.push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
        channels
            .push(json!({"sampler": samplers.len() - 1, "target": {"node": node, "path": path}}));
    };

    // The face: every mesh the rig drives, and those with the take's own shapes, as the
    // player writes weights.
    let own_refs = take.own.as_ref().map_or_else(Vec::new, |o| {
        crate::asset::face_rig::own_refs(&asset.meshes, &o.targets)
    });
    let driven: Vec<usize> = (0..asset.meshes.len())
        .filter(|&m| {
            crate::ArkitTarget::ALL
                .iter()
                .any(|&t| asset.face_rig.arkit(t).iter().any(|r| r.mesh == m))
                || own_refs.iter().flatten().any(|r| r.mesh == m)
        })
        .collect();
    let mut mesh_output = BTreeMap::new();
    for &m in &driven {
        let mesh = &asset.meshes[m];
        let count = mesh.target_count();
        let mut values = Vec::with_capacity(count * take.weights.len());
        let mut weights: Vec<Vec<f32>> = vec![Vec::new(); asset.meshes.len()];
        for (i, frame) in take.weights.iter().enumerate() {
            let mut rest = mesh.default_weights.clone();
            rest.resize(count, 0.0);
            weights[m] = rest;
            asset.face_rig.apply(&Pose(*frame), &mut weights);
            if let Some(own) = take.own.as_ref().and_then(|o| o.weights.get(i)) {
                FaceRig::apply_own(&own_refs, own, &mut weights);
            }
            values.extend_from_slice(&weights[m]);
        }
        mesh_output.insert(m, out.floats(&values, "SCALAR", false));
    }
    for (node, n) in asset.nodes.iter().enumerate() {
        if let Some(&output) = n.mesh.and_then(|m| mesh_output.get(&m)) {
            add(output, node, "weights");
        }
    }

    // The body: joint rotations (and the hips' translation) that put the rig in each pose.
    let mut body_bones = 0;
    if let Some(body) = &take.body {
        let skeleton = Skeleton::of(&asset);
        let map = HumanoidMap::with_overrides(&skeleton, bones);
        let here: Vec<(usize, (HumanoidBone, usize))> = body
            .bones
            .iter()
            .enumerate()
            .filter_map(|(i, &b)| Some((i, (b, map.joint(b)?))))
            .collect();
        let rig_bones: Vec<(HumanoidBone, usize)> = here.iter().map(|&(_, b)| b).collect();
        let frames: Vec<Vec<crate::asset::Transform>> = body
            .poses
            .iter()
            .map(|pose| {
                let on_rig = HumanoidPose {
                    rotations: here.iter().map(|&(i, _)| pose.rotations[i]).collect(),
                    hips_position: pose.hips_position,
                };
                joint_locals(&skeleton, &rig_bones, &on_rig)
            })
            .collect();
        // A VRM 0.x avatar was turned to face +Z at load; a joint at the scene's root is
        // written back as the file has it (half a turn is its own inverse).
        let unturn = |joint: usize| {
            if asset.turned_to_face_forward && asset.roots.contains(&joint) {
                crate::asset::vrm::HALF_TURN
            } else {
                glam::Quat::IDENTITY
            }
        };
        for &(bone, joint) in &rig_bones {
            let values: Vec<f32> = frames
                .iter()
                .flat_map(|l| (unturn(joint) * l[joint].rotation).to_array())
                .collect();
            add(out.floats(&values, "VEC4", false), joint, "rotation");
            if bone == HumanoidBone::Hips && body.poses.iter().all(|p| p.hips_position.is_some()) {
                let values: Vec<f32> = frames
                    .iter()
                    .flat_map(|l| (unturn(joint) * l[joint].translation).to_array())
                    .collect();
                add(out.floats(&values, "VEC3", false), joint, "translation");
            }
        }
        body_bones = rig_bones.len();
    }
    if channels.is_empty() {
        return Err(avatar(format!(
            "nothing in it to animate: no mesh carries ARKit targets or the take's own shapes{}",
            if take.body.is_some() && body_bones == 0 {
                " and no humanoid bone is found"
            } else if take.body.is_none() {
                " and the take has no body"
            } else {
                ""
            }
        )));
    }

    push_all(&mut doc, "bufferViews", out.views);
    push_all(&mut doc, "accessors", out.accessors);
    push_all(
        &mut doc,
        "animations",
        vec![json!({"name": take.name, "samplers": samplers, "channels": channels})],
    );
    if doc["buffers"].as_array().is_none_or(Vec::is_empty) {
        doc["buffers"] = json!([{}]);
    }
    doc["buffers"][0]["byteLength"] = json!(out.bin.len());
    let json = serde_json::to_vec(&doc).map_err(|e| avatar(e.to_string()))?;
    Ok(join_glb(&json, &out.bin))
}

fn array_len(doc: &Value, key: &str) -> usize {
    doc[key].as_array().map_or(0, Vec::len)
}

fn push_all(doc: &mut Value, key: &str, items: Vec<Value>) {
    if !doc[key].is_array() {
        doc[key] = json!([]);
    }
    if let Some(array) = doc[key].as_array_mut() {
        array.extend(items);
    }
}

/// New buffer views and accessors on the end of a file's binary chunk.
struct Appender {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
    first_view: usize,
    first_accessor: usize,
}

impl Appender {
    /// Floats as a new accessor of `kind`; `bounds` writes min and max (animation inputs
    /// need them). Returns the accessor's index in the file.
    fn floats(&mut self, data: &[f32], kind: &str, bounds: bool) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let width = match kind {
            "VEC3" => 3,
            "VEC4" => 4,
            _ => 1,
        };
        self.views
            .push(json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": data.len() * 4}));
        self.bin.extend(data.iter().flat_map(|v| v.to_le_bytes()));
        let mut accessor = json!({
            "bufferView": self.first_view + self.views.len() - 1,
            "componentType": FLOAT,
            "count": data.len() / width,
            "type": kind,
        });
        if bounds {
            let min = data.iter().copied().fold(f32::INFINITY, f32::min);
            let max = data.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            accessor["min"] = json!([min]);
            accessor["max"] = json!([max]);
        }
        self.accessors.push(accessor);
        self.first_accessor + self.accessors.len() - 1
    }
}
