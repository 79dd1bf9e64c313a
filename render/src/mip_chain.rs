//! Mipmaps for textures, made on the CPU at upload: each level halves the one above with a
//! 2x2 box filter in linear light for colour textures (averaging sRGB bytes directly would
//! darken every edge between light and dark) and on the values for data textures (normals,
//! metal and roughness, occlusion), and alpha is rescaled per level so an alpha-masked
//! texture (grass, leaves) keeps the share of texels above the cutoff instead of thinning out
//! with distance.

use std::sync::OnceLock;

use npc_core::asset::material::Texture;

/// Alpha cutoff whose coverage the levels keep.
const COVERAGE_CUTOFF: f32 = 0.5;

/// Texel bytes to values to average, and back.
type Decode = fn(&[u8]) -> [f32; 4];
type Encode = fn([f32; 4]) -> [u8; 4];

/// Every level of `texture`, from itself down to 1 x 1, as (width, height, rgba): its bytes
/// sRGB-encoded colour when `srgb`, else plain values.
#[must_use]
pub fn mip_chain(texture: &Texture, srgb: bool) -> Vec<(u32, u32, Vec<u8>)> {
    let (mut w, mut h) = (texture.width.max(1), texture.height.max(1));
    let mut levels = vec![(w, h, texture.rgba.clone())];
    let (decode, encode): (Decode, Encode) = if srgb {
        (to_linear, to_srgb)
    } else {
        (to_unit, from_unit)
    };
    let mut linear: Vec<[f32; 4]> = texture.rgba.chunks_exact(4).map(decode).collect();
    let coverage = coverage(&linear, 1.0);
    let has_alpha = linear.iter().any(|p| p[3] < 1.0);
    while w > 1 || h > 1 {
        let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
        let mut next = Vec::with_capacity((nw * nh) as usize);
        for y in 0..nh {
            for x in 0..nw {
                let mut sum = [0.0_f32; 4];
                let mut n = 0.0;
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let (sx, sy) = ((2 * x + dx).min(w - 1), (2 * y + dy).min(h - 1));
                    let p = linear[(sy * w + sx) as usize];
                    for c in 0..4 {
                        sum[c] += p[c];
                    }
                    n += 1.0;
                }
                next.push(sum.map(|v| v / n));
            }
        }
        if has_alpha {
            let scale = scale_for_coverage(&next, coverage);
            for p in &mut next {
                p[3] = (p[3] * scale).min(1.0);
            }
        }
        levels.push((nw, nh, next.iter().flat_map(|p| encode(*p)).collect()));
        linear = next;
        (w, h) = (nw, nh);
    }
    levels
}

/// Share of texels whose alpha, scaled by `scale`, reaches the cutoff.
fn coverage(texels: &[[f32; 4]], scale: f32) -> f32 {
    if texels.is_empty() {
        return 0.0;
    }
    let above = texels
        .iter()
        .filter(|p| p[3] * scale >= COVERAGE_CUTOFF)
        .count();
    above as f32 / texels.len() as f32
}

/// The alpha scale that gives `texels` the coverage `wanted` (bisection).
fn scale_for_coverage(texels: &[[f32; 4]], wanted: f32) -> f32 {
    let (mut lo, mut hi) = (0.0_f32, 4.0_f32);
    for _ in 0..16 {
        let mid = 0.5 * (lo + hi);
        if coverage(texels, mid) < wanted {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// Entries of the linear-to-sRGB table (fine enough to land within one step of the exact
/// conversion everywhere).
const TO_SRGB_STEPS: usize = 4096;

/// sRGB bytes to linear light, and linear light (in [`TO_SRGB_STEPS`] steps) to sRGB bytes:
/// tables, as a texture has millions of texels to convert.
fn tables() -> &'static ([f32; 256], Vec<u8>) {
    static TABLES: OnceLock<([f32; 256], Vec<u8>)> = OnceLock::new();
    TABLES.get_or_init(|| {
        let linear = std::array::from_fn(|i| {
            let s = i as f32 / 255.0;
            if s <= 0.040_45 {
                s / 12.92
            } else {
                ((s + 0.055) / 1.055).powf(2.4)
            }
        });
        let srgb = (0..TO_SRGB_STEPS)
            .map(|i| {
                let l = i as f32 / (TO_SRGB_STEPS - 1) as f32;
                let s = if l <= 0.003_130_8 {
                    l * 12.92
                } else {
                    1.055 * l.powf(1.0 / 2.4) - 0.055
                };
                (s * 255.0).round() as u8
            })
            .collect();
        (linear, srgb)
    })
}

fn to_unit(p: &[u8]) -> [f32; 4] {
    [0, 1, 2, 3].map(|c| f32::from(p[c]) / 255.0)
}

fn from_unit(p: [f32; 4]) -> [u8; 4] {
    p.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
}

fn to_linear(p: &[u8]) -> [f32; 4] {
    let (linear, _) = tables();
    [
        linear[usize::from(p[0])],
        linear[usize::from(p[1])],
        linear[usize::from(p[2])],
        f32::from(p[3]) / 255.0,
    ]
}

fn to_srgb(p: [f32; 4]) -> [u8; 4] {
    let (_, srgb) = tables();
    let c = |l: f32| srgb[(l.clamp(0.0, 1.0) * (TO_SRGB_STEPS - 1) as f32).round() as usize];
    [
        c(p[0]),
        c(p[1]),
        c(p[2]),
        (p[3].clamp(0.0, 1.0) * 255.0).round() as u8,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texture(w: u32, h: u32, texel: impl Fn(u32, u32) -> [u8; 4]) -> Texture {
        Texture {
            width: w,
            height: h,
            rgba: (0..h)
                .flat_map(|y| (0..w).map(move |x| (x, y)))
                .flat_map(|(x, y)| texel(x, y))
                .collect(),
        }
    }

    #[test]
    fn levels_halve_down_to_one_texel() {
        let t = texture(8, 2, |_, _| [10, 20, 30, 255]);
        let sizes: Vec<(u32, u32)> = mip_chain(&t, true).iter().map(|l| (l.0, l.1)).collect();
        assert_eq!(sizes, vec![(8, 2), (4, 1), (2, 1), (1, 1)]);
        for (w, h, rgba) in mip_chain(&t, true) {
            assert_eq!(rgba.len() as u32, w * h * 4);
            assert_eq!(&rgba[..4], &[10, 20, 30, 255]);
        }
    }

    #[test]
    fn black_and_white_average_in_linear_light() {
        // A checker of black and white: half the light, which is 188 in sRGB, not 128.
        let t = texture(2, 2, |x, y| {
            let v = if (x + y) % 2 == 0 { 255 } else { 0 };
            [v, v, v, 255]
        });
        let chain = mip_chain(&t, true);
        let top = &chain[1].2;
        assert!((i32::from(top[0]) - 188).abs() <= 1, "{top:?}");
    }

    #[test]
    fn data_textures_average_their_values() {
        // The same checker as a normal or roughness map: values, not light, so 128.
        let t = texture(2, 2, |x, y| {
            let v = if (x + y) % 2 == 0 { 255 } else { 0 };
            [v, v, v, 255]
        });
        let top = &mip_chain(&t, false)[1].2;
        assert!((i32::from(top[0]) - 128).abs() <= 1, "{top:?}");
    }

    #[test]
    fn masked_textures_keep_their_coverage() {
        // Slanted grass blades with soft edges: a quarter of the texels above the cutoff.
        let blade = |x: u32, y: u32| {
            let d = ((x as f32 + y as f32 * 0.37) % 8.0 - 3.5).abs();
            (255.0 * (1.0 - d / 2.0).clamp(0.0, 1.0)) as u8
        };
        let t = texture(64, 64, |x, y| [40, 160, 40, blade(x, y)]);
        let share = |(w, h, rgba): &(u32, u32, Vec<u8>)| {
            rgba.chunks_exact(4).filter(|p| p[3] >= 128).count() as f32 / (w * h) as f32
        };
        let chain = mip_chain(&t, true);
        let top = share(&chain[0]);
        assert!((top - 0.25).abs() < 0.05, "{top}");
        // Down to blades two texels apart (below that a level cannot show them).
        for level in &chain[1..3] {
            let s = share(level);
            assert!(
                (s - top).abs() < 0.08,
                "{}x{}: {s} vs {top}",
                level.0,
                level.1
            );
        }
    }
}
