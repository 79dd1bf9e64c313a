//! Lines out of the tool, end to end through `npc-player`: a bake with its body exported as a
//! glTF clip plays back, through the project's own loader, the weights and joint turns the bake
//! printed, on the project's avatar and on real rigs from other tools; a line recorded live
//! exports as the weights that were drawn; everything written passes the Khronos validator.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::validator::{assert_valid, validator};
use common::{shared_asset, world_demo, write_lines};
use glam::{Quat, Vec3};
use npc_core::asset::Asset;
use npc_core::body::{HumanoidMap, PoseReader, Skeleton};
use npc_core::take::{Take, read_livelink_csv};
use serde_json::Value;

const LINE: &str = "Welcome, traveler. What brings you here?";

fn run(args: &[&str]) {
    let mut all = vec!["npc-player"];
    all.extend_from_slice(args);
    npc_player::run_from(all).unwrap();
}

/// The angle between two rotations, accurate for small ones (`Quat::angle_between` goes
/// through acos, which loses them in f32).
fn angle_deg(a: Quat, b: Quat) -> f32 {
    let d = a * b.inverse();
    2.0 * d.xyz().length().min(1.0).asin().to_degrees()
}

/// Bakes Elara's line with her body in `project` at 30 fps; returns the bake's path.
fn bake_with_body(project: &Path, out: &Path) -> PathBuf {
    let bake = out.join("bake.json");
    run(&[
        "bake",
        "--project",
        project.to_str().unwrap(),
        "--npc",
        "Elara",
        "--body",
        "--text",
        LINE,
        "--fps",
        "30",
        "--out",
        bake.to_str().unwrap(),
    ]);
    bake
}

/// Exports `bake` onto `avatar` as a clip, checks that the file loads with one clip more whose
/// weights and joints are the bake's at every frame, and returns the written file.
fn export_and_compare(bake: &Path, avatar: &Path, out: &Path) -> PathBuf {
    let glb = out.join("line.glb");
    run(&[
        "export",
        "--bake",
        bake.to_str().unwrap(),
        "--to",
        "gltf",
        "--avatar",
        avatar.to_str().unwrap(),
        "--out",
        glb.to_str().unwrap(),
    ]);
    let before = Asset::load(avatar).unwrap();
    let after = Asset::load(&glb).unwrap();
    assert_eq!(after.clips.len(), before.clips.len() + 1);
    assert_eq!(after.nodes, before.nodes, "the rig is kept as it was");
    let clip = &after.clips[after.clips.len() - 1];
    assert_eq!(clip.name, "bake");

    let json: Value = serde_json::from_slice(&fs::read(bake).unwrap()).unwrap();
    let take = Take::from_bake_json(&json.to_string(), "bake").unwrap();
    if after.face_rig.arkit_coverage() > 0 {
        let back = Take::from_gltf_clip(&after, after.clips.len() - 1, take.fps).unwrap();
        let worst = back
            .weights
            .iter()
            .zip(&take.weights)
            .flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs()))
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "weights differ by {worst}");
    }

    // The head's own shapes, where it has them: each target's weight in the clip is the bake's.
    if let Some(own) = json.get("own") {
        let targets: Vec<String> = serde_json::from_value(own["targets"].clone()).unwrap();
        let rows: Vec<Vec<f32>> = serde_json::from_value(own["weights"].clone()).unwrap();
        let mut locals: Vec<_> = after.nodes.iter().map(|n| n.transform).collect();
        let mut weights = vec![Vec::new(); after.nodes.len()];
        let mut checked = 0;
        for (i, name) in targets.iter().enumerate() {
            let Some((node, t)) = after.nodes.iter().enumerate().find_map(|(n, node)| {
                let mesh = &after.meshes[node.mesh?];
                let t = mesh
                    .target_names
                    .iter()
                    .position(|x| x.raw.as_deref() == Some(name.as_str()))?;
                Some((n, t))
            }) else {
                continue;
            };
            for (f, &time) in take.times_ms.iter().enumerate() {
                clip.sample((time / 1000.0) as f32, false, &mut locals, &mut weights);
                let d = (weights[node][t] - rows[f][i]).abs();
                assert!(
                    d < 1e-4,
                    "{name} at {time} ms: {} vs {}",
                    weights[node][t],
                    rows[f][i]
                );
            }
            checked += 1;
        }
        assert!(
            checked >= targets.len().min(10),
            "{checked} of {} own targets in the clip",
            targets.len()
        );
    }

    // The joints: sample the clip at each frame, read the pose as the bake read it.
    let body = &json["body"];
    let bones: Vec<&str> = body["bones"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap())
        .collect();
    let skeleton = Skeleton::of(&after);
    let map = HumanoidMap::of(&skeleton);
    let reader = PoseReader::new(&skeleton, &map);
    let read_bones: Vec<&str> = reader.bones().iter().map(|(b, _)| b.name()).collect();
    assert_eq!(read_bones, bones, "the same rig, the same bones");
    let mut locals: Vec<_> = after.nodes.iter().map(|n| n.transform).collect();
    let mut weights = vec![Vec::new(); after.nodes.len()];
    let (mut worst_deg, mut worst_m) = (0.0f32, 0.0f32);
    for (f, &t) in take.times_ms.iter().enumerate() {
        clip.sample((t / 1000.0) as f32, false, &mut locals, &mut weights);
        let frame = body["rotations"][f].as_array().unwrap();
        let last = frame.last().unwrap().as_array().unwrap();
        for (q, want) in reader.rotations(&skeleton, &locals).iter().zip(last) {
            let want: [f32; 4] = serde_json::from_value(want.clone()).unwrap();
            worst_deg = worst_deg.max(angle_deg(Quat::from_array(*q), Quat::from_array(want)));
        }
        let hips: [f32; 3] = serde_json::from_value(body["hips_position"][f].clone()).unwrap();
        let at = reader.hips_position(&skeleton, &locals).unwrap();
        worst_m = worst_m.max((at - Vec3::from(hips)).length());
    }
    eprintln!(
        "{}: joints within {worst_deg} degrees, hips within {worst_m} m",
        avatar.display()
    );
    assert!(worst_deg < 0.05, "a joint is off by {worst_deg} degrees");
    assert!(worst_m < 1e-4, "the hips are off by {worst_m} m");
    glb
}

#[test]
fn a_baked_line_exported_as_gltf_plays_the_bake_on_its_avatar() {
    let d = world_demo();
    let bake = bake_with_body(&d.project, d.tmp.path());
    let avatar = d.tmp.path().join("assets/avatar.glb");
    let glb = export_and_compare(&bake, &avatar, d.tmp.path());
    if let Some(validator) = validator() {
        assert_valid(&validator, &[glb]);
    }
}

#[test]
fn a_baked_line_exported_onto_real_rigs_plays_the_bake() {
    for name in [
        "avatars/Quaternius_Superhero_Male.glb",
        "avatars/VALID_Black_F_1_Busi.glb",
    ] {
        let Some(avatar) = shared_asset(name) else {
            return;
        };
        bake_export_and_validate_on(Path::new(&avatar));
    }
}

/// Elara's line baked with her body on `avatar`, exported onto it as a clip that must play
/// the bake and pass the validator.
fn bake_export_and_validate_on(avatar: &Path) {
    let d = world_demo().with_elara_as(avatar);
    let bake = bake_with_body(&d.project, d.tmp.path());
    let glb = export_and_compare(&bake, avatar, d.tmp.path());
    if let Some(validator) = validator() {
        assert_valid(&validator, &[glb]);
    }
}

/// A Mixamo rig exported as VRM 0.x (facing -Z, turned at load) whose hips are the scene's
/// root: the clip is written as the file has the rig, and plays the bake.
#[test]
fn a_baked_line_exported_onto_a_vrm_0_avatar_plays_the_bake() {
    let Some(avatar) = common::vrm_avatar("cool_loops.vrm") else {
        return;
    };
    bake_export_and_validate_on(&avatar);
}

#[test]
fn a_line_recorded_live_exports_as_the_weights_drawn() {
    let d = world_demo();
    write_lines(&d.agent, &[("Elara", LINE)]);
    let record = d.tmp.path().join("record.jsonl");
    common::render_recorded(&d, 60, &record);
    let csv = d.tmp.path().join("line.csv");
    let export_line = |to: &str, out: &Path| {
        run(&[
            "export",
            "--record",
            record.to_str().unwrap(),
            "--npc",
            "Elara",
            "--seq",
            "0",
            "--to",
            to,
            "--out",
            out.to_str().unwrap(),
        ]);
    };
    export_line("livelink-csv", &csv);
    let drawn: Vec<Vec<f32>> = fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|f| f["npc"] == "Elara" && f["line"]["seq"] == 0)
        .map(|f| serde_json::from_value(f["weights"].clone()).unwrap())
        .collect();
    assert!(drawn.len() > 20, "Elara speaks in {} frames", drawn.len());
    let take = read_livelink_csv(&fs::read_to_string(&csv).unwrap(), "line").unwrap();
    assert_eq!(take.fps, 30.0);
    assert_eq!(
        take.weights.len(),
        drawn.len(),
        "one row per recorded frame"
    );
    for (row, frame) in take.weights.iter().zip(&drawn) {
        assert_eq!(&row[..], &frame[..], "the CSV holds the weights drawn");
    }
    // The same frames as a clip on the default avatar, with the body as it was drawn.
    let glb = d.tmp.path().join("line.glb");
    export_line("gltf", &glb);
    let asset = Asset::load(&glb).unwrap();
    let clip = asset.clips.last().unwrap();
    assert_eq!(clip.name, "Elara line 0");
    assert!(
        clip.channels
            .iter()
            .any(|c| c.property == npc_core::asset::animation::Property::Rotation),
        "the body's joints are animated"
    );
    if let Some(validator) = validator() {
        assert_valid(&validator, &[glb]);
    }
}

#[test]
fn a_real_capture_put_on_the_avatar_passes_the_validator() {
    let (Some(capture), Some(validator)) = (common::facecap(), validator()) else {
        return;
    };
    let asset = Asset::load(&capture).unwrap();
    let take = (0..asset.clips.len())
        .find_map(|c| Take::from_gltf_clip(&asset, c, 30.0))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let avatar = npc_core::procedural::body::avatar_glb(&npc_core::procedural::head::head_parts());
    let glb = dir.path().join("facecap_on_avatar.glb");
    fs::write(
        &glb,
        npc_core::take::glb_with_take(&avatar, &take, &Default::default()).unwrap(),
    )
    .unwrap();
    assert_valid(&validator, &[glb]);
}
