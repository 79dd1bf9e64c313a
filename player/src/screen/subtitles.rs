//! The subtitles on screen: each NPC's line as it is heard (timed by the line's own audio
//! clock, which the mouth follows too), and what the person in front of the player said, once
//! it was recognised. The run's clock carries a caption on after its line's audio stops, so
//! it lingers and fades at the same pace whatever the frame rate.

use npc_core::caption::Caption;

use crate::runtime::LineId;

/// At most this many lines stand on screen at once (the newest).
const MAX_SHOWN: usize = 3;
/// How long the person's own words stay, per word, ms (reading time).
const PERSON_MS_PER_WORD: f64 = 320.0;

/// One line on screen.
#[derive(Debug)]
struct Shown {
    /// The NPC that speaks it; `None` for the person.
    npc: Option<String>,
    line: Option<LineId>,
    caption: Caption,
    /// The line's audio clock as last read, ms, and the run's clock then.
    clock_ms: f64,
    read_at_ms: f64,
    /// Whether its line still plays (the clock is read from it, not carried on).
    playing: bool,
    text: String,
}

/// A line's subtitle as drawn this frame.
#[derive(Clone, Debug, PartialEq)]
pub struct SubtitleLine {
    /// Who says it: an NPC's id, or "You".
    pub speaker: String,
    pub words: Vec<String>,
    /// How many words have been heard.
    pub heard: usize,
    pub opacity: f32,
    /// Said by the person in front of the player.
    pub person: bool,
}

/// What each speaking NPC's line clock reads this frame.
#[derive(Clone, Copy, Debug)]
pub struct LineClock<'a> {
    pub npc: &'a str,
    pub line: Option<&'a LineId>,
    pub audio_ms: f64,
}

/// The lines on screen.
#[derive(Debug, Default)]
pub struct Subtitles {
    shown: Vec<Shown>,
}

impl Subtitles {
    /// `npc` starts `line`, saying `text`; its words start at `words_ms` on an audio clock
    /// `audio_ms` long (unknown for a streamed line until it ends).
    pub fn line_started(
        &mut self,
        npc: &str,
        line: LineId,
        text: &str,
        words_ms: &[f64],
        audio_ms: Option<f64>,
        run_ms: f64,
    ) {
        // A new line of the same NPC takes the old one's place.
        self.shown.retain(|s| s.npc.as_deref() != Some(npc));
        self.push(Shown {
            npc: Some(npc.to_owned()),
            line: Some(line),
            caption: Caption::new(npc, text, words_ms, audio_ms),
            clock_ms: 0.0,
            read_at_ms: run_ms,
            playing: true,
            text: text.to_owned(),
        });
    }

    /// The person said `text` (as recognised), shown at once, whole, for reading time.
    pub fn person_said(&mut self, text: &str, run_ms: f64) {
        let words = text.split_whitespace().count();
        if words == 0 {
            return;
        }
        self.shown.retain(|s| s.npc.is_some());
        let reading_ms = words as f64 * PERSON_MS_PER_WORD;
        self.push(Shown {
            npc: None,
            line: None,
            caption: Caption::new("You", text, &vec![0.0; words], Some(reading_ms)),
            clock_ms: 0.0,
            read_at_ms: run_ms,
            playing: false,
            text: text.to_owned(),
        });
    }

    fn push(&mut self, shown: Shown) {
        self.shown.push(shown);
        if self.shown.len() > MAX_SHOWN {
            self.shown.remove(0);
        }
    }

    /// Reads the clocks of the lines that still play (`clocks`: every NPC speaking now) at
    /// `run_ms`; a line no longer among them has ended, and its caption goes on with the run's
    /// clock. Captions that have faded are dropped.
    pub fn update(&mut self, clocks: &[LineClock<'_>], run_ms: f64) {
        for shown in &mut self.shown {
            if !shown.playing {
                continue;
            }
            let current = clocks
                .iter()
                .find(|c| Some(c.npc) == shown.npc.as_deref() && c.line == shown.line.as_ref());
            match current {
                Some(c) => {
                    shown.clock_ms = c.audio_ms.max(shown.clock_ms);
                    shown.read_at_ms = run_ms;
                }
                None => {
                    shown.playing = false;
                    shown.clock_ms += (run_ms - shown.read_at_ms).max(0.0);
                    shown.read_at_ms = run_ms;
                    // A streamed line's length is known only now: its words are spread
                    // over what was heard.
                    let speaker = shown.npc.as_deref().unwrap_or("You");
                    let ended = shown.caption.end_ms().min(shown.clock_ms);
                    if ended < shown.caption.end_ms() {
                        shown.caption = Caption::new(speaker, &shown.text, &[], Some(ended));
                    }
                }
            }
        }
        self.shown
            .retain(|s| s.clock_at(run_ms) < s.caption.gone_ms());
    }

    /// The lines as drawn at `run_ms`, oldest first.
    #[must_use]
    pub fn lines(&self, run_ms: f64) -> Vec<SubtitleLine> {
        self.shown
            .iter()
            .filter_map(|s| {
                let frame = s.caption.at(s.clock_at(run_ms))?;
                Some(SubtitleLine {
                    speaker: frame.speaker.to_owned(),
                    words: frame.words.to_vec(),
                    heard: frame.heard,
                    opacity: frame.opacity,
                    person: s.npc.is_none(),
                })
            })
            .collect()
    }
}

impl Shown {
    /// The line's clock at `run_ms`: as read while it plays, carried on by the run after.
    fn clock_at(&self, run_ms: f64) -> f64 {
        if self.playing {
            self.clock_ms
        } else {
            self.clock_ms + (run_ms - self.read_at_ms).max(0.0)
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use npc_core::caption::{FADE_MS, LINGER_MS};

    fn id(seq: u64) -> LineId {
        LineId {
            conversation: "c".to_owned(),
            seq,
        }
    }

    #[test]
    fn words_follow_the_line_clock_then_the_caption_lingers_on_the_run_clock() {
        let mut subs = Subtitles::default();
        subs.line_started(
            "Elara",
            id(1),
            "Good morning friend",
            &[0.0, 300.0, 700.0],
            Some(1_000.0),
            5_000.0,
        );
        let line = id(1);
        let clock = |ms| {
            [LineClock {
                npc: "Elara",
                line: Some(&line),
                audio_ms: ms,
            }]
        };
        // The run's clock runs ahead (the sound started late): the words wait for the sound.
        subs.update(&clock(250.0), 5_400.0);
        let shown = subs.lines(5_400.0);
        assert_eq!(shown.len(), 1);
        assert_eq!(shown[0].heard, 1);
        assert_eq!(shown[0].speaker, "Elara");
        subs.update(&clock(750.0), 5_900.0);
        assert_eq!(subs.lines(5_900.0)[0].heard, 3);
        // The line ends at audio 1000 ms, run 6150 ms: the caption lingers, then fades.
        subs.update(&clock(1_000.0), 6_150.0);
        subs.update(&[], 6_150.0);
        let linger_end = 6_150.0 + LINGER_MS;
        assert_eq!(subs.lines(linger_end)[0].opacity, 1.0);
        assert!(subs.lines(linger_end + FADE_MS / 2.0)[0].opacity < 0.6);
        subs.update(&[], linger_end + FADE_MS + 1.0);
        assert!(subs.lines(linger_end + FADE_MS + 1.0).is_empty());
    }

    #[test]
    fn a_streamed_line_ends_where_its_sound_ended_and_a_new_line_replaces_the_old() {
        let mut subs = Subtitles::default();
        subs.line_started("Bram", id(1), "one two three four", &[], None, 0.0);
        let line = id(1);
        subs.update(
            &[LineClock {
                npc: "Bram",
                line: Some(&line),
                audio_ms: 800.0,
            }],
            800.0,
        );
        subs.update(&[], 800.0);
        // Every word was heard by the time its 800 ms of sound ended.
        assert_eq!(subs.lines(800.0)[0].heard, 4);
        subs.line_started("Bram", id(2), "next", &[0.0], Some(500.0), 900.0);
        let shown = subs.lines(900.0);
        assert_eq!(shown.len(), 1);
        assert_eq!(shown[0].words, ["next"]);
    }

    #[test]
    fn the_persons_words_show_whole_in_their_own_style() {
        let mut subs = Subtitles::default();
        subs.person_said("  ", 0.0);
        assert!(subs.lines(0.0).is_empty());
        subs.person_said("hello there", 100.0);
        let shown = subs.lines(100.0);
        assert_eq!(shown[0].speaker, "You");
        assert!(shown[0].person);
        assert_eq!(shown[0].heard, 2);
        subs.update(&[], 100.0 + 2.0 * PERSON_MS_PER_WORD + LINGER_MS + FADE_MS);
        assert!(subs.lines(10_000.0).is_empty());
    }
}
