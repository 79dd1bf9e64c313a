//! Phone labels from elsewhere, read into spans of the sound: MBROLA's phone files (`.pho`:
//! each phone and its duration, which the synthesiser keeps exactly, in the voice's SAMPA),
//! HTK label files (`.lab`: each phone's start and end in 100 ns units, as HTS, festvox and
//! Open JTalk write them, mono or full-context), Festival's xlabel files (`.lab` too: a header
//! ending in `#`, then each phone's end in seconds, as festvox voices ship their utterances)
//! and Praat TextGrids (`.TextGrid`, long text format: the tier named phone or phones, as
//! forced aligners and phoneticians write them).

use std::path::Path;

use super::class::PhoneSymbols;

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

/// HTK time units (100 ns) in a millisecond.
const HTK_UNITS_PER_MS: f64 = 10_000.0;

/// The phones of an HTK label file (`START END LABEL` a line, times in 100 ns units). A
/// full-context label (`a^b-c+d=e@...`, as HTS writes them) gives its current phone (`c`).
///
/// # Errors
/// A line without two times and a label, a time that is not a number, or a phone that ends
/// before it starts, with its line number.
pub fn parse_lab(text: &str) -> Result<Vec<PhoneSpan>, String> {
    let mut spans = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [start, end, label, ..] = fields[..] else {
            return Err(format!("line {}: not START END LABEL", n + 1));
        };
        let time = |field: &str| {
            field
                .parse::<f64>()
                .map(|units| units / HTK_UNITS_PER_MS)
                .map_err(|_| format!("line {}: {field:?} is not a time in 100 ns units", n + 1))
        };
        let (start_ms, end_ms) = (time(start)?, time(end)?);
        if end_ms < start_ms {
            return Err(format!("line {}: the phone ends before it starts", n + 1));
        }
        spans.push(PhoneSpan {
            phone: current_phone(label).to_owned(),
            start_ms,
            end_ms,
        });
    }
    Ok(spans)
}

/// Whether a `.lab` file is Festival's xlabel format (a header closed by a line `#`) rather
/// than HTK's.
fn is_xlabel(text: &str) -> bool {
    text.lines()
        .take_while(|l| l.split_whitespace().count() < 3)
        .any(|l| l.trim() == "#")
}

/// The phones of a Festival / ESPS xlabel file: after the header's `#` line, `END COLOR
/// LABEL` a line, END in seconds; each phone starts where the one before ends (the first at
/// 0 s).
///
/// # Errors
/// No `#` line, a line without an end time and a label, a time that is not a number, or a
/// phone that ends before it starts, with its line number.
pub fn parse_xlabel(text: &str) -> Result<Vec<PhoneSpan>, String> {
    let mut lines = text.lines().enumerate();
    if !lines.by_ref().any(|(_, l)| l.trim() == "#") {
        return Err("no `#` line closes the header".to_owned());
    }
    let mut spans = Vec::new();
    let mut start_ms = 0.0;
    for (n, line) in lines {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let [end, _, label, ..] = fields[..] else {
            return Err(format!("line {}: not END COLOR LABEL", n + 1));
        };
        let end_ms = end
            .parse::<f64>()
            .map(|s| s * 1000.0)
            .map_err(|_| format!("line {}: {end:?} is not a time in seconds", n + 1))?;
        if end_ms < start_ms {
            return Err(format!("line {}: the phone ends before it starts", n + 1));
        }
        spans.push(PhoneSpan {
            phone: label.to_owned(),
            start_ms,
            end_ms,
        });
        start_ms = end_ms;
    }
    Ok(spans)
}

/// The intervals of the first tier of a Praat TextGrid (long or short text format) whose name
/// is one of `names` (case ignored), as spans; an empty interval's label is empty.
///
/// # Errors
/// No such tier, or an interval whose times are not numbers or run backwards.
pub fn parse_textgrid_tier(text: &str, names: &[&str]) -> Result<Vec<PhoneSpan>, String> {
    if text.lines().any(|l| l.trim_start().starts_with("item [")) {
        long_textgrid_tier(text, names)
    } else {
        short_textgrid_tier(text, names)
    }
}

/// A Praat string's text: its quotes off, doubled quotes single.
fn praat_string(s: &str) -> String {
    s.trim()
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(s)
        .replace("\"\"", "\"")
}

/// [`parse_textgrid_tier`] for the short text format: each tier its class, name, times and
/// count, then three lines an interval.
fn short_textgrid_tier(text: &str, names: &[&str]) -> Result<Vec<PhoneSpan>, String> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let number = |i: usize| -> Result<f64, String> {
        let line = lines.get(i).ok_or("the TextGrid ends inside a tier")?;
        line.parse()
            .map_err(|_| format!("{line:?} is not a number"))
    };
    let mut at = lines
        .iter()
        .position(|l| *l == "\"IntervalTier\"" || *l == "\"TextTier\"");
    while let Some(i) = at {
        let name = praat_string(lines.get(i + 1).copied().unwrap_or_default());
        let count = number(i + 4)? as usize;
        let first = i + 5;
        if names.iter().any(|w| w.eq_ignore_ascii_case(&name)) {
            return (0..count)
                .map(|k| {
                    let (a, b) = (number(first + 3 * k)?, number(first + 3 * k + 1)?);
                    if b < a {
                        return Err(format!(
                            "interval {} of {name} ends before it starts",
                            k + 1
                        ));
                    }
                    Ok(PhoneSpan {
                        phone: praat_string(lines.get(first + 3 * k + 2).copied().unwrap_or("")),
                        start_ms: a * 1000.0,
                        end_ms: b * 1000.0,
                    })
                })
                .collect();
        }
        let next = first + 3 * count;
        at = (next < lines.len()).then_some(next);
    }
    Err(format!("no tier named {}", names.join(" or ")))
}

/// [`parse_textgrid_tier`] for the long text format.
fn long_textgrid_tier(text: &str, names: &[&str]) -> Result<Vec<PhoneSpan>, String> {
    let mut tier: Option<String> = None;
    let mut found = false;
    let mut spans = Vec::new();
    let (mut xmin, mut xmax): (Option<f64>, Option<f64>) = (None, None);
    let mut in_interval = false;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        let value = |key: &str| line.strip_prefix(key).map(str::trim);
        if line.starts_with("item [") {
            if found {
                break;
            }
            tier = None;
            in_interval = false;
        } else if let Some(name) = value("name =") {
            let name = name.trim_matches('"');
            tier = Some(name.to_owned());
            found = names.iter().any(|w| w.eq_ignore_ascii_case(name));
        } else if !found {
            continue;
        } else if line.starts_with("intervals [") {
            in_interval = true;
            (xmin, xmax) = (None, None);
        } else if let Some(v) = value("xmin =").filter(|_| in_interval) {
            xmin = Some(
                v.parse()
                    .map_err(|_| format!("line {}: xmin {v:?}", n + 1))?,
            );
        } else if let Some(v) = value("xmax =").filter(|_| in_interval) {
            xmax = Some(
                v.parse()
                    .map_err(|_| format!("line {}: xmax {v:?}", n + 1))?,
            );
        } else if let Some(v) = value("text =").filter(|_| in_interval) {
            let (Some(a), Some(b)) = (xmin, xmax) else {
                return Err(format!("line {}: an interval without its times", n + 1));
            };
            if b < a {
                return Err(format!(
                    "line {}: the interval ends before it starts",
                    n + 1
                ));
            }
            spans.push(PhoneSpan {
                phone: praat_string(v),
                start_ms: a * 1000.0,
                end_ms: b * 1000.0,
            });
            in_interval = false;
        }
    }
    if found {
        Ok(spans)
    } else {
        Err(format!(
            "no tier named {} (tiers end at {:?})",
            names.join(" or "),
            tier.unwrap_or_default()
        ))
    }
}

/// The current phone of an HTS full-context label (between `-` and `+`), or the label itself.
fn current_phone(label: &str) -> &str {
    match (label.find('-'), label.find('+')) {
        (Some(minus), Some(plus)) if minus < plus => &label[minus + 1..plus],
        _ => label,
    }
}

/// A label file's phones and the symbols they are named in.
#[derive(Clone, Debug, PartialEq)]
pub struct Labels {
    pub spans: Vec<PhoneSpan>,
    pub symbols: PhoneSymbols,
}

/// The phone tier names a TextGrid's labels are read from.
pub const PHONE_TIERS: [&str; 2] = ["phone", "phones"];

/// Reads the labels of a recording in `language` (BCP 47) from `path`: an MBROLA phone file
/// (`.pho`, the voice's SAMPA), an HTK or Festival label file (`.lab`: HTS's phones for
/// Japanese, festvox's msu_ru phones for Russian, else ARPAbet) or a Praat TextGrid
/// (`.TextGrid`, its phone tier in ARPAbet).
///
/// # Errors
/// The file cannot be read or parsed, or its extension is none of these.
pub fn read_labels(path: &Path, language: &str) -> Result<Labels, String> {
    let at = |e: String| format!("{}: {e}", path.display());
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let text = || std::fs::read_to_string(path).map_err(|e| at(e.to_string()));
    match extension.as_deref() {
        Some("pho") => Ok(Labels {
            spans: parse_pho(&text()?).map_err(at)?,
            symbols: PhoneSymbols::Sampa(language.to_owned()),
        }),
        Some("lab") => {
            let text = text()?;
            let spans = if is_xlabel(&text) {
                parse_xlabel(&text)
            } else {
                parse_lab(&text)
            };
            Ok(Labels {
                spans: spans.map_err(at)?,
                symbols: PhoneSymbols::of_lab_in(language),
            })
        }
        Some("textgrid") => Ok(Labels {
            spans: parse_textgrid_tier(&text()?, &PHONE_TIERS).map_err(at)?,
            symbols: PhoneSymbols::Arpabet,
        }),
        _ => Err(at(
            "labels must be an MBROLA phone file (.pho), an HTK or Festival label \
             file (.lab) or a Praat TextGrid (.TextGrid)"
                .to_owned(),
        )),
    }
}

/// A phone file with a comment, a flush and pitch points, for tests.
#[cfg(test)]
pub(super) const PHO_EXAMPLE: &str =
    "; a comment\n_\t50\nb\t80\na\t120\t0 110 100 120\nm\t70\n#\nu:\t100\n_\t200\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pho_file_places_its_phones_end_to_end() {
        let spans = parse_pho(PHO_EXAMPLE).expect("parses");
        let names: Vec<&str> = spans.iter().map(|s| s.phone.as_str()).collect();
        assert_eq!(names, ["_", "b", "a", "m", "u:", "_"]);
        assert_eq!((spans[2].start_ms, spans[2].end_ms), (130.0, 250.0));
        assert_eq!(spans[5].end_ms, 620.0);
        assert!(parse_pho("a\tlong").is_err());
    }

    #[test]
    fn an_htk_label_file_gives_each_phone_its_span() {
        let mono = "0 3125000 sil\n3125000 3525000 m\n3525000 4325000 i\n";
        let spans = parse_lab(mono).expect("parses");
        let names: Vec<&str> = spans.iter().map(|s| s.phone.as_str()).collect();
        assert_eq!(names, ["sil", "m", "i"]);
        assert_eq!((spans[1].start_ms, spans[1].end_ms), (312.5, 352.5));
        let full = "1300000 2050000 x^sil-hh+iy=t@1_2/A:0_0_0/B:1-1-2\n";
        assert_eq!(parse_lab(full).expect("parses")[0].phone, "hh");
        assert!(parse_lab("0 x sil").is_err());
        assert!(parse_lab("10 0 sil").is_err());
        assert!(parse_lab("0 10").is_err());
    }

    #[test]
    fn a_festival_label_file_places_each_phone_after_the_last() {
        let text = "separator ;\nnfields 1\n#\n0.34200 125 pau\n0.39200 125 k\n0.42200 125 ay\n";
        assert!(is_xlabel(text));
        assert!(!is_xlabel("0 3125000 sil\n"));
        let spans = parse_xlabel(text).expect("parses");
        let names: Vec<&str> = spans.iter().map(|s| s.phone.as_str()).collect();
        assert_eq!(names, ["pau", "k", "ay"]);
        assert!((spans[1].start_ms - 342.0).abs() < 1e-9 && (spans[1].end_ms - 392.0).abs() < 1e-9);
        assert!(parse_xlabel("0.1 125 a\n").is_err(), "no header");
        assert!(parse_xlabel("#\n0.5 125 a\n0.4 125 b\n").is_err());
    }

    #[test]
    fn a_textgrids_phone_tier_is_read_and_its_word_tier_passed_over() {
        let grid = "File type = \"ooTextFile\"\nObject class = \"TextGrid\"\n\nxmin = 0\nxmax = 1\n\
            tiers? <exists>\nsize = 2\nitem []:\n    item [1]:\n        class = \"IntervalTier\"\n\
            name = \"word\"\n        xmin = 0\n        xmax = 1\n        intervals: size = 1\n\
            intervals [1]:\n            xmin = 0\n            xmax = 1\n            text = \"ma\"\n\
            item [2]:\n        class = \"IntervalTier\"\n        name = \"phone\"\n        xmin = 0\n\
            xmax = 1\n        intervals: size = 3\n        intervals [1]:\n            xmin = 0\n\
            xmax = 0.25\n            text = \"m\"\n        intervals [2]:\n            xmin = 0.25\n\
            xmax = 0.75\n            text = \"aa\"\n        intervals [3]:\n            xmin = 0.75\n\
            xmax = 1\n            text = \"\"\n";
        let phones = parse_textgrid_tier(grid, &PHONE_TIERS).expect("a phone tier");
        let names: Vec<&str> = phones.iter().map(|s| s.phone.as_str()).collect();
        assert_eq!(names, ["m", "aa", ""]);
        assert_eq!((phones[1].start_ms, phones[1].end_ms), (250.0, 750.0));
        let words = parse_textgrid_tier(grid, &["word"]).expect("a word tier");
        assert_eq!(words.len(), 1);
        assert!(parse_textgrid_tier(grid, &["syllable"]).is_err());
        // The same in the short text format.
        let short = "File type = \"ooTextFile\"\nObject class = \"TextGrid\"\n\n0\n1\n<exists>\n2\n\
            \"IntervalTier\"\n\"words\"\n0\n1\n1\n0\n1\n\"ma\"\n\
            \"IntervalTier\"\n\"phones\"\n0\n1\n3\n0\n0.25\n\"m\"\n0.25\n0.75\n\"aa\"\n0.75\n1\n\"\"\n";
        assert_eq!(
            parse_textgrid_tier(short, &PHONE_TIERS).expect("short"),
            phones
        );
        assert_eq!(
            parse_textgrid_tier(short, &["words"]).expect("short").len(),
            1
        );
        assert!(parse_textgrid_tier(short, &["syllable"]).is_err());
    }
}
