//! A text strip chart of a bake: one row per target, time left to right, denser characters
//! for larger weights, with the viseme track on top. Enough to see lips close, the jaw open
//! and the eyes blink in a terminal.

use std::fmt::Write;

use npc_core::anim::face::Stage;
use npc_core::anim::lipsync::VisemeTrack;
use npc_core::anim::timeline::Bake;
use npc_core::arkit::ArkitTarget;

/// Characters for weights 0 to 1.
const RAMP: &[u8] = b" .:-=+*#%@";

/// The targets the chart shows.
pub const PLOTTED: [ArkitTarget; 7] = [
    ArkitTarget::JawOpen,
    ArkitTarget::MouthClose,
    ArkitTarget::MouthPressLeft,
    ArkitTarget::MouthPucker,
    ArkitTarget::MouthFunnel,
    ArkitTarget::EyeLookOutRight,
    ArkitTarget::EyeBlinkLeft,
];

/// Renders the `final` stage of `bake` as a chart `columns` characters wide.
#[must_use]
pub fn strip_chart(bake: &Bake, track: &VisemeTrack, lead_ms: f64, columns: usize) -> String {
    let columns = columns.max(10);
    let duration = bake.times_ms.last().copied().unwrap_or(0.0).max(1.0);
    let column_of = |t: f64| {
        ((t / duration) * (columns - 1) as f64)
            .round()
            .clamp(0.0, (columns - 1) as f64) as usize
    };
    let label_width = PLOTTED.iter().map(|t| t.name().len()).max().unwrap_or(0);

    let mut out = String::new();
    // Viseme track, drawn where the face shows it (the offset minus the lead).
    let mut row = vec![b' '; columns];
    for event in track.events() {
        let col = column_of((event.offset_ms - lead_ms).max(0.0));
        let label = event.id.info().label.as_bytes();
        if let Some(&first) = label.first() {
            row[col] = if event.id.get() == 0 { b'_' } else { first };
        }
    }
    let _ = writeln!(
        out,
        "{:>label_width$} |{}|",
        "viseme",
        String::from_utf8_lossy(&row)
    );
    for target in PLOTTED {
        let mut peak = vec![0.0_f32; columns];
        for (&t, w) in bake.times_ms.iter().zip(bake.series(Stage::Final, target)) {
            let c = column_of(t);
            peak[c] = peak[c].max(w);
        }
        let cells: String = peak
            .iter()
            .map(|&w| {
                let i = (w.clamp(0.0, 1.0) * (RAMP.len() - 1) as f32).round() as usize;
                char::from(RAMP[i])
            })
            .collect();
        let _ = writeln!(out, "{:>label_width$} |{cells}|", target.name());
    }
    let _ = writeln!(
        out,
        "{:>label_width$}  0 ms{:>width$}",
        "",
        format!("{duration:.0} ms"),
        width = columns.saturating_sub(3)
    );
    out
}
