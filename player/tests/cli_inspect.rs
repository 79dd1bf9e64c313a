//! `npc-player inspect` on real files, and one clear line for a bad one.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{npc_player, one_line_failure, shared_asset};
use serde_json::Value;

fn sample(relative: &str) -> Option<String> {
    shared_asset(&format!("gltf-samples/{relative}"))
}

#[test]
fn json_report_has_the_documented_keys() {
    let Some(fox) = sample("Fox/Fox.glb") else {
        return;
    };
    let out = npc_player(&["inspect", &fox, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "meshes",
        "target_names",
        "arkit_coverage",
        "arkit_missing",
        "oculus_visemes",
        "skins",
        "clips",
        "instances",
        "extensions_required",
    ] {
        assert!(json.get(key).is_some(), "missing key {key}");
    }
    assert_eq!(json["skins"][0]["joints"], 24);
    assert_eq!(
        json["skins"][0]["joint_names"].as_array().unwrap().len(),
        24
    );
    assert_eq!(json["clips"][1]["name"], "Walk");
    assert_eq!(json["meshes"][0]["primitives"][0]["vertices"], 1728);
    assert_eq!(json["arkit_missing"].as_array().unwrap().len(), 52);
}

#[test]
fn text_report_names_coverage_and_instances() {
    let Some(path) = sample("SimpleInstancing/simple-instancing.glb") else {
        return;
    };
    let out = npc_player(&["inspect", &path]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("ARKit coverage: 0/52"), "{text}");
    assert!(text.contains("mesh 0: 125 instances"), "{text}");
}

#[test]
fn a_broken_file_is_one_line_and_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in [
        ("garbage.glb", &b"glTF\x02\x00\x00\x00\x10\x00"[..]),
        ("truncated.gltf", b"{\"asset\": {\"version\": \"2.0\"}, \"meshes\": ["),
        ("missing-buffer.gltf", b"{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"nope.bin\"}]}"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let stderr = one_line_failure(&npc_player(&["inspect", path.to_str().unwrap()]));
        assert!(stderr.contains(name), "{name}: {stderr}");
    }
    let out = npc_player(&["inspect", "/no/such/file.glb"]);
    assert_eq!(out.status.code(), Some(1));
}

/// Every naming family's real avatar gets its humanoid bones found, its rest pose told and
/// its height measured, in metres even when the rig is in centimetres.
#[test]
fn real_avatars_report_their_humanoid_bones_rest_pose_and_height() {
    for (file, spine) in [
        ("Quaternius_Superhero_Female.glb", "spine_01"),
        ("VALID_Black_F_1_Busi.glb", "Spine"),
    ] {
        let Some(path) = shared_asset(&format!("avatars/{file}")) else {
            return;
        };
        let out = npc_player(&["inspect", "--json", &path]);
        assert!(out.status.success(), "{file}");
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let humanoid = &report["humanoid"];
        assert_eq!(humanoid["missing_core"], serde_json::json!([]), "{file}");
        assert_eq!(humanoid["bones"]["spine"], spine, "{file}");
        assert_eq!(humanoid["rest"], "T", "{file}");
        let height = humanoid["height_m"].as_f64().unwrap();
        assert!((1.5..2.0).contains(&height), "{file}: {height} m");
        let bones = humanoid["bones"].as_object().unwrap();
        assert!(bones.len() >= 50, "{file}: {} bones", bones.len());
        let text = npc_player(&["inspect", &path]);
        let text = String::from_utf8_lossy(&text.stdout);
        assert!(text.contains("rest pose T"), "{file}: {text}");
    }
}
