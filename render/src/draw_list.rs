//! One frame's draws, built on the CPU: objects (one per drawn copy of a primitive), the
//! joint palettes of skinned objects and the compact lists of active morph targets. Objects
//! of the same primitive pushed one after another become one instanced draw.

use glam::Mat4;

use super::gpu_types::{
    DEFORM_CHUNK, DeformChunk, GpuMorph, GpuObject, JointRows, NO_PALETTE, NOT_DEFORMED,
    joint_rows, mat,
};
use super::mesh_store::{GpuPrimitive, PrimitiveId};
use super::palette_changes::PaletteChanges;
use super::reused_list::ReusedList;

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
    /// The active targets of every object.
    pub morphs: ReusedList<GpuMorph>,
    /// Joint palettes. What an earlier frame wrote beyond this frame's stays (rooms whose
    /// pose has not changed keep it, [`Room::palette_kept`]).
    palette: ReusedList<JointRows>,
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
    /// The rooms of the last [`Self::make_room`]: pose, palette offset and length of each.
    /// Kept by [`Self::clear`].
    rooms_made: Vec<(u64, u32, usize)>,
    /// The palette entries written this frame (what a renderer holding the frame before
    /// uploads).
    palette_changes: PaletteChanges,
}

/// What one [`Room`] holds: palette entries and active targets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RoomSize {
    pub joints: usize,
    pub active_targets: usize,
    /// Names what the palette holds (an NPC and which of its poses); 0 when unknown. A room
    /// made where the list's last [`DrawList::make_room`] made one with the same pose still
    /// holds that palette ([`Room::palette_kept`]).
    pub pose: u64,
}

/// Room made in a draw list by [`DrawList::make_room`], to be filled on any thread.
#[derive(Debug)]
pub struct Room<'a> {
    /// Offsets of the room in the palette and active-target lists.
    pub palette_offset: u32,
    pub morph_offset: u32,
    /// The palette already holds its pose's joints (written there for the same pose by the
    /// list's last [`DrawList::make_room`]): nothing to write. A crowd's far NPCs animate at
    /// lower rates, so most palettes of a frame are kept.
    pub palette_kept: bool,
    palette: &'a mut [JointRows],
    morphs: &'a mut [GpuMorph],
}

impl Room<'_> {
    /// Writes `joints` at entry `at` of the room's palette; returns its offset in the list for
    /// [`DrawList::push_object`]. What does not fit is left out.
    pub fn put_palette(&mut self, at: usize, joints: &[Mat4]) -> u32 {
        for (out, &m) in self.palette.iter_mut().skip(at).zip(joints) {
            *out = joint_rows(m);
        }
        self.palette_offset + at as u32
    }

    /// Copies `active` (targets picked by [`crate::ActiveMorphs`]) from entry `at` of the
    /// room's target list; returns their range for [`DrawList::push_object`]. What does not
    /// fit is left out.
    pub fn put_active(&mut self, at: usize, active: &[GpuMorph]) -> MorphRange {
        let room = self.morphs.get_mut(at..).unwrap_or_default();
        let count = room.len().min(active.len());
        room[..count].copy_from_slice(&active[..count]);
        MorphRange {
            offset: self.morph_offset + at as u32,
            count: count as u32,
        }
    }
}

/// The targets of `weights` worth deforming: those above [`ACTIVE_WEIGHT`] in magnitude.
pub(super) fn active(weights: &[f32]) -> impl Iterator<Item = (usize, &f32)> {
    weights
        .iter()
        .enumerate()
        .filter(|&(_, w)| w.abs() > ACTIVE_WEIGHT)
}

/// `items` cut into consecutive pieces of `lengths` (shorter where `items` runs out): parts of
/// one list to fill on different threads.
pub fn split_lengths<T>(
    items: &mut [T],
    lengths: impl IntoIterator<Item = usize>,
) -> Vec<&mut [T]> {
    let mut rest = items;
    lengths
        .into_iter()
        .map(|n| {
            let n = n.min(rest.len());
            let (piece, tail) = std::mem::take(&mut rest).split_at_mut(n);
            rest = tail;
            piece
        })
        .collect()
}

impl DrawList {
    /// Empties the list, keeping its memory.
    pub fn clear(&mut self) {
        self.objects.clear();
        self.morphs.clear();
        self.palette.clear();
        self.palette_changes.next_frame();
        self.batches.clear();
        self.chunks.clear();
        self.deformed_vertices = 0;
        self.left_out = 0;
    }

    /// This frame's joint palettes.
    #[must_use]
    pub fn palette(&self) -> &[JointRows] {
        &self.palette
    }

    /// Which of this frame's palette entries were written (the rest are kept from the frame
    /// before).
    #[must_use]
    pub fn palette_changes(&self) -> &PaletteChanges {
        &self.palette_changes
    }

    /// Adds a joint palette; returns its offset for [`Self::push_object`].
    pub fn push_palette(&mut self, joints: &[Mat4]) -> u32 {
        let start = self.palette.len();
        self.palette.extend(joints.iter().map(|&m| joint_rows(m)));
        self.palette_changes
            .written(start as u32..self.palette.len() as u32);
        start as u32
    }

    /// Makes room at the ends of the palette and active-target lists for things filled over
    /// all cores (a crowd's palettes are megabytes, each best copied by the core that just
    /// animated its NPC): one [`Room`] per entry of `sizes` (palette entries, active targets),
    /// in order.
    pub fn make_room(&mut self, sizes: &[RoomSize]) -> Vec<Room<'_>> {
        let joints: usize = sizes.iter().map(|r| r.joints).sum();
        let targets: usize = sizes.iter().map(|r| r.active_targets).sum();
        let palette_start = self.palette.len();
        let morph_start = self.morphs.len();
        let palettes = split_lengths(self.palette.room(joints), sizes.iter().map(|r| r.joints));
        let morphs = split_lengths(
            self.morphs.room(targets),
            sizes.iter().map(|r| r.active_targets),
        );
        let made = std::mem::take(&mut self.rooms_made);
        let mut at = (palette_start as u32, morph_start as u32);
        let rooms: Vec<Room<'_>> = palettes
            .into_iter()
            .zip(morphs)
            .zip(sizes)
            .enumerate()
            .map(|(i, ((palette, morphs), size))| {
                let this = (size.pose, at.0, palette.len());
                let room = Room {
                    palette_offset: at.0,
                    morph_offset: at.1,
                    palette_kept: size.pose != 0 && made.get(i) == Some(&this),
                    palette,
                    morphs,
                };
                at.0 += room.palette.len() as u32;
                at.1 += room.morphs.len() as u32;
                room
            })
            .collect();
        for room in rooms.iter().filter(|r| !r.palette_kept) {
            let start = room.palette_offset;
            self.palette_changes
                .written(start..start + room.palette.len() as u32);
        }
        self.rooms_made = rooms
            .iter()
            .zip(sizes)
            .map(|(room, size)| (size.pose, room.palette_offset, room.palette.len()))
            .collect();
        rooms
    }

    /// Adds the non-zero weights of a mesh (`weights[target]`) as its active list.
    pub fn push_morphs(&mut self, weights: &[f32]) -> MorphRange {
        let offset = self.morphs.len() as u32;
        self.morphs.extend(active(weights).map(|(t, &w)| GpuMorph {
            target: t as u32,
            weight: w,
        }));
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
            self.push_object(primitive, m, None, MorphRange::default(), 0);
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
    /// its index. Objects are drawn by the batches that cover them, at level of detail `lod`
    /// or coarser: a deformed copy deforms only the vertices those levels use.
    pub fn push_object(
        &mut self,
        primitive: &GpuPrimitive,
        model: Mat4,
        palette: Option<u32>,
        morphs: MorphRange,
        lod: u8,
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
        let deformed_count = if deforms {
            deformed_count(primitive, lod)
        } else {
            0
        };
        let deformed_base = if deforms {
            let base = self.deformed_vertices;
            self.deformed_vertices += deformed_count;
            self.chunks.extend(
                (0..deformed_count)
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
            deformed_count,
        });
        index
    }
}

/// Triangles the main pass and the shadow pass draw for `list` (each once: outlines and depth
/// laid first not counted); `primitives` are the store's.
#[must_use]
pub fn triangles_drawn(list: &DrawList, primitives: &[GpuPrimitive]) -> [u64; 2] {
    let at = |b: &Batch, lod: u8| {
        primitives
            .get(b.primitive as usize)
            .and_then(|p| p.lods.get(usize::from(lod)))
            .map_or(0, |r| u64::from(r.count / 3) * u64::from(b.count))
    };
    list.batches.iter().fold([0, 0], |[main, shadow], b| {
        [
            main + if b.passes.main { at(b, b.lod) } else { 0 },
            shadow
                + if b.passes.shadow {
                    at(b, b.shadow_lod)
                } else {
                    0
                },
        ]
    })
}

/// Vertices the deform pass writes for a copy of `primitive` drawn at `lod` or coarser.
#[must_use]
pub fn deformed_count(primitive: &GpuPrimitive, lod: u8) -> u32 {
    primitive
        .lod_vertices
        .get(usize::from(lod))
        .copied()
        .unwrap_or(primitive.vertex_count)
        .min(primitive.vertex_count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ActiveMorphs;
    use crate::palette_changes::PaletteUpload;
    use glam::Vec3;

    #[test]
    fn rooms_filled_anywhere_match_lists_pushed_in_order() {
        let palettes = [
            vec![Mat4::from_translation(Vec3::X); 3],
            vec![Mat4::from_scale(Vec3::splat(2.0)); 2],
        ];
        let weights = [vec![0.0, 0.5, 0.0, 0.25], vec![1.0, 0.0]];
        let mut pushed = DrawList::default();
        pushed.push_palette(&[Mat4::IDENTITY]);
        let mut expected = Vec::new();
        for (p, w) in palettes.iter().zip(&weights) {
            let offset = pushed.push_palette(p);
            expected.push((offset, pushed.push_morphs(w)));
        }
        let mut filled = DrawList::default();
        filled.push_palette(&[Mat4::IDENTITY]);
        let sizes: Vec<RoomSize> = palettes
            .iter()
            .zip(&weights)
            .map(|(p, w)| RoomSize {
                joints: p.len(),
                active_targets: ActiveMorphs::of(std::slice::from_ref(w)).len(),
                pose: 0,
            })
            .collect();
        let rooms = filled.make_room(&sizes);
        // Filled last room first: each room is its own.
        let mut got: Vec<(u32, MorphRange)> = rooms
            .into_iter()
            .zip(palettes.iter().zip(&weights))
            .rev()
            .map(|(mut room, (p, w))| {
                let active = ActiveMorphs::of(std::slice::from_ref(w));
                (
                    room.put_palette(0, p),
                    room.put_active(0, active.of_mesh(0)),
                )
            })
            .collect();
        got.reverse();
        assert_eq!(got, expected);
        assert_eq!(filled.palette(), pushed.palette());
        assert_eq!(filled.morphs, pushed.morphs);
        assert_eq!(filled.morphs.len(), 3);
    }

    #[test]
    fn a_room_keeps_its_palette_only_for_the_same_pose_at_the_same_place() {
        let room = |joints, pose| RoomSize {
            joints,
            active_targets: 0,
            pose,
        };
        let kept = |list: &mut DrawList, sizes: &[RoomSize]| -> Vec<bool> {
            list.clear();
            list.make_room(sizes)
                .iter()
                .map(|r| r.palette_kept)
                .collect()
        };
        let mut list = DrawList::default();
        let frame = [room(3, 7), room(2, 9), room(2, 0)];
        assert_eq!(kept(&mut list, &frame), [false, false, false]);
        // The same poses in the same places: kept, but never a pose of 0 (unknown).
        assert_eq!(kept(&mut list, &frame), [true, true, false]);
        // The first NPC has a new pose: written again; the second stays where it was.
        let before = list.palette_changes().stamp();
        let moved = [room(3, 8), room(2, 9), room(2, 0)];
        assert_eq!(kept(&mut list, &moved), [false, true, false]);
        // A renderer holding the frame before uploads the rooms written, not the kept one.
        assert_eq!(
            list.palette_changes().since(Some(before)),
            PaletteUpload::Ranges(&[0..3, 5..7])
        );
        // A palette pushed first moves every room: nothing is where it was.
        list.clear();
        list.push_palette(&[Mat4::IDENTITY]);
        let rooms: Vec<bool> = list
            .make_room(&moved)
            .iter()
            .map(|r| r.palette_kept)
            .collect();
        assert_eq!(rooms, [false, false, false]);
        // A room dropped before it moves the ones after it.
        assert_eq!(kept(&mut list, &[room(2, 9)]), [false]);
    }

    #[test]
    fn joint_rows_transform_as_the_matrix_does() {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::new(1.0, 2.0, 0.5),
            glam::Quat::from_rotation_y(0.7),
            Vec3::new(3.0, -1.0, 2.0),
        );
        let rows = joint_rows(m);
        let p = glam::Vec4::new(0.3, -0.2, 1.5, 1.0);
        let by_rows = Vec3::new(
            glam::Vec4::from(rows[0]).dot(p),
            glam::Vec4::from(rows[1]).dot(p),
            glam::Vec4::from(rows[2]).dot(p),
        );
        assert!(by_rows.distance(m.transform_point3(p.truncate())) < 1e-5);
    }

    #[test]
    fn a_cleared_list_shows_only_this_frames_palettes() {
        let mut list = DrawList::default();
        list.push_palette(&[Mat4::from_translation(Vec3::Y); 4]);
        list.clear();
        assert!(list.palette().is_empty());
        let offset = list.push_palette(&[Mat4::IDENTITY; 2]);
        assert_eq!(offset, 0);
        assert_eq!(list.palette(), &[joint_rows(Mat4::IDENTITY); 2]);
    }

    #[test]
    fn pieces_follow_the_lengths_until_the_items_run_out() {
        let mut items = [1, 2, 3, 4, 5];
        let pieces = split_lengths(&mut items, [2, 0, 1, 9]);
        let lengths: Vec<usize> = pieces.iter().map(|p| p.len()).collect();
        assert_eq!(lengths, [2, 0, 1, 2]);
        assert_eq!(pieces[3], [4, 5]);
    }

    fn primitive(targets: u32) -> GpuPrimitive {
        GpuPrimitive {
            lods: [crate::mesh_store::IndexRange { first: 0, count: 3 }; crate::LOD_COUNT],
            lod_vertices: [3; crate::LOD_COUNT],
            vertex_base: 10,
            vertex_count: 3,
            delta_base: 100,
            target_count: targets,
            material: 0,
            skinned: true,
            surface: crate::mesh_store::Surface::Opaque,
            shading: crate::shading::Shading::FULL,
            outline: false,
        }
    }

    #[test]
    fn triangles_are_counted_at_each_passes_level() {
        let mut p = primitive(0);
        p.lods[0].count = 30;
        p.lods[1].count = 12;
        let batch = |lod, shadow_lod, count, passes| Batch {
            primitive: 0,
            first_object: 0,
            count,
            lod,
            shadow_lod,
            passes,
        };
        let list = DrawList {
            batches: vec![
                batch(0, 1, 5, Passes::BOTH),
                batch(
                    1,
                    1,
                    2,
                    Passes {
                        main: true,
                        shadow: false,
                    },
                ),
                batch(
                    0,
                    0,
                    7,
                    Passes {
                        main: false,
                        shadow: true,
                    },
                ),
            ],
            ..DrawList::default()
        };
        // Main: 5 copies of 10 and 2 of 4; shadow: 5 of 4 and 7 of 10.
        assert_eq!(triangles_drawn(&list, &[p]), [58, 90]);
        // A primitive the store lacks draws nothing.
        assert_eq!(triangles_drawn(&list, &[]), [0, 0]);
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
        list.push_object(&primitive(4), Mat4::IDENTITY, Some(0), r, 0);
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
        list.push_object(&p, Mat4::IDENTITY, Some(7), MorphRange::default(), 0);
        assert_eq!(list.objects[0].palette_offset, NO_PALETTE);
        assert_eq!(list.objects[0].deformed_base, NOT_DEFORMED);
        assert!(list.chunks.is_empty());
    }

    #[test]
    fn deformed_objects_get_their_own_vertices_and_chunks() {
        let mut list = DrawList::default();
        let mut p = primitive(0);
        p.vertex_count = 130;
        p.lod_vertices = [130; crate::LOD_COUNT];
        list.push_object(&p, Mat4::IDENTITY, Some(0), MorphRange::default(), 0);
        list.push_object(&p, Mat4::IDENTITY, Some(0), MorphRange::default(), 0);
        assert_eq!(list.objects[0].deformed_base, 0);
        assert_eq!(list.objects[1].deformed_base, 130);
        assert_eq!(list.deformed_vertices, 260);
        let firsts: Vec<(u32, u32)> = list.chunks.iter().map(|c| (c.object, c.first)).collect();
        assert_eq!(
            firsts,
            vec![(0, 0), (0, 64), (0, 128), (1, 0), (1, 64), (1, 128)]
        );
    }

    #[test]
    fn a_copy_drawn_coarser_deforms_only_the_vertices_its_level_uses() {
        let mut list = DrawList::default();
        let mut p = primitive(0);
        p.vertex_count = 130;
        p.lod_vertices = [130, 70, 20, 20, 10];
        list.push_object(&p, Mat4::IDENTITY, Some(0), MorphRange::default(), 2);
        list.push_object(&p, Mat4::IDENTITY, Some(0), MorphRange::default(), 1);
        assert_eq!(list.objects[0].deformed_count, 20);
        assert_eq!(list.objects[1].deformed_base, 20);
        assert_eq!(list.objects[1].deformed_count, 70);
        assert_eq!(list.deformed_vertices, 90);
        let firsts: Vec<(u32, u32)> = list.chunks.iter().map(|c| (c.object, c.first)).collect();
        assert_eq!(firsts, vec![(0, 0), (1, 0), (1, 64)]);
    }
}
