//! The skin: one grid of rays with slits for the eyes and the mouth, the lids wrapped onto
//! the eyeballs and the lips folded back into the head.

use super::*;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum EyeRole {
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
pub(super) enum Side {
    Upper,
    Lower,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct SkinVertex {
    /// Chart point (before relief): where features, colours and weights are defined.
    pub(super) b: Vec3,
    /// Position before the lids are shaped.
    pub(super) p2: Vec3,
    pub(super) lon: f32,
    pub(super) alpha: f32,
    pub(super) col: usize,
    pub(super) eye: EyeRole,
    pub(super) side: Side,
    /// 0 on the head, from the chin row under the jaw and down the neck to 1 at its base.
    pub(super) neck: f32,
    /// 1 on the upper lids' edges (eyelash line).
    pub(super) lash: f32,
    /// Mouth coordinates of `b` (see [`mouth_coords`]) and its [`frontness`].
    pub(super) xn: f32,
    pub(super) my: f32,
    pub(super) front: f32,
}

/// Per eye and column: how the lids are shaped.
#[derive(Clone, Copy, Debug)]
pub(super) struct EyeColumn {
    /// 0 at the inner corner, 1 at the outer.
    pub(super) t: f32,
    /// Eye-local elevation of the slit row before the lids open.
    pub(super) theta_s: f32,
    /// Rotation of the rows above / below the slit that opens the eye.
    pub(super) open_up: f32,
    pub(super) open_down: f32,
    /// Strictly between the corners.
    pub(super) open: bool,
}

/// Lid movements of one eye, as target weights.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Lids {
    pub(super) blink: f32,
    pub(super) wide: f32,
    pub(super) squint: f32,
    pub(super) up: f32,
    pub(super) down: f32,
    pub(super) cheek: f32,
}

impl Lids {
    /// Rotation (radians, up positive) of the upper and lower lid edges.
    pub(super) fn deltas(&self, t: f32) -> (f32, f32) {
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
pub(super) struct Skin {
    pub(super) verts: Vec<SkinVertex>,
    pub(super) rest: Vec<Vec3>,
    pub(super) uvs: Vec<[f32; 2]>,
    pub(super) indices: Vec<u32>,
    pub(super) weld: Vec<u32>,
    pub(super) eyes: [Vec<Option<EyeColumn>>; 2],
    /// Mouth seam, corner to corner (left to right along +X): upper and lower copies.
    pub(super) seam_upper: Vec<usize>,
    pub(super) seam_lower: Vec<usize>,
    pub(super) corners: [usize; 2],
    /// Lid edges per eye (upper, lower, t).
    pub(super) lid_edges: [Vec<(usize, usize, f32)>; 2],
    /// The lips' innermost fold, once around the mouth (the mouth interior's rim), with the
    /// rim's angle about the mouth's centre.
    pub(super) rim: Vec<(usize, f32)>,
    pub(super) upper_lip_front: usize,
    pub(super) lower_lip_front: usize,
    pub(super) nose_tip: Vec3,
    pub(super) chin: Vec3,
}

pub(super) struct SkinBuilder {
    pub(super) verts: Vec<SkinVertex>,
    pub(super) uvs: Vec<[f32; 2]>,
    pub(super) weld: Vec<u32>,
    pub(super) indices: Vec<u32>,
}

impl SkinBuilder {
    pub(super) fn push(&mut self, v: SkinVertex, uv: [f32; 2]) -> usize {
        self.verts.push(v);
        self.uvs.push(uv);
        let i = self.verts.len() - 1;
        self.weld.push(i as u32);
        i
    }

    pub(super) fn tri(&mut self, a: usize, b: usize, c: usize) {
        if a != b && b != c && a != c {
            self.indices.extend([a as u32, b as u32, c as u32]);
        }
    }

    /// A quad from the row above (tl, tr) to the row below (bl, br), facing out. Along the
    /// right eye's slit the diagonal mirrors the left eye's, so the lids move alike.
    pub(super) fn quad(&mut self, tl: usize, tr: usize, bl: usize, br: usize) {
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

pub(super) fn in_eye_opening(lay: &Layout, e: usize, col: usize) -> bool {
    let (lo, hi) = lay.eye_cols[e];
    col > lo && col < hi
}

pub(super) fn in_mouth(lay: &Layout, col: usize) -> bool {
    col > lay.mouth_cols.0 && col < lay.mouth_cols.1
}

/// The lids' shaping of a vertex near an eye.
pub(super) fn eye_position(
    v: &SkinVertex,
    eyes: &[Vec<Option<EyeColumn>>; 2],
    lids: &[Lids; 2],
) -> Vec3 {
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
pub(super) fn wrap_lids(b: Vec3, p1: Vec3) -> Vec3 {
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

pub(super) fn build_skin(lay: &Layout) -> Skin {
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
