//! The same project, agent lines and seed give the same record and the same frames byte for
//! byte, talking gestures, brow flashes and emotion included: two fresh `npc-player render`
//! processes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

fn render(project: &Path, agent: &Path, record: &Path, out: &Path) {
    let run = common::npc_player(&[
        "render",
        "--project",
        project.to_str().unwrap(),
        "--agent-dir",
        agent.to_str().unwrap(),
        "--frames",
        "90",
        "--fps",
        "30",
        "--size",
        "32x18",
        "--no-shadows",
        "--record",
        record.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn a_talking_line_renders_the_same_bytes_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let project = common::demo_with_avatar(tmp.path(), "assets/avatar.glb");
    let agent = tmp.path().join("agent");
    std::fs::create_dir_all(agent.join("conversations")).unwrap();
    std::fs::write(
        agent.join("active.json"),
        r#"{"conversation": "conversations/c.jsonl", "speakers": ["Elara", "Bram"]}"#,
    )
    .unwrap();
    let line = r#"{"seq": 0, "speaker_id": "Elara", "text": "Welcome, traveller. The inn is over there.", "emotion": "happy", "gestures": ["point@Bram", "nod"]}"#;
    let mut records = Vec::new();
    for name in ["a", "b"] {
        std::fs::write(agent.join("conversations/c.jsonl"), format!("{line}\n")).unwrap();
        let _ = std::fs::remove_file(agent.join("spoken.json"));
        let record = tmp.path().join(format!("{name}.jsonl"));
        render(&project, &agent, &record, &tmp.path().join(name));
        records.push(std::fs::read(&record).unwrap());
    }
    assert!(records[0].len() > 10_000);
    assert!(
        records[0] == records[1],
        "two renders of the same line differ"
    );
    // The pictures too, every PNG's bytes.
    let frames = |name: &str| -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<_> = std::fs::read_dir(tmp.path().join(name))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        files
            .iter()
            .map(|f| {
                let name = f.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(f).unwrap())
            })
            .collect()
    };
    let (a, b) = (frames("a"), frames("b"));
    assert_eq!(a.len(), 90);
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{name} differs between the two renders");
    }
}
