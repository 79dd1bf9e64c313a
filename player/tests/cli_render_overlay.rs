//! `npc-player render --overlay`: the player's screen over real frames of the demo while Elara
//! speaks. The subtitle changes the lower part of the picture and nothing above the heads;
//! `--no-subtitles` takes it away again; without `--overlay` frames are as before.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use image::RgbaImage;

const FRAMES: &str = "20";

fn render(project: &Path, agent: &Path, out: &Path, extra: &[&str]) -> RgbaImage {
    let _ = std::fs::remove_file(agent.join("spoken.json"));
    let mut args = vec![
        "render",
        "--project",
        project.to_str().unwrap(),
        "--agent-dir",
        agent.to_str().unwrap(),
        "--frames",
        FRAMES,
        "--size",
        "640x360",
        "--time-of-day",
        "0.5",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let run = common::npc_player(&args);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    image::open(out.join("frame_0019.png")).unwrap().to_rgba8()
}

/// Pixels that differ between `a` and `b` in rows `rows`.
fn differing(a: &RgbaImage, b: &RgbaImage, rows: std::ops::Range<u32>) -> usize {
    rows.flat_map(|y| (0..a.width()).map(move |x| (x, y)))
        .filter(|&(x, y)| a.get_pixel(x, y) != b.get_pixel(x, y))
        .count()
}

#[test]
fn the_subtitle_of_a_line_is_drawn_under_the_picture() {
    let tmp = tempfile::tempdir().unwrap();
    let project = common::demo_with_avatar(tmp.path(), "assets/avatar.glb");
    let agent = tmp.path().join("agent");
    std::fs::create_dir_all(agent.join("conversations")).unwrap();
    std::fs::write(
        agent.join("active.json"),
        r#"{"conversation": "conversations/c.jsonl", "speakers": ["Elara", "Bram"]}"#,
    )
    .unwrap();
    std::fs::write(
        agent.join("conversations/c.jsonl"),
        "{\"seq\": 0, \"speaker_id\": \"Elara\", \"text\": \"Welcome, traveller. The inn is over there.\"}\n",
    )
    .unwrap();
    let plain = render(&project, &agent, &tmp.path().join("plain"), &[]);
    let screen = render(&project, &agent, &tmp.path().join("screen"), &["--overlay"]);
    let bare = render(
        &project,
        &agent,
        &tmp.path().join("bare"),
        &["--overlay", "--no-subtitles"],
    );
    let again = render(&project, &agent, &tmp.path().join("again"), &[]);
    assert_eq!(
        differing(&plain, &again, 0..360),
        0,
        "frames without the screen repeat"
    );
    // The subtitle: a band in the lower fifth (text 0.035 of the height, on a dark band).
    let lower = differing(&plain, &screen, 288..352);
    assert!(
        lower > 3_000,
        "the subtitle changed only {lower} pixels in the lower part"
    );
    // The sky above the heads is left alone (names stand just over the heads).
    assert_eq!(differing(&plain, &screen, 0..80), 0, "the sky is untouched");
    // Without subtitles the lower part is the world's again; the names stay.
    assert_eq!(differing(&plain, &bare, 288..352), 0, "--no-subtitles");
    assert!(differing(&plain, &bare, 80..288) > 0, "names over the NPCs");
}
