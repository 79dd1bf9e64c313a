//! The VMC protocol (OSC over UDP, received by EVMC4U in Unity, VMC4UE in Unreal, VMC4B in
//! Blender, VSeeFace, Warudo): one OSC bundle per avatar per frame holding `/VMC/Ext/OK`,
//! `/VMC/Ext/T`, `/VMC/Ext/Root/Pos`, a `/VMC/Ext/Bone/Pos` per humanoid bone (Unity's
//! HumanBodyBones names, local position and rotation, the avatar's rest pose as identity), a
//! `/VMC/Ext/Blend/Val` per blend shape (the 52 ARKit ones by their perfect-sync names,
//! `JawOpen`), then `/VMC/Ext/Blend/Apply`. Unity's axes are left-handed: glTF's x is
//! mirrored on the way out. Encoded with rosc, the maintained OSC codec.

use glam::{Quat, Vec3};
use rosc::{OscBundle, OscMessage, OscPacket, OscTime, OscType};

use std::collections::BTreeMap;

use crate::arkit::{ARKIT_TARGET_COUNT, ArkitTarget};
use crate::asset::{Transform, VrmExpressions};
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

/// VRM 0.x's name for a preset that VRM 1.0 spells `vrm1` (VSeeFace, EVMC4U and UniVRM 0.x
/// receive these over VMC); a custom expression keeps its own name.
#[must_use]
pub fn vrm0_name(vrm1: &str) -> String {
    let name = match vrm1 {
        "aa" => "A",
        "ih" => "I",
        "ou" => "U",
        "ee" => "E",
        "oh" => "O",
        "blink" => "Blink",
        "blinkLeft" => "Blink_L",
        "blinkRight" => "Blink_R",
        "happy" => "Joy",
        "angry" => "Angry",
        "sad" => "Sorrow",
        "relaxed" => "Fun",
        "surprised" => "Surprised",
        "neutral" => "Neutral",
        "lookUp" => "LookUp",
        "lookDown" => "LookDown",
        "lookLeft" => "LookLeft",
        "lookRight" => "LookRight",
        other => other,
    };
    name.to_owned()
}

/// Where a morph target's weight comes from this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
enum TargetSource {
    /// One of the avatar's own shapes the face animates (its index among them).
    Own(usize),
    /// An ARKit weight (the target is named for it, or the project plays it there).
    Arkit(ArkitTarget),
}

/// A VRM avatar's expressions as VMC sends them: each preset by its VRM 0.x name, its value the
/// weight its bound targets have in the frame the player draws (the largest over its binds,
/// each divided by its bind weight). Made once per avatar; values need no allocation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VrmPresets {
    presets: Vec<(String, Vec<(TargetSource, f32)>)>,
}

impl VrmPresets {
    /// The presets of `expressions` whose targets the face animates: one of `own` (the avatar's
    /// own shapes, in the order of their weights), an ARKit target played on it (`aliases`), or
    /// a target named for an ARKit one.
    #[must_use]
    pub fn new(
        expressions: &VrmExpressions,
        own: &[String],
        aliases: &BTreeMap<ArkitTarget, Vec<String>>,
    ) -> Self {
        let source = |target: &str| {
            own.iter()
                .position(|n| n == target)
                .map(TargetSource::Own)
                .or_else(|| {
                    aliases
                        .iter()
                        .find(|(_, names)| names.iter().any(|n| n == target))
                        .map(|(&t, _)| TargetSource::Arkit(t))
                })
                .or_else(|| ArkitTarget::from_name(target).map(TargetSource::Arkit))
        };
        let presets = expressions
            .0
            .iter()
            .filter_map(|(name, binds)| {
                let sources: Vec<(TargetSource, f32)> = binds
                    .iter()
                    .filter(|(_, w)| *w > 1e-3)
                    .filter_map(|(target, w)| source(target).map(|s| (s, *w)))
                    .collect();
                (!sources.is_empty()).then(|| (vrm0_name(name), sources))
            })
            .collect();
        Self { presets }
    }

    /// The presets' names, as sent.
    pub fn names(&self) -> impl Iterator<Item = String> + '_ {
        self.presets.iter().map(|(name, _)| name.clone())
    }

    /// Each preset's value (0-1) for a frame whose ARKit weights are `arkit` and own shapes'
    /// weights `own`, in the order of [`Self::names`].
    pub fn values<'a>(
        &'a self,
        arkit: &'a [f32; ARKIT_TARGET_COUNT],
        own: &'a [f32],
    ) -> impl Iterator<Item = f32> + 'a {
        self.presets.iter().map(move |(_, sources)| {
            sources
                .iter()
                .map(|&(source, bind)| {
                    let w = match source {
                        TargetSource::Own(i) => own.get(i).copied().unwrap_or(0.0),
                        TargetSource::Arkit(t) => arkit[t.index()],
                    };
                    (w / bind).clamp(0.0, 1.0)
                })
                .fold(0.0, f32::max)
        })
    }
}

/// A bundle saying the face is not tracked now (`/VMC/Ext/OK` loaded, calibrated, tracking 0,
/// then `/VMC/Ext/Blend/Apply`), as a VMC sender says it when it loses the face.
#[must_use]
pub fn encode_tracking_lost() -> Vec<u8> {
    let bundle = OscPacket::Bundle(OscBundle {
        timetag: OscTime {
            seconds: 0,
            fractional: 1,
        },
        content: vec![
            message("/VMC/Ext/OK", [1, 3, 0, 0].map(OscType::Int).to_vec()),
            message("/VMC/Ext/Blend/Apply", Vec::new()),
        ],
    });
    let mut bytes = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = rosc::encoder::encode_into(&bundle, &mut bytes);
    bytes
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
    fn vrm_presets_take_the_weights_of_the_targets_they_bind() {
        let mut expressions = BTreeMap::new();
        expressions.insert("aa".to_owned(), vec![("Fcl_MTH_A".to_owned(), 1.0)]);
        expressions.insert(
            "blinkLeft".to_owned(),
            vec![("Fcl_EYE_Close_L".to_owned(), 0.5)],
        );
        expressions.insert("happy".to_owned(), vec![("mouthSmileLeft".to_owned(), 1.0)]);
        expressions.insert("angry".to_owned(), vec![("Unplayed".to_owned(), 1.0)]);
        let own = ["Fcl_MTH_I".to_owned(), "Fcl_MTH_A".to_owned()];
        let mut aliases = BTreeMap::new();
        aliases.insert(
            ArkitTarget::EyeBlinkLeft,
            vec!["Fcl_EYE_Close_L".to_owned()],
        );
        let presets = VrmPresets::new(&VrmExpressions(expressions), &own, &aliases);
        assert_eq!(presets.names().collect::<Vec<_>>(), ["A", "Blink_L", "Joy"]);
        let mut arkit = [0.0; ARKIT_TARGET_COUNT];
        arkit[ArkitTarget::EyeBlinkLeft.index()] = 0.25;
        arkit[ArkitTarget::MouthSmileLeft.index()] = 0.75;
        let values: Vec<f32> = presets.values(&arkit, &[0.0, 0.6]).collect();
        // A: its own shape's weight; Blink_L: the blink played on its target, over its bind
        // weight of 0.5; Joy: the ARKit target it binds by name.
        assert_eq!(values, [0.6, 0.5, 0.75]);
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
