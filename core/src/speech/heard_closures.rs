//! Lip closures the sound network hears that a decoding left out. A p, b or m is short and
//! its silence sounds like a t's or a k's: the network's belief in a closure often rises
//! there without winning the frame, and a decoding that makes every change pay for itself
//! smooths it away. Where that belief peaks high enough, the lips shut anyway: over the
//! frames around the peak where the belief stays near it.

use super::eval::MouthClass;

const CLASSES: usize = MouthClass::ALL.len();

/// The frames kept closed around a peak: where the belief is at least this share of the
/// peak's threshold.
const SPAN_SHARE: f32 = 0.8;
/// A peak this close to a closure already decoded (frames either side) adds nothing.
const NEAR_FRAMES: usize = 2;

/// `classes` (one per frame) with a closure wherever the network's probability of one
/// (`log_probs`, one row per frame in [`MouthClass::ALL`]'s order) peaks at `at` or more with
/// no closure decoded within 20 ms; `at` 0 or less leaves `classes` as they are.
pub fn with_heard_closures(classes: &mut [MouthClass], log_probs: &[[f32; CLASSES]], at: f32) {
    if at <= 0.0 {
        return;
    }
    let closed = MouthClass::Closed.index();
    let belief: Vec<f32> = log_probs.iter().map(|p| p[closed].exp()).collect();
    let frames = belief.len().min(classes.len());
    for f in 1..frames.saturating_sub(1) {
        let peak = belief[f] >= at && belief[f] >= belief[f - 1] && belief[f] >= belief[f + 1];
        let near = f.saturating_sub(NEAR_FRAMES)..(f + NEAR_FRAMES + 1).min(frames);
        if !peak || classes[near].contains(&MouthClass::Closed) {
            continue;
        }
        let keep = at * SPAN_SHARE;
        let from = (0..f)
            .rev()
            .take_while(|&k| belief[k] >= keep)
            .last()
            .unwrap_or(f);
        let to = (f + 1..frames)
            .take_while(|&k| belief[k] >= keep)
            .last()
            .unwrap_or(f);
        for class in &mut classes[from..=to] {
            *class = MouthClass::Closed;
        }
    }
}

/// `classes` with each run of closed frames begun where the network's belief in a closure
/// (`log_probs`) first reaches `share` of its peak in the run, the frames before it keeping the
/// class before the run; `share` 0 or less leaves them as they are. A decoding and the
/// closures added at belief peaks both start a closure on the belief's rising flank, while the
/// vowel or the fricative before it still sounds: the lips shut there too early for the p, b or
/// m, often inside the vowel.
pub fn with_closure_onsets_at_belief(
    classes: &mut [MouthClass],
    log_probs: &[[f32; CLASSES]],
    share: f32,
) {
    if share <= 0.0 {
        return;
    }
    let closed = MouthClass::Closed.index();
    let frames = classes.len().min(log_probs.len());
    let mut f = 0;
    while f < frames {
        if classes[f] != MouthClass::Closed {
            f += 1;
            continue;
        }
        let start = f;
        while f < frames && classes[f] == MouthClass::Closed {
            f += 1;
        }
        let peak = log_probs[start..f]
            .iter()
            .map(|p| p[closed])
            .fold(f32::MIN, f32::max)
            .exp();
        let onset = (start..f)
            .find(|&k| log_probs[k][closed].exp() >= share * peak)
            .unwrap_or(start);
        if start > 0 {
            let before = classes[start - 1];
            classes[start..onset].fill(before);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(closed: &[f32]) -> Vec<[f32; 7]> {
        closed
            .iter()
            .map(|&p| {
                let mut row = [((1.0 - p) / 6.0).ln(); 7];
                row[MouthClass::Closed.index()] = p.ln();
                row
            })
            .collect()
    }

    #[test]
    fn a_peak_of_belief_shuts_the_lips_over_the_frames_near_it() {
        let log_probs = rows(&[0.05, 0.1, 0.3, 0.42, 0.35, 0.2, 0.05, 0.05]);
        let mut classes = vec![MouthClass::Other; 8];
        with_heard_closures(&mut classes, &log_probs, 0.4);
        let closed: Vec<bool> = classes.iter().map(|&c| c == MouthClass::Closed).collect();
        // Peak at frame 3; kept where the belief is at least 0.32.
        assert_eq!(
            closed,
            [false, false, false, true, true, false, false, false]
        );
    }

    #[test]
    fn a_closure_begins_where_the_belief_nears_its_peak() {
        let log_probs = rows(&[0.05, 0.3, 0.5, 0.9, 0.8, 0.2]);
        let mut classes = vec![
            MouthClass::Open,
            MouthClass::Closed,
            MouthClass::Closed,
            MouthClass::Closed,
            MouthClass::Closed,
            MouthClass::Open,
        ];
        let before = classes.clone();
        with_closure_onsets_at_belief(&mut classes, &log_probs, 0.0);
        assert_eq!(classes, before, "switched off");
        with_closure_onsets_at_belief(&mut classes, &log_probs, 0.85);
        // 0.85 of the peak (0.9) is 0.765: frame 3 on.
        let closed: Vec<bool> = classes.iter().map(|&c| c == MouthClass::Closed).collect();
        assert_eq!(closed, [false, false, false, true, true, false]);
        assert_eq!(
            classes[1],
            MouthClass::Open,
            "the frames before keep the class before"
        );
    }

    #[test]
    fn a_low_peak_or_one_beside_a_decoded_closure_changes_nothing() {
        let log_probs = rows(&[0.05, 0.1, 0.3, 0.38, 0.35, 0.2, 0.05, 0.05]);
        let mut classes = vec![MouthClass::Open; 8];
        with_heard_closures(&mut classes, &log_probs, 0.4);
        assert!(classes.iter().all(|&c| c == MouthClass::Open));

        let log_probs = rows(&[0.05, 0.1, 0.3, 0.45, 0.35, 0.2, 0.05, 0.05]);
        let mut classes = vec![MouthClass::Open; 8];
        classes[5] = MouthClass::Closed;
        let before = classes.clone();
        with_heard_closures(&mut classes, &log_probs, 0.4);
        assert_eq!(classes, before);
        // Switched off.
        classes[5] = MouthClass::Open;
        with_heard_closures(&mut classes, &log_probs, 0.0);
        assert!(classes.iter().all(|&c| c == MouthClass::Open));
    }
}
