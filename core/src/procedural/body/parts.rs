//! The body's parts in their clothes: shirt, sleeves, hands, neck, pelvis, trousers, shoes.

use glam::Vec3;

use super::*;
use crate::asset::material::Material;
use crate::asset::mesh::Primitive;

// Body parts

/// One part of the body: a skinned primitive (its `material` unset) and its material.
#[derive(Clone, Debug)]
pub struct BodyPart {
    pub name: &'static str,
    pub primitive: Primitive,
    pub material: Material,
}

/// The joints of one side of the body.
#[derive(Clone, Copy, Debug)]
pub(super) struct Side {
    /// +1 for the left (+X), -1 for the right.
    pub(super) sign: f32,
    pub(super) shoulder: usize,
    pub(super) arm: usize,
    pub(super) fore_arm: usize,
    pub(super) hand: usize,
    pub(super) up_leg: usize,
    pub(super) leg: usize,
    pub(super) foot: usize,
    pub(super) toe: usize,
}

pub(super) const LEFT: Side = Side {
    sign: 1.0,
    shoulder: LEFT_SHOULDER,
    arm: LEFT_ARM,
    fore_arm: LEFT_FORE_ARM,
    hand: LEFT_HAND,
    up_leg: LEFT_UP_LEG,
    leg: LEFT_LEG,
    foot: LEFT_FOOT,
    toe: LEFT_TOE_BASE,
};

pub(super) const RIGHT: Side = Side {
    sign: -1.0,
    shoulder: RIGHT_SHOULDER,
    arm: RIGHT_ARM,
    fore_arm: RIGHT_FORE_ARM,
    hand: RIGHT_HAND,
    up_leg: RIGHT_UP_LEG,
    leg: RIGHT_LEG,
    foot: RIGHT_FOOT,
    toe: RIGHT_TOE_BASE,
};

impl Side {
    pub(super) fn of(x: f32) -> Self {
        if x >= 0.0 { LEFT } else { RIGHT }
    }

    /// Key sections mirrored onto this side (they are written for the left).
    pub(super) fn mirror(self, keys: &[Section]) -> Vec<Section> {
        keys.iter()
            .map(|k| Section {
                at: Vec3::new(k.at.x * self.sign, k.at.y, k.at.z),
                ..*k
            })
            .collect()
    }
}

/// Arc length along `keys` of the point nearest to `p`.
pub(super) fn arc_length_at(keys: &[Section], p: Vec3) -> f32 {
    let mut best = (f32::MAX, 0.0);
    let mut start = 0.0;
    for w in keys.windows(2) {
        let (a, b) = (w[0].at, w[1].at);
        let len = a.distance(b).max(1e-6);
        let t = ((p - a).dot(b - a) / (len * len)).clamp(0.0, 1.0);
        let d = p.distance(a.lerp(b, t));
        if d < best.0 {
            best = (d, start + t * len);
        }
        start += len;
    }
    best.1
}

/// Torso of the shirt (waist to shoulders), with the shoulders blended into the arms.
pub(super) fn shirt_torso() -> Piece {
    let keys = [
        section([0.0, 0.87, 0.0], 0.178, 0.118),
        section([0.0, 0.95, 0.0], 0.160, 0.106),
        section([0.0, 1.05, -0.005], 0.146, 0.098),
        section([0.0, 1.17, -0.005], 0.152, 0.103),
        section([0.0, 1.28, -0.005], 0.168, 0.107),
        section([0.0, 1.37, -0.01], 0.176, 0.101),
        section([0.0, 1.425, -0.015], 0.166, 0.088),
        section([0.0, 1.46, -0.018], 0.105, 0.066),
    ];
    let skin = |p: Vec3, _s: f32| {
        let spine = chain(
            &[
                (HIPS, 0.0, 0.0),
                (SPINE, 1.05, 0.04),
                (SPINE1, 1.17, 0.04),
                (SPINE2, 1.30, 0.05),
                (NECK, 1.46, 0.03),
            ],
            p.y,
        );
        let side = Side::of(p.x);
        let a = p.x.abs();
        let shoulder = smoothstep(0.08, 0.15, a) * smoothstep(1.27, 1.37, p.y);
        let arm = shoulder * 0.5 * smoothstep(0.13, 0.18, a);
        let mut w = mix_in(spine, side.shoulder, shoulder);
        if arm > 0.0 {
            w = mix_in(w, side.arm, arm);
        }
        w
    };
    loft(&keys, Vec3::X, 24, (0.015, 0.02), &skin)
}

/// A sleeve from the shoulder to the wrist.
pub(super) fn sleeve(side: Side) -> Piece {
    let keys = side.mirror(&[
        section([0.162, 1.42, -0.02], 0.050, 0.052),
        section([0.17, 1.395, -0.02], 0.056, 0.058),
        section([0.185, 1.26, -0.025], 0.050, 0.052),
        section([0.20, 1.115, -0.03], 0.043, 0.045),
        section([0.208, 0.99, -0.02], 0.042, 0.044),
        section([0.214, 0.885, -0.012], 0.037, 0.039),
    ]);
    let elbow = arc_length_at(&keys, joint_position(side.fore_arm));
    let wrist = arc_length_at(&keys, joint_position(side.hand));
    let bones = [
        (side.shoulder, 0.0, 0.0),
        (side.arm, 0.0, 0.04),
        (side.fore_arm, elbow, 0.05),
        (side.hand, wrist, 0.02),
    ];
    loft(&keys, Vec3::X, 14, (0.03, 0.008), &|_, s| chain(&bones, s))
}

/// A hand (a flat mitten) and its thumb.
pub(super) fn hand(side: Side) -> Piece {
    let keys = side.mirror(&[
        section([0.214, 0.895, -0.01], 0.024, 0.034),
        section([0.222, 0.80, -0.005], 0.026, 0.046),
        section([0.226, 0.755, 0.0], 0.021, 0.044),
        section([0.230, 0.685, 0.005], 0.013, 0.034),
    ]);
    let wrist = arc_length_at(&keys, joint_position(side.hand));
    let bones = [(side.fore_arm, 0.0, 0.0), (side.hand, wrist, 0.025)];
    let mut piece = loft(&keys, Vec3::X, 12, (0.01, 0.02), &|_, s| chain(&bones, s));
    let thumb = side.mirror(&[
        section([0.205, 0.84, 0.03], 0.014, 0.014),
        section([0.21, 0.80, 0.055], 0.012, 0.012),
        section([0.214, 0.77, 0.065], 0.010, 0.010),
    ]);
    let hand_joint = side.hand;
    piece.append(loft(&thumb, Vec3::X, 8, (0.01, 0.01), &|_, _| {
        vec![(hand_joint, 1.0)]
    }));
    piece
}

/// The neck, from inside the collar to inside the head.
pub(super) fn neck() -> Piece {
    let keys = [
        section([0.0, 1.40, -0.02], 0.052, 0.050),
        section([0.0, 1.50, -0.018], 0.049, 0.051),
        section([0.0, 1.55, -0.016], 0.048, 0.052),
        section([0.0, 1.575, -0.016], 0.046, 0.050),
    ];
    // From the head's neck base up, all Head: the head part is skinned to it alone.
    let bones = [(SPINE2, 0.0, 0.0), (NECK, 1.46, 0.03), (HEAD, 1.535, 0.015)];
    loft(&keys, Vec3::X, 16, (0.0, 0.005), &|p, _| chain(&bones, p.y))
}

/// The seat of the trousers, with its lower sides blended into the thighs.
pub(super) fn pelvis() -> Piece {
    let keys = [
        section([0.0, 0.78, 0.0], 0.150, 0.105),
        section([0.0, 0.86, 0.0], 0.165, 0.112),
        section([0.0, 0.94, 0.0], 0.152, 0.102),
        section([0.0, 1.00, 0.0], 0.140, 0.094),
    ];
    let skin = |p: Vec3, _s: f32| {
        let spine = chain(&[(HIPS, 0.0, 0.0), (SPINE, 1.05, 0.04)], p.y);
        let leg = 0.7 * smoothstep(0.88, 0.79, p.y) * smoothstep(0.02, 0.08, p.x.abs());
        mix_in(spine, Side::of(p.x).up_leg, leg)
    };
    loft(&keys, Vec3::X, 24, (0.05, 0.02), &skin)
}

/// A trouser leg from inside the seat to the ankle.
pub(super) fn trouser_leg(side: Side) -> Piece {
    let keys = side.mirror(&[
        section([0.085, 0.95, 0.0], 0.066, 0.078),
        section([0.09, 0.88, 0.0], 0.074, 0.086),
        section([0.092, 0.72, 0.005], 0.074, 0.078),
        section([0.095, 0.50, 0.005], 0.057, 0.060),
        section([0.097, 0.36, -0.005], 0.056, 0.060),
        section([0.10, 0.10, -0.02], 0.049, 0.052),
    ]);
    let hip = arc_length_at(&keys, joint_position(side.up_leg));
    let knee = arc_length_at(&keys, joint_position(side.leg));
    let ankle = arc_length_at(&keys, joint_position(side.foot));
    let bones = [
        (HIPS, 0.0, 0.0),
        (side.up_leg, hip, 0.05),
        (side.leg, knee, 0.06),
        (side.foot, ankle, 0.02),
    ];
    loft(&keys, Vec3::X, 16, (0.03, 0.005), &|_, s| chain(&bones, s))
}

/// A shoe, heel to toe along +Z, flat on y = 0.
pub(super) fn shoe(side: Side) -> Piece {
    let keys = side.mirror(&[
        section([0.10, 0.052, -0.075], 0.040, 0.052),
        section([0.10, 0.065, -0.02], 0.046, 0.065),
        section([0.10, 0.042, 0.095], 0.050, 0.042),
        section([0.10, 0.036, 0.16], 0.042, 0.034),
    ]);
    let ball = arc_length_at(&keys, joint_position(side.toe));
    let bones = [(side.foot, 0.0, 0.0), (side.toe, ball, 0.03)];
    loft(&keys, Vec3::X, 14, (0.025, 0.03), &|_, s| chain(&bones, s))
}

/// A linear base colour from an sRGB one (glTF colour factors are linear).
pub(super) fn srgb(rgb: [f32; 3]) -> [f32; 4] {
    let linear = |c: f32| {
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    [linear(rgb[0]), linear(rgb[1]), linear(rgb[2]), 1.0]
}

/// A plain material with an sRGB colour.
pub(super) fn cloth(name: &str, rgb: [f32; 3]) -> Material {
    Material {
        name: Some(name.to_owned()),
        base_color: srgb(rgb),
        ..Material::default()
    }
}

/// Name of the body part holding the bare skin (neck and hands).
pub const SKIN_PART: &str = "Body_Skin";

/// The body in clothes, one part per material: shirt, trousers, shoes and bare skin (neck and
/// hands, named [`SKIN_PART`]). Every vertex has four joint influences summing to 1.
#[must_use]
pub fn body_parts() -> Vec<BodyPart> {
    let mut shirt = shirt_torso();
    let mut trousers = pelvis();
    let mut shoes = Piece::default();
    let mut skin = neck();
    for side in [LEFT, RIGHT] {
        shirt.append(sleeve(side));
        trousers.append(trouser_leg(side));
        shoes.append(shoe(side));
        skin.append(hand(side));
    }
    vec![
        BodyPart {
            name: "Body_Shirt",
            primitive: shirt.into_primitive(),
            material: cloth("Shirt", [0.20, 0.36, 0.55]),
        },
        BodyPart {
            name: "Body_Trousers",
            primitive: trousers.into_primitive(),
            material: cloth("Trousers", [0.24, 0.22, 0.19]),
        },
        BodyPart {
            name: "Body_Shoes",
            primitive: shoes.into_primitive(),
            material: cloth("Shoes", [0.11, 0.08, 0.06]),
        },
        BodyPart {
            name: SKIN_PART,
            primitive: skin.into_primitive(),
            material: cloth("Skin", [0.89, 0.70, 0.59]),
        },
    ]
}
