//! VRM animation files (`.vrma`: glTF with `VRMC_vrm_animation`, what VRoid and three-vrm users
//! trade as clips) name their humanoid bones in a table of their own, whatever the nodes are
//! called: a clip file read here takes that table, so its clips retarget like any other's.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use std::fs;

use npc_core::asset::Asset;
use npc_core::asset::glb::{join_glb, split_glb};
use npc_core::body::{
    Activity, Bearing, ClipLibrary, ClipSource, Clips, HumanoidBone, HumanoidMap, LayerInput,
    RetargetedClips, Skeleton,
};
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

#[test]
fn a_vrma_files_expression_and_look_at_tracks_are_named_in_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let files = npc_core::procedural::generate::generate(dir.path()).unwrap();
    let body = files.iter().find(|p| p.ends_with("avatar.glb")).unwrap();
    let bytes = fs::read(body).unwrap();
    let map = HumanoidMap::of(&Skeleton::of(&Asset::load(body).unwrap()));
    let plain = dir.path().join("plain.vrma");
    fs::write(&plain, renamed(&bytes, &map, true)).unwrap();
    let said = |asset: &Asset| {
        asset
            .warnings
            .iter()
            .filter(|w| w.contains("not played"))
            .cloned()
            .collect::<Vec<_>>()
    };
    assert!(said(&Asset::load(&plain).unwrap()).is_empty());

    let named = renamed(&bytes, &map, true);
    let (json, bin) = split_glb(&named).unwrap();
    let mut doc: Value = serde_json::from_slice(json).unwrap();
    let animation = &mut doc["extensions"]["VRMC_vrm_animation"];
    animation["expressions"] = json!({"preset": {"happy": {"node": 1}, "blink": {"node": 2}}, "custom": {"smug": {"node": 3}}});
    animation["lookAt"] = json!({"node": 4});
    let tracked = dir.path().join("tracked.vrma");
    fs::write(
        &tracked,
        join_glb(&serde_json::to_vec(&doc).unwrap(), bin.unwrap()),
    )
    .unwrap();
    let asset = Asset::load(&tracked).unwrap();
    let warnings = said(&asset);
    assert_eq!(warnings.len(), 1, "{:?}", asset.warnings);
    for name in ["blink", "happy", "smug", "look-at"] {
        assert!(warnings[0].contains(name), "{}", warnings[0]);
    }
    // The humanoid motion still loads.
    assert!(!asset.clips.is_empty());
}

/// A real VRM animation file (VRMA_01.vrma, 11.8 s, written by three-vrm's exporter; fetched
/// by scripts/setup.sh) named as an idle clip plays on a VRM 1.0 avatar (AliciaSolid.vrm) and
/// on the project's own body: its one clip, which three.js calls "animation", takes the file's
/// name; retargeted through both humanoid maps the arms move and the hips stay at standing
/// height, upright.
#[test]
fn a_real_vrma_file_plays_as_idle_on_a_vrm1_avatar_and_on_the_projects_body() {
    let test = "a_real_vrma_file_plays_as_idle_on_a_vrm1_avatar_and_on_the_projects_body";
    let (Some(vrma), Some(alicia)) = (
        common::vrm_avatar("VRMA_01.vrma"),
        common::vrm_avatar("AliciaSolid.vrm"),
    ) else {
        eprintln!("{test}: NOT RUN, no VRMA_01.vrma or AliciaSolid.vrm");
        return;
    };
    let rig = ClipLibrary::default().file(&vrma).unwrap();
    assert_eq!(rig.clips.len(), 1);
    assert_eq!(rig.clips[0].name, "VRMA_01");
    assert!((rig.clips[0].duration_s - 11.8).abs() < 0.01);
    assert!(rig.map.bones().len() >= 50, "{:?}", rig.map.bones());
    // Named as idle, it poses the body standing still.
    let dir = tempfile::tempdir().unwrap();
    let idle = dir.path().join("Idle.vrma");
    fs::copy(&vrma, &idle).unwrap();
    let idle_rig = ClipLibrary::default().file(&idle).unwrap();
    assert_eq!(idle_rig.clips[0].name, "Idle");

    let files = npc_core::procedural::generate::generate(dir.path()).unwrap();
    let own = files.iter().find(|p| p.ends_with("avatar.glb")).unwrap();
    // Each body's left upper arm direction (avatar space) every frame.
    let mut arms: Vec<Vec<glam::Vec3>> = Vec::new();
    // The file's own rig first (its clip played on its own nodes), then the two bodies.
    for body in [idle.clone(), alicia, own.clone()] {
        let mut directions = Vec::new();
        let asset = Asset::load(&body).unwrap();
        let skeleton = Skeleton::of(&asset);
        let map = if body == idle {
            idle_rig.map.clone()
        } else {
            HumanoidMap::of(&skeleton)
        };
        let made = RetargetedClips::new(&idle_rig, &skeleton, &map);
        let source = if body == idle {
            ClipSource::Own(&asset.clips)
        } else {
            ClipSource::Retargeted(&made)
        };
        let mut clips = Clips::new(source, &map, 0.0);
        assert!(clips.poses(Activity::Idle));
        let hips = map.joint(HumanoidBone::Hips).unwrap();
        let arm = map.joint(HumanoidBone::LeftUpperArm).unwrap();
        let elbow = map.joint(HumanoidBone::LeftLowerArm).unwrap();
        let pointing = |w: &[glam::Mat4]| (w[elbow].w_axis - w[arm].w_axis).truncate().normalize();
        let rest_world = skeleton.rest_world();
        let rest_hips = rest_world[hips].w_axis.y;
        let mut locals = skeleton.rest.clone();
        let mut world = Vec::new();
        let (mut arm_moved, mut low, mut high, mut tilt) = (0.0f32, f32::MAX, 0.0f32, 0.0f32);
        for _ in 0..(11.8 * 30.0) as usize {
            let input = LayerInput {
                dt_s: 1.0 / 30.0,
                time_s: 0.0,
                clip_pose: true,
                inhale: false,
                activity: Activity::Idle,
                attention: None,
                talk: None,
                bearing: Bearing::default(),
                detail: npc_core::body::BodyDetail::Full,
                ground: None,
            };
            clips.apply(&skeleton, &input, &mut locals);
            skeleton.world_into(&locals, &mut world);
            let swing = pointing(&world).angle_between(pointing(&rest_world));
            arm_moved = arm_moved.max(swing.to_degrees());
            directions.push(pointing(&world));
            let y = world[hips].w_axis.y / rest_hips;
            (low, high) = (low.min(y), high.max(y));
            let up = world[hips].transform_vector3(glam::Vec3::Y).normalize();
            let rest_up = rest_world[hips]
                .transform_vector3(glam::Vec3::Y)
                .normalize();
            tilt = tilt.max(up.angle_between(rest_up).to_degrees());
        }
        eprintln!(
            "{}: the left upper arm swings up to {arm_moved:.0} degrees from rest, the hips at \
             {low:.2}-{high:.2} of their rest height, tilted up to {tilt:.0} degrees",
            body.display()
        );
        assert!(arm_moved > 30.0, "{arm_moved}");
        assert!(low > 0.8 && high < 1.15, "{low} {high}");
        assert!(tilt < 30.0, "{tilt}");
        arms.push(directions);
    }
    // Retargeted, both bodies hold their arms as the file's own rig does, whatever their rest
    // poses.
    for (body, directions) in ["AliciaSolid", "the project's body"].iter().zip(&arms[1..]) {
        let apart = arms[0]
            .iter()
            .zip(directions)
            .map(|(a, b)| a.angle_between(*b).to_degrees())
            .fold(0.0f32, f32::max);
        eprintln!("{body}'s left upper arm points at most {apart:.1} degrees from the file's");
        assert!(apart < 10.0, "{body}: {apart}");
    }
}
