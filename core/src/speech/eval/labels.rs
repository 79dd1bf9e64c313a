//! Phone labels from elsewhere, read into spans of the sound: MBROLA's phone files (`.pho`:
//! each phone and its duration, which the synthesiser keeps exactly, in the voice's SAMPA) and
//! HTK label files (`.lab`: each phone's start and end in 100 ns units, as HTS, festvox and
//! Open JTalk write them, mono or full-context).

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

/// Reads the labels of a recording in `language` (BCP 47) from `path`: an MBROLA phone file
/// (`.pho`, the voice's SAMPA) or an HTK label file (`.lab`: HTS's phones for Japanese, else
/// ARPAbet).
///
/// # Errors
/// The file cannot be read or parsed, or its extension is neither.
pub fn read_labels(path: &Path, language: &str) -> Result<Labels, String> {
    let at = |e: String| format!("{}: {e}", path.display());
    let lab = match path.extension().and_then(|e| e.to_str()) {
        Some("pho") => false,
        Some("lab") => true,
        _ => {
            return Err(at(
                "labels must be an MBROLA phone file (.pho) or an HTK label file \
                 (.lab)"
                    .to_owned(),
            ));
        }
    };
    let text = std::fs::read_to_string(path).map_err(|e| at(e.to_string()))?;
    Ok(if lab {
        Labels {
            spans: parse_lab(&text).map_err(at)?,
            symbols: PhoneSymbols::of_lab_in(language),
        }
    } else {
        Labels {
            spans: parse_pho(&text).map_err(at)?,
            symbols: PhoneSymbols::Sampa(language.to_owned()),
        }
    })
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
}
