//! Assembly: every part built and given its targets, and the landmarks.

use super::*;
use crate::arkit::{EYE_LOOK_DOWN_DEG, EYE_LOOK_SIDE_DEG, EYE_LOOK_UP_DEG};

pub(super) struct Build {
    pub(super) parts: Vec<HeadPart>,
    pub(super) landmarks: HeadLandmarks,
}

/// Jaw movement of a rigid point following the jaw with weight `w`.
pub(super) fn jaw_delta(target: ArkitTarget, p: Vec3, w: f32) -> Vec3 {
    match target {
        ArkitTarget::JawOpen => rot_x(p, HINGE, JAW_OPEN * w) - p,
        ArkitTarget::JawForward => Vec3::Z * (JAW_FORWARD * w),
        ArkitTarget::JawLeft => Vec3::X * (JAW_SHIFT * w),
        ArkitTarget::JawRight => Vec3::X * (-JAW_SHIFT * w),
        _ => Vec3::ZERO,
    }
}

pub(super) fn build() -> Build {
    let lay = layout();
    let skin = build_skin(&lay);
    let skin_normals = smooth_normals(&skin.rest, &skin.indices, Some(&skin.weld));
    let skin_deltas: Vec<(ArkitTarget, Vec<Vec3>)> = ArkitTarget::ALL
        .iter()
        .map(|&t| (t, skin_target(t, &skin, &skin_normals, &lay)))
        .collect();
    let skin_material = material("skin", SKIN_RGB, Some(SKIN_TEXTURE), false, SKIN_ROUGHNESS);
    let skin_shape = Shape {
        pos: skin.rest.clone(),
        uvs: skin.uvs.clone(),
        indices: skin.indices.clone(),
    };
    let mut parts = Vec::new();

    // Eyes.
    let mut pupil_centres = [Vec3::ZERO; 2];
    let eye_parts: [(&'static str, &'static str, &'static str); 2] = [
        ("eye_left", "iris_left", "pupil_left"),
        ("eye_right", "iris_right", "pupil_right"),
    ];
    for (e, &(sclera_name, iris_name, pupil_name)) in eye_parts.iter().enumerate() {
        let c = eye_centre(e);
        let s = SIDES[e];
        let iris_angle = (IRIS_R / EYE_R).asin();
        let pupil_angle = (PUPIL_R / EYE_R).asin();
        let mut sclera = sphere_cap(c, EYE_R, 0.0, std::f32::consts::PI, 16, 28);
        sclera.uvs.clear();
        let iris = sphere_cap(c, EYE_R + 0.00012, pupil_angle * 0.9, iris_angle, 4, 40);
        let mut pupil = sphere_cap(c, EYE_R + 0.00025, 0.0, pupil_angle, 2, 24);
        pupil.uvs.clear();
        pupil_centres[e] = c + Vec3::Z * (EYE_R + 0.00025);
        let look = |shape: &Shape| -> Vec<(ArkitTarget, Vec<Vec3>)> {
            let (down, inward, outward, up) = if e == 0 {
                (
                    ArkitTarget::EyeLookDownLeft,
                    ArkitTarget::EyeLookInLeft,
                    ArkitTarget::EyeLookOutLeft,
                    ArkitTarget::EyeLookUpLeft,
                )
            } else {
                (
                    ArkitTarget::EyeLookDownRight,
                    ArkitTarget::EyeLookInRight,
                    ArkitTarget::EyeLookOutRight,
                    ArkitTarget::EyeLookUpRight,
                )
            };
            let moved = |f: &dyn Fn(Vec3) -> Vec3| shape.pos.iter().map(|&p| f(p) - p).collect();
            vec![
                (down, moved(&|p| rot_x(p, c, EYE_LOOK_DOWN_DEG * DEG))),
                (
                    inward,
                    moved(&|p| rot_y(p, c, -s * EYE_LOOK_SIDE_DEG * DEG)),
                ),
                (
                    outward,
                    moved(&|p| rot_y(p, c, s * EYE_LOOK_SIDE_DEG * DEG)),
                ),
                (up, moved(&|p| rot_x(p, c, -EYE_LOOK_UP_DEG * DEG))),
            ]
        };
        parts.push(part(
            sclera_name,
            &sclera,
            None,
            look(&sclera),
            material("sclera", [0.95, 0.94, 0.92], None, false, EYE_ROUGHNESS),
        ));
        parts.push(part(
            iris_name,
            &iris,
            None,
            look(&iris),
            material("iris", IRIS_RGB, Some(IRIS_TEXTURE), false, EYE_ROUGHNESS),
        ));
        parts.push(part(
            pupil_name,
            &pupil,
            None,
            look(&pupil),
            material("pupil", [0.02, 0.02, 0.02], None, false, EYE_ROUGHNESS),
        ));
    }

    // Mouth interior, stitched to the lips' folds.
    let seam_mid = skin.rest[skin.seam_upper[skin.seam_upper.len() / 2]];
    let (bag, follow, bag_jaw) = mouth_bag(&skin, seam_mid);
    let rim_count = skin.rim.len();
    let bag_deltas: Vec<(ArkitTarget, Vec<Vec3>)> = skin_deltas
        .iter()
        .map(|(t, d)| {
            let moved = bag
                .pos
                .iter()
                .enumerate()
                .map(|(i, &p)| {
                    let rim = skin.rim[i % rim_count].0;
                    let lips = d[rim] * follow[i];
                    if i < rim_count {
                        lips
                    } else {
                        lips + jaw_delta(*t, p, bag_jaw[i]) * (1.0 - follow[i])
                    }
                })
                .collect();
            (*t, moved)
        })
        .collect();

    // Teeth and tongue.
    let upper_teeth = teeth(true, seam_mid.y, seam_mid.z - 0.0088);
    let lower_teeth = teeth(false, seam_mid.y, seam_mid.z - 0.0112);
    let tongue_shape = tongue(seam_mid.y);
    let jaw_targets = [
        ArkitTarget::JawOpen,
        ArkitTarget::JawForward,
        ArkitTarget::JawLeft,
        ArkitTarget::JawRight,
    ];
    let rigid_jaw = |shape: &Shape| -> Vec<(ArkitTarget, Vec<Vec3>)> {
        jaw_targets
            .iter()
            .map(|&t| (t, shape.pos.iter().map(|&p| jaw_delta(t, p, 1.0)).collect()))
            .collect()
    };
    let mut tongue_deltas = rigid_jaw(&tongue_shape);
    let tongue_front = tongue_shape.pos[0].z;
    let tongue_back = tongue_shape.pos[tongue_shape.pos.len() - 1].z;
    tongue_deltas.push((
        ArkitTarget::TongueOut,
        tongue_shape
            .pos
            .iter()
            .map(|&p| {
                let u = (p.z - tongue_back) / (tongue_front - tongue_back);
                let w = smoothstep(0.15, 1.0, u);
                Vec3::new(-0.15 * p.x * w, 0.006 * w, 0.040 * w)
            })
            .collect(),
    ));
    let tongue_tip = 0;

    parts.push(part(
        "teeth_upper",
        &upper_teeth,
        None,
        Vec::new(),
        material("teeth", [0.93, 0.90, 0.82], None, false, 0.3),
    ));
    parts.push(part(
        "teeth_lower",
        &lower_teeth,
        None,
        rigid_jaw(&lower_teeth),
        material("teeth", [0.93, 0.90, 0.82], None, false, 0.3),
    ));
    parts.push(part(
        TONGUE_PART,
        &tongue_shape,
        None,
        tongue_deltas,
        material("tongue", [0.80, 0.42, 0.45], None, false, WET_ROUGHNESS),
    ));
    parts.push(part(
        "mouth",
        &bag,
        None,
        bag_deltas,
        material("mouth", [0.32, 0.09, 0.10], None, true, WET_ROUGHNESS),
    ));
    let ears = {
        let (l, r) = (ear(1.0), ear(-1.0));
        let mut s = l.clone();
        let off = s.pos.len() as u32;
        s.pos.extend(&r.pos);
        s.uvs.extend(&r.uvs);
        s.indices.extend(r.indices.iter().map(|i| i + off));
        s
    };
    parts.push(part("ears", &ears, None, Vec::new(), skin_material.clone()));
    parts.insert(
        0,
        part(
            SKIN_PART,
            &skin_shape,
            Some(&skin.weld),
            skin_deltas,
            skin_material,
        ),
    );

    let middle_half = |e: usize, upper: bool| -> Vec<usize> {
        skin.lid_edges[e]
            .iter()
            .filter(|(_, _, t)| (t - 0.5).abs() <= 0.25)
            .map(|&(u, d, _)| if upper { u } else { d })
            .collect()
    };
    let landmarks = HeadLandmarks {
        eye_centres: [eye_centre(0), eye_centre(1)],
        pupil_centres,
        upper_lid: [middle_half(0, true), middle_half(1, true)],
        lower_lid: [middle_half(0, false), middle_half(1, false)],
        upper_lip_inner: skin.seam_upper.iter().rev().copied().collect(),
        lower_lip_inner: skin.seam_lower.iter().rev().copied().collect(),
        lip_corners: skin.corners,
        upper_lip_front: skin.upper_lip_front,
        lower_lip_front: skin.lower_lip_front,
        tongue_tip,
        chin: skin.chin,
        nose_tip: skin.nose_tip,
        jaw_hinge: HINGE,
        neck_base: Vec3::new(0.0, NECK_Y, NECK_Z),
    };
    Build { parts, landmarks }
}
