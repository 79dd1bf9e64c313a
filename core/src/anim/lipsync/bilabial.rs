//! Stage 3: bilabial closure. p, b and m need the lips fully shut; interpolation and smoothing
//! round that closure off, so after smoothing an envelope around each bilabial apex pulls the
//! displayed pose back to the closed pose.

use super::settings::BilabialSettings;
use super::track::VisemeTrack;
use crate::anim::pose::Pose;
use crate::viseme::{VisemeId, VisemeTable};

/// Strength of the closure for a bilabial apex at `apex_ms`, seen at `t_ms`: a linear rise over
/// `onset_ms`, full closure for `hold_ms`, a linear fall over `release_ms`.
#[must_use]
pub fn bilabial_envelope(settings: &BilabialSettings, apex_ms: f64, t_ms: f64) -> f32 {
    let ramp = |distance: f64, width: f64| {
        if width <= 0.0 {
            0.0
        } else {
            (1.0 - distance / width).max(0.0)
        }
    };
    let hold_end = apex_ms + settings.hold_ms.max(0.0);
    let envelope = if t_ms < apex_ms {
        ramp(apex_ms - t_ms, settings.onset_ms)
    } else if t_ms <= hold_end {
        1.0
    } else {
        ramp(t_ms - hold_end, settings.release_ms)
    };
    envelope as f32
}

/// Pulls `pose` towards the closed (p/b/m) pose by the strongest envelope of the bilabial
/// events around `track_ms`.
pub fn bilabial(
    pose: &mut Pose,
    track: &VisemeTrack,
    table: &VisemeTable,
    settings: &BilabialSettings,
    track_ms: f64,
) {
    let reach_back = settings.hold_ms.max(0.0) + settings.release_ms.max(0.0);
    let events = track.events();
    let first = events.partition_point(|e| e.offset_ms < track_ms - reach_back);
    let last = track.count_until(track_ms + settings.onset_ms.max(0.0));
    let strongest = events[first..last.max(first)]
        .iter()
        .filter(|e| e.id.is_bilabial())
        .map(|e| bilabial_envelope(settings, e.offset_ms, track_ms))
        .fold(0.0_f32, f32::max);
    if strongest > 0.0 {
        pose.blend_towards(table.pose(VisemeId::BILABIAL), strongest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_rises_holds_and_falls() {
        let s = BilabialSettings::default();
        assert_eq!(bilabial_envelope(&s, 1000.0, 900.0), 0.0);
        assert!((bilabial_envelope(&s, 1000.0, 960.0) - 0.5).abs() < 1e-6);
        assert_eq!(bilabial_envelope(&s, 1000.0, 1000.0), 1.0);
        assert_eq!(bilabial_envelope(&s, 1000.0, 1040.0), 1.0);
        assert!((bilabial_envelope(&s, 1000.0, 1100.0) - 0.5).abs() < 1e-6);
        assert_eq!(bilabial_envelope(&s, 1000.0, 1160.0), 0.0);
    }
}
