//! What the project's GLB writer writes loads back through the loader unchanged.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/avatar.rs"]
mod avatar;

use npc_core::arkit::ArkitTarget;
use npc_core::asset::Asset;
use npc_core::asset::inspect::Inspection;

#[test]
fn a_written_avatar_loads_back_with_every_target_joint_and_clip() {
    let glb = avatar::avatar_glb();
    assert!(
        (2_500_000..4_000_000).contains(&glb.len()),
        "{} bytes",
        glb.len()
    );
    let asset = Asset::from_bytes(&glb, None).unwrap();
    let report = Inspection::of(&asset);
    assert_eq!(report.meshes.len(), 4);
    assert_eq!(report.meshes[0].targets.len(), 70);
    assert_eq!(report.arkit_coverage, 52);
    assert_eq!(report.oculus_visemes.len(), 15);
    assert_eq!(report.skins[0].joints, avatar::JOINTS);
    assert_eq!(report.skins[0].joint_names[3], "mixamorig:Joint3");
    assert_eq!(report.clips[0].name, "idle");
    assert!((report.clips[0].duration_s - 2.0).abs() < 1e-6);
    // jawOpen lives on head, teeth and tongue; the eye targets on both eye primitives.
    assert_eq!(asset.face_rig.arkit(ArkitTarget::JawOpen).len(), 3);
    assert_eq!(asset.face_rig.arkit(ArkitTarget::EyeLookUpLeft).len(), 3);
    // Geometry survives exactly.
    let head = &asset.meshes[0].primitives[0];
    let original = avatar::sphere(0.1, glam::Vec3::new(0.0, 1.6, 0.0), 50, 60, 70, 66);
    assert_eq!(head.positions, original.positions);
    assert_eq!(head.indices, original.indices);
    assert_eq!(head.targets[69].positions, original.targets[69].positions);
    assert_eq!(head.joints, original.joints);
}
