//! The player's screen drawn by egui (egui_kittest, software Vulkan): snapshots of the help and
//! the menu, the menu driven like a person would, and the parts of the screen over a frame.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use npc_core::project::SubtitleSettings;
use npc_player::{
    MenuChoice, MicLight, NameTag, OverlayFrame, Prefs, SubtitleLine, help_window, menu_window,
    paint_screen,
};

/// The command that makes these snapshots again.
const UPDATE: &str = "UPDATE_SNAPSHOTS=1 cargo test --workspace --test screen";

fn snapshot<S>(h: &mut Harness<'_, S>, name: &str) {
    if let Err(e) = h.try_snapshot(name) {
        panic!(
            "{e}\n  the snapshot: player/tests/snapshots/{name}.png, this run's picture beside it \
             as {name}.new.png; when the change is wanted: {UPDATE}"
        );
    }
}

#[test]
fn snapshot_of_the_help() {
    let mut open = true;
    let mut h = Harness::builder()
        .with_size(egui::vec2(640.0, 400.0))
        .wgpu()
        .build_ui(move |ui| help_window(ui.ctx(), &mut open));
    h.run_steps(3);
    for (key, what) in npc_player::CONTROLS {
        h.get_by_label(key);
        h.get_by_label(what);
    }
    snapshot(&mut h, "help");
}

#[test]
fn the_menu_sets_volume_subtitles_and_sensitivity_and_says_quit() {
    let mut h = Harness::builder()
        .with_size(egui::vec2(640.0, 400.0))
        .wgpu()
        .build_ui_state(
            |ui, state: &mut (Prefs, Option<MenuChoice>)| {
                if let Some(choice) = menu_window(ui.ctx(), &mut state.0, true) {
                    state.1 = Some(choice);
                }
            },
            (Prefs::default(), None),
        );
    h.run_steps(3);
    snapshot(&mut h, "menu");
    h.get_by_role(Role::CheckBox).click();
    h.run_steps(2);
    assert_eq!(
        h.state().0.subtitles,
        Some(false),
        "the project's default, turned off"
    );
    let sliders: Vec<_> = h.get_all_by_role(Role::Slider).collect();
    assert_eq!(sliders.len(), 2, "volume and mouse sensitivity");
    sliders[0].set_value_accesskit(40.0);
    h.run_steps(2);
    assert!(
        (h.state().0.volume - 0.4).abs() < 1e-4,
        "{}",
        h.state().0.volume
    );
    h.get_all_by_role(Role::Slider)
        .nth(1)
        .unwrap()
        .set_value_accesskit(2.0);
    h.run_steps(2);
    assert!((h.state().0.mouse_sensitivity - 2.0).abs() < 1e-4);
    assert_eq!(h.state().1, None);
    h.get_by_label("Quit").click();
    h.run_steps(2);
    assert_eq!(h.state().1, Some(MenuChoice::Quit));
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_owned).collect()
}

/// A frame with every part: two subtitles (an NPC's half heard, the person's), two names
/// (one speaking, one spoken to), the microphone hearing the person, and the hint.
fn every_part() -> OverlayFrame {
    OverlayFrame {
        subtitles: vec![
            SubtitleLine {
                speaker: "You".to_owned(),
                words: words("Where is the inn?"),
                heard: 4,
                opacity: 1.0,
                person: true,
            },
            SubtitleLine {
                speaker: "Elara".to_owned(),
                words: words("Past the old mill, by the river."),
                heard: 3,
                opacity: 1.0,
                person: false,
            },
        ],
        style: SubtitleSettings::default(),
        tags: vec![
            NameTag {
                name: "Bram".to_owned(),
                at: [460.0, 150.0],
                opacity: 0.6,
                speaking: false,
                addressed: true,
            },
            NameTag {
                name: "Elara".to_owned(),
                at: [200.0, 130.0],
                opacity: 1.0,
                speaking: true,
                addressed: false,
            },
        ],
        mic: Some(MicLight::Hearing {
            level: 0.7,
            to: Some("Bram".to_owned()),
        }),
        hint: 1.0,
    }
}

/// Paints the whole screen mid-grey.
fn grey_picture(ui: &egui::Ui) {
    let full = ui.ctx().content_rect();
    ui.painter()
        .with_clip_rect(full)
        .rect_filled(full, 0.0, egui::Color32::from_gray(90));
}

#[test]
fn the_parts_of_the_screen_stand_where_they_belong() {
    let frame = every_part();
    let drawn = frame.clone();
    let mut h = Harness::builder()
        .with_size(egui::vec2(640.0, 360.0))
        .wgpu()
        .build_ui(move |ui| {
            // A mid-grey picture to draw over, as the world would be.
            grey_picture(ui);
            paint_screen(ui.ctx(), &drawn, [640, 360], 1.0);
        });
    h.run_steps(2);
    snapshot(&mut h, "screen_parts");
    let image = h.render().unwrap();
    let grey = image::Rgba([90, 90, 90, 255]);
    let changed = |x0: u32, y0: u32, x1: u32, y1: u32| {
        (y0..y1)
            .flat_map(|y| (x0..x1).map(move |x| (x, y)))
            .filter(|&(x, y)| *image.get_pixel(x, y) != grey)
            .count()
    };
    // Subtitles in the lower fifth, centred; nothing in the middle band between the names
    // and the subtitles.
    assert!(changed(120, 290, 520, 345) > 2_000, "subtitles");
    assert_eq!(
        changed(0, 160, 640, 250),
        0,
        "the middle of the picture is left alone"
    );
    // The names above the heads they belong to, the hint at the top, the light bottom left.
    assert!(changed(170, 110, 230, 132) > 50, "Elara's name");
    assert!(changed(0, 0, 640, 40) > 1_000, "the hint");
    assert!(changed(0, 330, 40, 360) > 100, "the microphone light");
    // Without subtitles the middle of the lower band is bare (the light's label is left).
    let bare = OverlayFrame {
        subtitles: Vec::new(),
        ..frame
    };
    let mut h = Harness::builder()
        .with_size(egui::vec2(640.0, 360.0))
        .wgpu()
        .build_ui(move |ui| {
            grey_picture(ui);
            paint_screen(ui.ctx(), &bare, [640, 360], 1.0);
        });
    h.run_steps(2);
    let image = h.render().unwrap();
    let lower = (290..345)
        .flat_map(|y| (180..460).map(move |x| (x, y)))
        .filter(|&(x, y)| *image.get_pixel(x, y) != grey)
        .count();
    assert_eq!(lower, 0);
}
