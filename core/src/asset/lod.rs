//! Levels of detail: coarser triangle lists over the same vertices (so morph targets and skins
//! still apply), made with meshoptimizer's simplifier.

/// Detail levels a primitive gets: full, then about a third, then about a tenth of the
/// triangles.
pub const LOD_RATIOS: [f32; 3] = [1.0, 0.35, 0.12];

/// Largest error allowed at each level, relative to the primitive's size.
const LOD_ERRORS: [f32; 3] = [0.0, 0.01, 0.04];

/// Below this many triangles a primitive keeps its full list at every level.
pub const MIN_TRIANGLES: usize = 256;

/// Triangle lists for every level of [`LOD_RATIOS`]; level 0 is `indices` itself. A level the
/// simplifier cannot shrink by a fifth repeats the level before it.
#[must_use]
pub fn lod_indices(positions: &[[f32; 3]], indices: &[u32]) -> Vec<Vec<u32>> {
    let mut levels = vec![indices.to_vec()];
    let bytes: &[u8] = bytemuck::cast_slice(positions);
    let adapter = if indices.len() / 3 >= MIN_TRIANGLES && !positions.is_empty() {
        meshopt::VertexDataAdapter::new(bytes, 12, 0).ok()
    } else {
        None
    };
    for level in 1..LOD_RATIOS.len() {
        let previous = levels[level - 1].clone();
        let next = match &adapter {
            Some(adapter) => {
                let target = ((indices.len() / 3) as f32 * LOD_RATIOS[level]) as usize * 3;
                let simplified = meshopt::simplify(
                    indices,
                    adapter,
                    target.max(3),
                    LOD_ERRORS[level],
                    meshopt::SimplifyOptions::LockBorder,
                    None,
                );
                if !simplified.is_empty() && simplified.len() * 5 <= previous.len() * 4 {
                    simplified
                } else {
                    previous
                }
            }
            None => previous,
        };
        levels.push(next);
    }
    levels
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A grid of `n` x `n` quads, slightly bumped so it is not trivially flat.
    fn grid(n: u32) -> (Vec<[f32; 3]>, Vec<u32>) {
        let mut positions = Vec::new();
        for y in 0..=n {
            for x in 0..=n {
                let (fx, fy) = (x as f32 / n as f32, y as f32 / n as f32);
                positions.push([fx, 0.05 * (fx * 6.0).sin() * (fy * 5.0).cos(), fy]);
            }
        }
        let mut indices = Vec::new();
        for y in 0..n {
            for x in 0..n {
                let i = y * (n + 1) + x;
                indices.extend([i, i + n + 1, i + 1, i + 1, i + n + 1, i + n + 2]);
            }
        }
        (positions, indices)
    }

    #[test]
    fn coarser_levels_have_fewer_triangles_over_the_same_vertices() {
        let (positions, indices) = grid(40);
        let levels = lod_indices(&positions, &indices);
        assert_eq!(levels.len(), LOD_RATIOS.len());
        assert_eq!(levels[0], indices);
        assert!(
            levels[1].len() < indices.len() * 3 / 4,
            "{}",
            levels[1].len()
        );
        assert!(levels[2].len() < levels[1].len());
        for level in &levels {
            assert_eq!(level.len() % 3, 0);
            assert!(level.iter().all(|&i| (i as usize) < positions.len()));
        }
    }

    #[test]
    fn small_primitives_keep_every_triangle() {
        let (positions, indices) = grid(4);
        let levels = lod_indices(&positions, &indices);
        assert!(levels.iter().all(|l| *l == indices));
    }
}
