//! The VMC protocol (OSC over UDP, received by EVMC4U in Unity, VMC4UE in Unreal, VMC4B in
//! Blender, VSeeFace, Warudo): one OSC bundle per avatar per frame holding `/VMC/Ext/OK`,
//! `/VMC/Ext/T`, `/VMC/Ext/Root/Pos`, a `/VMC/Ext/Bone/Pos` per humanoid bone (Unity's
//! HumanBodyBones names, local position and rotation, the avatar's rest pose as identity), a
//! `/VMC/Ext/Blend/Val` per blend shape (the 52 ARKit ones by their perfect-sync names,
//! `JawOpen`), then `/VMC/Ext/Blend/Apply`. Unity's axes are left-handed: glTF's x is
//! mirrored on the way out. Encoded with rosc, the maintained OSC codec.

use glam::{Quat, Vec3};
use rosc::{OscBundle, OscMessage, OscPacket, OscTime, OscType};

use crate::asset::Transform;
use crate::body::{HumanoidBone, PoseReader, Skeleton};

/// Where VMC receivers listen by default.
pub const DEFAULT_PORT: u16 = 39539;

/// The name Unity's HumanBodyBones gives `bone` (VRM 1.0's thumb joints are Unity's proximal,
/// intermediate and distal).
#[must_use]
pub fn unity_bone_name(bone: HumanoidBone) -> String {
    use HumanoidBone as B;
    let thumb = match bone {
        B::LeftThumbMetacarpal => Some("LeftThumbProximal"),
        B::LeftThumbProximal => Some("LeftThumbIntermediate"),
        B::RightThumbMetacarpal => Some("RightThumbProximal"),
        B::RightThumbProximal => Some("RightThumbIntermediate"),
        _ => None,
    };
    thumb.map_or_else(|| upper_camel(bone.name()), str::to_owned)
}

/// `jawOpen` as perfect-sync avatars and VMC receivers name it: `JawOpen`.
#[must_use]
pub fn upper_camel(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_ascii_uppercase().to_string() + chars.as_str()
    })
}

/// One humanoid bone as VMC sends it.
#[derive(Clone, Debug)]
struct RigBone {
    bone: HumanoidBone,
    /// The nearest humanoid bone above it (its index among the reader's bones).
    above: Option<usize>,
    /// Its rest offset from that bone (or, with none above, its rest position), glTF's axes.
    offset: Vec3,
}

/// The bones of `reader` as VMC sends them, each with the humanoid bone above it.
fn rig_bones(reader: &PoseReader, skeleton: &Skeleton) -> Vec<RigBone> {
    let bones = reader.bones();
    let rest = skeleton.rest_world();
    let rest_at = |j: usize| {
        rest.get(j)
            .map_or(Vec3::ZERO, |m| m.transform_point3(Vec3::ZERO))
    };
    let humanoid_above = |joint: usize| {
        let mut at = skeleton.parents.get(joint).copied().flatten();
        let mut steps = 0;
        while let Some(j) = at {
            if let Some(i) = bones.iter().position(|&(_, b)| b == j) {
                return Some(i);
            }
            at = skeleton.parents.get(j).copied().flatten();
            steps += 1;
            if steps > skeleton.len() {
                break;
            }
        }
        None
    };
    bones
        .iter()
        .map(|&(bone, joint)| {
            let above = humanoid_above(joint);
            RigBone {
                bone,
                above,
                offset: above
                    .map_or_else(|| rest_at(joint), |p| rest_at(joint) - rest_at(bones[p].1)),
            }
        })
        .collect()
}

/// Index of the first `/VMC/Ext/Bone/Pos` message in a bundle.
const FIRST_BONE: usize = 3;

/// One avatar's VMC bundle. Its messages (addresses, bone and blend-shape names) are encoded
/// once, by rosc, when it is made; every number in them is a float of fixed size at a fixed
/// place, so each frame only those bytes are written over and the same buffer is sent: a frame
/// allocates nothing and encodes nothing twice.
///
/// The bundle holds `/VMC/Ext/OK`, `/VMC/Ext/T`, `/VMC/Ext/Root/Pos`, a `/VMC/Ext/Bone/Pos` per
/// humanoid bone, a `/VMC/Ext/Blend/Val` per blend shape, then `/VMC/Ext/Blend/Apply`.
#[derive(Clone, Debug)]
pub struct VmcBundle {
    /// The encoded bundle.
    bytes: Vec<u8>,
    /// Where each message's trailing floats start in `bytes`.
    floats_at: Vec<usize>,
    rig: Vec<RigBone>,
    blends: usize,
    /// Scratch for posing: world rotations of every joint, turns of the humanoid bones.
    world: Vec<Quat>,
    turns: Vec<Quat>,
}

impl VmcBundle {
    /// A bundle for an avatar whose humanoid bones `rig` reads (none: a face alone), with
    /// blend shapes named `blends` (the receiver's names, in the order values will come).
    #[must_use]
    pub fn new(
        rig: Option<(&PoseReader, &Skeleton)>,
        blends: impl IntoIterator<Item = String>,
    ) -> Self {
        let rig = rig.map_or_else(Vec::new, |(reader, skeleton)| rig_bones(reader, skeleton));
        let mut content = vec![
            message("/VMC/Ext/OK", vec![OscType::Int(1)]),
            message("/VMC/Ext/T", vec![OscType::Float(0.0)]),
            message("/VMC/Ext/Root/Pos", placed("root".to_owned())),
        ];
        content.extend(
            rig.iter()
                .map(|b| message("/VMC/Ext/Bone/Pos", placed(unity_bone_name(b.bone)))),
        );
        let before = content.len();
        content.extend(blends.into_iter().map(|name| {
            message(
                "/VMC/Ext/Blend/Val",
                vec![OscType::String(name.replace('\0', "")), OscType::Float(0.0)],
            )
        }));
        let blends = content.len() - before;
        content.push(message("/VMC/Ext/Blend/Apply", Vec::new()));
        // In a bundle each message is its length (4 bytes) and its bytes, after "#bundle" and
        // the time tag (16 bytes); a message's float arguments are its last bytes.
        let mut floats_at = Vec::with_capacity(content.len());
        let mut at = 16;
        for packet in &content {
            let length = encoded_len(packet);
            let floats = match packet {
                OscPacket::Message(m) => m
                    .args
                    .iter()
                    .rev()
                    .take_while(|a| matches!(a, OscType::Float(_)))
                    .count(),
                OscPacket::Bundle(_) => 0,
            };
            at += 4 + length;
            floats_at.push(at - 4 * floats);
        }
        let mut bytes = Vec::with_capacity(at);
        // Writing into a Vec cannot fail.
        let _ = rosc::encoder::encode_into(
            &OscPacket::Bundle(OscBundle {
                timetag: OscTime {
                    seconds: 0,
                    fractional: 1,
                },
                content,
            }),
            &mut bytes,
        );
        debug_assert_eq!(bytes.len(), at);
        Self {
            bytes,
            floats_at,
            rig,
            blends,
            world: Vec::new(),
            turns: Vec::new(),
        }
    }

    /// How many humanoid bones and blend shapes it sends.
    #[must_use]
    pub fn counts(&self) -> (usize, usize) {
        (self.rig.len(), self.blends)
    }

    /// The sender's clock, seconds.
    pub fn set_time(&mut self, time_s: f32) {
        self.set_floats(1, &[time_s]);
    }

    /// Where the avatar stands in the world and how it is turned (glTF's axes).
    pub fn set_root(&mut self, at: Vec3, turn: Quat) {
        self.set_floats(2, &unity(at, turn));
    }

    /// Every humanoid bone posed by `locals`: its rotation relative to the nearest humanoid
    /// bone above it, both measured from the rest pose (so the rest pose is identity
    /// everywhere, as VRM's normalized bones are), and its offset from that bone at rest (the
    /// hips: where they are in the avatar's space). `reader` and `skeleton` are the ones the
    /// bundle was made with.
    pub fn set_body(&mut self, reader: &PoseReader, skeleton: &Skeleton, locals: &[Transform]) {
        reader.rotations_into(skeleton, locals, &mut self.world, &mut self.turns);
        let hips = reader.hips_position(skeleton, locals);
        for i in 0..self.rig.len().min(self.turns.len()) {
            let bone = &self.rig[i];
            let (at, turn) = match bone.above {
                Some(p) => (
                    bone.offset,
                    (self.turns[p].inverse() * self.turns[i]).normalize(),
                ),
                None => (
                    hips.filter(|_| bone.bone == HumanoidBone::Hips)
                        .unwrap_or(bone.offset),
                    self.turns[i],
                ),
            };
            self.set_floats(FIRST_BONE + i, &unity(at, turn));
        }
    }

    /// The blend shapes' values, in the order of their names (extra values are ignored).
    pub fn set_blends(&mut self, values: impl IntoIterator<Item = f32>) {
        let first = FIRST_BONE + self.rig.len();
        for (i, value) in values.into_iter().take(self.blends).enumerate() {
            self.set_floats(first + i, &[value]);
        }
    }

    /// The bundle as it stands, encoded.
    #[must_use]
    pub fn encode(&self) -> &[u8] {
        &self.bytes
    }

    /// Writes `values` over message `message`'s trailing floats (big-endian, as OSC has them).
    fn set_floats(&mut self, message: usize, values: &[f32]) {
        let Some(&at) = self.floats_at.get(message) else {
            return;
        };
        let Some(slots) = self.bytes.get_mut(at..at + 4 * values.len()) else {
            return;
        };
        for (slot, value) in slots.chunks_exact_mut(4).zip(values) {
            slot.copy_from_slice(&value.to_be_bytes());
        }
    }
}

/// How many bytes rosc encodes `packet` into.
fn encoded_len(packet: &OscPacket) -> usize {
    let mut counter = Vec::new();
    let _ = rosc::encoder::encode_into(packet, &mut counter);
    counter.len()
}

/// A position and rotation in Unity's left-handed axes (glTF's x mirrored).
fn unity(p: Vec3, q: Quat) -> [f32; 7] {
    [-p.x, p.y, p.z, q.x, -q.y, -q.z, q.w]
}

/// A name and a position and rotation (zero for now).
fn placed(name: String) -> Vec<OscType> {
    let mut args = vec![OscType::String(name)];
    args.extend(std::iter::repeat_n(OscType::Float(0.0), 6));
    args.push(OscType::Float(1.0));
    args
}

fn message(addr: &str, args: Vec<OscType>) -> OscPacket {
    OscPacket::Message(OscMessage {
        addr: addr.to_owned(),
        args,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn messages(bytes: &[u8]) -> Vec<OscMessage> {
        let (_, packet) = rosc::decoder::decode_udp(bytes).unwrap();
        let OscPacket::Bundle(bundle) = packet else {
            panic!("a bundle")
        };
        bundle
            .content
            .into_iter()
            .map(|p| match p {
                OscPacket::Message(m) => m,
                OscPacket::Bundle(_) => panic!("flat"),
            })
            .collect()
    }

    fn float(arg: &OscType) -> f32 {
        match arg {
            OscType::Float(v) => *v,
            other => panic!("{other:?} is not a float"),
        }
    }

    #[test]
    fn a_face_decodes_to_the_vmc_messages_in_unitys_axes() {
        let mut bundle = VmcBundle::new(None, ["JawOpen".to_owned(), "A\0B".to_owned()]);
        bundle.set_time(1.5);
        bundle.set_root(Vec3::new(1.0, 0.0, 2.0), Quat::from_rotation_y(0.5));
        bundle.set_blends([0.25, 0.5, 0.75]);
        let messages = messages(bundle.encode());
        let addrs: Vec<&str> = messages.iter().map(|m| m.addr.as_str()).collect();
        assert_eq!(
            addrs,
            [
                "/VMC/Ext/OK",
                "/VMC/Ext/T",
                "/VMC/Ext/Root/Pos",
                "/VMC/Ext/Blend/Val",
                "/VMC/Ext/Blend/Val",
                "/VMC/Ext/Blend/Apply"
            ]
        );
        assert_eq!(messages[1].args, [OscType::Float(1.5)]);
        // x mirrored; a turn about +Y is the other way round in left-handed axes.
        assert_eq!(messages[2].args[1], OscType::Float(-1.0));
        let q = Quat::from_rotation_y(0.5);
        assert_eq!(messages[2].args[5], OscType::Float(-q.y));
        assert_eq!(
            messages[3].args,
            [OscType::String("JawOpen".to_owned()), OscType::Float(0.25)]
        );
        // Byte for byte what rosc encodes for the same messages.
        let same = OscPacket::Bundle(OscBundle {
            timetag: OscTime {
                seconds: 0,
                fractional: 1,
            },
            content: messages.iter().cloned().map(OscPacket::Message).collect(),
        });
        assert_eq!(rosc::encoder::encode(&same).unwrap(), bundle.encode());
        // A NUL cannot travel in an OSC string; the extra value is ignored.
        assert_eq!(
            messages[4].args,
            [OscType::String("AB".to_owned()), OscType::Float(0.5)]
        );
    }

    #[test]
    fn bones_go_as_turns_from_the_humanoid_bone_above_in_unitys_axes() {
        let rig = crate::procedural::body::clip_rig();
        let map = crate::body::HumanoidMap::of(&rig.skeleton);
        let reader = PoseReader::new(&rig.skeleton, &map);
        let mut bundle = VmcBundle::new(Some((&reader, &rig.skeleton)), []);
        let (bones, blends) = bundle.counts();
        assert_eq!((bones, blends), (reader.bones().len(), 0));
        let head = map.joint(HumanoidBone::Head).unwrap();
        let neck = map.joint(HumanoidBone::Neck).unwrap();
        let mut posed = rig.skeleton.rest.clone();
        posed[neck].rotation = Quat::from_rotation_y(0.3) * posed[neck].rotation;
        posed[head].rotation = Quat::from_rotation_x(0.4) * posed[head].rotation;
        bundle.set_body(&reader, &rig.skeleton, &posed);
        let messages = messages(bundle.encode());
        let find = |name: &str| {
            messages
                .iter()
                .find(|m| m.args.first() == Some(&OscType::String(name.to_owned())))
                .unwrap_or_else(|| panic!("{name} is sent"))
        };
        // The head's turn relative to the neck is its own nod alone (the rig's rest
        // rotations are identity), sent with y and z negated.
        let got = |name: &str| {
            let a = &find(name).args;
            Quat::from_xyzw(float(&a[4]), -float(&a[5]), -float(&a[6]), float(&a[7]))
        };
        assert!(got("Head").angle_between(Quat::from_rotation_x(0.4)) < 1e-4);
        assert!(got("Neck").angle_between(Quat::from_rotation_y(0.3)) < 1e-4);
        assert!(got("Spine").angle_between(Quat::IDENTITY) < 1e-4);
        // The head sits its rest length above the neck, x mirrored.
        let rest = rig.skeleton.rest_world();
        let offset =
            rest[head].transform_point3(Vec3::ZERO) - rest[neck].transform_point3(Vec3::ZERO);
        let a = &find("Head").args;
        assert!((float(&a[1]) + offset.x).abs() < 1e-5);
        assert!((float(&a[2]) - offset.y).abs() < 1e-5);
        assert!(messages.len() == 4 + bones);
    }

    #[test]
    fn bones_take_unitys_names() {
        assert_eq!(unity_bone_name(HumanoidBone::LeftUpperArm), "LeftUpperArm");
        assert_eq!(unity_bone_name(HumanoidBone::UpperChest), "UpperChest");
        assert_eq!(
            unity_bone_name(HumanoidBone::RightThumbMetacarpal),
            "RightThumbProximal"
        );
        assert_eq!(upper_camel("eyeBlinkLeft"), "EyeBlinkLeft");
    }
}
