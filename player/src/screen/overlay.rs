//! One frame of the player's screen as data ([`OverlayFrame`]) and its painting with egui's
//! painter: subtitles under the picture, names over the NPCs near the camera, the microphone
//! light in the lower left corner, and the controls' hint at the start. Painted straight onto
//! a layer (no egui windows), so a frame is whole on the first pass: what `render --overlay`
//! writes is what the window shows.

use egui::text::{LayoutJob, TextFormat};
use egui::{Align2, Color32, CornerRadius, FontId, LayerId, Painter, Pos2, Rect, Stroke, Vec2};
use npc_core::project::{SubtitlePlace, SubtitleSettings};

use super::mic_light::MicLight;
use super::subtitles::SubtitleLine;
use super::tags::NameTag;

/// The controls, in one line.
pub const HINT: &str =
    "WASD move  ·  drag the mouse to look  ·  Shift hurry  ·  F1 help  ·  Esc menu";

const SPEAKER: Color32 = Color32::from_rgb(255, 204, 128);
const PERSON: Color32 = Color32::from_rgb(150, 205, 255);
const ADDRESSED: Color32 = Color32::from_rgb(130, 235, 150);
const SPEAKING: Color32 = Color32::from_rgb(255, 190, 90);

/// Everything drawn over one frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OverlayFrame {
    /// The lines on screen, oldest first (empty when subtitles are off).
    pub subtitles: Vec<SubtitleLine>,
    pub style: SubtitleSettings,
    pub tags: Vec<NameTag>,
    /// The microphone light; `None` leaves it out (frames rendered without a person).
    pub mic: Option<MicLight>,
    /// The controls' hint, 0 (not shown) to 1.
    pub hint: f32,
}

/// Paints `frame` over the whole of `ctx`'s screen, in pixels of `size` (the picture) with
/// `pixels_per_point`.
pub fn paint(ctx: &egui::Context, frame: &OverlayFrame, size: [u32; 2], pixels_per_point: f32) {
    let painter = ctx.layer_painter(LayerId::background());
    let ppp = pixels_per_point.max(0.1);
    // Sizes are shares of the picture's height, so every size of window looks the same.
    let screen = Vec2::new(size[0] as f32, size[1] as f32) / ppp;
    for tag in &frame.tags {
        name_tag(&painter, tag, screen, ppp);
    }
    subtitles(&painter, frame, screen);
    if let Some(light) = &frame.mic {
        mic_light(&painter, light, screen);
    }
    if frame.hint > 0.0 {
        hint(&painter, frame.hint, screen);
    }
}

fn fade(color: Color32, opacity: f32) -> Color32 {
    color.gamma_multiply(opacity.clamp(0.0, 1.0))
}

fn subtitles(painter: &Painter, frame: &OverlayFrame, screen: Vec2) {
    let style = frame.style.sane();
    let font = FontId::proportional(style.size * screen.y);
    let pad = font.size * 0.35;
    let margin = screen.y * 0.06;
    let wrap = screen.x * 0.8;
    let galleys: Vec<_> = frame
        .subtitles
        .iter()
        .map(|line| {
            (
                painter.layout_job(line_job(line, &font, wrap)),
                line.opacity,
            )
        })
        .collect();
    let gap = pad * 0.8;
    let total: f32 = galleys
        .iter()
        .map(|(g, _)| g.size().y + 2.0 * pad + gap)
        .sum();
    let mut top = match style.place {
        SubtitlePlace::Bottom => screen.y - margin - total + gap,
        SubtitlePlace::Top => margin,
    };
    for (galley, opacity) in galleys {
        let size = galley.size();
        let rect = Rect::from_min_size(
            Pos2::new((screen.x - size.x) * 0.5 - pad, top),
            size + Vec2::splat(2.0 * pad),
        );
        if style.background > 0.0 {
            painter.rect_filled(
                rect,
                CornerRadius::same((pad * 0.8).min(255.0) as u8),
                fade(Color32::BLACK, style.background * opacity),
            );
        }
        painter.galley(rect.min + Vec2::splat(pad), galley, Color32::WHITE);
        top = rect.max.y + gap;
    }
}

/// A line's text: the speaker's name, the words heard bright and the rest dim.
fn line_job(line: &SubtitleLine, font: &FontId, wrap: f32) -> LayoutJob {
    let mut job = LayoutJob::default();
    job.wrap.max_width = wrap;
    let format = |color: Color32| TextFormat {
        font_id: font.clone(),
        color: fade(color, line.opacity),
        italics: line.person,
        ..TextFormat::default()
    };
    let (name, said) = if line.person {
        (PERSON, PERSON)
    } else {
        (SPEAKER, Color32::WHITE)
    };
    job.append(&format!("{}: ", line.speaker), 0.0, format(name));
    for (i, word) in line.words.iter().enumerate() {
        let color = if i < line.heard {
            said
        } else {
            fade(said, 0.45)
        };
        let space = if i + 1 < line.words.len() { " " } else { "" };
        job.append(&format!("{word}{space}"), 0.0, format(color));
    }
    job
}

fn name_tag(painter: &Painter, tag: &NameTag, screen: Vec2, ppp: f32) {
    let size = (screen.y * 0.024).max(9.0);
    let font = FontId::proportional(size);
    let color = if tag.addressed {
        ADDRESSED
    } else {
        Color32::WHITE
    };
    let at = Pos2::new(tag.at[0], tag.at[1]) / ppp;
    let shadow = Vec2::splat((size * 0.08).max(1.0));
    painter.text(
        at + shadow,
        Align2::CENTER_BOTTOM,
        &tag.name,
        font.clone(),
        fade(Color32::BLACK, tag.opacity * 0.8),
    );
    let rect = painter.text(
        at,
        Align2::CENTER_BOTTOM,
        &tag.name,
        font,
        fade(color, tag.opacity),
    );
    if tag.speaking {
        // A marker left of the name: the one talking.
        let r = size * 0.28;
        let centre = Pos2::new(rect.min.x - r * 2.2, rect.center().y);
        painter.circle_filled(centre, r, fade(SPEAKING, tag.opacity));
    }
    if tag.addressed {
        let y = rect.max.y + size * 0.1;
        painter.line_segment(
            [Pos2::new(rect.min.x, y), Pos2::new(rect.max.x, y)],
            Stroke::new((size * 0.1).max(1.0), fade(ADDRESSED, tag.opacity)),
        );
    }
}

fn mic_light(painter: &Painter, light: &MicLight, screen: Vec2) {
    let r = (screen.y * 0.014).max(6.0);
    let centre = Pos2::new(r * 2.5, screen.y - r * 2.5);
    let font = FontId::proportional(r * 1.6);
    let (color, level, label) = match light {
        MicLight::Off => (Color32::from_gray(120), None, "microphone off".to_owned()),
        MicLight::Listening { level } => (
            Color32::from_rgb(70, 150, 90),
            Some(*level),
            "listening".to_owned(),
        ),
        MicLight::Hearing { level, to } => (
            ADDRESSED,
            Some(*level),
            to.as_ref().map_or_else(
                || "hearing you".to_owned(),
                |to| format!("hearing you, to {to}"),
            ),
        ),
        MicLight::Sent { to } => (
            PERSON,
            None,
            to.as_ref()
                .map_or_else(|| "sent".to_owned(), |to| format!("sent to {to}")),
        ),
    };
    painter.circle_filled(centre, r * 1.5, fade(Color32::BLACK, 0.45));
    match light {
        MicLight::Off => {
            painter.circle_stroke(centre, r, Stroke::new(r * 0.25, color));
        }
        _ => {
            painter.circle_filled(centre, r, color);
        }
    }
    let mut x = centre.x + r * 2.2;
    if let Some(level) = level {
        let bar = Rect::from_min_size(
            Pos2::new(x, centre.y - r * 0.3),
            Vec2::new(r * 5.0, r * 0.6),
        );
        painter.rect_filled(bar, CornerRadius::ZERO, fade(Color32::BLACK, 0.5));
        let mut filled = bar;
        filled.set_width(bar.width() * level.clamp(0.0, 1.0));
        painter.rect_filled(filled, CornerRadius::ZERO, color);
        x = bar.max.x + r;
    }
    let text = Pos2::new(x + 1.0, centre.y + 1.0);
    painter.text(
        text,
        Align2::LEFT_CENTER,
        &label,
        font.clone(),
        Color32::BLACK,
    );
    painter.text(
        text - Vec2::splat(1.0),
        Align2::LEFT_CENTER,
        label,
        font,
        color,
    );
}

fn hint(painter: &Painter, opacity: f32, screen: Vec2) {
    let font = FontId::proportional((screen.y * 0.022).max(10.0));
    let galley =
        painter.layout_no_wrap(HINT.to_owned(), font.clone(), fade(Color32::WHITE, opacity));
    let pad = font.size * 0.5;
    let rect = Rect::from_center_size(
        Pos2::new(screen.x * 0.5, screen.y * 0.05 + galley.size().y * 0.5),
        galley.size() + Vec2::splat(2.0 * pad),
    );
    painter.rect_filled(
        rect,
        CornerRadius::same(pad.min(255.0) as u8),
        fade(Color32::BLACK, 0.5 * opacity),
    );
    painter.galley(rect.min + Vec2::splat(pad), galley, Color32::WHITE);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_in_any_script_is_laid_out_without_failing() {
        let ctx = egui::Context::default();
        let line = |speaker: &str, text: &str, person| SubtitleLine {
            speaker: speaker.to_owned(),
            words: text.split_whitespace().map(str::to_owned).collect(),
            heard: 1,
            opacity: 0.8,
            person,
        };
        let frame = OverlayFrame {
            subtitles: vec![
                line("민지", "안녕하세요 🙂 こんにちは мир مرحبا", false),
                line("You", "¿Dónde está la posada?", true),
            ],
            mic: Some(MicLight::Sent {
                to: Some("민지".to_owned()),
            }),
            hint: 0.5,
            ..OverlayFrame::default()
        };
        let input = egui::RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, Vec2::new(640.0, 360.0))),
            ..egui::RawInput::default()
        };
        let mut out = ctx.run_pass(input, |ctx| paint(ctx, &frame, [640, 360], 1.0));
        assert!(out.shapes.len() >= 6, "{} shapes", out.shapes.len());
        out.textures_delta.clear();
    }
}
