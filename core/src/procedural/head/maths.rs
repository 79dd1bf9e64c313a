//! Small maths: smoothing, curves, root finding, rotations, spacing.

use super::*;

pub(super) fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// exp(-(d/s)^2).
pub(super) fn gauss(d: f32, s: f32) -> f32 {
    (-(d / s) * (d / s)).exp()
}

pub(super) fn gauss2(p: Vec2, c: Vec2, s: Vec2) -> f32 {
    let q = (p - c) / s;
    (-q.length_squared()).exp()
}

pub(super) fn v2(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

/// Smooth maximum (polynomial, blend width k).
pub(super) fn smax(a: f32, b: f32, k: f32) -> f32 {
    let h = (k - (a - b).abs()).max(0.0) / k;
    a.max(b) + h * h * k * 0.25
}

/// Catmull-Rom through points sorted by x; flat outside.
pub(super) fn curve(points: &[(f32, f32)], x: f32) -> f32 {
    let n = points.len();
    if n == 0 {
        return 0.0;
    }
    if x <= points[0].0 {
        return points[0].1;
    }
    if x >= points[n - 1].0 {
        return points[n - 1].1;
    }
    let i = points.windows(2).position(|w| x < w[1].0).unwrap_or(n - 2);
    let (x1, y1) = points[i];
    let (x2, y2) = points[i + 1];
    let slope = |a: (f32, f32), b: (f32, f32)| (b.1 - a.1) / (b.0 - a.0);
    let m1 = if i > 0 {
        slope(points[i - 1], points[i + 1])
    } else {
        slope(points[i], points[i + 1])
    };
    let m2 = if i + 2 < n {
        slope(points[i], points[i + 2])
    } else {
        slope(points[i], points[i + 1])
    };
    let h = x2 - x1;
    let t = (x - x1) / h;
    let (t2, t3) = (t * t, t * t * t);
    (2.0 * t3 - 3.0 * t2 + 1.0) * y1
        + (t3 - 2.0 * t2 + t) * h * m1
        + (-2.0 * t3 + 3.0 * t2) * y2
        + (t3 - t2) * h * m2
}

/// A root of a function that changes sign on [lo, hi].
pub(super) fn bisect(f: impl Fn(f32) -> f32, mut lo: f32, mut hi: f32) -> f32 {
    let low_sign = f(lo) < 0.0;
    for _ in 0..48 {
        let mid = 0.5 * (lo + hi);
        if (f(mid) < 0.0) == low_sign {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Rotation about the X axis through `pivot` (positive: +Z goes to -Y).
pub(super) fn rot_x(p: Vec3, pivot: Vec3, angle: f32) -> Vec3 {
    let q = p - pivot;
    let (s, c) = angle.sin_cos();
    pivot + Vec3::new(q.x, q.y * c - q.z * s, q.y * s + q.z * c)
}

/// Rotation about the Y axis through `pivot` (positive: +Z goes to +X).
pub(super) fn rot_y(p: Vec3, pivot: Vec3, angle: f32) -> Vec3 {
    let q = p - pivot;
    let (s, c) = angle.sin_cos();
    pivot + Vec3::new(q.x * c + q.z * s, q.y, -q.x * s + q.z * c)
}

/// Values at a series of anchors (each kept exactly) with points in between spaced by a
/// density (points per unit).
pub(super) fn distribute(anchors: &[f32], density: &dyn Fn(f32) -> f32) -> Vec<f32> {
    const STEPS: usize = 512;
    let mut out = Vec::new();
    for w in anchors.windows(2) {
        let (a, b) = (w[0], w[1]);
        let h = (b - a) / STEPS as f32;
        let mut cumulative = Vec::with_capacity(STEPS + 1);
        let mut sum = 0.0;
        cumulative.push(sum);
        for i in 0..STEPS {
            sum += density(a + (i as f32 + 0.5) * h) * h;
            cumulative.push(sum);
        }
        let n = (sum.round() as usize).max(1);
        for k in 0..n {
            let target = sum * k as f32 / n as f32;
            let i = cumulative
                .partition_point(|&c| c <= target)
                .saturating_sub(1)
                .min(STEPS - 1);
            let span = (cumulative[i + 1] - cumulative[i]).max(1e-12);
            out.push(a + (i as f32 + (target - cumulative[i]) / span) * h);
        }
    }
    if let Some(&last) = anchors.last() {
        out.push(last);
    }
    out
}
