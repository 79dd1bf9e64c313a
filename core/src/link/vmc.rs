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

/// One avatar's pose for one frame, in glTF's axes (+Y up, +Z its front, metres).
#[derive(Clone, Debug, Default)]
pub struct VmcPose {
    /// Seconds on the sender's clock.
    pub time_s: f32,
    /// Where the avatar stands and how it is turned, in the world.
    pub root: (Vec3, Quat),
    /// Each humanoid bone's local position and rotation (identity at the rest pose).
    pub bones: Vec<(HumanoidBone, Vec3, Quat)>,
    /// Blend shapes by the name the receiver knows them by, and their weight (0-1).
    pub blends: Vec<(String, f32)>,
}

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

/// Each humanoid bone of a body posed by `locals`, as VMC sends it: its rotation relative to
/// the nearest humanoid bone above it, both measured from the rest pose (so the rest pose is
/// identity everywhere, as VRM's normalized bones are), and its offset from that bone at rest
/// (the hips: where they are in the avatar's space).
#[must_use]
pub fn humanoid_bones(
    reader: &PoseReader,
    skeleton: &Skeleton,
    locals: &[Transform],
) -> Vec<(HumanoidBone, Vec3, Quat)> {
    let bones = reader.bones();
    let turns: Vec<Quat> = reader
        .rotations(skeleton, locals)
        .into_iter()
        .map(Quat::from_array)
        .collect();
    let rest = skeleton.rest_world();
    let rest_at = |j: usize| {
        rest.get(j)
            .map_or(Vec3::ZERO, |m| m.transform_point3(Vec3::ZERO))
    };
    let humanoid_above = |joint: usize| {
        let mut at = skeleton.parents.get(joint).copied().flatten();
        while let Some(j) = at {
            if let Some(i) = bones.iter().position(|&(_, b)| b == j) {
                return Some(i);
            }
            at = skeleton.parents.get(j).copied().flatten();
        }
        None
    };
    bones
        .iter()
        .enumerate()
        .map(|(i, &(bone, joint))| match humanoid_above(joint) {
            Some(p) => (
                bone,
                rest_at(joint) - rest_at(bones[p].1),
                (turns[p].inverse() * turns[i]).normalize(),
            ),
            None => (
                bone,
                reader
                    .hips_position(skeleton, locals)
                    .filter(|_| bone == HumanoidBone::Hips)
                    .unwrap_or_else(|| rest_at(joint)),
                turns[i],
            ),
        })
        .collect()
}

/// A position and rotation in Unity's left-handed axes (glTF's x mirrored).
fn unity(p: Vec3, q: Quat) -> [OscType; 7] {
    [
        OscType::Float(-p.x),
        OscType::Float(p.y),
        OscType::Float(p.z),
        OscType::Float(q.x),
        OscType::Float(-q.y),
        OscType::Float(-q.z),
        OscType::Float(q.w),
    ]
}

fn message(addr: &str, args: Vec<OscType>) -> OscPacket {
    OscPacket::Message(OscMessage {
        addr: addr.to_owned(),
        args,
    })
}

/// `pose` as one OSC bundle, encoded.
///
/// # Errors
/// The encoder refused it (a name with a NUL byte).
pub fn encode(pose: &VmcPose) -> Result<Vec<u8>, String> {
    let mut content = Vec::with_capacity(4 + pose.bones.len() + pose.blends.len());
    // Loaded and tracking.
    content.push(message("/VMC/Ext/OK", vec![OscType::Int(1)]));
    content.push(message("/VMC/Ext/T", vec![OscType::Float(pose.time_s)]));
    let mut root = vec![OscType::String("root".to_owned())];
    root.extend(unity(pose.root.0, pose.root.1));
    content.push(message("/VMC/Ext/Root/Pos", root));
    for &(bone, p, q) in &pose.bones {
        let mut args = vec![OscType::String(unity_bone_name(bone))];
        args.extend(unity(p, q));
        content.push(message("/VMC/Ext/Bone/Pos", args));
    }
    for (name, value) in &pose.blends {
        content.push(message(
            "/VMC/Ext/Blend/Val",
            vec![OscType::String(name.clone()), OscType::Float(*value)],
        ));
    }
    content.push(message("/VMC/Ext/Blend/Apply", Vec::new()));
    let bundle = OscPacket::Bundle(OscBundle {
        timetag: OscTime {
            seconds: 0,
            fractional: 1,
        },
        content,
    });
    rosc::encoder::encode(&bundle).map_err(|e| format!("cannot encode a VMC bundle: {e}"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_pose_decodes_to_the_vmc_messages_in_unitys_axes() {
        let pose = VmcPose {
            time_s: 1.5,
            root: (Vec3::new(1.0, 0.0, 2.0), Quat::from_rotation_y(0.5)),
            bones: vec![(
                HumanoidBone::Head,
                Vec3::new(0.0, 0.1, 0.0),
                Quat::from_rotation_y(0.3),
            )],
            blends: vec![("JawOpen".to_owned(), 0.25)],
        };
        let bytes = encode(&pose).unwrap();
        let (_, packet) = rosc::decoder::decode_udp(&bytes).unwrap();
        let OscPacket::Bundle(bundle) = packet else {
            panic!("a bundle")
        };
        let messages: Vec<OscMessage> = bundle
            .content
            .into_iter()
            .map(|p| match p {
                OscPacket::Message(m) => m,
                OscPacket::Bundle(_) => panic!("flat"),
            })
            .collect();
        let addrs: Vec<&str> = messages.iter().map(|m| m.addr.as_str()).collect();
        assert_eq!(
            addrs,
            [
                "/VMC/Ext/OK",
                "/VMC/Ext/T",
                "/VMC/Ext/Root/Pos",
                "/VMC/Ext/Bone/Pos",
                "/VMC/Ext/Blend/Val",
                "/VMC/Ext/Blend/Apply"
            ]
        );
        // x mirrored; a turn about +Y is the other way round in left-handed axes.
        assert_eq!(messages[2].args[1], OscType::Float(-1.0));
        let q = Quat::from_rotation_y(0.5);
        assert_eq!(messages[2].args[5], OscType::Float(-q.y));
        assert_eq!(messages[3].args[0], OscType::String("Head".to_owned()));
        assert_eq!(
            messages[4].args,
            [OscType::String("JawOpen".to_owned()), OscType::Float(0.25)]
        );
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
