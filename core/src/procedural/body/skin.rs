//! Skin weights: which joints move each vertex of the body, blended along the bones.

// Skin weights

/// Joint influences of one vertex, before packing into four.
pub(super) type Influences = Vec<(usize, f32)>;

pub(super) fn smoothstep(edge0: f32, edge1: f32, x: f32) -> f32 {
    let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// The four strongest influences, normalised to sum to 1 (joint 0 with weight 0 fills unused
/// slots). Repeated joints are merged.
pub(super) fn pack(influences: &[(usize, f32)]) -> ([u16; 4], [f32; 4]) {
    let mut merged: Vec<(usize, f32)> = Vec::with_capacity(influences.len());
    for &(j, w) in influences {
        if w.is_nan() || w <= 0.0 {
            continue;
        }
        match merged.iter_mut().find(|(m, _)| *m == j) {
            Some(entry) => entry.1 += w,
            None => merged.push((j, w)),
        }
    }
    merged.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    merged.truncate(4);
    let total: f32 = merged.iter().map(|m| m.1).sum();
    let mut joints = [0_u16; 4];
    let mut weights = [0.0_f32; 4];
    if total > 0.0 {
        for (k, &(j, w)) in merged.iter().enumerate() {
            joints[k] = u16::try_from(j).unwrap_or(0);
            weights[k] = w / total;
        }
    } else {
        weights[0] = 1.0;
    }
    (joints, weights)
}

/// Weights along a chain of bones: bone `k` owns the stretch from its start to the next
/// bone's start; across each start the weight passes smoothly over `blend` either side.
/// `bones` is (joint, start, blend); the first start is ignored.
pub(super) fn chain(bones: &[(usize, f32, f32)], s: f32) -> Influences {
    let Some(&(first, _, _)) = bones.first() else {
        return Vec::new();
    };
    // The boundary nearest to s decides; boundaries are further apart than their blends.
    let nearest = bones
        .iter()
        .enumerate()
        .skip(1)
        .min_by(|a, b| (a.1.1 - s).abs().total_cmp(&(b.1.1 - s).abs()));
    match nearest {
        None => vec![(first, 1.0)],
        Some((k, &(joint, start, blend))) => {
            let t = smoothstep(start - blend, start + blend, s);
            vec![(bones[k - 1].0, 1.0 - t), (joint, t)]
        }
    }
}

/// Scales `a` by `1 - share` and adds `joint` with `share`.
pub(super) fn mix_in(mut a: Influences, joint: usize, share: f32) -> Influences {
    for entry in &mut a {
        entry.1 *= 1.0 - share;
    }
    a.push((joint, share));
    a
}
