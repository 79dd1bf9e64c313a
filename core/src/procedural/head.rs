//! The project's default head: a stylised human head made entirely by code (deterministic,
//! CC0), with all 52 ARKit blend shapes, built to read well in a close-up.
//!
//! Units are metres, y up, the face looking along +Z, the head's centre near the origin and the
//! neck base at y = -0.12. The head's left is +X. Parts: the skin (scalp, face, lids, lips and
//! the inside of the lips, neck), the ears, per eye a sclera, an iris and a pupil, the upper and
//! lower teeth, the tongue and the mouth interior. Every part carries the targets that move it,
//! named canonically (jawOpen lives on the skin, lower teeth, tongue and mouth interior; each
//! eye's parts carry that side's eyeLook targets), as real avatars do.
//!
//! How it is made: the skin is a grid of rays from a point inside the head (longitude by
//! elevation, denser around the eyes and mouth) cast onto a smooth skull-and-jaw shape, pushed
//! out by a relief (nose, brows, cheeks, lips, chin). The lids are wrapped onto a sphere around
//! each eyeball and the eye openings and the mouth are slits in the grid: their rows have an
//! upper and a lower copy of each vertex, which coincide where the slit is closed, so the lips
//! close without a crack. The inside of each lip (and of each lid) folds back into the head; the
//! mouth interior is a bag stitched to the lips' inner edge. Blend shapes are displacements of
//! the rest shape: the jaw rotates about a hinge near the ears, lids slide over the eyeballs,
//! eyeballs rotate about their centres, and the rest are smooth local fields.

use glam::{Vec2, Vec3};

use crate::arkit::ArkitTarget;
use crate::asset::Transform;
use crate::asset::material::{AlphaMode, Material, Texture};
use crate::asset::mesh::{MorphTarget, Primitive};
use crate::asset::scene::Node;
use crate::asset::writer::GlbWriter;

/// Name of the skin part (landmark vertex indices of lids and lips refer to it).
pub const SKIN_PART: &str = "skin";
/// Name of the tongue part (the tongue-tip landmark refers to it).
pub const TONGUE_PART: &str = "tongue";

/// One separately drawn part of the head (skin, an eye, teeth, tongue, mouth interior...).
#[derive(Clone, Debug)]
pub struct HeadPart {
    pub name: &'static str,
    /// The geometry with its morph targets (`material` is `None`: see [`HeadPart::material`]).
    pub primitive: Primitive,
    /// Canonical ARKit names, one per target in `primitive.targets`.
    pub target_names: Vec<&'static str>,
    /// Its base colour texture, if any, indexes [`head_textures`].
    pub material: Material,
}

/// Landmarks for tests and for placing the head on a body (vertex indices into the named parts,
/// points in metres). Pairs are `[left, right]`, the head's left being +X.
#[derive(Clone, Debug)]
pub struct HeadLandmarks {
    /// Rotation centres of the eyeballs.
    pub eye_centres: [Vec3; 2],
    /// Centres of the pupils at rest.
    pub pupil_centres: [Vec3; 2],
    /// Skin vertices on the upper lid's edge over the middle half of each eye.
    pub upper_lid: [Vec<usize>; 2],
    /// Skin vertices on the lower lid's edge, paired with `upper_lid`.
    pub lower_lid: [Vec<usize>; 2],
    /// Skin vertices on the upper lip's inner edge (the seam), corner to corner.
    pub upper_lip_inner: Vec<usize>,
    /// Skin vertices on the lower lip's inner edge, paired with `upper_lip_inner`.
    pub lower_lip_inner: Vec<usize>,
    /// Skin vertices at the corners of the mouth.
    pub lip_corners: [usize; 2],
    /// The most forward skin vertex of the upper lip, at the middle.
    pub upper_lip_front: usize,
    /// The most forward skin vertex of the lower lip, at the middle.
    pub lower_lip_front: usize,
    /// The tip of the tongue (a vertex of the tongue part).
    pub tongue_tip: usize,
    pub chin: Vec3,
    pub nose_tip: Vec3,
    /// A point on the jaw's hinge axis (the axis runs along X).
    pub jaw_hinge: Vec3,
    /// Centre of the neck's bottom ring, where the head meets a body.
    pub neck_base: Vec3,
}

/// All parts, in metres, y up, the face looking along +Z, the head's centre near the origin
/// (neck base at about y = -0.12).
#[must_use]
pub fn head_parts() -> Vec<HeadPart> {
    build().parts
}

/// The textures the parts' materials index (the skin's colour map and the iris pattern).
/// Their colours multiply the materials' base colours.
#[must_use]
pub fn head_textures() -> Vec<Option<Texture>> {
    textures()
}

/// The head as a GLB: one mesh per part (target names in extras.targetNames), one node each,
/// all under a root node "Head".
#[must_use]
pub fn head_glb() -> Vec<u8> {
    let parts = head_parts();
    let textures = head_textures();
    let mut writer = GlbWriter::new();
    let mut materials: Vec<(Material, usize)> = Vec::new();
    let mut children = Vec::with_capacity(parts.len());
    for part in &parts {
        let material = match materials.iter().find(|(m, _)| *m == part.material) {
            Some(&(_, index)) => index,
            None => {
                let index = writer.add_material(&part.material, &textures);
                materials.push((part.material.clone(), index));
                index
            }
        };
        let mut primitive = part.primitive.clone();
        primitive.material = Some(material);
        let mesh = writer.add_mesh(part.name, &[primitive], &part.target_names, &[]);
        children.push(writer.add_node(&Node {
            name: Some(part.name.to_owned()),
            parent: None,
            children: Vec::new(),
            transform: Transform::IDENTITY,
            mesh: Some(mesh),
            skin: None,
            gpu_instances: Vec::new(),
        }));
    }
    let root = writer.add_node(&Node {
        name: Some("Head".to_owned()),
        parent: None,
        children,
        transform: Transform::IDENTITY,
        mesh: None,
        skin: None,
        gpu_instances: Vec::new(),
    });
    writer.set_roots(vec![root]);
    writer.to_glb()
}

/// Landmarks of [`head_parts`].
#[must_use]
pub fn landmarks() -> HeadLandmarks {
    build().landmarks
}

// ------------------------------------------------------------------------------------------
// Dimensions

const DEG: f32 = std::f32::consts::PI / 180.0;
const MM: f32 = 0.001;

/// The point the skin's rays start from.
const C0: Vec3 = Vec3::new(0.0, -0.010, -0.010);
const CRANIUM_C: Vec3 = Vec3::new(0.0, 0.020, -0.014);
const CRANIUM_A: Vec3 = Vec3::new(0.0725, 0.103, 0.097);
const FACE_C: Vec3 = Vec3::new(0.0, -0.030, 0.002);
const FACE_A: Vec3 = Vec3::new(0.066, 0.078, 0.084);

const EYE_X: f32 = 0.031;
const EYE_Y: f32 = 0.018;
const EYE_Z: f32 = 0.061;
/// Eyeball (sclera) radius.
const EYE_R: f32 = 0.0125;
/// Radius of the lids' edge about the eye centre.
const LID_R: f32 = EYE_R + 0.0012;
const IRIS_R: f32 = 0.0060;
const PUPIL_R: f32 = 0.0024;
/// `[left, right]`: the sign of X of each side.
const SIDES: [f32; 2] = [1.0, -1.0];

const MOUTH_Y: f32 = -0.052;
const MOUTH_X: f32 = 0.025;

const HINGE: Vec3 = Vec3::new(0.0, -0.008, -0.012);
const JAW_OPEN: f32 = 20.0 * DEG;
const JAW_SHIFT: f32 = 0.006;
const JAW_FORWARD: f32 = 0.005;
/// Where mouthClose brings the lips together, as a fraction of the jaw's drop at the seam.
const CLOSE_MEET: f32 = 0.3;

const NECK_Y: f32 = -0.12;
const NECK_Z: f32 = -0.016;
const NECK_A: Vec2 = Vec2::new(0.050, 0.054);
/// Elevation of the last common row of rays (under the chin); below it rows reach the neck.
const CHIN_ROW: f32 = -40.0 * DEG;
const JUNCTION_ROWS: usize = 4;
const NECK_ROWS: usize = 5;

const SKIN_TEXTURE: usize = 0;
const IRIS_TEXTURE: usize = 1;
const SKIN_TEX_SIZE: u32 = 512;

/// Skin tone, sRGB.
const SKIN_RGB: [f32; 3] = [0.89, 0.70, 0.59];

fn eye_centre(e: usize) -> Vec3 {
    Vec3::new(SIDES[e] * EYE_X, EYE_Y, EYE_Z)
}

// ------------------------------------------------------------------------------------------
// Small maths

fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// exp(-(d/s)^2).
fn gauss(d: f32, s: f32) -> f32 {
    (-(d / s) * (d / s)).exp()
}

fn gauss2(p: Vec2, c: Vec2, s: Vec2) -> f32 {
    let q = (p - c) / s;
    (-q.length_squared()).exp()
}

fn v2(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

/// Smooth maximum (polynomial, blend width k).
fn smax(a: f32, b: f32, k: f32) -> f32 {
    let h = (k - (a - b).abs()).max(0.0) / k;
    a.max(b) + h * h * k * 0.25
}

/// Catmull-Rom through points sorted by x; flat outside.
fn curve(points: &[(f32, f32)], x: f32) -> f32 {
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
fn bisect(f: impl Fn(f32) -> f32, mut lo: f32, mut hi: f32) -> f32 {
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
fn rot_x(p: Vec3, pivot: Vec3, angle: f32) -> Vec3 {
    let q = p - pivot;
    let (s, c) = angle.sin_cos();
    pivot + Vec3::new(q.x, q.y * c - q.z * s, q.y * s + q.z * c)
}

/// Rotation about the Y axis through `pivot` (positive: +Z goes to +X).
fn rot_y(p: Vec3, pivot: Vec3, angle: f32) -> Vec3 {
    let q = p - pivot;
    let (s, c) = angle.sin_cos();
    pivot + Vec3::new(q.x * c + q.z * s, q.y, -q.x * s + q.z * c)
}

/// Values at a series of anchors (each kept exactly) with points in between spaced by a
/// density (points per unit).
fn distribute(anchors: &[f32], density: &dyn Fn(f32) -> f32) -> Vec<f32> {
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

// ------------------------------------------------------------------------------------------
// The head's shape

fn ray_dir(lon: f32, alpha: f32) -> Vec3 {
    Vec3::new(
        alpha.cos() * lon.sin(),
        alpha.sin(),
        alpha.cos() * lon.cos(),
    )
}

fn cranium(p: Vec3) -> f32 {
    // A little fuller than an ellipsoid: a broad forehead and crown.
    let q = ((p - CRANIUM_C) / CRANIUM_A).abs();
    (q.x.powf(2.5) + q.y.powf(2.4) + q.z.powf(2.4)).powf(1.0 / 1.2) - 1.0
}

fn face_shape(p: Vec3) -> f32 {
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

fn exit_distance(shape: fn(Vec3) -> f32, d: Vec3) -> f32 {
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
fn chart(lon: f32, alpha: f32) -> Vec3 {
    let d = ray_dir(lon, alpha);
    C0 + d * smax(
        exit_distance(cranium, d),
        exit_distance(face_shape, d),
        0.015,
    )
}

fn lon_of(p: Vec3) -> f32 {
    p.x.atan2(p.z - C0.z)
}

/// How much of the face a chart point is in (0 at the back of the head).
fn frontness(b: Vec3) -> f32 {
    1.0 - smoothstep(55.0 * DEG, 85.0 * DEG, lon_of(b).abs())
}

/// Mouth coordinates of a chart point: x over the half-width of the mouth, and height above the
/// seam in millimetres.
fn mouth_coords(b: Vec3, lay: &Layout) -> (f32, f32) {
    let seam = chart(lon_of(b), lay.alpha_mouth);
    (b.x / lay.x_mouth, (b.y - seam.y) / MM)
}

/// Height of the upper lip's red part (mm) at x over the mouth's half-width.
fn upper_lip_height(xn: f32) -> f32 {
    let a = xn.abs();
    let bow = 6.6 + 1.0 * gauss(a - 0.22, 0.12) - 0.7 * gauss(a, 0.07);
    (bow * (1.0 - a.powf(2.5)).max(0.0).powf(0.6)).max(0.4)
}

fn lower_lip_height(xn: f32) -> f32 {
    (8.8 * (1.0 - xn.abs().powf(2.2)).max(0.0).powf(0.55)).max(0.4)
}

/// The lips' relief (mm) at mouth coordinates.
fn lips_relief(xn: f32, my: f32) -> f32 {
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

fn nose_relief(x: f32, y: f32) -> f32 {
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
fn relief(b: Vec3, lay: &Layout) -> f32 {
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

// ------------------------------------------------------------------------------------------
// Layout of the skin's grid

#[derive(Clone, Copy, Debug)]
enum Row {
    /// A ray elevation shared by all columns.
    Head(f32),
    /// Between the chin row and the neck junction (fraction, 1 at the junction).
    Junction(f32),
    /// Down the neck (fraction, 1 at the base).
    Neck(f32),
}

#[derive(Debug)]
struct Layout {
    alpha_eye: f32,
    alpha_mouth: f32,
    lon_mouth: f32,
    x_mouth: f32,
    /// Column longitudes, the last repeating the first plus a turn.
    lons: Vec<f32>,
    rows: Vec<Row>,
    r_eye: usize,
    r_mouth: usize,
    /// Columns of the mouth corners (right, left).
    mouth_cols: (usize, usize),
    /// Per eye, the columns of its two corners (lower, higher index).
    eye_cols: [(usize, usize); 2],
    /// Per column, the elevation where the rays meet the neck.
    alpha_end: Vec<f32>,
    /// The mouth's corners (x, y) on the chart, `[left, right]`.
    corners: [Vec2; 2],
}

/// Direction from an eye centre for eye-local angles (phi > 0 towards the outer corner).
fn eye_dir(phi: f32, theta: f32, side: f32) -> Vec3 {
    Vec3::new(
        side * theta.cos() * phi.sin(),
        theta.sin(),
        theta.cos() * phi.cos(),
    )
}

/// Eye-local (phi, theta, radius) of a point.
fn eye_angles(p: Vec3, e: usize) -> (f32, f32, f32) {
    let rel = p - eye_centre(e);
    let r = rel.length().max(1e-9);
    (
        (SIDES[e] * rel.x).atan2(rel.z),
        (rel.y / r).clamp(-1.0, 1.0).asin(),
        r,
    )
}

// The eye opening at rest, by the fraction t from the inner corner (0) to the outer (1).
const CORNER_IN: (f32, f32) = (-60.0 * DEG, -2.0 * DEG);
const CORNER_OUT: (f32, f32) = (62.0 * DEG, 4.0 * DEG);

fn lid_tilt(t: f32) -> f32 {
    let t = t.clamp(0.0, 1.0);
    CORNER_IN.1 + (CORNER_OUT.1 - CORNER_IN.1) * t
}

fn lid_bump(t: f32, skew: f32, power: f32) -> f32 {
    if t <= 0.0 || t >= 1.0 {
        return 0.0;
    }
    (std::f32::consts::PI * t.powf(skew))
        .sin()
        .max(0.0)
        .powf(power)
}

fn upper_edge(t: f32) -> f32 {
    lid_tilt(t) + 28.0 * DEG * lid_bump(t, 0.9, 0.75)
}

fn lower_edge(t: f32) -> f32 {
    lid_tilt(t) - 17.0 * DEG * lid_bump(t, 1.15, 0.85)
}

fn layout() -> Layout {
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

// ------------------------------------------------------------------------------------------
// The skin

#[derive(Clone, Copy, Debug, PartialEq)]
enum EyeRole {
    None,
    /// A vertex near an eye, moved by the lids.
    Zone(usize),
    /// On a lid's edge (eye, upper lid).
    Edge(usize, bool),
    /// On the fold behind a lid's edge.
    Flap(usize, bool),
}

/// Which side of the mouth's slit a vertex hangs from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Side {
    Upper,
    Lower,
}

#[derive(Clone, Copy, Debug)]
struct SkinVertex {
    /// Chart point (before relief): where features, colours and weights are defined.
    b: Vec3,
    /// Position before the lids are shaped.
    p2: Vec3,
    lon: f32,
    alpha: f32,
    col: usize,
    eye: EyeRole,
    side: Side,
    /// 0 on the head, from the chin row under the jaw and down the neck to 1 at its base.
    neck: f32,
    /// 1 on the upper lids' edges (eyelash line).
    lash: f32,
    /// Mouth coordinates of `b` (see [`mouth_coords`]) and its [`frontness`].
    xn: f32,
    my: f32,
    front: f32,
}

/// Per eye and column: how the lids are shaped.
#[derive(Clone, Copy, Debug)]
struct EyeColumn {
    /// 0 at the inner corner, 1 at the outer.
    t: f32,
    /// Eye-local elevation of the slit row before the lids open.
    theta_s: f32,
    /// Rotation of the rows above / below the slit that opens the eye.
    open_up: f32,
    open_down: f32,
    /// Strictly between the corners.
    open: bool,
}

/// Lid movements of one eye, as target weights.
#[derive(Clone, Copy, Debug, Default)]
struct Lids {
    blink: f32,
    wide: f32,
    squint: f32,
    up: f32,
    down: f32,
    cheek: f32,
}

impl Lids {
    /// Rotation (radians, up positive) of the upper and lower lid edges.
    fn deltas(&self, t: f32) -> (f32, f32) {
        let (u, l) = (upper_edge(t), lower_edge(t));
        let gap = u - l;
        let meet = l + 0.2 * gap;
        let b = lid_bump(t, 1.0, 0.6);
        let du = self.blink * (meet - u)
            + (9.0 * self.wide - 3.0 * self.squint + 7.0 * self.up - 12.0 * self.down) * DEG * b;
        let dl = self.blink * (meet - l)
            + (-2.0 * self.wide + 4.0 * self.up - 3.0 * self.down + 4.0 * self.cheek) * DEG * b
            + self.squint * 0.3 * gap;
        (du, dl)
    }
}

#[derive(Debug)]
struct Skin {
    verts: Vec<SkinVertex>,
    rest: Vec<Vec3>,
    uvs: Vec<[f32; 2]>,
    indices: Vec<u32>,
    weld: Vec<u32>,
    eyes: [Vec<Option<EyeColumn>>; 2],
    /// Mouth seam, corner to corner (left to right along +X): upper and lower copies.
    seam_upper: Vec<usize>,
    seam_lower: Vec<usize>,
    corners: [usize; 2],
    /// Lid edges per eye (upper, lower, t).
    lid_edges: [Vec<(usize, usize, f32)>; 2],
    /// The lips' innermost fold, once around the mouth (the mouth interior's rim), with the
    /// rim's angle about the mouth's centre.
    rim: Vec<(usize, f32)>,
    upper_lip_front: usize,
    lower_lip_front: usize,
    nose_tip: Vec3,
    chin: Vec3,
}

struct SkinBuilder {
    verts: Vec<SkinVertex>,
    uvs: Vec<[f32; 2]>,
    weld: Vec<u32>,
    indices: Vec<u32>,
}

impl SkinBuilder {
    fn push(&mut self, v: SkinVertex, uv: [f32; 2]) -> usize {
        self.verts.push(v);
        self.uvs.push(uv);
        let i = self.verts.len() - 1;
        self.weld.push(i as u32);
        i
    }

    fn tri(&mut self, a: usize, b: usize, c: usize) {
        if a != b && b != c && a != c {
            self.indices.extend([a as u32, b as u32, c as u32]);
        }
    }

    /// A quad from the row above (tl, tr) to the row below (bl, br), facing out. Along the
    /// right eye's slit the diagonal mirrors the left eye's, so the lids move alike.
    fn quad(&mut self, tl: usize, tr: usize, bl: usize, br: usize) {
        let right_lid = [tl, tr, bl, br].iter().any(|&i| {
            let v = &self.verts[i];
            matches!(v.eye, EyeRole::Edge(1, _) | EyeRole::Flap(1, _))
                || (v.lash > 0.0 && v.b.x < 0.0)
        });
        if right_lid {
            self.tri(tl, bl, tr);
            self.tri(tr, bl, br);
        } else {
            self.tri(tl, bl, br);
            self.tri(tl, br, tr);
        }
    }
}

fn in_eye_opening(lay: &Layout, e: usize, col: usize) -> bool {
    let (lo, hi) = lay.eye_cols[e];
    col > lo && col < hi
}

fn in_mouth(lay: &Layout, col: usize) -> bool {
    col > lay.mouth_cols.0 && col < lay.mouth_cols.1
}

/// The lids' shaping of a vertex near an eye.
fn eye_position(v: &SkinVertex, eyes: &[Vec<Option<EyeColumn>>; 2], lids: &[Lids; 2]) -> Vec3 {
    let e = match v.eye {
        EyeRole::None => return v.p2,
        EyeRole::Zone(e) | EyeRole::Edge(e, _) | EyeRole::Flap(e, _) => e,
    };
    let Some(col) = eyes[e].get(v.col).copied().flatten() else {
        return v.p2;
    };
    let (phi, theta, r) = eye_angles(v.p2, e);
    let (du, dl) = if col.open {
        lids[e].deltas(col.t)
    } else {
        (0.0, 0.0)
    };
    let (theta, r) = match v.eye {
        EyeRole::Edge(_, upper) | EyeRole::Flap(_, upper) => {
            let edge = if upper {
                upper_edge(col.t) + du
            } else {
                lower_edge(col.t) + dl
            };
            let r = if matches!(v.eye, EyeRole::Flap(..)) {
                let tuck = lid_bump(col.t, 1.0, 0.3);
                r + (EYE_R - 0.0005 - r) * tuck
            } else {
                r
            };
            (edge, r)
        }
        _ => {
            // Only the lids and the skin just around them move.
            let near = 1.0 - smoothstep(LID_R + 0.005, LID_R + 0.016, r);
            let (du, dl) = (du * near, dl * near);
            let col = EyeColumn {
                open_up: col.open_up * near,
                open_down: col.open_down * near,
                ..col
            };
            let d = theta - col.theta_s;
            let shaped = if d >= 0.0 {
                theta
                    + col.open_up * (1.0 - smoothstep(0.0, 70.0 * DEG, d))
                    + du * (1.0 - smoothstep(0.0, 55.0 * DEG, d))
            } else {
                theta
                    + col.open_down * (1.0 - smoothstep(0.0, 50.0 * DEG, -d))
                    + dl * (1.0 - smoothstep(0.0, 40.0 * DEG, -d))
            };
            (shaped, r)
        }
    };
    eye_centre(e) + eye_dir(phi, theta, SIDES[e]) * r
}

/// Pulls the skin around an eye onto a shell about the eyeball (the lids): thin at the lids'
/// edges, thicker away from them, with a crease above the upper lid; blended into the face by
/// the chart point's distance from the eye.
fn wrap_lids(b: Vec3, p1: Vec3) -> Vec3 {
    let e = if p1.x >= 0.0 { 0 } else { 1 };
    let q = v2(b.x - SIDES[e] * EYE_X, b.y - EYE_Y);
    let reach = v2(0.020, if q.y > 0.0 { 0.017 } else { 0.014 });
    let d = (q / reach).length();
    let h = (1.0 - smoothstep(0.65, 1.25, d)) * smoothstep(0.02, 0.045, b.z);
    if h <= 0.0 {
        return p1;
    }
    let (phi, theta, r) = eye_angles(p1, e);
    let away = theta.abs();
    let shell = LID_R + 0.0035 * smoothstep(12.0 * DEG, 70.0 * DEG, away)
        - 0.0007 * gauss(theta - 38.0 * DEG, 8.0 * DEG);
    eye_centre(e) + eye_dir(phi, theta, SIDES[e]) * (r + (shell - r) * h)
}

fn build_skin(lay: &Layout) -> Skin {
    let nc = lay.lons.len() - 1;
    let nr = lay.rows.len();
    let mut sb = SkinBuilder {
        verts: Vec::new(),
        uvs: Vec::new(),
        weld: Vec::new(),
        indices: Vec::new(),
    };
    let v_of = |r: usize| (r as f32 + 1.0) / (nr as f32 + 1.0);
    let slit_dv = 0.3 / (nr as f32 + 1.0);

    // Chart and pre-lid positions of every grid point.
    let mut grid: Vec<Vec<(Vec3, Vec3, f32, f32)>> = Vec::with_capacity(nr);
    let mut junction: Vec<Vec3> = vec![Vec3::ZERO; nc + 1];
    for row in &lay.rows {
        let mut line = Vec::with_capacity(nc + 1);
        for (c, &lon) in lay.lons.iter().enumerate() {
            let entry = match *row {
                Row::Head(alpha) | Row::Junction(alpha) => {
                    let alpha = match *row {
                        Row::Junction(f) => CHIN_ROW + (lay.alpha_end[c] - CHIN_ROW) * f,
                        _ => alpha,
                    };
                    let b = chart(lon, alpha);
                    let d = (b - C0).normalize();
                    let p1 = b + d * relief(b, lay);
                    let p2 = wrap_lids(b, p1);
                    if matches!(row, Row::Junction(f) if *f >= 1.0) {
                        junction[c] = p2;
                    }
                    (b, p2, lon, alpha)
                }
                Row::Neck(s) => {
                    let j = junction[c];
                    let ang = j.x.atan2(j.z - NECK_Z);
                    let base = Vec3::new(
                        NECK_A.x * 1.04 * ang.sin(),
                        NECK_Y,
                        NECK_Z + NECK_A.y * 1.04 * ang.cos(),
                    );
                    let mut p = j.lerp(base, s);
                    let out = Vec3::new(ang.sin(), 0.0, ang.cos());
                    p -= out * (0.002 * (std::f32::consts::PI * s).sin());
                    (p, p, lon, lay.alpha_end[c])
                }
            };
            line.push(entry);
        }
        grid.push(line);
    }

    // Eye columns.
    let mut eyes: [Vec<Option<EyeColumn>>; 2] = [vec![None; nc + 1], vec![None; nc + 1]];
    for (e, table) in eyes.iter_mut().enumerate() {
        let (lo, hi) = lay.eye_cols[e];
        let phi_at = |c: usize| eye_angles(grid[lay.r_eye][c].1, e).0;
        let (phi_lo, phi_hi) = (phi_at(lo), phi_at(hi));
        let margin = 5;
        for (c, slot) in table
            .iter_mut()
            .enumerate()
            .take((hi + margin).min(nc) + 1)
            .skip(lo.saturating_sub(margin))
        {
            let (phi, theta_s, _) = eye_angles(grid[lay.r_eye][c].1, e);
            let t = (phi - phi_lo) / (phi_hi - phi_lo);
            // t runs from the inner corner: flip for the right eye, whose inner corner is `hi`.
            let t = if e == 0 { t } else { 1.0 - t };
            let open = c > lo && c < hi;
            let (open_up, open_down) = if open {
                (upper_edge(t) - theta_s, lower_edge(t) - theta_s)
            } else {
                let beyond = if c < lo { lo - c } else { c.saturating_sub(hi) };
                let fade = 1.0 - smoothstep(0.0, 5.0, beyond as f32);
                let a = (lid_tilt(t) - theta_s) * fade;
                (a, a)
            };
            *slot = Some(EyeColumn {
                t,
                theta_s,
                open_up,
                open_down,
                open,
            });
        }
    }

    // Vertices: pole, grid rows (two copies along the slits), folds.
    let pole_b = chart(0.0, 90.0 * DEG);
    let pole = sb.push(
        SkinVertex {
            b: pole_b,
            p2: pole_b,
            lon: 0.0,
            alpha: 90.0 * DEG,
            col: 0,
            eye: EyeRole::None,
            side: Side::Upper,
            neck: 0.0,
            lash: 0.0,
            xn: 0.0,
            my: 1000.0,
            front: frontness(pole_b),
        },
        [0.5, 0.0],
    );
    // (index seen from above, index seen from below) per row and column.
    let mut ids: Vec<Vec<(usize, usize)>> = Vec::with_capacity(nr);
    for (r, row) in lay.rows.iter().enumerate() {
        let mut line = Vec::with_capacity(nc + 1);
        for c in 0..=nc {
            let (b, p2, lon, alpha) = grid[r][c];
            let (xn, my) = mouth_coords(b, lay);
            let side = if r <= lay.r_mouth {
                Side::Upper
            } else {
                Side::Lower
            };
            // Along the profile from the chin row under the jaw (0.6 at the neck) to the base.
            let neck = match *row {
                Row::Junction(f) => 0.6 * f,
                Row::Neck(s) => 0.6 + 0.4 * s,
                Row::Head(_) => 0.0,
            };
            let zone = (0..2).find(|&e| {
                eyes[e][c].is_some()
                    && matches!(row, Row::Head(a) if (a - lay.alpha_eye).abs() < 32.0 * DEG)
            });
            let eye = zone.map_or(EyeRole::None, EyeRole::Zone);
            let base = SkinVertex {
                b,
                p2,
                lon,
                alpha,
                col: c,
                eye,
                side,
                neck,
                lash: 0.0,
                xn,
                my,
                front: frontness(b),
            };
            let uv = [c as f32 / nc as f32, v_of(r)];
            let eye_slit = (0..2).find(|&e| r == lay.r_eye && in_eye_opening(lay, e, c));
            let entry = if let Some(e) = eye_slit {
                let up = sb.push(
                    SkinVertex {
                        eye: EyeRole::Edge(e, true),
                        lash: 1.0,
                        ..base
                    },
                    [uv[0], uv[1] - slit_dv],
                );
                let down = sb.push(
                    SkinVertex {
                        eye: EyeRole::Edge(e, false),
                        ..base
                    },
                    [uv[0], uv[1] + slit_dv],
                );
                (up, down)
            } else if r == lay.r_mouth && in_mouth(lay, c) {
                let up = sb.push(
                    SkinVertex {
                        side: Side::Upper,
                        ..base
                    },
                    [uv[0], uv[1] - slit_dv],
                );
                let down = sb.push(
                    SkinVertex {
                        side: Side::Lower,
                        ..base
                    },
                    [uv[0], uv[1] + slit_dv],
                );
                (up, down)
            } else {
                let corner = r == lay.r_eye
                    && (0..2).any(|e| c == lay.eye_cols[e].0 || c == lay.eye_cols[e].1);
                let i = sb.push(
                    SkinVertex {
                        lash: if corner { 0.6 } else { 0.0 },
                        ..base
                    },
                    uv,
                );
                (i, i)
            };
            line.push(entry);
        }
        // The wrap column shares the first column's normals.
        let (first, last) = (line[0], line[nc]);
        sb.weld[last.0] = first.0 as u32;
        sb.weld[last.1] = first.1 as u32;
        ids.push(line);
    }

    // Grid triangles.
    for c in 0..nc {
        sb.tri(pole, ids[0][c].0, ids[0][c + 1].0);
    }
    for r in 0..nr - 1 {
        for c in 0..nc {
            sb.quad(
                ids[r][c].1,
                ids[r][c + 1].1,
                ids[r + 1][c].0,
                ids[r + 1][c + 1].0,
            );
        }
    }

    // Folds behind the lids' edges.
    for e in 0..2 {
        let (lo, hi) = lay.eye_cols[e];
        let mut up_fold = Vec::new();
        let mut down_fold = Vec::new();
        for (c, &(u, d)) in ids[lay.r_eye].iter().enumerate().take(hi + 1).skip(lo) {
            if c == lo || c == hi {
                up_fold.push(u);
                down_fold.push(d);
                continue;
            }
            let mut fu = sb.verts[u];
            fu.eye = EyeRole::Flap(e, true);
            let uv_u = sb.uvs[u];
            let mut fd = sb.verts[d];
            fd.eye = EyeRole::Flap(e, false);
            let uv_d = sb.uvs[d];
            up_fold.push(sb.push(fu, uv_u));
            down_fold.push(sb.push(fd, uv_d));
        }
        for k in 0..up_fold.len() - 1 {
            let c = lo + k;
            let (a, b) = (ids[lay.r_eye][c].0, ids[lay.r_eye][c + 1].0);
            sb.quad(a, b, up_fold[k], up_fold[k + 1]);
            let (a, b) = (ids[lay.r_eye][c].1, ids[lay.r_eye][c + 1].1);
            sb.quad(down_fold[k], down_fold[k + 1], a, b);
        }
    }

    // The lips' inner folds: two rows behind each lip's edge.
    let (mr, ml) = lay.mouth_cols;
    let fold = |p: Vec3, xn: f32, upper: bool, level: usize| -> Vec3 {
        let taper = (1.0 - xn * xn).max(0.0).sqrt();
        let dy = if level == 1 { 1.3 } else { 2.7 };
        let dz = if level == 1 { 3.2 } else { 7.0 };
        let dy = if upper { dy } else { -dy };
        p + Vec3::new(0.0, dy, -dz) * MM * taper
    };
    let mut folds: [[Vec<usize>; 2]; 2] = Default::default();
    for (c, &(u, d)) in ids[lay.r_mouth].iter().enumerate().take(ml + 1).skip(mr) {
        for (s, &edge) in [u, d].iter().enumerate() {
            if c == mr || c == ml {
                folds[s][0].push(edge);
                folds[s][1].push(edge);
                continue;
            }
            let v = sb.verts[edge];
            let uv = sb.uvs[edge];
            let xn = v.b.x / lay.x_mouth;
            for (level, list) in folds[s].iter_mut().enumerate() {
                let p = fold(v.p2, xn, s == 0, level + 1);
                list.push(sb.push(SkinVertex { p2: p, ..v }, uv));
            }
        }
    }
    for k in 0..(ml - mr) {
        let c = mr + k;
        let seam_u = (ids[lay.r_mouth][c].0, ids[lay.r_mouth][c + 1].0);
        sb.quad(seam_u.0, seam_u.1, folds[0][0][k], folds[0][0][k + 1]);
        sb.quad(
            folds[0][0][k],
            folds[0][0][k + 1],
            folds[0][1][k],
            folds[0][1][k + 1],
        );
        let seam_d = (ids[lay.r_mouth][c].1, ids[lay.r_mouth][c + 1].1);
        sb.quad(folds[1][0][k], folds[1][0][k + 1], seam_d.0, seam_d.1);
        sb.quad(
            folds[1][1][k],
            folds[1][1][k + 1],
            folds[1][0][k],
            folds[1][0][k + 1],
        );
    }

    // A cap under the neck.
    let last = nr - 1;
    let centre_p = Vec3::new(0.0, NECK_Y, NECK_Z);
    let centre = sb.push(
        SkinVertex {
            b: centre_p,
            p2: centre_p,
            lon: 0.0,
            alpha: -90.0 * DEG,
            col: 0,
            eye: EyeRole::None,
            side: Side::Lower,
            neck: 1.0,
            lash: 0.0,
            xn: 0.0,
            my: -1000.0,
            front: 0.0,
        },
        [0.5, v_of(last)],
    );
    let cap: Vec<usize> = (0..=nc)
        .map(|c| {
            let i = ids[last][c].1;
            let (v, uv) = (sb.verts[i], sb.uvs[i]);
            sb.push(v, uv)
        })
        .collect();
    let cap_first = cap[0] as u32;
    sb.weld[cap[nc]] = cap_first;
    for c in 0..nc {
        sb.tri(cap[c], centre, cap[c + 1]);
    }

    // Shape the lids.
    let no_lids = [Lids::default(); 2];
    let rest: Vec<Vec3> = sb
        .verts
        .iter()
        .map(|v| eye_position(v, &eyes, &no_lids))
        .collect();

    // Landmarks and the mouth interior's rim.
    let seam_upper: Vec<usize> = (mr + 1..ml).map(|c| ids[lay.r_mouth][c].0).collect();
    let seam_lower: Vec<usize> = (mr + 1..ml).map(|c| ids[lay.r_mouth][c].1).collect();
    let corners = [ids[lay.r_mouth][ml].0, ids[lay.r_mouth][mr].0];
    let lid_edges = [0, 1].map(|e| {
        let (lo, hi) = lay.eye_cols[e];
        (lo + 1..hi)
            .filter_map(|c| {
                let (u, d) = ids[lay.r_eye][c];
                eyes[e][c].map(|col| (u, d, col.t))
            })
            .collect::<Vec<_>>()
    });
    let centre_y = rest[corners[0]].y.max(rest[corners[1]].y);
    let angle = |p: Vec3| ((p.y - centre_y) / 0.01).atan2(p.x / lay.x_mouth);
    let mut rim: Vec<(usize, f32)> = Vec::new();
    // Left corner, the upper fold leftwards to rightwards, right corner, the lower fold back.
    for k in (0..folds[0][1].len()).rev() {
        let i = folds[0][1][k];
        let a = if k == folds[0][1].len() - 1 {
            0.0
        } else if k == 0 {
            std::f32::consts::PI
        } else {
            angle(rest[i]).clamp(0.01, std::f32::consts::PI - 0.01)
        };
        rim.push((i, a));
    }
    for &i in &folds[1][1][1..folds[1][1].len() - 1] {
        let a = angle(rest[i]);
        let a = if a < 0.0 {
            a + std::f32::consts::TAU
        } else {
            a
        };
        rim.push((
            i,
            a.clamp(std::f32::consts::PI + 0.01, std::f32::consts::TAU - 0.01),
        ));
    }

    let middle = (0..=nc)
        .min_by(|&a, &b| lay.lons[a].abs().total_cmp(&lay.lons[b].abs()))
        .unwrap_or(0);
    let front_in_rows = |rows: std::ops::Range<usize>, copy_below: bool| {
        rows.map(|r| {
            if copy_below {
                ids[r][middle].1
            } else {
                ids[r][middle].0
            }
        })
        .max_by(|&a, &b| rest[a].z.total_cmp(&rest[b].z))
        .unwrap_or(0)
    };
    let upper_lip_front = front_in_rows(lay.r_mouth.saturating_sub(8)..lay.r_mouth + 1, false);
    let lower_lip_front = front_in_rows(lay.r_mouth..lay.r_mouth + 9, true);
    let nose_tip = (0..lay.r_mouth)
        .map(|r| rest[ids[r][middle].0])
        .max_by(|a, b| a.z.total_cmp(&b.z))
        .unwrap_or(Vec3::ZERO);
    let chin = (lay.r_mouth + 4..nr)
        .map(|r| rest[ids[r][middle].0])
        .max_by(|a, b| a.z.total_cmp(&b.z))
        .unwrap_or(Vec3::ZERO);

    Skin {
        verts: sb.verts,
        rest,
        uvs: sb.uvs,
        indices: sb.indices,
        weld: sb.weld,
        eyes,
        seam_upper,
        seam_lower,
        corners,
        lid_edges,
        rim,
        upper_lip_front,
        lower_lip_front,
        nose_tip,
        chin,
    }
}

// ------------------------------------------------------------------------------------------
// Weights over the face

/// How much a skin vertex follows the jaw.
fn jaw_weight(v: &SkinVertex, lay: &Layout) -> f32 {
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
fn lip_weight(v: &SkinVertex, lay: &Layout, reach: f32) -> f32 {
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
fn side_weight(xn: f32, s: f32) -> f32 {
    smoothstep(-0.4, 0.4, xn * s)
}

/// For a term that moves one lip only: 1 along the slit, fading to 0 at and beyond the corners
/// near the seam's line, where the two lips are one surface.
fn one_lip(xn: f32, my: f32) -> f32 {
    (1.0 - xn * xn)
        .max(0.0)
        .sqrt()
        .max(smoothstep(0.0, 6.0, my.abs()))
}

fn corner_point(lay: &Layout, s: f32) -> Vec2 {
    lay.corners[if s > 0.0 { 0 } else { 1 }]
}

fn bxy(b: Vec3) -> Vec2 {
    v2(b.x, b.y)
}

/// Height of the middle of the eyebrow above a chart point's x.
fn brow_line(ax: f32) -> f32 {
    let xr = ((ax - 0.012) / 0.044).clamp(0.0, 1.0);
    EYE_Y + 0.018 + 0.0055 * (std::f32::consts::PI * 0.75 * xr.powf(0.8)).sin() - 0.004 * xr * xr
}

fn brow_weight(b: Vec3, s: f32, front: f32) -> f32 {
    let ax = b.x * s;
    gauss(b.y - brow_line(ax.abs()), 0.010)
        * smoothstep(0.0, 0.012, ax)
        * (1.0 - smoothstep(0.058, 0.075, ax))
        * front
}

// ------------------------------------------------------------------------------------------
// Skin targets

fn skin_target(target: ArkitTarget, skin: &Skin, normals: &[Vec3], lay: &Layout) -> Vec<Vec3> {
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
fn skin_field(target: ArkitTarget, v: &SkinVertex, p: Vec3, normal: Vec3, lay: &Layout) -> Vec3 {
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

// ------------------------------------------------------------------------------------------
// Other parts

/// Positions, uvs and triangles of a simple part.
#[derive(Clone, Debug, Default)]
struct Shape {
    pos: Vec<Vec3>,
    uvs: Vec<[f32; 2]>,
    indices: Vec<u32>,
}

impl Shape {
    fn tri(&mut self, a: usize, b: usize, c: usize) {
        if a != b && b != c && a != c {
            self.indices.extend([a as u32, b as u32, c as u32]);
        }
    }

    fn quad(&mut self, tl: usize, tr: usize, bl: usize, br: usize) {
        self.tri(tl, bl, br);
        self.tri(tl, br, tr);
    }
}

/// A cap of a sphere about the +Z pole: rings from angle `from` to `to`, radius `radius`.
fn sphere_cap(
    centre: Vec3,
    radius: f32,
    from: f32,
    to: f32,
    rings: usize,
    segments: usize,
) -> Shape {
    let mut s = Shape::default();
    let pole = from <= 0.0;
    let start = if pole {
        s.pos.push(centre + Vec3::Z * radius);
        s.uvs.push([0.5, 0.0]);
        1
    } else {
        0
    };
    for r in start..=rings {
        let a = from + (to - from) * r as f32 / rings as f32;
        for k in 0..=segments {
            let phi = std::f32::consts::TAU * k as f32 / segments as f32;
            let d = Vec3::new(a.sin() * phi.cos(), a.sin() * phi.sin(), a.cos());
            s.pos.push(centre + d * radius);
            s.uvs
                .push([k as f32 / segments as f32, r as f32 / rings as f32]);
        }
    }
    let row = |r: usize, k: usize| {
        if pole {
            1 + (r - 1) * (segments + 1) + k
        } else {
            r * (segments + 1) + k
        }
    };
    if pole {
        for k in 0..segments {
            s.tri(0, row(1, k), row(1, k + 1));
        }
    }
    for r in start..rings {
        for k in 0..segments {
            s.quad(row(r, k), row(r, k + 1), row(r + 1, k), row(r + 1, k + 1));
        }
    }
    s
}

/// Arch of teeth: `upper` hang from above.
fn teeth(upper: bool, seam_y: f32, front_z: f32) -> Shape {
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

fn tongue(seam_y: f32) -> Shape {
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

/// One ear: a flattened, cupped disc standing out from the side of the head.
fn ear(side: f32) -> Shape {
    const AROUND: usize = 24;
    const ACROSS: usize = 4;
    let root = Vec3::new(side * 0.0705, 0.006, -0.010);
    let mut s = Shape::default();
    // Outline in the ear's plane: (back, up) in metres, a tall oval narrowing at the lobe.
    let outline = |a: f32| {
        let (sa, ca) = a.sin_cos();
        let height = if sa > 0.0 { 0.031 } else { 0.029 };
        let width = 0.017 * (1.0 - 0.25 * (-sa).max(0.0));
        v2(ca * width, sa * height)
    };
    let place = |q: Vec2, lift: f32| {
        // The ear's plane faces sideways; its back edge stands out from the head.
        let back = q.x + 0.006;
        let out = 0.003 + 0.42 * back.max(0.0) + lift;
        root + Vec3::new(side * out, q.y, -back)
    };
    let lift = |layer: usize, f: f32| {
        // Cupped front (the bowl) with a rolled rim; the back is flatter.
        let rim = smoothstep(0.65, 1.0, f);
        if layer == 0 {
            -0.004 * (1.0 - f * f) + 0.003 * rim
        } else {
            -0.002 * (1.0 - f * f) - 0.0015 + 0.002 * rim
        }
    };
    // Per layer (front, back): a centre, then rings outwards.
    for layer in 0..2 {
        s.pos.push(place(Vec2::ZERO, lift(layer, 0.0)));
        for r in 1..=ACROSS {
            let f = r as f32 / ACROSS as f32;
            for k in 0..AROUND {
                let a = std::f32::consts::TAU * k as f32 / AROUND as f32;
                s.pos.push(place(outline(a) * f, lift(layer, f)));
            }
        }
    }
    let per_layer = 1 + ACROSS * AROUND;
    let centre = |layer: usize| layer * per_layer;
    let at =
        |layer: usize, r: usize, k: usize| layer * per_layer + 1 + (r - 1) * AROUND + k % AROUND;
    // Facing out of the head on the front layer, into it on the back layer.
    let front_first = side > 0.0;
    for layer in 0..2 {
        let flip = (layer == 0) != front_first;
        for k in 0..AROUND {
            let (a, b) = (at(layer, 1, k), at(layer, 1, k + 1));
            if flip {
                s.tri(centre(layer), b, a);
            } else {
                s.tri(centre(layer), a, b);
            }
        }
        for r in 1..ACROSS {
            for k in 0..AROUND {
                let (a, b) = (at(layer, r, k), at(layer, r, k + 1));
                let (c, d) = (at(layer, r + 1, k), at(layer, r + 1, k + 1));
                if flip {
                    s.quad(a, c, b, d);
                } else {
                    s.quad(a, b, c, d);
                }
            }
        }
    }
    // The rim joins the faces.
    for k in 0..AROUND {
        let (a, b) = (at(0, ACROSS, k), at(0, ACROSS, k + 1));
        let (c, d) = (at(1, ACROSS, k), at(1, ACROSS, k + 1));
        if front_first {
            s.quad(a, b, c, d);
        } else {
            s.quad(a, c, b, d);
        }
    }
    s.uvs = vec![[0.5, 0.995]; s.pos.len()];
    s
}

/// The mouth interior: a bag from the lips' innermost folds back into the head.
fn mouth_bag(skin: &Skin, seam: Vec3) -> (Shape, Vec<f32>, Vec<f32>) {
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

// ------------------------------------------------------------------------------------------
// Normals, colours, textures

/// Area-weighted normals; vertices sharing a weld index share a normal.
fn smooth_normals(pos: &[Vec3], indices: &[u32], weld: Option<&[u32]>) -> Vec<Vec3> {
    let key = |i: usize| weld.map_or(i, |w| w[i] as usize);
    let mut sums = vec![Vec3::ZERO; pos.len()];
    for t in indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| i as usize);
        let n = (pos[b] - pos[a]).cross(pos[c] - pos[a]);
        for i in [a, b, c] {
            sums[key(i)] += n;
        }
    }
    (0..pos.len())
        .map(|i| sums[key(i)].try_normalize().unwrap_or(Vec3::Y))
        .collect()
}

fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn linear_to_srgb(c: f32) -> f32 {
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

fn linear(rgb: [f32; 3]) -> [f32; 4] {
    [
        srgb_to_linear(rgb[0]),
        srgb_to_linear(rgb[1]),
        srgb_to_linear(rgb[2]),
        1.0,
    ]
}

fn mix3(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    let t = t.clamp(0.0, 1.0);
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

/// Hairline height (chart y) by |longitude| in degrees.
fn hairline(lon_deg: f32) -> f32 {
    curve(
        &[
            (0.0, 0.080),
            (30.0, 0.075),
            (55.0, 0.061),
            (75.0, 0.050),
            (90.0, 0.042),
            (102.0, 0.036),
            (118.0, 0.018),
            (140.0, -0.022),
            (165.0, -0.046),
            (180.0, -0.048),
        ],
        lon_deg,
    )
}

/// Colour (sRGB) of the skin at a chart point.
fn skin_colour(b: Vec3, xn: f32, my: f32, lash: f32) -> [f32; 3] {
    let mut c = SKIN_RGB;
    let front = frontness(b);
    let ax = b.x.abs();
    // Cheeks, nose tip and ears a little warmer.
    let blush = gauss2(v2(ax, b.y), v2(0.046, -0.010), v2(0.015, 0.013)) * 0.2
        + gauss2(v2(b.x, b.y), v2(0.0, -0.018), v2(0.008, 0.008)) * 0.15;
    c = mix3(c, [0.86, 0.56, 0.50], blush * front);
    // Lips, darker along the seam.
    if xn.abs() < 1.05 && front > 0.0 {
        let xc = xn.clamp(-0.999, 0.999);
        let h = if my >= 0.0 {
            upper_lip_height(xc)
        } else {
            lower_lip_height(xc)
        };
        let inside = smoothstep(h + 0.35, h - 0.35, my.abs()) * smoothstep(1.02, 0.96, xn.abs());
        let lip = mix3([0.78, 0.46, 0.44], [0.62, 0.30, 0.30], gauss(my, 0.9));
        c = mix3(c, lip, inside * front);
    }
    // Eyebrows: thick at the inner end, tapering to the tail.
    let s = if b.x >= 0.0 { 1.0 } else { -1.0 };
    let xr = (b.x * s - 0.012) / 0.044;
    if (-0.2..1.2).contains(&xr) {
        let xc = xr.clamp(0.0, 1.0);
        let thick = 0.0042 * (1.0 - 0.6 * xc * xc) + 0.0004;
        // The inner end sits a little lower, under the arch.
        let d = (b.y - brow_line(b.x * s) + 0.0008 * (1.0 - xc)).abs();
        let ends = smoothstep(-0.06, 0.05, xr) * smoothstep(1.06, 0.92, xr);
        let brow = smoothstep(thick * 0.5 + 0.0007, thick * 0.5 - 0.0007, d) * ends;
        c = mix3(c, [0.30, 0.21, 0.15], brow * 0.9 * front);
    }
    // Eyelash line.
    c = mix3(c, [0.09, 0.06, 0.05], smoothstep(0.35, 0.6, lash));
    // Nostrils.
    let nostril = gauss2(v2(ax, b.y), v2(0.0062, -0.0262), v2(0.0030, 0.0016));
    c = mix3(
        c,
        [0.36, 0.20, 0.18],
        smoothstep(0.45, 0.8, nostril) * front,
    );
    // Close-cropped hair.
    let lon = lon_of(b).abs() / DEG;
    let hair = smoothstep(-0.003, 0.003, b.y - hairline(lon));
    let sideburn = smoothstep(74.0, 80.0, lon)
        * smoothstep(92.0, 86.0, lon)
        * smoothstep(0.0, 0.012, b.y)
        * 0.8;
    c = mix3(c, [0.22, 0.16, 0.12], hair.max(sideburn) * 0.93);
    c
}

/// The texture value that multiplies the material's base colour to give `rgb`.
fn modulation(rgb: [f32; 3], base: [f32; 3]) -> [u8; 4] {
    let mut out = [255; 4];
    for k in 0..3 {
        let m = (srgb_to_linear(rgb[k]) / srgb_to_linear(base[k])).clamp(0.0, 1.0);
        out[k] = (linear_to_srgb(m) * 255.0).round() as u8;
    }
    out
}

/// Paints the skin's colour map by rasterising its triangles in texture space.
fn skin_texture(skin: &Skin) -> Texture {
    let size = SKIN_TEX_SIZE as usize;
    let mut colour: Vec<Option<[u8; 4]>> = vec![None; size * size];
    for t in skin.indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| i as usize);
        let uv = [a, b, c].map(|i| v2(skin.uvs[i][0], skin.uvs[i][1]) * size as f32);
        let area = (uv[1] - uv[0]).perp_dot(uv[2] - uv[0]);
        if area.abs() < 1e-9 {
            continue;
        }
        let lo = uv[0].min(uv[1]).min(uv[2]).floor().max(Vec2::ZERO);
        let hi = uv[0]
            .max(uv[1])
            .max(uv[2])
            .ceil()
            .min(Vec2::splat(size as f32));
        for y in lo.y as usize..hi.y as usize {
            for x in lo.x as usize..hi.x as usize {
                let p = v2(x as f32 + 0.5, y as f32 + 0.5);
                let w0 = (uv[2] - uv[1]).perp_dot(p - uv[1]) / area;
                let w1 = (uv[0] - uv[2]).perp_dot(p - uv[2]) / area;
                let w2 = 1.0 - w0 - w1;
                if w0 < -1e-4 || w1 < -1e-4 || w2 < -1e-4 {
                    continue;
                }
                let v = [a, b, c].map(|i| skin.verts[i]);
                let bp = v[0].b * w0 + v[1].b * w1 + v[2].b * w2;
                let lash = v[0].lash * w0 + v[1].lash * w1 + v[2].lash * w2;
                let xn = v[0].xn * w0 + v[1].xn * w1 + v[2].xn * w2;
                let my = v[0].my * w0 + v[1].my * w1 + v[2].my * w2;
                colour[y * size + x] = Some(modulation(skin_colour(bp, xn, my, lash), SKIN_RGB));
            }
        }
    }
    dilate(&mut colour, size, 6);
    let rgba = colour.iter().flat_map(|c| c.unwrap_or([255; 4])).collect();
    Texture {
        width: SKIN_TEX_SIZE,
        height: SKIN_TEX_SIZE,
        rgba,
    }
}

/// Grows painted texels into unpainted ones, so filtering never reads unpainted colour.
fn dilate(texels: &mut [Option<[u8; 4]>], size: usize, steps: usize) {
    for _ in 0..steps {
        let before = texels.to_vec();
        for y in 0..size {
            for x in 0..size {
                if before[y * size + x].is_some() {
                    continue;
                }
                let neighbour = [(0, -1), (0, 1), (-1, 0), (1, 0)]
                    .iter()
                    .filter_map(|&(dx, dy): &(i32, i32)| {
                        let (nx, ny) = (x as i32 + dx, y as i32 + dy);
                        if nx < 0 || ny < 0 || nx >= size as i32 || ny >= size as i32 {
                            return None;
                        }
                        before[ny as usize * size + nx as usize]
                    })
                    .next();
                if neighbour.is_some() {
                    texels[y * size + x] = neighbour;
                }
            }
        }
    }
}

const IRIS_RGB: [f32; 3] = [0.47, 0.33, 0.20];

/// Iris pattern: u around the iris, v from the pupil (0) to the rim (1).
fn iris_texture() -> Texture {
    const W: u32 = 128;
    const H: u32 = 32;
    let mut rgba = Vec::with_capacity((W * H * 4) as usize);
    for y in 0..H {
        let v = (y as f32 + 0.5) / H as f32;
        for x in 0..W {
            let u = (x as f32 + 0.5) / W as f32;
            // Deterministic streaks: a few sines of the angle.
            let a = u * std::f32::consts::TAU;
            let streak = 0.5
                + 0.25 * (a * 37.0).sin()
                + 0.15 * (a * 61.0 + 1.3).sin()
                + 0.1 * (a * 89.0 + v * 5.0).sin();
            let mut c = mix3([0.36, 0.24, 0.13], IRIS_RGB, streak.clamp(0.0, 1.0));
            // Lighter ring near the pupil, dark rim at the edge.
            c = mix3(c, [0.58, 0.44, 0.26], gauss(v - 0.25, 0.12) * 0.6);
            c = mix3(c, [0.12, 0.09, 0.07], smoothstep(0.78, 0.98, v));
            rgba.extend(modulation(c, IRIS_RGB));
        }
    }
    Texture {
        width: W,
        height: H,
        rgba,
    }
}

fn textures() -> Vec<Option<Texture>> {
    let lay = layout();
    let skin = build_skin(&lay);
    vec![Some(skin_texture(&skin)), Some(iris_texture())]
}

fn material(name: &str, rgb: [f32; 3], texture: Option<usize>, double_sided: bool) -> Material {
    Material {
        name: Some(name.to_owned()),
        base_color: linear(rgb),
        base_color_texture: texture,
        alpha_mode: AlphaMode::Opaque,
        double_sided,
    }
}

// ------------------------------------------------------------------------------------------
// Assembly

struct Build {
    parts: Vec<HeadPart>,
    landmarks: HeadLandmarks,
}

/// A part from positions, triangles and per-target deltas (targets that move nothing are left
/// out). Normal deltas follow the deformed triangles.
fn part(
    name: &'static str,
    shape: &Shape,
    weld: Option<&[u32]>,
    deltas: Vec<(ArkitTarget, Vec<Vec3>)>,
    material: Material,
) -> HeadPart {
    let normals = smooth_normals(&shape.pos, &shape.indices, weld);
    let mut targets = Vec::new();
    let mut target_names = Vec::new();
    for (target, d) in deltas {
        if !d.iter().any(|v| v.abs().max_element() > 1e-6) {
            continue;
        }
        let moved: Vec<Vec3> = shape.pos.iter().zip(&d).map(|(&p, &q)| p + q).collect();
        let moved_normals = smooth_normals(&moved, &shape.indices, weld);
        // Float noise from rebuilding unmoved vertices is dropped, so files can store targets
        // sparsely.
        let clean = |v: Vec3, tiny: f32| {
            if v.abs().max_element() < tiny {
                Vec3::ZERO
            } else {
                v
            }
        };
        targets.push(MorphTarget {
            positions: d.iter().map(|&v| clean(v, 1e-7).to_array()).collect(),
            normals: moved_normals
                .iter()
                .zip(&normals)
                .map(|(a, b)| clean(*a - *b, 1e-4).to_array())
                .collect(),
        });
        target_names.push(target.name());
    }
    HeadPart {
        name,
        primitive: Primitive {
            positions: shape.pos.iter().map(|p| p.to_array()).collect(),
            normals: normals.iter().map(|n| n.to_array()).collect(),
            uvs: shape.uvs.clone(),
            joints: Vec::new(),
            weights: Vec::new(),
            indices: shape.indices.clone(),
            targets,
            material: None,
        },
        target_names,
        material,
    }
}

/// Jaw movement of a rigid point following the jaw with weight `w`.
fn jaw_delta(target: ArkitTarget, p: Vec3, w: f32) -> Vec3 {
    match target {
        ArkitTarget::JawOpen => rot_x(p, HINGE, JAW_OPEN * w) - p,
        ArkitTarget::JawForward => Vec3::Z * (JAW_FORWARD * w),
        ArkitTarget::JawLeft => Vec3::X * (JAW_SHIFT * w),
        ArkitTarget::JawRight => Vec3::X * (-JAW_SHIFT * w),
        _ => Vec3::ZERO,
    }
}

fn build() -> Build {
    let lay = layout();
    let skin = build_skin(&lay);
    let skin_normals = smooth_normals(&skin.rest, &skin.indices, Some(&skin.weld));
    let skin_deltas: Vec<(ArkitTarget, Vec<Vec3>)> = ArkitTarget::ALL
        .iter()
        .map(|&t| (t, skin_target(t, &skin, &skin_normals, &lay)))
        .collect();
    let skin_material = material("skin", SKIN_RGB, Some(SKIN_TEXTURE), false);
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
                (down, moved(&|p| rot_x(p, c, 26.0 * DEG))),
                (inward, moved(&|p| rot_y(p, c, -s * 28.0 * DEG))),
                (outward, moved(&|p| rot_y(p, c, s * 28.0 * DEG))),
                (up, moved(&|p| rot_x(p, c, -22.0 * DEG))),
            ]
        };
        parts.push(part(
            sclera_name,
            &sclera,
            None,
            look(&sclera),
            material("sclera", [0.95, 0.94, 0.92], None, false),
        ));
        parts.push(part(
            iris_name,
            &iris,
            None,
            look(&iris),
            material("iris", IRIS_RGB, Some(IRIS_TEXTURE), false),
        ));
        parts.push(part(
            pupil_name,
            &pupil,
            None,
            look(&pupil),
            material("pupil", [0.02, 0.02, 0.02], None, false),
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
        material("teeth", [0.93, 0.90, 0.82], None, false),
    ));
    parts.push(part(
        "teeth_lower",
        &lower_teeth,
        None,
        rigid_jaw(&lower_teeth),
        material("teeth", [0.93, 0.90, 0.82], None, false),
    ));
    parts.push(part(
        TONGUE_PART,
        &tongue_shape,
        None,
        tongue_deltas,
        material("tongue", [0.80, 0.42, 0.45], None, false),
    ));
    parts.push(part(
        "mouth",
        &bag,
        None,
        bag_deltas,
        material("mouth", [0.32, 0.09, 0.10], None, true),
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

#[cfg(test)]
mod tests {
    use std::sync::OnceLock;

    use super::*;
    use crate::asset::Asset;

    /// The head loaded back through the glTF loader, with its landmarks.
    fn loaded() -> &'static (Asset, HeadLandmarks) {
        static LOADED: OnceLock<(Asset, HeadLandmarks)> = OnceLock::new();
        LOADED.get_or_init(|| {
            let asset = Asset::from_bytes(&head_glb(), None).expect("the head's GLB loads");
            (asset, landmarks())
        })
    }

    fn mesh_index(asset: &Asset, name: &str) -> usize {
        asset
            .meshes
            .iter()
            .position(|m| m.name.as_deref() == Some(name))
            .expect("the part is in the file")
    }

    /// Positions of every primitive (`[mesh][primitive][vertex]`) with targets applied:
    /// base + sum of weight * delta, through the face rig.
    fn posed(asset: &Asset, weights: &[(ArkitTarget, f32)]) -> Vec<Vec<Vec<Vec3>>> {
        let mut out: Vec<Vec<Vec<Vec3>>> = asset
            .meshes
            .iter()
            .map(|m| {
                m.primitives
                    .iter()
                    .map(|p| p.positions.iter().map(|&q| Vec3::from(q)).collect())
                    .collect()
            })
            .collect();
        for &(target, w) in weights {
            for r in asset.face_rig.arkit(target) {
                let deltas = &asset.meshes[r.mesh].primitives[r.primitive].targets[r.target];
                for (p, d) in out[r.mesh][r.primitive].iter_mut().zip(&deltas.positions) {
                    *p += Vec3::from(*d) * w;
                }
            }
        }
        out
    }

    fn skin_points(weights: &[(ArkitTarget, f32)]) -> Vec<Vec3> {
        let (asset, _) = loaded();
        let mut all = posed(asset, weights);
        std::mem::take(&mut all[mesh_index(asset, SKIN_PART)][0])
    }

    /// Largest distance between paired upper and lower lip edge vertices.
    fn lip_gap(points: &[Vec3], marks: &HeadLandmarks) -> f32 {
        marks
            .upper_lip_inner
            .iter()
            .zip(&marks.lower_lip_inner)
            .map(|(&u, &l)| points[u].distance(points[l]))
            .fold(0.0, f32::max)
    }

    #[test]
    fn the_face_rig_covers_all_52_targets() {
        let (asset, _) = loaded();
        assert_eq!(
            asset.face_rig.arkit_coverage(),
            52,
            "{:?}",
            asset.face_rig.arkit_missing()
        );
        assert!(asset.warnings.is_empty(), "{:?}", asset.warnings);
        assert_eq!(asset.roots.len(), 1);
        let root = &asset.nodes[asset.roots[0]];
        assert_eq!(root.name.as_deref(), Some("Head"));
        assert_eq!(root.children.len(), asset.meshes.len());
    }

    #[test]
    fn every_target_moves_some_vertex_by_half_a_millimetre() {
        let (asset, _) = loaded();
        for target in ArkitTarget::ALL {
            let largest = asset
                .face_rig
                .arkit(target)
                .iter()
                .flat_map(|r| {
                    asset.meshes[r.mesh].primitives[r.primitive].targets[r.target]
                        .positions
                        .iter()
                        .map(|d| Vec3::from(*d).length())
                })
                .fold(0.0, f32::max);
            assert!(
                largest > 0.0005,
                "{} moves at most {largest} m",
                target.name()
            );
        }
    }

    #[test]
    fn targets_repeat_on_the_parts_that_follow_them() {
        let (asset, _) = loaded();
        let carriers = |t: ArkitTarget| -> Vec<&str> {
            asset
                .face_rig
                .arkit(t)
                .iter()
                .filter_map(|r| asset.meshes[r.mesh].name.as_deref())
                .collect()
        };
        let jaw = carriers(ArkitTarget::JawOpen);
        for part in [SKIN_PART, "teeth_lower", TONGUE_PART, "mouth"] {
            assert!(jaw.contains(&part), "jawOpen is not on {part}: {jaw:?}");
        }
        let look = carriers(ArkitTarget::EyeLookInLeft);
        for part in ["eye_left", "iris_left", "pupil_left"] {
            assert!(
                look.contains(&part),
                "eyeLookInLeft is not on {part}: {look:?}"
            );
        }
        assert!(!look.contains(&"eye_right"), "{look:?}");
        assert!(carriers(ArkitTarget::EyeBlinkLeft).contains(&SKIN_PART));
    }

    #[test]
    fn a_blink_brings_the_upper_lid_below_the_pupil() {
        let (_, marks) = loaded();
        let rest = skin_points(&[]);
        for (e, target) in [
            (0, ArkitTarget::EyeBlinkLeft),
            (1, ArkitTarget::EyeBlinkRight),
        ] {
            let pupil = marks.pupil_centres[e];
            assert!(marks.upper_lid[e].len() >= 3);
            for &i in &marks.upper_lid[e] {
                assert!(rest[i].y > pupil.y + 0.003, "the eye is open at rest");
            }
            let shut = skin_points(&[(target, 1.0)]);
            for (&u, &l) in marks.upper_lid[e].iter().zip(&marks.lower_lid[e]) {
                assert!(
                    shut[u].y < pupil.y,
                    "upper lid at {} over a pupil at {}",
                    shut[u].y,
                    pupil.y
                );
                assert!(shut[u].distance(shut[l]) < 0.0005, "the lids meet");
                // The lid stays in front of the eyeball.
                assert!(shut[u].distance(marks.eye_centres[e]) > EYE_R);
            }
            // The other eye stays open.
            let other = 1 - e;
            for &i in &marks.upper_lid[other] {
                assert!(shut[i].distance(rest[i]) < 1e-5);
            }
        }
    }

    #[test]
    fn the_lips_are_closed_at_rest_and_mouth_close_seals_an_open_jaw() {
        let (_, marks) = loaded();
        assert!(
            lip_gap(&skin_points(&[]), marks) < 1e-5,
            "no crack at the seam"
        );
        for w in [0.25, 0.5, 1.0] {
            let open = skin_points(&[(ArkitTarget::JawOpen, w)]);
            assert!(lip_gap(&open, marks) > 0.01 * w);
            let closed = skin_points(&[(ArkitTarget::JawOpen, w), (ArkitTarget::MouthClose, w)]);
            let gap = lip_gap(&closed, marks);
            assert!(
                gap < 0.001,
                "jawOpen = mouthClose = {w}: lips {gap} m apart"
            );
        }
    }

    #[test]
    fn jaw_open_opens_the_lips_by_15_mm() {
        let (_, marks) = loaded();
        let open = skin_points(&[(ArkitTarget::JawOpen, 1.0)]);
        let gap = lip_gap(&open, marks);
        assert!(gap >= 0.015, "lips {gap} m apart");
        // Down and back, about the hinge.
        let mid = marks.lower_lip_inner.len() / 2;
        let rest = skin_points(&[]);
        let i = marks.lower_lip_inner[mid];
        assert!(open[i].y < rest[i].y - 0.015 && open[i].z < rest[i].z);
        let j = marks.upper_lip_inner[mid];
        assert!(open[j].distance(rest[j]) < 0.001, "the upper lip stays");
    }

    #[test]
    fn press_closes_the_lips_too() {
        let (_, marks) = loaded();
        let pressed = skin_points(&[
            (ArkitTarget::MouthPressLeft, 1.0),
            (ArkitTarget::MouthPressRight, 1.0),
        ]);
        assert!(lip_gap(&pressed, marks) < 0.001);
    }

    #[test]
    fn pucker_draws_both_corners_inwards() {
        let (_, marks) = loaded();
        let rest = skin_points(&[]);
        let pucker = skin_points(&[(ArkitTarget::MouthPucker, 1.0)]);
        for &c in &marks.lip_corners {
            assert!(
                pucker[c].x.abs() < rest[c].x.abs() - 0.004,
                "{} -> {}",
                rest[c].x,
                pucker[c].x
            );
            assert!(pucker[c].z > rest[c].z);
        }
        assert!(lip_gap(&pucker, marks) < 0.001);
    }

    #[test]
    fn smile_left_raises_the_left_corner() {
        let (_, marks) = loaded();
        let rest = skin_points(&[]);
        let smile = skin_points(&[(ArkitTarget::MouthSmileLeft, 1.0)]);
        let [left, right] = marks.lip_corners;
        assert!(rest[left].x > 0.0 && rest[right].x < 0.0, "left is +X");
        assert!(smile[left].y > rest[left].y + 0.003);
        assert!(smile[right].distance(rest[right]) < 0.0005);
        let frown = skin_points(&[(ArkitTarget::MouthFrownRight, 1.0)]);
        assert!(frown[right].y < rest[right].y - 0.003);
    }

    #[test]
    fn tongue_out_puts_the_tip_in_front_of_the_lips() {
        let (asset, marks) = loaded();
        let rest = skin_points(&[]);
        let lips = rest[marks.upper_lip_front]
            .z
            .max(rest[marks.lower_lip_front].z);
        let tongue = mesh_index(asset, TONGUE_PART);
        let inside = posed(asset, &[])[tongue][0][marks.tongue_tip];
        assert!(inside.z < lips - 0.01, "the tongue is inside at rest");
        let out = posed(asset, &[(ArkitTarget::TongueOut, 1.0)])[tongue][0][marks.tongue_tip];
        assert!(out.z > lips, "tip at z = {}, lips at {lips}", out.z);
        let both = posed(
            asset,
            &[(ArkitTarget::TongueOut, 1.0), (ArkitTarget::JawOpen, 0.5)],
        );
        assert!(both[tongue][0][marks.tongue_tip].z > lips);
    }

    #[test]
    fn eye_look_turns_each_eye_about_its_centre() {
        let (asset, marks) = loaded();
        let pupil = mesh_index(asset, "pupil_left");
        let right = mesh_index(asset, "pupil_right");
        let rest = posed(asset, &[]);
        let center = |p: &[Vec3]| p.iter().fold(Vec3::ZERO, |a, &b| a + b) / p.len() as f32;
        let at_rest = center(&rest[pupil][0]);
        for (target, check) in [
            (
                ArkitTarget::EyeLookInLeft,
                (|d: Vec3| d.x < -0.003) as fn(Vec3) -> bool,
            ),
            (ArkitTarget::EyeLookOutLeft, |d: Vec3| d.x > 0.003),
            (ArkitTarget::EyeLookUpLeft, |d: Vec3| d.y > 0.003),
            (ArkitTarget::EyeLookDownLeft, |d: Vec3| d.y < -0.003),
        ] {
            let moved = posed(asset, &[(target, 1.0)]);
            let d = center(&moved[pupil][0]) - at_rest;
            assert!(check(d), "{}: pupil moved {d}", target.name());
            // Rotation about the eye's centre keeps the pupil on the eyeball.
            let r = moved[pupil][0][0].distance(marks.eye_centres[0]);
            assert!((r - (EYE_R + 0.00025)).abs() < 1e-4);
            assert_eq!(moved[right][0], rest[right][0], "the right eye stays");
        }
    }

    #[test]
    fn the_glb_is_deterministic() {
        assert!(head_glb() == head_glb());
    }

    /// Signed volume of a triangle mesh: positive when its triangles face out.
    fn volume(p: &Primitive) -> f32 {
        p.indices
            .chunks_exact(3)
            .map(|t| {
                let [a, b, c] = [t[0], t[1], t[2]].map(|i| Vec3::from(p.positions[i as usize]));
                a.dot(b.cross(c)) / 6.0
            })
            .sum()
    }

    #[test]
    fn parts_face_outwards_and_are_well_formed() {
        let parts = head_parts();
        let total: usize = parts.iter().map(|p| p.primitive.positions.len()).sum();
        assert!((5_000..20_000).contains(&total), "{total} vertices");
        for part in &parts {
            let p = &part.primitive;
            assert_eq!(p.targets.len(), part.target_names.len(), "{}", part.name);
            assert_eq!(p.normals.len(), p.positions.len());
            assert!(p.uvs.is_empty() || p.uvs.len() == p.positions.len());
            assert!(p.indices.iter().all(|&i| (i as usize) < p.positions.len()));
            assert!(p.positions.iter().flatten().all(|v| v.is_finite()));
            for n in &p.normals {
                assert!(
                    (Vec3::from(*n).length() - 1.0).abs() < 1e-3,
                    "{}",
                    part.name
                );
            }
            for t in &p.targets {
                assert_eq!(t.positions.len(), p.positions.len());
            }
            for name in &part.target_names {
                assert!(ArkitTarget::from_name(name).is_some());
            }
            if part.name != "mouth" {
                // Offset so the volume is taken about a point inside the part.
                let centre = p
                    .positions
                    .iter()
                    .fold(Vec3::ZERO, |a, &b| a + Vec3::from(b))
                    / p.positions.len() as f32;
                let shifted = Primitive {
                    positions: p
                        .positions
                        .iter()
                        .map(|&q| (Vec3::from(q) - centre).to_array())
                        .collect(),
                    indices: p.indices.clone(),
                    ..Primitive::default()
                };
                assert!(volume(&shifted) > 0.0, "{} faces inwards", part.name);
            }
        }
    }

    #[test]
    fn the_eyeballs_stay_behind_the_skin() {
        let parts = head_parts();
        let marks = landmarks();
        let skin = &parts[0];
        assert_eq!(skin.name, SKIN_PART);
        let lay = layout();
        let built = build_skin(&lay);
        for (i, v) in built.verts.iter().enumerate() {
            if matches!(v.eye, EyeRole::Flap(..)) {
                continue;
            }
            let p = Vec3::from(skin.primitive.positions[i]);
            for c in marks.eye_centres {
                assert!(
                    p.distance(c) > EYE_R + 0.0008,
                    "skin vertex {i} at {p} cuts an eyeball"
                );
            }
        }
    }

    #[test]
    fn the_teeth_sit_behind_the_lips_and_the_neck_base_is_low() {
        let parts = head_parts();
        let marks = landmarks();
        let skin = &parts[0].primitive;
        let seam_z =
            Vec3::from(skin.positions[marks.upper_lip_inner[marks.upper_lip_inner.len() / 2]]).z;
        for part in parts
            .iter()
            .filter(|p| p.name.starts_with("teeth") || p.name == TONGUE_PART)
        {
            let front = part
                .primitive
                .positions
                .iter()
                .map(|p| p[2])
                .fold(f32::MIN, f32::max);
            assert!(front < seam_z - 0.005, "{} reaches z = {front}", part.name);
        }
        assert!((marks.neck_base.y + 0.12).abs() < 1e-6);
        let lowest = skin.positions.iter().map(|p| p[1]).fold(f32::MAX, f32::min);
        assert!((lowest + 0.12).abs() < 0.002);
        assert!(marks.nose_tip.z > marks.chin.z && marks.chin.y < marks.nose_tip.y);
    }

    /// Triangles of the skin that turn over when the given targets are applied.
    fn folds(weights: &[(ArkitTarget, f32)]) -> usize {
        static PARTS: OnceLock<Vec<HeadPart>> = OnceLock::new();
        let parts = PARTS.get_or_init(head_parts);
        let skin = &parts[0].primitive;
        let rest: Vec<Vec3> = skin.positions.iter().map(|&q| Vec3::from(q)).collect();
        let mut moved = rest.clone();
        for &(target, w) in weights {
            let t = parts[0]
                .target_names
                .iter()
                .position(|&n| n == target.name());
            let Some(t) = t else { continue };
            for (m, d) in moved.iter_mut().zip(&skin.targets[t].positions) {
                *m += Vec3::from(*d) * w;
            }
        }
        skin.indices
            .chunks_exact(3)
            .filter(|t| {
                let [a, b, c] = [t[0], t[1], t[2]].map(|i| i as usize);
                let before = (rest[b] - rest[a]).cross(rest[c] - rest[a]);
                let after = (moved[b] - moved[a]).cross(moved[c] - moved[a]);
                before.length() > 1e-10 && before.dot(after) < 0.0
            })
            .count()
    }

    #[test]
    fn no_target_folds_the_skin() {
        for target in ArkitTarget::ALL {
            // mouthClose corrects jawOpen and is only meant with it.
            if target != ArkitTarget::MouthClose {
                assert_eq!(
                    folds(&[(target, 1.0)]),
                    0,
                    "{} folds the skin",
                    target.name()
                );
            }
        }
        for w in [0.5, 1.0] {
            let close = [(ArkitTarget::JawOpen, w), (ArkitTarget::MouthClose, w)];
            assert_eq!(folds(&close), 0);
        }
        let smile = [
            (ArkitTarget::JawOpen, 1.0),
            (ArkitTarget::MouthSmileLeft, 1.0),
            (ArkitTarget::MouthSmileRight, 1.0),
        ];
        assert_eq!(folds(&smile), 0);
    }
}
