//! A stylised humanoid made by code: a Mixamo-named skeleton (`mixamorig:Hips` ... ), a
//! skinned body in clothes (shirt, trousers, shoes, skin) built from smooth capsule-like
//! lofts, three looping clips (idle, walk, talk), and the whole avatar as GLB with a head from
//! [`super::head`] skinned to `mixamorig:Head`.
//!
//! Metres, y up, facing +Z, the character's left on +X. The rest pose stands with the arms
//! hanging at the sides; every joint's rest rotation is identity, so a clip's rotation is the
//! joint's rotation away from rest.

use glam::{Mat4, Quat, Vec3};

use super::head::{HeadPart, head_textures};
use crate::asset::Transform;
use crate::asset::animation::{Channel, Clip, Interpolation, Property};
use crate::asset::material::Material;
use crate::asset::mesh::{Primitive, vertex_normals};
use crate::asset::scene::Node;
use crate::asset::writer::GlbWriter;
use crate::body::Skeleton;

/// Where a head part's neck base lies in head space; it is put on the Head joint.
pub const HEAD_NECK_BASE: Vec3 = Vec3::new(0.0, -0.12, 0.0);

pub const HIPS: usize = 0;
pub const SPINE: usize = 1;
pub const SPINE1: usize = 2;
pub const SPINE2: usize = 3;
pub const NECK: usize = 4;
pub const HEAD: usize = 5;
pub const HEAD_TOP_END: usize = 6;
pub const LEFT_SHOULDER: usize = 7;
pub const LEFT_ARM: usize = 8;
pub const LEFT_FORE_ARM: usize = 9;
pub const LEFT_HAND: usize = 10;
pub const RIGHT_SHOULDER: usize = 11;
pub const RIGHT_ARM: usize = 12;
pub const RIGHT_FORE_ARM: usize = 13;
pub const RIGHT_HAND: usize = 14;
pub const LEFT_UP_LEG: usize = 15;
pub const LEFT_LEG: usize = 16;
pub const LEFT_FOOT: usize = 17;
pub const LEFT_TOE_BASE: usize = 18;
pub const LEFT_TOE_END: usize = 19;
pub const RIGHT_UP_LEG: usize = 20;
pub const RIGHT_LEG: usize = 21;
pub const RIGHT_FOOT: usize = 22;
pub const RIGHT_TOE_BASE: usize = 23;
pub const RIGHT_TOE_END: usize = 24;

/// Number of joints.
pub const JOINT_COUNT: usize = 25;

/// Each joint: name, parent, rest position in model space. Parents come before children.
const JOINTS: [(&str, Option<usize>, [f32; 3]); JOINT_COUNT] = [
    ("mixamorig:Hips", None, [0.0, 0.95, 0.0]),
    ("mixamorig:Spine", Some(HIPS), [0.0, 1.05, -0.005]),
    ("mixamorig:Spine1", Some(SPINE), [0.0, 1.17, -0.01]),
    ("mixamorig:Spine2", Some(SPINE1), [0.0, 1.30, -0.01]),
    ("mixamorig:Neck", Some(SPINE2), [0.0, 1.46, -0.02]),
    ("mixamorig:Head", Some(NECK), [0.0, 1.55, 0.0]),
    ("mixamorig:HeadTop_End", Some(HEAD), [0.0, 1.78, 0.0]),
    ("mixamorig:LeftShoulder", Some(SPINE2), [0.05, 1.41, -0.015]),
    (
        "mixamorig:LeftArm",
        Some(LEFT_SHOULDER),
        [0.17, 1.40, -0.02],
    ),
    (
        "mixamorig:LeftForeArm",
        Some(LEFT_ARM),
        [0.20, 1.115, -0.03],
    ),
    (
        "mixamorig:LeftHand",
        Some(LEFT_FORE_ARM),
        [0.215, 0.865, -0.01],
    ),
    (
        "mixamorig:RightShoulder",
        Some(SPINE2),
        [-0.05, 1.41, -0.015],
    ),
    (
        "mixamorig:RightArm",
        Some(RIGHT_SHOULDER),
        [-0.17, 1.40, -0.02],
    ),
    (
        "mixamorig:RightForeArm",
        Some(RIGHT_ARM),
        [-0.20, 1.115, -0.03],
    ),
    (
        "mixamorig:RightHand",
        Some(RIGHT_FORE_ARM),
        [-0.215, 0.865, -0.01],
    ),
    ("mixamorig:LeftUpLeg", Some(HIPS), [0.09, 0.90, 0.0]),
    ("mixamorig:LeftLeg", Some(LEFT_UP_LEG), [0.095, 0.50, 0.005]),
    ("mixamorig:LeftFoot", Some(LEFT_LEG), [0.10, 0.085, -0.025]),
    (
        "mixamorig:LeftToeBase",
        Some(LEFT_FOOT),
        [0.10, 0.02, 0.095],
    ),
    (
        "mixamorig:LeftToe_End",
        Some(LEFT_TOE_BASE),
        [0.10, 0.02, 0.175],
    ),
    ("mixamorig:RightUpLeg", Some(HIPS), [-0.09, 0.90, 0.0]),
    (
        "mixamorig:RightLeg",
        Some(RIGHT_UP_LEG),
        [-0.095, 0.50, 0.005],
    ),
    (
        "mixamorig:RightFoot",
        Some(RIGHT_LEG),
        [-0.10, 0.085, -0.025],
    ),
    (
        "mixamorig:RightToeBase",
        Some(RIGHT_FOOT),
        [-0.10, 0.02, 0.095],
    ),
    (
        "mixamorig:RightToe_End",
        Some(RIGHT_TOE_BASE),
        [-0.10, 0.02, 0.175],
    ),
];

fn joint_position(j: usize) -> Vec3 {
    Vec3::from(JOINTS[j].2)
}

/// The Mixamo-named skeleton: Hips at 0.95 m, Head (the top of the neck) at 1.55 m,
/// HeadTop_End at 1.78 m; rest rotations are identity.
#[must_use]
pub fn skeleton() -> Skeleton {
    let rest = JOINTS
        .iter()
        .map(|&(_, parent, at)| Transform {
            translation: Vec3::from(at) - parent.map_or(Vec3::ZERO, joint_position),
            ..Transform::IDENTITY
        })
        .collect();
    Skeleton::new(
        JOINTS.iter().map(|j| j.1).collect(),
        JOINTS.iter().map(|j| j.0.to_owned()).collect(),
        rest,
    )
}

// ---------------------------------------------------------------------------------------------
// Skin weights

/// Joint influences of one vertex, before packing into four.
type Influences = Vec<(usize, f32)>;

fn smoothstep(edge0: f32, edge1: f32, x: f32) -> f32 {
    let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// The four strongest influences, normalised to sum to 1 (joint 0 with weight 0 fills unused
/// slots). Repeated joints are merged.
fn pack(influences: &[(usize, f32)]) -> ([u16; 4], [f32; 4]) {
    let mut merged: Vec<(usize, f32)> = Vec::with_capacity(influences.len());
    for &(j, w) in influences {
        if w.is_nan() || w <= 0.0 {
            continue;
        }
        match merged.iter_mut().find(|(m, _)| *m == j) {
            Some(entry) => entry.1 += w,
            None => merged.push((j, w)),
        }
    }
    merged.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    merged.truncate(4);
    let total: f32 = merged.iter().map(|m| m.1).sum();
    let mut joints = [0_u16; 4];
    let mut weights = [0.0_f32; 4];
    if total > 0.0 {
        for (k, &(j, w)) in merged.iter().enumerate() {
            joints[k] = u16::try_from(j).unwrap_or(0);
            weights[k] = w / total;
        }
    } else {
        weights[0] = 1.0;
    }
    (joints, weights)
}

/// Weights along a chain of bones: bone `k` owns the stretch from its start to the next
/// bone's start; across each start the weight passes smoothly over `blend` either side.
/// `bones` is (joint, start, blend); the first start is ignored.
fn chain(bones: &[(usize, f32, f32)], s: f32) -> Influences {
    let Some(&(first, _, _)) = bones.first() else {
        return Vec::new();
    };
    // The boundary nearest to s decides; boundaries are further apart than their blends.
    let nearest = bones
        .iter()
        .enumerate()
        .skip(1)
        .min_by(|a, b| (a.1.1 - s).abs().total_cmp(&(b.1.1 - s).abs()));
    match nearest {
        None => vec![(first, 1.0)],
        Some((k, &(joint, start, blend))) => {
            let t = smoothstep(start - blend, start + blend, s);
            vec![(bones[k - 1].0, 1.0 - t), (joint, t)]
        }
    }
}

/// Scales `a` by `1 - share` and adds `joint` with `share`.
fn mix_in(mut a: Influences, joint: usize, share: f32) -> Influences {
    for entry in &mut a {
        entry.1 *= 1.0 - share;
    }
    a.push((joint, share));
    a
}

// ---------------------------------------------------------------------------------------------
// Lofts: smooth tubes with rounded ends

/// A key cross-section of a loft: centre and half-widths along the two frame axes.
#[derive(Clone, Copy, Debug)]
struct Section {
    at: Vec3,
    /// Half-width along the reference direction.
    rx: f32,
    /// Half-width along `axis × reference`.
    rz: f32,
}

const fn section(at: [f32; 3], rx: f32, rz: f32) -> Section {
    Section {
        at: Vec3::new(at[0], at[1], at[2]),
        rx,
        rz,
    }
}

/// One ring of a loft, ready to emit.
#[derive(Clone, Copy, Debug)]
struct Ring {
    centre: Vec3,
    e1: Vec3,
    e2: Vec3,
    rx: f32,
    rz: f32,
    /// Arc length along the loft (negative in the start cap, past the end in the end cap).
    s: f32,
}

/// Skinned triangles: a piece of a body part.
#[derive(Clone, Debug, Default)]
struct Piece {
    positions: Vec<Vec3>,
    joints: Vec<[u16; 4]>,
    weights: Vec<[f32; 4]>,
    indices: Vec<u32>,
}

impl Piece {
    fn append(&mut self, other: Piece) {
        let base = self.positions.len() as u32;
        self.positions.extend(other.positions);
        self.joints.extend(other.joints);
        self.weights.extend(other.weights);
        self.indices.extend(other.indices.iter().map(|i| i + base));
    }

    fn into_primitive(self) -> Primitive {
        let positions: Vec<[f32; 3]> = self.positions.iter().map(|p| p.to_array()).collect();
        let normals = vertex_normals(&positions, &self.indices);
        Primitive {
            positions,
            normals,
            uvs: Vec::new(),
            joints: self.joints,
            weights: self.weights,
            indices: self.indices,
            targets: Vec::new(),
            material: None,
        }
    }
}

/// Rings of a tube through `keys` (a polyline with half-widths, interpolated linearly), about
/// one every `step` metres, framed so that `rx` lies along `reference`.
fn body_rings(keys: &[Section], reference: Vec3, step: f32) -> Vec<Ring> {
    let mut starts = vec![0.0_f32];
    for w in keys.windows(2) {
        let last = starts.last().copied().unwrap_or(0.0);
        starts.push(last + w[0].at.distance(w[1].at));
    }
    let length = starts.last().copied().unwrap_or(0.0);
    let count = ((length / step).ceil() as usize).max(1) + 1;
    let mut samples: Vec<(Vec3, f32, f32, f32)> = Vec::with_capacity(count);
    for k in 0..count {
        let s = length * k as f32 / (count - 1) as f32;
        let seg = starts
            .windows(2)
            .position(|w| s <= w[1])
            .unwrap_or(keys.len().saturating_sub(2));
        let span = (starts[seg + 1] - starts[seg]).max(1e-6);
        let t = ((s - starts[seg]) / span).clamp(0.0, 1.0);
        let (a, b) = (keys[seg], keys[seg + 1]);
        samples.push((
            a.at.lerp(b.at, t),
            a.rx + (b.rx - a.rx) * t,
            a.rz + (b.rz - a.rz) * t,
            s,
        ));
    }
    (0..count)
        .map(|k| {
            let before = samples[k.saturating_sub(1)].0;
            let after = samples[(k + 1).min(count - 1)].0;
            let axis = (after - before).normalize_or(Vec3::Y);
            let e1 = (reference - axis * reference.dot(axis)).normalize_or(Vec3::X);
            let e2 = axis.cross(e1);
            let (centre, rx, rz, s) = samples[k];
            Ring {
                centre,
                e1,
                e2,
                rx,
                rz,
                s,
            }
        })
        .collect()
}

/// A closed tube through `keys` with rounded ends `caps` (start, end) metres long, `segments`
/// vertices around; `skin(position, s)` gives each vertex's influences from its position and
/// its arc length `s` along the tube.
fn loft(
    keys: &[Section],
    reference: Vec3,
    segments: usize,
    caps: (f32, f32),
    skin: &dyn Fn(Vec3, f32) -> Influences,
) -> Piece {
    const CAP_RINGS: usize = 3;
    let body = body_rings(keys, reference, 0.025);
    let (Some(&first), Some(&last)) = (body.first(), body.last()) else {
        return Piece::default();
    };
    let cap = |end: Ring, len: f32, dir: f32, m: usize| {
        let phi = m as f32 * std::f32::consts::FRAC_PI_2 / (CAP_RINGS + 1) as f32;
        let axis = end.e1.cross(end.e2) * dir;
        Ring {
            centre: end.centre + axis * (phi.sin() * len),
            rx: end.rx * phi.cos(),
            rz: end.rz * phi.cos(),
            s: end.s + dir * phi.sin() * len,
            ..end
        }
    };
    let mut rings: Vec<Ring> = (1..=CAP_RINGS)
        .rev()
        .map(|m| cap(first, caps.0, -1.0, m))
        .collect();
    rings.extend(&body);
    rings.extend((1..=CAP_RINGS).map(|m| cap(last, caps.1, 1.0, m)));

    let mut piece = Piece::default();
    let push = |piece: &mut Piece, p: Vec3, s: f32| {
        let (j, w) = pack(&skin(p, s));
        piece.positions.push(p);
        piece.joints.push(j);
        piece.weights.push(w);
    };
    let start_axis = first.e1.cross(first.e2);
    let end_axis = last.e1.cross(last.e2);
    push(
        &mut piece,
        first.centre - start_axis * caps.0,
        first.s - caps.0,
    );
    for ring in &rings {
        for j in 0..segments {
            let theta = j as f32 / segments as f32 * std::f32::consts::TAU;
            let p =
                ring.centre + ring.e1 * (theta.cos() * ring.rx) + ring.e2 * (theta.sin() * ring.rz);
            push(&mut piece, p, ring.s);
        }
    }
    push(&mut piece, last.centre + end_axis * caps.1, last.s + caps.1);

    let seg = segments as u32;
    let ring_count = rings.len() as u32;
    let at = |r: u32, j: u32| 1 + r * seg + j % seg;
    let end_pole = 1 + ring_count * seg;
    for j in 0..seg {
        // Counter-clockwise seen from outside (the frame e1, e2, axis is right-handed).
        piece
            .indices
            .extend_from_slice(&[0, at(0, j + 1), at(0, j)]);
        piece.indices.extend_from_slice(&[
            end_pole,
            at(ring_count - 1, j),
            at(ring_count - 1, j + 1),
        ]);
    }
    for r in 0..ring_count - 1 {
        for j in 0..seg {
            let (a, b) = (at(r, j), at(r, j + 1));
            let (c, d) = (at(r + 1, j), at(r + 1, j + 1));
            piece.indices.extend_from_slice(&[a, b, c, b, d, c]);
        }
    }
    piece
}

// ---------------------------------------------------------------------------------------------
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
struct Side {
    /// +1 for the left (+X), -1 for the right.
    sign: f32,
    shoulder: usize,
    arm: usize,
    fore_arm: usize,
    hand: usize,
    up_leg: usize,
    leg: usize,
    foot: usize,
    toe: usize,
}

const LEFT: Side = Side {
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

const RIGHT: Side = Side {
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
    fn of(x: f32) -> Self {
        if x >= 0.0 { LEFT } else { RIGHT }
    }

    /// Key sections mirrored onto this side (they are written for the left).
    fn mirror(self, keys: &[Section]) -> Vec<Section> {
        keys.iter()
            .map(|k| Section {
                at: Vec3::new(k.at.x * self.sign, k.at.y, k.at.z),
                ..*k
            })
            .collect()
    }
}

/// Arc length along `keys` of the point nearest to `p`.
fn arc_length_at(keys: &[Section], p: Vec3) -> f32 {
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
fn shirt_torso() -> Piece {
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
fn sleeve(side: Side) -> Piece {
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
fn hand(side: Side) -> Piece {
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
fn neck() -> Piece {
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
fn pelvis() -> Piece {
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
fn trouser_leg(side: Side) -> Piece {
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
fn shoe(side: Side) -> Piece {
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
fn srgb(rgb: [f32; 3]) -> [f32; 4] {
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
fn cloth(name: &str, rgb: [f32; 3]) -> Material {
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

// ---------------------------------------------------------------------------------------------
// Clips

/// A pose being built: a rotation per joint (from rest) and the hips' offset from rest.
#[derive(Clone, Debug)]
struct Frame {
    rotations: Vec<Quat>,
    hips: Vec3,
}

impl Frame {
    fn new(joints: usize) -> Self {
        Self {
            rotations: vec![Quat::IDENTITY; joints],
            hips: Vec3::ZERO,
        }
    }

    /// Turns joint `j` further by `x`, `y`, `z` radians about its own axes (yaw, then pitch,
    /// then roll).
    fn turn(&mut self, j: usize, x: f32, y: f32, z: f32) {
        if let Some(r) = self.rotations.get_mut(j) {
            *r = (*r
                * Quat::from_rotation_y(y)
                * Quat::from_rotation_x(x)
                * Quat::from_rotation_z(z))
            .normalize();
        }
    }
}

/// Samples `pose(t, frame)` at `rate` keys per second over `duration` seconds into a clip with
/// a rotation channel per joint and a translation channel for the hips (LINEAR).
fn bake(
    name: &str,
    skeleton: &Skeleton,
    duration: f32,
    rate: f32,
    pose: &dyn Fn(f32, &mut Frame),
) -> Clip {
    let keys = ((duration * rate).round() as usize).max(1) + 1;
    let times: Vec<f32> = (0..keys)
        .map(|k| duration * k as f32 / (keys - 1) as f32)
        .collect();
    let joints = skeleton.len();
    let mut rotations = vec![Vec::with_capacity(keys * 4); joints];
    let mut hips = Vec::with_capacity(keys * 3);
    let mut previous = vec![Quat::IDENTITY; joints];
    for &t in &times {
        let mut frame = Frame::new(joints);
        pose(t, &mut frame);
        for j in 0..joints {
            let mut q = (skeleton.rest[j].rotation * frame.rotations[j]).normalize();
            // Neighbouring keys on the same side of the quaternion sphere.
            if q.dot(previous[j]) < 0.0 {
                q = -q;
            }
            previous[j] = q;
            rotations[j].extend_from_slice(&q.to_array());
        }
        let root = skeleton.rest.first().map_or(Vec3::ZERO, |r| r.translation);
        hips.extend_from_slice(&(root + frame.hips).to_array());
    }
    let mut channels: Vec<Channel> = rotations
        .into_iter()
        .enumerate()
        .map(|(node, values)| Channel {
            node,
            property: Property::Rotation,
            interpolation: Interpolation::Linear,
            times: times.clone(),
            values,
            width: 4,
        })
        .collect();
    channels.push(Channel {
        node: HIPS,
        property: Property::Translation,
        interpolation: Interpolation::Linear,
        times: times.clone(),
        values: hips,
        width: 3,
    });
    Clip {
        name: name.to_owned(),
        duration_s: duration,
        channels,
    }
}

const TAU: f32 = std::f32::consts::TAU;

/// Idle: a breath every 4 s lifting the chest and shoulders, and a slow sway.
fn idle_pose(t: f32, f: &mut Frame) {
    let w = TAU / 4.0;
    let breath = 0.5 - 0.5 * (w * t).cos();
    let sway = (w * t).sin();
    f.hips = Vec3::new(0.006 * sway, -0.004 * breath, 0.0);
    f.turn(HIPS, 0.0, 0.01 * (w * t + 1.0).sin(), -0.012 * sway);
    for leg in [LEFT_UP_LEG, RIGHT_UP_LEG] {
        f.turn(leg, 0.0, 0.0, 0.012 * sway);
    }
    f.turn(SPINE, 0.0, 0.0, 0.008 * sway);
    f.turn(SPINE1, -0.012 * breath, 0.0, 0.0);
    f.turn(SPINE2, -0.02 * breath, 0.0, 0.004 * sway);
    f.turn(NECK, 0.02 * breath, 0.0, 0.0);
    f.turn(
        HEAD,
        0.012 * breath + 0.01 * (2.0 * w * t + 1.0).sin(),
        0.03 * (w * t + 0.5).sin(),
        -0.008 * sway,
    );
    for side in [LEFT, RIGHT] {
        let s = side.sign;
        f.turn(side.shoulder, 0.0, 0.0, s * 0.04 * breath);
        f.turn(
            side.arm,
            -0.02 * (w * t + s).sin(),
            0.0,
            -s * (0.04 * breath + 0.01),
        );
        f.turn(side.fore_arm, -0.15 - 0.03 * breath, 0.0, 0.0);
        f.turn(side.hand, -0.05, s * 0.1, 0.0);
    }
}

/// Walk: one stride of each leg per second, in place; legs swing and knees bend, arms swing
/// against the legs, the hips bob and twist.
fn walk_pose(t: f32, f: &mut Frame) {
    let phi = TAU * t;
    let (sin, cos) = phi.sin_cos();
    f.hips = Vec3::new(0.012 * cos, -0.025 + 0.018 * (2.0 * phi).cos(), 0.0);
    f.turn(HIPS, 0.0, -0.07 * sin, 0.03 * cos);
    f.turn(SPINE, 0.05, 0.04 * sin, -0.015 * cos);
    f.turn(SPINE1, 0.0, 0.0, -0.01 * cos);
    f.turn(SPINE2, 0.0, 0.05 * sin, 0.0);
    f.turn(NECK, -0.03, 0.0, 0.0);
    f.turn(HEAD, 0.02 * (2.0 * phi).cos(), -0.02 * sin, 0.0);
    for side in [LEFT, RIGHT] {
        // +1 when this side's leg is forward.
        let fwd = sin * side.sign;
        let swing = cos * side.sign;
        let knee = 0.1 + 0.55 * (0.5 + 0.5 * swing).powi(2);
        f.turn(side.up_leg, -0.45 * fwd, 0.0, -0.03 * cos);
        f.turn(side.leg, knee, 0.0, 0.0);
        f.turn(side.foot, -0.12 * fwd - 0.4 * (knee - 0.1), 0.0, 0.0);
        f.turn(side.toe, -0.3 * (-fwd).max(0.0).powi(2), 0.0, 0.0);
        // The arm swings back when the leg on its side is forward.
        f.turn(
            side.shoulder,
            0.0,
            0.0,
            0.015 * side.sign * (2.0 * phi).cos(),
        );
        f.turn(side.arm, 0.35 * fwd, 0.0, -side.sign * 0.06);
        f.turn(side.fore_arm, -0.3 - 0.25 * (0.5 - 0.5 * fwd), 0.0, 0.0);
        f.turn(side.hand, -0.1, side.sign * 0.15, 0.0);
    }
}

/// Talk: idle, with nods and turns of the head and a right-hand gesture that rises and falls
/// over the 4 s.
fn talk_pose(t: f32, f: &mut Frame) {
    idle_pose(t, f);
    let w = TAU / 4.0;
    let gesture = 0.5 - 0.5 * (w * t).cos();
    let second = (-(w * t).sin()).max(0.0).powi(2);
    f.turn(SPINE1, 0.0, 0.04 * (w * t).sin(), 0.0);
    f.turn(
        NECK,
        0.03 * (2.0 * w * t).sin(),
        0.06 * (w * t + 0.4).sin(),
        0.0,
    );
    f.turn(
        HEAD,
        0.07 * (3.0 * w * t).sin() * (0.6 + 0.4 * (w * t).sin()),
        0.14 * (w * t + 0.4).sin(),
        0.03 * (2.0 * w * t + 0.7).sin(),
    );
    f.turn(RIGHT_ARM, -0.35 * gesture, 0.0, -0.12 * gesture);
    f.turn(
        RIGHT_FORE_ARM,
        -gesture - 0.12 * gesture * (4.0 * w * t).sin(),
        0.0,
        0.0,
    );
    f.turn(
        RIGHT_HAND,
        -0.15 * gesture * (4.0 * w * t + 1.0).sin(),
        -0.5 * gesture,
        0.0,
    );
    f.turn(LEFT_ARM, -0.1 * second, 0.0, 0.05 * second);
    f.turn(LEFT_FORE_ARM, -0.45 * second, 0.0, 0.0);
}

/// The three clips, "idle" (4 s), "walk" (1 s) and "talk" (4 s), each looping (the last key
/// equals the first). Every clip animates the rotation of every joint and the hips'
/// translation (never along Z), so any two blend cleanly. Channels target node = joint index.
#[must_use]
pub fn clips(skeleton: &Skeleton) -> Vec<Clip> {
    vec![
        bake("idle", skeleton, 4.0, 12.0, &idle_pose),
        bake("walk", skeleton, 1.0, 30.0, &walk_pose),
        bake("talk", skeleton, 4.0, 15.0, &talk_pose),
    ]
}

// ---------------------------------------------------------------------------------------------
// The avatar

fn mesh_node(name: &str, mesh: usize, skin: usize) -> Node {
    Node {
        name: Some(name.to_owned()),
        parent: None,
        children: Vec::new(),
        transform: Transform::IDENTITY,
        mesh: Some(mesh),
        skin: Some(skin),
        gpu_instances: Vec::new(),
    }
}

/// The avatar as GLB bytes: nodes `0..JOINT_COUNT` are the joints (Hips the root), then one
/// skinned mesh node per body part and per head part, one skin ("Armature") over every joint,
/// and the clips idle, walk and talk. Head parts are moved so that their neck base
/// ([`HEAD_NECK_BASE`]) sits on the Head joint and are skinned entirely to it; their morph
/// targets and target names are kept. The same input always gives the same bytes.
#[must_use]
pub fn avatar_glb(head: &[HeadPart]) -> Vec<u8> {
    let skeleton = skeleton();
    let rest_world = skeleton.rest_world();
    let mut w = GlbWriter::new();
    for j in 0..skeleton.len() {
        let children = (0..skeleton.len())
            .filter(|&c| skeleton.parents[c] == Some(j))
            .collect();
        w.add_node(&Node {
            name: Some(skeleton.names[j].clone()),
            parent: skeleton.parents[j],
            children,
            transform: skeleton.rest[j],
            mesh: None,
            skin: None,
            gpu_instances: Vec::new(),
        });
    }
    let joints: Vec<usize> = (0..skeleton.len()).collect();
    let inverse_bind: Vec<Mat4> = rest_world.iter().map(Mat4::inverse).collect();
    let skin = w.add_skin("Armature", &joints, &inverse_bind);
    let mut roots: Vec<usize> = (0..skeleton.len())
        .filter(|&j| skeleton.parents[j].is_none())
        .collect();

    // The bare skin takes the head's skin colour (without its texture, which needs UVs).
    let head_skin = head
        .iter()
        .find(|p| p.name == super::head::SKIN_PART)
        .map(|p| p.material.base_color);
    for mut part in body_parts() {
        if part.name == SKIN_PART
            && let Some(colour) = head_skin
        {
            part.material.base_color = colour;
        }
        let material = w.add_material(&part.material, &[]);
        let primitive = Primitive {
            material: Some(material),
            ..part.primitive
        };
        let mesh = w.add_mesh(part.name, &[primitive], &[], &[]);
        roots.push(w.add_node(&mesh_node(part.name, mesh, skin)));
    }

    let head_at = rest_world
        .get(HEAD)
        .map_or(Vec3::ZERO, |m| m.w_axis.truncate());
    let offset = head_at - HEAD_NECK_BASE;
    let head_joint = u16::try_from(HEAD).unwrap_or(0);
    // The head's materials index its textures; parts sharing a material share it in the file.
    let textures = if head.iter().any(|p| p.material.base_color_texture.is_some()) {
        head_textures()
    } else {
        Vec::new()
    };
    let mut materials: Vec<(&Material, usize)> = Vec::new();
    for part in head {
        let material = match materials.iter().find(|(m, _)| **m == part.material) {
            Some(&(_, index)) => index,
            None => {
                let index = w.add_material(&part.material, &textures);
                materials.push((&part.material, index));
                index
            }
        };
        let mut primitive = part.primitive.clone();
        for p in &mut primitive.positions {
            *p = (Vec3::from(*p) + offset).to_array();
        }
        let n = primitive.positions.len();
        primitive.joints = vec![[head_joint, 0, 0, 0]; n];
        primitive.weights = vec![[1.0, 0.0, 0.0, 0.0]; n];
        primitive.material = Some(material);
        let names: &[&str] = if primitive.targets.is_empty() {
            &[]
        } else {
            &part.target_names
        };
        let mesh = w.add_mesh(part.name, &[primitive], names, &[]);
        roots.push(w.add_node(&mesh_node(part.name, mesh, skin)));
    }

    for clip in clips(&skeleton) {
        w.add_clip(&clip);
    }
    w.set_roots(roots);
    w.to_glb()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::asset::Asset;
    use crate::asset::mesh::MorphTarget;
    use crate::asset::scene::world_transforms;

    /// A stand-in head (not the real one): a small sphere with two named targets.
    fn fake_head_part() -> HeadPart {
        let mut primitive = Primitive::default();
        for r in 0..8 {
            let theta = r as f32 / 7.0 * std::f32::consts::PI;
            for s in 0..10 {
                let phi = s as f32 / 10.0 * TAU;
                let d = Vec3::new(
                    theta.sin() * phi.cos(),
                    theta.cos(),
                    theta.sin() * phi.sin(),
                );
                primitive.positions.push((d * 0.1).to_array());
                primitive.normals.push(d.to_array());
            }
        }
        for r in 0..7_u32 {
            for s in 0..10_u32 {
                let (a, b) = (r * 10 + s, r * 10 + (s + 1) % 10);
                primitive
                    .indices
                    .extend_from_slice(&[a, a + 10, b, b, a + 10, b + 10]);
            }
        }
        let n = primitive.positions.len();
        for k in 0..2 {
            primitive.targets.push(MorphTarget {
                positions: (0..n).map(|i| [0.0, 0.001 * (i + k) as f32, 0.0]).collect(),
                normals: Vec::new(),
            });
        }
        HeadPart {
            name: "FakeHead",
            primitive,
            target_names: vec!["jawOpen", "eyeBlinkLeft"],
            material: Material::default(),
        }
    }

    fn heads() -> Vec<HeadPart> {
        vec![fake_head_part()]
    }

    /// Signed volume of a closed mesh: positive when its triangles face outward.
    fn signed_volume(p: &Piece) -> f32 {
        p.indices
            .chunks_exact(3)
            .map(|t| {
                let [a, b, c] = [0, 1, 2].map(|k| p.positions[t[k] as usize]);
                a.dot(b.cross(c)) / 6.0
            })
            .sum()
    }

    #[test]
    fn skeleton_has_mixamo_names_and_proportions() {
        let sk = skeleton();
        assert_eq!(sk.len(), JOINT_COUNT);
        for name in [
            "mixamorig:Hips",
            "mixamorig:Spine2",
            "mixamorig:Head",
            "mixamorig:HeadTop_End",
            "mixamorig:LeftHand",
            "mixamorig:RightForeArm",
            "mixamorig:LeftToeBase",
            "mixamorig:RightFoot",
        ] {
            assert!(sk.index(name).is_some(), "{name}");
        }
        for (j, parent) in sk.parents.iter().enumerate() {
            assert_eq!(parent.is_none(), j == HIPS);
            assert!(parent.is_none_or(|p| p < j));
        }
        let world = sk.rest_world();
        let y = |j: usize| world[j].w_axis.y;
        assert!((y(HIPS) - 0.95).abs() < 0.03);
        assert!((1.55..=1.6).contains(&y(HEAD)));
        assert!((1.7..=1.82).contains(&y(HEAD_TOP_END)));
        // Left is +X, mirrored on the right.
        assert!(world[LEFT_HAND].w_axis.x > 0.1);
        assert!((world[LEFT_HAND].w_axis.x + world[RIGHT_HAND].w_axis.x).abs() < 1e-6);
    }

    #[test]
    fn body_pieces_are_closed_and_face_outward() {
        let pieces = [
            ("torso", shirt_torso()),
            ("sleeve", sleeve(LEFT)),
            ("right sleeve", sleeve(RIGHT)),
            ("hand", hand(RIGHT)),
            ("neck", neck()),
            ("pelvis", pelvis()),
            ("leg", trouser_leg(RIGHT)),
            ("shoe", shoe(LEFT)),
        ];
        for (name, piece) in pieces {
            assert!(signed_volume(&piece) > 0.0, "{name} faces inward");
            // Closed: every edge is shared by exactly two triangles.
            let mut edges = std::collections::HashMap::new();
            for t in piece.indices.chunks_exact(3) {
                for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                    *edges.entry((a.min(b), a.max(b))).or_insert(0) += 1;
                }
            }
            assert!(edges.values().all(|&n| n == 2), "{name} is not closed");
        }
        // The body spans the floor to the neck and is about as wide as a person.
        let parts = body_parts();
        let all: Vec<Vec3> = parts
            .iter()
            .flat_map(|p| p.primitive.positions.iter().map(|&q| Vec3::from(q)))
            .collect();
        let min = all.iter().fold(Vec3::MAX, |a, &b| a.min(b));
        let max = all.iter().fold(Vec3::MIN, |a, &b| a.max(b));
        assert!(min.y.abs() < 0.01, "lowest point {min}");
        assert!((1.5..1.65).contains(&max.y), "highest point {max}");
        assert!(
            (0.4..0.6).contains(&(max.x - min.x)),
            "width {}",
            max.x - min.x
        );
    }

    #[test]
    fn avatar_loads_with_skin_clips_and_weights() {
        let bytes = avatar_glb(&heads());
        let asset = Asset::from_bytes(&bytes, None).unwrap();
        assert_eq!(asset.skins.len(), 1);
        let skin = &asset.skins[0];
        for name in [
            "mixamorig:Hips",
            "mixamorig:Head",
            "mixamorig:LeftHand",
            "mixamorig:RightFoot",
        ] {
            assert!(skin.joint_names.iter().any(|n| n == name), "{name}");
        }
        assert_eq!(skin.joints, (0..JOINT_COUNT).collect::<Vec<_>>());
        let names: Vec<&str> = asset.clips.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["idle", "walk", "talk"]);
        assert!(asset.clips.iter().all(|c| c.duration_s > 0.5));
        let mut vertices = 0;
        for mesh in &asset.meshes {
            for p in &mesh.primitives {
                assert_eq!(p.joints.len(), p.positions.len());
                assert_eq!(p.weights.len(), p.positions.len());
                for (j, w) in p.joints.iter().zip(&p.weights) {
                    let sum: f32 = w.iter().sum();
                    assert!((sum - 1.0).abs() < 1e-3, "weights {w:?}");
                    assert!(w.iter().all(|&x| x >= 0.0));
                    assert!(j.iter().all(|&k| usize::from(k) < skin.joints.len()));
                }
                vertices += p.positions.len();
            }
        }
        assert!(vertices > 1000, "{vertices} vertices");
        // Every mesh is skinned; the head kept its targets and names.
        assert!(asset.instances.iter().all(|g| g.skin == Some(0)));
        let head = asset
            .meshes
            .iter()
            .find(|m| m.name.as_deref() == Some("FakeHead"))
            .unwrap();
        assert_eq!(head.target_count(), 2);
        assert_eq!(head.target_names[0].raw.as_deref(), Some("jawOpen"));
        assert!(asset.face_rig.arkit_coverage() >= 2);
        assert_eq!(bytes, avatar_glb(&heads()), "bytes differ between calls");
    }

    #[test]
    fn avatar_with_the_project_head_has_the_arkit_face() {
        let parts = super::super::head::head_parts();
        let bytes = avatar_glb(&parts);
        let asset = Asset::from_bytes(&bytes, None).unwrap();
        assert_eq!(asset.face_rig.arkit_coverage(), 52);
        assert_eq!(asset.meshes.len(), body_parts().len() + parts.len());
        let rest: Vec<Transform> = asset.nodes.iter().map(|n| n.transform).collect();
        let world = world_transforms(&asset.nodes, &rest);
        let head_at = world[HEAD].w_axis.truncate();
        let neck_base = super::super::head::landmarks().neck_base;
        assert!(
            neck_base.distance(HEAD_NECK_BASE) < 0.03,
            "the head's neck base is at {neck_base}"
        );
        for part in &parts {
            let mesh = asset
                .meshes
                .iter()
                .find(|m| m.name.as_deref() == Some(part.name))
                .unwrap();
            let p = &mesh.primitives[0];
            assert_eq!(p.targets.len(), part.primitive.targets.len());
            assert!(p.joints.iter().all(|j| usize::from(j[0]) == HEAD));
            assert!(p.weights.iter().all(|w| w[0] == 1.0));
            for (q, original) in p.positions.iter().zip(&part.primitive.positions) {
                let expected = Vec3::from(*original) - HEAD_NECK_BASE + head_at;
                assert!(Vec3::from(*q).abs_diff_eq(expected, 1e-5));
            }
        }
        // Textured head materials keep their textures.
        assert!(asset.textures.iter().any(Option::is_some));
    }

    #[test]
    fn walk_moves_the_feet_in_place() {
        let asset = Asset::from_bytes(&avatar_glb(&heads()), None).unwrap();
        let rest: Vec<Transform> = asset.nodes.iter().map(|n| n.transform).collect();
        let rest_world = world_transforms(&asset.nodes, &rest);
        let walk = asset.clips.iter().find(|c| c.name == "walk").unwrap();
        let foot = |t: f32| {
            let mut locals = rest.clone();
            let mut weights = vec![Vec::new(); locals.len()];
            walk.sample(t, true, &mut locals, &mut weights);
            let world = world_transforms(&asset.nodes, &locals);
            (
                world[LEFT_FOOT].w_axis.truncate(),
                world[RIGHT_FOOT].w_axis.truncate(),
                locals[HIPS].translation,
            )
        };
        let (left, right, hips) = foot(0.25);
        let at_rest = rest_world[LEFT_FOOT].w_axis.truncate();
        assert!(left.distance(at_rest) > 0.05, "{left} vs rest {at_rest}");
        // Left forward, right back, a quarter of the way through the stride.
        assert!(left.z > 0.1 && right.z < -0.1, "{left} {right}");
        assert!((hips.z - rest[HIPS].translation.z).abs() < 1e-6);
        // Half a stride later the feet have swapped.
        let (left2, right2, _) = foot(0.75);
        assert!(left2.z < -0.1 && right2.z > 0.1, "{left2} {right2}");
        // Looping: the end is the start.
        let (a, _, _) = foot(0.0);
        let (b, _, _) = foot(walk.duration_s);
        assert!(a.distance(b) < 1e-4);
    }

    #[test]
    fn head_vertices_follow_the_head_joint() {
        let asset = Asset::from_bytes(&avatar_glb(&heads()), None).unwrap();
        let skin = &asset.skins[0];
        let head_mesh = asset
            .meshes
            .iter()
            .position(|m| m.name.as_deref() == Some("FakeHead"))
            .unwrap();
        let p = &asset.meshes[head_mesh].primitives[0];
        // The head's neck base sits on the Head joint.
        let rest: Vec<Transform> = asset.nodes.iter().map(|n| n.transform).collect();
        let world = world_transforms(&asset.nodes, &rest);
        let head_at = world[HEAD].w_axis.truncate();
        let lowest = p.positions.iter().map(|q| q[1]).fold(f32::MAX, f32::min);
        assert!((lowest - (head_at.y - HEAD_NECK_BASE.y - 0.1)).abs() < 1e-4);
        assert!(p.joints.iter().all(|j| usize::from(j[0]) == HEAD));
        let mut palette = Vec::new();
        skin.palette_into(&world, &mut palette);
        for q in p.positions.iter().take(20) {
            let v = Vec3::from(*q);
            assert!(palette[HEAD].transform_point3(v).abs_diff_eq(v, 1e-5));
        }
        // In the talk clip the head turns, and its vertices turn with the joint.
        let talk = asset.clips.iter().find(|c| c.name == "talk").unwrap();
        let mut locals = rest.clone();
        talk.sample(
            1.3,
            true,
            &mut locals,
            &mut vec![Vec::new(); asset.nodes.len()],
        );
        let posed = world_transforms(&asset.nodes, &locals);
        skin.palette_into(&posed, &mut palette);
        let v = Vec3::from(p.positions[0]);
        let expected = posed[HEAD].transform_point3(world[HEAD].inverse().transform_point3(v));
        let moved = palette[HEAD].transform_point3(v);
        assert!(moved.abs_diff_eq(expected, 1e-4));
        assert!(
            moved.distance(v) > 0.005,
            "the head did not move: {moved} {v}"
        );
    }

    #[test]
    fn clips_loop_and_keep_the_root_in_place() {
        let sk = skeleton();
        for clip in clips(&sk) {
            assert!(clip.duration_s > 0.5);
            for channel in &clip.channels {
                let w = channel.width;
                let first = &channel.values[..w];
                let last = &channel.values[channel.values.len() - w..];
                for (a, b) in first.iter().zip(last) {
                    assert!((a - b).abs() < 1e-4, "{} node {}", clip.name, channel.node);
                }
                if channel.property == Property::Translation {
                    assert_eq!(channel.node, HIPS);
                    for key in channel.values.chunks_exact(3) {
                        assert!(key[2].abs() < 1e-6, "{}: hips move along z", clip.name);
                        assert!((key[1] - 0.95).abs() < 0.06);
                    }
                }
            }
        }
    }
}
