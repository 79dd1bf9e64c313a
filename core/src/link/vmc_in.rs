//! Faces received over the VMC protocol (VSeeFace, Warudo, iFacialMocap relays, any VMC
//! sender), for `capture --listen vmc://`: `/VMC/Ext/Blend/Val` messages set blend shapes by
//! name until `/VMC/Ext/Blend/Apply` makes them a frame; `/VMC/Ext/Bone/Pos` for `Head` gives
//! the head's turn. Blend shapes are read by their ARKit names in any common spelling
//! (perfect-sync `JawOpen`, `jawOpen`, ...) and VRM's blink presets (`Blink`, `Blink_L`,
//! `Blink_R`); other names (`A`, `Joy`, an avatar's own shapes) are not ARKit weights and are
//! set aside, listed once. Packets are untrusted: decoded by rosc, every argument checked.

use std::collections::BTreeSet;

use glam::Quat;
use rosc::{OscMessage, OscPacket, OscType};

use crate::arkit::{ARKIT_TARGET_COUNT, ArkitTarget};
use crate::take::angles::{HeadTurn, head_turn};

/// Why a VMC packet (or one of its messages) was dropped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VmcPacketError {
    #[error("not an OSC packet ({0})")]
    Osc(String),
    #[error("{0} with arguments of the wrong kind or number")]
    Arguments(String),
    #[error("{0} with a value that is not a finite number")]
    NotFinite(String),
    #[error("bundles nested more than {MAX_DEPTH} deep")]
    TooDeep,
}

/// Bundles inside bundles read at most this deep.
const MAX_DEPTH: usize = 4;

/// One face, as the sender applied it.
#[derive(Clone, Debug, PartialEq)]
pub struct VmcFace {
    /// The 52 ARKit weights in canonical order (those not sent are 0, or held from the frame
    /// before: VMC senders may send only what changed).
    pub weights: [f32; ARKIT_TARGET_COUNT],
    /// The head's turn (glTF's axes) from its last `/VMC/Ext/Bone/Pos`, when one came.
    pub head: Option<HeadTurn>,
    /// False when the sender's last `/VMC/Ext/OK` said tracking is lost (its fourth
    /// argument 0): the face is a gap.
    pub tracked: bool,
}

/// Reads a VMC sender's packets into faces.
#[derive(Clone, Debug)]
pub struct VmcFaceReader {
    /// The values set since the start, held between frames.
    weights: [f32; ARKIT_TARGET_COUNT],
    head: Option<HeadTurn>,
    tracked: bool,
    /// Blend shape names that are not ARKit weights, seen so far.
    unknown: BTreeSet<String>,
}

impl Default for VmcFaceReader {
    fn default() -> Self {
        Self {
            weights: [0.0; ARKIT_TARGET_COUNT],
            head: None,
            tracked: true,
            unknown: BTreeSet::new(),
        }
    }
}

impl VmcFaceReader {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads one UDP packet; each `/VMC/Ext/Blend/Apply` in it appends a face to `faces`.
    /// A message that cannot be read is skipped and the rest of the packet is read; the
    /// first such fault is returned.
    ///
    /// # Errors
    /// The packet is not OSC, or a message in it was dropped: what was wrong, in words.
    pub fn feed(&mut self, packet: &[u8], faces: &mut Vec<VmcFace>) -> Result<(), VmcPacketError> {
        let (_, packet) =
            rosc::decoder::decode_udp(packet).map_err(|e| VmcPacketError::Osc(e.to_string()))?;
        let mut fault = None;
        self.packet(&packet, 0, faces, &mut fault);
        fault.map_or(Ok(()), Err)
    }

    /// Blend shape names received that are not ARKit weights (`A`, `Joy`, own shapes).
    #[must_use]
    pub fn unknown_names(&self) -> &BTreeSet<String> {
        &self.unknown
    }

    fn packet(
        &mut self,
        packet: &OscPacket,
        depth: usize,
        faces: &mut Vec<VmcFace>,
        fault: &mut Option<VmcPacketError>,
    ) {
        match packet {
            OscPacket::Message(m) => {
                if let Err(why) = self.message(m, faces) {
                    fault.get_or_insert(why);
                }
            }
            OscPacket::Bundle(b) if depth < MAX_DEPTH => {
                for p in &b.content {
                    self.packet(p, depth + 1, faces, fault);
                }
            }
            OscPacket::Bundle(_) => {
                fault.get_or_insert(VmcPacketError::TooDeep);
            }
        }
    }

    fn message(&mut self, m: &OscMessage, faces: &mut Vec<VmcFace>) -> Result<(), VmcPacketError> {
        let wrong = || VmcPacketError::Arguments(m.addr.clone());
        match m.addr.as_str() {
            "/VMC/Ext/Blend/Val" => {
                let [OscType::String(name), value] = m.args.as_slice() else {
                    return Err(wrong());
                };
                let value = number(value).ok_or_else(wrong)?;
                if !value.is_finite() {
                    return Err(VmcPacketError::NotFinite(m.addr.clone()));
                }
                self.set(name, value.clamp(0.0, 1.0));
                Ok(())
            }
            "/VMC/Ext/Blend/Apply" => {
                faces.push(VmcFace {
                    weights: self.weights,
                    head: self.head,
                    tracked: self.tracked,
                });
                Ok(())
            }
            "/VMC/Ext/OK" => {
                // loaded, then (VMC 2.5 and later) calibration state and mode, then tracking.
                match m.args.get(3) {
                    Some(OscType::Int(tracking)) => self.tracked = *tracking != 0,
                    Some(_) => return Err(wrong()),
                    None => self.tracked = true,
                }
                Ok(())
            }
            "/VMC/Ext/Bone/Pos" => {
                let [OscType::String(name), rest @ ..] = m.args.as_slice() else {
                    return Err(wrong());
                };
                if name != "Head" {
                    return Ok(());
                }
                let values: Vec<f32> = rest.iter().filter_map(number).collect();
                let [_, _, _, x, y, z, w] = values.as_slice() else {
                    return Err(wrong());
                };
                if ![*x, *y, *z, *w].iter().all(|v| v.is_finite()) {
                    return Err(VmcPacketError::NotFinite(m.addr.clone()));
                }
                // Unity's left-handed axes back to glTF's (x mirrored).
                let q = Quat::from_xyzw(*x, -*y, -*z, *w);
                if q.length_squared() > 1e-6 {
                    self.head = Some(head_turn(q.normalize()));
                }
                Ok(())
            }
            // Time, root, status, tracker and camera messages carry no face.
            _ => Ok(()),
        }
    }

    fn set(&mut self, name: &str, value: f32) {
        let targets: &[ArkitTarget] = match name.to_ascii_lowercase().as_str() {
            "blink" => &[ArkitTarget::EyeBlinkLeft, ArkitTarget::EyeBlinkRight],
            "blink_l" => &[ArkitTarget::EyeBlinkLeft],
            "blink_r" => &[ArkitTarget::EyeBlinkRight],
            _ => match ArkitTarget::from_name(name) {
                Some(t) => {
                    self.weights[t.index()] = value;
                    return;
                }
                None => {
                    if self.unknown.len() < 256 && !self.unknown.contains(name) {
                        self.unknown.insert(name.to_owned());
                    }
                    return;
                }
            },
        };
        for t in targets {
            self.weights[t.index()] = value;
        }
    }
}

/// A float argument (senders use 32- or 64-bit floats).
fn number(arg: &OscType) -> Option<f32> {
    match arg {
        OscType::Float(v) => Some(*v),
        OscType::Double(v) => Some(*v as f32),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::link::vmc::VmcBundle;

    #[test]
    fn what_the_sender_encodes_is_read_back() {
        let names = ArkitTarget::ALL
            .iter()
            .map(|t| super::super::vmc::upper_camel(t.name()));
        let mut bundle = VmcBundle::new(None, names.chain(["Joy".to_owned()]));
        let mut sent = [0.0; ARKIT_TARGET_COUNT];
        sent[ArkitTarget::JawOpen.index()] = 0.6;
        sent[ArkitTarget::EyeBlinkRight.index()] = 0.25;
        bundle.set_blends(sent.iter().copied().chain([1.0]));
        let mut reader = VmcFaceReader::new();
        let mut faces = Vec::new();
        reader.feed(bundle.encode(), &mut faces).unwrap();
        assert_eq!(faces.len(), 1);
        assert_eq!(faces[0].weights, sent);
        assert_eq!(reader.unknown_names().iter().collect::<Vec<_>>(), ["Joy"]);
    }

    fn blend(name: &str, value: OscType) -> OscPacket {
        OscPacket::Message(OscMessage {
            addr: "/VMC/Ext/Blend/Val".to_owned(),
            args: vec![OscType::String(name.to_owned()), value],
        })
    }

    fn apply() -> OscPacket {
        OscPacket::Message(OscMessage {
            addr: "/VMC/Ext/Blend/Apply".to_owned(),
            args: Vec::new(),
        })
    }

    fn bytes(packet: &OscPacket) -> Vec<u8> {
        rosc::encoder::encode(packet).unwrap()
    }

    #[test]
    fn messages_sent_one_by_one_make_a_face_at_apply_and_values_hold() {
        let mut reader = VmcFaceReader::new();
        let mut faces = Vec::new();
        reader
            .feed(&bytes(&blend("jawOpen", OscType::Float(0.5))), &mut faces)
            .unwrap();
        reader
            .feed(&bytes(&blend("Blink", OscType::Double(1.0))), &mut faces)
            .unwrap();
        assert!(faces.is_empty(), "nothing before Apply");
        reader.feed(&bytes(&apply()), &mut faces).unwrap();
        reader.feed(&bytes(&apply()), &mut faces).unwrap();
        assert_eq!(faces.len(), 2);
        for face in &faces {
            assert_eq!(face.weights[ArkitTarget::JawOpen.index()], 0.5);
            assert_eq!(face.weights[ArkitTarget::EyeBlinkLeft.index()], 1.0);
            assert_eq!(face.weights[ArkitTarget::EyeBlinkRight.index()], 1.0);
        }
    }

    #[test]
    fn a_sender_that_lost_tracking_sends_gaps() {
        let ok = |tracking: i32| {
            bytes(&OscPacket::Message(OscMessage {
                addr: "/VMC/Ext/OK".to_owned(),
                args: vec![
                    OscType::Int(1),
                    OscType::Int(3),
                    OscType::Int(0),
                    OscType::Int(tracking),
                ],
            }))
        };
        let mut reader = VmcFaceReader::new();
        let mut faces = Vec::new();
        for packet in [
            ok(1),
            bytes(&apply()),
            ok(0),
            bytes(&apply()),
            ok(1),
            bytes(&apply()),
        ] {
            reader.feed(&packet, &mut faces).unwrap();
        }
        let tracked: Vec<bool> = faces.iter().map(|f| f.tracked).collect();
        assert_eq!(tracked, [true, false, true]);
        // What our own replay sends for a gap reads as one.
        reader
            .feed(&crate::link::vmc::encode_tracking_lost(), &mut faces)
            .unwrap();
        assert_eq!(faces.last().map(|f| f.tracked), Some(false));
    }

    #[test]
    fn the_heads_bone_gives_the_heads_turn_in_gltfs_axes() {
        // A turn to the left about +Y in glTF is sent with y negated (left-handed axes).
        let q = Quat::from_rotation_y(18f32.to_radians());
        let head = OscPacket::Message(OscMessage {
            addr: "/VMC/Ext/Bone/Pos".to_owned(),
            args: vec![
                OscType::String("Head".to_owned()),
                OscType::Float(0.0),
                OscType::Float(0.1),
                OscType::Float(0.0),
                OscType::Float(q.x),
                OscType::Float(-q.y),
                OscType::Float(-q.z),
                OscType::Float(q.w),
            ],
        });
        let mut reader = VmcFaceReader::new();
        let mut faces = Vec::new();
        reader.feed(&bytes(&head), &mut faces).unwrap();
        reader.feed(&bytes(&apply()), &mut faces).unwrap();
        let turn = faces[0].head.unwrap();
        assert!((turn.yaw_deg - 18.0).abs() < 1e-3, "{turn:?}");
    }

    #[test]
    fn bad_packets_and_messages_are_refused_in_words_and_the_rest_is_read() {
        let mut reader = VmcFaceReader::new();
        let mut faces = Vec::new();
        assert!(matches!(
            reader.feed(b"not osc", &mut faces),
            Err(VmcPacketError::Osc(_))
        ));
        let mixed = OscPacket::Bundle(rosc::OscBundle {
            timetag: rosc::OscTime {
                seconds: 0,
                fractional: 1,
            },
            content: vec![
                blend("JawOpen", OscType::Float(f32::NAN)),
                blend("JawOpen", OscType::Int(3)),
                blend("MouthClose", OscType::Float(7.0)),
                apply(),
            ],
        });
        let fault = reader.feed(&bytes(&mixed), &mut faces).unwrap_err();
        assert_eq!(
            fault,
            VmcPacketError::NotFinite("/VMC/Ext/Blend/Val".to_owned())
        );
        assert_eq!(faces.len(), 1, "the good messages were read");
        assert_eq!(faces[0].weights[ArkitTarget::JawOpen.index()], 0.0);
        assert_eq!(
            faces[0].weights[ArkitTarget::MouthClose.index()],
            1.0,
            "clamped"
        );
        // Every cut of a good packet is refused or read, never a panic.
        let good = bytes(&mixed);
        for n in 0..good.len() {
            let _ = reader.feed(&good[..n], &mut faces);
        }
    }
}
