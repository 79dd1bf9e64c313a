//! Project files: the demo project on disk, round trips, and a clear error for each kind of
//! bad file.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use npc_core::project::{Project, ProjectError, demo_project};

fn demo_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../projects/demo.ron")
}

/// `projects/demo.ron` is exactly what `demo_project()` saves (UPDATE_DEMO=1 rewrites it).
#[test]
fn the_demo_project_file_is_up_to_date() {
    let expected = demo_project().to_ron().unwrap();
    if std::env::var("UPDATE_DEMO").as_deref() == Ok("1") {
        demo_project().save(&demo_path()).unwrap();
    }
    let on_disk = std::fs::read_to_string(demo_path()).unwrap();
    assert_eq!(
        on_disk, expected,
        "run with UPDATE_DEMO=1 to rewrite projects/demo.ron"
    );
    let loaded = Project::load(&demo_path()).unwrap();
    assert_eq!(loaded, demo_project());
    assert_eq!(loaded.npcs.len(), 3);
}

#[test]
fn save_and_load_round_trip_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.ron");
    let mut project = demo_project();
    project.face.blink.rate_per_min = 20.0;
    project.npcs[1].voice.name = Some("en-us+m3".into());
    project.scene.fog.end = 250.0;
    project.save(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let loaded = Project::load(&path).unwrap();
    assert_eq!(loaded, project);
    loaded.save(&path).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

fn error_of(text: &str) -> String {
    let err = Project::parse(text, Path::new("p.ron")).expect_err("must fail");
    err.to_string()
}

#[test]
fn each_kind_of_bad_file_has_its_own_clear_error() {
    // Syntax: where it broke.
    let e = error_of("(version: 1,\n  npcs: [\n");
    assert!(e.starts_with("p.ron:"), "{e}");
    // Unknown field, by name, with what was expected.
    let e = error_of("(version: 1, scenery: ())");
    assert!(
        e.contains("scenery") && e.contains("expected one of"),
        "{e}"
    );
    // Missing version.
    let e = error_of("(npcs: [])");
    assert!(e.contains("version"), "{e}");
    // A version this build does not read.
    let e = error_of("(version: 7)");
    assert!(e.contains("version 7"), "{e}");
    // Wrong type.
    let e = error_of("(version: 1, scene: (day_length_s: \"long\"))");
    assert!(e.starts_with("p.ron:1:"), "{e}");
    // Values out of range, each named.
    let e = error_of("(version: 1, scene: (fog: (start: 300.0, end: 80.0), shadow_size: 1000))");
    assert!(
        e.contains("scene.fog") && e.contains("scene.shadow_size"),
        "{e}"
    );
    // Duplicate and misplaced NPCs.
    let npc =
        |id: &str, x: f32| format!("(id: \"{id}\", avatar: (body: \"a.glb\"), spawn: ({x}, 0.5))");
    let e = error_of(&format!(
        "(version: 1, npcs: [{}, {}])",
        npc("A", 0.5),
        npc("A", 1.5)
    ));
    assert!(e.contains("used twice") && e.contains("spawn"), "{e}");
    // An unknown viseme target inside the face table.
    let e = error_of("(version: 1, face: (table: {0: {\"jawWobble\": 0.5}}))");
    assert!(e.contains("jawWobble"), "{e}");
    // Unreadable file.
    let err = Project::load(Path::new("/no/such/project.ron")).expect_err("missing");
    assert!(matches!(err, ProjectError::Io { .. }), "{err}");
}

/// A character's own face profile replaces the project's for it alone, and its problems are
/// named with the character.
#[test]
fn a_characters_face_profile_is_its_own() {
    let mut project = demo_project();
    let mut own = project.face.clone();
    own.lipsync.lead_ms = 80.0;
    project.npcs[0].face = Some(own);
    let elara = project.npcs[0].id.clone();
    let bram = project.npcs[1].id.clone();
    assert_eq!(project.face_settings(&elara).lipsync.lead_ms, 80.0);
    assert_eq!(
        project.face_settings(&bram).lipsync.lead_ms,
        project.face.lipsync.lead_ms
    );
    let again = Project::parse(&project.to_ron().unwrap(), Path::new("p.ron")).unwrap();
    assert_eq!(again.face_settings(&elara).lipsync.lead_ms, 80.0);

    project.npcs[0].face.as_mut().unwrap().blink.rate_per_min = -1.0;
    let problems = project.problems();
    assert!(
        problems
            .iter()
            .any(|p| p.contains(&format!("({elara}): face:"))),
        "{problems:?}"
    );
}

#[test]
fn a_face_profile_in_a_file_of_its_own_is_read_and_written_there() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.ron");
    let mut project = demo_project();
    let mut face = project.face.clone();
    face.gaze.avert_chance_speaking = 0.123;
    project.npcs[1].face = Some(face.clone());
    project.npcs[1].face_file = Some(PathBuf::from("faces/bram.ron"));
    project.save(&path).unwrap();

    let project_text = std::fs::read_to_string(&path).unwrap();
    assert!(project_text.contains("face_file: Some(\"faces/bram.ron\")"));
    assert!(!project_text.contains("0.123"), "the profile is not inline");
    let face_text = std::fs::read_to_string(dir.path().join("faces/bram.ron")).unwrap();
    assert!(
        face_text.contains("avert_chance_speaking: 0.123"),
        "{face_text}"
    );
    let loaded = Project::load(&path).unwrap();
    assert_eq!(loaded.npcs[1].face.as_ref(), Some(&face));
    assert_eq!(loaded, project);
    let id = &loaded.npcs[1].id;
    assert!((loaded.face_settings(id).gaze.avert_chance_speaking - 0.123).abs() < 1e-12);

    // A missing file, a broken one and both kinds at once each say what is wrong, and where.
    std::fs::remove_file(dir.path().join("faces/bram.ron")).unwrap();
    let missing = Project::load(&path).unwrap_err().to_string();
    assert!(missing.contains("faces/bram.ron"), "{missing}");
    std::fs::write(
        dir.path().join("faces/bram.ron"),
        "(gaze: (avert_chance_speaking: ))",
    )
    .unwrap();
    let broken = Project::load(&path).unwrap_err();
    assert!(
        matches!(&broken, ProjectError::Parse { path, line: 1, .. } if path.ends_with("faces/bram.ron")),
        "{broken}"
    );
    let both = project_text.replacen(
        "face_file: Some(",
        &format!("face: Some({face_text}), face_file: Some("),
        1,
    );
    std::fs::write(&path, both).unwrap();
    std::fs::write(dir.path().join("faces/bram.ron"), face_text).unwrap();
    let error = Project::load(&path).unwrap_err().to_string();
    assert!(error.contains("both `face` and `face_file`"), "{error}");
}
