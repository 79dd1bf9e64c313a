//! FBX clips (issue 38): the project's avatar and its idle, walk and talk written as a binary
//! FBX by another tool (Debian's Blender, scripts/fbx/glb2fbx.py: centimetres, Mixamo's bone
//! names, one take per clip), read through ufbx, play on the avatar as its glTF clips do.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use glam::{Mat4, Quat};
use npc_core::asset::animation::Clip;
use npc_core::asset::{Asset, Transform};
use npc_core::body::{ClipRig, HumanoidBone, HumanoidMap, Retarget, Skeleton};

/// Blender (`NPC_BLENDER`, else on the PATH), or None after saying the test cannot run.
fn blender() -> Option<PathBuf> {
    let path =
        std::env::var_os("NPC_BLENDER").map_or_else(|| PathBuf::from("blender"), PathBuf::from);
    let runs = Command::new(&path)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if runs {
        Some(path)
    } else {
        common::not_run(
            "no blender",
            "scripts/setup.sh installs Debian's blender (npc_blender)",
        );
        None
    }
}

/// The project's avatar written into `dir` as glTF and, by Blender, as FBX.
fn avatar_as_glb_and_fbx(blender: &Path, dir: &Path) -> (PathBuf, PathBuf) {
    npc_core::procedural::generate::generate(dir).unwrap();
    let glb = dir.join("avatar.glb");
    let fbx = dir.join("avatar.fbx");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/fbx/glb2fbx.py");
    let out = Command::new(blender)
        .args([
            "-b",
            "--factory-startup",
            "-noaudio",
            "--python-exit-code",
            "1",
            "--python",
        ])
        .arg(script)
        .arg("--")
        .arg(&glb)
        .arg(&fbx)
        .output()
        .expect("blender runs");
    assert!(
        out.status.success() && fbx.is_file(),
        "blender did not write the FBX: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (glb, fbx)
}

fn rig(asset: &Asset) -> ClipRig {
    ClipRig::new(Skeleton::of(asset), asset.clips.clone())
}

/// The clip of `rig` whose name holds `role`.
fn clip<'a>(rig: &'a ClipRig, role: &str) -> &'a Clip {
    rig.clips
        .iter()
        .find(|c| c.name.to_lowercase().contains(role))
        .unwrap_or_else(|| {
            let names: Vec<&str> = rig.clips.iter().map(|c| c.name.as_str()).collect();
            panic!("no {role} clip in {names:?}")
        })
}

/// The target's joints in the world, posed by `clip` of `source` at `t_s` through the
/// humanoid retarget the player uses.
fn posed(
    source: &ClipRig,
    clip: &Clip,
    target: &Skeleton,
    map: &HumanoidMap,
    t_s: f32,
) -> Vec<Mat4> {
    let mut retarget = Retarget::new(source, target, map);
    let mut source_locals = source.skeleton.rest.clone();
    clip.sample(t_s, true, &mut source_locals, &mut []);
    let mut locals: Vec<Transform> = target.rest.clone();
    retarget.apply(&source.skeleton, &source_locals, target, &mut locals);
    target.world(&locals)
}

fn angle_deg(a: Quat, b: Quat) -> f32 {
    a.angle_between(b).to_degrees()
}

#[test]
fn blender_fbx_clips_play_as_the_gltf_clips_do() {
    let Some(blender) = blender() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (glb_path, fbx_path) = avatar_as_glb_and_fbx(&blender, dir.path());
    let glb = Asset::load(&glb_path).unwrap();
    let fbx = Asset::load(&fbx_path).unwrap_or_else(|e| panic!("the FBX file: {e}"));
    assert!(fbx.meshes.is_empty(), "an FBX file gives no meshes");
    assert!(
        fbx.warnings
            .iter()
            .any(|w| w.contains("meshes are not read")),
        "{:?}",
        fbx.warnings
    );

    // The rest skeleton in glTF's space: every named joint of the glTF file is in the FBX
    // file at the same place in the world (centimetres and Blender's axes converted; the
    // bind pose, not the frame Blender saved the file on).
    let (glb_rig, fbx_rig) = (rig(&glb), rig(&fbx));
    let (glb_rest, fbx_rest) = (glb_rig.skeleton.rest_world(), fbx_rig.skeleton.rest_world());
    let mut shared = 0;
    for (i, name) in glb_rig.skeleton.names.iter().enumerate() {
        let Some(j) = fbx_rig
            .skeleton
            .index(name)
            .filter(|_| name.starts_with("mixamorig:"))
        else {
            continue;
        };
        shared += 1;
        let gap = glb_rest[i].w_axis.distance(fbx_rest[j].w_axis);
        assert!(gap < 1e-4, "{name} rests {gap} m from its glTF place");
    }
    assert!(shared >= 25, "only {shared} joints found in both files");
    assert!(fbx_rig.map.joint(HumanoidBone::Hips).is_some());

    // Each clip, retargeted onto the glTF avatar, poses it as the glTF clip does.
    let target = &glb_rig.skeleton;
    let map = HumanoidMap::of(target);
    for role in ["idle", "walk", "talk"] {
        let (from_glb, from_fbx) = (clip(&glb_rig, role), clip(&fbx_rig, role));
        let duration = from_glb.duration_s;
        assert!(
            (from_fbx.duration_s - duration).abs() < 0.05,
            "{role}: {} s in the FBX file, {duration} s in the glTF file",
            from_fbx.duration_s
        );
        let (mut worst_angle, mut worst_gap) = (0.0f32, 0.0f32);
        for step in 0..24 {
            let t = duration * step as f32 / 24.0;
            let a = posed(&glb_rig, from_glb, target, &map, t);
            let b = posed(&fbx_rig, from_fbx, target, &map, t);
            for (ma, mb) in a.iter().zip(&b) {
                let (_, ra, pa) = ma.to_scale_rotation_translation();
                let (_, rb, pb) = mb.to_scale_rotation_translation();
                worst_angle = worst_angle.max(angle_deg(ra, rb));
                worst_gap = worst_gap.max(pa.distance(pb));
            }
        }
        eprintln!(
            "{role}: worst joint {worst_angle:.3} deg, {:.2} mm apart",
            worst_gap * 1000.0
        );
        // Blender resamples each take at its frame rate (30 fps) as the glTF keys are:
        // differences are interpolation between the same keys.
        assert!(
            worst_angle < 0.5,
            "{role}: a joint is {worst_angle} degrees off"
        );
        assert!(worst_gap < 0.001, "{role}: a joint is {worst_gap} m off");
        // And the clip moves the body (a still clip would pass the comparison).
        let start = posed(&fbx_rig, from_fbx, target, &map, 0.0);
        let middle = posed(&fbx_rig, from_fbx, target, &map, duration * 0.37);
        let moved = start
            .iter()
            .zip(&middle)
            .map(|(a, b)| a.w_axis.distance(b.w_axis))
            .fold(0.0f32, f32::max);
        assert!(
            moved > 0.005,
            "{role}: the FBX clip does not move the body ({moved} m)"
        );
    }
}

/// An FBX file of Debian's assimp-testmodels (`NPC_FBX_MODELS`, else setup.sh's cache), or
/// None after saying the test cannot run.
fn fbx_model(file: &str) -> Option<PathBuf> {
    common::fetched("NPC_FBX_MODELS", "fbx").map(|dir| dir.join(file))
}

/// Rigs and takes written by two generations of Blender's exporter (2.79 and 2.90, 24 and 25
/// frames a second) read with their bones and takes; the durations and take names are those
/// the files declare (read with a separate FBX parser when the files were chosen).
#[test]
fn blender_rigs_from_other_versions_read_with_their_takes() {
    for (file, take, duration_s, bones) in [
        (
            "animation_with_skeleton.fbx",
            "Armature|ArmatureAction",
            0.83,
            16,
        ),
        ("huesitos.fbx", "Armature|Action", 1.56, 11),
    ] {
        let Some(path) = fbx_model(file) else { return };
        let asset = Asset::load(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        let skeleton = Skeleton::of(&asset);
        assert!(skeleton.len() >= bones, "{file}: {} nodes", skeleton.len());
        assert_eq!(asset.clips.len(), 1, "{file}");
        let clip = &asset.clips[0];
        assert_eq!(clip.name, take, "{file}");
        assert!(
            (clip.duration_s - duration_s).abs() < 0.03,
            "{file}: {} s",
            clip.duration_s
        );
        // The take moves the rig: some joint turns by more than a few degrees.
        let mut at_start = skeleton.rest.clone();
        clip.sample(0.0, false, &mut at_start, &mut []);
        let mut later = skeleton.rest.clone();
        clip.sample(clip.duration_s * 0.5, false, &mut later, &mut []);
        let (start_world, later_world) = (skeleton.world(&at_start), skeleton.world(&later));
        let turned = start_world
            .iter()
            .zip(&later_world)
            .map(|(a, b)| {
                angle_deg(
                    a.to_scale_rotation_translation().1,
                    b.to_scale_rotation_translation().1,
                )
            })
            .fold(0.0f32, f32::max);
        assert!(
            turned > 5.0,
            "{file}: the take turns no joint ({turned} degrees)"
        );
    }
}

/// Files from Maya, 3ds Max and Autodesk's FBX SDK (binary 7400 and 7500 with compressed
/// arrays, ASCII 7500 and 7700) load; a damaged file is refused with ufbx's reason, not a
/// panic.
#[test]
fn autodesk_files_load_and_a_damaged_one_is_refused() {
    for file in [
        "phong_cube.fbx",
        "boxWithCompressedCTypeArray.FBX",
        "cubes_with_names.fbx",
        "maxPbrMaterial_metalRough.fbx",
    ] {
        let Some(path) = fbx_model(file) else { return };
        let asset = Asset::load(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(!asset.nodes.is_empty(), "{file}: no nodes");
        assert!(
            asset
                .warnings
                .iter()
                .any(|w| w.contains("meshes are not read")),
            "{file}: {:?}",
            asset.warnings
        );
    }
    let Some(damaged) = fbx_model("transparentTest.fbx") else {
        return;
    };
    let error = Asset::load(&damaged).err().map(|e| e.to_string());
    assert!(
        error
            .as_deref()
            .is_some_and(|e| e.starts_with("cannot read the FBX file")),
        "{error:?}"
    );
}
