use std::sync::OnceLock;

use super::*;
use crate::asset::Asset;

/// The head loaded back through the glTF loader, with its landmarks.
fn loaded() -> &'static (Asset, HeadLandmarks) {
    static LOADED: OnceLock<(Asset, HeadLandmarks)> = OnceLock::new();
    LOADED.get_or_init(|| {
        let asset = Asset::from_bytes(&head_glb(), None).expect("the head's GLB loads");
        (asset, landmarks())
    })
}

fn mesh_index(asset: &Asset, name: &str) -> usize {
    asset
        .meshes
        .iter()
        .position(|m| m.name.as_deref() == Some(name))
        .expect("the part is in the file")
}

/// Positions of every primitive (`[mesh][primitive][vertex]`) with targets applied:
/// base + sum of weight * delta, through the face rig.
fn posed(asset: &Asset, weights: &[(ArkitTarget, f32)]) -> Vec<Vec<Vec<Vec3>>> {
    let mut out: Vec<Vec<Vec<Vec3>>> = asset
        .meshes
        .iter()
        .map(|m| {
            m.primitives
                .iter()
                .map(|p| p.positions.iter().map(|&q| Vec3::from(q)).collect())
                .collect()
        })
        .collect();
    for &(target, w) in weights {
        for r in asset.face_rig.arkit(target) {
            let deltas = &asset.meshes[r.mesh].primitives[r.primitive].targets[r.target];
            for (p, d) in out[r.mesh][r.primitive].iter_mut().zip(&deltas.positions) {
                *p += Vec3::from(*d) * w;
            }
        }
    }
    out
}

fn skin_points(weights: &[(ArkitTarget, f32)]) -> Vec<Vec3> {
    let (asset, _) = loaded();
    let mut all = posed(asset, weights);
    std::mem::take(&mut all[mesh_index(asset, SKIN_PART)][0])
}

/// Largest distance between paired upper and lower lip edge vertices.
fn lip_gap(points: &[Vec3], marks: &HeadLandmarks) -> f32 {
    marks
        .upper_lip_inner
        .iter()
        .zip(&marks.lower_lip_inner)
        .map(|(&u, &l)| points[u].distance(points[l]))
        .fold(0.0, f32::max)
}

#[test]
fn the_face_rig_covers_all_52_targets() {
    let (asset, _) = loaded();
    assert_eq!(
        asset.face_rig.arkit_coverage(),
        52,
        "{:?}",
        asset.face_rig.arkit_missing()
    );
    assert!(asset.warnings.is_empty(), "{:?}", asset.warnings);
    assert_eq!(asset.roots.len(), 1);
    let root = &asset.nodes[asset.roots[0]];
    assert_eq!(root.name.as_deref(), Some("Head"));
    assert_eq!(root.children.len(), asset.meshes.len());
}

#[test]
fn every_target_moves_some_vertex_by_half_a_millimetre() {
    let (asset, _) = loaded();
    for target in ArkitTarget::ALL {
        let largest = asset
            .face_rig
            .arkit(target)
            .iter()
            .flat_map(|r| {
                asset.meshes[r.mesh].primitives[r.primitive].targets[r.target]
                    .positions
                    .iter()
                    .map(|d| Vec3::from(*d).length())
            })
            .fold(0.0, f32::max);
        assert!(
            largest > 0.0005,
            "{} moves at most {largest} m",
            target.name()
        );
    }
}

#[test]
fn targets_repeat_on_the_parts_that_follow_them() {
    let (asset, _) = loaded();
    let carriers = |t: ArkitTarget| -> Vec<&str> {
        asset
            .face_rig
            .arkit(t)
            .iter()
            .filter_map(|r| asset.meshes[r.mesh].name.as_deref())
            .collect()
    };
    let jaw = carriers(ArkitTarget::JawOpen);
    for part in [SKIN_PART, "teeth_lower", TONGUE_PART, "mouth"] {
        assert!(jaw.contains(&part), "jawOpen is not on {part}: {jaw:?}");
    }
    let look = carriers(ArkitTarget::EyeLookInLeft);
    for part in ["eye_left", "iris_left", "pupil_left"] {
        assert!(
            look.contains(&part),
            "eyeLookInLeft is not on {part}: {look:?}"
        );
    }
    assert!(!look.contains(&"eye_right"), "{look:?}");
    assert!(carriers(ArkitTarget::EyeBlinkLeft).contains(&SKIN_PART));
}

#[test]
fn a_blink_brings_the_upper_lid_below_the_pupil() {
    let (_, marks) = loaded();
    let rest = skin_points(&[]);
    for (e, target) in [
        (0, ArkitTarget::EyeBlinkLeft),
        (1, ArkitTarget::EyeBlinkRight),
    ] {
        let pupil = marks.pupil_centres[e];
        assert!(marks.upper_lid[e].len() >= 3);
        for &i in &marks.upper_lid[e] {
            assert!(rest[i].y > pupil.y + 0.003, "the eye is open at rest");
        }
        let shut = skin_points(&[(target, 1.0)]);
        for (&u, &l) in marks.upper_lid[e].iter().zip(&marks.lower_lid[e]) {
            assert!(
                shut[u].y < pupil.y,
                "upper lid at {} over a pupil at {}",
                shut[u].y,
                pupil.y
            );
            assert!(shut[u].distance(shut[l]) < 0.0005, "the lids meet");
            // The lid stays in front of the eyeball.
            assert!(shut[u].distance(marks.eye_centres[e]) > EYE_R);
        }
        // The other eye stays open.
        let other = 1 - e;
        for &i in &marks.upper_lid[other] {
            assert!(shut[i].distance(rest[i]) < 1e-5);
        }
    }
}

#[test]
fn the_lips_are_closed_at_rest_and_mouth_close_seals_an_open_jaw() {
    let (_, marks) = loaded();
    assert!(
        lip_gap(&skin_points(&[]), marks) < 1e-5,
        "no crack at the seam"
    );
    for w in [0.25, 0.5, 1.0] {
        let open = skin_points(&[(ArkitTarget::JawOpen, w)]);
        assert!(lip_gap(&open, marks) > 0.01 * w);
        let closed = skin_points(&[(ArkitTarget::JawOpen, w), (ArkitTarget::MouthClose, w)]);
        let gap = lip_gap(&closed, marks);
        assert!(
            gap < 0.001,
            "jawOpen = mouthClose = {w}: lips {gap} m apart"
        );
    }
}

#[test]
fn jaw_open_opens_the_lips_by_15_mm() {
    let (_, marks) = loaded();
    let open = skin_points(&[(ArkitTarget::JawOpen, 1.0)]);
    let gap = lip_gap(&open, marks);
    assert!(gap >= 0.015, "lips {gap} m apart");
    // Down and back, about the hinge.
    let mid = marks.lower_lip_inner.len() / 2;
    let rest = skin_points(&[]);
    let i = marks.lower_lip_inner[mid];
    assert!(open[i].y < rest[i].y - 0.015 && open[i].z < rest[i].z);
    let j = marks.upper_lip_inner[mid];
    assert!(open[j].distance(rest[j]) < 0.001, "the upper lip stays");
}

#[test]
fn press_closes_the_lips_too() {
    let (_, marks) = loaded();
    let pressed = skin_points(&[
        (ArkitTarget::MouthPressLeft, 1.0),
        (ArkitTarget::MouthPressRight, 1.0),
    ]);
    assert!(lip_gap(&pressed, marks) < 0.001);
}

#[test]
fn pucker_draws_both_corners_inwards() {
    let (_, marks) = loaded();
    let rest = skin_points(&[]);
    let pucker = skin_points(&[(ArkitTarget::MouthPucker, 1.0)]);
    for &c in &marks.lip_corners {
        assert!(
            pucker[c].x.abs() < rest[c].x.abs() - 0.004,
            "{} -> {}",
            rest[c].x,
            pucker[c].x
        );
        assert!(pucker[c].z > rest[c].z);
    }
    assert!(lip_gap(&pucker, marks) < 0.001);
}

#[test]
fn smile_left_raises_the_left_corner() {
    let (_, marks) = loaded();
    let rest = skin_points(&[]);
    let smile = skin_points(&[(ArkitTarget::MouthSmileLeft, 1.0)]);
    let [left, right] = marks.lip_corners;
    assert!(rest[left].x > 0.0 && rest[right].x < 0.0, "left is +X");
    assert!(smile[left].y > rest[left].y + 0.003);
    assert!(smile[right].distance(rest[right]) < 0.0005);
    let frown = skin_points(&[(ArkitTarget::MouthFrownRight, 1.0)]);
    assert!(frown[right].y < rest[right].y - 0.003);
}

#[test]
fn tongue_out_puts_the_tip_in_front_of_the_lips() {
    let (asset, marks) = loaded();
    let rest = skin_points(&[]);
    let lips = rest[marks.upper_lip_front]
        .z
        .max(rest[marks.lower_lip_front].z);
    let tongue = mesh_index(asset, TONGUE_PART);
    let inside = posed(asset, &[])[tongue][0][marks.tongue_tip];
    assert!(inside.z < lips - 0.01, "the tongue is inside at rest");
    let out = posed(asset, &[(ArkitTarget::TongueOut, 1.0)])[tongue][0][marks.tongue_tip];
    assert!(out.z > lips, "tip at z = {}, lips at {lips}", out.z);
    let both = posed(
        asset,
        &[(ArkitTarget::TongueOut, 1.0), (ArkitTarget::JawOpen, 0.5)],
    );
    assert!(both[tongue][0][marks.tongue_tip].z > lips);
}

#[test]
fn eye_look_turns_each_eye_about_its_centre() {
    let (asset, marks) = loaded();
    let pupil = mesh_index(asset, "pupil_left");
    let right = mesh_index(asset, "pupil_right");
    let rest = posed(asset, &[]);
    let center = |p: &[Vec3]| p.iter().fold(Vec3::ZERO, |a, &b| a + b) / p.len() as f32;
    let at_rest = center(&rest[pupil][0]);
    for (target, check) in [
        (
            ArkitTarget::EyeLookInLeft,
            (|d: Vec3| d.x < -0.003) as fn(Vec3) -> bool,
        ),
        (ArkitTarget::EyeLookOutLeft, |d: Vec3| d.x > 0.003),
        (ArkitTarget::EyeLookUpLeft, |d: Vec3| d.y > 0.003),
        (ArkitTarget::EyeLookDownLeft, |d: Vec3| d.y < -0.003),
    ] {
        let moved = posed(asset, &[(target, 1.0)]);
        let d = center(&moved[pupil][0]) - at_rest;
        assert!(check(d), "{}: pupil moved {d}", target.name());
        // Rotation about the eye's centre keeps the pupil on the eyeball.
        let r = moved[pupil][0][0].distance(marks.eye_centres[0]);
        assert!((r - (EYE_R + 0.00025)).abs() < 1e-4);
        assert_eq!(moved[right][0], rest[right][0], "the right eye stays");
    }
}

#[test]
fn the_glb_is_deterministic() {
    assert!(head_glb() == head_glb());
}

/// Signed volume of a triangle mesh: positive when its triangles face out.
fn volume(p: &Primitive) -> f32 {
    p.indices
        .chunks_exact(3)
        .map(|t| {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| Vec3::from(p.positions[i as usize]));
            a.dot(b.cross(c)) / 6.0
        })
        .sum()
}

#[test]
fn parts_face_outwards_and_are_well_formed() {
    let parts = head_parts();
    let total: usize = parts.iter().map(|p| p.primitive.positions.len()).sum();
    assert!((5_000..20_000).contains(&total), "{total} vertices");
    for part in &parts {
        let p = &part.primitive;
        assert_eq!(p.targets.len(), part.target_names.len(), "{}", part.name);
        assert_eq!(p.normals.len(), p.positions.len());
        assert!(p.uvs.is_empty() || p.uvs.len() == p.positions.len());
        assert!(p.indices.iter().all(|&i| (i as usize) < p.positions.len()));
        assert!(p.positions.iter().flatten().all(|v| v.is_finite()));
        for n in &p.normals {
            assert!(
                (Vec3::from(*n).length() - 1.0).abs() < 1e-3,
                "{}",
                part.name
            );
        }
        for t in &p.targets {
            assert_eq!(t.positions.len(), p.positions.len());
        }
        for name in &part.target_names {
            assert!(ArkitTarget::from_name(name).is_some());
        }
        if part.name != "mouth" {
            // Offset so the volume is taken about a point inside the part.
            let centre = p
                .positions
                .iter()
                .fold(Vec3::ZERO, |a, &b| a + Vec3::from(b))
                / p.positions.len() as f32;
            let shifted = Primitive {
                positions: p
                    .positions
                    .iter()
                    .map(|&q| (Vec3::from(q) - centre).to_array())
                    .collect(),
                indices: p.indices.clone(),
                ..Primitive::default()
            };
            assert!(volume(&shifted) > 0.0, "{} faces inwards", part.name);
        }
    }
}

#[test]
fn the_eyeballs_stay_behind_the_skin() {
    let parts = head_parts();
    let marks = landmarks();
    let skin = &parts[0];
    assert_eq!(skin.name, SKIN_PART);
    let lay = layout();
    let built = build_skin(&lay);
    for (i, v) in built.verts.iter().enumerate() {
        if matches!(v.eye, EyeRole::Flap(..)) {
            continue;
        }
        let p = Vec3::from(skin.primitive.positions[i]);
        for c in marks.eye_centres {
            assert!(
                p.distance(c) > EYE_R + 0.0008,
                "skin vertex {i} at {p} cuts an eyeball"
            );
        }
    }
}

#[test]
fn the_teeth_sit_behind_the_lips_and_the_neck_base_is_low() {
    let parts = head_parts();
    let marks = landmarks();
    let skin = &parts[0].primitive;
    let seam_z =
        Vec3::from(skin.positions[marks.upper_lip_inner[marks.upper_lip_inner.len() / 2]]).z;
    for part in parts
        .iter()
        .filter(|p| p.name.starts_with("teeth") || p.name == TONGUE_PART)
    {
        let front = part
            .primitive
            .positions
            .iter()
            .map(|p| p[2])
            .fold(f32::MIN, f32::max);
        assert!(front < seam_z - 0.005, "{} reaches z = {front}", part.name);
    }
    assert!((marks.neck_base.y + 0.12).abs() < 1e-6);
    let lowest = skin.positions.iter().map(|p| p[1]).fold(f32::MAX, f32::min);
    assert!((lowest + 0.12).abs() < 0.002);
    assert!(marks.nose_tip.z > marks.chin.z && marks.chin.y < marks.nose_tip.y);
}

/// Triangles of the skin that turn over when the given targets are applied.
fn folds(weights: &[(ArkitTarget, f32)]) -> usize {
    static PARTS: OnceLock<Vec<HeadPart>> = OnceLock::new();
    let parts = PARTS.get_or_init(head_parts);
    let skin = &parts[0].primitive;
    let rest: Vec<Vec3> = skin.positions.iter().map(|&q| Vec3::from(q)).collect();
    let mut moved = rest.clone();
    for &(target, w) in weights {
        let t = parts[0]
            .target_names
            .iter()
            .position(|&n| n == target.name());
        let Some(t) = t else { continue };
        for (m, d) in moved.iter_mut().zip(&skin.targets[t].positions) {
            *m += Vec3::from(*d) * w;
        }
    }
    skin.indices
        .chunks_exact(3)
        .filter(|t| {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| i as usize);
            let before = (rest[b] - rest[a]).cross(rest[c] - rest[a]);
            let after = (moved[b] - moved[a]).cross(moved[c] - moved[a]);
            before.length() > 1e-10 && before.dot(after) < 0.0
        })
        .count()
}

#[test]
fn no_target_folds_the_skin() {
    for target in ArkitTarget::ALL {
        // mouthClose corrects jawOpen and is only meant with it.
        if target != ArkitTarget::MouthClose {
            assert_eq!(
                folds(&[(target, 1.0)]),
                0,
                "{} folds the skin",
                target.name()
            );
        }
    }
    for w in [0.5, 1.0] {
        let close = [(ArkitTarget::JawOpen, w), (ArkitTarget::MouthClose, w)];
        assert_eq!(folds(&close), 0);
    }
    let smile = [
        (ArkitTarget::JawOpen, 1.0),
        (ArkitTarget::MouthSmileLeft, 1.0),
        (ArkitTarget::MouthSmileRight, 1.0),
    ];
    assert_eq!(folds(&smile), 0);
}
