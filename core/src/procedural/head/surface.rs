//! The head's shape: the skull-and-jaw chart the skin's rays hit, and the relief of the
//! face (nose, brows, cheeks, lips, chin) pushed out from it.

use super::*;

pub(super) fn ray_dir(lon: f32, alpha: f32) -> Vec3 {
    Vec3::new(
        alpha.cos() * lon.sin(),
        alpha.sin(),
        alpha.cos() * lon.cos(),
    )
}

pub(super) fn cranium(p: Vec3) -> f32 {
    // A little fuller than an ellipsoid: a broad forehead and crown.
    let q = ((p - CRANIUM_C) / CRANIUM_A).abs();
    (q.x.powf(2.5) + q.y.powf(2.4) + q.z.powf(2.4)).powf(1.0 / 1.2) - 1.0
}

pub(super) fn face_shape(p: Vec3) -> f32 {
    // The jaw narrows towards the chin.
    let ax = FACE_A.x - 0.018 * smoothstep(-0.030, -0.100, p.y);
    // Flatter at the top and bottom than an ellipsoid: a square jaw and a forward chin.
    let (x, y, z) = (
        p.x / ax,
        ((p.y - FACE_C.y) / FACE_A.y).abs(),
        (p.z - FACE_C.z) / FACE_A.z,
    );
    x * x + z * z + y * y * y - 1.0
}

pub(super) fn exit_distance(shape: fn(Vec3) -> f32, d: Vec3) -> f32 {
    let (mut lo, mut hi) = (0.0_f32, 0.3_f32);
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        if shape(C0 + d * mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The smooth skull-and-jaw surface hit by the ray (lon, alpha): the chart features are laid on.
pub(super) fn chart(lon: f32, alpha: f32) -> Vec3 {
    let d = ray_dir(lon, alpha);
    C0 + d * smax(
        exit_distance(cranium, d),
        exit_distance(face_shape, d),
        0.015,
    )
}

pub(super) fn lon_of(p: Vec3) -> f32 {
    p.x.atan2(p.z - C0.z)
}

/// How much of the face a chart point is in (0 at the back of the head).
pub(super) fn frontness(b: Vec3) -> f32 {
    1.0 - smoothstep(55.0 * DEG, 85.0 * DEG, lon_of(b).abs())
}

/// Mouth coordinates of a chart point: x over the half-width of the mouth, and height above the
/// seam in millimetres.
pub(super) fn mouth_coords(b: Vec3, lay: &Layout) -> (f32, f32) {
    let seam = chart(lon_of(b), lay.alpha_mouth);
    (b.x / lay.x_mouth, (b.y - seam.y) / MM)
}

/// Height of the upper lip's red part (mm) at x over the mouth's half-width.
pub(super) fn upper_lip_height(xn: f32) -> f32 {
    let a = xn.abs();
    let bow = 6.6 + 1.0 * gauss(a - 0.22, 0.12) - 0.7 * gauss(a, 0.07);
    (bow * (1.0 - a.powf(2.5)).max(0.0).powf(0.6)).max(0.4)
}

pub(super) fn lower_lip_height(xn: f32) -> f32 {
    (8.8 * (1.0 - xn.abs().powf(2.2)).max(0.0).powf(0.55)).max(0.4)
}

/// The lips' relief (mm) at mouth coordinates.
pub(super) fn lips_relief(xn: f32, my: f32) -> f32 {
    if xn.abs() >= 1.0 {
        return 0.0;
    }
    let q = 1.0 - xn * xn;
    let seam = 1.2 * q;
    if my >= 0.0 {
        let h = upper_lip_height(xn);
        let s = my / h;
        let f = if s <= 0.5 {
            (std::f32::consts::PI * s).sin()
        } else if s <= 1.0 {
            1.0 - 0.25 * (2.0 * s - 1.0) * (2.0 * s - 1.0)
        } else {
            0.75 * gauss((s - 1.0) * h, 3.5)
        };
        seam + 3.2 * q * f
    } else {
        let h = lower_lip_height(xn);
        let s = -my / h;
        let f = if s <= 0.45 {
            (std::f32::consts::PI * s / 0.9).sin()
        } else if s <= 1.0 {
            let u = (s - 0.45) / 0.55;
            1.0 - 0.35 * u * u
        } else {
            0.65 * gauss((s - 1.0) * h, 4.0)
        };
        seam + 3.8 * q * f
    }
}

pub(super) fn nose_relief(x: f32, y: f32) -> f32 {
    let profile = curve(
        &[
            (-0.036, 0.0),
            (-0.032, 1.0),
            (-0.029, 5.0),
            (-0.025, 13.0),
            (-0.021, 17.5),
            (-0.017, 18.5),
            (-0.010, 14.5),
            (0.000, 8.0),
            (0.015, 3.5),
            (0.026, 1.5),
            (0.036, 0.0),
        ],
        y,
    );
    let width = curve(
        &[
            (-0.032, 0.0080),
            (-0.026, 0.0085),
            (-0.018, 0.0075),
            (-0.010, 0.0058),
            (0.005, 0.0044),
            (0.018, 0.0045),
            (0.030, 0.0060),
        ],
        y,
    );
    let bridge = profile.max(0.0) * MM * (-(x.abs() / width).powf(2.2)).exp();
    let alae = 6.0 * MM * gauss2(v2(x.abs(), y), v2(0.0115, -0.0235), v2(0.0055, 0.0050));
    smax(bridge, alae, 0.002)
}

/// Relief (metres, along the ray) over the chart: nose, brows, cheeks, sockets, lips, chin.
pub(super) fn relief(b: Vec3, lay: &Layout) -> f32 {
    let front = frontness(b);
    if front <= 0.0 {
        return 0.0;
    }
    let (x, y) = (b.x, b.y);
    let ax = x.abs();
    let mut h = nose_relief(x, y);
    // Brow ridge, a little lower in the middle.
    h += 3.0
        * MM
        * gauss(y - 0.036, 0.008)
        * (1.0 - smoothstep(0.045, 0.068, ax))
        * (1.0 - 0.4 * gauss(x, 0.008));
    h += 3.5 * MM * gauss2(v2(ax, y), v2(0.046, 0.0), v2(0.014, 0.011));
    h -= 5.0 * MM * gauss2(v2(ax, y), v2(EYE_X, EYE_Y), v2(0.013, 0.011));
    h -= 5.0
        * MM
        * gauss2(
            v2(ax, y),
            v2(EYE_X - 0.012, EYE_Y - 0.001),
            v2(0.005, 0.007),
        );
    h -= 2.0 * MM * gauss2(v2(ax, y), v2(0.062, 0.035), v2(0.012, 0.014));
    // The muzzle over the teeth, the lips, the chin and the groove above it.
    h += 3.0 * MM * gauss2(v2(x, y), v2(0.0, -0.048), v2(0.026, 0.022));
    let (xn, my) = mouth_coords(b, lay);
    h += lips_relief(xn, my) * MM;
    h += 7.0 * MM * gauss2(v2(x, y), v2(0.0, -0.086), v2(0.015, 0.011));
    h -= 1.5 * MM * gauss2(v2(x, y), v2(0.0, -0.068), v2(0.012, 0.0035));
    h * front
}
