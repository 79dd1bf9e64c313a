//! Lines in and out of the studio: File > Export writes the timeline's line as Live Link Face
//! CSV and as a glTF clip on the first NPC's avatar (with its body); a capture laid under the
//! line plots and plays on the head; a broken capture is refused with its line and column and
//! loses nothing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../tests/common/shared_asset.rs"]
mod shared_asset;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use npc_core::ArkitTarget;
use npc_core::VisemeId;
use npc_core::asset::Asset;
use npc_core::asset::animation::Property;
use npc_core::project::demo_project;
use npc_core::take::read_livelink_csv;
use npc_studio::app::StudioApp;
use npc_studio::command::{Command, ExportFormat};
use npc_studio::state::{Studio, ViewSource};

const VISEMES: &str = r#"[{"id": 0, "offset_ms": 0}, {"id": 21, "offset_ms": 120}, {"id": 2, "offset_ms": 300}, {"id": 0, "offset_ms": 900}]"#;

/// The demo project saved beside its generated assets, with a viseme line on the timeline.
fn demo_with_line(dir: &std::path::Path) -> Studio {
    npc_core::procedural::generate::generate(&dir.join("assets")).unwrap();
    let project = dir.join("demo.ron");
    demo_project().save(&project).unwrap();
    let visemes = dir.join("line.json");
    std::fs::write(&visemes, VISEMES).unwrap();
    let mut studio = Studio::open(&project);
    studio.apply(Command::OpenVisemes(visemes));
    assert!(studio.timeline.bake.is_some());
    studio
}

#[test]
fn the_line_exports_as_csv_and_as_a_clip_with_its_body() {
    let dir = tempfile::tempdir().unwrap();
    let mut studio = demo_with_line(dir.path());
    let csv = dir.path().join("line.csv");
    studio.apply(Command::ExportLine {
        format: ExportFormat::LivelinkCsv,
        path: csv.clone(),
    });
    let status = studio.status.clone().unwrap();
    assert!(!status.error, "{}", status.text);
    let take = read_livelink_csv(&std::fs::read_to_string(&csv).unwrap(), "line").unwrap();
    let bake = studio.timeline.bake.as_ref().unwrap();
    assert_eq!(take.weights.len(), bake.frames.len());
    for (row, frame) in take.weights.iter().zip(&bake.frames) {
        assert_eq!(
            row,
            &frame.final_pose().0,
            "the CSV holds the plotted final weights"
        );
    }

    let glb = dir.path().join("line.glb");
    studio.apply(Command::ExportLine {
        format: ExportFormat::Gltf,
        path: glb.clone(),
    });
    let status = studio.status.clone().unwrap();
    assert!(!status.error, "{}", status.text);
    assert!(status.text.contains("with the body"), "{}", status.text);
    let asset = Asset::load(&glb).unwrap();
    let clip = asset.clips.last().unwrap();
    assert_eq!(clip.name, "line");
    assert!(
        clip.channels
            .iter()
            .any(|c| c.property == Property::Weights)
    );
    assert!(
        clip.channels
            .iter()
            .any(|c| c.property == Property::Rotation)
    );

    // Nothing on the timeline: nothing to export, and nothing written.
    let mut empty = Studio::new(demo_project(), None);
    let nothing = dir.path().join("nothing.csv");
    empty.apply(Command::ExportLine {
        format: ExportFormat::LivelinkCsv,
        path: nothing.clone(),
    });
    assert!(empty.status.unwrap().error);
    assert!(!nothing.exists());
}

#[test]
fn a_capture_plots_under_the_line_and_plays_on_the_head() {
    let dir = tempfile::tempdir().unwrap();
    let mut studio = demo_with_line(dir.path());
    let csv = dir.path().join("capture.csv");
    studio.apply(Command::ExportLine {
        format: ExportFormat::LivelinkCsv,
        path: csv.clone(),
    });
    // The capture: the exported line with its jaw held wide open from 200 ms.
    let text = std::fs::read_to_string(&csv).unwrap();
    let take = read_livelink_csv(&text, "capture").unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let jaw = 2 + ArkitTarget::JawOpen.index();
    for (i, line) in lines.iter_mut().enumerate().skip(1) {
        if take.times_ms[i - 1] >= 200.0 {
            let mut fields: Vec<&str> = line.split(',').collect();
            fields[jaw] = "0.9";
            *line = fields.join(",");
        }
    }
    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();

    studio.apply(Command::OpenComparison(csv.clone()));
    let comparison = studio.timeline.comparison.as_ref().expect("opened");
    assert_eq!(comparison.label, "capture.csv");
    assert_eq!(studio.view, ViewSource::Comparison);
    studio.apply(Command::Seek(500.0));
    assert_eq!(
        studio.view,
        ViewSource::Comparison,
        "scrubbing keeps the capture on"
    );
    assert!((studio.view_pose().get(ArkitTarget::JawOpen) - 0.9).abs() < 1e-6);
    studio.apply(Command::ShowComparison(false));
    let line_jaw = studio.view_pose().get(ArkitTarget::JawOpen);
    assert!(
        (line_jaw - 0.9).abs() > 0.05,
        "the line's own jaw: {line_jaw}"
    );

    // A broken capture: refused with file:line:column, the open one kept.
    let broken = dir.path().join("broken.csv");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut fields: Vec<&str> = lines[2].split(',').collect();
    fields[jaw] = "wide";
    lines[2] = fields.join(",");
    std::fs::write(&broken, lines.join("\n")).unwrap();
    studio.apply(Command::OpenComparison(broken));
    let status = studio.status.clone().unwrap();
    assert!(status.error);
    assert!(
        status.text.contains("broken.csv:3:20: JawOpen is \"wide\""),
        "{}",
        status.text
    );
    assert_eq!(
        studio.timeline.comparison.as_ref().unwrap().label,
        "capture.csv"
    );
    studio.apply(Command::CloseComparison);
    assert!(studio.timeline.comparison.is_none());
}

#[test]
fn file_export_asks_for_a_path_and_writes_there() {
    let dir = tempfile::tempdir().unwrap();
    let studio = demo_with_line(dir.path());
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .wgpu_setup(npc_studio::viewport::with_adapter_limits(
            egui_kittest::wgpu::default_wgpu_setup(),
        ))
        .build_eframe(move |_cc| StudioApp::new(studio, None).with_typed_paths());
    h.run_steps(3);
    h.get_by_label("File").click();
    h.run_steps(2);
    h.get_by_label("Export line as Live Link CSV...").click();
    h.run_steps(2);
    let out = dir.path().join("from_menu.csv");
    h.get_by_role_and_label(Role::TextInput, "File path:")
        .focus();
    h.run_steps(1);
    h.get_by_role_and_label(Role::TextInput, "File path:")
        .type_text(out.to_str().unwrap());
    h.run_steps(1);
    h.get_by_label("OK").click();
    h.run_steps(2);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("Timecode,BlendShapeCount,EyeBlinkLeft,"));
}

#[test]
fn a_head_of_its_own_shapes_plays_and_edits_them() {
    let Some(avatar) = shared_asset::shared_asset("avatars/VALID_Black_F_1_Busi.glb") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut project = demo_project();
    project.npcs[0].avatar.body = avatar.clone();
    let file = dir.path().join("p.ron");
    project.save(&file).unwrap();
    let mut studio = Studio::open(&file);
    let asset = Asset::load(&avatar).unwrap();
    let names = npc_core::asset::face_rig::target_names(&asset.meshes);
    studio.apply(Command::HeadTargets {
        names,
        vrm: asset.vrm_expressions,
    });
    assert_eq!(
        studio.shapes.set,
        Some(npc_core::anim::ShapeSet::DazExpressions)
    );
    let visemes = dir.path().join("line.json");
    std::fs::write(&visemes, VISEMES).unwrap();
    studio.apply(Command::OpenVisemes(visemes));
    let targets = studio.shapes.shapes.own_targets();
    let mpb = targets
        .iter()
        .position(|t| t == "h_expressions.MPB_Up_h")
        .unwrap();
    studio.apply(Command::Seek(120.0));
    assert!(
        studio.view_own()[mpb] > 0.9,
        "p/b/m closes the lips at 120 ms"
    );

    // Editing a viseme's own shape makes the shapes the NPC's own and rebakes.
    let aa = VisemeId::new(2).unwrap();
    let shout = "h_expressions.Shout_h".to_owned();
    studio.apply(Command::SetOwnVisemeWeight {
        viseme: aa,
        target: shout.clone(),
        weight: 0.7,
    });
    assert!(studio.is_dirty());
    let own = studio.doc.project.npcs[0].avatar.shapes.as_ref().unwrap();
    assert_eq!(own.visemes[&2][&shout], 0.7);
    assert_eq!(studio.shapes.set, None, "the project's shapes now");
    let shout_at = studio
        .shapes
        .shapes
        .own_targets()
        .iter()
        .position(|t| *t == shout)
        .unwrap();
    assert!(
        (studio.view_own()[shout_at] - 0.7).abs() < 1e-6,
        "the view shows the viseme"
    );
    studio.apply(Command::Undo);
    assert!(studio.doc.project.npcs[0].avatar.shapes.is_none());
}
