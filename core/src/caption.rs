//! Subtitles: a line's words shown under the picture as they are heard, with the speaker's
//! name, held a moment after the line ends and faded. Timed by the line's audio clock (the
//! same clock the mouth follows), from the word starts its cue carries; a line whose word
//! times are unknown or do not match its text spreads its words over its audio.

/// How long a caption stays after its line's audio ends, ms.
pub const LINGER_MS: f64 = 1_200.0;
/// How long it then takes to fade out, ms.
pub const FADE_MS: f64 = 400.0;
/// Words a second when a line has neither word times nor a length.
const WORDS_PER_S: f64 = 2.5;

/// One line's subtitle.
#[derive(Clone, Debug, PartialEq)]
pub struct Caption {
    speaker: String,
    words: Vec<String>,
    /// When each word starts, ms on the line's audio clock, ascending.
    starts_ms: Vec<f64>,
    /// When the line's audio ends, ms.
    end_ms: f64,
}

/// What a caption shows at one moment.
#[derive(Clone, Debug, PartialEq)]
pub struct CaptionFrame<'a> {
    pub speaker: &'a str,
    /// Every word of the line.
    pub words: &'a [String],
    /// How many of them have been heard (drawn bright; the rest dim).
    pub heard: usize,
    /// 1 while the line plays and lingers, falling to 0 as it fades.
    pub opacity: f32,
}

impl Caption {
    /// `text` said by `speaker`, its words starting at `words_ms` (the cue's, when known) on an
    /// audio clock that ends at `audio_ms` (when known).
    #[must_use]
    pub fn new(speaker: &str, text: &str, words_ms: &[f64], audio_ms: Option<f64>) -> Self {
        let words: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
        let n = words.len();
        let end_ms = audio_ms
            .filter(|ms| ms.is_finite() && *ms > 0.0)
            .unwrap_or(n as f64 * 1000.0 / WORDS_PER_S);
        let timed = words_ms.len() == n
            && words_ms.iter().all(|t| t.is_finite())
            && words_ms.windows(2).all(|w| w[1] >= w[0]);
        let starts_ms = if timed {
            words_ms.to_vec()
        } else {
            // Spread over the audio, each word at its share of the line's letters.
            let letters: Vec<f64> = words.iter().map(|w| w.chars().count() as f64).collect();
            let total: f64 = letters.iter().sum::<f64>().max(1.0);
            let mut at = 0.0;
            letters
                .iter()
                .map(|l| {
                    let start = at;
                    at += l / total * end_ms;
                    start
                })
                .collect()
        };
        Self {
            speaker: speaker.to_owned(),
            words,
            starts_ms,
            end_ms,
        }
    }

    /// When the line's audio ends, ms on its clock (guessed from its words when unknown).
    #[must_use]
    pub fn end_ms(&self) -> f64 {
        self.end_ms
    }

    /// When the caption is gone, ms on the line's audio clock.
    #[must_use]
    pub fn gone_ms(&self) -> f64 {
        self.end_ms + LINGER_MS + FADE_MS
    }

    /// What it shows at `audio_ms` on the line's clock; None before the line starts and once
    /// it has faded.
    #[must_use]
    pub fn at(&self, audio_ms: f64) -> Option<CaptionFrame<'_>> {
        if !(audio_ms >= 0.0 && audio_ms < self.gone_ms()) || self.words.is_empty() {
            return None;
        }
        let heard = self.starts_ms.partition_point(|&t| t <= audio_ms);
        let fading = audio_ms - (self.end_ms + LINGER_MS);
        let opacity = if fading > 0.0 {
            (1.0 - fading / FADE_MS).clamp(0.0, 1.0) as f32
        } else {
            1.0
        };
        Some(CaptionFrame {
            speaker: &self.speaker,
            words: &self.words,
            heard,
            opacity,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn words_are_heard_as_the_audio_clock_reaches_them() {
        let caption = Caption::new(
            "Elara",
            "Many merry men",
            &[100.0, 400.0, 900.0],
            Some(1_300.0),
        );
        assert_eq!(caption.at(-1.0), None, "not before the line starts");
        let heard = |t| caption.at(t).unwrap().heard;
        assert_eq!(heard(50.0), 0);
        assert_eq!(heard(100.0), 1);
        assert_eq!(heard(899.0), 2);
        assert_eq!(heard(1_000.0), 3);
        let frame = caption.at(500.0).unwrap();
        assert_eq!(frame.speaker, "Elara");
        assert_eq!(frame.words, ["Many", "merry", "men"]);
        assert_eq!(frame.opacity, 1.0);
    }

    #[test]
    fn it_lingers_after_the_line_then_fades_and_is_gone() {
        let caption = Caption::new("Bram", "Hello there", &[0.0, 300.0], Some(1_000.0));
        assert_eq!(caption.at(1_000.0 + LINGER_MS).unwrap().opacity, 1.0);
        let half = caption.at(1_000.0 + LINGER_MS + FADE_MS / 2.0).unwrap();
        assert!((half.opacity - 0.5).abs() < 1e-4, "{}", half.opacity);
        assert_eq!(caption.at(caption.gone_ms()), None);
    }

    #[test]
    fn words_without_matching_times_are_spread_over_the_audio_by_length() {
        // Three word times for four words: the engine split them otherwise.
        let caption = Caption::new("Mira", "a bb ccc dddd", &[0.0, 10.0, 20.0], Some(1_000.0));
        let heard = |t| caption.at(t).unwrap().heard;
        // Starts at 0, 100, 300 and 600 ms (1, 2, 3 and 4 letters of 10).
        assert_eq!(heard(0.0), 1);
        assert_eq!(heard(99.0), 1);
        assert_eq!(heard(100.0), 2);
        assert_eq!(heard(599.0), 3);
        assert_eq!(heard(600.0), 4);
        // No length either: words at a speaking pace.
        let untimed = Caption::new("Mira", "one two", &[], None);
        assert!(untimed.gone_ms() > 800.0 + LINGER_MS);
        assert_eq!(Caption::new("Mira", "   ", &[], None).at(0.0), None);
    }
}
