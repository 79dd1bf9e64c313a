//! A head without ARKit names still talks: its own shapes run through the same lip-sync stages
//! as ARKit targets (an own target given jawOpen's table moves exactly as jawOpen does, with
//! the line's loudness; one given mouthPucker's, as mouthPucker does, anticipation and all), and a
//! real DAZ-style head (VALID) gets a starting table whose vowels open its mouth and whose
//! p/b/m closes its lips. VRM avatars as other tools write them (a VRoid Studio export, a
//! Mixamo rig exported for VRChat, a small one with both kinds of mouth shapes) find their
//! vowels or visemes and their blinks from the file alone and talk on them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;

use npc_core::anim::lipsync::Loudness;
use npc_core::anim::{OwnShapes, ShapeSet};
use npc_core::anim::{Role, Stage};
use npc_core::asset::Asset;
use npc_core::asset::face_rig::target_names;
use npc_core::{ArkitTarget, FaceAnimator, FaceSettings, LineCue, VisemeId};

/// Runs a face over `track` at 60 fps for `ms`; returns (time, own weights) per frame.
fn run(shapes: &OwnShapes, track: &[(u32, f64)], ms: f64) -> Vec<(f64, Vec<f32>, f32)> {
    let cue = common::cue(&common::track(track));
    let mut face = FaceAnimator::new(FaceSettings::default(), 3);
    face.set_own_shapes(shapes);
    face.start_line(&cue);
    let mut out = Vec::new();
    let mut t = 0.0;
    while t <= ms {
        let frame = face.update(t, 1000.0 / 60.0).unwrap();
        let jaw = frame.final_pose().get(ArkitTarget::JawOpen);
        out.push((t, face.own().unwrap().weights().to_vec(), jaw));
        t += 1000.0 / 60.0;
    }
    out
}

const LINE: [(u32, f64); 6] = [
    (0, 0.0),
    (2, 200.0),
    (21, 420.0),
    (7, 560.0),
    (11, 760.0),
    (0, 1000.0),
];

#[test]
fn an_own_target_moves_as_the_arkit_target_with_the_same_table() {
    let table = FaceSettings::default().table;
    let mut shapes = OwnShapes::default();
    for id in VisemeId::all() {
        let w = table.pose(id).get(ArkitTarget::JawOpen);
        if w > 0.0 {
            shapes
                .visemes
                .insert(id.get(), BTreeMap::from([("Jaw".to_owned(), w)]));
        }
    }
    let frames = run(&shapes, &LINE, 1300.0);
    let worst = frames
        .iter()
        .map(|(_, own, jaw)| (own[0] - jaw).abs())
        .fold(0.0f32, f32::max);
    assert!(worst < 1e-6, "own Jaw and jawOpen differ by {worst}");
    assert!(
        frames.iter().any(|(_, own, _)| own[0] > 0.3),
        "the jaw opens"
    );
}

/// Own shapes named as the ARKit `targets` they copy from the built-in table.
fn copies_of(targets: &[ArkitTarget]) -> OwnShapes {
    let table = FaceSettings::default().table;
    let mut shapes = OwnShapes::default();
    for id in VisemeId::all() {
        for &t in targets {
            let w = table.pose(id).get(t);
            if w > 0.0 {
                shapes
                    .visemes
                    .entry(id.get())
                    .or_default()
                    .insert(t.name().to_owned(), w);
            }
        }
    }
    shapes
}

#[test]
fn own_shapes_that_open_the_jaw_follow_loudness_and_those_that_round_are_anticipated() {
    let shapes = copies_of(&[ArkitTarget::JawOpen, ArkitTarget::MouthPucker]);
    assert_eq!(shapes.role("jawOpen"), Some(Role::Jaw));
    assert_eq!(shapes.role("mouthPucker"), Some(Role::Rounding));
    // A line said quietly, then loudly: the loudness moves the jaw.
    let rate = 16_000;
    let samples: Vec<f32> = (0..rate * 13 / 10)
        .map(|i| {
            let amp = if i < rate / 2 { 0.05 } else { 0.5 };
            amp * (i as f32 * 0.07).sin()
        })
        .collect();
    let mut cue = LineCue::from_track(common::track(&LINE));
    cue.loudness = Some(Loudness::from_samples(&samples, rate as u32));
    let mut face = FaceAnimator::new(FaceSettings::default(), 3);
    face.set_own_shapes(&shapes);
    face.start_line(&cue);
    let names = face.own().unwrap().names().to_vec();
    assert_eq!(names, ["jawOpen", "mouthPucker"]);
    let mut unscaled = FaceAnimator::new(FaceSettings::default(), 3);
    unscaled.start_line(&LineCue::from_track(common::track(&LINE)));
    let (mut worst_jaw, mut worst_pucker, mut loudness_moved) = (0.0f32, 0.0f32, 0.0f32);
    let mut early = false;
    let mut t = 0.0;
    while t <= 1300.0 {
        let frame = face.update(t, 1000.0 / 60.0).unwrap();
        let jaw = frame.final_pose().get(ArkitTarget::JawOpen);
        let pucker = frame
            .stage(Stage::Anticipation)
            .get(ArkitTarget::MouthPucker);
        let before = frame.stage(Stage::Bilabial).get(ArkitTarget::MouthPucker);
        let own = face.own().unwrap().weights().to_vec();
        worst_jaw = worst_jaw.max((own[0] - jaw).abs());
        worst_pucker = worst_pucker.max((own[1] - pucker).abs());
        early |= pucker > before + 0.05;
        let plain = unscaled.update(t, 1000.0 / 60.0).unwrap();
        loudness_moved =
            loudness_moved.max((jaw - plain.final_pose().get(ArkitTarget::JawOpen)).abs());
        t += 1000.0 / 60.0;
    }
    assert!(
        worst_jaw < 1e-6,
        "own jaw and jawOpen differ by {worst_jaw}"
    );
    assert!(
        worst_pucker < 1e-6,
        "own pucker and mouthPucker differ by {worst_pucker}"
    );
    assert!(
        loudness_moved > 0.02,
        "loudness moved the jaw by {loudness_moved}"
    );
    assert!(early, "the rounding was anticipated");
}

#[test]
fn a_real_daz_style_head_talks_on_its_own_shapes() {
    let Some(path) = common::shared_asset("avatars/VALID_Black_F_1_Busi.glb") else {
        return;
    };
    let asset = Asset::load(&path).unwrap();
    assert_eq!(
        asset.face_rig.arkit_coverage(),
        0,
        "no ARKit names of its own"
    );
    let names = target_names(&asset.meshes);
    let (set, shapes) = OwnShapes::for_asset(None, &asset);
    assert_eq!(set, Some(ShapeSet::DazExpressions));
    assert!(
        shapes
            .unknown_names(|n| names.iter().any(|m| m == n))
            .is_empty()
    );
    // Blinks play on its eyelids.
    assert_eq!(
        shapes.targets[&ArkitTarget::EyeBlinkLeft],
        vec!["h_expressions.LeyeClose_h".to_owned()]
    );

    let frames = run(&shapes, &LINE, 1300.0);
    let at = |name, t| own_weight_at(&shapes, &frames, name, t);
    // "aa" at 200 ms opens the mouth and the teeth follow; "p" at 420 ms shuts the lips.
    assert!(
        at("h_expressions.AE_AA_h", 200.0) > 0.6,
        "aa opens the mouth"
    );
    assert!(at("h_teeth.t_AE_AA_h", 200.0) > 0.6, "the teeth follow");
    assert!(
        at("h_expressions.MPB_Up_h", 420.0) > 0.95,
        "p closes the upper lip"
    );
    assert!(
        at("h_expressions.MPB_Down_h", 420.0) > 0.95,
        "and the lower"
    );
    assert!(
        at("h_expressions.AE_AA_h", 420.0) < 0.05,
        "nothing open while closed"
    );
    assert!(at("h_expressions.UW_U_h", 560.0) > 0.6, "u rounds");
    assert!(
        at("h_expressions.MPB_Up_h", 1300.0) < 0.01,
        "at rest after the line"
    );
}

#[test]
fn own_shapes_round_trip_through_a_project_file() {
    let text = r#"(body: "a.glb", shapes: Some((visemes: {21: {"viseme_PP": 1.0}}, targets: {"eyeBlinkLeft": ["Blink_L"]})))"#;
    let avatar: npc_core::project::Avatar = ron::from_str(text).unwrap();
    let shapes = avatar.shapes.as_ref().unwrap();
    assert_eq!(shapes.visemes[&21]["viseme_PP"], 1.0);
    assert_eq!(shapes.targets[&ArkitTarget::EyeBlinkLeft], vec!["Blink_L"]);
    let again: npc_core::project::Avatar =
        ron::from_str(&ron::to_string(&avatar).unwrap()).unwrap();
    assert_eq!(again, avatar);
}

/// The weight of `shapes`' own target `name` in the frame of `frames` nearest `t_ms`.
fn own_weight_at(
    shapes: &OwnShapes,
    frames: &[(f64, Vec<f32>, f32)],
    name: &str,
    t_ms: f64,
) -> f32 {
    let i = shapes
        .own_targets()
        .iter()
        .position(|n| n == name)
        .unwrap_or_else(|| panic!("{name} is not driven"));
    frames
        .iter()
        .min_by(|a, b| (a.0 - t_ms).abs().total_cmp(&(b.0 - t_ms).abs()))
        .map(|f| f.1[i])
        .unwrap()
}

fn vrm(file: &str) -> Option<Asset> {
    let path = common::vrm_avatar(file)?;
    Some(Asset::load(&path).unwrap_or_else(|e| panic!("{file}: {e}")))
}

#[test]
fn a_vroid_studio_export_talks_and_blinks_on_its_vrm_expressions() {
    let Some(asset) = vrm("suzuha.vrm") else {
        return;
    };
    assert!(
        !asset.warnings.iter().any(|w| w.contains("texture")),
        "{:?}",
        asset.warnings
    );
    assert!(!asset.textures.is_empty());
    assert_eq!(
        asset.vrm_expressions.get("aa"),
        Some(&[("Fcl_MTH_A".to_owned(), 1.0)][..])
    );
    // `npc-player inspect` lists them.
    let text = npc_core::asset::inspect::Inspection::of(&asset).to_text(false);
    assert!(
        text.contains("aa -> Fcl_MTH_A") && text.contains("blinkLeft -> Fcl_EYE_Close_L"),
        "{text}"
    );
    let (set, shapes) = OwnShapes::for_asset(None, &asset);
    assert_eq!(set, Some(ShapeSet::VrmVowels));
    assert_eq!(
        shapes.targets[&ArkitTarget::EyeBlinkLeft],
        vec!["Fcl_EYE_Close_L".to_owned()]
    );
    assert_eq!(
        shapes.targets[&ArkitTarget::EyeBlinkRight],
        vec!["Fcl_EYE_Close_R".to_owned()]
    );
    let names = target_names(&asset.meshes);
    assert!(
        shapes
            .unknown_names(|n| names.iter().any(|m| m == n))
            .is_empty()
    );
    let map = npc_core::body::HumanoidMap::of(&npc_core::body::Skeleton::of(&asset));
    for bone in [
        npc_core::body::HumanoidBone::Hips,
        npc_core::body::HumanoidBone::Head,
        npc_core::body::HumanoidBone::LeftHand,
        npc_core::body::HumanoidBone::RightFoot,
    ] {
        assert!(map.joint(bone).is_some(), "{bone:?}");
    }
    let frames = run(&shapes, &LINE, 1300.0);
    let at = |name, t| own_weight_at(&shapes, &frames, name, t);
    assert!(at("Fcl_MTH_A", 200.0) > 0.6, "aa opens the mouth");
    assert!(at("Fcl_MTH_A", 420.0) < 0.05, "p shuts it");
    assert!(at("Fcl_MTH_U", 560.0) > 0.6, "u rounds");
    assert!(at("Fcl_MTH_A", 1300.0) < 0.01, "at rest after the line");
}

/// A VRoid export's own expression faces (its VRM `happy`, ...) show the character's emotion
/// and a clip's expression tracks instead of the ARKit faces it has no targets for; without
/// them, nothing of the avatar's moves.
#[test]
fn a_vroid_avatar_shows_emotions_and_clip_expressions_on_its_own_faces() {
    use npc_core::anim::emotion::Emotion;
    use npc_core::asset::clip_face::{ClipFace, Expression};

    let Some(asset) = vrm("suzuha.vrm") else {
        return;
    };
    let (_, shapes) = OwnShapes::for_asset(None, &asset);
    let happy = shapes.expressions.get("happy").expect("a VRM happy face");
    let (joy, bind) = happy
        .iter()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(n, w)| (n.clone(), *w))
        .unwrap();
    assert!(bind > 0.5, "{happy:?}");
    assert!(
        shapes.expressions.contains_key("sad"),
        "{:?}",
        shapes.expressions.keys()
    );
    let slot = shapes.own_targets().iter().position(|n| *n == joy).unwrap();
    let steady = |shapes: &OwnShapes, emotion: Option<(Emotion, f32)>, clips: ClipFace| {
        let mut face = FaceAnimator::new(FaceSettings::default(), 3);
        face.set_own_shapes(shapes);
        face.set_emotion(emotion);
        face.set_clip_face(clips);
        for _ in 0..180 {
            face.update(0.0, 1000.0 / 60.0).unwrap();
        }
        let smile = face.frame().final_pose().get(ArkitTarget::MouthSmileLeft);
        let own = face.own().map(|o| o.weights().to_vec()).unwrap_or_default();
        (own, smile)
    };
    let (at_rest, _) = steady(&shapes, None, ClipFace::NONE);
    assert!(at_rest[slot] < 1e-4, "{joy} at rest: {}", at_rest[slot]);
    let (felt, smile) = steady(&shapes, Some((Emotion::Happy, 1.0)), ClipFace::NONE);
    assert!(felt[slot] > 0.9 * bind, "{joy}: {}", felt[slot]);
    assert!(
        smile < 1e-4,
        "the ARKit smile is not added as well: {smile}"
    );
    let mut clip = ClipFace::NONE;
    clip.expressions[Expression::Happy.index()] = 0.6;
    let (played, _) = steady(&shapes, None, clip);
    assert!(
        (played[slot] - 0.6 * bind).abs() < 1e-3,
        "{joy}: {}",
        played[slot]
    );

    // Without its own faces the emotion goes to the ARKit face, which this avatar lacks.
    let mut bare = shapes.clone();
    bare.expressions.clear();
    assert!(!bare.own_targets().contains(&joy));
    let (_, arkit_smile) = steady(&bare, Some((Emotion::Happy, 1.0)), ClipFace::NONE);
    assert!(arkit_smile > 0.2, "{arkit_smile}");
}

#[test]
fn a_mixamo_rig_exported_for_vrchat_talks_on_its_visemes_and_blinks() {
    let Some(asset) = vrm("cool_loops.vrm") else {
        return;
    };
    // `blendShape11.vrc_v_pp` and the rest: all 15 visemes, under Maya's group names.
    assert_eq!(asset.face_rig.oculus_found().len(), 15);
    let (set, shapes) = OwnShapes::for_asset(None, &asset);
    assert_eq!(set, Some(ShapeSet::Oculus));
    assert_eq!(
        shapes.visemes[&21],
        BTreeMap::from([("blendShape11.vrc_v_pp".to_owned(), 1.0)])
    );
    // Its one blink (the VRM's `blink`) plays both eyes' blinks.
    for eye in [ArkitTarget::EyeBlinkLeft, ArkitTarget::EyeBlinkRight] {
        assert_eq!(
            shapes.targets[&eye],
            vec!["blendShape16.vrc_blink".to_owned()]
        );
    }
    let map = npc_core::body::HumanoidMap::of(&npc_core::body::Skeleton::of(&asset));
    assert!(map.joint(npc_core::body::HumanoidBone::Head).is_some());
    let frames = run(&shapes, &LINE, 1300.0);
    let at = |name, t| own_weight_at(&shapes, &frames, name, t);
    assert!(
        at("blendShape1.vrc_v_aa", 200.0) > 0.6,
        "aa opens the mouth"
    );
    assert!(at("blendShape11.vrc_v_pp", 420.0) > 0.95, "p closes it");
    assert!(at("blendShape10.vrc_v_ou", 560.0) > 0.6, "u rounds");
}

#[test]
fn a_vrms_vowels_named_a_i_u_e_o_are_not_taken_for_visemes() {
    let Some(asset) = vrm("catbot.vrm") else {
        return;
    };
    let mesh = &asset.meshes[0];
    for vowel in ["A", "I", "U", "E", "O"] {
        let target = mesh
            .target_names
            .iter()
            .find(|t| t.raw.as_deref() == Some(vowel))
            .unwrap();
        assert_eq!(target.canonical, None, "{vowel}");
    }
    assert_eq!(asset.face_rig.oculus_found().len(), 15, "its vrc_v_* are");
    let (set, shapes) = OwnShapes::for_asset(None, &asset);
    assert_eq!(set, Some(ShapeSet::Oculus));
    assert_eq!(
        shapes.targets[&ArkitTarget::EyeBlinkLeft],
        vec!["close".to_owned()]
    );
}
