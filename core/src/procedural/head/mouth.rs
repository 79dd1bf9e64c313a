//! The mouth: the teeth, the tongue and the mouth interior.

use super::*;

/// Arch of teeth: `upper` hang from above.
pub(super) fn teeth(upper: bool, seam_y: f32, front_z: f32) -> Shape {
    const SAMPLES: usize = 60;
    let widths: [f32; 6] = if upper {
        [8.5, 6.8, 7.8, 7.0, 6.8, 10.0]
    } else {
        [5.3, 5.9, 6.9, 7.0, 7.2, 11.0]
    };
    let (ax, az) = if upper {
        (0.0235, 0.022)
    } else {
        (0.0215, 0.021)
    };
    let beta_max = 80.0 * DEG;
    // Arc length along the arch, to place the teeth.
    let arch = |beta: f32| v2(ax * beta.sin(), front_z - az * (1.0 - beta.cos()));
    let mut lengths = vec![0.0_f32; SAMPLES + 1];
    let beta_at = |i: usize| beta_max * (2.0 * i as f32 / SAMPLES as f32 - 1.0);
    for i in 1..=SAMPLES {
        lengths[i] = lengths[i - 1] + (arch(beta_at(i)) - arch(beta_at(i - 1))).length();
    }
    let half = lengths[SAMPLES] * 0.5;
    let mut shape = Shape::default();
    // Section: (outwards, up) in mm for upper teeth, from the top of the front face around.
    let section: [(f32, f32); 10] = [
        (-0.3, 10.0),
        (0.3, 6.0),
        (0.2, 2.5),
        (-0.1, 0.7),
        (-0.6, 0.0),
        (-1.3, 0.2),
        (-1.9, 1.5),
        (-3.8, 5.0),
        (-5.2, 8.0),
        (-5.6, 10.0),
    ];
    let n_sec = section.len();
    for (i, &length) in lengths.iter().enumerate() {
        let beta = beta_at(i);
        let c = arch(beta);
        let tangent = v2(ax * beta.cos(), -az * beta.sin()).normalize();
        let out = v2(-tangent.y, tangent.x);
        let out = if out.y < 0.0 { -out } else { out };
        let from_middle = (length - half).abs() / MM;
        let mut edge = 0.0;
        let mut tooth_start = 0.0;
        let mut fraction = 0.5;
        for &w in &widths {
            if from_middle <= tooth_start + w {
                fraction = (from_middle - tooth_start) / w;
                break;
            }
            tooth_start += w;
        }
        let gap = (1.0 - (std::f32::consts::PI * fraction).sin()).powi(3);
        edge += 0.8 * gap;
        let groove = 0.35 * (1.0 - (std::f32::consts::PI * fraction).sin()).powi(4);
        let back = (beta / beta_max).abs();
        let thick = 1.0 + 0.7 * back;
        let rise = 1.5 * back * back;
        for &(o, h) in &section {
            let o = (o - if o > -0.5 { groove } else { 0.0 }) * thick * MM;
            let h = (h + edge * (1.0 - h / 10.0) + rise) * MM;
            let y = if upper {
                seam_y - 2.6 * MM + h
            } else {
                seam_y - 0.6 * MM - h
            };
            let xz = c + out * o;
            shape.pos.push(Vec3::new(xz.x, y, xz.y));
        }
    }
    for i in 0..SAMPLES {
        for k in 0..n_sec {
            let a = i * n_sec + k;
            let b = i * n_sec + (k + 1) % n_sec;
            let (c, d) = (a + n_sec, b + n_sec);
            if upper {
                shape.quad(a, c, b, d);
            } else {
                shape.quad(a, b, c, d);
            }
        }
    }
    // End caps.
    for (end, flip) in [(0, upper), (SAMPLES * n_sec, !upper)] {
        let centre = shape.pos[end..end + n_sec]
            .iter()
            .fold(Vec3::ZERO, |a, &p| a + p)
            / n_sec as f32;
        shape.pos.push(centre);
        let ci = shape.pos.len() - 1;
        for k in 0..n_sec {
            let (a, b) = (end + k, end + (k + 1) % n_sec);
            if flip {
                shape.tri(ci, a, b);
            } else {
                shape.tri(ci, b, a);
            }
        }
    }
    shape
}

pub(super) fn tongue(seam_y: f32) -> Shape {
    const RINGS: usize = 18;
    const SEGMENTS: usize = 24;
    let centre = Vec3::new(0.0, seam_y - 0.0115, 0.047);
    let length = 0.022;
    let mut s = Shape::default();
    // Poles at the tip (+Z) and the root (-Z).
    let point = |u: f32, phi: f32| {
        // u: -1 root .. 1 tip.
        let ring = (1.0 - u * u).max(0.0).sqrt();
        let width = 0.020 * (1.0 - 0.35 * u.max(0.0).powi(2));
        let (sp, cp) = phi.sin_cos();
        let up = if sp > 0.0 { 0.0055 } else { 0.0070 };
        let x = cp * ring * width;
        let mut y = sp * ring * up;
        if sp > 0.0 {
            y -= 0.0008 * gauss(x, 0.004) * ring;
        }
        centre + Vec3::new(x, y, u * length)
    };
    s.pos.push(point(1.0, 0.0));
    for r in 1..RINGS {
        let u = (std::f32::consts::PI * r as f32 / RINGS as f32).cos();
        for k in 0..SEGMENTS {
            let phi = std::f32::consts::TAU * k as f32 / SEGMENTS as f32;
            s.pos.push(point(u, phi));
        }
    }
    s.pos.push(point(-1.0, 0.0));
    let at = |r: usize, k: usize| 1 + (r - 1) * SEGMENTS + k % SEGMENTS;
    let last = s.pos.len() - 1;
    for k in 0..SEGMENTS {
        s.tri(0, at(1, k), at(1, k + 1));
        s.tri(last, at(RINGS - 1, k + 1), at(RINGS - 1, k));
    }
    for r in 1..RINGS - 1 {
        for k in 0..SEGMENTS {
            s.quad(at(r, k), at(r, k + 1), at(r + 1, k), at(r + 1, k + 1));
        }
    }
    s
}

/// The mouth interior: a bag from the lips' innermost folds back into the head.
pub(super) fn mouth_bag(skin: &Skin, seam: Vec3) -> (Shape, Vec<f32>, Vec<f32>) {
    // Rings behind the rim: (half width, up, down, depth z).
    let rings: [(f32, f32, f32, f32); 4] = [
        (0.023, 0.008, 0.011, seam.z - 0.013),
        (0.028, 0.014, 0.021, 0.058),
        (0.027, 0.013, 0.020, 0.038),
        (0.017, 0.008, 0.012, 0.024),
    ];
    let mut s = Shape::default();
    // How much each vertex follows the lips (1 on the rim) and the jaw.
    let mut follow = Vec::new();
    let mut jaw = Vec::new();
    let n = skin.rim.len();
    for &(i, _) in &skin.rim {
        s.pos.push(skin.rest[i]);
        follow.push(1.0);
        jaw.push(0.0);
    }
    for (k, &(hw, up, down, z)) in rings.iter().enumerate() {
        for &(_, a) in &skin.rim {
            let (sa, ca) = a.sin_cos();
            let y = seam.y + if sa > 0.0 { up } else { down } * sa;
            let x = hw * ca;
            s.pos.push(Vec3::new(x, y, z - 10.0 * x * x));
            follow.push(if k == 0 { 0.5 } else { 0.0 });
            jaw.push(smoothstep(0.3, -0.3, sa));
        }
    }
    s.pos.push(Vec3::new(0.0, seam.y - 0.004, 0.016));
    follow.push(0.0);
    jaw.push(0.5);
    let back = s.pos.len() - 1;
    for k in 0..rings.len() {
        for j in 0..n {
            let (a, b) = (k * n + j, k * n + (j + 1) % n);
            s.quad(b, a, b + n, a + n);
        }
    }
    for j in 0..n {
        let (a, b) = (rings.len() * n + j, rings.len() * n + (j + 1) % n);
        s.tri(b, a, back);
    }
    (s, follow, jaw)
}
