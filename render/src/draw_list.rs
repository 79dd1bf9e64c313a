//! One frame's draws, built on the CPU: objects (one per drawn copy of a primitive), the
//! joint palettes of skinned objects and the compact lists of active morph targets. Objects
//! of the same primitive pushed one after another become one instanced draw.

use glam::Mat4;
use rayon::prelude::*;

use super::gpu_types::{
    DEFORM_CHUNK, DeformChunk, GpuMorph, GpuObject, NO_PALETTE, NOT_DEFORMED, mat,
};
use super::mesh_store::{GpuPrimitive, PrimitiveId};

/// Fewest palettes worth a task of their own when filling them over the cores.
const PALETTES_PER_TASK: usize = 16;

/// Weights with a smaller magnitude are left out of the active list.
pub const ACTIVE_WEIGHT: f32 = 1e-4;

/// Which passes draw a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Passes {
    pub main: bool,
    pub shadow: bool,
}

impl Passes {
    pub const BOTH: Self = Self {
        main: true,
        shadow: true,
    };
}

/// An instanced draw: `count` objects from `first_object`, all of `primitive`, at level of
/// detail `lod` (`shadow_lod` in the shadow pass).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batch {
    pub primitive: PrimitiveId,
    pub first_object: u32,
    pub count: u32,
    pub lod: u8,
    pub shadow_lod: u8,
    pub passes: Passes,
}

/// Active targets of one object: `morphs[offset .. offset + count]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MorphRange {
    pub offset: u32,
    pub count: u32,
}

/// Everything one frame draws.
#[derive(Clone, Debug, Default)]
pub struct DrawList {
    pub objects: Vec<GpuObject>,
    pub morphs: Vec<GpuMorph>,
    pub palette: Vec<[[f32; 4]; 4]>,
    pub batches: Vec<Batch>,
    /// Work of the deform pass: 64-vertex pieces of the skinned or morphed objects.
    pub chunks: Vec<DeformChunk>,
    /// Vertices the deform pass writes.
    pub deformed_vertices: u32,
    /// Most vertices the deform pass can write (its output binding's size on this device);
    /// `None`: no limit known. Whoever fills the list keeps within it. Kept by [`Self::clear`].
    pub deform_budget: Option<u32>,
    /// Things left out of this frame to keep within [`Self::deform_budget`] (NPCs, for the
    /// world), so that the renderer can say so.
    pub left_out: u32,
}

impl DrawList {
    /// Empties the list, keeping its memory.
    pub fn clear(&mut self) {
        self.objects.clear();
        self.morphs.clear();
        self.palette.clear();
        self.batches.clear();
        self.chunks.clear();
        self.deformed_vertices = 0;
        self.left_out = 0;
    }

    /// Adds a joint palette; returns its offset for [`Self::push_object`].
    pub fn push_palette(&mut self, joints: &[Mat4]) -> u32 {
        let offset = self.palette.len() as u32;
        self.palette.extend(joints.iter().map(|&m| mat(m)));
        offset
    }

    /// Makes room for a palette of `joints` joints, written later by [`Self::fill_palettes`];
    /// returns its offset for [`Self::push_object`].
    pub fn reserve_palette(&mut self, joints: usize) -> u32 {
        let offset = self.palette.len() as u32;
        self.palette.resize(self.palette.len() + joints, [[0.0; 4]; 4]);
        offset
    }

    /// Writes palettes into the room [`Self::reserve_palette`] made, `(offset, joints)` in the
    /// order it was made, over all cores: a crowd's palettes are megabytes, each just written
    /// by the core that animated its NPC.
    pub fn fill_palettes(&mut self, palettes: &[(u32, &[Mat4])]) {
        let mut rest: &mut [[[f32; 4]; 4]] = &mut self.palette;
        let mut at = 0;
        let mut jobs = Vec::with_capacity(palettes.len());
        for &(offset, joints) in palettes {
            let Some(skip) = (offset as usize).checked_sub(at).filter(|&s| s <= rest.len())
            else {
                break;
            };
            let (_, tail) = std::mem::take(&mut rest).split_at_mut(skip);
            let (room, tail) = tail.split_at_mut(joints.len().min(tail.len()));
            at = offset as usize + room.len();
            jobs.push((room, joints));
            rest = tail;
        }
        jobs.into_par_iter()
            .with_min_len(PALETTES_PER_TASK)
            .for_each(|(room, joints)| {
                for (out, &m) in room.iter_mut().zip(joints) {
                    *out = mat(m);
                }
            });
    }

    /// Adds the non-zero weights of a mesh (`weights[target]`) as its active list.
    pub fn push_morphs(&mut self, weights: &[f32]) -> MorphRange {
        let offset = self.morphs.len() as u32;
        self.morphs.extend(
            weights
                .iter()
                .enumerate()
                .filter(|&(_, w)| w.abs() > ACTIVE_WEIGHT)
                .map(|(t, &w)| GpuMorph {
                    target: t as u32,
                    weight: w,
                }),
        );
        MorphRange {
            offset,
            count: self.morphs.len() as u32 - offset,
        }
    }

    /// Adds copies of a rigid primitive, one per transform, as one batch drawn by both
    /// passes at full detail.
    pub fn push_instances(
        &mut self,
        id: PrimitiveId,
        primitive: &GpuPrimitive,
        transforms: &[Mat4],
    ) {
        let first_object = self.objects.len() as u32;
        for &m in transforms {
            self.push_object(primitive, m, None, MorphRange::default());
        }
        self.batches.push(Batch {
            primitive: id,
            first_object,
            count: transforms.len() as u32,
            lod: 0,
            shadow_lod: 0,
            passes: Passes::BOTH,
        });
    }

    /// Adds one copy of `primitive` placed by `model`, skinned by the palette at `palette`
    /// (or `None`) and morphed by `morphs` (targets the primitive lacks are left out); returns
    /// its index. Objects are drawn by the batches that cover them.
    pub fn push_object(
        &mut self,
        primitive: &GpuPrimitive,
        model: Mat4,
        palette: Option<u32>,
        morphs: MorphRange,
    ) -> u32 {
        let morphs = if primitive.target_count == 0 {
            MorphRange::default()
        } else {
            // Keep only targets this primitive has (a mesh's primitives may have fewer).
            let all = &self.morphs[morphs.offset as usize..(morphs.offset + morphs.count) as usize];
            if all.iter().all(|m| m.target < primitive.target_count) {
                morphs
            } else {
                let kept: Vec<GpuMorph> = all
                    .iter()
                    .copied()
                    .filter(|m| m.target < primitive.target_count)
                    .collect();
                let offset = self.morphs.len() as u32;
                self.morphs.extend_from_slice(&kept);
                MorphRange {
                    offset,
                    count: kept.len() as u32,
                }
            }
        };
        let index = self.objects.len() as u32;
        let palette_offset = match palette {
            Some(p) if primitive.skinned => p,
            _ => NO_PALETTE,
        };
        let deforms = palette_offset != NO_PALETTE || morphs.count > 0;
        let deformed_base = if deforms {
            let base = self.deformed_vertices;
            self.deformed_vertices += primitive.vertex_count;
            self.chunks.extend(
                (0..primitive.vertex_count)
                    .step_by(DEFORM_CHUNK as usize)
                    .map(|first| DeformChunk {
                        object: index,
                        first,
                    }),
            );
            base
        } else {
            NOT_DEFORMED
        };
        self.objects.push(GpuObject {
            model: mat(model),
            vertex_base: primitive.vertex_base,
            delta_base: primitive.delta_base,
            vertex_count: primitive.vertex_count,
            palette_offset,
            morph_offset: morphs.offset,
            morph_count: morphs.count,
            deformed_base,
            pad: 0,
        });
        index
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn primitive(targets: u32) -> GpuPrimitive {
        GpuPrimitive {
            lods: [crate::mesh_store::IndexRange { first: 0, count: 3 }; 3],
            vertex_base: 10,
            vertex_count: 3,
            delta_base: 100,
            target_count: targets,
            material: 0,
            skinned: true,
            surface: crate::mesh_store::Surface::Opaque,
        }
    }

    #[test]
    fn only_non_zero_weights_become_active() {
        let mut list = DrawList::default();
        let mut weights = vec![0.0; 52];
        weights[3] = 0.5;
        weights[40] = -0.2;
        weights[41] = 1e-6;
        let r = list.push_morphs(&weights);
        assert_eq!(r.count, 2);
        assert_eq!(
            list.morphs,
            vec![
                GpuMorph {
                    target: 3,
                    weight: 0.5
                },
                GpuMorph {
                    target: 40,
                    weight: -0.2
                }
            ]
        );
    }

    #[test]
    fn instances_of_a_primitive_make_one_batch() {
        let mut list = DrawList::default();
        let p = primitive(0);
        list.push_instances(0, &p, &[Mat4::IDENTITY; 5]);
        list.push_instances(1, &p, &[Mat4::IDENTITY; 2]);
        let batches: Vec<(u32, u32, u32)> = list
            .batches
            .iter()
            .map(|b| (b.primitive, b.first_object, b.count))
            .collect();
        assert_eq!(batches, vec![(0, 0, 5), (1, 5, 2)]);
        assert_eq!(list.objects.len(), 7);
    }

    #[test]
    fn targets_beyond_a_primitive_are_dropped() {
        let mut list = DrawList::default();
        let mut weights = vec![0.0; 8];
        weights[1] = 1.0;
        weights[6] = 1.0;
        let r = list.push_morphs(&weights);
        list.push_object(&primitive(4), Mat4::IDENTITY, Some(0), r);
        let o = list.objects[0];
        let active =
            &list.morphs[o.morph_offset as usize..(o.morph_offset + o.morph_count) as usize];
        assert_eq!(active.len(), 1);
        assert_eq!(active[0].target, 1);
    }

    #[test]
    fn rigid_primitives_ignore_the_palette_and_skip_the_deform_pass() {
        let mut list = DrawList::default();
        let mut p = primitive(0);
        p.skinned = false;
        list.push_object(&p, Mat4::IDENTITY, Some(7), MorphRange::default());
        assert_eq!(list.objects[0].palette_offset, NO_PALETTE);
        assert_eq!(list.objects[0].deformed_base, NOT_DEFORMED);
        assert!(list.chunks.is_empty());
    }

    #[test]
    fn deformed_objects_get_their_own_vertices_and_chunks() {
        let mut list = DrawList::default();
        let mut p = primitive(0);
        p.vertex_count = 130;
        list.push_object(&p, Mat4::IDENTITY, Some(0), MorphRange::default());
        list.push_object(&p, Mat4::IDENTITY, Some(0), MorphRange::default());
        assert_eq!(list.objects[0].deformed_base, 0);
        assert_eq!(list.objects[1].deformed_base, 130);
        assert_eq!(list.deformed_vertices, 260);
        let firsts: Vec<(u32, u32)> = list.chunks.iter().map(|c| (c.object, c.first)).collect();
        assert_eq!(
            firsts,
            vec![(0, 0), (0, 64), (0, 128), (1, 0), (1, 64), (1, 128)]
        );
    }
}
