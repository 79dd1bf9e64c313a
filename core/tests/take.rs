//! Takes out of the tool and back: a bake's JSON read as a take, written as Live Link Face
//! CSV and read back unchanged; malformed CSV refused with its line and column; a take put
//! into an avatar's GLB as a clip and read back through the project's own loader.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use npc_core::anim::lipsync::{VisemeEvent, VisemeTrack};
use npc_core::anim::timeline::{self, BakeOptions, BakeReport};
use npc_core::asset::Asset;
use npc_core::take::{Take, TakeError, glb_with_take, read_livelink_csv, write_livelink_csv};
use npc_core::{ArkitTarget, FaceSettings, LineCue, VisemeId};

/// A baked line (about 1.7 s at 60 fps) read back from its JSON, as `export --bake` reads it.
fn baked_take() -> Take {
    let events = [
        (0, 0.0),
        (21, 120.0),
        (2, 260.0),
        (7, 540.0),
        (18, 800.0),
        (0, 1200.0),
    ]
    .map(|(id, ms)| VisemeEvent::new(VisemeId::new(id).unwrap(), ms))
    .to_vec();
    let track = VisemeTrack::from_events(events).unwrap();
    let settings = FaceSettings::default();
    let options = BakeOptions {
        seed: 7,
        ..BakeOptions::default()
    };
    let cue = LineCue::from_track(track);
    let bake = timeline::bake(&settings, &cue, &options).unwrap();
    let report = BakeReport::new(&bake, &cue.track, &settings.table, &options);
    Take::from_bake_json(&serde_json::to_string(&report).unwrap(), "hello").unwrap()
}

#[test]
fn a_bake_reads_as_its_final_weights() {
    let take = baked_take();
    assert_eq!(take.fps, 60.0);
    assert_eq!(take.times_ms.len(), take.weights.len());
    assert!(take.times_ms.len() > 100, "{}", take.times_ms.len());
    let jaw = ArkitTarget::JawOpen.index();
    assert!(take.weights.iter().any(|w| w[jaw] > 0.2), "the jaw opens");
    assert!(take.body.is_none());
}

#[test]
fn live_link_csv_reads_back_as_written() {
    let take = baked_take();
    let csv = write_livelink_csv(&take);
    let header = csv.lines().next().unwrap();
    assert_eq!(
        header,
        "Timecode,BlendShapeCount,EyeBlinkLeft,EyeLookDownLeft,EyeLookInLeft,EyeLookOutLeft,\
EyeLookUpLeft,EyeSquintLeft,EyeWideLeft,EyeBlinkRight,EyeLookDownRight,EyeLookInRight,\
EyeLookOutRight,EyeLookUpRight,EyeSquintRight,EyeWideRight,JawForward,JawLeft,JawRight,\
JawOpen,MouthClose,MouthFunnel,MouthPucker,MouthLeft,MouthRight,MouthSmileLeft,\
MouthSmileRight,MouthFrownLeft,MouthFrownRight,MouthDimpleLeft,MouthDimpleRight,\
MouthStretchLeft,MouthStretchRight,MouthRollLower,MouthRollUpper,MouthShrugLower,\
MouthShrugUpper,MouthPressLeft,MouthPressRight,MouthLowerDownLeft,MouthLowerDownRight,\
MouthUpperUpLeft,MouthUpperUpRight,BrowDownLeft,BrowDownRight,BrowInnerUp,BrowOuterUpLeft,\
BrowOuterUpRight,CheekPuff,CheekSquintLeft,CheekSquintRight,NoseSneerLeft,NoseSneerRight,\
TongueOut,HeadYaw,HeadPitch,HeadRoll,LeftEyeYaw,LeftEyePitch,LeftEyeRoll,RightEyeYaw,\
RightEyePitch,RightEyeRoll"
    );
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), take.times_ms.len(), "one row per frame");
    assert!(rows[0].starts_with("00:00:00:00.000,61,"), "{}", rows[0]);
    assert!(rows[60].starts_with("00:00:01:00.000,61,"), "{}", rows[60]);
    assert!(rows.iter().all(|r| r.split(',').count() == 63));

    let back = read_livelink_csv(&csv, "hello").unwrap();
    assert_eq!(back.fps, 60.0, "the rate follows from the frame numbers");
    assert_eq!(back.weights, take.weights, "weights as baked, bit for bit");
    for (a, b) in back.times_ms.iter().zip(&take.times_ms) {
        assert!((a - b).abs() < 1e-6, "{a} vs {b}");
    }
}

#[test]
fn eye_angles_follow_the_eye_look_weights() {
    let mut take = baked_take();
    let out = ArkitTarget::EyeLookOutLeft.index();
    take.weights[3][out] = 0.5;
    let csv = write_livelink_csv(&take);
    let row: Vec<&str> = csv.lines().nth(4).unwrap().split(',').collect();
    let left_yaw: f32 = row[2 + 52 + 3].parse().unwrap();
    // Half of the 28 degree reach, as a share of 180 degrees.
    assert!((left_yaw - 14.0 / 180.0).abs() < 1e-3, "{left_yaw}");
}

/// A small CSV with the Live Link header and `rows` under it.
fn csv_with(rows: &[String]) -> String {
    let take = baked_take();
    let csv = write_livelink_csv(&take);
    let mut text = csv.lines().next().unwrap().to_owned();
    for r in rows {
        text.push('\n');
        text.push_str(r);
    }
    text.push('\n');
    text
}

fn row(timecode: &str, value: &str) -> String {
    let mut fields = vec![timecode.to_owned(), "61".to_owned()];
    fields.extend(std::iter::repeat_n(value.to_owned(), 61));
    fields.join(",")
}

#[test]
fn malformed_csv_is_refused_with_line_and_column() {
    let good = row("10:00:00:00.000", "0.5");
    // Text in a number: line 3, column 20 (JawOpen).
    let mut bad_number: Vec<String> = row("10:00:00:01.000", "0.1")
        .split(',')
        .map(str::to_owned)
        .collect();
    bad_number[19] = "abc".to_owned();
    let err = read_livelink_csv(&csv_with(&[good.clone(), bad_number.join(",")]), "x").unwrap_err();
    assert_eq!(
        err,
        TakeError::At {
            line: 3,
            column: 20,
            message: "JawOpen is \"abc\", not a number".to_owned()
        }
    );
    assert!(err.to_string().starts_with("3:20: "), "{err}");

    // A ragged row.
    let short = row("10:00:00:01.000", "0.1");
    let short = short.rsplitn(4, ',').last().unwrap().to_owned();
    let err = read_livelink_csv(&csv_with(&[good.clone(), short]), "x").unwrap_err();
    let TakeError::At { line, message, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(*line, 3, "{err}");
    assert!(message.contains("60 fields, the header 63"), "{err}");

    // A missing column.
    let csv = csv_with(std::slice::from_ref(&good)).replacen("JawOpen,", "", 1);
    let err = read_livelink_csv(&csv, "x").unwrap_err();
    assert_eq!(err.to_string(), "1:1: the header has no JawOpen column");

    // A bad timecode, and time going backwards.
    let err =
        read_livelink_csv(&csv_with(&[good.clone(), row("10:00:00", "0.1")]), "x").unwrap_err();
    assert!(err.to_string().starts_with("3:1: Timecode"), "{err}");
    let err = read_livelink_csv(
        &csv_with(&[row("10:00:01:00.000", "0.1"), good.clone()]),
        "x",
    )
    .unwrap_err();
    assert!(err.to_string().contains("does not come after"), "{err}");

    // Nothing but a header.
    assert_eq!(
        read_livelink_csv(&csv_with(&[]), "x"),
        Err(TakeError::Empty)
    );
}

#[test]
fn a_capture_starts_at_zero_and_untracked_rows_are_left_out() {
    let mut untracked: Vec<String> = row("23:59:59:28.000", "0.0")
        .split(',')
        .map(str::to_owned)
        .collect();
    untracked[1] = "0".to_owned();
    let rows = [
        untracked.join(","),
        row("23:59:59:29.000", "0.25"),
        row("00:00:00:00.000", "0.5"),
        row("00:00:00:01.000", "0.75"),
    ];
    let take = read_livelink_csv(&csv_with(&rows), "capture").unwrap();
    assert_eq!(take.fps, 30.0, "frame 29 seen: 30 fps");
    assert_eq!(take.times_ms.len(), 3);
    let expected = [0.0, 1000.0 / 30.0, 2000.0 / 30.0];
    for (a, b) in take.times_ms.iter().zip(expected) {
        assert!((a - b).abs() < 1e-6, "{:?}", take.times_ms);
    }
    let head = take.head.as_ref().unwrap();
    assert!((head[0].yaw_deg - 45.0).abs() < 1e-4, "0.25 of 180 degrees");
    assert!(
        take.gaps_ms.is_empty(),
        "an untracked row before the first frame is no gap"
    );
}

/// The iPhone app writes a frame where it lost the face as the timecode and a count of 0 and
/// nothing after: such a row mid-take is a gap, the rest of the take loads.
#[test]
fn a_short_untracked_row_mid_take_is_a_gap() {
    let rows = [
        row("10:00:00:00.000", "0.25"),
        "10:00:00:01.000,0".to_owned(),
        row("10:00:00:02.000", "0.5"),
    ];
    let take = read_livelink_csv(&csv_with(&rows), "capture").unwrap();
    assert_eq!(take.times_ms.len(), 2, "the untracked frame left out");
    assert!(
        (take.times_ms[1] - 2000.0 / 60.0).abs() < 1e-6,
        "{:?}",
        take.times_ms
    );
    assert_eq!(take.weights[1][0], 0.5);
    assert_eq!(take.gaps_ms.len(), 1, "the gap is kept");
    assert!((take.gaps_ms[0] - 1000.0 / 60.0).abs() < 1e-6);
    // Written back, the gap is a short row again, between its frames.
    let written = write_livelink_csv(&take);
    let lines: Vec<&str> = written.lines().collect();
    assert_eq!(lines.len(), 4, "{written}");
    assert!(
        lines[2].ends_with(",0") && lines[2].split(',').count() == 2,
        "{}",
        lines[2]
    );
    let again = read_livelink_csv(&written, "again").unwrap().gaps_ms;
    assert_eq!(again.len(), 1);
    assert!((again[0] - take.gaps_ms[0]).abs() < 1e-3, "{again:?}");
}

#[test]
fn a_take_in_an_avatar_loads_back_as_its_weights() {
    let take = baked_take();
    let avatar = npc_core::procedural::body::avatar_glb(&npc_core::procedural::head::head_parts());
    let before = Asset::from_bytes(&avatar, None).unwrap();
    let glb = glb_with_take(&avatar, &take, &Default::default()).unwrap();
    let after = Asset::from_bytes(&glb, None).unwrap();
    assert_eq!(after.clips.len(), before.clips.len() + 1, "one clip more");
    assert_eq!(
        after.meshes.len(),
        before.meshes.len(),
        "everything else kept"
    );
    assert_eq!(after.nodes, before.nodes);
    let clip = after.clips.len() - 1;
    assert_eq!(after.clips[clip].name, "hello");
    let back = Take::from_gltf_clip(&after, clip, take.fps).unwrap();
    assert_eq!(back.weights.len(), take.weights.len());
    let mut worst = 0.0f32;
    for (a, b) in back.weights.iter().zip(&take.weights) {
        for (x, y) in a.iter().zip(b) {
            worst = worst.max((x - y).abs());
        }
    }
    assert!(worst < 1e-4, "weights differ by {worst}");
}

#[test]
fn a_head_without_the_glb_container_is_refused_clearly() {
    let take = baked_take();
    let err = glb_with_take(
        b"{\"asset\":{\"version\":\"2.0\"}}",
        &take,
        &Default::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("not a GLB"), "{err}");
    let scene = npc_core::procedural::scene::scene_glb();
    let err = glb_with_take(&scene, &take, &Default::default()).unwrap_err();
    assert!(
        err.to_string().contains("nothing in it to animate"),
        "{err}"
    );
}

/// The series of one target over a take.
fn series(take: &Take, target: ArkitTarget) -> Vec<f32> {
    take.weights.iter().map(|w| w[target.index()]).collect()
}

#[test]
fn a_real_face_cap_capture_reads_as_a_take_and_travels_unchanged() {
    let Some(path) = common::facecap() else {
        return;
    };
    let asset = Asset::load(&path).unwrap();
    assert_eq!(
        asset.face_rig.arkit_coverage(),
        52,
        "Face Cap names every ARKit target"
    );
    let take = (0..asset.clips.len())
        .find_map(|c| Take::from_gltf_clip(&asset, c, 30.0))
        .expect("a clip animates the face");
    // 11.18 s recorded at 30 fps.
    assert!(
        (take.duration_ms() - 11_166.7).abs() < 40.0,
        "{}",
        take.duration_ms()
    );
    let range = |t| {
        let s = series(&take, t);
        let (lo, hi) = s
            .iter()
            .fold((f32::MAX, f32::MIN), |(a, b), &v| (a.min(v), b.max(v)));
        (lo, hi)
    };
    let (jaw_lo, jaw_hi) = range(ArkitTarget::JawOpen);
    assert!(jaw_lo < 0.05 && jaw_hi > 0.95, "jawOpen {jaw_lo}..{jaw_hi}");
    let (_, blink) = range(ArkitTarget::EyeBlinkLeft);
    assert!((0.8..0.9).contains(&blink), "eyeBlinkLeft peaks at {blink}");
    let (_, smile) = range(ArkitTarget::MouthSmileLeft);
    assert!(
        (0.75..0.9).contains(&smile),
        "mouthSmileLeft peaks at {smile}"
    );
    assert_eq!(
        range(ArkitTarget::EyeLookUpLeft),
        (0.0, 0.0),
        "never looks up"
    );

    // Through Live Link CSV and back, bit for bit.
    let back = read_livelink_csv(&write_livelink_csv(&take), "facecap").unwrap();
    assert_eq!(back.fps, 30.0);
    assert_eq!(back.weights, take.weights);

    // Onto the project's avatar as a clip, and read back.
    let avatar = npc_core::procedural::body::avatar_glb(&npc_core::procedural::head::head_parts());
    let glb = glb_with_take(&avatar, &take, &Default::default()).unwrap();
    let on_avatar = Asset::from_bytes(&glb, None).unwrap();
    let clip = on_avatar.clips.len() - 1;
    let played = Take::from_gltf_clip(&on_avatar, clip, 30.0).unwrap();
    let worst = played
        .weights
        .iter()
        .zip(&take.weights)
        .flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs()))
        .fold(0.0f32, f32::max);
    assert!(worst < 1e-4, "{worst}");
}
