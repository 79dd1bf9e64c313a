//! Grading lip sync against phone labels that come from somewhere else, by one measure (issue
//! "lip sync from the sound alone"): the viseme in force at each 10 ms frame between the first
//! and last labelled speech, frames within 20 ms of a label boundary not scored, in seven mouth
//! classes; a p, b or m counts as closed when a closed viseme starts within 30 ms of its span;
//! a rounding onset (the first of a run of rounded phones) is found when a rounded viseme
//! starts within 50 ms of it.
//!
//! Labels come from MBROLA's phone files (`.pho`: each phone and its duration, which the
//! synthesiser then keeps exactly), read with the SAMPA symbols of the voice that speaks them,
//! and from HTK label files (`.lab`) of real recordings that other tools aligned.

mod class;
mod labels;

pub use class::{MouthClass, PhoneSymbols};
pub use labels::{
    Labels, PHONE_TIERS, PhoneSpan, parse_lab, parse_pho, parse_textgrid_tier, parse_xlabel,
    read_labels,
};

use crate::anim::lipsync::VisemeEvent;

/// Frames are this far apart, ms.
pub const FRAME_MS: f64 = 10.0;
/// Frames this close to a label boundary are not scored, ms.
pub const BOUNDARY_GUARD_MS: f64 = 20.0;
/// A closed viseme this close to a p, b or m closes it, ms.
pub const CLOSURE_REACH_MS: f64 = 30.0;
/// A rounded viseme starting this close to the start of a run of rounded phones finds its
/// onset, ms.
pub const ROUNDING_REACH_MS: f64 = 50.0;

/// What the measure found on one or more utterances.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Score {
    /// Frames scored, and those whose viseme is of the labelled class.
    pub frames: usize,
    pub right: usize,
    /// p, b and m labelled, and those a closed viseme closed.
    pub closures: usize,
    pub closed: usize,
    /// Closed visemes that start inside a vowel, farther than the closure reach from any
    /// p, b or m: lips shut on a vowel.
    pub false_closures: usize,
    /// Runs of rounded phones (their onsets), and those a rounded viseme starts near.
    pub roundings: usize,
    pub rounded: usize,
    /// Frames scored by labelled class (row) and the class of the viseme in force (column),
    /// in [`MouthClass::ALL`]'s order.
    pub confusion: [[usize; 7]; 7],
}

impl Score {
    /// Share of frames in the right class, 0-1.
    #[must_use]
    pub fn frame_share(&self) -> f64 {
        self.right as f64 / self.frames.max(1) as f64
    }

    /// Share of rounding onsets found, 0-1.
    #[must_use]
    pub fn rounding_share(&self) -> f64 {
        self.rounded as f64 / self.roundings.max(1) as f64
    }

    /// Share of p, b and m closed, 0-1.
    #[must_use]
    pub fn closure_share(&self) -> f64 {
        self.closed as f64 / self.closures.max(1) as f64
    }

    /// This score and `other` together.
    #[must_use]
    pub fn plus(self, other: Self) -> Self {
        Self {
            frames: self.frames + other.frames,
            right: self.right + other.right,
            closures: self.closures + other.closures,
            closed: self.closed + other.closed,
            false_closures: self.false_closures + other.false_closures,
            roundings: self.roundings + other.roundings,
            rounded: self.rounded + other.rounded,
            confusion: std::array::from_fn(|r| {
                std::array::from_fn(|c| self.confusion[r][c] + other.confusion[r][c])
            }),
        }
    }
}

/// Grades the viseme `events` (ascending offsets) against `labels`, each label's class given
/// by `class_of`.
#[must_use]
pub fn score(
    events: &[VisemeEvent],
    labels: &[PhoneSpan],
    class_of: impl Fn(&str) -> MouthClass,
) -> Score {
    let speech: Vec<&PhoneSpan> = labels
        .iter()
        .filter(|l| class_of(&l.phone) != MouthClass::Silence)
        .collect();
    let (Some(first), Some(last)) = (speech.first(), speech.last()) else {
        return Score::default();
    };
    let id_at = |t: f64| -> u8 {
        let i = events.partition_point(|e| e.offset_ms <= t);
        if i == 0 { 0 } else { events[i - 1].id.get() }
    };
    let mut s = Score::default();
    let mut t = first.start_ms;
    while t < last.end_ms {
        let label = labels.iter().find(|l| l.start_ms <= t && t < l.end_ms);
        if let Some(label) = label
            && t - label.start_ms >= BOUNDARY_GUARD_MS
            && label.end_ms - t >= BOUNDARY_GUARD_MS
        {
            let (labelled, heard) = (class_of(&label.phone), MouthClass::of_viseme(id_at(t)));
            s.frames += 1;
            s.right += usize::from(heard == labelled);
            s.confusion[labelled.index()][heard.index()] += 1;
        }
        t += FRAME_MS;
    }
    for label in labels
        .iter()
        .filter(|l| class_of(&l.phone) == MouthClass::Closed)
    {
        s.closures += 1;
        s.closed += usize::from(closes(events, label));
    }
    for (i, label) in labels.iter().enumerate() {
        let rounded = class_of(&label.phone) == MouthClass::Rounded;
        let onset = i == 0 || class_of(&labels[i - 1].phone) != MouthClass::Rounded;
        if rounded && onset {
            s.roundings += 1;
            let found = events.iter().any(|e| {
                MouthClass::of_viseme(e.id.get()) == MouthClass::Rounded
                    && (e.offset_ms - label.start_ms).abs() <= ROUNDING_REACH_MS
            });
            s.rounded += usize::from(found);
        }
    }
    let near_closure = |t: f64| {
        labels.iter().any(|l| {
            class_of(&l.phone) == MouthClass::Closed
                && t >= l.start_ms - CLOSURE_REACH_MS
                && t <= l.end_ms + CLOSURE_REACH_MS
        })
    };
    s.false_closures = events
        .iter()
        .filter(|e| e.id.get() == 21 && !near_closure(e.offset_ms))
        .filter(|e| {
            labels.iter().any(|l| {
                class_of(&l.phone).is_vowel() && l.start_ms <= e.offset_ms && e.offset_ms < l.end_ms
            })
        })
        .count();
    s
}

/// Whether a closed viseme of `events` starts within reach of the p, b or m `label`.
fn closes(events: &[VisemeEvent], label: &PhoneSpan) -> bool {
    events.iter().any(|e| {
        e.id.get() == 21
            && e.offset_ms >= label.start_ms - CLOSURE_REACH_MS
            && e.offset_ms <= label.end_ms + CLOSURE_REACH_MS
    })
}

/// For each p, b or m of `labels`, where the nearest lip closure of `events` within 150 ms
/// starts, ms from the label's start (negative: before it); none where no closure is near.
#[must_use]
pub fn closure_onsets(
    events: &[VisemeEvent],
    labels: &[PhoneSpan],
    class_of: impl Fn(&str) -> MouthClass,
) -> Vec<Option<f64>> {
    labels
        .iter()
        .filter(|l| class_of(&l.phone) == MouthClass::Closed)
        .map(|label| {
            events
                .iter()
                .filter(|e| e.id.get() == 21)
                .map(|e| e.offset_ms - label.start_ms)
                .filter(|d| (-150.0..=label.end_ms - label.start_ms + 150.0).contains(d))
                .min_by(|a, b| a.abs().total_cmp(&b.abs()))
        })
        .collect()
}

/// The p, b and m of `labels` that `events` do not close (as [`score`] counts them).
#[must_use]
pub fn missed_closures<'a>(
    events: &[VisemeEvent],
    labels: &'a [PhoneSpan],
    class_of: impl Fn(&str) -> MouthClass,
) -> Vec<&'a PhoneSpan> {
    labels
        .iter()
        .filter(|l| class_of(&l.phone) == MouthClass::Closed && !closes(events, l))
        .collect()
}

/// Each p, b or m of `labels` that `events` leave open, a line each: the phone, its span, the
/// labels around it and the events near it (`id@ms`).
#[must_use]
pub fn missed_closure_lines(
    events: &[VisemeEvent],
    labels: &[PhoneSpan],
    class_of: impl Fn(&str) -> MouthClass,
) -> Vec<String> {
    missed_closures(events, labels, class_of)
        .into_iter()
        .map(|miss| {
            let near: Vec<String> = events
                .iter()
                .filter(|e| (miss.start_ms - 150.0..=miss.end_ms + 150.0).contains(&e.offset_ms))
                .map(|e| format!("{}@{:.0}", e.id.get(), e.offset_ms))
                .collect();
            let around: Vec<&str> = labels
                .iter()
                .filter(|l| (l.start_ms - miss.start_ms).abs() < 200.0)
                .map(|l| l.phone.as_str())
                .collect();
            format!(
                "{} {:.0}-{:.0} ms open ({}); events {}",
                miss.phone,
                miss.start_ms,
                miss.end_ms,
                around.join(" "),
                near.join(" ")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viseme::VisemeId;

    use labels::PHO_EXAMPLE as PHO;

    fn event(id: u8, offset_ms: f64) -> VisemeEvent {
        VisemeEvent {
            id: VisemeId::new(u32::from(id)).expect("id"),
            offset_ms,
        }
    }

    #[test]
    fn the_labels_own_visemes_score_everything_and_a_wrong_track_does_not() {
        let labels = parse_pho(PHO).expect("parses");
        // A viseme of each label's class at its start: all right, both closures closed.
        let right = [
            event(0, 0.0),
            event(21, 50.0),
            event(2, 130.0),
            event(21, 250.0),
            event(7, 320.0),
            event(0, 420.0),
        ];
        let s = score(&right, &labels, MouthClass::of_sampa);
        assert!(s.frames > 20, "{s:?}");
        assert_eq!(s.right, s.frames);
        assert_eq!((s.closures, s.closed), (2, 2));
        assert_eq!(s.false_closures, 0);
        assert_eq!((s.roundings, s.rounded), (1, 1), "the u's onset");
        assert_eq!(
            s.confusion.iter().flatten().sum::<usize>(),
            s.frames,
            "every frame counted once"
        );
        // Lips shut in the middle of the u: a false closure (the m is too far).
        let shut = [event(0, 0.0), event(7, 320.0), event(21, 370.0)];
        assert_eq!(
            score(&shut, &labels, MouthClass::of_sampa).false_closures,
            1
        );
        // One open mouth throughout: only the a's frames are right, no closure.
        let open = score(&[event(2, 0.0)], &labels, MouthClass::of_sampa);
        assert_eq!(open.frames, s.frames);
        assert!(open.frame_share() < 0.4, "{open:?}");
        assert_eq!(open.closed, 0);
        assert_eq!(open.rounded, 0);
        // Rounding 60 ms late misses the onset.
        let late = [event(0, 0.0), event(7, 380.0)];
        assert_eq!(score(&late, &labels, MouthClass::of_sampa).rounded, 0);
    }
}
