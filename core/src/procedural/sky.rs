//! Three sky cubemaps made by code: a morning "day" sky with a low warm sun, a bluer "noon"
//! sky with the sun high, and a "night" sky with seeded stars and a moon.
//!
//! Every texel is coloured from its direction alone, so the faces meet without seams. Faces
//! come in wgpu / Vulkan cube layer order (+X, -X, +Y, -Y, +Z, -Z) with the usual cube map
//! texel convention (row 0 at the top of each face; the direction of texel (s, t) follows the
//! table of the Vulkan specification, "Cube Map Face Selection"). A renderer that samples the
//! cube with a world direction sees the sun at [`sun_direction`].

use std::path::{Path, PathBuf};

use glam::Vec3;

use crate::asset::material::Texture;

/// Which of the three skies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkyKind {
    /// Morning: warm light, the sun low in the east.
    Day,
    /// Midday: deeper blue, the sun high.
    Noon,
    /// Night: dark blue, stars and a moon.
    Night,
}

impl SkyKind {
    /// Every sky, in the order of a day cycle.
    pub const ALL: [Self; 3] = [Self::Day, Self::Noon, Self::Night];

    /// The lower-case name used in file names: `"day"`, `"noon"`, `"night"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Day => "day",
            Self::Noon => "noon",
            Self::Night => "night",
        }
    }
}

/// The file suffix of each face, in layer order.
pub const FACE_SUFFIXES: [&str; 6] = ["px", "nx", "py", "ny", "pz", "nz"];

/// Seed of the night sky's stars.
const STAR_SEED: u64 = 0x5ee0_da7a_0057_a125;

/// Star cells per unit of direction space (a star lies in about 7% of the cells on the sphere).
const STAR_CELLS: f32 = 48.0;

/// Direction from an elevation and an azimuth (radians; azimuth 0 is +Z, π/2 is +X).
fn from_angles(elevation: f32, azimuth: f32) -> Vec3 {
    Vec3::new(
        elevation.cos() * azimuth.sin(),
        elevation.sin(),
        elevation.cos() * azimuth.cos(),
    )
}

/// Unit direction toward the sun (day, noon) or the moon (night), the light a renderer should
/// match to its sky.
#[must_use]
pub fn sun_direction(kind: SkyKind) -> Vec3 {
    match kind {
        SkyKind::Day => from_angles(14_f32.to_radians(), 115_f32.to_radians()),
        SkyKind::Noon => from_angles(66_f32.to_radians(), 150_f32.to_radians()),
        SkyKind::Night => from_angles(32_f32.to_radians(), -160_f32.to_radians()),
    }
}

/// The colours of one sky.
#[derive(Clone, Copy, Debug)]
struct Look {
    zenith: Vec3,
    horizon: Vec3,
    /// Haze just above and below the horizon.
    haze: Vec3,
    ground: Vec3,
    sun: Vec3,
    glow: Vec3,
    /// Angular radius of the sun or moon disc, radians.
    disc: f32,
    /// Broad glow around the sun.
    glow_strength: f32,
    /// How much the horizon warms toward the sun's azimuth.
    horizon_warmth: f32,
}

fn look(kind: SkyKind) -> Look {
    match kind {
        SkyKind::Day => Look {
            zenith: Vec3::new(0.24, 0.42, 0.74),
            horizon: Vec3::new(0.86, 0.80, 0.74),
            haze: Vec3::new(0.90, 0.82, 0.72),
            ground: Vec3::new(0.27, 0.30, 0.21),
            sun: Vec3::new(1.0, 0.93, 0.78),
            glow: Vec3::new(1.0, 0.72, 0.42),
            disc: 0.035,
            glow_strength: 0.55,
            horizon_warmth: 0.22,
        },
        SkyKind::Noon => Look {
            zenith: Vec3::new(0.10, 0.32, 0.80),
            horizon: Vec3::new(0.66, 0.80, 0.95),
            haze: Vec3::new(0.78, 0.86, 0.95),
            ground: Vec3::new(0.30, 0.36, 0.24),
            sun: Vec3::new(1.0, 0.99, 0.94),
            glow: Vec3::new(1.0, 0.96, 0.86),
            disc: 0.03,
            glow_strength: 0.35,
            horizon_warmth: 0.0,
        },
        SkyKind::Night => Look {
            zenith: Vec3::new(0.008, 0.014, 0.045),
            horizon: Vec3::new(0.045, 0.065, 0.13),
            haze: Vec3::new(0.05, 0.07, 0.12),
            ground: Vec3::new(0.015, 0.02, 0.025),
            sun: Vec3::new(0.92, 0.93, 0.88),
            glow: Vec3::new(0.35, 0.42, 0.6),
            disc: 0.04,
            glow_strength: 0.25,
            horizon_warmth: 0.0,
        },
    }
}

fn smoothstep(edge0: f32, edge1: f32, x: f32) -> f32 {
    let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// A 64-bit mix (splitmix64's finaliser).
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A uniform value in 0..1 from a hash.
fn unit(h: u64) -> f32 {
    // The top 24 bits fit an f32 exactly.
    (h >> 40) as f32 / (1_u64 << 24) as f32
}

/// Hash of a star cell.
fn cell_hash(x: i32, y: i32, z: i32) -> u64 {
    let pack = (u64::from(x.cast_unsigned()) << 42)
        ^ (u64::from(y.cast_unsigned()) << 21)
        ^ u64::from(z.cast_unsigned());
    mix64(pack ^ STAR_SEED)
}

/// Starlight in direction `d`: each cell of a 3D grid near the unit sphere holds at most one
/// star at a seeded spot; a star is a small Gaussian spot `sigma` radians wide.
fn stars(d: Vec3, sigma: f32) -> Vec3 {
    let p = d * STAR_CELLS;
    let base = p.floor();
    let mut light = Vec3::ZERO;
    for dx in -1..=1 {
        for dy in -1..=1 {
            for dz in -1..=1 {
                // Cell coordinates stay within ±49: the casts are exact.
                let cx = base.x as i32 + dx;
                let cy = base.y as i32 + dy;
                let cz = base.z as i32 + dz;
                let h = cell_hash(cx, cy, cz);
                if unit(h) > 0.07 {
                    continue;
                }
                let h1 = mix64(h ^ 1);
                let h2 = mix64(h ^ 2);
                let h3 = mix64(h ^ 3);
                let spot = Vec3::new(
                    cx as f32 + unit(h1),
                    cy as f32 + unit(h2),
                    cz as f32 + unit(h3),
                ) / STAR_CELLS;
                // Only spots in a shell one cell thick around the sphere: an even density.
                if (spot.length() - 1.0).abs() > 0.5 / STAR_CELLS {
                    continue;
                }
                let dir = spot.normalize();
                let cos = d.dot(dir);
                if cos < 0.99 {
                    continue;
                }
                let angle2 = 2.0 * (1.0 - cos).max(0.0);
                let h4 = mix64(h ^ 4);
                let brightness = 0.15 + 0.85 * unit(h4).powi(3);
                let tint = unit(mix64(h ^ 5));
                let colour = Vec3::new(0.85 + 0.15 * tint, 0.9, 1.0 - 0.15 * tint);
                light += colour * brightness * (-angle2 / (sigma * sigma)).exp();
            }
        }
    }
    light
}

/// Smooth value noise over a direction, for the moon's markings (0..1).
fn soft_noise(d: Vec3) -> f32 {
    let a = (d.x * 61.0 + d.y * 17.0).sin() * (d.y * 53.0 - d.z * 29.0).cos();
    let b = (d.z * 47.0 + d.x * 23.0).sin() * (d.x * 37.0 + d.z * 71.0).sin();
    0.5 + 0.25 * (a + b)
}

/// The colour of the sky in direction `d` (unit), linear-ish 0..1 values, before 8-bit
/// quantisation. `texel` is the angular size of one texel, so that stars stay visible at any
/// cube size.
fn colour(kind: SkyKind, d: Vec3, texel: f32) -> Vec3 {
    let l = look(kind);
    let s = sun_direction(kind);
    let e = d.y;
    let mut c = if e >= 0.0 {
        let t = e.powf(0.45);
        let sky = l.horizon.lerp(l.zenith, t);
        // A thin haze band on the horizon.
        sky.lerp(l.haze, (1.0 - smoothstep(0.0, 0.08, e)) * 0.6)
    } else {
        l.haze.lerp(l.ground, smoothstep(0.0, 0.1, -e))
    };
    // The horizon warms toward the sun's side (mornings).
    if l.horizon_warmth > 0.0 {
        let flat = Vec3::new(d.x, 0.0, d.z).normalize_or_zero();
        let sun_flat = Vec3::new(s.x, 0.0, s.z).normalize_or_zero();
        let toward = (flat.dot(sun_flat) * 0.5 + 0.5).powi(3);
        let band = (1.0 - e.abs()).max(0.0).powi(6);
        c += l.glow * (l.horizon_warmth * toward * band);
    }
    let cos = d.dot(s);
    let above = smoothstep(-0.02, 0.02, e);
    // Glow: broad and tight halos.
    let near = cos.max(0.0);
    c += l.glow * (l.glow_strength * (0.45 * near.powi(8) + 0.55 * near.powi(90)) * above);
    // The disc, anti-aliased over about a texel.
    let angle = cos.clamp(-1.0, 1.0).acos();
    let edge = texel.max(0.002);
    let disc = 1.0 - smoothstep(l.disc - edge, l.disc + edge, angle);
    if disc > 0.0 {
        let body = if kind == SkyKind::Night {
            // A pale moon with soft darker seas.
            l.sun * (0.82 + 0.18 * soft_noise(d))
        } else {
            l.sun * 1.2
        };
        c = c.lerp(body, disc * above);
    }
    if kind == SkyKind::Night && e > -0.05 {
        // At most a third of a star cell, so that the 27 cells searched hold the whole spot.
        let sigma = (texel * 0.9).clamp(0.0015, 0.33 / STAR_CELLS);
        let fade = smoothstep(0.0, 0.2, e) * (1.0 - disc);
        c += stars(d, sigma) * fade;
    }
    c.clamp(Vec3::ZERO, Vec3::ONE)
}

/// The direction of a point of face `face` (layer order +X, -X, +Y, -Y, +Z, -Z) at face
/// coordinates `sc`, `tc` in -1..1 (`tc` growing downward from the face's top row).
pub fn face_direction(face: usize, sc: f32, tc: f32) -> Vec3 {
    let d = match face {
        0 => Vec3::new(1.0, -tc, -sc),
        1 => Vec3::new(-1.0, -tc, sc),
        2 => Vec3::new(sc, 1.0, tc),
        3 => Vec3::new(sc, -1.0, -tc),
        4 => Vec3::new(sc, -tc, 1.0),
        _ => Vec3::new(-sc, -tc, -1.0),
    };
    d.normalize()
}

fn to_byte(v: f32) -> u8 {
    // Clamped to 0..255 first, so the cast is exact.
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// The six faces of a sky, each `size` × `size` RGBA (sRGB), in the order +X, -X, +Y, -Y,
/// +Z, -Z. The same arguments always give the same texels. A `size` of 0 is taken as 1.
#[must_use]
pub fn cubemap(kind: SkyKind, size: u32) -> [Texture; 6] {
    let size = size.max(1);
    let n = size as usize;
    let texel = std::f32::consts::FRAC_PI_2 / size as f32;
    std::array::from_fn(|face| {
        let mut rgba = Vec::with_capacity(n * n * 4);
        for y in 0..size {
            let tc = 2.0 * (y as f32 + 0.5) / size as f32 - 1.0;
            for x in 0..size {
                let sc = 2.0 * (x as f32 + 0.5) / size as f32 - 1.0;
                let c = colour(kind, face_direction(face, sc, tc), texel);
                rgba.extend_from_slice(&[to_byte(c.x), to_byte(c.y), to_byte(c.z), 255]);
            }
        }
        Texture {
            width: size,
            height: size,
            rgba,
        }
    })
}

/// Writes every sky as `sky_{name}_{px,nx,py,ny,pz,nz}.png` into `dir` (which must exist) and
/// returns the paths written, sky by sky in [`SkyKind::ALL`] order, faces in layer order.
pub fn write_skies(dir: &Path, size: u32) -> std::io::Result<Vec<PathBuf>> {
    let mut paths = Vec::with_capacity(18);
    for kind in SkyKind::ALL {
        for (face, suffix) in cubemap(kind, size).into_iter().zip(FACE_SUFFIXES) {
            let path = dir.join(format!("sky_{}_{suffix}.png", kind.name()));
            let image = image::RgbaImage::from_raw(face.width, face.height, face.rgba)
                .ok_or_else(|| std::io::Error::other("face buffer has the wrong size"))?;
            image
                .save_with_format(&path, image::ImageFormat::Png)
                .map_err(std::io::Error::other)?;
            paths.push(path);
        }
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn texel(face: &Texture, x: u32, y: u32) -> [f32; 3] {
        let i = ((y * face.width + x) * 4) as usize;
        [
            f32::from(face.rgba[i]),
            f32::from(face.rgba[i + 1]),
            f32::from(face.rgba[i + 2]),
        ]
    }

    fn difference(a: [f32; 3], b: [f32; 3]) -> f32 {
        (0..3).map(|c| (a[c] - b[c]).abs()).fold(0.0, f32::max)
    }

    fn mean_brightness(faces: &[Texture; 6]) -> f32 {
        let mut sum = 0.0_f64;
        let mut count = 0_u64;
        for face in faces {
            for px in face.rgba.chunks_exact(4) {
                sum += f64::from(px[0]) + f64::from(px[1]) + f64::from(px[2]);
                count += 3;
            }
        }
        (sum / count as f64) as f32
    }

    #[test]
    fn face_directions_meet_at_the_edges() {
        // +X's left column and +Z's right column look along the same directions.
        for tc in [-0.9, -0.3, 0.0, 0.5, 0.99] {
            let a = face_direction(0, -1.0, tc);
            let b = face_direction(4, 1.0, tc);
            assert!(a.abs_diff_eq(b, 1e-6), "{a} {b}");
        }
        // +Y's bottom row meets +Z's top row.
        for sc in [-0.8, 0.0, 0.7] {
            let a = face_direction(2, sc, 1.0);
            let b = face_direction(4, sc, -1.0);
            assert!(a.abs_diff_eq(b, 1e-6), "{a} {b}");
        }
        // Each face looks along its axis at its centre.
        let axes = [Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z];
        for (face, axis) in axes.iter().enumerate() {
            assert!(face_direction(face, 0.0, 0.0).abs_diff_eq(*axis, 1e-6));
        }
    }

    #[test]
    fn faces_are_continuous_across_edges() {
        let size = 64;
        for kind in SkyKind::ALL {
            let faces = cubemap(kind, size);
            for face in &faces {
                assert_eq!((face.width, face.height), (size, size));
                assert_eq!(face.rgba.len(), (size * size * 4) as usize);
            }
            let mut worst = 0.0_f32;
            for y in 0..size {
                // +X's left column against +Z's right column.
                let across = difference(texel(&faces[0], 0, y), texel(&faces[4], size - 1, y));
                worst = worst.max(across);
            }
            // The largest step between neighbours inside the two faces.
            let mut within = 0.0_f32;
            for face in [&faces[0], &faces[4]] {
                for y in 0..size {
                    for x in 1..size {
                        within = within.max(difference(texel(face, x - 1, y), texel(face, x, y)));
                    }
                }
            }
            // Stars make single texels jump at night (no more across the edge than inside a
            // face); elsewhere the sky is smooth.
            let limit = if kind == SkyKind::Night {
                within.max(12.0)
            } else {
                12.0
            };
            assert!(
                worst <= limit,
                "{}: edge jump {worst}, within-face {within}",
                kind.name()
            );
        }
    }

    #[test]
    fn night_is_darker_than_noon_and_noon_zenith_is_bluer() {
        let noon = cubemap(SkyKind::Noon, 32);
        let night = cubemap(SkyKind::Night, 32);
        let day = cubemap(SkyKind::Day, 32);
        assert!(mean_brightness(&night) * 3.0 < mean_brightness(&noon));
        assert!(mean_brightness(&night) * 3.0 < mean_brightness(&day));

        let blueness = |c: [f32; 3]| c[2] / (c[0] + c[1] + c[2]).max(1.0);
        let zenith = texel(&noon[2], 16, 16);
        // The horizon: the middle row of a side face away from the sun.
        let horizon = texel(&noon[1], 16, 16);
        assert!(
            blueness(zenith) > blueness(horizon) + 0.05,
            "zenith {zenith:?} horizon {horizon:?}"
        );
        // The zenith is deeper (darker) than the horizon.
        assert!(zenith.iter().sum::<f32>() < horizon.iter().sum::<f32>());
        // Below the horizon is ground, darker than the sky above it.
        let ground = texel(&noon[3], 16, 16);
        assert!(ground.iter().sum::<f32>() < horizon.iter().sum::<f32>());
    }

    #[test]
    fn the_sun_and_the_stars_are_where_they_should_be() {
        let size = 128;
        for kind in [SkyKind::Day, SkyKind::Noon] {
            let faces = cubemap(kind, size);
            let brightest = faces
                .iter()
                .flat_map(|f| f.rgba.chunks_exact(4))
                .map(|p| u32::from(p[0]) + u32::from(p[1]) + u32::from(p[2]))
                .max()
                .unwrap();
            assert!(brightest > 700, "{}: {brightest}", kind.name());
            // The sun's own direction is bright.
            let c = colour(kind, sun_direction(kind), 0.01);
            assert!(c.min_element() > 0.9, "{c}");
        }
        // Night has stars: many isolated bright texels above the horizon.
        let night = cubemap(SkyKind::Night, size);
        let bright = night[2]
            .rgba
            .chunks_exact(4)
            .filter(|p| p[0] > 60 && p[2] > 60)
            .count();
        assert!(
            bright > 20,
            "{bright} bright texels on the night zenith face"
        );
        let moon = colour(SkyKind::Night, sun_direction(SkyKind::Night), 0.01);
        assert!(moon.min_element() > 0.6, "{moon}");
        // The day sun is low and the noon sun high.
        assert!(sun_direction(SkyKind::Day).y < 0.4);
        assert!(sun_direction(SkyKind::Noon).y > 0.8);
    }

    #[test]
    fn skies_are_deterministic_and_written_as_png() {
        assert_eq!(cubemap(SkyKind::Night, 24), cubemap(SkyKind::Night, 24));
        assert_eq!(cubemap(SkyKind::Day, 24), cubemap(SkyKind::Day, 24));
        let dir = tempfile::tempdir().unwrap();
        let paths = write_skies(dir.path(), 16).unwrap();
        assert_eq!(paths.len(), 18);
        assert!(paths[0].ends_with("sky_day_px.png"));
        assert!(paths[17].ends_with("sky_night_nz.png"));
        let faces = cubemap(SkyKind::Noon, 16);
        let loaded = image::open(&paths[6 + 2]).unwrap().to_rgba8();
        assert_eq!(loaded.dimensions(), (16, 16));
        assert_eq!(loaded.into_raw(), faces[2].rgba);
    }
}
