//! Live Link Face's CSV: what Epic's capture app records and Unreal's MetaHuman pipeline,
//! Maya and Blender importers read. A header row, then one row per frame:
//! `Timecode` (`HH:MM:SS:FF.mmm`: frame FF of the second at the take's rate, and the part of
//! a frame after it), `BlendShapeCount` (61), the 52 ARKit weights in PascalCase, then
//! `HeadYaw`, `HeadPitch`, `HeadRoll` and each eye's yaw, pitch and roll.

use std::fmt::Write as _;

use super::angles::{HeadTurn, eye_turns};
use super::{Take, TakeError};
use crate::arkit::{ARKIT_TARGET_COUNT, ArkitTarget};

/// The columns after the 52 weights.
pub const ROTATION_COLUMNS: [&str; 9] = [
    "HeadYaw",
    "HeadPitch",
    "HeadRoll",
    "LeftEyeYaw",
    "LeftEyePitch",
    "LeftEyeRoll",
    "RightEyeYaw",
    "RightEyePitch",
    "RightEyeRoll",
];

/// Every value column: the 52 weights and the 9 rotations.
pub const LIVELINK_COLUMNS: usize = ARKIT_TARGET_COUNT + ROTATION_COLUMNS.len();

/// Degrees per unit of a rotation column: the ARKit face curves map -180..180 degrees onto
/// -1..1 (Unreal's Apple ARKit face support, `ToBlendShapeMap`, which Live Link Face feeds).
const DEG_PER_UNIT: f32 = 180.0;

/// Frame rates a capture's timecodes are matched against, lowest first.
const CAPTURE_RATES: [f64; 7] = [24.0, 25.0, 30.0, 48.0, 50.0, 60.0, 120.0];

/// A target's Live Link column name: its canonical name with a capital first letter.
fn column_name(target: ArkitTarget) -> String {
    let name = target.name();
    let mut chars = name.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_ascii_uppercase().to_string() + chars.as_str()
    })
}

/// The CSV of `take`, one row per frame at its own times.
#[must_use]
pub fn write_livelink_csv(take: &Take) -> String {
    let mut out = String::from("Timecode,BlendShapeCount");
    for target in ArkitTarget::ALL {
        out.push(',');
        out.push_str(&column_name(target));
    }
    for column in ROTATION_COLUMNS {
        out.push(',');
        out.push_str(column);
    }
    out.push('\n');
    let heads = take.head_turns();
    let mut gaps = take.gaps_ms.iter().copied().peekable();
    for (i, (&t, weights)) in take.times_ms.iter().zip(&take.weights).enumerate() {
        // An untracked frame is a short row, as the iPhone app writes it.
        while let Some(gap) = gaps.next_if(|&g| g < t) {
            let _ = writeln!(out, "{},0", timecode(gap, take.fps));
        }
        out.push_str(&timecode(t, take.fps));
        let _ = write!(out, ",{LIVELINK_COLUMNS}");
        for w in weights {
            let _ = write!(out, ",{w}");
        }
        let eyes = eye_turns(weights);
        let head = heads.get(i).copied().unwrap_or_default();
        for turn in [head, eyes.left, eyes.right] {
            for deg in [turn.yaw_deg, turn.pitch_deg, turn.roll_deg] {
                let _ = write!(out, ",{}", deg / DEG_PER_UNIT);
            }
        }
        out.push('\n');
    }
    out
}

/// `HH:MM:SS:FF.mmm` of a time at `fps`.
fn timecode(t_ms: f64, fps: f64) -> String {
    let whole_s = (t_ms / 1000.0 + 1e-9).floor();
    let frames = ((t_ms / 1000.0 - whole_s) * fps).max(0.0);
    let mut frame = frames.floor();
    let mut sub = ((frames - frame) * 1000.0).round();
    if sub >= 1000.0 {
        frame += 1.0;
        sub = 0.0;
    }
    let s = whole_s as u64;
    format!(
        "{:02}:{:02}:{:02}:{:02}.{:03}",
        s / 3600,
        s / 60 % 60,
        s % 60,
        frame as u64,
        sub as u64
    )
}

/// Reads a Live Link Face CSV as a take named `name`: weights by column name (any order,
/// other columns ignored), the head's turn from HeadYaw/HeadPitch/HeadRoll, times from the
/// timecodes from the first row on. The frame rate is the lowest common capture rate that
/// the highest frame number fits (60 when the take is too short to tell). Rows whose
/// BlendShapeCount is 0 (no face tracked; the iPhone app writes them short, with no values
/// after the count) are not frames but the take's gaps (`gaps_ms`); any other short row is an
/// error.
pub fn read_livelink_csv(text: &str, name: &str) -> Result<Take, TakeError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .flexible(true)
        .from_reader(text.as_bytes());
    let header = reader.headers().map_err(|e| csv_error(&e))?.clone();
    let find = |wanted: &str| header.iter().position(|h| h.eq_ignore_ascii_case(wanted));
    let timecode_column = find("Timecode").ok_or_else(|| missing("Timecode"))?;
    let count_column = find("BlendShapeCount");
    let mut weight_columns = Vec::with_capacity(ARKIT_TARGET_COUNT);
    for target in ArkitTarget::ALL {
        let column = column_name(target);
        weight_columns.push(find(&column).ok_or_else(|| missing(&column))?);
    }
    let head_columns: Option<Vec<usize>> = ROTATION_COLUMNS[..3].iter().map(|c| find(c)).collect();
    let mut rows = Vec::new();
    let mut untracked = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| csv_error(&e))?;
        let line = record.position().map_or(0, |p| p.line() as usize);
        let number = |column: usize| -> Result<f32, TakeError> {
            let field = record.get(column).unwrap_or("");
            field
                .parse::<f32>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| TakeError::At {
                    line,
                    column: column + 1,
                    message: format!("{} is {field:?}, not a number", &header[column]),
                })
        };
        if let Some(c) = count_column
            && number(c)? == 0.0
        {
            if let Some(time) = parse_timecode(record.get(timecode_column).unwrap_or("")) {
                untracked.push(time);
            }
            continue;
        }
        if record.len() != header.len() {
            return Err(TakeError::At {
                line,
                column: record.len().min(header.len()) + 1,
                message: format!(
                    "the row has {} fields, the header {}",
                    record.len(),
                    header.len()
                ),
            });
        }
        let field = record.get(timecode_column).unwrap_or("");
        let time = parse_timecode(field).ok_or_else(|| TakeError::At {
            line,
            column: timecode_column + 1,
            message: format!("Timecode is {field:?}, not HH:MM:SS:FF.mmm"),
        })?;
        let mut weights = [0.0; ARKIT_TARGET_COUNT];
        for (w, &c) in weights.iter_mut().zip(&weight_columns) {
            *w = number(c)?;
        }
        let head = match &head_columns {
            Some(c) => Some(HeadTurn {
                yaw_deg: number(c[0])? * DEG_PER_UNIT,
                pitch_deg: number(c[1])? * DEG_PER_UNIT,
                roll_deg: number(c[2])? * DEG_PER_UNIT,
            }),
            None => None,
        };
        rows.push((line, time, weights, head));
    }
    if rows.is_empty() {
        return Err(TakeError::Empty);
    }
    let highest_frame = rows.iter().map(|r| r.1.frame.floor()).fold(0.0, f64::max);
    let crosses_a_second = rows.iter().any(|r| r.1.seconds != rows[0].1.seconds);
    let fps = CAPTURE_RATES
        .into_iter()
        .find(|&r| highest_frame < r - 0.5)
        .filter(|_| crosses_a_second)
        .unwrap_or(60.0);
    let mut times_ms = Vec::with_capacity(rows.len());
    let mut day_ms = 0.0;
    let mut previous = None;
    for (line, time, _, _) in &rows {
        let mut t = time.ms(fps) + day_ms;
        if let Some(p) = previous
            && t < p
            && p - t > 12.0 * 3_600_000.0
        {
            // The capture ran past midnight.
            day_ms += 24.0 * 3_600_000.0;
            t += 24.0 * 3_600_000.0;
        }
        if previous.is_some_and(|p| t <= p) {
            return Err(TakeError::At {
                line: *line,
                column: timecode_column + 1,
                message: "Timecode does not come after the row before".to_owned(),
            });
        }
        previous = Some(t);
        times_ms.push(t);
    }
    let start = times_ms[0];
    let end = times_ms[times_ms.len() - 1];
    let mut gaps_ms: Vec<f64> = untracked
        .iter()
        .map(|time| time.ms(fps) + day_ms)
        .filter(|t| (start..=end).contains(t))
        .map(|t| t - start)
        .collect();
    gaps_ms.sort_by(f64::total_cmp);
    let head = rows.iter().map(|r| r.3).collect::<Option<Vec<HeadTurn>>>();
    Take {
        name: name.to_owned(),
        fps,
        times_ms: times_ms.iter().map(|t| t - start).collect(),
        weights: rows.iter().map(|r| r.2).collect(),
        body: None,
        own: None,
        head,
        gaps_ms,
    }
    .checked()
}

fn missing(column: &str) -> TakeError {
    TakeError::At {
        line: 1,
        column: 1,
        message: format!("the header has no {column} column"),
    }
}

fn csv_error(e: &csv::Error) -> TakeError {
    let line = e.position().map_or(0, |p| p.line() as usize);
    match e.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => TakeError::At {
            line,
            column: (*len.min(expected_len) as usize) + 1,
            message: format!("the row has {len} fields, the header {expected_len}"),
        },
        _ => TakeError::At {
            line,
            column: 1,
            message: e.to_string(),
        },
    }
}

/// A timecode's parts.
#[derive(Clone, Copy, Debug)]
struct Timecode {
    seconds: f64,
    /// The frame within the second, with its fraction.
    frame: f64,
}

impl Timecode {
    fn ms(self, fps: f64) -> f64 {
        (self.seconds + self.frame / fps) * 1000.0
    }
}

fn parse_timecode(field: &str) -> Option<Timecode> {
    let parts: Vec<&str> = field.split(':').collect();
    let [h, m, s, f] = parts.as_slice() else {
        return None;
    };
    let whole = |p: &str| p.parse::<u32>().ok().map(f64::from);
    let frame: f64 = f
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)?;
    let (h, m, s) = (whole(h)?, whole(m)?, whole(s)?);
    (m < 60.0 && s < 60.0).then_some(Timecode {
        seconds: (h * 60.0 + m) * 60.0 + s,
        frame,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timecodes_count_frames_within_each_second() {
        assert_eq!(timecode(0.0, 60.0), "00:00:00:00.000");
        assert_eq!(timecode(1000.0 / 60.0 * 59.0, 60.0), "00:00:00:59.000");
        assert_eq!(timecode(1000.0, 60.0), "00:00:01:00.000");
        assert_eq!(timecode(3_723_500.0, 30.0), "01:02:03:15.000");
        assert_eq!(timecode(1000.0 / 60.0 * 2.5, 60.0), "00:00:00:02.500");
        let t = parse_timecode("01:02:03:15.000").expect("valid");
        assert!((t.ms(30.0) - 3_723_500.0).abs() < 1e-6);
        assert!(parse_timecode("01:02:03").is_none());
        assert!(parse_timecode("01:75:03:01.0").is_none());
    }

    #[test]
    fn columns_are_live_link_faces() {
        let names: Vec<String> = ArkitTarget::ALL.into_iter().map(column_name).collect();
        assert_eq!(names[0], "EyeBlinkLeft");
        assert_eq!(names[17], "JawOpen");
        assert_eq!(names[51], "TongueOut");
    }
}
