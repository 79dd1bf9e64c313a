//! The ears.

use super::*;

/// One ear: a flattened, cupped disc standing out from the side of the head.
pub(super) fn ear(side: f32) -> Shape {
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
