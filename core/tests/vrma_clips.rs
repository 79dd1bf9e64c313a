//! VRM animation files (`.vrma`: glTF with `VRMC_vrm_animation`, what VRoid and three-vrm users
//! trade as clips) name their humanoid bones in a table of their own, whatever the nodes are
//! called: a clip file read here takes that table, so its clips retarget like any other's.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;

use npc_core::asset::Asset;
use npc_core::asset::glb::{join_glb, split_glb};
use npc_core::body::{ClipLibrary, HumanoidMap, Skeleton};
use serde_json::{Map, Value, json};

/// The project's body with every node renamed `nN`, and, when `table`, the humanoid table of
/// a VRM animation file naming its bones by node.
fn renamed(bytes: &[u8], map: &HumanoidMap, table: bool) -> Vec<u8> {
    let (json, bin) = split_glb(bytes).unwrap();
    let mut doc: Value = serde_json::from_slice(json).unwrap();
    for (i, node) in doc["nodes"].as_array_mut().unwrap().iter_mut().enumerate() {
        node["name"] = json!(format!("n{i}"));
    }
    if table {
        let bones: Map<String, Value> = map
            .bones()
            .iter()
            .map(|(bone, joint)| (bone.name().to_owned(), json!({ "node": joint })))
            .collect();
        doc["extensionsUsed"] = json!(["VRMC_vrm_animation"]);
        doc["extensions"]["VRMC_vrm_animation"] =
            json!({"specVersion": "1.0", "humanoid": {"humanBones": bones}});
    }
    join_glb(&serde_json::to_vec(&doc).unwrap(), bin.unwrap())
}

#[test]
fn a_vrma_clip_file_names_its_bones_by_its_humanoid_table() {
    let dir = tempfile::tempdir().unwrap();
    let files = npc_core::procedural::generate::generate(dir.path()).unwrap();
    let body = files.iter().find(|p| p.ends_with("avatar.glb")).unwrap();
    let bytes = fs::read(body).unwrap();
    let original = Asset::load(body).unwrap();
    let map = HumanoidMap::of(&Skeleton::of(&original));
    assert!(map.bones().len() >= 15, "{:?}", map.bones());
    assert!(!original.clips.is_empty());

    // Without the table the renamed nodes name no bones: the table is what names them.
    let bare = dir.path().join("bare.glb");
    fs::write(&bare, renamed(&bytes, &map, false)).unwrap();
    let bare_map = HumanoidMap::of(&Skeleton::of(&Asset::load(&bare).unwrap()));
    assert!(bare_map.bones().len() < 3, "{:?}", bare_map.bones());

    let vrma = dir.path().join("moves.vrma");
    fs::write(&vrma, renamed(&bytes, &map, true)).unwrap();
    let rig = ClipLibrary::default().file(&vrma).unwrap();
    assert_eq!(rig.clips.len(), original.clips.len());
    for (bone, joint) in map.bones() {
        assert_eq!(rig.map.joint(*bone), Some(*joint), "{}", bone.name());
    }
}
