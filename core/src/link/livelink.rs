//! Unreal's Live Link Face protocol (UDP, 11111 by default), as Epic's iPhone app sends it and
//! MetaHuman and any Live Link subject receive it: one packet per subject per frame. Its
//! layout: the version (6, little-endian u32), the device id (`$` and a 36-character UUID),
//! the subject name (big-endian i32 length, then UTF-8), the frame time (big-endian i32 frame
//! number and f32 sub-frame), the frame rate (big-endian i32 numerator and denominator), the
//! count of values (a byte, 61), then 61 big-endian f32: the 52 ARKit weights in Apple's order
//! and the head's and each eye's yaw, pitch and roll (-1..1 for -180..180 degrees, as in the
//! app's CSV, [`crate::take::livelink`]).

use crate::arkit::{ARKIT_TARGET_COUNT, ArkitTarget};
use crate::take::angles::{HeadTurn, eye_turns};

/// Where Live Link Face receivers listen by default.
pub const DEFAULT_PORT: u16 = 11111;
/// The packet version this writes.
pub const VERSION: u32 = 6;
/// The values after the frame rate: 52 weights and 9 rotations.
pub const VALUES: u8 = 61;
/// Degrees per unit of a rotation value.
const DEG_PER_UNIT: f32 = 180.0;

/// One subject's face in one frame.
#[derive(Clone, Debug)]
pub struct LiveLinkFrame<'a> {
    /// The Live Link subject: the NPC's id.
    pub subject: &'a str,
    /// Seconds on the sender's clock.
    pub time_s: f64,
    /// Frames per second the time is counted in.
    pub fps: u32,
    /// The 52 ARKit weights in canonical (Apple's) order.
    pub weights: &'a [f32; ARKIT_TARGET_COUNT],
    /// The head's turn in the avatar's frame (the eyes' come from the weights).
    pub head: HeadTurn,
}

/// A device id for `subject`: `$` and a UUID made from its name, the same every run.
#[must_use]
pub fn device_id(subject: &str) -> String {
    String::from_utf8_lossy(&device_id_bytes(subject)).into_owned()
}

/// [`device_id`] as the 37 bytes a packet holds, made without allocating.
#[must_use]
pub fn device_id_bytes(subject: &str) -> [u8; 37] {
    // FNV-1a over the name, twice with different offsets, for 128 bits.
    let hash = |offset: u64| {
        subject.bytes().fold(offset, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3)
        })
    };
    let halves = [hash(0xcbf2_9ce4_8422_2325), hash(0x8422_2325_cbf2_9ce4)];
    let mut id = [b'-'; 37];
    id[0] = b'$';
    let mut nibble = 0;
    for (at, byte) in id.iter_mut().enumerate().skip(1) {
        if matches!(at, 9 | 14 | 19 | 24) {
            continue;
        }
        let half = halves[nibble / 16];
        let digit = (half >> (60 - 4 * (nibble % 16))) & 0xf;
        *byte = b"0123456789abcdef"[digit as usize];
        nibble += 1;
    }
    id
}

/// A packet for `subject` at `time_s` that says no face is tracked (a count of 0 and no
/// values, as the iPhone app sends when it loses the face), into `out` (cleared first).
pub fn encode_untracked(subject: &str, time_s: f64, fps: u32, out: &mut Vec<u8>) {
    header(subject, time_s, fps, out);
    out.push(0);
}

/// Everything before the count: version, device id, subject, frame time and rate.
fn header(subject: &str, time_s: f64, fps: u32, out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&device_id_bytes(subject));
    let name = subject.as_bytes();
    out.extend_from_slice(&i32::try_from(name.len()).unwrap_or(i32::MAX).to_be_bytes());
    out.extend_from_slice(name);
    let frames = time_s.max(0.0) * f64::from(fps);
    let whole = frames.floor();
    out.extend_from_slice(&(whole as i32).to_be_bytes());
    out.extend_from_slice(&((frames - whole) as f32).to_be_bytes());
    out.extend_from_slice(&i32::try_from(fps).unwrap_or(60).to_be_bytes());
    out.extend_from_slice(&1i32.to_be_bytes());
}

/// `frame` as one Live Link Face packet, appended to `out` (cleared first).
pub fn encode(frame: &LiveLinkFrame<'_>, out: &mut Vec<u8>) {
    header(frame.subject, frame.time_s, frame.fps, out);
    out.push(VALUES);
    for target in ArkitTarget::ALL {
        out.extend_from_slice(&frame.weights[target.index()].to_be_bytes());
    }
    let eyes = eye_turns(frame.weights);
    for turn in [frame.head, eyes.left, eyes.right] {
        for deg in [turn.yaw_deg, turn.pitch_deg, turn.roll_deg] {
            out.extend_from_slice(&(deg / DEG_PER_UNIT).to_be_bytes());
        }
    }
}

/// A face read from a packet.
#[derive(Clone, Debug, PartialEq)]
pub struct ReceivedFace {
    pub subject: String,
    /// Seconds on the sender's clock (frame number and sub-frame over the rate).
    pub time_s: f64,
    /// The 52 weights in canonical order, and the head's turn; none when the sender tracked
    /// no face (a packet without values).
    pub face: Option<([f32; ARKIT_TARGET_COUNT], HeadTurn)>,
}

/// Why a packet was dropped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PacketError {
    #[error("the packet ends early ({0} bytes)")]
    Short(usize),
    #[error("the subject name is not UTF-8, or its length is out of range")]
    Name,
    #[error("the frame rate {0}/{1} is not a rate")]
    Rate(i32, i32),
    #[error("{0} values where 61 (or none) were expected")]
    Count(u8),
    #[error("a value is not a finite number")]
    NotFinite,
    #[error("{0} bytes after the values")]
    Trailing(usize),
}

/// Reads one Live Link Face packet (untrusted: every length and value is checked).
///
/// # Errors
/// What is wrong with it, in words; the packet is to be dropped.
pub fn decode(packet: &[u8]) -> Result<ReceivedFace, PacketError> {
    let short = || PacketError::Short(packet.len());
    let take = |at: usize, n: usize| packet.get(at..at + n).ok_or_else(short);
    let be_i32 = |at: usize| -> Result<i32, PacketError> {
        let b = take(at, 4)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    let be_f32 = |at: usize| -> Result<f32, PacketError> {
        let b = take(at, 4)?;
        Ok(f32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    // Version (4) and device id (37) are not needed to read the face.
    let name_len = usize::try_from(be_i32(41)?).map_err(|_| PacketError::Name)?;
    if name_len > 1024 {
        return Err(PacketError::Name);
    }
    let subject = std::str::from_utf8(take(45, name_len)?)
        .map_err(|_| PacketError::Name)?
        .to_owned();
    let at = 45 + name_len;
    let (frame, sub) = (be_i32(at)?, be_f32(at + 4)?);
    let (numerator, denominator) = (be_i32(at + 8)?, be_i32(at + 12)?);
    if numerator <= 0 || denominator <= 0 || !sub.is_finite() {
        return Err(PacketError::Rate(numerator, denominator));
    }
    let time_s =
        (f64::from(frame) + f64::from(sub)) * f64::from(denominator) / f64::from(numerator);
    let count = *take(at + 16, 1)?.first().ok_or_else(short)?;
    let values = at + 17;
    if count == 0 {
        return Ok(ReceivedFace {
            subject,
            time_s,
            face: None,
        });
    }
    if count != VALUES {
        return Err(PacketError::Count(count));
    }
    let end = values + usize::from(VALUES) * 4;
    if packet.len() < end {
        return Err(short());
    }
    if packet.len() > end {
        return Err(PacketError::Trailing(packet.len() - end));
    }
    let mut weights = [0.0; ARKIT_TARGET_COUNT];
    for (i, w) in weights.iter_mut().enumerate() {
        *w = be_f32(values + i * 4)?;
    }
    let turn = |i: usize| be_f32(values + (ARKIT_TARGET_COUNT + i) * 4);
    let head = HeadTurn {
        yaw_deg: turn(0)? * DEG_PER_UNIT,
        pitch_deg: turn(1)? * DEG_PER_UNIT,
        roll_deg: turn(2)? * DEG_PER_UNIT,
    };
    let turns = [head.yaw_deg, head.pitch_deg, head.roll_deg];
    if weights.iter().chain(&turns).any(|v| !v.is_finite()) {
        return Err(PacketError::NotFinite);
    }
    Ok(ReceivedFace {
        subject,
        time_s,
        face: Some((weights, head)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_has_the_published_layout() {
        let mut weights = [0.0; ARKIT_TARGET_COUNT];
        weights[ArkitTarget::JawOpen.index()] = 0.5;
        let frame = LiveLinkFrame {
            subject: "Elara",
            time_s: 2.5,
            fps: 60,
            weights: &weights,
            head: HeadTurn {
                yaw_deg: 18.0,
                pitch_deg: 0.0,
                roll_deg: 0.0,
            },
        };
        let mut out = Vec::new();
        encode(&frame, &mut out);
        assert_eq!(out.len(), 4 + 37 + 4 + 5 + 8 + 8 + 1 + 61 * 4);
        assert_eq!(&out[0..4], &6u32.to_le_bytes());
        assert_eq!(out[4], b'$');
        assert_eq!(&out[41..45], &5i32.to_be_bytes());
        assert_eq!(&out[45..50], b"Elara");
        assert_eq!(&out[50..54], &150i32.to_be_bytes());
        assert_eq!(out[66], 61);
        let value = |i: usize| {
            let at = 67 + i * 4;
            f32::from_be_bytes([out[at], out[at + 1], out[at + 2], out[at + 3]])
        };
        assert_eq!(value(17), 0.5, "jawOpen is Apple's 18th");
        assert!((value(52) - 0.1).abs() < 1e-6, "head yaw 18 degrees");
        assert_eq!(device_id("Elara"), device_id("Elara"));
        assert_ne!(device_id("Elara"), device_id("Bram"));
        // Read back.
        let back = decode(&out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.subject, "Elara");
        assert!((back.time_s - 2.5).abs() < 1e-6);
        let (w, head) = back.face.unwrap_or_else(|| panic!("a face"));
        assert_eq!(w, weights);
        assert!((head.yaw_deg - 18.0).abs() < 1e-4);
        // Untrusted: every cut, a wrong count, NaN, trailing bytes are refused, never a panic.
        for n in 0..out.len() {
            assert!(decode(&out[..n]).is_err(), "cut at {n}");
        }
        let mut bad = out.clone();
        bad[66] = 60;
        assert_eq!(decode(&bad), Err(PacketError::Count(60)));
        let mut bad = out.clone();
        bad[67..71].copy_from_slice(&f32::NAN.to_be_bytes());
        assert_eq!(decode(&bad), Err(PacketError::NotFinite));
        let mut bad = out.clone();
        bad.push(0);
        assert_eq!(decode(&bad), Err(PacketError::Trailing(1)));
    }

    #[test]
    fn the_device_id_is_the_names_two_hashes_written_as_a_uuid() {
        let hash = |offset: u64| {
            "Elara".bytes().fold(offset, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3)
            })
        };
        let hex = format!(
            "{:016x}{:016x}",
            hash(0xcbf2_9ce4_8422_2325),
            hash(0x8422_2325_cbf2_9ce4)
        );
        let uuid = format!(
            "${}-{}-{}-{}-{}",
            &hex[0..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..32]
        );
        assert_eq!(device_id("Elara"), uuid);
    }
}
