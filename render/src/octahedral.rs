//! Unit vectors in 32 bits: the octahedral map (Meyer et al., "On floating-point normal
//! vectors", 2010; Cigolle et al., "A survey of efficient representations for independent unit
//! vectors", 2014), two 16-bit signed-normalised halves, low half first, as WGSL's
//! `pack2x16snorm` writes them. The deform pass writes normals and tangents so, and
//! `octahedral_decode` in shaders/globals.wgsl reads them: a normal keeps within about 0.005
//! degrees of itself.

/// `v` (of unit length; a zero vector comes back as +Z) as 32 bits.
#[must_use]
pub fn encode(v: [f32; 3]) -> u32 {
    let [x, y, z] = v;
    let sum = x.abs() + y.abs() + z.abs();
    if sum <= 0.0 || !sum.is_finite() {
        return pack(0.0, 0.0);
    }
    let (px, py) = (x / sum, y / sum);
    if z >= 0.0 {
        pack(px, py)
    } else {
        pack(
            (1.0 - py.abs()) * sign_not_zero(px),
            (1.0 - px.abs()) * sign_not_zero(py),
        )
    }
}

/// The unit vector `bits` holds (the shaders' `octahedral_decode`, for checking `encode`).
#[cfg(test)]
#[must_use]
pub fn decode(bits: u32) -> [f32; 3] {
    let unpack = |half: u32| (f32::from(half as u16 as i16) / 32767.0).max(-1.0);
    let (x, y) = (unpack(bits & 0xffff), unpack(bits >> 16));
    let z = 1.0 - x.abs() - y.abs();
    let t = (-z).max(0.0);
    let x = x - t * sign_not_zero(x);
    let y = y - t * sign_not_zero(y);
    let length = (x * x + y * y + z * z).sqrt();
    [x / length, y / length, z / length]
}

fn sign_not_zero(v: f32) -> f32 {
    if v >= 0.0 { 1.0 } else { -1.0 }
}

/// WGSL's `pack2x16snorm`.
fn pack(x: f32, y: f32) -> u32 {
    let half = |v: f32| u32::from((v.clamp(-1.0, 1.0) * 32767.0).round() as i16 as u16);
    half(x) | (half(y) << 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_vectors_come_back_within_a_hundredth_of_a_degree() {
        let mut worst = 0.0f64;
        for i in 0..64 {
            for j in 0..128 {
                let theta = std::f32::consts::PI * (i as f32 + 0.5) / 64.0;
                let phi = std::f32::consts::TAU * j as f32 / 128.0;
                let v = [
                    theta.sin() * phi.cos(),
                    theta.sin() * phi.sin(),
                    theta.cos(),
                ];
                let back = decode(encode(v));
                // The angle between them (by the cross product: acos loses it near 1).
                let [a, b] = [v, back].map(|x| x.map(f64::from));
                let cross = [
                    a[1] * b[2] - a[2] * b[1],
                    a[2] * b[0] - a[0] * b[2],
                    a[0] * b[1] - a[1] * b[0],
                ];
                let sin = cross.iter().map(|c| c * c).sum::<f64>().sqrt();
                let cos: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
                worst = worst.max(sin.atan2(cos).to_degrees());
            }
        }
        for axis in [
            [1.0, 0.0, 0.0],
            [0.0, -1.0, 0.0],
            [0.0, 0.0, -1.0],
            [0.0, 0.0, 1.0],
        ] {
            let back = decode(encode(axis));
            assert!(
                axis.iter().zip(&back).all(|(a, b)| (a - b).abs() < 1e-4),
                "{back:?}"
            );
        }
        assert!(worst < 0.01, "worst error {worst} degrees");
    }

    #[test]
    fn a_zero_vector_is_plus_z() {
        assert_eq!(decode(encode([0.0; 3])), [0.0, 0.0, 1.0]);
    }
}
