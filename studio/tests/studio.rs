//! The studio driven like a user would (egui_kittest, software Vulkan): sliders through their
//! accessibility nodes, saving, scrubbing, undo, a broken project; and snapshots of the main
//! panels.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../tests/common/shared_asset.rs"]
mod shared_asset;
use shared_asset::shared_asset;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use egui_kittest::{SnapshotOptions, try_image_snapshot_options};
use image::RgbaImage;
use npc_core::project::{Project, demo_project};
use npc_core::{ArkitTarget, VisemeId};
use npc_studio::app::{StudioApp, Tab};
use npc_studio::command::Command;
use npc_studio::recent::RecentStore;
use npc_studio::state::Studio;

fn harness(studio: Studio) -> Harness<'static, StudioApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .wgpu_setup(npc_studio::viewport::with_adapter_limits(
            egui_kittest::wgpu::default_wgpu_setup(),
        ))
        .build_eframe(move |_cc| StudioApp::new(studio, None));
    h.run_steps(3);
    h
}

/// Types `path` into the open path window and confirms it.
fn type_path(h: &mut Harness<'_, StudioApp>, path: &std::path::Path) {
    h.get_by_role_and_label(Role::TextInput, "File path:")
        .focus();
    h.run_steps(1);
    h.get_by_role_and_label(Role::TextInput, "File path:")
        .type_text(path.to_str().unwrap());
    h.run_steps(1);
    h.get_by_label("OK").click();
    h.run_steps(2);
}

/// The weight the 3D view drew for `target` (on the first mesh that has it).
fn drawn(h: &Harness<'_, StudioApp>, target: ArkitTarget) -> f32 {
    let app = h.state();
    let view = app.viewport.as_ref().expect("a 3D view");
    let r = view.head().asset.face_rig.arkit(target)[0];
    view.drawn[r.mesh][r.target]
}

#[test]
fn a_pose_slider_sets_the_state_and_the_drawn_weight() {
    let mut h = harness(Studio::new(demo_project(), None));
    h.get_by_role_and_label(Role::Slider, "jawOpen")
        .set_value_accesskit(0.75);
    h.run_steps(2);
    let pose = h.state().studio.doc.pose;
    assert!((pose.get(ArkitTarget::JawOpen) - 0.75).abs() < 1e-3);
    assert!((drawn(&h, ArkitTarget::JawOpen) - 0.75).abs() < 1e-3);
    // Undo (Ctrl+Z) puts it back, in the state and on screen.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(2);
    assert_eq!(h.state().studio.doc.pose.get(ArkitTarget::JawOpen), 0.0);
    assert_eq!(drawn(&h, ArkitTarget::JawOpen), 0.0);
}

#[test]
fn editing_viseme_21_and_saving_writes_it_to_the_project_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.ron");
    demo_project().save(&path).unwrap();
    let mut h = harness(Studio::open(&path));
    h.state_mut().tab = Tab::Visemes;
    h.run_steps(2);
    h.get_by_label_contains("(map)").click_accesskit();
    h.run_steps(2);
    assert_eq!(h.state().studio.selected_viseme, VisemeId::new(21).ok());
    h.get_by_role_and_label(Role::Slider, "mouthPressLeft")
        .set_value_accesskit(0.9);
    h.run_steps(2);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    h.run_steps(2);
    let saved = Project::load(&path).unwrap();
    let pp = VisemeId::new(21).unwrap();
    assert!((saved.face.table.pose(pp).get(ArkitTarget::MouthPressLeft) - 0.9).abs() < 1e-3);
    assert!(!h.state().studio.is_dirty());
    // The view shows the viseme being edited.
    assert!((drawn(&h, ArkitTarget::MouthPressLeft) - 0.9).abs() < 1e-3);
}

#[test]
fn scrubbing_gives_the_view_the_baked_final_weights() {
    let mut h = harness(Studio::new(demo_project(), None));
    h.state_mut().studio.apply(Command::SpeakLine);
    h.state_mut().studio.finish_jobs();
    h.run_steps(2);
    let bake_len = h.state().studio.timeline.duration_ms();
    assert!(bake_len > 1500.0, "{bake_len}");
    for t in [400.0, 1234.0, 2000.0] {
        h.state_mut().studio.apply(Command::Seek(t));
        h.run_steps(1);
        let frame = *h.state().studio.frame_at_playhead().unwrap();
        for target in [
            ArkitTarget::JawOpen,
            ArkitTarget::MouthPucker,
            ArkitTarget::EyeBlinkLeft,
        ] {
            let want = frame.final_pose().get(target);
            assert!(
                (drawn(&h, target) - want).abs() < 1e-6,
                "{t} ms {}: {want}",
                target.name()
            );
        }
    }
    // The same bake as the command line's: at the playhead the frame time is the bake's.
    let b = h.state().studio.timeline.bake.as_ref().unwrap();
    assert!(
        b.times_ms
            .windows(2)
            .all(|w| (w[1] - w[0] - 1000.0 / 60.0).abs() < 1e-6)
    );
}

#[test]
fn opening_a_broken_project_shows_an_error_and_keeps_the_current_one() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.ron");
    std::fs::write(&bad, "(version: 1, scene: (fog: (start: \"near\")))").unwrap();
    let mut h = harness(Studio::new(demo_project(), None));
    h.state_mut().studio.apply(Command::SetPoseWeight {
        target: ArkitTarget::MouthSmileLeft,
        weight: 0.6,
    });
    h.state_mut().studio.apply(Command::Open(bad.clone()));
    h.run_steps(2);
    let status = h.state().studio.status.clone().unwrap();
    assert!(
        status.error && status.text.contains("broken.ron"),
        "{status:?}"
    );
    h.get_by_label_contains("broken.ron");
    assert_eq!(h.state().studio.doc.project.npcs.len(), 3);
    assert!((h.state().studio.doc.pose.get(ArkitTarget::MouthSmileLeft) - 0.6).abs() < 1e-6);
}

/// The command that makes the panel snapshots again (documented in studio/tests/snapshots/).
const UPDATE_COMMAND: &str = "UPDATE_SNAPSHOTS=1 cargo test --workspace --test studio snapshots";

/// The window as drawn, in pixels.
fn window_pixels(h: &mut Harness<'_, StudioApp>) -> RgbaImage {
    h.render().expect("the window renders")
}

/// How many pixels are of the wizard's skin tone (reddish, lit or in shade).
fn skin_toned(image: &RgbaImage) -> usize {
    image
        .pixels()
        .filter(|p| {
            let [r, g, b] = [p[0], p[1], p[2]].map(i32::from);
            r > 120 && r > g + 15 && g > b && b > 40
        })
        .count()
}

/// Where the 3D view lies in the window's pixels: (x, y, width, height).
fn view_area(h: &Harness<'_, StudioApp>) -> (u32, u32, u32, u32) {
    let rect = h
        .state()
        .viewport
        .as_ref()
        .and_then(|v| v.shown_at)
        .expect("the 3D view was shown");
    let ppp = h.ctx.pixels_per_point();
    let min = (rect.min.to_vec2() * ppp).round();
    let size = (rect.size() * ppp).round();
    (min.x as u32, min.y as u32, size.x as u32, size.y as u32)
}

/// The 3D view's pixels alone.
fn view_pixels(h: &mut Harness<'_, StudioApp>) -> RgbaImage {
    let (x, y, w, hgt) = view_area(h);
    let window = window_pixels(h);
    image::imageops::crop_imm(&window, x, y, w, hgt).to_image()
}

/// Compares the window with `studio/tests/snapshots/{name}.png`, the 3D view painted over in one
/// flat colour: a rasteriser's roundings differ from machine to machine (llvmpipe compiles its
/// shaders for the host CPU), so the view is tested by its properties instead (below), and the
/// snapshot holds the panels, which egui draws the same everywhere.
fn snapshot_panels(h: &mut Harness<'_, StudioApp>, name: &str) {
    let (x, y, w, hgt) = view_area(h);
    let mut window = window_pixels(h);
    for py in y..(y + hgt).min(window.height()) {
        for px in x..(x + w).min(window.width()) {
            window.put_pixel(px, py, image::Rgba([255, 0, 255, 255]));
        }
    }
    if let Err(e) = try_image_snapshot_options(&window, name, &SnapshotOptions::default()) {
        panic!(
            "{e}\n  the snapshot: studio/tests/snapshots/{name}.png, this run's picture beside it \
             as {name}.new.png\n  if the change is wanted, make them again with: {UPDATE_COMMAND}"
        );
    }
}

#[test]
fn snapshots_of_the_main_panels() {
    let mut h = harness(Studio::new(demo_project(), None));
    h.state_mut().studio.apply(Command::SetPoseWeight {
        target: ArkitTarget::JawOpen,
        weight: 0.5,
    });
    h.run_steps(3);
    snapshot_panels(&mut h, "pose_panel");
    h.state_mut().tab = Tab::Visemes;
    h.state_mut()
        .studio
        .apply(Command::SelectViseme(VisemeId::new(21).ok()));
    h.run_steps(3);
    snapshot_panels(&mut h, "viseme_panel");
    // A recording, not offline speech: espeak-ng's output shifts by a sample or a millisecond
    // with what the process synthesised before, and snapshots must not depend on test order.
    let Some(recording) = shared_asset("speech/arctic_a0007.wav") else {
        return;
    };
    h.state_mut().studio.apply(Command::OpenWav(recording));
    h.state_mut().studio.finish_jobs();
    h.state_mut().studio.apply(Command::Seek(1_650.0));
    h.state_mut().tab = Tab::Gaze;
    h.run_steps(3);
    snapshot_panels(&mut h, "timeline_and_gaze");
    // The body over the same recording: the layers' settings and the bones' angles per layer.
    h.state_mut().tab = Tab::Body;
    h.run_steps(3);
    snapshot_panels(&mut h, "body_panel");
}

fn mean_rgb(image: &RgbaImage, x0: f32, y0: f32, x1: f32, y1: f32) -> [f64; 3] {
    let (w, h) = (image.width() as f32, image.height() as f32);
    let mut sum = [0.0; 3];
    let mut n = 0.0_f64;
    for y in (y0 * h) as u32..(y1 * h) as u32 {
        for x in (x0 * w) as u32..(x1 * w) as u32 {
            let p = image.get_pixel(x, y);
            for c in 0..3 {
                sum[c] += f64::from(p[c]);
            }
            n += 1.0;
        }
    }
    sum.map(|s| s / n.max(1.0))
}

/// The Scene tab's exposure is the player's: a stop more brightens the head and the sky in the
/// 3D view, drawn through the same tone map.
#[test]
fn the_scenes_exposure_brightens_the_3d_view() {
    let mut h = harness(Studio::new(demo_project(), None));
    h.run_steps(2);
    let before = view_pixels(&mut h);
    let mut scene = h.state().studio.doc.project.scene.clone();
    scene.exposure = 2.0;
    h.state_mut().studio.apply(Command::SetScene(scene));
    h.run_steps(3);
    let after = view_pixels(&mut h);
    for (what, area) in [
        ("the cheek", (0.40, 0.45, 0.60, 0.55)),
        ("the sky", (0.0, 0.0, 0.15, 0.15)),
    ] {
        let lum = |image: &RgbaImage| {
            let [r, g, b] = mean_rgb(image, area.0, area.1, area.2, area.3);
            0.2126 * r + 0.7152 * g + 0.0722 * b
        };
        let (dim, bright) = (lum(&before), lum(&after));
        assert!(
            bright > dim + 15.0,
            "{what}: {bright} at exposure 2, {dim} at 1"
        );
    }
}

/// The 3D view by its properties, which hold on any rasteriser: a picture, not a blank; sky
/// above, the head in the middle in skin tones; opening the jaw changes the lower middle of the
/// face and not the top of the view.
#[test]
fn the_3d_view_shows_the_head_and_the_jaw_moves_the_mouth() {
    let mut h = harness(Studio::new(demo_project(), None));
    h.run_steps(2);
    let closed = view_pixels(&mut h);
    let colours: std::collections::HashSet<[u8; 4]> = closed.pixels().map(|p| p.0).collect();
    assert!(colours.len() > 500, "only {} colours", colours.len());
    let sky = mean_rgb(&closed, 0.0, 0.0, 0.15, 0.15);
    assert!(
        sky[2] > sky[0] + 40.0,
        "the sky's corner is not blue: {sky:?}"
    );
    let cheek = mean_rgb(&closed, 0.40, 0.45, 0.60, 0.55);
    assert!(
        cheek[0] > cheek[1] && cheek[1] > cheek[2] && cheek[0] > 120.0,
        "the middle of the view is not skin: {cheek:?}"
    );

    h.state_mut().studio.apply(Command::SetPoseWeight {
        target: ArkitTarget::JawOpen,
        weight: 1.0,
    });
    h.run_steps(3);
    let open = view_pixels(&mut h);
    assert_eq!(open.dimensions(), closed.dimensions());
    let (w, hgt) = (open.width() as f64, open.height() as f64);
    let (mut count, mut sx, mut sy, mut top) = (0usize, 0.0, 0.0, 0usize);
    for (x, y, p) in open.enumerate_pixels() {
        let q = closed.get_pixel(x, y);
        let d: i32 = (0..3)
            .map(|c| (i32::from(p[c]) - i32::from(q[c])).abs())
            .sum();
        if d > 60 {
            count += 1;
            sx += f64::from(x);
            sy += f64::from(y);
            if f64::from(y) < 0.4 * hgt {
                top += 1;
            }
        }
    }
    let area = w * hgt;
    assert!(
        count as f64 > 0.002 * area,
        "the jaw changed only {count} pixels"
    );
    let (cx, cy) = (sx / count as f64 / w, sy / count as f64 / hgt);
    assert!(
        (0.4..0.6).contains(&cx),
        "the change is not in the middle: x {cx:.2}"
    );
    assert!(cy > 0.55, "the change is not in the lower face: y {cy:.2}");
    assert!(
        top * 50 < count,
        "{top} of {count} changed pixels are in the top of the view"
    );
}

#[test]
fn a_file_chosen_by_path_opens_and_recent_projects_outlive_the_studio() {
    let dir = tempfile::tempdir().unwrap();
    let visemes = dir.path().join("line.json");
    std::fs::write(
        &visemes,
        r#"[{"id": 0, "offset_ms": 0}, {"id": 21, "offset_ms": 120}, {"id": 2, "offset_ms": 300}]"#,
    )
    .unwrap();
    let store = dir.path().join("config").join("recent.ron");
    let saved = dir.path().join("saved.ron");
    let open = |studio: Studio| {
        let store = RecentStore::at(store.clone());
        let mut h = Harness::builder()
            .with_size(egui::vec2(1280.0, 800.0))
            .wgpu_setup(npc_studio::viewport::with_adapter_limits(
                egui_kittest::wgpu::default_wgpu_setup(),
            ))
            .build_eframe(move |_cc| {
                StudioApp::new(studio, None)
                    .with_typed_paths()
                    .with_recent_store(store)
            });
        h.run_steps(3);
        h
    };
    let mut h = open(Studio::new(demo_project(), None));
    h.get_by_label("Open WAV or visemes...").click();
    h.run_steps(2);
    type_path(&mut h, &visemes);
    let timeline = &h.state().studio.timeline;
    assert!(timeline.label.contains("line.json"), "{}", timeline.label);
    assert!(timeline.bake.is_some());

    h.state_mut().studio.apply(Command::SaveAs(saved.clone()));
    h.run_steps(2);
    assert!(saved.exists());
    drop(h);
    let h = open(Studio::new(Project::default(), None));
    assert_eq!(h.state().studio.recent.first(), Some(&saved));
}

#[test]
fn opening_another_project_over_unsaved_changes_asks_first() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other.ron");
    let mut project = demo_project();
    project.npcs.truncate(1);
    project.save(&other).unwrap();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .wgpu_setup(npc_studio::viewport::with_adapter_limits(
            egui_kittest::wgpu::default_wgpu_setup(),
        ))
        .build_eframe(move |_cc| {
            StudioApp::new(Studio::new(demo_project(), None), None).with_typed_paths()
        });
    h.run_steps(3);
    let pp = VisemeId::new(21).unwrap();
    h.state_mut().studio.apply(Command::SetVisemeWeight {
        viseme: pp,
        target: ArkitTarget::MouthPressLeft,
        weight: 0.9,
    });
    assert!(h.state().studio.is_dirty());
    let edited = |h: &Harness<'_, StudioApp>| {
        h.state()
            .studio
            .doc
            .project
            .face
            .table
            .pose(pp)
            .get(ArkitTarget::MouthPressLeft)
    };
    let open = |h: &mut Harness<'_, StudioApp>| {
        h.get_by_label("File").click();
        h.run_steps(2);
        h.get_by_label("Open...").click();
        h.run_steps(2);
        type_path(h, &other);
    };
    // Cancel keeps everything as it was.
    open(&mut h);
    h.get_by_label("Cancel").click();
    h.run_steps(2);
    assert_eq!(h.state().studio.doc.project.npcs.len(), 3);
    assert!((edited(&h) - 0.9).abs() < 1e-6);
    // Discarding opens the other project.
    open(&mut h);
    assert_eq!(
        h.state().studio.doc.project.npcs.len(),
        3,
        "opened before asking"
    );
    h.get_by_label("Discard changes").click();
    h.run_steps(2);
    assert_eq!(h.state().studio.doc.project.npcs.len(), 1);
    assert_eq!(h.state().studio.path.as_deref(), Some(other.as_path()));
}

#[test]
fn a_line_spoken_happy_smiles_in_the_timeline_and_the_view() {
    let mut h = harness(Studio::new(demo_project(), None));
    h.state_mut().studio.apply(Command::SpeakLine);
    h.state_mut().studio.finish_jobs();
    h.run_steps(2);
    let at = 1000.0;
    h.state_mut().studio.apply(Command::Seek(at));
    h.run_steps(1);
    let neutral = drawn(&h, ArkitTarget::MouthSmileLeft);
    h.state_mut().studio.apply(Command::SetLineEmotion(Some((
        npc_core::anim::emotion::Emotion::Happy,
        1.0,
    ))));
    h.state_mut().studio.apply(Command::Seek(at));
    h.run_steps(1);
    let happy = drawn(&h, ArkitTarget::MouthSmileLeft);
    let frame = *h.state().studio.frame_at_playhead().unwrap();
    let baseline = frame
        .stage(npc_core::anim::face::Stage::Emotion)
        .get(ArkitTarget::MouthSmileLeft)
        - frame
            .stage(npc_core::anim::face::Stage::Anticipation)
            .get(ArkitTarget::MouthSmileLeft);
    assert!(happy > neutral + 0.3, "{happy} happy, {neutral} neutral");
    assert!(baseline > 0.3, "the emotion stage adds {baseline}");
}

#[test]
fn a_gesture_added_at_the_playhead_joins_the_lane_and_moves_the_arm() {
    use npc_core::body::talk::TalkPose;
    let mut h = harness(Studio::new(demo_project(), None));
    h.state_mut().studio.apply(Command::SpeakLine);
    h.state_mut().studio.finish_jobs();
    h.run_steps(2);
    let words = h
        .state()
        .studio
        .timeline
        .source
        .as_ref()
        .unwrap()
        .cue
        .words_ms
        .clone();
    assert!(words.len() > 3, "{words:?}");
    // The playhead on the third word: the gesture is asked for there.
    h.state_mut().studio.apply(Command::Seek(words[2] + 10.0));
    h.run_steps(1);
    let arm_at = |h: &Harness<'_, StudioApp>, t_ms: f64| {
        let bake = h.state().studio.body.bake.as_ref().unwrap();
        let i = bake.times_ms.partition_point(|&t| t <= t_ms) - 1;
        bake.angles_deg("gestures", "rightUpperArm").unwrap()[i]
    };
    let hold_ms = words[2] + 800.0;
    let before = arm_at(&h, hold_ms);
    // The gesture picker starts on "point"; a point asks for the player, ahead.
    h.get_by_label("Add at playhead").click();
    h.run_steps(2);
    let studio = &h.state().studio;
    let asked = &studio.timeline.behaviour.gestures;
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].to_string(), "point@player:2");
    let plan = studio.body.bake.as_ref().unwrap().talk.as_ref().unwrap();
    let stroke = plan
        .strokes
        .iter()
        .find(|s| s.requested)
        .expect("a requested stroke");
    assert_eq!(stroke.pose, TalkPose::Point);
    assert!(stroke.phases.start_ms < words[2] && stroke.phases.apex_ms > words[2]);
    let after = arm_at(&h, hold_ms);
    assert!(
        (after - before).abs() > 20.0,
        "the right upper arm turns {before} degrees before, {after} pointing"
    );
    // Dropped again, the plan has no request left.
    h.state_mut().studio.apply(Command::RemoveLineGesture(0));
    h.run_steps(1);
    let plan = h
        .state()
        .studio
        .body
        .bake
        .as_ref()
        .unwrap()
        .talk
        .clone()
        .unwrap();
    assert!(plan.strokes.iter().all(|s| !s.requested));
}

#[test]
fn an_emotions_face_is_edited_through_the_pose_editor_and_saved() {
    use npc_core::anim::emotion::Emotion;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.ron");
    demo_project().save(&path).unwrap();
    let mut studio = Studio::new(Project::load(&path).unwrap(), Some(path.clone()));
    studio.apply(Command::EmotionToPose(Emotion::Happy));
    let happy = *studio.face().emotions.face(Emotion::Happy).unwrap();
    assert_eq!(
        studio.doc.pose, happy,
        "the pose editor holds the happy face"
    );
    studio.apply(Command::SetPoseWeight {
        target: ArkitTarget::MouthSmileLeft,
        weight: 0.9,
    });
    studio.apply(Command::PoseToEmotion(Emotion::Happy));
    studio.apply(Command::Save);
    let saved = Project::load(&path).unwrap();
    let face = saved.face_settings(&saved.npcs[0].id);
    let smile = face
        .emotions
        .face(Emotion::Happy)
        .unwrap()
        .get(ArkitTarget::MouthSmileLeft);
    assert!((smile - 0.9).abs() < 1e-6, "saved smile {smile}");
    // One undo gives the old face back.
    studio.apply(Command::Undo);
    let back = studio
        .face()
        .emotions
        .face(Emotion::Happy)
        .unwrap()
        .get(ArkitTarget::MouthSmileLeft);
    assert!(
        (back - happy.get(ArkitTarget::MouthSmileLeft)).abs() < 1e-6,
        "{back}"
    );
}

#[test]
fn a_recording_opened_with_its_text_is_aligned_to_it() {
    let Some(wav) = shared_asset("speech/arctic_a0007.wav") else {
        return;
    };
    let mut studio = Studio::new(demo_project(), None);
    studio.apply(Command::SetLineText(
        "And you always want to see it in the superlative degree.".to_owned(),
    ));
    studio.apply(Command::SetAlignToText(true));
    studio.apply(Command::OpenWav(wav.clone()));
    studio.finish_jobs();
    assert!(
        studio.timeline.label.contains("aligned"),
        "{}",
        studio.timeline.label
    );
    let cue = &studio.timeline.source.as_ref().unwrap().cue;
    // The words come from the script, so the line has word timing (the sound alone has none).
    assert!(cue.words_ms.len() >= 9, "{:?}", cue.words_ms);
    let closure = cue
        .track
        .events()
        .iter()
        .find(|e| e.id.get() == 21)
        .unwrap();
    assert!(
        (2300.0..=2420.0).contains(&closure.offset_ms),
        "the p of superlative at {} ms",
        closure.offset_ms
    );
    // Without the switch the same file is lip-synced from its sound alone.
    studio.apply(Command::SetAlignToText(false));
    studio.apply(Command::OpenWav(wav));
    studio.finish_jobs();
    assert!(
        studio
            .timeline
            .source
            .as_ref()
            .unwrap()
            .cue
            .words_ms
            .is_empty()
    );
}

#[test]
fn the_character_picked_is_the_one_edited_and_saved() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.ron");
    demo_project().save(&path).unwrap();
    let studio = Studio::new(Project::load(&path).unwrap(), Some(path.clone()));
    let second = studio.doc.project.npcs[1].id.clone();
    let mut h = harness(studio);
    h.get_by_role_and_label(Role::ComboBox, "Character").click();
    h.run_steps(2);
    h.get_by_label(second.as_str()).click();
    h.run_steps(2);
    let studio = &mut h.state_mut().studio;
    assert_eq!(studio.character().unwrap().id, second);
    assert_eq!(studio.timeline.npc.as_deref(), Some(second.as_str()));
    // Its own face profile, edited and saved: the first character's stays as it was.
    studio.apply(Command::SetOwnFaceProfile(true));
    let mut gaze = studio.face().gaze.clone();
    gaze.avert_chance_speaking = 0.123;
    studio.apply(Command::SetGaze(gaze));
    studio.apply(Command::Save);
    let saved = Project::load(&path).unwrap();
    let chance = |id: &str| saved.face_settings(id).gaze.avert_chance_speaking;
    assert!(
        (chance(&second) - 0.123).abs() < 1e-9,
        "{}",
        chance(&second)
    );
    assert!((chance(&saved.npcs[0].id) - 0.123).abs() > 1e-3);
    assert!(saved.npcs[0].face.is_none());
}

/// The demo project saved in a fresh folder, its first character wearing a head without
/// shapes (Quaternius); None when the shared avatars are missing.
fn saved_with_shapeless_head() -> Option<(tempfile::TempDir, std::path::PathBuf)> {
    let avatar = shared_asset("avatars/Quaternius_Superhero_Male.glb")?;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.ron");
    let mut project = demo_project();
    project.npcs[0].avatar.body = avatar;
    project.save(&path).unwrap();
    Some((dir, path))
}

#[test]
fn a_head_without_shapes_is_given_the_projects_and_worn() {
    let Some((dir, path)) = saved_with_shapeless_head() else {
        return;
    };
    let mut studio = Studio::new(Project::load(&path).unwrap(), Some(path.clone()));
    let out = dir.path().join("hero.glb");
    studio.apply(Command::TransferShapes(out.clone()));
    studio.finish_jobs();
    let status = studio.status.clone().unwrap();
    assert!(!status.error, "{}", status.text);
    assert!(status.text.contains("52 face shapes"), "{}", status.text);
    assert_eq!(
        studio.doc.project.npcs[0].avatar.body,
        std::path::PathBuf::from("hero.glb")
    );
    let asset = npc_core::asset::Asset::load(&out).unwrap();
    assert_eq!(asset.face_rig.arkit_coverage(), 52);
    // One undo and the character wears its old file again.
    studio.apply(Command::Undo);
    assert!(
        studio.doc.project.npcs[0]
            .avatar
            .body
            .ends_with("Quaternius_Superhero_Male.glb")
    );
}

#[test]
fn the_transfer_wizard_shows_both_heads_and_the_transfer_takes_a_moved_landmark() {
    use npc_studio::transfer_wizard::{Head, Origin};
    let Some((dir, path)) = saved_with_shapeless_head() else {
        return;
    };
    let mut studio = Studio::new(Project::load(&path).unwrap(), Some(path.clone()));
    studio.apply(Command::OpenTransferWizard);
    let wizard = studio.wizard.as_ref().expect("the wizard opens");
    for head in [Head::Source, Head::Target] {
        let view = wizard.view(head);
        assert!(
            view.triangles
                .iter()
                .filter(|t| t.facing(npc_core::transfer::Aspect::Front) > 0.0)
                .count()
                > 500,
            "{head:?}: {} triangles",
            view.triangles.len()
        );
        for name in npc_core::transfer::LANDMARK_NAMES {
            assert!(wizard.landmark(head, name).is_some(), "{head:?} {name}");
        }
    }
    // The character's mouth centre moved 3 mm to its left, across the face.
    let (found, origin) = wizard.landmark(Head::Target, "mouth_centre").unwrap();
    assert_ne!(origin, Origin::Moved);
    let frame = wizard.view(Head::Target).frame;
    let to = frame.local(found).truncate() + glam::Vec2::new(0.003, 0.0);
    studio.apply(Command::MoveLandmark {
        head: Head::Target,
        name: "mouth_centre".to_owned(),
        to: to.to_array(),
        seen: npc_core::transfer::Aspect::Front,
    });
    let wizard = studio.wizard.as_ref().unwrap();
    let (moved, origin) = wizard.landmark(Head::Target, "mouth_centre").unwrap();
    assert_eq!(origin, Origin::Moved);
    let across = frame.local(moved).truncate().distance(to);
    assert!(
        across < 1e-5,
        "lands where dropped across the face: {across}"
    );
    // Written, the transfer went through the moved point; the other landmarks as found.
    let out = dir.path().join("hero.glb");
    studio.apply(Command::TransferShapes(out.clone()));
    studio.finish_jobs();
    let status = studio.status.clone().unwrap();
    assert!(!status.error, "{}", status.text);
    let wizard = studio.wizard.as_ref().unwrap();
    assert!(
        wizard
            .outcome
            .as_deref()
            .unwrap()
            .contains("52 face shapes")
    );
    let report = wizard.report.as_ref().expect("the report is shown");
    let used = report.target_landmarks.get("mouth_centre").unwrap();
    assert!(used.distance(moved) < 1e-6, "{used} vs {moved}");
    let nose = report.target_landmarks.get("nose_tip").unwrap();
    let found_nose = wizard.view(Head::Target).found.get("nose_tip").unwrap();
    assert!(nose.distance(found_nose) < 1e-6);
    assert!(report.seam.as_ref().is_some_and(|s| s.lips_part));
    // Seen from the side, an eye's outer corner set 2 mm deeper keeps its place across.
    studio.apply(Command::SeeHeadsFrom(npc_core::transfer::Aspect::Side));
    let wizard = studio.wizard.as_ref().unwrap();
    assert_eq!(wizard.aspect, npc_core::transfer::Aspect::Side);
    let corner = frame.local(wizard.landmark(Head::Target, "eye_left_outer").unwrap().0);
    studio.apply(Command::MoveLandmark {
        head: Head::Target,
        name: "eye_left_outer".to_owned(),
        to: [corner.z - 0.002, corner.y],
        seen: npc_core::transfer::Aspect::Side,
    });
    let (deeper, origin) = studio
        .wizard
        .as_ref()
        .unwrap()
        .landmark(Head::Target, "eye_left_outer")
        .unwrap();
    let deeper = frame.local(deeper);
    assert_eq!(origin, Origin::Moved);
    assert!((deeper.x - corner.x).abs() < 1e-5 && (deeper.y - corner.y).abs() < 1e-5);
    assert!(
        ((corner.z - deeper.z) - 0.002).abs() < 1e-5,
        "{corner} -> {deeper}"
    );
    // Reset puts it back; closing the wizard leaves the character wearing the new head.
    studio.apply(Command::ResetLandmarks(Head::Target));
    let wizard = studio.wizard.as_ref().unwrap();
    assert_eq!(
        wizard.landmark(Head::Target, "mouth_centre").unwrap(),
        (
            found,
            origin_found(wizard.view(Head::Target), "mouth_centre")
        )
    );
    studio.apply(Command::CloseTransferWizard);
    assert!(studio.wizard.is_none());
    assert_eq!(
        studio.doc.project.npcs[0].avatar.body,
        std::path::PathBuf::from("hero.glb")
    );
}

fn origin_found(
    view: &npc_core::transfer::FaceView,
    name: &str,
) -> npc_studio::transfer_wizard::Origin {
    if view.guessed.contains(&name) {
        npc_studio::transfer_wizard::Origin::Guessed
    } else {
        npc_studio::transfer_wizard::Origin::Found
    }
}

/// The wizard's window by what it draws: both faces shaded in skin tones, the landmarks as
/// green dots; a landmark moved turns blue. (`NPC_WIZARD_PICTURE=FILE.png` saves the window.)
#[test]
fn the_transfer_wizard_draws_both_faces_with_their_landmarks() {
    use npc_studio::transfer_wizard::Head;
    let Some((_dir, path)) = saved_with_shapeless_head() else {
        return;
    };
    let mut h = harness(Studio::new(
        Project::load(&path).unwrap(),
        Some(path.clone()),
    ));
    h.state_mut().studio.apply(Command::OpenTransferWizard);
    h.run_steps(3);
    let count = |image: &RgbaImage, want: [u8; 3]| {
        image
            .pixels()
            .filter(|p| (0..3).all(|c| p[c].abs_diff(want[c]) <= 6))
            .count()
    };
    let before = window_pixels(&mut h);
    if let Some(file) = std::env::var_os("NPC_WIZARD_PICTURE") {
        before.save(file).unwrap();
    }
    let skin = skin_toned(&before);
    assert!(skin > 20_000, "{skin} skin-toned pixels");
    let green = count(&before, [70, 200, 90]);
    assert!(green > 200, "{green} green (found) pixels");
    // Only the legend's dot is blue before a landmark is moved.
    let blue_before = count(&before, [70, 160, 255]);
    let (at, _) = h
        .state()
        .studio
        .wizard
        .as_ref()
        .unwrap()
        .landmark(Head::Target, "chin")
        .unwrap();
    let frame = h
        .state()
        .studio
        .wizard
        .as_ref()
        .unwrap()
        .view(Head::Target)
        .frame;
    let to = frame.local(at).truncate() + glam::Vec2::new(0.0, -0.004);
    h.state_mut().studio.apply(Command::MoveLandmark {
        head: Head::Target,
        name: "chin".to_owned(),
        to: to.to_array(),
        seen: npc_core::transfer::Aspect::Front,
    });
    h.run_steps(3);
    let after = window_pixels(&mut h);
    let blue = count(&after, [70, 160, 255]);
    assert!(
        blue > blue_before + 20,
        "{blue} blue (moved) pixels, {blue_before} before"
    );
    assert!(count(&after, [70, 200, 90]) < green, "one green dot fewer");
    // Turned to the side: both heads in profile, still skin-toned, drawn anew.
    h.state_mut()
        .studio
        .apply(Command::SeeHeadsFrom(npc_core::transfer::Aspect::Side));
    h.run_steps(3);
    let side = window_pixels(&mut h);
    if let Some(file) = std::env::var_os("NPC_WIZARD_SIDE_PICTURE") {
        side.save(file).unwrap();
    }
    let side_skin = skin_toned(&side);
    assert!(
        side_skin > 15_000,
        "{side_skin} skin-toned pixels from the side"
    );
    let changed = side
        .pixels()
        .zip(after.pixels())
        .filter(|(a, b)| (0..3).any(|c| a[c].abs_diff(b[c]) > 30))
        .count();
    assert!(
        changed > 20_000,
        "{changed} pixels changed turning to the side"
    );
}

/// Long work can be cancelled (the status bar's Cancel): the line being spoken never lands,
/// and the status says what was cancelled.
#[test]
fn long_work_is_cancelled_from_the_status_bar() {
    let mut h = harness(Studio::new(demo_project(), None));
    h.run_steps(2);
    let before = h.state().studio.timeline.label.clone();
    // Applied without a frame between (frames take what jobs made), so the job is still
    // listed however fast it runs; the bar's Cancel button sends the same command.
    h.state_mut().studio.apply(Command::SpeakLine);
    assert_eq!(
        h.state().studio.jobs().len(),
        1,
        "the line is being spoken (the bar lists it)"
    );
    h.state_mut().studio.apply(Command::CancelJobs);
    assert!(h.state().studio.jobs().is_empty());
    h.state_mut().studio.finish_jobs();
    h.run_steps(1);
    let studio = &h.state().studio;
    assert_eq!(
        studio.timeline.label, before,
        "the cancelled line did not land"
    );
    let status = studio.status.as_ref().map(|s| s.text.clone());
    assert_eq!(status.as_deref(), Some("cancelled speaking the line"));
}

/// "Listen to WAV...": a WAV of a person (a real one, CMU ARCTIC) is played as the
/// person speaking to the character, which listens on the timeline as it would live: its
/// brows flash after the person's first sound, it nods on a share of the stressed syllables
/// (the project's setting: all of them at 1, none at 0, re-baked as it is edited), and the
/// timeline plays the person's sound. The studio keeps drawing while it listens.
#[test]
fn listening_to_a_recording_plots_the_listener_and_follows_its_settings() {
    let test = "listening_to_a_recording_plots_the_listener_and_follows_its_settings";
    let Some(wav) = shared_asset("speech/arctic_a0007.wav") else {
        eprintln!("{test}: NOT RUN, ../shared/assets/speech/arctic_a0007.wav is missing");
        return;
    };
    let mut h = harness(Studio::new(demo_project(), None));
    h.get_by_label("Listen to WAV...").click();
    h.run_steps(2);
    type_path(&mut h, &wav);
    // The listening is baked off the UI thread: a job the status bar names, until it ends.
    h.state_mut().studio.apply(Command::ListenTo(wav.clone()));
    let working = h.state().studio.working().map(|(what, _)| what.to_owned());
    assert_eq!(working.as_deref(), Some("listening to arctic_a0007.wav"));
    h.state_mut().studio.finish_jobs();
    let timeline = &h.state().studio.timeline;
    assert!(timeline.label.contains("listened to"), "{}", timeline.label);
    assert!(timeline.source.is_none() && timeline.audio().is_some());
    let listened = timeline
        .person
        .as_ref()
        .and_then(|p| p.listened.clone())
        .expect("the listener was baked");
    assert!(!listened.utterances.is_empty(), "the person was heard");
    let first = listened.utterances[0].0;
    let brows: Vec<(f64, f32)> = listened
        .face
        .times_ms
        .iter()
        .copied()
        .zip(
            listened
                .face
                .series(npc_core::anim::face::Stage::Final, ArkitTarget::BrowInnerUp),
        )
        .collect();
    let up = brows
        .iter()
        .find(|(_, b)| *b > 0.1)
        .expect("the brows flash")
        .0;
    assert!(
        up >= first && up <= first + 300.0,
        "brows up at {up} ms, the person's first sound at {first} ms"
    );
    assert!(!listened.stresses.is_empty(), "stressed syllables heard");
    let mut listen = h.state().studio.doc.project.listen.clone();
    for (share, nods) in [(1.0, listened.stresses.len()), (0.0, 0)] {
        listen.nod_share = share;
        h.state_mut()
            .studio
            .apply(Command::SetListen(listen.clone()));
        h.run_steps(2);
        let relistened = h.state().studio.timeline.person.as_ref().unwrap();
        let stresses = &relistened.listened.as_ref().unwrap().stresses;
        assert_eq!(
            stresses.iter().filter(|s| s.1).count(),
            nods,
            "nod share {share}"
        );
    }
    // Speaking a line puts a line back on the timeline in its place.
    h.state_mut().studio.apply(Command::SpeakLine);
    h.state_mut().studio.finish_jobs();
    assert!(h.state().studio.timeline.person.is_none());
}

/// The studio streams its character's face, as the 3D view shows it, over Unreal's Live Link
/// Face: a pose edited in the Pose tab arrives at a receiver (here a UDP socket reading the
/// packet's published layout, which pylivelinkface decodes in player/tests/cli_stream.rs) as
/// the character's subject with that jawOpen; stopping stops it; a bad address is said.
#[test]
fn the_face_the_view_shows_streams_to_a_live_link_receiver() {
    let receiver = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    receiver
        .set_read_timeout(Some(std::time::Duration::from_millis(500)))
        .unwrap();
    let port = receiver.local_addr().unwrap().port();
    let mut h = harness(Studio::new(demo_project(), None));
    h.state_mut()
        .studio
        .apply(Command::StreamTo(Some("osc://nowhere".to_owned())));
    assert!(h.state().studio.status.as_ref().is_some_and(|s| s.error));
    h.state_mut().studio.apply(Command::StreamTo(Some(format!(
        "livelink://127.0.0.1:{port}"
    ))));
    h.state_mut().studio.apply(Command::SetPoseWeight {
        target: ArkitTarget::JawOpen,
        weight: 0.5,
    });
    h.run_steps(3);
    let mut packet = [0u8; 1024];
    let mut latest = None;
    while let Ok(n) = receiver.recv(&mut packet) {
        latest = Some(packet[..n].to_vec());
        if n > 0 && h.state().studio.stream.is_some() {
            break;
        }
    }
    let p = latest.expect("a packet arrived");
    let name_len = i32::from_be_bytes(p[41..45].try_into().unwrap()) as usize;
    assert_eq!(&p[45..45 + name_len], b"Elara");
    let values = 45 + name_len + 17;
    let jaw_at = values + 17 * 4;
    let jaw = f32::from_be_bytes(p[jaw_at..jaw_at + 4].try_into().unwrap());
    assert_eq!(jaw, 0.5, "the pose's jawOpen");
    h.state_mut().studio.apply(Command::StreamTo(None));
    h.run_steps(2);
    while receiver.recv(&mut packet).is_ok() {}
    h.run_steps(3);
    assert!(
        receiver.recv(&mut packet).is_err(),
        "nothing after stopping"
    );
}

/// The studio listens for a live capture and lays it under the timeline as it arrives: Live
/// Link Face packets (made by core's encoder, which pylivelinkface decodes in
/// player/tests/cli_stream.rs) with a rising jawOpen become the comparison's frames in order,
/// a packet without values (the app lost the face) is a gap marked as a span, stopping keeps
/// the capture, and an address that is not one is said.
#[test]
fn a_live_capture_grows_under_the_timeline_as_it_arrives() {
    use npc_core::link::livelink::{LiveLinkFrame, encode};
    let probe = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = probe.local_addr().unwrap().port();
    drop(probe);
    let mut h = harness(Studio::new(demo_project(), None));
    h.state_mut()
        .studio
        .apply(Command::ListenForCapture(Some("tcp://nowhere".to_owned())));
    assert!(h.state().studio.status.as_ref().is_some_and(|s| s.error));
    assert!(h.state().studio.capture_in.is_none());
    h.state_mut()
        .studio
        .apply(Command::ListenForCapture(Some(format!(
            "livelink://127.0.0.1:{port}"
        ))));
    h.run_steps(2);
    let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut packet = Vec::new();
    let frames = 20;
    for i in 0..frames {
        let mut weights = [0.0; npc_core::arkit::ARKIT_TARGET_COUNT];
        weights[ArkitTarget::JawOpen.index()] = i as f32 / frames as f32;
        encode(
            &LiveLinkFrame {
                subject: "Phone",
                time_s: f64::from(i) / 60.0,
                fps: 60,
                weights: &weights,
                head: Default::default(),
            },
            &mut packet,
        );
        if i == 10 {
            // The same packet cut after its count, with a count of 0: no face.
            let count_at = 4 + 37 + 4 + "Phone".len() + 16;
            let mut lost = packet[..=count_at].to_vec();
            lost[count_at] = 0;
            sender.send_to(&lost, ("127.0.0.1", port)).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(4));
            h.run_steps(1);
            continue;
        }
        sender.send_to(&packet, ("127.0.0.1", port)).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(4));
        h.run_steps(1);
    }
    h.run_steps(3);
    let comparison = h
        .state()
        .studio
        .timeline
        .comparison
        .clone()
        .expect("the capture is under the timeline");
    assert!(
        comparison.label.contains(&port.to_string()),
        "{}",
        comparison.label
    );
    let jaw: Vec<f32> = comparison
        .take
        .weights
        .iter()
        .map(|w| w[ArkitTarget::JawOpen.index()])
        .collect();
    assert!(jaw.len() >= 15, "{} frames arrived", jaw.len());
    assert!(jaw.windows(2).all(|w| w[1] > w[0]), "in order: {jaw:?}");
    assert_eq!(comparison.take.gaps_ms.len(), 1, "the lost face is a gap");
    let spans = comparison.gap_spans();
    assert_eq!(spans.len(), 1);
    assert!(spans[0].0 < spans[0].1, "{spans:?}");
    // Stopping keeps the capture and closes the socket.
    h.state_mut().studio.apply(Command::ListenForCapture(None));
    h.run_steps(2);
    assert!(h.state().studio.capture_in.is_none());
    assert_eq!(
        h.state()
            .studio
            .timeline
            .comparison
            .as_ref()
            .map(|c| c.take.times_ms.len()),
        Some(jaw.len())
    );
    std::net::UdpSocket::bind(("127.0.0.1", port)).expect("the port is free again");
}

/// Over VMC the studio streams the body as baked at the playhead with the face: the bundle
/// holds the humanoid bones by Unity's names, and core's VMC reader (whose encoder python-osc
/// decodes in player/tests/cli_stream.rs) reads the pose's jawOpen back.
#[test]
fn the_studio_streams_the_body_and_face_over_vmc() {
    let receiver = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    receiver
        .set_read_timeout(Some(std::time::Duration::from_millis(500)))
        .unwrap();
    let port = receiver.local_addr().unwrap().port();
    let mut h = harness(Studio::new(demo_project(), None));
    h.state_mut()
        .studio
        .apply(Command::StreamTo(Some(format!("vmc://127.0.0.1:{port}"))));
    h.state_mut().studio.apply(Command::SetPoseWeight {
        target: ArkitTarget::JawOpen,
        weight: 0.5,
    });
    h.run_steps(3);
    let mut packet = vec![0u8; 65_536];
    let n = receiver.recv(&mut packet).expect("a bundle arrived");
    let bundle = &packet[..n];
    let has = |text: &[u8]| bundle.windows(text.len()).any(|w| w == text);
    assert!(has(b"/VMC/Ext/Bone/Pos") && has(b"Hips") && has(b"LeftUpperArm"));
    let mut reader = npc_core::link::vmc_in::VmcFaceReader::new();
    let mut faces = Vec::new();
    reader.feed(bundle, &mut faces).unwrap();
    assert_eq!(faces.len(), 1);
    assert_eq!(faces[0].weights[ArkitTarget::JawOpen.index()], 0.5);
    assert!(faces[0].head.is_some(), "the head bone came");
}

/// `npc-studio missing.ron` says so and exits 1 (no window, no empty project in its place).
#[test]
fn a_project_that_cannot_be_opened_is_said_and_the_studio_exits_1() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_npc-studio"))
        .arg("no-such-project.ron")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no-such-project.ron"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// "Run in player" waits on the player it starts: one that fails says why (its last line on
/// stderr) instead of vanishing. Here `sh` stands in for a player that cannot run the project.
#[test]
fn a_player_that_fails_says_why_in_the_studio() {
    let mut child = npc_studio::player_child::PlayerChild::start(
        std::path::Path::new("sh"),
        std::path::Path::new("no-such-project.ron"),
        false,
    )
    .unwrap();
    let ended = loop {
        if let Some(ended) = child.ended() {
            break ended;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let why = ended.unwrap_err();
    assert!(why.starts_with("the player stopped"), "{why}");
    assert!(why.contains("run"), "its own words: {why}");
    assert!(
        npc_studio::player_child::PlayerChild::start(
            std::path::Path::new("/no/such/npc-player"),
            std::path::Path::new("p.ron"),
            false
        )
        .unwrap_err()
        .contains("cannot start")
    );
}

/// Steps the window until the head asked for is read and shown (at most 60 s).
fn until_head_shown(h: &mut Harness<'_, StudioApp>) -> usize {
    let start = std::time::Instant::now();
    h.step();
    let mut frames = 1;
    while h.state().reading_head() && start.elapsed() < std::time::Duration::from_secs(60) {
        h.step();
        frames += 1;
    }
    h.run_steps(1);
    frames
}

#[test]
fn a_new_head_is_read_off_the_ui_thread_and_replaces_the_one_shown() {
    let Some(avatar) = shared_asset("avatars/Quaternius_Superhero_Male.glb") else {
        return;
    };
    let mut h = harness(Studio::new(demo_project(), None));
    let before = h.state().viewport.as_ref().unwrap().head().label.clone();
    h.state_mut()
        .studio
        .apply(Command::OpenHead(avatar.clone()));
    h.step();
    // The old head shows while the new one is read; the status bar lists the reading.
    assert!(h.state().reading_head());
    assert_eq!(h.state().viewport.as_ref().unwrap().head().label, before);
    until_head_shown(&mut h);
    let view = h.state().viewport.as_ref().unwrap();
    assert_eq!(view.head().label, avatar.display().to_string());
    assert!(!view.drawn.is_empty(), "the new head was drawn");
    // A file that is no head: said, and the built-in head shows.
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.glb");
    std::fs::write(&broken, b"not a glTF").unwrap();
    h.state_mut().studio.apply(Command::OpenHead(broken));
    until_head_shown(&mut h);
    let status = h.state().studio.status.clone().unwrap();
    assert!(
        status.error && status.text.contains("broken.glb"),
        "{}",
        status.text
    );
    assert_eq!(
        h.state().viewport.as_ref().unwrap().head().label,
        "built-in head"
    );
}

#[test]
fn a_characters_new_body_is_read_off_the_ui_thread() {
    let Some(avatar) = shared_asset("avatars/Quaternius_Superhero_Male.glb") else {
        return;
    };
    let mut studio = Studio::new(demo_project(), None);
    let first = studio.body.avatar_file().map(std::path::Path::to_path_buf);
    let mut roster = studio.doc.project.npcs.clone();
    roster[0].avatar.body = avatar.clone();
    studio.apply(Command::SetRoster(roster));
    // Being read: listed as work, the body baked so far still shown.
    assert!(
        studio
            .jobs()
            .iter()
            .any(|(what, _)| what.contains("reading the body")),
        "{:?}",
        studio.jobs()
    );
    assert_eq!(
        studio.body.avatar_file().map(std::path::Path::to_path_buf),
        first
    );
    studio.finish_jobs();
    assert_eq!(studio.body.avatar_file(), Some(avatar.as_path()));
    assert!(studio.body.bake.is_some());
    assert!(studio.jobs().is_empty());
}
