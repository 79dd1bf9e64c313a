//! Levels of detail: coarser triangle lists over the same vertices (so morph targets and skins
//! still apply), made with meshoptimizer's simplifier, and the vertices numbered so that each
//! coarser level uses a shorter prefix of them (a far NPC deforms only that prefix).

use glam::{Mat4, Vec3};

use super::Asset;
use super::scene::world_transforms;

/// Detail levels a primitive gets: full, then about a third, then about a tenth of the
/// triangles, then a far silhouette of about a fiftieth, then a distant silhouette of as few
/// as keep its shape within [`LOD_ERRORS`]' bound (0 here: no share asked for).
pub const LOD_RATIOS: [f32; 5] = [1.0, 0.35, 0.12, 0.02, 0.0];

/// Largest error allowed at each level, relative to the primitive's size. The distant
/// silhouette's 2% is 3.4 cm on a body 1.7 m tall: under a pixel 40 m away in a 1080p image,
/// where it begins.
const LOD_ERRORS: [f32; 5] = [0.0, 0.01, 0.04, 1.0, 0.02];

/// The level made without regard to the mesh's topology (meshoptimizer's sloppy simplifier),
/// from every primitive however small: for NPCs a few dozen pixels tall, where a pupil or a
/// tooth is less than a pixel and only the silhouette and colours show. Parts too small for
/// it have no coarser level either.
const SILHOUETTE: usize = 3;

/// The distant silhouette: made from the full mesh (not the silhouette before it) by the
/// simplifier that keeps the surface's shape, here allowed to collapse across seams (UV and
/// normal splits, which do not show at that distance) and to drop small disconnected
/// pieces, as far as the error allows. Measured on real avatars 41 m away
/// (tests/distant_silhouette.rs), the silhouette's sloppy simplifier taken to a quarter of
/// its triangles lost legs and arms; this keeps them with VALID's 985 triangles down to 274.
const DISTANT: usize = 4;

/// Fewest triangles a primitive keeps at a silhouette level.
const SILHOUETTE_TRIANGLES: usize = 4;

/// A part smaller than this share of its asset's largest part (bounding-box diagonals) has no
/// silhouette: eyes, teeth, tongue and the mouth's inside of an avatar 1.7 m tall (under
/// about 7 cm) are at most three pixels across where the silhouette begins (20 m away in a
/// 1080p image), hidden by lids and lips or lost in the head's few pixels, yet each was a
/// copy to deform and draw for every far NPC.
pub const SILHOUETTE_SMALLEST: f32 = 0.04;

/// The diagonal of the box around `positions` (0 when there are none).
#[must_use]
pub fn extent(positions: &[[f32; 3]]) -> f32 {
    let points = positions.iter().map(|&p| Vec3::from(p));
    let lo = points.clone().fold(Vec3::INFINITY, Vec3::min);
    let hi = points.fold(Vec3::NEG_INFINITY, Vec3::max);
    if positions.is_empty() {
        0.0
    } else {
        lo.distance(hi)
    }
}

/// The extent of every primitive of `asset` (by mesh, then primitive) as it stands at rest:
/// a skinned one posed by its skin's joints at rest, a rigid one placed by its first
/// instance. (A skinned part's positions are in its bind space, at whatever scale the tool
/// wrote: VALID's upper teeth measure 83% of its largest part there, and a few centimetres
/// at rest.) A mesh no node shows is measured as stored.
#[must_use]
pub fn rest_extents(asset: &Asset) -> Vec<Vec<f32>> {
    let locals: Vec<_> = asset.nodes.iter().map(|n| n.transform).collect();
    let world = world_transforms(&asset.nodes, &locals);
    let mut palette = Vec::new();
    asset
        .meshes
        .iter()
        .enumerate()
        .map(|(m, mesh)| {
            let group = asset.instances.iter().find(|g| g.mesh == m);
            let skin = group.and_then(|g| g.skin).and_then(|s| asset.skins.get(s));
            let placed = group
                .and_then(|g| g.transforms.first())
                .copied()
                .unwrap_or(Mat4::IDENTITY);
            if let Some(skin) = skin {
                skin.palette_into(&world, &mut palette);
            }
            mesh.primitives
                .iter()
                .map(|p| {
                    let n = p.positions.len();
                    let skinned = skin.is_some() && p.joints.len() == n && p.weights.len() == n;
                    let at_rest: Vec<[f32; 3]> = (0..n)
                        .map(|v| {
                            let position = Vec3::from(p.positions[v]);
                            let posed = if skinned {
                                p.joints[v]
                                    .iter()
                                    .zip(p.weights[v])
                                    .map(|(&j, w)| {
                                        palette.get(usize::from(j)).map_or(Vec3::ZERO, |m| {
                                            w * m.transform_point3(position)
                                        })
                                    })
                                    .sum()
                            } else {
                                placed.transform_point3(position)
                            };
                            posed.to_array()
                        })
                        .collect();
                    extent(&at_rest)
                })
                .collect()
        })
        .collect()
}

/// Takes the silhouette levels away from a primitive of `extent` in an asset of
/// `asset_extent` when it is smaller than [`SILHOUETTE_SMALLEST`] of it.
pub fn drop_small_silhouette(levels: &mut [Vec<u32>], extent: f32, asset_extent: f32) {
    if extent < SILHOUETTE_SMALLEST * asset_extent {
        levels.iter_mut().skip(SILHOUETTE).for_each(Vec::clear);
    }
}

/// Below this many triangles a primitive keeps its full list at every level but the
/// silhouette.
pub const MIN_TRIANGLES: usize = 256;

/// Triangle lists for every level of [`LOD_RATIOS`]; level 0 is `indices` itself. A level the
/// simplifier cannot shrink by a fifth repeats the level before it.
#[must_use]
pub fn lod_indices(positions: &[[f32; 3]], indices: &[u32]) -> Vec<Vec<u32>> {
    let mut levels = vec![indices.to_vec()];
    let bytes: &[u8] = bytemuck::cast_slice(positions);
    let adapter = if positions.is_empty() {
        None
    } else {
        meshopt::VertexDataAdapter::new(bytes, 12, 0).ok()
    };
    let triangles = indices.len() / 3;
    for level in 1..LOD_RATIOS.len() {
        let previous = &levels[level - 1];
        let target = (triangles as f32 * LOD_RATIOS[level]) as usize;
        let simplified = match &adapter {
            Some(adapter) if level == DISTANT && triangles > SILHOUETTE_TRIANGLES => {
                meshopt::simplify(
                    indices,
                    adapter,
                    SILHOUETTE_TRIANGLES * 3,
                    LOD_ERRORS[level],
                    meshopt::SimplifyOptions::Permissive | meshopt::SimplifyOptions::Prune,
                    None,
                )
            }
            Some(adapter)
                if level >= SILHOUETTE && previous.len() > target.max(SILHOUETTE_TRIANGLES) * 3 =>
            {
                let target = target.max(SILHOUETTE_TRIANGLES) * 3;
                let kept = meshopt::simplify(
                    previous,
                    adapter,
                    target,
                    LOD_ERRORS[level],
                    meshopt::SimplifyOptions::None,
                    None,
                );
                if kept.len() <= target * 2 {
                    kept
                } else {
                    meshopt::simplify_sloppy(previous, adapter, target, LOD_ERRORS[level], None)
                }
            }
            Some(adapter) if level < SILHOUETTE && triangles >= MIN_TRIANGLES => meshopt::simplify(
                indices,
                adapter,
                (target * 3).max(3),
                LOD_ERRORS[level],
                meshopt::SimplifyOptions::LockBorder,
                None,
            ),
            _ => Vec::new(),
        };
        let next = if !simplified.is_empty() && simplified.len() * 5 <= previous.len() * 4 {
            simplified
        } else {
            previous.clone()
        };
        levels.push(next);
    }
    levels
}

/// A primitive's levels over renumbered vertices: level `l` uses only vertices
/// `0..used[l]`, so each coarser level is a prefix of the one before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NestedLevels {
    /// `order[new] = old`: the vertex that goes at each new place.
    pub order: Vec<u32>,
    /// How many of the first vertices each level's triangles use (level 0: all of them).
    pub used: [u32; LOD_RATIOS.len()],
    /// Each level's triangles over the new numbering.
    pub indices: Vec<Vec<u32>>,
}

/// Renumbers `vertex_count` vertices so that the vertices of the coarsest level come first,
/// then those the next finer level adds, and so on (each group in its old order, which keeps
/// what the mesh's author ordered for the cache); `levels` are [`lod_indices`]'s lists.
/// Indices outside the vertices are kept as they are.
#[must_use]
pub fn nested_levels(vertex_count: usize, levels: &[Vec<u32>]) -> NestedLevels {
    // The coarsest level that uses each vertex (0 for those no level uses).
    let mut coarsest = vec![0_usize; vertex_count];
    for (level, indices) in levels.iter().enumerate().skip(1) {
        for &i in indices {
            if let Some(c) = coarsest.get_mut(i as usize) {
                *c = level;
            }
        }
    }
    let mut order: Vec<u32> = (0..vertex_count as u32).collect();
    order.sort_by_key(|&v| std::cmp::Reverse(coarsest[v as usize]));
    let mut new_of = vec![0_u32; vertex_count];
    for (new, &old) in order.iter().enumerate() {
        new_of[old as usize] = new as u32;
    }
    let mut used = [vertex_count as u32; LOD_RATIOS.len()];
    for (level, used) in used.iter_mut().enumerate().skip(1) {
        *used = coarsest.iter().filter(|&&c| c >= level).count() as u32;
    }
    let indices = levels
        .iter()
        .map(|l| {
            l.iter()
                .map(|&i| new_of.get(i as usize).copied().unwrap_or(i))
                .collect()
        })
        .collect();
    NestedLevels {
        order,
        used,
        indices,
    }
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
        assert!(levels[3].len() * 3 < levels[2].len(), "{}", levels[3].len());
        assert!(levels[4].len() * 2 < levels[3].len(), "{}", levels[4].len());
        for level in &levels {
            assert_eq!(level.len() % 3, 0);
            assert!(level.iter().all(|&i| (i as usize) < positions.len()));
        }
    }

    #[test]
    fn small_primitives_keep_every_triangle_but_in_the_silhouette() {
        let (positions, indices) = grid(4);
        let levels = lod_indices(&positions, &indices);
        assert!(levels[..SILHOUETTE].iter().all(|l| *l == indices));
        let silhouette = levels[SILHOUETTE].len() / 3;
        assert!(
            (SILHOUETTE_TRIANGLES..indices.len() / 6).contains(&silhouette),
            "{silhouette}"
        );
    }

    #[test]
    fn a_part_far_smaller_than_its_asset_has_no_silhouette() {
        let (positions, indices) = grid(8);
        let size = extent(&positions);
        assert!((size - 2_f32.sqrt()).abs() < 0.05, "{size}");
        let mut small = lod_indices(&positions, &indices);
        drop_small_silhouette(&mut small, size, size / SILHOUETTE_SMALLEST * 1.1);
        assert!(small[SILHOUETTE..].iter().all(Vec::is_empty));
        assert_eq!(
            small[SILHOUETTE - 1],
            lod_indices(&positions, &indices)[SILHOUETTE - 1]
        );
        let mut large = lod_indices(&positions, &indices);
        drop_small_silhouette(&mut large, size, size / SILHOUETTE_SMALLEST * 0.9);
        assert!(large[SILHOUETTE..].iter().all(|l| !l.is_empty()));
        // Nothing deformed for a level with no triangles.
        assert_eq!(nested_levels(positions.len(), &small).used[SILHOUETTE], 0);
    }

    #[test]
    fn parts_are_measured_as_they_stand_at_rest() {
        use crate::asset::mesh::Primitive;
        use crate::asset::scene::Node;
        use crate::asset::writer::GlbWriter;
        use crate::asset::{Asset, Transform};
        // A skinned part written in centimetres (a 20-unit triangle) whose joint's inverse
        // bind scales by 1/100: 20 m across in its bind space, 20 cm at rest; and a rigid part
        // 2 m across placed at half scale.
        let square = |side: f32| Primitive {
            positions: vec![[0.0, 0.0, 0.0], [side, 0.0, 0.0], [side, side, 0.0]],
            indices: vec![0, 1, 2],
            ..Primitive::default()
        };
        let mut w = GlbWriter::new();
        let joint = w.add_node(&Node {
            name: Some("joint".into()),
            parent: None,
            children: Vec::new(),
            transform: Transform::IDENTITY,
            mesh: None,
            skin: None,
            gpu_instances: Vec::new(),
        });
        let skin = w.add_skin("skin", &[joint], &[Mat4::from_scale(Vec3::splat(0.01))]);
        let skinned = Primitive {
            joints: vec![[0, 0, 0, 0]; 3],
            weights: vec![[1.0, 0.0, 0.0, 0.0]; 3],
            ..square(20.0)
        };
        let skinned_mesh = w.add_mesh("skinned", &[skinned], &[], &[]);
        let rigid_mesh = w.add_mesh("rigid", &[square(2.0)], &[], &[]);
        let skinned_node = w.add_node(&Node {
            skin: Some(skin),
            ..Node::showing("skinned", skinned_mesh)
        });
        let rigid_node = w.add_node(&Node {
            transform: Transform {
                scale: Vec3::splat(0.5),
                ..Transform::IDENTITY
            },
            ..Node::showing("rigid", rigid_mesh)
        });
        w.set_roots(vec![joint, skinned_node, rigid_node]);
        let asset = Asset::from_bytes(&w.to_glb(), None).expect("the written asset loads");
        let extents = rest_extents(&asset);
        let root2 = 2_f32.sqrt();
        assert!((extents[0][0] - 0.2 * root2).abs() < 1e-4, "{extents:?}");
        assert!((extents[1][0] - root2).abs() < 1e-4, "{extents:?}");
        // As stored, the skinned part would be the larger by far.
        assert!(extent(&asset.meshes[0].primitives[0].positions) > 20.0);
    }

    #[test]
    fn each_coarser_level_uses_a_prefix_of_the_renumbered_vertices() {
        let (positions, indices) = grid(40);
        let levels = lod_indices(&positions, &indices);
        let nested = nested_levels(positions.len(), &levels);
        // The same triangles, renumbered.
        for (old, new) in levels.iter().zip(&nested.indices) {
            let back: Vec<u32> = new.iter().map(|&i| nested.order[i as usize]).collect();
            assert_eq!(&back, old);
        }
        assert_eq!(nested.used[0] as usize, positions.len());
        for (level, new) in nested.indices.iter().enumerate() {
            let most = new.iter().max().copied().unwrap_or(0);
            assert!(most < nested.used[level], "level {level}: {most}");
            // Only the vertices the level and coarser ones need: no more.
            let coarser: std::collections::HashSet<u32> =
                nested.indices[level..].iter().flatten().copied().collect();
            assert_eq!(nested.used[level] as usize, coarser.len());
        }
        assert!(nested.used[2] * 3 < nested.used[0], "{:?}", nested.used);
        let mut sorted = nested.order.clone();
        sorted.sort_unstable();
        assert!(sorted.iter().enumerate().all(|(i, &v)| i as u32 == v));
    }
}
