//! The aligned script's mouth shapes moved to where the sound shows them. The network on the
//! sound alone ([`MouthNet::sound_only`]) reads each 10 ms frame's mouth class; the script's
//! runs of one class (a closure, a rounded vowel, an open one...) keep their order, and each
//! is moved, within reach of where the alignment put it, to where the network's beliefs
//! agree with them best: a forced alignment of the script's classes on the network's frames.

use super::Utterance;
use crate::anim::lipsync::VisemeEvent;
use crate::speech::eval::MouthClass;
use crate::speech::mfcc::HOP_MS;
use crate::speech::mouth_net::{MouthNet, frame_centre_ms, frame_classes, frame_inputs};

/// How far the script's runs may move, and what moving costs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Retiming {
    /// How many frames a run may begin before, or end after, where the alignment put it.
    pub reach_frames: usize,
    /// What each change of run costs, in log probability.
    pub switch_cost: f32,
    /// What each frame given to a run outside its aligned span costs, in log probability.
    pub moved_cost: f32,
    /// Whether any run may vanish where the sound shows none of it (a recogniser's guess),
    /// or only a pause between words (a script's sounds are all there).
    pub any_run_may_vanish: bool,
}

/// The retiming the aligners use. Chosen on the validation voices of the mouth network's data
/// (us3, fr7, de6, mx1, it4, br2 with their scripts; 300 sounds, half in a noisy room; mean of
/// the six languages' frames right): 80.1% aligned alone, 86.4% moved with reach 8 and a
/// moved frame costing 0.5, 86.9% at 1, 87.0% at 1.5 (taken), 86.7% at 2; reach 5: 86.6%,
/// 10: 86.9% (at 1). The switch cost changes nothing but which pauses vanish.
pub const RETIMING: Retiming = Retiming {
    reach_frames: 8,
    switch_cost: 0.5,
    moved_cost: 1.5,
    any_run_may_vanish: false,
};

/// `aligned` (a recording's script timing, with the recording as its audio: `samples` in
/// -1..1 at `sample_rate`) with its runs of one mouth class moved to where the network on the
/// sound alone hears them. A pause the alignment put between words may close up where the
/// network hears speech. Returned as it was where no path fits (a recording shorter than its
/// runs).
#[must_use]
pub fn retimed_by_sound(
    aligned: Utterance,
    samples: &[f32],
    sample_rate: u32,
    retiming: &Retiming,
) -> Utterance {
    let log_probs =
        MouthNet::sound_only().frame_log_probs(&frame_inputs(samples, sample_rate, &[]));
    match run_map(
        &aligned.visemes,
        &log_probs,
        aligned.duration_ms(),
        retiming,
    ) {
        Some(map) => murmurs_shared(moved(aligned, &map)),
        None => murmurs_shared(aligned),
    }
}

/// The tongue's sounds that hum through the nose or round the tongue (n, ŋ, ɲ, l, ɫ) before a
/// bilabial: the hum goes on unchanged when the lips close, so neither the acoustic model
/// nor the network hears where the bilabial begins, and the alignment gives it most of the
/// hum ("Guten Morgen": the lips shut 50 ms into the n).
const HUMMED: [&str; 5] = ["n", "ŋ", "ɲ", "l", "ɫ"];

/// `utterance` with each bilabial after a hummed tongue sound (`HUMMED`) begun no earlier
/// than halfway through the two sounds' hum: its phoneme and its closed viseme.
fn murmurs_shared(mut utterance: Utterance) -> Utterance {
    let phonemes = &mut utterance.phonemes;
    for i in 1..phonemes.len().saturating_sub(1) {
        let bilabial = matches!(phonemes[i].ipa.as_str(), "m" | "b" | "p");
        if !bilabial || !HUMMED.contains(&phonemes[i - 1].ipa.as_str()) {
            continue;
        }
        let (was, halfway) = (
            phonemes[i].offset_ms,
            f64::midpoint(phonemes[i - 1].offset_ms, phonemes[i + 1].offset_ms),
        );
        if halfway <= was {
            continue;
        }
        phonemes[i].offset_ms = halfway;
        for e in &mut utterance.visemes {
            if e.id.is_bilabial() && (e.offset_ms - was).abs() < 1.0 {
                e.offset_ms = halfway;
            }
        }
    }
    utterance
        .visemes
        .sort_by(|a, b| a.offset_ms.total_cmp(&b.offset_ms));
    utterance
}

/// `visemes` (a track over a sound of `end_ms`) with its runs of one mouth class moved to
/// where the network on the sound alone hears them (`log_probs`: its beliefs, frame by frame),
/// as [`retimed_by_sound`] moves an aligned script's.
#[must_use]
pub fn retimed_track(
    visemes: &[VisemeEvent],
    log_probs: &[[f32; 7]],
    end_ms: f64,
    retiming: &Retiming,
) -> Vec<VisemeEvent> {
    match run_map(visemes, log_probs, end_ms, retiming) {
        Some(map) => moved_visemes(visemes, &map),
        None => visemes.to_vec(),
    }
}

fn run_map(
    visemes: &[VisemeEvent],
    log_probs: &[[f32; 7]],
    end_ms: f64,
    retiming: &Retiming,
) -> Option<RunMap> {
    let runs = class_runs(visemes, log_probs.len());
    let starts = best_starts(&runs, log_probs, retiming)?;
    Some(RunMap::new(&runs, &starts, end_ms))
}

/// A run of frames of one class along the aligned track.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Run {
    class: MouthClass,
    /// Its frames, `start..end`.
    start: usize,
    end: usize,
    /// Where its first viseme begins, ms.
    at_ms: f64,
}

impl Run {
    /// A pause between words that the sound may show none of.
    fn may_vanish(&self, k: usize, runs: usize, any: bool) -> bool {
        (any || self.class == MouthClass::Silence) && k > 0 && k + 1 < runs
    }
}

fn class_runs(visemes: &[VisemeEvent], frames: usize) -> Vec<Run> {
    let classes = frame_classes(visemes, frames);
    let mut runs: Vec<Run> = Vec::new();
    for (f, &class) in classes.iter().enumerate() {
        match runs.last_mut() {
            Some(run) if run.class == class => run.end = f + 1,
            _ => {
                let at_ms = if f == 0 {
                    0.0
                } else {
                    // The first event after the frame before's centre begins the run.
                    let after = frame_centre_ms(f - 1);
                    let i = visemes.partition_point(|e| e.offset_ms <= after);
                    visemes
                        .get(i)
                        .map_or(after, |e| e.offset_ms)
                        .min(frame_centre_ms(f))
                };
                runs.push(Run {
                    class,
                    start: f,
                    end: f + 1,
                    at_ms,
                });
            }
        }
    }
    runs
}

/// How a frame's run was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Stay,
    Next,
    /// Past a pause that vanishes.
    OverPause,
}

/// Each run's first frame on the best path (a vanished pause: the next run's), or none where
/// no path fits.
fn best_starts(runs: &[Run], log_probs: &[[f32; 7]], retiming: &Retiming) -> Option<Vec<usize>> {
    let (n, frames) = (runs.len(), log_probs.len());
    if n == 0 || frames < n {
        return None;
    }
    let reach = retiming.reach_frames;
    let cost = |f: usize, k: usize| -> f32 {
        let run = &runs[k];
        if f + reach < run.start || f >= run.end + reach {
            return f32::NEG_INFINITY;
        }
        let moved = if f < run.start || f >= run.end {
            retiming.moved_cost
        } else {
            0.0
        };
        log_probs[f][run.class.index()] - moved
    };
    let mut score = vec![f32::NEG_INFINITY; n];
    let mut steps = vec![Step::Stay; n * frames];
    score[0] = cost(0, 0);
    let mut next = vec![f32::NEG_INFINITY; n];
    for f in 1..frames {
        for k in 0..n {
            let here = cost(f, k);
            if here == f32::NEG_INFINITY {
                next[k] = f32::NEG_INFINITY;
                continue;
            }
            let mut best = (score[k], Step::Stay);
            if k >= 1 && score[k - 1] - retiming.switch_cost > best.0 {
                best = (score[k - 1] - retiming.switch_cost, Step::Next);
            }
            if k >= 2
                && runs[k - 1].may_vanish(k - 1, n, retiming.any_run_may_vanish)
                && score[k - 2] - retiming.switch_cost > best.0
            {
                best = (score[k - 2] - retiming.switch_cost, Step::OverPause);
            }
            next[k] = best.0 + here;
            steps[f * n + k] = best.1;
        }
        std::mem::swap(&mut score, &mut next);
    }
    let mut k = n - 1;
    if score[k] == f32::NEG_INFINITY {
        return None;
    }
    let mut starts = vec![0; n];
    for f in (1..frames).rev() {
        starts[k] = f;
        match steps[f * n + k] {
            Step::Stay => {}
            Step::Next => k -= 1,
            Step::OverPause => {
                starts[k - 1] = f;
                k -= 2;
            }
        }
    }
    // The path began in the first run.
    starts[0] = 0;
    Some(starts)
}

/// The aligned track's time mapped onto the re-timed one, run by run.
struct RunMap {
    /// (aligned start, re-timed start) of each run, ms, and the end of both.
    bounds: Vec<(f64, f64)>,
}

impl RunMap {
    fn new(runs: &[Run], starts: &[usize], end_ms: f64) -> Self {
        let mut bounds: Vec<(f64, f64)> = runs
            .iter()
            .zip(starts)
            .map(|(run, &start)| {
                // A run that moved begins between its new first frame's centre and the one
                // before (as the track's events are placed), so runs of one frame stay apart.
                let at = if start == run.start || start == 0 {
                    run.at_ms
                } else {
                    frame_centre_ms(start) - HOP_MS / 2.0
                };
                (run.at_ms, at.clamp(0.0, end_ms))
            })
            .collect();
        bounds.push((end_ms, end_ms));
        // A vanished pause is the point where the next run begins.
        for k in (0..runs.len()).rev() {
            if starts.get(k + 1) == Some(&starts[k]) {
                bounds[k].1 = bounds[k + 1].1;
            }
        }
        // Never earlier than the run before.
        for k in 1..bounds.len() {
            bounds[k].1 = bounds[k].1.max(bounds[k - 1].1);
        }
        Self { bounds }
    }

    fn map(&self, t: f64) -> f64 {
        let i = self.bounds.partition_point(|b| b.0 <= t);
        match (i.checked_sub(1).map(|k| self.bounds[k]), self.bounds.get(i)) {
            (Some((a0, r0)), Some(&(a1, r1))) if a1 > a0 => r0 + (t - a0) / (a1 - a0) * (r1 - r0),
            (Some((_, r0)), _) => r0,
            (None, _) => t,
        }
    }
}

fn moved_visemes(visemes: &[VisemeEvent], map: &RunMap) -> Vec<VisemeEvent> {
    let mut out: Vec<VisemeEvent> = Vec::with_capacity(visemes.len());
    for e in visemes {
        let at = map.map(e.offset_ms);
        // A viseme of a vanished pause gives way to the one at its place.
        while out.last().is_some_and(|last| last.offset_ms >= at) {
            out.pop();
        }
        out.push(VisemeEvent::new(e.id, at));
    }
    out
}

fn moved(aligned: Utterance, map: &RunMap) -> Utterance {
    let visemes = moved_visemes(&aligned.visemes, map);
    let words = aligned
        .words
        .iter()
        .map(|w| {
            let start = map.map(w.offset_ms);
            crate::speech::WordTiming {
                text: w.text.clone(),
                offset_ms: start,
                duration_ms: (map.map(w.offset_ms + w.duration_ms) - start).max(0.0),
            }
        })
        .collect();
    let phonemes = aligned
        .phonemes
        .iter()
        .map(|p| crate::speech::PhonemeTiming {
            offset_ms: map.map(p.offset_ms),
            ..p.clone()
        })
        .collect();
    Utterance {
        visemes,
        words,
        phonemes,
        ..aligned
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viseme::VisemeId;

    /// Frame scores that hear `classes`, one per frame, sure of each (a stand-in for the
    /// network's beliefs).
    fn heard(classes: &[MouthClass]) -> Vec<[f32; 7]> {
        classes
            .iter()
            .map(|c| {
                let mut row = [(0.02f32).ln(); 7];
                row[c.index()] = (0.88f32).ln();
                row
            })
            .collect()
    }

    fn frames_of(runs: &[(MouthClass, usize)]) -> Vec<MouthClass> {
        runs.iter()
            .flat_map(|&(c, n)| std::iter::repeat_n(c, n))
            .collect()
    }

    fn event(id: u32, offset_ms: f64) -> VisemeEvent {
        VisemeEvent::new(VisemeId::new(id).unwrap_or(VisemeId::SILENCE), offset_ms)
    }

    use MouthClass::{Closed, Open, Silence};

    #[test]
    fn a_closure_aligned_early_moves_to_where_it_is_heard() {
        // Aligned: silence, the m from 100 ms, a from 200 ms; heard 50 ms later.
        let track = [event(0, 0.0), event(21, 100.0), event(2, 200.0)];
        let sound = heard(&frames_of(&[(Silence, 14), (Closed, 10), (Open, 16)]));
        let runs = class_runs(&track, sound.len());
        assert_eq!(runs.len(), 3);
        let starts = best_starts(&runs, &sound, &RETIMING).expect("a path");
        assert_eq!(starts, [0, 14, 24]);
        let map = RunMap::new(&runs, &starts, 400.0);
        let moved = moved(
            Utterance {
                visemes: track.to_vec(),
                words: vec![crate::speech::WordTiming {
                    text: "ma".to_owned(),
                    offset_ms: 100.0,
                    duration_ms: 200.0,
                }],
                ..Utterance::default()
            },
            &map,
        );
        let at: Vec<f64> = moved.visemes.iter().map(|e| e.offset_ms).collect();
        assert_eq!(at, [0.0, 147.5, 247.5]);
        // The word moves with its sounds: from the closure's new start, its end stretched
        // with the vowel's run.
        assert_eq!(moved.words[0].offset_ms, 147.5);
    }

    #[test]
    fn a_run_moves_no_farther_than_its_reach() {
        let track = [event(0, 0.0), event(21, 100.0), event(2, 200.0)];
        // Heard 200 ms later: out of reach; the closure goes as far as it may.
        let sound = heard(&frames_of(&[(Silence, 29), (Closed, 10), (Open, 6)]));
        let runs = class_runs(&track, sound.len());
        let starts = best_starts(&runs, &sound, &RETIMING).expect("a path");
        assert!(
            starts[1] <= runs[1].start + RETIMING.reach_frames,
            "{starts:?}"
        );
        assert!(starts[1] > runs[1].start, "{starts:?}");
    }

    #[test]
    fn a_pause_the_sound_does_not_show_closes_up() {
        // Aligned: a, a pause from 200 to 300 ms, a again, then silence; heard without it.
        let track = [
            event(0, 0.0),
            event(2, 50.0),
            event(0, 200.0),
            event(2, 300.0),
            event(0, 450.0),
        ];
        let sound = heard(&frames_of(&[(Silence, 4), (Open, 40), (Silence, 6)]));
        let runs = class_runs(&track, sound.len());
        assert_eq!(runs.len(), 5);
        let starts = best_starts(&runs, &sound, &RETIMING).expect("a path");
        assert_eq!(starts[2], starts[3], "{starts:?}");
        let moved = moved_visemes(&track, &RunMap::new(&runs, &starts, 500.0));
        assert!(
            moved.iter().filter(|e| e.id == VisemeId::SILENCE).count() == 2,
            "{moved:?}"
        );
    }

    fn spoken(phones: &[(&str, f64)], visemes: &[(u32, f64)]) -> Utterance {
        Utterance {
            phonemes: phones
                .iter()
                .map(|&(ipa, offset_ms)| crate::speech::PhonemeTiming {
                    ipa: ipa.to_owned(),
                    offset_ms,
                    stress: crate::speech::Stress::default(),
                })
                .collect(),
            visemes: visemes.iter().map(|&(id, at)| event(id, at)).collect(),
            ..Utterance::default()
        }
    }

    #[test]
    fn a_bilabial_after_a_hummed_sound_closes_halfway_through_the_hum() {
        // "n m o": the alignment gave the n 30 ms and the m 100.
        let was = spoken(
            &[("n", 100.0), ("m", 130.0), ("o", 230.0)],
            &[(19, 100.0), (21, 130.0), (8, 230.0)],
        );
        let shared = murmurs_shared(was);
        assert_eq!(shared.phonemes[1].offset_ms, 165.0);
        let at: Vec<(u8, f64)> = shared
            .visemes
            .iter()
            .map(|e| (e.id.get(), e.offset_ms))
            .collect();
        assert_eq!(at, [(19, 100.0), (21, 165.0), (8, 230.0)]);
    }

    #[test]
    fn a_bilabial_after_a_vowel_or_past_halfway_stays() {
        // After a vowel: the lips' closing is heard.
        let after_vowel = spoken(
            &[("a", 100.0), ("m", 130.0), ("o", 230.0)],
            &[(2, 100.0), (21, 130.0), (8, 230.0)],
        );
        assert_eq!(murmurs_shared(after_vowel.clone()), after_vowel);
        // Already past halfway: never moved earlier.
        let late = spoken(
            &[("n", 100.0), ("m", 200.0), ("o", 230.0)],
            &[(19, 100.0), (21, 200.0), (8, 230.0)],
        );
        assert_eq!(murmurs_shared(late.clone()), late);
    }

    #[test]
    fn a_track_the_sound_agrees_with_stays() {
        let track = [event(0, 0.0), event(21, 103.0), event(2, 207.0)];
        let sound = heard(&frames_of(&[(Silence, 10), (Closed, 10), (Open, 20)]));
        let runs = class_runs(&track, sound.len());
        let starts = best_starts(&runs, &sound, &RETIMING).expect("a path");
        let map = RunMap::new(&runs, &starts, 400.0);
        for t in [0.0, 50.0, 103.0, 150.0, 207.0, 399.0] {
            assert!((map.map(t) - t).abs() < 1e-9, "{t} -> {}", map.map(t));
        }
    }
}
