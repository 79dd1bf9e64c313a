//! `npc-player export` refuses bad input with one line naming the file and place, and keeps
//! what an earlier run wrote.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;

use common::{npc_player, one_line_failure};

#[test]
fn bad_input_gives_one_line_and_keeps_earlier_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("line.csv");
    fs::write(&out, "earlier").unwrap();
    let record = dir.path().join("rec.jsonl");
    let arg = |p: &std::path::Path| p.to_str().unwrap().to_owned();
    let export = |extra: &[&str]| {
        let mut args = vec!["export".to_owned()];
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        args.extend(["--out".to_owned(), arg(&out)]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        npc_player(&args)
    };
    let csv = ["--to", "livelink-csv"];

    fs::write(&record, "{\"frame\": 0}\n").unwrap();
    let line = one_line_failure(&export(
        &[&["--record", &arg(&record), "--npc", "Mira"][..], &csv[..]].concat(),
    ));
    assert!(
        line.contains("rec.jsonl:1:12: missing field `time_ms`"),
        "{line}"
    );

    let frame = |npc: &str| {
        format!(
            "{{\"frame\": 0, \"time_ms\": 0.0, \"npc\": \"{npc}\", \"line\": null, \"weights\": [{}]}}\n",
            vec!["0.0"; 52].join(",")
        )
    };
    fs::write(&record, frame("Bram") + &frame("Elara")).unwrap();
    let line = one_line_failure(&export(
        &[&["--record", &arg(&record), "--npc", "Mira"][..], &csv[..]].concat(),
    ));
    assert!(
        line.contains("no frame of NPC Mira in the record (it has Bram, Elara)"),
        "{line}"
    );

    let bake = dir.path().join("bake.json");
    fs::write(&bake, "{\"fps\": 60").unwrap();
    let line = one_line_failure(&export(&[&["--bake", &arg(&bake)][..], &csv[..]].concat()));
    assert!(
        line.contains("bake.json:1:10: EOF while parsing an object"),
        "{line}"
    );

    let visemes = dir.path().join("v.json");
    fs::write(
        &visemes,
        r#"[{"id": 0, "offset_ms": 0}, {"id": 21, "offset_ms": 100}]"#,
    )
    .unwrap();
    let baked = npc_player(&["bake", "--visemes", &arg(&visemes), "--out", &arg(&bake)]);
    assert!(baked.status.success());
    let line = one_line_failure(&export(&[
        "--bake",
        &arg(&bake),
        "--to",
        "gltf",
        "--avatar",
        "/nonexistent/a.glb",
    ]));
    assert!(
        line.contains("cannot read the avatar /nonexistent/a.glb"),
        "{line}"
    );

    assert_eq!(
        fs::read_to_string(&out).unwrap(),
        "earlier",
        "nothing overwritten"
    );
}
