//! Grading lip sync against phone labels that come from somewhere else, by one measure (issue
//! "lip sync from the sound alone"): the viseme in force at each 10 ms frame between the first
//! and last labelled speech, frames within 20 ms of a label boundary not scored, in seven mouth
//! classes; a p, b or m counts as closed when a closed viseme starts within 30 ms of its span.
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

    /// The class of an MBROLA voice's SAMPA phone (`_` is silence). The voices' own symbol
    /// sets: us1/en1 (English), fr1, de1, es1, tr1 (Turkish, where `y` and `2` are rounded
    /// front vowels and `@` the unrounded back one).
    #[must_use]
    pub fn of_sampa(phone: &str) -> Self {
        let p = phone.trim_end_matches(':');
        match p {
            "_" | "" => Self::Silence,
            "p" | "p_h" | "b" | "m" => Self::Closed,
            "f" | "v" | "pf" => Self::Labiodental,
            "u" | "U" | "o" | "O" | "@U" | "OI" | "w" | "y" | "Y" | "2" | "9" | "o~" | "9~"
            | "H" | "Q" | "U@" | "OY" | "o^" | "9^" | "@'" => Self::Rounded,
            "a" | "A" | "{" | "V" | "AI" | "aI" | "aU" | "a~" | "a^" | "6" | "E~" | "E^" => {
                Self::Open
            }
            "i" | "I" | "e" | "E" | "EI" | "eI" | "I@" | "e@" | "e~" => Self::Spread,
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
}

impl Score {
    /// Share of frames in the right class, 0-1.
    #[must_use]
    pub fn frame_share(&self) -> f64 {
        self.right as f64 / self.frames.max(1) as f64
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
            s.frames += 1;
            s.right += usize::from(MouthClass::of_viseme(id_at(t)) == class_of(&label.phone));
        }
        t += FRAME_MS;
    }
    for label in labels
        .iter()
        .filter(|l| class_of(&l.phone) == MouthClass::Closed)
    {
        s.closures += 1;
        let closed = events.iter().any(|e| {
            e.id.get() == 21
                && e.offset_ms >= label.start_ms - CLOSURE_REACH_MS
                && e.offset_ms <= label.end_ms + CLOSURE_REACH_MS
        });
        s.closed += usize::from(closed);
    }
    s
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
        // One open mouth throughout: only the a's frames are right, no closure.
        let open = score(&[event(2, 0.0)], &labels, MouthClass::of_sampa);
        assert_eq!(open.frames, s.frames);
        assert!(open.frame_share() < 0.4, "{open:?}");
        assert_eq!(open.closed, 0);
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
        assert_eq!(MouthClass::of_sampa("S"), MouthClass::Other);
    }
}
