//! Blend-shape transfer measured, not eyeballed: landmarks found where the project's head was
//! made; the VALID heads' own shapes against the ones transferred onto them; a re-proportioned
//! copy of the project's head whose true shapes are known; the Quaternius heads (no shapes)
//! without spikes and with lips that part.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use glam::Vec3;
use npc_core::asset::Asset;
use npc_core::procedural::{body, head};
use npc_core::transfer::{Transfer, TransferOptions, find_landmarks, transfer};

fn own_avatar() -> Asset {
    Asset::from_bytes(&body::avatar_glb(&head::head_parts()), None).unwrap()
}

/// The transferred deltas of one target on one primitive.
fn transferred<'a>(made: &'a Transfer, mesh: usize, name: &str) -> Option<&'a [[f32; 3]]> {
    let k = made.shapes.names.iter().position(|n| n == name)?;
    made.shapes
        .primitives
        .iter()
        .find(|p| p.mesh == mesh && p.primitive == 0)
        .map(|p| p.deltas[k].as_slice())
}

/// The avatar's own deltas of the target named `raw` on mesh `mesh`, primitive 0.
fn own<'a>(asset: &'a Asset, mesh: usize, raw: &str) -> &'a [[f32; 3]] {
    let m = &asset.meshes[mesh];
    let t = m
        .target_names
        .iter()
        .position(|n| n.raw.as_deref() == Some(raw))
        .unwrap_or_else(|| panic!("no target {raw}"));
    &m.primitives[0].targets[t].positions
}

/// Cosine similarity of two displacement fields (per-vertex offsets as one long vector).
fn cosine(a: &[[f32; 3]], b: &[[f32; 3]]) -> f32 {
    let (mut ab, mut aa, mut bb) = (0.0_f64, 0.0_f64, 0.0_f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (
            Vec3::from_array(*x).as_dvec3(),
            Vec3::from_array(*y).as_dvec3(),
        );
        ab += x.dot(y);
        aa += x.length_squared();
        bb += y.length_squared();
    }
    #[allow(clippy::cast_possible_truncation)]
    let c = (ab / (aa.sqrt() * bb.sqrt()).max(1e-30)) as f32;
    c
}

fn sum(a: &[[f32; 3]], b: &[[f32; 3]]) -> Vec<[f32; 3]> {
    a.iter()
        .zip(b)
        .map(|(x, y)| (Vec3::from_array(*x) + Vec3::from_array(*y)).to_array())
        .collect()
}

#[test]
fn landmarks_are_found_where_the_project_head_was_made() {
    let asset = Asset::from_bytes(&head::head_glb(), None).unwrap();
    let found = find_landmarks(&asset).unwrap();
    let known = head::landmarks();
    let parts = head::head_parts();
    let skin = &parts
        .iter()
        .find(|p| p.name == head::SKIN_PART)
        .unwrap()
        .primitive
        .positions;
    let at = |v: usize| Vec3::from_array(skin[v]);
    let mid = known.upper_lip_inner.len() / 2;
    let seam = (at(known.upper_lip_inner[mid]) + at(known.lower_lip_inner[mid])) * 0.5;
    let checks = [
        ("nose_tip", known.nose_tip),
        ("mouth_centre", seam),
        ("mouth_corner_left", at(known.lip_corners[0])),
        ("mouth_corner_right", at(known.lip_corners[1])),
    ];
    for (name, truth) in checks {
        let got = found.get(name).unwrap();
        let off = got.distance(truth) * 1000.0;
        eprintln!("{name}: found {got}, made at {truth}: {off:.1} mm");
    }
    for (name, truth, within_mm) in [
        ("nose_tip", checks[0].1, 2.0),
        ("mouth_centre", checks[1].1, 2.0),
        ("mouth_corner_left", checks[2].1, 4.0),
        ("mouth_corner_right", checks[3].1, 4.0),
    ] {
        let off = found.get(name).unwrap().distance(truth) * 1000.0;
        assert!(
            off < within_mm,
            "{name} is {off:.1} mm from where it was made"
        );
    }
    for (side, name) in ["left", "right"].iter().enumerate() {
        let front = found.get(&format!("eye_{name}_front")).unwrap();
        let centre = known.eye_centres[side];
        assert!(
            front.z > centre.z + 0.01,
            "{name} eye front {front} centre {centre}"
        );
        assert!((front.x - centre.x).abs() < 0.002 && (front.y - centre.y).abs() < 0.002);
    }
}

#[test]
fn shapes_transferred_onto_a_valid_head_match_its_own() {
    let Some(path) = common::shared_asset("avatars/VALID_Black_F_1_Busi.glb") else {
        return;
    };
    let valid = Asset::load(&path).unwrap();
    let made = transfer(&own_avatar(), &valid, &TransferOptions::default()).unwrap();
    eprintln!("{:#?}", made.report.seam);
    eprintln!(
        "median {:.2} mm p90 {:.2} mm guessed {:?}",
        made.report.surface_distance_median_mm,
        made.report.surface_distance_p90_mm,
        made.report.target_guessed
    );
    let ours = |name| transferred(&made, 0, name).unwrap();
    let jaw = cosine(ours("jawOpen"), own(&valid, 0, "h_expressions.MouthOpen_h"));
    let vowel = cosine(ours("jawOpen"), own(&valid, 0, "h_expressions.AE_AA_h"));
    let press = sum(ours("mouthPressLeft"), ours("mouthPressRight"));
    let closed = sum(
        own(&valid, 0, "h_expressions.MPB_Up_h"),
        own(&valid, 0, "h_expressions.MPB_Down_h"),
    );
    let press_cos = cosine(&press, &closed);
    let close_cos = cosine(ours("mouthClose"), &closed);
    let blink_l = cosine(
        ours("eyeBlinkLeft"),
        own(&valid, 0, "h_expressions.LeyeClose_h"),
    );
    let blink_r = cosine(
        ours("eyeBlinkRight"),
        own(&valid, 0, "h_expressions.ReyeClose_h"),
    );
    let blink_crossed = cosine(
        ours("eyeBlinkLeft"),
        own(&valid, 0, "h_expressions.ReyeClose_h"),
    );
    eprintln!(
        "cosine: jawOpen/MouthOpen {jaw:.3}, jawOpen/AE_AA {vowel:.3}, mouthPress/MPB {press_cos:.3}, mouthClose/MPB {close_cos:.3}, blink L {blink_l:.3} R {blink_r:.3} crossed {blink_crossed:.3}"
    );
    // Measured: blinks 0.82, the lips pressed 0.45, the jaw 0.25-0.31 (VALID heads open the
    // jaw with its shape and a jaw joint together, the shape alone is part of the movement).
    assert!(blink_l > 0.7 && blink_r > 0.7, "blinks {blink_l} {blink_r}");
    assert!(
        blink_crossed.abs() < 0.1,
        "the left blink follows the right eye: {blink_crossed}"
    );
    assert!(
        press_cos > 0.3 && close_cos > 0.3,
        "{press_cos} {close_cos}"
    );
    assert!(jaw > 0.15 && vowel > 0.15, "{jaw} {vowel}");
    let seam = made.report.seam.clone().unwrap();
    assert!(seam.lips_part && seam.mouth_closes, "{seam:?}");
    assert_eq!(seam.upper_lip_vertices_following_the_jaw, 0, "{seam:?}");
}

/// A smooth re-proportioning of the project's head (in its own space, metres): wider, shorter,
/// the cheeks lifted and the top pushed back.
fn reproportion(p: Vec3) -> Vec3 {
    Vec3::new(
        1.08 * p.x,
        0.94 * p.y + 1.5 * p.x * p.x,
        1.03 * p.z - 0.8 * p.y * p.y,
    )
}

/// The project's head re-proportioned, its shapes carried by the same deformation.
fn reproportioned_parts() -> Vec<head::HeadPart> {
    let mut parts = head::head_parts();
    for part in &mut parts {
        let rest = part.primitive.positions.clone();
        for target in &mut part.primitive.targets {
            for (d, p) in target.positions.iter_mut().zip(&rest) {
                let p = Vec3::from_array(*p);
                *d = (reproportion(p + Vec3::from_array(*d)) - reproportion(p)).to_array();
            }
        }
        for p in &mut part.primitive.positions {
            *p = reproportion(Vec3::from_array(*p)).to_array();
        }
    }
    parts
}

#[test]
fn landmarks_are_found_at_the_same_places_on_a_reproportioned_head() {
    let own = find_landmarks(&Asset::from_bytes(&head::head_glb(), None).unwrap()).unwrap();
    let other = find_landmarks(
        &Asset::from_bytes(&head::head_glb_of(&reproportioned_parts()), None).unwrap(),
    )
    .unwrap();
    for (name, p) in &own.0 {
        let expected = reproportion(Vec3::from_array(*p));
        let off = other.get(name).unwrap().distance(expected) * 1000.0;
        eprintln!("{name}: {off:.1} mm from where the deformation carries it");
        // The nose tip is the face's most forward point, and a deformation that tilts the
        // face moves that point along the nose (4.4 mm here).
        let within = if name == "nose_tip" { 5.0 } else { 3.0 };
        assert!(off < within, "{name}: {off:.1} mm");
    }
}

#[test]
fn shapes_transferred_onto_a_reproportioned_head_match_its_true_shapes() {
    let parts = reproportioned_parts();
    // Heads alone: the body's joints would stay where they are while the head deforms.
    let target = Asset::from_bytes(&head::head_glb_of(&parts), None).unwrap();
    let source = Asset::from_bytes(&head::head_glb(), None).unwrap();
    let made = transfer(&source, &target, &TransferOptions::default()).unwrap();
    eprintln!(
        "median {:.2} mm p90 {:.2} mm guessed {:?}",
        made.report.surface_distance_median_mm,
        made.report.surface_distance_p90_mm,
        made.report.target_guessed
    );
    let skin = target
        .meshes
        .iter()
        .position(|m| m.name.as_deref() == Some(head::SKIN_PART) && m.target_count() > 0)
        .unwrap();
    let mut worst = Vec::new();
    for (t, name) in target.meshes[skin].target_names.iter().enumerate() {
        let name = name.raw.clone().unwrap();
        let truth = &target.meshes[skin].primitives[0].targets[t].positions;
        let Some(ours) = transferred(&made, skin, &name) else {
            continue;
        };
        let (mut sum2, mut n, mut max) = (0.0_f32, 0_usize, 0.0_f32);
        for (a, b) in ours.iter().zip(truth) {
            let (a, b) = (Vec3::from_array(*a), Vec3::from_array(*b));
            if a.length() > 1e-5 || b.length() > 1e-5 {
                let e = a.distance(b) * 1000.0;
                sum2 += e * e;
                n += 1;
                max = max.max(e);
            }
        }
        #[allow(clippy::cast_precision_loss)]
        let rms = (sum2 / n.max(1) as f32).sqrt();
        let largest = truth
            .iter()
            .map(|d| Vec3::from_array(*d).length())
            .fold(0.0, f32::max)
            * 1000.0;
        worst.push((name, rms, max, largest));
    }
    worst.sort_by(|a, b| b.1.total_cmp(&a.1));
    for (name, rms, max, largest) in &worst {
        eprintln!("{name}: rms {rms:.2} mm, max {max:.2} mm (truth's largest {largest:.1} mm)");
    }
    assert_eq!(worst.len(), target.meshes[skin].target_count());
    // Measured: jawOpen 3.7 mm (its largest offset 44.7 mm), every other target 1.5 mm or less.
    for (name, rms, _, _) in &worst {
        let limit = if name == "jawOpen" { 4.5 } else { 2.0 };
        assert!(*rms < limit, "{name}: rms error {rms:.2} mm");
    }
    assert!(
        made.report.surface_distance_median_mm < 1.0,
        "{:?}",
        made.report.surface_distance_median_mm
    );
}

#[test]
fn a_quaternius_head_gets_shapes_without_spikes_and_its_lips_part() {
    let Some(path) = common::shared_asset("avatars/Quaternius_Superhero_Male.glb") else {
        return;
    };
    let quaternius = Asset::load(&path).unwrap();
    let source = own_avatar();
    let made = transfer(&source, &quaternius, &TransferOptions::default()).unwrap();
    eprintln!("{}", serde_json::to_string_pretty(&made.report).unwrap());
    // The source's largest offset per target.
    let mut largest = std::collections::BTreeMap::new();
    for mesh in &source.meshes {
        for (t, name) in mesh.target_names.iter().enumerate() {
            let Some(name) = name.raw.clone() else {
                continue;
            };
            let m = mesh.primitives[0].targets[t]
                .positions
                .iter()
                .map(|d| Vec3::from_array(*d).length())
                .fold(0.0_f32, f32::max);
            let entry = largest.entry(name).or_insert(0.0_f32);
            *entry = entry.max(m * 1000.0);
        }
    }
    for target in &made.report.targets {
        let limit = 2.0 * largest[&target.name];
        assert!(
            target.largest_offset_mm <= limit,
            "{}: {:.1} mm, the source's largest is {:.1} mm",
            target.name,
            target.largest_offset_mm,
            limit / 2.0
        );
    }
    let seam = made.report.seam.clone().expect("the seam was checked");
    assert!(seam.lips_part && seam.mouth_closes, "{seam:?}");
    // Measured: 0 (2 while the seam was taken for the groove under the nose).
    assert!(seam.upper_lip_vertices_following_the_jaw <= 2, "{seam:?}");
    // The seam lies where the fold between the lips is, about 34 mm under the nose tip.
    let nose = made.report.target_landmarks.get("nose_tip").unwrap();
    let mouth = made.report.target_landmarks.get("mouth_centre").unwrap();
    let below = (nose.y - mouth.y) * 1000.0;
    assert!(
        (30.0..40.0).contains(&below),
        "the mouth {below:.1} mm under the nose"
    );
}

/// Each target's name and per-vertex deltas.
type Shapes = Vec<(String, Vec<[f32; 3]>)>;

/// The project's head as one merged, unnamed mesh without shapes (as office exports write
/// avatars: head, eyes, teeth and mouth in one object), and the truth: its parts' own shapes.
fn merged_head() -> (Vec<u8>, Shapes) {
    use npc_core::asset::mesh::Primitive;
    use npc_core::asset::scene::Node;
    use npc_core::asset::writer::GlbWriter;
    let parts = head::head_parts();
    let mut merged = Primitive::default();
    let total: usize = parts.iter().map(|p| p.primitive.positions.len()).sum();
    let mut truth: Shapes = Vec::new();
    for part in &parts {
        let first = merged.positions.len();
        let p = &part.primitive;
        merged.positions.extend(&p.positions);
        merged.normals.extend(&p.normals);
        merged
            .indices
            .extend(p.indices.iter().map(|i| i + u32::try_from(first).unwrap()));
        for (t, name) in p.targets.iter().zip(&part.target_names) {
            let slot = match truth.iter().position(|(n, _)| n == name) {
                Some(i) => &mut truth[i].1,
                None => {
                    truth.push(((*name).to_owned(), vec![[0.0; 3]; total]));
                    &mut truth.last_mut().unwrap().1
                }
            };
            slot[first..first + t.positions.len()].copy_from_slice(&t.positions);
        }
    }
    let mut writer = GlbWriter::new();
    let mesh = writer.add_mesh("Mesh", &[merged], &[], &[]);
    let node = writer.add_node(&Node::showing("Mesh", mesh));
    writer.set_roots(vec![node]);
    (writer.to_glb(), truth)
}

#[test]
fn a_merged_head_without_names_gets_its_eyes_and_teeth_found_and_its_own_shapes_back() {
    let (glb, truth) = merged_head();
    let target = Asset::from_bytes(&glb, None).unwrap();
    let source = Asset::from_bytes(&head::head_glb(), None).unwrap();
    let made = transfer(&source, &target, &TransferOptions::default()).unwrap();
    eprintln!(
        "median {:.2} mm, guessed {:?}",
        made.report.surface_distance_median_mm, made.report.target_guessed
    );
    let mut errors = Vec::new();
    for (name, truth) in &truth {
        let ours = transferred(&made, 0, name).unwrap();
        let (mut sum2, mut n) = (0.0_f32, 0_usize);
        for (a, b) in ours.iter().zip(truth) {
            let (a, b) = (Vec3::from_array(*a), Vec3::from_array(*b));
            if a.length() > 1e-5 || b.length() > 1e-5 {
                sum2 += (a.distance(b) * 1000.0).powi(2);
                n += 1;
            }
        }
        #[allow(clippy::cast_precision_loss)]
        errors.push((name.clone(), (sum2 / n.max(1) as f32).sqrt()));
    }
    errors.sort_by(|a, b| b.1.total_cmp(&a.1));
    eprintln!("{errors:?}");
    // The eyeballs turn (found as loose round pieces), the lower teeth open with the jaw (a
    // loose piece on the source's teeth), the lips and skin follow their own shapes. Measured:
    // 0.17 mm at most (jawLeft); with the pupils left out of the eyes, 1.6 mm.
    for (name, rms) in &errors {
        assert!(*rms < 0.3, "{name}: rms error {rms:.2} mm");
    }
}

/// Oculus visemes made from the head's own ARKit targets: (name, [(target, weight)]).
const VISEMES: [(&str, &[(&str, f32)]); 3] = [
    (
        "viseme_PP",
        &[
            ("mouthClose", 1.0),
            ("mouthPressLeft", 0.5),
            ("mouthPressRight", 0.5),
        ],
    ),
    (
        "viseme_aa",
        &[
            ("jawOpen", 0.8),
            ("mouthStretchLeft", 0.2),
            ("mouthStretchRight", 0.2),
        ],
    ),
    ("viseme_O", &[("jawOpen", 0.4), ("mouthFunnel", 0.7)]),
];

#[test]
fn oculus_visemes_of_the_source_are_transferred_with_the_arkit_targets() {
    // The project's head with three Oculus visemes, each a mix of its ARKit targets.
    let mut parts = head::head_parts();
    for part in &mut parts {
        for (name, mix) in VISEMES {
            let n = part.primitive.positions.len();
            let mut positions = vec![[0.0_f32; 3]; n];
            let mut any = false;
            for (target, w) in mix {
                let Some(t) = part.target_names.iter().position(|x| x == target) else {
                    continue;
                };
                any = true;
                for (out, d) in positions
                    .iter_mut()
                    .zip(&part.primitive.targets[t].positions)
                {
                    *out = (Vec3::from_array(*out) + Vec3::from_array(*d) * *w).to_array();
                }
            }
            if any {
                part.primitive
                    .targets
                    .push(npc_core::asset::mesh::MorphTarget {
                        positions,
                        normals: Vec::new(),
                    });
                part.target_names.push(name);
            }
        }
    }
    let source = Asset::from_bytes(&head::head_glb_of(&parts), None).unwrap();
    let target = Asset::from_bytes(&head::head_glb_of(&reproportioned_parts()), None).unwrap();
    let made = transfer(&source, &target, &TransferOptions::default()).unwrap();
    let skin = target
        .meshes
        .iter()
        .position(|m| m.name.as_deref() == Some(head::SKIN_PART) && m.target_count() > 0)
        .unwrap();
    for (name, mix) in VISEMES {
        let viseme = transferred(&made, skin, name).unwrap_or_else(|| panic!("no {name}"));
        assert!(made.report.target(name).is_some(), "{name} not reported");
        // The same mix of the transferred ARKit targets.
        let mut expected = vec![[0.0_f32; 3]; viseme.len()];
        for (t, w) in mix {
            let part = transferred(&made, skin, t).unwrap();
            let weighted: Vec<[f32; 3]> = part
                .iter()
                .map(|d| (Vec3::from_array(*d) * *w).to_array())
                .collect();
            expected = sum(&expected, &weighted);
        }
        let c = cosine(viseme, &expected);
        let largest = viseme
            .iter()
            .map(|d| Vec3::from_array(*d).length())
            .fold(0.0_f32, f32::max);
        eprintln!(
            "{name}: cosine {c:.4} with its mix, largest offset {:.1} mm",
            largest * 1e3
        );
        assert!(largest > 0.002, "{name} does not move the skin");
        assert!(c > 0.99, "{name}: cosine {c}");
    }
}

#[test]
fn a_landmark_moved_across_the_face_stays_on_the_skin_or_keeps_its_depth() {
    use npc_core::transfer::{Aspect, FaceView};
    let asset = Asset::from_bytes(&head::head_glb(), None).unwrap();
    let view = FaceView::of(&asset).unwrap();
    let frame = view.frame;
    let facing = view
        .triangles
        .iter()
        .filter(|t| t.facing(Aspect::Front) > 0.0)
        .count();
    assert!(
        facing > view.triangles.len() / 3,
        "{facing} of {}",
        view.triangles.len()
    );
    // Farthest first, so nearer triangles are drawn over them.
    let depth = |t: &npc_core::transfer::ViewTriangle| t.corners.iter().map(|p| p.z).sum::<f32>();
    assert!(
        view.triangles
            .windows(2)
            .all(|w| depth(&w[0]) <= depth(&w[1]))
    );
    // A mouth corner dropped on the nose tip's spot lands on the nose tip (the skin's front).
    let nose = view.found.get("nose_tip").unwrap();
    let corner = view.found.get("mouth_corner_left").unwrap();
    let landed = view.moved(
        "mouth_corner_left",
        corner,
        frame.local(nose).truncate(),
        Aspect::Front,
    );
    let off_mm = landed.distance(nose) * 1000.0;
    eprintln!("mouth corner dropped on the nose tip: {off_mm:.2} mm from it");
    assert!(off_mm < 1.0, "{off_mm:.2} mm");
    // An eye's inner corner moved 2 mm up keeps its depth in the head's frame.
    let inner = view.found.get("eye_left_inner").unwrap();
    let local = frame.local(inner);
    let to = local.truncate() + glam::Vec2::new(0.0, 0.002);
    let moved = frame.local(view.moved("eye_left_inner", inner, to, Aspect::Front));
    assert!((moved.z - local.z).abs() < 1e-5, "{moved} vs {local}");
    assert!(moved.truncate().distance(to) < 1e-5);
    // The view covers the face between the eyes and the chin.
    let (low, high) = view.bounds(Aspect::Front);
    let chin = frame.local(view.found.get("chin").unwrap());
    assert!(low.y <= chin.y && high.y >= 0.0 && low.x < 0.0 && high.x > 0.0);
    // From the side (its right), the nearest triangles are on the right of the head.
    let drawn: Vec<_> = view.drawn(Aspect::Side).collect();
    assert_eq!(drawn.len(), view.triangles.len());
    let rightness =
        |t: &npc_core::transfer::ViewTriangle| -t.corners.iter().map(|p| p.x).sum::<f32>();
    assert!(drawn.windows(2).all(|w| rightness(w[0]) <= rightness(w[1])));
    let facing_side = drawn
        .iter()
        .filter(|t| t.facing(Aspect::Side) > 0.0)
        .count();
    assert!(
        facing_side > drawn.len() / 4,
        "{facing_side} of {} face the right",
        drawn.len()
    );
    // Seen from the side the face reaches forward from the eyes to the nose tip.
    let (low, high) = view.bounds(Aspect::Side);
    let nose_local = frame.local(nose);
    assert!(
        low.x < 0.0 && high.x >= nose_local.z,
        "{low} {high} {nose_local}"
    );
    // From the side a landmark goes where it is dropped, depth and height, its place across
    // the face kept: the nose tip set 3 mm deeper, even though that is inside the skin.
    let to = glam::Vec2::new(nose_local.z - 0.003, nose_local.y);
    let deeper = frame.local(view.moved("nose_tip", nose, to, Aspect::Side));
    assert!(
        (deeper.x - nose_local.x).abs() < 1e-5,
        "{deeper} vs {nose_local}"
    );
    assert!(
        Aspect::Side.seen(deeper).distance(to) < 1e-5,
        "{deeper} vs {to}"
    );
    assert!(((nose_local.z - deeper.z) * 1000.0 - 3.0).abs() < 0.01);
}
