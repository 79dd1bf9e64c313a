//! The player's screen over the world: subtitles, names over the NPCs near the camera, the
//! microphone light, the controls' hint, help (F1) and the menu (Esc) with the person's
//! settings kept between runs. Drawn with egui (egui-wgpu on the player's own device) rather
//! than with the renderer's own pass: text layout, wrapping, fonts and the menu's widgets
//! come with it, and the studio draws with the same toolkit.
//!
//! What is on screen is computed as data first ([`OverlayFrame`], from the live run and the
//! camera), then painted; the window and `render --overlay` paint the same frames.

mod menu;
mod mic_light;
mod overlay;
mod paint;
mod prefs;
mod subtitles;
mod tags;

pub use menu::{CONTROLS, MenuChoice, help, menu};
pub use mic_light::{MicLight, MicTracker};
pub use overlay::{HINT, OverlayFrame, paint};
pub use paint::{OverlayPainter, OverlayShapes};
pub use prefs::{Prefs, PrefsStore};
pub use subtitles::{LineClock, SubtitleLine, Subtitles};
pub use tags::{NameTag, TagSource, name_tags};

use npc_render::Camera;

use crate::live::Live;

/// What the screen shows besides what the live run decides.
#[derive(Clone, Copy, Debug)]
pub struct ScreenChoice {
    pub subtitles: bool,
    /// The controls' hint, 0 (none) to 1.
    pub hint: f32,
}

/// The screen over `live`'s last step, seen by `camera` in a picture of `size` pixels.
#[must_use]
pub fn overlay_frame(
    live: &Live,
    camera: &Camera,
    size: [u32; 2],
    choice: ScreenChoice,
) -> OverlayFrame {
    let world = &live.world;
    let addressed = live.addressed();
    let sources: Vec<TagSource<'_>> = world
        .npcs
        .iter()
        .map(|npc| TagSource {
            name: &npc.id,
            head: npc.head_position(&world.content.avatars[npc.avatar]),
            speaking: npc.speaking(),
            addressed: addressed == Some(npc.id.as_str()),
        })
        .collect();
    let screen = &world.project.screen;
    OverlayFrame {
        subtitles: if choice.subtitles {
            live.subtitle_lines()
        } else {
            Vec::new()
        },
        style: screen.subtitles.sane(),
        tags: name_tags(&sources, camera, size, screen.names_within_m),
        mic: live.mic_light(),
        hint: choice.hint,
    }
}
