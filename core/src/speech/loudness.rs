//! What a recording's loudness tells of its mouth: where it pauses (the mouth at rest) and
//! where its stops are (the lips shut through a stop's silence and open at its burst).

use crate::anim::lipsync::VisemeEvent;
use crate::speech::mfcc::HOP_MS;

/// A pause is at least this long, ms, ...
const PAUSE_MS: f64 = 120.0;
/// ... and this far above the recording's noise floor (its quietest tenth), dB, but at
/// least 25 dB below its loudest 10 ms.
const PAUSE_ABOVE_FLOOR_DB: f32 = 12.0;
const PAUSE_MAX_DB: f32 = -25.0;
const PAUSE_MIN_DB: f32 = -60.0;

/// Each 10 ms of the recording's loudness, dB below its loudest.
pub(crate) fn energy_db(samples: &[f32], sample_rate: u32) -> Vec<f32> {
    let hop = (sample_rate as usize / 100).max(1);
    let energy: Vec<f32> = samples
        .chunks(hop)
        .map(|c| c.iter().map(|s| s * s).sum::<f32>() / c.len() as f32)
        .collect();
    let loudest = energy.iter().fold(f32::MIN_POSITIVE, |m, &e| m.max(e));
    energy
        .iter()
        .map(|&e| 10.0 * (e / loudest).max(1e-12).log10())
        .collect()
}

/// A stop's closure is this quiet at least, dB below the recording's loudest ...
const CLOSURE_DB: f32 = -18.0;
/// ... and its release (the burst) this much louder than its last quiet frame within 20 ms, dB.
const BURST_RISE_DB: f32 = 12.0;
/// The stop is looked for this far either side of where the warp put the closure, ms (by
/// default).
const RELEASE_SEARCH_MS: f64 = 150.0;

/// `events` with each lip closure (p, b, m) moved onto the recording's own stop: the warp
/// finds about where the closure is, the sound says where it is exactly (a stop's silence,
/// the lips shut through it, and its burst, where they open). A closure with no such silence
/// near it (an m) keeps the warp's timing.
pub(crate) fn with_releases(events: Vec<VisemeEvent>, energy_db: &[f32]) -> Vec<VisemeEvent> {
    with_releases_within(events, energy_db, RELEASE_SEARCH_MS)
}

/// [`with_releases`], the stop looked for `reach_ms` either side of each closure: where the
/// closure's timing came from the sound itself (the mouth network), a stop farther off is
/// another consonant's.
pub(crate) fn with_releases_within(
    mut events: Vec<VisemeEvent>,
    energy_db: &[f32],
    reach_ms: f64,
) -> Vec<VisemeEvent> {
    let at = |k: usize| energy_db.get(k).copied();
    let frame = |ms: f64| (ms / HOP_MS).max(0.0) as usize;
    for i in 1..events.len().saturating_sub(1) {
        if events[i].id != crate::viseme::VisemeId::BILABIAL {
            continue;
        }
        let (from, to) = (events[i].offset_ms, events[i + 1].offset_ms);
        // Within reach, and not past the events either side.
        let lo = frame((from - reach_ms).max(events[i - 1].offset_ms + HOP_MS));
        let hi = frame(
            events
                .get(i + 2)
                .map_or(to + reach_ms, |n| n.offset_ms - HOP_MS)
                .min(to + reach_ms),
        );
        // Quiet runs ended by a burst; the deepest is the stop's silence.
        let mut best: Option<(f32, usize, usize)> = None;
        let mut k = lo;
        while k < hi {
            if at(k).is_none_or(|e| e >= CLOSURE_DB) {
                k += 1;
                continue;
            }
            let start = k;
            let mut deepest = f32::MAX;
            while k < hi && at(k).is_some_and(|e| e < CLOSURE_DB) {
                deepest = deepest.min(at(k).unwrap_or(0.0));
                k += 1;
            }
            let quiet = at(k - 1).unwrap_or(0.0);
            let burst = (k..(k + 2).min(energy_db.len()))
                .find(|&b| at(b).is_some_and(|e| e - quiet >= BURST_RISE_DB));
            if let Some(b) = burst
                && best.is_none_or(|(d, ..)| deepest < d)
            {
                best = Some((deepest, start, b));
            }
        }
        if let Some((_, start, burst)) = best {
            events[i].offset_ms = start as f64 * HOP_MS;
            events[i + 1].offset_ms = burst as f64 * HOP_MS;
        }
    }
    events
}

/// Where a recording of loudness `energy` (10 ms frames, [`energy_db`]) pauses: (start,
/// end) ms.
pub(crate) fn pauses_ms(energy: &[f32]) -> Vec<(f64, f64)> {
    let mut sorted = energy.to_vec();
    sorted.sort_by(f32::total_cmp);
    let floor = sorted.get(sorted.len() / 10).copied().unwrap_or(-120.0);
    let quiet = (floor + PAUSE_ABOVE_FLOOR_DB).clamp(PAUSE_MIN_DB, PAUSE_MAX_DB);
    let mut out = Vec::new();
    let mut start = None;
    for (k, &e) in energy
        .iter()
        .chain(std::iter::once(&f32::INFINITY))
        .enumerate()
    {
        match (e < quiet, start) {
            (true, None) => start = Some(k),
            (false, Some(s)) => {
                let (from, to) = (s as f64 * HOP_MS, k as f64 * HOP_MS);
                if to - from >= PAUSE_MS {
                    out.push((from, to));
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The lip closure viseme (p, b, m).
const CLOSED: u8 = 21;
/// How long before a pause's end the lips shut for a p, b or m due then: a stop's closure is
/// its silence, 50-100 ms before the burst.
const CLOSURE_BEFORE_BURST_MS: f64 = 60.0;

/// `events` with the mouth at rest through each pause the recording makes: what the warp put
/// there gives way, and what was due at the pause's end comes then (a lip closure shortly
/// before, in the pause's silence: that silence is the closure).
pub(crate) fn with_pauses(events: Vec<VisemeEvent>, pauses: &[(f64, f64)]) -> Vec<VisemeEvent> {
    let mut out: Vec<VisemeEvent> = Vec::with_capacity(events.len() + 2 * pauses.len());
    let mut events = events.into_iter().peekable();
    for &(from, to) in pauses {
        while let Some(e) = events.next_if(|e| e.offset_ms < from) {
            out.push(e);
        }
        // What is sounding when the pause ends: the last event before its end.
        let before = out.last().copied();
        let (mut within, mut closed_within) = (None, None);
        while let Some(e) = events.next_if(|e| e.offset_ms < to) {
            within = Some(e);
            closed_within = closed_within.or(Some(e).filter(|e| e.id.get() == CLOSED));
        }
        // A lip closure due in the pause is silent (a stop's closure is its silence): the
        // lips shut there, before the burst at its end.
        let closure =
            closed_within.map(|e| VisemeEvent::new(e.id, (to - CLOSURE_BEFORE_BURST_MS).max(from)));
        if closure.is_none_or(|c| c.offset_ms > from) {
            out.push(VisemeEvent::new(crate::viseme::VisemeId::SILENCE, from));
        }
        out.extend(closure);
        if let Some(e) = within
            .or(before)
            .filter(|e| e.id != crate::viseme::VisemeId::SILENCE && e.id.get() != CLOSED)
            && events.peek().is_none_or(|n| n.offset_ms > to)
        {
            out.push(VisemeEvent::new(e.id, to));
        }
    }
    out.extend(events);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viseme::VisemeId;

    fn event(id: u32, offset_ms: f64) -> VisemeEvent {
        VisemeEvent::new(VisemeId::new(id).unwrap_or(VisemeId::SILENCE), offset_ms)
    }

    fn ids_at(events: &[VisemeEvent]) -> Vec<(u8, f64)> {
        events.iter().map(|e| (e.id.get(), e.offset_ms)).collect()
    }

    #[test]
    fn a_pause_rests_the_mouth_and_what_was_due_comes_at_its_end() {
        // "a", then "i" warped into a pause heard from 200 to 400 ms.
        let out = with_pauses(
            vec![event(2, 0.0), event(6, 250.0), event(1, 500.0)],
            &[(200.0, 400.0)],
        );
        assert_eq!(ids_at(&out), [(2, 0.0), (0, 200.0), (6, 400.0), (1, 500.0)]);
    }

    #[test]
    fn a_closure_due_in_a_pause_shuts_the_lips_before_its_burst() {
        // "a", the p of the next word warped into the pause, its vowel at the pause's end.
        let out = with_pauses(
            vec![event(2, 0.0), event(21, 300.0), event(4, 400.0)],
            &[(200.0, 400.0)],
        );
        assert_eq!(
            ids_at(&out),
            [(2, 0.0), (0, 200.0), (21, 340.0), (4, 400.0)]
        );
        // ... also when the vowel after it was warped into the pause too.
        let out = with_pauses(
            vec![
                event(2, 0.0),
                event(21, 280.0),
                event(4, 390.0),
                event(20, 400.0),
            ],
            &[(200.0, 400.0)],
        );
        assert_eq!(
            ids_at(&out),
            [(2, 0.0), (0, 200.0), (21, 340.0), (20, 400.0)]
        );
        // A word-final m before the pause does not shut the lips again after it.
        let out = with_pauses(
            vec![event(2, 0.0), event(21, 150.0), event(4, 450.0)],
            &[(200.0, 400.0)],
        );
        assert_eq!(
            ids_at(&out),
            [(2, 0.0), (21, 150.0), (0, 200.0), (4, 450.0)]
        );
    }
}
