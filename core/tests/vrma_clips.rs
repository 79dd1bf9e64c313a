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

/// Appends `floats` to a GLB's binary chunk `bin` as an accessor of `kind` (`SCALAR`, `VEC3`,
/// `VEC4`) in `doc`, and returns its index.
fn accessor(doc: &mut Value, bin: &mut Vec<u8>, floats: &[f32], kind: &str) -> usize {
    let width = match kind {
        "SCALAR" => 1,
        "VEC3" => 3,
        _ => 4,
    };
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let offset = bin.len();
    bin.extend(floats.iter().flat_map(|f| f.to_le_bytes()));
    let views = doc["bufferViews"].as_array_mut().unwrap();
    views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": floats.len() * 4}));
    let view = views.len() - 1;
    let mut entry = json!({
        "bufferView": view, "componentType": 5126, "count": floats.len() / width, "type": kind
    });
    if kind == "SCALAR" {
        let (lo, hi) = floats
            .iter()
            .fold((f32::MAX, f32::MIN), |(a, b), &f| (a.min(f), b.max(f)));
        entry["min"] = json!([lo]);
        entry["max"] = json!([hi]);
    }
    let accessors = doc["accessors"].as_array_mut().unwrap();
    accessors.push(entry);
    accessors.len() - 1
}

/// The project's body as a VRM animation file whose idle clip also animates the expressions
/// "happy" (0 at 0 s, 1 from 1 s on) and "smug" (custom), and the eyes: 20 degrees to the
/// avatar's left and 10 degrees up throughout.
fn with_face_tracks(bytes: &[u8], map: &HumanoidMap) -> Vec<u8> {
    let named = renamed(bytes, map, true);
    let (json, bin) = split_glb(&named).unwrap();
    let mut doc: Value = serde_json::from_slice(json).unwrap();
    let mut bin = bin.unwrap().to_vec();
    let nodes = doc["nodes"].as_array_mut().unwrap();
    nodes.extend([
        json!({"name": "happy"}),
        json!({"name": "smug"}),
        json!({"name": "lookAt"}),
    ]);
    let [happy, smug, look_at] = [nodes.len() - 3, nodes.len() - 2, nodes.len() - 1];
    let times = accessor(&mut doc, &mut bin, &[0.0, 1.0, 2.0], "SCALAR");
    let weights = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0];
    let weight = accessor(&mut doc, &mut bin, &weights, "VEC3");
    let eyes = glam::Quat::from_rotation_y(20f32.to_radians())
        * glam::Quat::from_rotation_x(-10f32.to_radians());
    let turn = accessor(&mut doc, &mut bin, &[eyes.to_array(); 3].concat(), "VEC4");
    let idle = doc["animations"]
        .as_array()
        .unwrap()
        .iter()
        .position(|a| a["name"].as_str().unwrap_or_default().contains("idle"))
        .unwrap();
    let animation = &mut doc["animations"][idle];
    let samplers = animation["samplers"].as_array_mut().unwrap();
    samplers.push(json!({"input": times, "output": weight}));
    samplers.push(json!({"input": times, "output": turn}));
    let (weight_sampler, turn_sampler) = (samplers.len() - 2, samplers.len() - 1);
    let channels = animation["channels"].as_array_mut().unwrap();
    for (node, sampler, path) in [
        (happy, weight_sampler, "translation"),
        (smug, weight_sampler, "translation"),
        (look_at, turn_sampler, "rotation"),
    ] {
        channels.push(json!({"sampler": sampler, "target": {"node": node, "path": path}}));
    }
    let extension = &mut doc["extensions"]["VRMC_vrm_animation"];
    extension["expressions"] = json!({
        "preset": {"happy": {"node": happy}}, "custom": {"smug": {"node": smug}}
    });
    extension["lookAt"] = json!({"node": look_at, "offsetFromHeadBone": [0.0, 0.06, 0.0]});
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    doc["buffers"][0]["byteLength"] = json!(bin.len());
    join_glb(&serde_json::to_vec(&doc).unwrap(), &bin)
}

/// A VRM animation's expression and look-at tracks play: read as the clip's face tracks, kept
/// through retargeting onto another body, blended by the clip layer, and on the face (the
/// happy face's smile, the eyes turned as the track turns them). A custom expression is named
/// in one warning as not played.
#[test]
fn a_vrma_files_expression_and_look_at_tracks_play_on_the_face() {
    use npc_core::anim::face::{FaceAnimator, FaceSettings, Stage};
    use npc_core::arkit::ArkitTarget;
    use npc_core::asset::clip_face::Expression;

    let dir = tempfile::tempdir().unwrap();
    let files = npc_core::procedural::generate::generate(dir.path()).unwrap();
    let body = files.iter().find(|p| p.ends_with("avatar.glb")).unwrap();
    let bytes = fs::read(body).unwrap();
    let asset = Asset::load(body).unwrap();
    let skeleton = Skeleton::of(&asset);
    let map = HumanoidMap::of(&skeleton);
    let plain = dir.path().join("plain.vrma");
    fs::write(&plain, renamed(&bytes, &map, true)).unwrap();
    let plain = Asset::load(&plain).unwrap();
    assert!(plain.clips.iter().all(|c| c.face.is_empty()));
    assert!(!plain.warnings.iter().any(|w| w.contains("not played")));

    let tracked = dir.path().join("tracked.vrma");
    fs::write(&tracked, with_face_tracks(&bytes, &map)).unwrap();
    let loaded = Asset::load(&tracked).unwrap();
    let said: Vec<_> = loaded
        .warnings
        .iter()
        .filter(|w| w.contains("not played"))
        .collect();
    assert_eq!(said.len(), 1, "{:?}", loaded.warnings);
    assert!(
        said[0].contains("smug") && !said[0].contains("happy"),
        "{}",
        said[0]
    );
    let idle = loaded
        .clips
        .iter()
        .find(|c| c.name.contains("idle"))
        .unwrap();
    let half = idle.face.sample(0.5);
    assert!((half.get(Expression::Happy) - 0.5).abs() < 1e-5, "{half:?}");
    assert!((half.look.yaw_deg - 20.0).abs() < 0.01, "{half:?}");
    assert!((half.look.pitch_deg + 10.0).abs() < 0.01, "{half:?}");

    // Retargeted onto the body, played as idle from its start.
    let rig = ClipLibrary::default().file(&tracked).unwrap();
    let made = RetargetedClips::new(&rig, &skeleton, &map);
    let mut clips = Clips::new(ClipSource::Retargeted(&made), &map, 0.0);
    let mut locals = skeleton.rest.clone();
    let settings = FaceSettings::default();
    let mut face = FaceAnimator::new(settings.clone(), 7);
    let mut without = FaceAnimator::new(settings, 7);
    let dt = 1.0 / 30.0;
    for frame in 0..45 {
        let input = LayerInput {
            dt_s: dt,
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
        let played = *clips.face();
        let t = (frame + 1) as f32 * dt;
        let want = (t.min(1.0)).clamp(0.0, 1.0);
        assert!(
            (played.get(Expression::Happy) - want).abs() < 1e-3,
            "{t}: {played:?}"
        );
        face.set_clip_face(played);
        let ms = f64::from(dt) * 1000.0;
        let with = *face.update(0.0, ms).unwrap().final_pose();
        let own = *without.update(0.0, ms).unwrap().final_pose();
        if t >= 1.0 {
            let smile = with.get(ArkitTarget::MouthSmileLeft);
            assert!(
                smile > own.get(ArkitTarget::MouthSmileLeft) + 0.2,
                "{t}: {smile}"
            );
            let expressed = face
                .frame()
                .stage(Stage::Expressions)
                .get(ArkitTarget::MouthSmileLeft);
            assert!((expressed - smile).abs() < 1e-6);
            // The eyes as the track turns them: to the avatar's left and up.
            let eyes = npc_core::take::eye_turns(&with.0);
            assert!((eyes.left.yaw_deg - 20.0).abs() < 0.5, "{eyes:?}");
            assert!((eyes.left.pitch_deg + 10.0).abs() < 0.5, "{eyes:?}");
        }
    }
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
