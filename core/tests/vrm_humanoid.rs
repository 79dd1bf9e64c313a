//! A VRM file's own humanoid table places the bones, whatever its joints are called: a real
//! Quaternius avatar with every node renamed to a number finds no bone by name, and with the
//! VRM 1.0 (`VRMC_vrm`) or VRM 0.x (`VRM`) table added finds every bone it had.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use npc_core::asset::Asset;
use npc_core::body::{HumanoidBone, HumanoidMap, Skeleton};
use serde_json::{Value, json};

fn avatar() -> Option<Vec<u8>> {
    let path = common::shared_asset("avatars/Quaternius_Superhero_Female.glb")?;
    Some(std::fs::read(path).unwrap())
}

/// The GLB's JSON and binary chunk.
fn split(glb: &[u8]) -> (Value, Vec<u8>) {
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let bin_at = 20 + json_len;
    let bin_len = u32::from_le_bytes(glb[bin_at..bin_at + 4].try_into().unwrap()) as usize;
    (json, glb[bin_at + 8..bin_at + 8 + bin_len].to_vec())
}

/// A GLB of `json` and `bin`.
fn join(json: &Value, bin: &[u8]) -> Vec<u8> {
    let mut text = serde_json::to_vec(json).unwrap();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let mut bin = bin.to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + text.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    out
}

fn map_of(glb: &[u8]) -> HumanoidMap {
    HumanoidMap::of(&Skeleton::of(&Asset::from_bytes(glb, None).unwrap()))
}

#[test]
fn a_vrm_table_places_the_bones_of_a_rig_whose_names_say_nothing() {
    let Some(glb) = avatar() else { return };
    let named = map_of(&glb);
    assert!(named.bones().len() >= 50);
    let (mut json, bin) = split(&glb);
    for (i, node) in json["nodes"].as_array_mut().unwrap().iter_mut().enumerate() {
        node["name"] = json!(format!("n{i}"));
    }
    let renamed = join(&json, &bin);
    assert!(
        map_of(&renamed).joint(HumanoidBone::Hips).is_none(),
        "numbered joints name no bone"
    );
    // VRM 1.0.
    let mut v1 = json.clone();
    let bones: serde_json::Map<String, Value> = named
        .bones()
        .iter()
        .map(|&(b, j)| (b.name().to_owned(), json!({"node": j})))
        .collect();
    v1["extensionsUsed"] = json!(["VRMC_vrm"]);
    v1["extensions"] =
        json!({"VRMC_vrm": {"specVersion": "1.0", "humanoid": {"humanBones": bones}}});
    assert_eq!(map_of(&join(&v1, &bin)).bones(), named.bones());
    // VRM 0.x, whose thumbs are named one joint further out.
    let mut v0 = json;
    let old_name = |b: HumanoidBone| {
        let name = b.name();
        name.replace("ThumbProximal", "ThumbIntermediate")
            .replace("ThumbMetacarpal", "ThumbProximal")
    };
    let list: Vec<Value> = named
        .bones()
        .iter()
        .map(|&(b, j)| json!({"bone": old_name(b), "node": j}))
        .collect();
    v0["extensionsUsed"] = json!(["VRM"]);
    v0["extensions"] = json!({"VRM": {"humanoid": {"humanBones": list}}});
    let from_v0 = map_of(&join(&v0, &bin));
    assert_eq!(from_v0.bones(), named.bones());
    assert!(from_v0.joint(HumanoidBone::LeftThumbMetacarpal).is_some());
}

/// Where `bone` stands at rest in `asset`'s scene.
fn rest_position(asset: &Asset, bone: HumanoidBone) -> glam::Vec3 {
    let skeleton = Skeleton::of(asset);
    let joint = HumanoidMap::of(&skeleton)
        .joint(bone)
        .expect("the bone is mapped");
    skeleton.rest_world()[joint].w_axis.truncate()
}

/// VRM 0.x avatars face -Z (UniVRM writes them the way Unity has them); VRM 1.0 and glTF face
/// +Z. Loaded, a real VRoid Studio export and a Mixamo rig exported as VRM 0.x face +Z like
/// every other file: toes ahead of the heels, the left foot on +X.
#[test]
fn vrm_0_avatars_are_turned_to_face_forward() {
    for file in ["suzuha.vrm", "cool_loops.vrm"] {
        let Some(path) = common::vrm_avatar(file) else {
            return;
        };
        let asset = Asset::load(&path).unwrap();
        let foot = rest_position(&asset, HumanoidBone::LeftFoot);
        let toes = rest_position(&asset, HumanoidBone::LeftToes);
        let right = rest_position(&asset, HumanoidBone::RightFoot);
        assert!(toes.z > foot.z + 0.03, "{file}: toes {toes} foot {foot}");
        assert!(foot.x > right.x + 0.05, "{file}: left {foot} right {right}");
    }
    // The same Quaternius rig declared VRM 1.0 is left as it is.
    let Some(glb) = avatar() else { return };
    let (mut json, bin) = split(&glb);
    json["extensions"] =
        json!({"VRMC_vrm": {"specVersion": "1.0", "humanoid": {"humanBones": {}}}});
    let plain = Asset::from_bytes(&glb, None).unwrap();
    let declared = Asset::from_bytes(&join(&json, &bin), None).unwrap();
    let (a, b) = (
        rest_position(&plain, HumanoidBone::LeftToes),
        rest_position(&declared, HumanoidBone::LeftToes),
    );
    assert!(a.distance(b) < 1e-6, "{a} {b}");
}
