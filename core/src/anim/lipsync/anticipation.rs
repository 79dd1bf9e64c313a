//! Stage 4: lip-rounding anticipation. Rounded sounds (oo, oh, w, sh) round the lips before
//! they are heard and keep them rounded a little after. Every rounded viseme near the track
//! time blends in its own envelope, oldest first, so adjacent rounded visemes ("show" = sh + o)
//! cross-fade instead of snapping from one to the other. Only the rounding targets are
//! touched; the jaw and the rest of the mouth keep following their own stages.

use super::settings::AnticipationSettings;
use super::target::smoothstep;
use super::track::VisemeTrack;
use crate::anim::pose::Pose;
use crate::arkit::ArkitTarget;
use crate::viseme::VisemeTable;

/// The targets that make lip rounding (protrusion and funnel).
pub const ROUNDING_TARGETS: [ArkitTarget; 2] = [ArkitTarget::MouthPucker, ArkitTarget::MouthFunnel];

/// Strength of one rounded viseme's influence at `t_ms`: eases in over `onset_ms` up to its
/// apex, holds until the viseme ends, eases out over `release_ms`.
fn rounding_envelope(settings: &AnticipationSettings, apex_ms: f64, end_ms: f64, t_ms: f64) -> f32 {
    let ease = |u: f64| smoothstep(u as f32);
    if t_ms < apex_ms {
        if settings.onset_ms <= 0.0 {
            0.0
        } else {
            ease(1.0 - (apex_ms - t_ms) / settings.onset_ms)
        }
    } else if t_ms <= end_ms {
        1.0
    } else if settings.release_ms <= 0.0 {
        0.0
    } else {
        ease(1.0 - (t_ms - end_ms) / settings.release_ms)
    }
}

/// Blends the rounding of every rounded viseme around `track_ms` into `pose`.
pub fn anticipation(
    pose: &mut Pose,
    track: &VisemeTrack,
    table: &VisemeTable,
    settings: &AnticipationSettings,
    track_ms: f64,
) {
    anticipation_of(
        &ROUNDING_TARGETS.map(ArkitTarget::index),
        pose,
        track,
        table,
        settings,
        track_ms,
    );
}

/// [`anticipation`] on the pose's slots `slots` (a table of the avatar's own shapes packs
/// them into poses by position; its rounding shapes are these slots).
pub fn anticipation_of(
    slots: &[usize],
    pose: &mut Pose,
    track: &VisemeTrack,
    table: &VisemeTable,
    settings: &AnticipationSettings,
    track_ms: f64,
) {
    if slots.is_empty() {
        return;
    }
    let events = track.events();
    let upcoming = track.count_until(track_ms + settings.onset_ms.max(0.0));
    // Walk back to the oldest event whose release can still reach track_ms.
    let release = settings.release_ms.max(0.0);
    let mut first = upcoming;
    while first > 0 {
        let end = events
            .get(first)
            .map_or(f64::INFINITY, |next| next.offset_ms);
        if end + release < track_ms {
            break;
        }
        first -= 1;
    }
    for (i, event) in events.iter().enumerate().take(upcoming).skip(first) {
        if !event.id.is_rounded() {
            continue;
        }
        let end_ms = match events.get(i + 1) {
            Some(next) => next.offset_ms,
            None if track.is_complete() => event.offset_ms,
            None => f64::INFINITY,
        };
        let strength = rounding_envelope(settings, event.offset_ms, end_ms, track_ms);
        if strength <= 0.0 {
            continue;
        }
        let rounded = table.pose(event.id);
        for &slot in slots {
            let (Some(&to), Some(w)) = (rounded.0.get(slot), pose.0.get_mut(slot)) else {
                continue;
            };
            *w += strength * (to - *w);
        }
    }
}
