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
    // FNV-1a over the name, twice with different offsets, for 128 bits.
    let hash = |offset: u64| {
        subject.bytes().fold(offset, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3)
        })
    };
    let hex = format!(
        "{:016x}{:016x}",
        hash(0xcbf2_9ce4_8422_2325),
        hash(0x8422_2325_cbf2_9ce4)
    );
    format!(
        "${}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// `frame` as one Live Link Face packet, appended to `out` (cleared first).
pub fn encode(frame: &LiveLinkFrame<'_>, out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(device_id(frame.subject).as_bytes());
    let name = frame.subject.as_bytes();
    out.extend_from_slice(&i32::try_from(name.len()).unwrap_or(i32::MAX).to_be_bytes());
    out.extend_from_slice(name);
    let frames = frame.time_s.max(0.0) * f64::from(frame.fps);
    let whole = frames.floor();
    out.extend_from_slice(&(whole as i32).to_be_bytes());
    out.extend_from_slice(&((frames - whole) as f32).to_be_bytes());
    out.extend_from_slice(&i32::try_from(frame.fps).unwrap_or(60).to_be_bytes());
    out.extend_from_slice(&1i32.to_be_bytes());
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
    }
}
