//! Colours and textures: the skin's colour map, the iris pattern and the materials.

use super::*;
use crate::asset::material::{Surface, TextureRef};

pub(super) fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

pub(super) fn linear_to_srgb(c: f32) -> f32 {
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

pub(super) fn linear(rgb: [f32; 3]) -> [f32; 4] {
    [
        srgb_to_linear(rgb[0]),
        srgb_to_linear(rgb[1]),
        srgb_to_linear(rgb[2]),
        1.0,
    ]
}

pub(super) fn mix3(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    let t = t.clamp(0.0, 1.0);
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

/// Hairline height (chart y) by |longitude| in degrees.
pub(super) fn hairline(lon_deg: f32) -> f32 {
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
pub(super) fn skin_colour(b: Vec3, xn: f32, my: f32, lash: f32) -> [f32; 3] {
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
pub(super) fn modulation(rgb: [f32; 3], base: [f32; 3]) -> [u8; 4] {
    let mut out = [255; 4];
    for k in 0..3 {
        let m = (srgb_to_linear(rgb[k]) / srgb_to_linear(base[k])).clamp(0.0, 1.0);
        out[k] = (linear_to_srgb(m) * 255.0).round() as u8;
    }
    out
}

/// Paints the skin's colour map by rasterising its triangles in texture space.
pub(super) fn skin_texture(skin: &Skin) -> Texture {
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
pub(super) fn dilate(texels: &mut [Option<[u8; 4]>], size: usize, steps: usize) {
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

pub(super) const IRIS_RGB: [f32; 3] = [0.47, 0.33, 0.20];

/// Iris pattern: u around the iris, v from the pupil (0) to the rim (1).
pub(super) fn iris_texture() -> Texture {
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

pub(super) fn textures() -> Vec<Option<Texture>> {
    let lay = layout();
    let skin = build_skin(&lay);
    vec![Some(skin_texture(&skin)), Some(iris_texture())]
}

/// Roughness of the skin: a soft sheen, not plastic.
pub(super) const SKIN_ROUGHNESS: f32 = 0.5;
/// Roughness of the eyes: the wet cornea mirrors the sun as a small glint (not below a few
/// degrees of spread, which no closeup's pixels could hold).
pub(super) const EYE_ROUGHNESS: f32 = 0.2;
/// Roughness of the wet inside of the mouth.
pub(super) const WET_ROUGHNESS: f32 = 0.3;

/// A dielectric material of an sRGB colour and `roughness`.
pub(super) fn material(
    name: &str,
    rgb: [f32; 3],
    texture: Option<usize>,
    double_sided: bool,
    roughness: f32,
) -> Material {
    Material {
        name: Some(name.to_owned()),
        base_color: linear(rgb),
        base_color_texture: texture.map(TextureRef::plain),
        double_sided,
        surface: Surface {
            roughness,
            ..Surface::MATTE
        },
        ..Material::default()
    }
}
