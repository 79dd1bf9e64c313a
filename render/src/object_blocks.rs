//! Many objects pushed at once over all cores: a crowd's copies of its avatars' primitives
//! (10,000 NPCs make about 130,000 objects a frame). The list comes out exactly as pushing
//! each object with [`DrawList::push_object`] in order would make it.

use glam::Mat4;
use rayon::prelude::*;

use super::draw_list::{DrawList, MorphRange, deformed_count};
use super::gpu_types::{DEFORM_CHUNK, DeformChunk, GpuObject, NO_PALETTE, NOT_DEFORMED, mat};
use super::mesh_store::GpuPrimitive;

/// Consecutive copies of one primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObjectBlock {
    /// Index of the primitive in the store's list.
    pub primitive: usize,
    pub count: usize,
}

/// Where one copy goes, as [`DrawList::push_object`] takes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObjectPlacement {
    pub model: Mat4,
    pub palette: Option<u32>,
    pub morphs: MorphRange,
    /// The finest level of detail it is drawn at.
    pub lod: u8,
}

/// Fewest objects worth a task of their own.
const OBJECTS_PER_TASK: usize = 64;

/// Vertices the deform pass writes for an object (`None`: not deformed).
fn deformed(
    primitive: &GpuPrimitive,
    palette_offset: u32,
    morphs: MorphRange,
    lod: u8,
) -> Option<u32> {
    (palette_offset != NO_PALETTE || morphs.count > 0).then(|| deformed_count(primitive, lod))
}

impl DrawList {
    /// Adds `blocks` of objects, one after another, the `i`-th copy of block `b` placed by
    /// `place(b, i)`; filled over all cores. Returns where the first block starts. Targets a
    /// primitive lacks are left out as in [`Self::push_object`].
    pub fn push_object_blocks(
        &mut self,
        primitives: &[GpuPrimitive],
        blocks: &[ObjectBlock],
        place: impl Fn(usize, usize) -> ObjectPlacement + Sync,
    ) -> u32 {
        let start = self.objects.len();
        let starts: Vec<usize> = blocks
            .iter()
            .scan(0, |at, b| {
                let first = *at;
                *at += b.count;
                Some(first)
            })
            .collect();
        let total: usize = blocks.iter().map(|b| b.count).sum();
        // The block of the k-th new object: the last one starting at or before it (blocks
        // of no copies start where the next one does).
        let block_of = |k: usize| starts.partition_point(|&s| s <= k).saturating_sub(1);
        let primitive_of = |b: usize| {
            blocks
                .get(b)
                .and_then(|block| primitives.get(block.primitive))
        };
        // Written straight into the list's memory over all cores.
        self.objects.par_extend(
            (0..total)
                .into_par_iter()
                .with_min_len(OBJECTS_PER_TASK)
                .map(|k| {
                    let b = block_of(k);
                    let Some(primitive) = primitive_of(b) else {
                        // No such primitive: a copy of nothing, drawn by no batch.
                        return GpuObject {
                            model: mat(Mat4::IDENTITY),
                            vertex_base: 0,
                            delta_base: 0,
                            vertex_count: 0,
                            palette_offset: NO_PALETTE,
                            morph_offset: 0,
                            morph_count: 0,
                            deformed_base: NOT_DEFORMED,
                            deformed_count: 0,
                        };
                    };
                    let p = place(b, k - starts[b]);
                    let morphs = if primitive.target_count == 0 {
                        MorphRange::default()
                    } else {
                        p.morphs
                    };
                    let palette_offset = match p.palette {
                        Some(offset) if primitive.skinned => offset,
                        _ => NO_PALETTE,
                    };
                    let count = deformed(primitive, palette_offset, morphs, p.lod);
                    GpuObject {
                        model: mat(p.model),
                        vertex_base: primitive.vertex_base,
                        delta_base: primitive.delta_base,
                        vertex_count: primitive.vertex_count,
                        palette_offset,
                        morph_offset: morphs.offset,
                        morph_count: morphs.count,
                        deformed_base: if count.is_some() { 0 } else { NOT_DEFORMED },
                        deformed_count: count.unwrap_or(0),
                    }
                }),
        );
        // Objects whose active targets include some their primitive lacks (rare: a mesh
        // whose primitives have different targets).
        let morphs = &self.morphs;
        let lacking: Vec<usize> = self.objects[start..]
            .par_iter()
            .enumerate()
            .with_min_len(OBJECTS_PER_TASK)
            .filter(|(k, o)| {
                let targets = primitive_of(block_of(*k)).map_or(0, |p| p.target_count);
                o.morph_count > 0
                    && morphs
                        .get(o.morph_offset as usize..(o.morph_offset + o.morph_count) as usize)
                        .is_some_and(|all| all.iter().any(|m| m.target >= targets))
            })
            .map(|(k, _)| k)
            .collect();
        for k in lacking {
            if let Some(primitive) = primitive_of(block_of(k)) {
                self.keep_present_targets(start + k, primitive);
            }
        }
        self.number_deformed(start);
        start as u32
    }

    /// Takes the targets `primitive` lacks out of object `k`'s active list, as
    /// [`Self::push_object`] does (appending the kept list).
    fn keep_present_targets(&mut self, k: usize, primitive: &GpuPrimitive) {
        let Some(&object) = self.objects.get(k) else {
            return;
        };
        let all = &self.morphs
            [object.morph_offset as usize..(object.morph_offset + object.morph_count) as usize];
        let kept: Vec<_> = all
            .iter()
            .copied()
            .filter(|m| m.target < primitive.target_count)
            .collect();
        let morphs = MorphRange {
            offset: self.morphs.len() as u32,
            count: kept.len() as u32,
        };
        self.morphs.extend_from_slice(&kept);
        let object = &mut self.objects[k];
        object.morph_offset = morphs.offset;
        object.morph_count = morphs.count;
        // Deformed still when skinned or with targets left; the count depends on the level only.
        if object.palette_offset == NO_PALETTE && morphs.count == 0 {
            object.deformed_base = NOT_DEFORMED;
            object.deformed_count = 0;
        }
    }

    /// Gives the deformed objects from `start` on their places in the deformed buffer, in
    /// order, and their deform chunks; over all cores in segments of consecutive objects (a
    /// crowd has about 100,000 objects and 50,000 chunks a frame).
    fn number_deformed(&mut self, start: usize) {
        let deformed =
            |o: &GpuObject| (o.deformed_base != NOT_DEFORMED).then_some(o.deformed_count);
        // Vertices each segment deforms, then where each segment's vertices start.
        let totals: Vec<u32> = self.objects[start..]
            .par_chunks(NUMBERING_SEGMENT)
            .map(|segment| segment.iter().filter_map(deformed).sum())
            .collect();
        let mut bases = Vec::with_capacity(totals.len());
        for total in totals {
            bases.push(self.deformed_vertices);
            self.deformed_vertices += total;
        }
        let first_object = start as u32;
        let chunks: Vec<Vec<DeformChunk>> = self.objects[start..]
            .par_chunks_mut(NUMBERING_SEGMENT)
            .zip(bases)
            .enumerate()
            .map(|(s, (segment, mut base))| {
                let mut chunks = Vec::new();
                let first = first_object + (s * NUMBERING_SEGMENT) as u32;
                for (k, o) in segment.iter_mut().enumerate() {
                    let Some(count) = deformed(o) else {
                        continue;
                    };
                    o.deformed_base = base;
                    base += count;
                    let object = first + k as u32;
                    chunks.extend(
                        (0..count)
                            .step_by(DEFORM_CHUNK as usize)
                            .map(|first| DeformChunk { object, first }),
                    );
                }
                chunks
            })
            .collect();
        for segment in chunks {
            self.chunks.extend_from_slice(&segment);
        }
    }
}

/// Consecutive objects numbered by one task.
const NUMBERING_SEGMENT: usize = 2048;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh_store::{IndexRange, Surface};
    use crate::shading::Shading;
    use glam::Vec3;

    fn primitive(vertices: u32, targets: u32, skinned: bool) -> GpuPrimitive {
        GpuPrimitive {
            lods: [IndexRange { first: 0, count: 3 }; crate::LOD_COUNT],
            lod_vertices: [vertices, vertices / 2, vertices / 5, 3, 3],
            vertex_base: 7 * vertices,
            vertex_count: vertices,
            delta_base: 11 * vertices,
            target_count: targets,
            material: 0,
            skinned,
            surface: Surface::Opaque,
            shading: Shading::FULL,
            outline: false,
        }
    }

    /// A list with a palette and two meshes' active targets; the second mesh's include
    /// targets 5 and 6, which the three-target primitive below lacks.
    fn started() -> (DrawList, [MorphRange; 3]) {
        let mut list = DrawList::default();
        list.push_palette(&[Mat4::IDENTITY; 4]);
        let face = list.push_morphs(&[0.0, 0.5, 0.25]);
        let wide = list.push_morphs(&[0.1, 0.0, 0.3, 0.0, 0.0, 0.7, 0.2]);
        (list, [MorphRange::default(), face, wide])
    }

    fn bytes(list: &DrawList) -> (Vec<u8>, Vec<u8>, Vec<u8>, u32) {
        (
            bytemuck::cast_slice(&list.objects).to_vec(),
            bytemuck::cast_slice(&list.morphs).to_vec(),
            bytemuck::cast_slice(&list.chunks).to_vec(),
            list.deformed_vertices,
        )
    }

    #[test]
    fn blocks_filled_over_all_cores_match_objects_pushed_one_by_one() {
        let primitives = [
            primitive(130, 0, true),
            primitive(200, 3, true),
            primitive(90, 0, false),
            primitive(64, 7, false),
        ];
        let blocks = [
            ObjectBlock {
                primitive: 0,
                count: 300,
            },
            ObjectBlock {
                primitive: 1,
                count: 250,
            },
            ObjectBlock {
                primitive: 2,
                count: 70,
            },
            ObjectBlock {
                primitive: 3,
                count: 0,
            },
            ObjectBlock {
                primitive: 3,
                count: 180,
            },
        ];
        let (mut serial, ranges) = started();
        // Copies differ in place, palette, targets and level.
        let place = |b: usize, i: usize| ObjectPlacement {
            model: Mat4::from_translation(Vec3::new(b as f32, i as f32, 0.5)),
            palette: (!i.is_multiple_of(3)).then_some((i % 4) as u32),
            morphs: ranges[(b + i) % 3],
            lod: (i % 4) as u8,
        };
        for (b, block) in blocks.iter().enumerate() {
            for i in 0..block.count {
                let p = place(b, i);
                serial.push_object(
                    &primitives[block.primitive],
                    p.model,
                    p.palette,
                    p.morphs,
                    p.lod,
                );
            }
        }
        let (mut blocked, _) = started();
        assert_eq!(blocked.push_object_blocks(&primitives, &blocks, place), 0);
        assert_eq!(bytes(&blocked), bytes(&serial));
        // Some copies were morphed, some lacked targets, some were not deformed at all.
        assert!(blocked.objects.iter().any(|o| o.morph_count == 2));
        assert!(blocked.morphs.len() > 6);
        assert!(
            blocked
                .objects
                .iter()
                .any(|o| o.deformed_base == NOT_DEFORMED)
        );
        assert!(blocked.chunks.len() > 500);
    }
}
