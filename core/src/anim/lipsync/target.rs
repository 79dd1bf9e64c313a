//! Stage 1: the target pose at a track time.

use super::settings::TargetSettings;
use super::track::VisemeTrack;
use crate::anim::pose::Pose;
use crate::viseme::{VisemeId, VisemeTable};

/// 3x^2 - 2x^3 on [0, 1]: eases in and out.
#[must_use]
pub fn smoothstep(x: f32) -> f32 {
    let x = x.clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}

/// The pose the track asks for at `track_ms` (already lead-compensated).
///
/// The current viseme is held at its apex for `apex_hold` of the gap to the next one, then the
/// pose eases (smoothstep) into the next viseme, arriving exactly at the next offset. Before
/// the first event the face rests in the silence pose; after the last event (or while a
/// growing track has nothing newer yet) the last pose is held.
#[must_use]
pub fn target(
    track: &VisemeTrack,
    table: &VisemeTable,
    settings: &TargetSettings,
    track_ms: f64,
) -> Pose {
    let events = track.events();
    let Some(current) = track.index_at(track_ms) else {
        return *table.pose(VisemeId::SILENCE);
    };
    let from = &events[current];
    let Some(to) = events.get(current + 1) else {
        return *table.pose(from.id);
    };
    let gap = to.offset_ms - from.offset_ms;
    if gap <= 0.0 {
        return *table.pose(to.id);
    }
    let raw = ((track_ms - from.offset_ms) / gap) as f32;
    let hold = settings.apex_hold.clamp(0.0, 0.999);
    let t = if raw < hold {
        0.0
    } else {
        (raw - hold) / (1.0 - hold)
    };
    Pose::lerp(table.pose(from.id), table.pose(to.id), smoothstep(t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::lipsync::VisemeEvent;
    use crate::arkit::ArkitTarget;

    fn track(events: &[(u32, f64)]) -> VisemeTrack {
        VisemeTrack::from_events(
            events
                .iter()
                .map(|&(id, ms)| VisemeEvent::new(VisemeId::new(id).expect("id"), ms))
                .collect(),
        )
        .expect("valid track")
    }

    #[test]
    fn holds_the_apex_then_eases_into_the_next_viseme() {
        let table = VisemeTable::default();
        let settings = TargetSettings::default();
        let track = track(&[(0, 0.0), (2, 100.0), (0, 300.0)]);
        let aa = table
            .pose(VisemeId::new(2).expect("id"))
            .get(ArkitTarget::JawOpen);
        let jaw = |t| target(&track, &table, &settings, t).get(ArkitTarget::JawOpen);
        assert_eq!(jaw(-10.0), 0.0);
        assert_eq!(jaw(59.0), 0.0, "held at silence for 60% of the gap");
        assert!(jaw(80.0) > 0.0 && jaw(80.0) < aa);
        assert_eq!(jaw(100.0), aa, "apex reached at the offset");
        assert_eq!(jaw(219.0), aa, "aa held for 60% of its gap");
        assert_eq!(jaw(300.0), 0.0);
        assert_eq!(jaw(10_000.0), 0.0, "last pose held");
    }
}
