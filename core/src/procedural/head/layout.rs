//! Layout of the skin's grid: its rows and columns, and the eye openings' rest shape.

use super::*;

#[derive(Clone, Copy, Debug)]
pub(super) enum Row {
    /// A ray elevation shared by all columns.
    Head(f32),
    /// Between the chin row and the neck junction (fraction, 1 at the junction).
    Junction(f32),
    /// Down the neck (fraction, 1 at the base).
    Neck(f32),
}

#[derive(Debug)]
pub(super) struct Layout {
    pub(super) alpha_eye: f32,
    pub(super) alpha_mouth: f32,
    pub(super) lon_mouth: f32,
    pub(super) x_mouth: f32,
    /// Column longitudes, the last repeating the first plus a turn.
    pub(super) lons: Vec<f32>,
    pub(super) rows: Vec<Row>,
    pub(super) r_eye: usize,
    pub(super) r_mouth: usize,
    /// Columns of the mouth corners (right, left).
    pub(super) mouth_cols: (usize, usize),
    /// Per eye, the columns of its two corners (lower, higher index).
    pub(super) eye_cols: [(usize, usize); 2],
    /// Per column, the elevation where the rays meet the neck.
    pub(super) alpha_end: Vec<f32>,
    /// The mouth's corners (x, y) on the chart, `[left, right]`.
    pub(super) corners: [Vec2; 2],
}

/// Direction from an eye centre for eye-local angles (phi > 0 towards the outer corner).
pub(super) fn eye_dir(phi: f32, theta: f32, side: f32) -> Vec3 {
    Vec3::new(
        side * theta.cos() * phi.sin(),
        theta.sin(),
        theta.cos() * phi.cos(),
    )
}

/// Eye-local (phi, theta, radius) of a point.
pub(super) fn eye_angles(p: Vec3, e: usize) -> (f32, f32, f32) {
    let rel = p - eye_centre(e);
    let r = rel.length().max(1e-9);
    (
        (SIDES[e] * rel.x).atan2(rel.z),
        (rel.y / r).clamp(-1.0, 1.0).asin(),
        r,
    )
}

// The eye opening at rest, by the fraction t from the inner corner (0) to the outer (1).
pub(super) const CORNER_IN: (f32, f32) = (-60.0 * DEG, -2.0 * DEG);
pub(super) const CORNER_OUT: (f32, f32) = (62.0 * DEG, 4.0 * DEG);

pub(super) fn lid_tilt(t: f32) -> f32 {
    let t = t.clamp(0.0, 1.0);
    CORNER_IN.1 + (CORNER_OUT.1 - CORNER_IN.1) * t
}

pub(super) fn lid_bump(t: f32, skew: f32, power: f32) -> f32 {
    if t <= 0.0 || t >= 1.0 {
        return 0.0;
    }
    (std::f32::consts::PI * t.powf(skew))
        .sin()
        .max(0.0)
        .powf(power)
}

pub(super) fn upper_edge(t: f32) -> f32 {
    lid_tilt(t) + 28.0 * DEG * lid_bump(t, 0.9, 0.75)
}

pub(super) fn lower_edge(t: f32) -> f32 {
    lid_tilt(t) - 17.0 * DEG * lid_bump(t, 1.15, 0.85)
}

pub(super) fn layout() -> Layout {
    let alpha_mouth = bisect(|a| chart(0.0, a).y - MOUTH_Y, -45.0 * DEG, 0.0);
    let lon_mouth = bisect(|l| chart(l, alpha_mouth).x - MOUTH_X, 1.0 * DEG, 45.0 * DEG);
    let x_mouth = chart(lon_mouth, alpha_mouth).x;
    let eye_front = eye_centre(0) + Vec3::Z * LID_R - C0;
    let alpha_eye = eye_front
        .y
        .atan2(Vec2::new(eye_front.x, eye_front.z).length());
    // The eye corners' columns: where the lid-wrapped surface of the eye's row reaches the
    // corners' angles about the eye.
    let mut lay = Layout {
        alpha_eye,
        alpha_mouth,
        lon_mouth,
        x_mouth,
        lons: Vec::new(),
        rows: Vec::new(),
        r_eye: 0,
        r_mouth: 0,
        mouth_cols: (0, 0),
        eye_cols: [(0, 0); 2],
        alpha_end: Vec::new(),
        corners: [1.0, -1.0].map(|s| {
            let p = chart(s * lon_mouth, alpha_mouth);
            v2(p.x, p.y)
        }),
    };
    let corner_lon = |phi: f32, lo: f32, hi: f32| {
        let angle = |lon: f32| {
            let b = chart(lon, alpha_eye);
            let p1 = b + (b - C0).normalize() * relief(b, &lay);
            eye_angles(wrap_lids(b, p1), 0).0 - phi
        };
        // The closest of a scan, then refined where the angle crosses the target.
        const SCAN: usize = 96;
        let at = |k: usize| lo + (hi - lo) * k as f32 / SCAN as f32;
        let best = (0..=SCAN)
            .min_by(|&a, &b| angle(at(a)).abs().total_cmp(&angle(at(b)).abs()))
            .unwrap_or(0);
        let (a, b) = (at(best.saturating_sub(1)), at((best + 1).min(SCAN)));
        if (angle(a) < 0.0) != (angle(b) < 0.0) {
            bisect(angle, a, b)
        } else {
            at(best)
        }
    };
    let lon_in = corner_lon(CORNER_IN.0, 9.0 * DEG, 22.0 * DEG);
    let lon_out = corner_lon(CORNER_OUT.0, 15.0 * DEG, 55.0 * DEG);

    // One side's columns, mirrored, so the head is exactly symmetric.
    let mut anchors = vec![0.0, lon_mouth, lon_in, lon_out, std::f32::consts::PI];
    anchors.sort_by(f32::total_cmp);
    anchors.dedup_by(|a, b| (*a - *b).abs() < 0.3 * DEG);
    let column_density = |lon: f32| {
        let d = lon / DEG;
        (0.13 + 0.55 * (-(d / 42.0).powi(4)).exp() + 0.22 * (-(d / 20.0).powi(4)).exp()) / DEG
    };
    let half = distribute(&anchors, &column_density);
    let lons: Vec<f32> = half
        .iter()
        .rev()
        .map(|&l| -l)
        .chain(half.iter().skip(1).copied())
        .collect();
    let find = |lon: f32| {
        lons.iter()
            .position(|&l| (l - lon).abs() < 1e-6)
            .unwrap_or(0)
    };
    let mouth_cols = (find(-lon_mouth), find(lon_mouth));
    let eye_cols = [
        (find(lon_in), find(lon_out)),
        (find(-lon_out), find(-lon_in)),
    ];

    let (ae, am) = (alpha_eye / DEG, alpha_mouth / DEG);
    let row_density = move |u: f32| {
        let a = -u / DEG;
        (0.16 + 0.45 * gauss(a - ae, 12.0) + 0.95 * gauss(a - am, 9.0) + 0.25 * gauss(a + 6.0, 8.0))
            / DEG
    };
    let heads = distribute(
        &[-90.0 * DEG, -alpha_eye, -alpha_mouth, -CHIN_ROW],
        &row_density,
    );
    let mut rows: Vec<Row> = heads.iter().skip(1).map(|&u| Row::Head(-u)).collect();
    let r_eye = rows
        .iter()
        .position(|r| matches!(r, Row::Head(a) if (a - alpha_eye).abs() < 1e-6))
        .unwrap_or(0);
    let r_mouth = rows
        .iter()
        .position(|r| matches!(r, Row::Head(a) if (a - alpha_mouth).abs() < 1e-6))
        .unwrap_or(0);
    rows.extend((1..=JUNCTION_ROWS).map(|k| Row::Junction(k as f32 / JUNCTION_ROWS as f32)));
    rows.extend((1..=NECK_ROWS).map(|k| Row::Neck(k as f32 / NECK_ROWS as f32)));

    let alpha_end = lons
        .iter()
        .map(|&lon| {
            bisect(
                |a| {
                    let p = chart(lon, a);
                    (p.x / NECK_A.x).powi(2) + ((p.z - NECK_Z) / NECK_A.y).powi(2) - 1.0
                },
                -88.0 * DEG,
                CHIN_ROW,
            )
        })
        .collect();
    lay.lons = lons;
    lay.rows = rows;
    lay.r_eye = r_eye;
    lay.r_mouth = r_mouth;
    lay.mouth_cols = mouth_cols;
    lay.eye_cols = eye_cols;
    lay.alpha_end = alpha_end;
    lay
}
