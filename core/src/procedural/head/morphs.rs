//! The skin's blend shapes: weights over the face and the targets' displacement fields.

use super::*;

/// How much a skin vertex follows the jaw.
pub(super) fn jaw_weight(v: &SkinVertex, lay: &Layout) -> f32 {
    let a = v.lon.abs();
    let lon_c = lay.lon_mouth;
    let ramp = smoothstep(lon_c, 80.0 * DEG, a);
    let boundary = lay.alpha_mouth + (-6.0 * DEG - lay.alpha_mouth) * ramp;
    let width = 4.0 * DEG + 10.0 * DEG * smoothstep(lon_c, lon_c + 30.0 * DEG, a);
    let d = v.alpha - boundary;
    let outside = smoothstep(0.5 * width, -0.5 * width, d);
    // Around the mouth the slit separates the lips; towards the corners both lips share the
    // jaw's motion, so the mouth opens into a rounded shape.
    let (xn, my) = (v.xn, v.my);
    let k = smoothstep(1.0, 0.55, xn.abs());
    let shared = 0.5 - 0.5 * k;
    let around = match v.side {
        Side::Upper => shared * (1.0 - smoothstep(0.0, 8.0, my)),
        Side::Lower => 1.0 - shared * (1.0 - smoothstep(0.0, -12.0, my)),
    };
    let w = around + (outside - around) * smoothstep(1.0, 1.8, xn.abs());
    w * (1.0 - smoothstep(85.0 * DEG, 110.0 * DEG, a)) * (1.0 - v.neck)
}

/// The lips (1 on the red of the lips and their inner folds), fading over `reach` mm.
pub(super) fn lip_weight(v: &SkinVertex, lay: &Layout, reach: f32) -> f32 {
    let (xn, my) = (v.xn, v.my);
    let dx = (xn.abs() - 1.0).max(0.0) * lay.x_mouth / MM;
    let dy = if my >= 0.0 {
        (my - upper_lip_height(xn.clamp(-1.0, 1.0))).max(0.0)
    } else {
        (-my - lower_lip_height(xn.clamp(-1.0, 1.0))).max(0.0)
    };
    (-(dx * dx + dy * dy) / (reach * reach)).exp() * v.front
}

/// 1 on the given side of the mouth (s = 1: left), 0 on the other, 0.5 in the middle.
pub(super) fn side_weight(xn: f32, s: f32) -> f32 {
    smoothstep(-0.4, 0.4, xn * s)
}

/// For a term that moves one lip only: 1 along the slit, fading to 0 at and beyond the corners
/// near the seam's line, where the two lips are one surface.
pub(super) fn one_lip(xn: f32, my: f32) -> f32 {
    (1.0 - xn * xn)
        .max(0.0)
        .sqrt()
        .max(smoothstep(0.0, 6.0, my.abs()))
}

pub(super) fn corner_point(lay: &Layout, s: f32) -> Vec2 {
    lay.corners[if s > 0.0 { 0 } else { 1 }]
}

pub(super) fn bxy(b: Vec3) -> Vec2 {
    v2(b.x, b.y)
}

/// Height of the middle of the eyebrow above a chart point's x.
pub(super) fn brow_line(ax: f32) -> f32 {
    let xr = ((ax - 0.012) / 0.044).clamp(0.0, 1.0);
    EYE_Y + 0.018 + 0.0055 * (std::f32::consts::PI * 0.75 * xr.powf(0.8)).sin() - 0.004 * xr * xr
}

pub(super) fn brow_weight(b: Vec3, s: f32, front: f32) -> f32 {
    let ax = b.x * s;
    gauss(b.y - brow_line(ax.abs()), 0.010)
        * smoothstep(0.0, 0.012, ax)
        * (1.0 - smoothstep(0.058, 0.075, ax))
        * front
}

pub(super) fn skin_target(
    target: ArkitTarget,
    skin: &Skin,
    normals: &[Vec3],
    lay: &Layout,
) -> Vec<Vec3> {
    use ArkitTarget as T;
    let lids_for = |e: usize, lids: Lids| {
        let mut all = [Lids::default(); 2];
        all[e] = lids;
        all
    };
    let eye_lids = match target {
        T::EyeBlinkLeft | T::EyeBlinkRight => Some(Lids {
            blink: 1.0,
            ..Lids::default()
        }),
        T::EyeWideLeft | T::EyeWideRight => Some(Lids {
            wide: 1.0,
            ..Lids::default()
        }),
        T::EyeSquintLeft | T::EyeSquintRight => Some(Lids {
            squint: 1.0,
            ..Lids::default()
        }),
        T::EyeLookUpLeft | T::EyeLookUpRight => Some(Lids {
            up: 1.0,
            ..Lids::default()
        }),
        T::EyeLookDownLeft | T::EyeLookDownRight => Some(Lids {
            down: 1.0,
            ..Lids::default()
        }),
        T::CheekSquintLeft | T::CheekSquintRight => Some(Lids {
            cheek: 1.0,
            ..Lids::default()
        }),
        _ => None,
    };
    let left = matches!(
        target,
        T::EyeBlinkLeft
            | T::EyeWideLeft
            | T::EyeSquintLeft
            | T::EyeLookUpLeft
            | T::EyeLookDownLeft
            | T::CheekSquintLeft
    );
    let mut deltas: Vec<Vec3> = match eye_lids {
        Some(lids) => {
            let all = lids_for(if left { 0 } else { 1 }, lids);
            skin.verts
                .iter()
                .zip(&skin.rest)
                .map(|(v, &p)| eye_position(v, &skin.eyes, &all) - p)
                .collect()
        }
        None => vec![Vec3::ZERO; skin.verts.len()],
    };
    for (i, v) in skin.verts.iter().enumerate() {
        let p = skin.rest[i];
        deltas[i] += skin_field(target, v, p, normals[i], lay);
    }
    deltas
}

/// The smooth displacement fields of the targets (lids excepted).
pub(super) fn skin_field(
    target: ArkitTarget,
    v: &SkinVertex,
    p: Vec3,
    normal: Vec3,
    lay: &Layout,
) -> Vec3 {
    use ArkitTarget as T;
    let b = v.b;
    let mm = |x: f32, y: f32, z: f32| Vec3::new(x, y, z) * MM;
    let (xn, my) = (v.xn, v.my);
    let upper = v.side == Side::Upper;
    let jaw = || jaw_weight(v, lay);
    let side_of = |t: T, left: T| if t == left { 1.0 } else { -1.0 };
    match target {
        T::JawOpen => rot_x(p, HINGE, jaw() * JAW_OPEN) - p,
        T::JawForward => mm(0.0, 0.0, JAW_FORWARD / MM) * jaw(),
        T::JawLeft | T::JawRight => Vec3::X * (side_of(target, T::JawLeft) * JAW_SHIFT * jaw()),
        T::MouthClose => {
            let full = rot_x(p, HINGE, JAW_OPEN) - p;
            let moved = rot_x(p, HINGE, jaw() * JAW_OPEN) - p;
            (full * CLOSE_MEET - moved) * lip_weight(v, lay, 7.0)
        }
        T::MouthSmileLeft | T::MouthSmileRight => {
            let s = side_of(target, T::MouthSmileLeft);
            let c = corner_point(lay, s);
            let w = (gauss2(bxy(b), c, v2(0.011, 0.011))
                + 0.5 * gauss2(bxy(b), c + v2(s * 0.008, 0.014), v2(0.014, 0.012)))
            .min(1.0)
                * v.front;
            let cheek = gauss2(bxy(b), v2(s * 0.040, -0.008), v2(0.014, 0.012)) * v.front;
            mm(s * 3.5, 5.5, -2.5) * w + mm(s * 0.5, 2.0, 1.5) * cheek
        }
        T::MouthFrownLeft | T::MouthFrownRight => {
            let s = side_of(target, T::MouthFrownLeft);
            let c = corner_point(lay, s);
            let w = (gauss2(bxy(b), c, v2(0.010, 0.010))
                + 0.6 * gauss2(bxy(b), c + v2(s * 0.004, -0.012), v2(0.010, 0.012)))
            .min(1.0)
                * v.front;
            mm(s * 1.0, -4.5, -0.5) * w
        }
        T::MouthDimpleLeft | T::MouthDimpleRight => {
            let s = side_of(target, T::MouthDimpleLeft);
            let w = gauss2(bxy(b), corner_point(lay, s), v2(0.011, 0.011)) * v.front;
            mm(s * 2.5, 0.5, -3.5) * w
        }
        T::MouthStretchLeft | T::MouthStretchRight => {
            let s = side_of(target, T::MouthStretchLeft);
            let w = gauss2(bxy(b), corner_point(lay, s), v2(0.011, 0.011)) * v.front;
            let lower = if upper {
                0.0
            } else {
                lip_weight(v, lay, 8.0) * side_weight(xn, s) * one_lip(xn, my)
            };
            mm(s * 4.5, -2.0, -1.5) * w + mm(0.0, -1.5, 0.0) * lower
        }
        T::MouthPressLeft | T::MouthPressRight => {
            let s = side_of(target, T::MouthPressLeft);
            let w = lip_weight(v, lay, 5.0) * side_weight(xn, s);
            mm(0.0, -0.3 * my, -1.0) * w
        }
        T::MouthLowerDownLeft | T::MouthLowerDownRight => {
            if upper {
                return Vec3::ZERO;
            }
            let s = side_of(target, T::MouthLowerDownLeft);
            let taper = (1.0 - xn * xn).max(0.0).sqrt();
            let w = lip_weight(v, lay, 12.0) * side_weight(xn, s) * taper;
            mm(s * 0.5, -4.0, 0.8) * w
        }
        T::MouthUpperUpLeft | T::MouthUpperUpRight => {
            if !upper {
                return Vec3::ZERO;
            }
            let s = side_of(target, T::MouthUpperUpLeft);
            let taper = (1.0 - xn * xn).max(0.0).sqrt();
            let w = lip_weight(v, lay, 10.0) * side_weight(xn, s) * taper;
            mm(s * 0.3, 4.0, 0.8) * w
        }
        T::MouthRollLower => {
            if upper {
                return Vec3::ZERO;
            }
            let w = lip_weight(v, lay, 5.0) * one_lip(xn, my);
            mm(0.0, 0.5 + 0.55 * (-my).max(0.0), -4.0) * w
        }
        T::MouthRollUpper => {
            if !upper {
                return Vec3::ZERO;
            }
            let w = lip_weight(v, lay, 5.0) * one_lip(xn, my);
            mm(0.0, -(0.5 + 0.55 * my.max(0.0)), -4.0) * w
        }
        T::MouthShrugLower => {
            let w = if upper {
                lip_weight(v, lay, 5.0) * gauss(my, 4.0)
            } else {
                lip_weight(v, lay, 5.0 + 10.0 * smoothstep(0.0, -8.0, my))
            };
            mm(0.0, 2.5, 1.5) * w
        }
        T::MouthShrugUpper => {
            let w = if upper {
                lip_weight(v, lay, 5.0 + 7.0 * smoothstep(0.0, 8.0, my))
            } else {
                lip_weight(v, lay, 5.0) * gauss(my, 4.0)
            };
            mm(0.0, 2.0, 1.2) * w
        }
        T::MouthFunnel => {
            // Lips pushed out and drawn in, parted into a small round opening.
            let w = lip_weight(v, lay, 7.0);
            let open = (1.0 - xn * xn).max(0.0);
            let near = gauss(my, 5.0) * open;
            let dy = if upper { 1.6 * near } else { -1.9 * near };
            let dz = 6.5 * w * (0.6 + 0.4 * open) + 1.5 * gauss(my, 3.0) * open * w;
            mm(0.0, dy * w, dz) + Vec3::X * (-0.3 * b.x * w)
        }
        T::MouthPucker => {
            let w = lip_weight(v, lay, 8.0);
            let q = (1.0 - xn * xn).max(0.0);
            mm(0.0, -0.25 * my * w, 7.0 * w * (0.5 + 0.5 * q)) + Vec3::X * (-0.38 * b.x * w)
        }
        T::MouthLeft | T::MouthRight => {
            let s = side_of(target, T::MouthLeft);
            let w = lip_weight(v, lay, 12.0);
            mm(s * 6.0, 0.0, -0.5) * w
        }
        T::CheekPuff => {
            let w = (gauss2(bxy(b), v2(0.045, -0.038), v2(0.016, 0.018))
                + gauss2(bxy(b), v2(-0.045, -0.038), v2(0.016, 0.018)))
                * v.front;
            normal * (9.0 * MM * w) + mm(0.0, 0.0, 1.5) * lip_weight(v, lay, 5.0)
        }
        T::CheekSquintLeft | T::CheekSquintRight => {
            let s = side_of(target, T::CheekSquintLeft);
            let w = gauss2(bxy(b), v2(s * 0.038, -0.002), v2(0.014, 0.010)) * v.front;
            mm(0.0, 3.0, 1.0) * w
        }
        T::NoseSneerLeft | T::NoseSneerRight => {
            let s = side_of(target, T::NoseSneerLeft);
            let f = v.front;
            let wing = gauss2(bxy(b), v2(s * 0.012, -0.020), v2(0.006, 0.008)) * f;
            let wrinkle = gauss2(bxy(b), v2(s * 0.009, 0.005), v2(0.005, 0.008)) * f;
            let lip = if upper {
                lip_weight(v, lay, 10.0)
                    * side_weight(xn, s)
                    * gauss(my, 12.0)
                    * smoothstep(0.0, 4.0, my)
            } else {
                0.0
            };
            let brow = gauss2(bxy(b), v2(s * 0.014, brow_line(0.014)), v2(0.010, 0.006)) * f;
            mm(0.0, 3.0, -0.5) * wing
                + mm(0.0, 2.0, 0.5) * wrinkle
                + mm(0.0, 1.0, 0.0) * lip
                + mm(0.0, -1.5, 0.0) * brow
        }
        T::BrowDownLeft | T::BrowDownRight => {
            let s = side_of(target, T::BrowDownLeft);
            let w = brow_weight(b, s, v.front);
            let inner = 1.0 - smoothstep(0.015, 0.045, b.x * s);
            mm(-s * 1.5 * inner, -4.0, 0.8) * w
        }
        T::BrowInnerUp => {
            let f = v.front;
            let w = (gauss2(bxy(b), v2(0.015, brow_line(0.015)), v2(0.013, 0.013))
                + gauss2(bxy(b), v2(-0.015, brow_line(0.015)), v2(0.013, 0.013)))
            .min(1.0)
                * f;
            mm(0.0, 5.0, 0.3) * w
        }
        T::BrowOuterUpLeft | T::BrowOuterUpRight => {
            let s = side_of(target, T::BrowOuterUpLeft);
            let w = gauss2(bxy(b), v2(s * 0.045, brow_line(0.045)), v2(0.014, 0.012)) * v.front;
            mm(0.0, 5.0, 0.0) * w
        }
        T::EyeSquintLeft | T::EyeSquintRight => {
            let s = side_of(target, T::EyeSquintLeft);
            let f = v.front;
            let cheek = gauss2(bxy(b), v2(s * 0.033, 0.0), v2(0.012, 0.008)) * f;
            let crease = gauss2(bxy(b), v2(s * 0.052, 0.018), v2(0.008, 0.010)) * f;
            mm(0.0, 1.5, 0.5) * cheek + mm(-s * 1.0, 0.0, 0.0) * crease
        }
        T::EyeWideLeft | T::EyeWideRight => {
            let s = side_of(target, T::EyeWideLeft);
            mm(0.0, 1.5, 0.0) * brow_weight(b, s, v.front)
        }
        T::TongueOut => {
            let taper = (1.0 - xn * xn).max(0.0).sqrt();
            if upper {
                mm(0.0, 1.0, 0.3) * lip_weight(v, lay, 5.0) * gauss(my, 5.0) * taper
            } else {
                mm(0.0, -3.0, 1.0) * lip_weight(v, lay, 10.0) * taper
            }
        }
        _ => Vec3::ZERO,
    }
}
