//! Grading lip sync against phone labels that come from somewhere else, by one measure (issue
//! "lip sync from the sound alone"): the viseme in force at each 10 ms frame between the first
//! and last labelled speech, frames within 20 ms of a label boundary not scored, in seven mouth
//! classes; a p, b or m counts as closed when a closed viseme starts within 30 ms of its span;
//! a rounding onset (the first of a run of rounded phones) is found when a rounded viseme
//! starts within 50 ms of it.
//!
//! Labels here come from MBROLA's phone files (`.pho`: each phone and its duration, which the
//! synthesiser then keeps exactly), read with the SAMPA symbols of the voice that speaks them.

use std::fmt;

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

/// The seven mouth classes the measure compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MouthClass {
    Silence,
    Closed,
    Labiodental,
    Rounded,
    Open,
    Spread,
    Other,
}

impl MouthClass {
    /// Every class, in the order of [`Score::confusion`].
    pub const ALL: [Self; 7] = [
        Self::Silence,
        Self::Closed,
        Self::Labiodental,
        Self::Rounded,
        Self::Open,
        Self::Spread,
        Self::Other,
    ];

    /// This class's place in [`Self::ALL`].
    #[must_use]
    pub fn index(self) -> usize {
        self as usize
    }

    /// A vowel's mouth (rounded, open or spread).
    #[must_use]
    pub fn is_vowel(self) -> bool {
        matches!(self, Self::Rounded | Self::Open | Self::Spread)
    }

    /// The class of an Azure viseme id.
    #[must_use]
    pub fn of_viseme(id: u8) -> Self {
        match id {
            0 => Self::Silence,
            21 => Self::Closed,
            18 => Self::Labiodental,
            3 | 7 | 8 | 10 | 13 | 16 => Self::Rounded,
            1 | 2 | 9 | 11 => Self::Open,
            4..=6 => Self::Spread,
            _ => Self::Other,
        }
    }

    /// The class of an MBROLA voice's SAMPA phone (`_` is silence), in no language in
    /// particular: [`Self::of_sampa_in`] with no language.
    #[must_use]
    pub fn of_sampa(phone: &str) -> Self {
        Self::of_sampa_in("", phone)
    }

    /// The class of an MBROLA voice's SAMPA phone spoken in `language` (BCP 47). Phones take
    /// the class of the viseme Azure's documented phone table gives them (ə is viseme 1, open;
    /// j is 6, spread; English ɹ is 13, rounded; ʃ ʒ tʃ dʒ are 16, rounded; ɝ and ɜ are 5, spread;
    /// ʊ is 4, spread), and
    /// sounds Azure's English table lacks that of the nearest by articulation. Stress and
    /// length marks (`:`, `/`, digits) and a glottal onset (`?a`) do not change the mouth.
    /// The voices' own symbols: us1-3 and en1 (English), fr1-4, de1-6, es1-2 and mx1, it3-4,
    /// pt1 and br1 (whose nasal vowels are `em`, `am`, `om`...), nl2, tr1-2 (where `y` and `@'`
    /// are the rounded front vowels and `@` the unrounded back one).
    #[must_use]
    pub fn of_sampa_in(language: &str, phone: &str) -> Self {
        let primary = language.split(['-', '_']).next().unwrap_or("");
        let english = primary.eq_ignore_ascii_case("en");
        let mut p = phone.trim_start_matches('?').trim_end_matches([':', '/']);
        // A stress digit after a letter (it3's "a1"); "2", "6" and "9" are vowels themselves.
        while let [.., before, last] = p.as_bytes()
            && last.is_ascii_digit()
            && before.is_ascii_alphabetic()
        {
            p = &p[..p.len() - 1];
        }
        match p {
            "_" | "" => Self::Silence,
            "r" if english => Self::Rounded,
            "r=" | "3" if english => Self::Spread,
            "U" | "U@" if english => Self::Spread,
            "@" if primary.eq_ignore_ascii_case("tr") => Self::Spread,
            "p" | "p_h" | "b" | "m" => Self::Closed,
            // Azure's 16 (ʃ ʒ tʃ dʒ), a rounded viseme: the lips push forward.
            "S" | "Z" | "tS" | "dZ" => Self::Rounded,
            "f" | "v" | "pf" => Self::Labiodental,
            "u" | "U" | "o" | "O" | "@U" | "OI" | "w" | "y" | "Y" | "2" | "9" | "o~" | "9~"
            | "H" | "Q" | "U@" | "OY" | "o^" | "9^" | "@'" | "9y" | "om" | "um" | "oo" | "O2" => {
                Self::Rounded
            }
            "a" | "A" | "{" | "V" | "AI" | "aI" | "aU" | "Au" | "a~" | "a^" | "6" | "E~" | "E^"
            | "@" | "am" => Self::Open,
            "i" | "I" | "e" | "E" | "EI" | "Ei" | "eI" | "I@" | "e@" | "e~" | "j" | "jj" | "em"
            | "im" | "ee" | "3" | "r=" => Self::Spread,
            _ if p.starts_with("6~") => Self::Open,
            _ if p.len() > 1 && p.ends_with('~') => Self::of_sampa_in(language, &p[..p.len() - 1]),
            _ => Self::Other,
        }
    }
}

impl fmt::Display for MouthClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// One labelled phone, ms from the start of the sound.
#[derive(Clone, Debug, PartialEq)]
pub struct PhoneSpan {
    pub phone: String,
    pub start_ms: f64,
    pub end_ms: f64,
}

/// The phones of an MBROLA `.pho` file in order, placed end to end from 0 ms (as MBROLA
/// speaks them). Comments (`;`) and flushes (`#`) are passed over.
///
/// # Errors
/// A phone line without a number for its duration, with its line number.
pub fn parse_pho(text: &str) -> Result<Vec<PhoneSpan>, String> {
    let mut spans = Vec::new();
    let mut t = 0.0;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with(';') || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split_whitespace();
        let (Some(phone), Some(duration)) = (fields.next(), fields.next()) else {
            return Err(format!("line {}: a phone without its duration", n + 1));
        };
        let ms: f64 = duration
            .parse()
            .map_err(|_| format!("line {}: {duration:?} is not a duration in ms", n + 1))?;
        spans.push(PhoneSpan {
            phone: phone.to_owned(),
            start_ms: t,
            end_ms: t + ms,
        });
        t += ms;
    }
    Ok(spans)
}

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

    const PHO: &str =
        "; a comment\n_\t50\nb\t80\na\t120\t0 110 100 120\nm\t70\n#\nu:\t100\n_\t200\n";

    fn event(id: u8, offset_ms: f64) -> VisemeEvent {
        VisemeEvent {
            id: VisemeId::new(u32::from(id)).expect("id"),
            offset_ms,
        }
    }

    #[test]
    fn a_pho_file_places_its_phones_end_to_end() {
        let spans = parse_pho(PHO).expect("parses");
        let names: Vec<&str> = spans.iter().map(|s| s.phone.as_str()).collect();
        assert_eq!(names, ["_", "b", "a", "m", "u:", "_"]);
        assert_eq!((spans[2].start_ms, spans[2].end_ms), (130.0, 250.0));
        assert_eq!(spans[5].end_ms, 620.0);
        assert!(parse_pho("a\tlong").is_err());
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

    #[test]
    fn classes_follow_the_measures_table() {
        assert_eq!(MouthClass::of_viseme(21), MouthClass::Closed);
        assert_eq!(MouthClass::of_viseme(18), MouthClass::Labiodental);
        assert_eq!(MouthClass::of_viseme(13), MouthClass::Rounded);
        assert_eq!(MouthClass::of_viseme(11), MouthClass::Open);
        assert_eq!(MouthClass::of_viseme(6), MouthClass::Spread);
        assert_eq!(MouthClass::of_viseme(15), MouthClass::Other);
        assert_eq!(MouthClass::of_sampa("y:"), MouthClass::Rounded);
        assert_eq!(MouthClass::of_sampa("pf"), MouthClass::Labiodental);
        assert_eq!(MouthClass::of_sampa("S"), MouthClass::Rounded, "Azure's 16");
        assert_eq!(MouthClass::of_sampa("tS"), MouthClass::Rounded);
        assert_eq!(MouthClass::of_sampa("s"), MouthClass::Other);
        // Azure's table: ə open, j spread; English ɹ rounded, elsewhere a tongue sound.
        assert_eq!(MouthClass::of_sampa("@"), MouthClass::Open);
        assert_eq!(MouthClass::of_sampa("j"), MouthClass::Spread);
        assert_eq!(MouthClass::of_sampa_in("en-US", "r"), MouthClass::Rounded);
        assert_eq!(MouthClass::of_sampa_in("es-ES", "r"), MouthClass::Other);
        assert_eq!(MouthClass::of_sampa_in("tr-TR", "@"), MouthClass::Spread);
        // Marks pass over; vowels named by digits stay vowels.
        assert_eq!(MouthClass::of_sampa("o/"), MouthClass::Rounded);
        assert_eq!(MouthClass::of_sampa("a1"), MouthClass::Open);
        assert_eq!(MouthClass::of_sampa("?E:"), MouthClass::Spread);
        assert_eq!(MouthClass::of_sampa("2:"), MouthClass::Rounded);
        assert_eq!(MouthClass::of_sampa("6"), MouthClass::Open);
        assert_eq!(MouthClass::of_sampa("u~"), MouthClass::Rounded);
        assert_eq!(MouthClass::of_sampa("6~j~"), MouthClass::Open);
    }
}
