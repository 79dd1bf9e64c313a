//! Drawing the world: every NPC the frame needs, batched per avatar primitive and level of
//! detail, then the scene's instances. NPCs outside the view are left out of the main pass,
//! NPCs outside the shadow's reach out of the shadow pass; far NPCs use coarser triangles.

use glam::{Mat4, Vec3};

use super::World;
use super::content::AvatarModel;
use npc_render::Frustum;
use npc_render::{
    Batch, DrawList, FrameView, MorphRange, ObjectBlock, ObjectPlacement, Passes, RoomSize,
    deformed_count, split_lengths,
};
use npc_render::{GpuPrimitive, LOD_COUNT};
use rayon::prelude::*;

/// Radius of the sphere around an NPC (centred 0.9 m above its feet), metres.
const NPC_RADIUS: f32 = 1.1;
/// Distances (for a 60 degree field of view) beyond which levels 1, 2, 3 (the silhouette) and
/// 4 (the distant silhouette) are used: at 4 m a standing NPC is about 420 pixels tall in a
/// 1080p image, at 9 m about 190, at 20 m about 85, at 40 m about 40.
pub const LOD_DISTANCES: [f32; LOD_COUNT - 1] = [4.0, 9.0, 20.0, 40.0];

/// Level of detail for something `distance` metres away seen with `fov_y`, where level `l + 1`
/// begins `distances[l]` metres away (for a 60 degree lens).
#[must_use]
pub fn lod_for(distance: f32, fov_y: f32, distances: &[f32]) -> u8 {
    // Narrow lenses magnify: scale the distance by how much smaller the view is than 60 deg.
    let scale = (fov_y * 0.5).tan() / 30_f32.to_radians().tan();
    let d = distance * scale;
    distances.iter().filter(|&&limit| d > limit).count() as u8
}

/// Vertices the deform pass writes for one NPC of `avatar` drawn at `lod` (every skinned or
/// morphed primitive of its body and head).
fn deform_cost(avatar: &AvatarModel, primitives: &[GpuPrimitive], lod: u8) -> u64 {
    std::iter::once(&avatar.body)
        .chain(&avatar.head)
        .flat_map(|part| {
            part.asset
                .instances
                .iter()
                .flat_map(|g| part.stored.primitives_of(g.mesh, primitives))
        })
        .filter(|(_, p)| p.skinned || p.target_count > 0)
        .map(|(_, p)| u64::from(deformed_count(p, lod)))
        .sum()
}

/// The coarsest level of detail.
const COARSEST: u8 = LOD_COUNT as u8 - 1;

/// Fits the deform work of `placed` into `budget`: the farthest NPCs drop to the coarsest
/// level first, and only when every NPC is at it are the farthest left out. `cost` is what an
/// NPC of an avatar takes at a level. Returns how many were left out.
fn fit_deform_budget(
    placed: &mut Vec<Placed>,
    budget: u64,
    cost: impl Fn(usize, u8) -> u64,
) -> u32 {
    let at = |p: &Placed| cost(p.avatar, p.deform_lod());
    let mut total: u64 = placed.iter().map(at).sum();
    if total <= budget {
        return 0;
    }
    placed.sort_unstable_by(|a, b| b.distance.total_cmp(&a.distance).then(b.npc.cmp(&a.npc)));
    for p in placed.iter_mut() {
        if total <= budget {
            break;
        }
        if p.lod < COARSEST {
            total -= at(p);
            p.lod = COARSEST;
            total += at(p);
        }
    }
    if total <= budget {
        return 0;
    }
    placed.reverse();
    let before = placed.len();
    let mut used = 0;
    placed.retain(|p| {
        let c = at(p);
        let fits = used + c <= budget;
        if fits {
            used += c;
        }
        fits
    });
    u32::try_from(before - placed.len()).unwrap_or(u32::MAX)
}

/// One NPC as this frame draws it: gathered on the cores that animated the crowd, so that
/// the draw list itself reads only this.
#[derive(Clone, Copy, Debug)]
struct Placed {
    npc: usize,
    avatar: usize,
    lod: u8,
    /// Distance from the camera, for drawing near NPCs first (they hide the ones behind).
    distance: f32,
    main: bool,
    shadow: bool,
    /// Where it stands, and where its head joint is (the model matrix when it has none).
    model: Mat4,
    head: Mat4,
    /// Its palettes' entries (all skins), its meshes with weights, their active targets.
    joints: usize,
    /// The pose its palettes hold ([`super::npc::NpcActor::pose`]).
    pose: u64,
    meshes: usize,
    active_targets: usize,
    /// Where its palettes start in the draw list, and its meshes' ranges in the frame's list.
    palette: u32,
    ranges: usize,
}

impl Placed {
    /// The level it is deformed for: the main pass's, or the shadow's for an NPC only the
    /// shadow pass draws.
    fn deform_lod(&self) -> u8 {
        if self.main {
            self.lod
        } else {
            (self.lod + 1).min(COARSEST)
        }
    }

    /// Main-only first, then both passes, then shadow-only: each pass's objects stay together.
    fn class(&self) -> u8 {
        match (self.main, self.shadow) {
            (true, false) => 0,
            (true, true) => 1,
            _ => 2,
        }
    }
}

/// `placed` sorted by avatar and level, then main-only, both passes, shadow-only, each near to
/// far (the NPC's index settles ties). Keys packed in 128 bits are sorted over all cores, not
/// the NPCs themselves.
fn in_draw_order(placed: &[Placed]) -> Vec<Placed> {
    let mut keys: Vec<u128> = placed
        .par_iter()
        .enumerate()
        // Distances are never negative: their bits order as they do.
        .map(|(i, p)| {
            (((p.avatar as u128) & 0xff_ffff) << 104)
                | (u128::from(p.lod & 0xf) << 100)
                | (u128::from(p.class() & 0xf) << 96)
                | (u128::from(p.distance.max(0.0).to_bits()) << 64)
                | (((p.npc as u128) & 0xffff_ffff) << 32)
                | ((i as u128) & 0xffff_ffff)
        })
        .collect();
    keys.par_sort_unstable();
    keys.par_iter()
        .map(|k| placed[(k & 0xffff_ffff) as usize])
        .collect()
}

/// Fewest NPCs worth a task of their own when gathering or filling over the cores.
const NPCS_PER_TASK: usize = 16;

impl World {
    /// Fills `list` for `view` (an image of `aspect`). `primitives` are the store's.
    pub fn draw(
        &self,
        primitives: &[GpuPrimitive],
        view: &FrameView,
        aspect: f32,
        list: &mut DrawList,
    ) {
        list.clear();
        let frustum = Frustum::from_view_proj(view.camera.view_proj(aspect));
        let mut placed = self.place(&frustum, view);
        if let Some(budget) = list.deform_budget {
            let costs: Vec<[u64; LOD_COUNT]> = self
                .content
                .avatars
                .iter()
                .map(|a| std::array::from_fn(|lod| deform_cost(a, primitives, lod as u8)))
                .collect();
            let cost = |avatar: usize, lod: u8| {
                costs
                    .get(avatar)
                    .and_then(|c| c.get(usize::from(lod)))
                    .copied()
                    .unwrap_or(0)
            };
            list.left_out = fit_deform_budget(&mut placed, u64::from(budget), cost);
        }
        // Palettes and active targets in the NPCs' own order, which stays from frame to frame
        // (so the palettes of NPCs not animated since the last frame stay where they are).
        if !placed.is_sorted_by_key(|p| p.npc) {
            placed.par_sort_unstable_by_key(|p| p.npc);
        }
        let ranges = self.fill_rooms(&mut placed, list);
        // Per avatar and level, one run of NPCs: main-only, both passes, shadow-only, each
        // near to far (the NPC's index settles ties, so no order is left to chance).
        let placed = in_draw_order(&placed);
        let mut blocks = Vec::new();
        let mut sources = Vec::new();
        let mut next = list.objects.len() as u32;
        let mut at = 0;
        for run in placed.chunk_by(|a, b| (a.avatar, a.lod) == (b.avatar, b.lod)) {
            let first = at;
            at += run.len();
            let Some(avatar) = self.content.avatars.get(run[0].avatar) else {
                continue;
            };
            let mut plan = Plan {
                list: &mut *list,
                primitives,
                blocks: &mut blocks,
                sources: &mut sources,
                next: &mut next,
            };
            plan.part(avatar, false, run, first);
            if avatar.head.is_some() {
                plan.part(avatar, true, run, first);
            }
        }
        let weights = |p: &Placed, mesh: usize| -> MorphRange {
            if mesh < p.meshes {
                ranges[p.ranges + mesh]
            } else {
                MorphRange::default()
            }
        };
        list.push_object_blocks(primitives, &blocks, |b, i| {
            let source = &sources[b];
            let p = &placed[source.first + i];
            let (model, palette, morphs) = self.placement(source, p, &weights);
            ObjectPlacement {
                model,
                palette,
                morphs,
                lod: p.deform_lod(),
            }
        });
        // The scene after the NPCs: near NPCs hide ground and plants, which then fail the
        // depth test before they are shaded.
        self.draw_scene(primitives, view, &frustum, list);
    }

    /// Where `p`'s copy of the primitive of `source` goes: model, palette, active targets
    /// (`weights` gives an NPC's range for a mesh).
    fn placement(
        &self,
        source: &BlockSource,
        p: &Placed,
        weights: &impl Fn(&Placed, usize) -> MorphRange,
    ) -> (Mat4, Option<u32>, MorphRange) {
        let morphs = source
            .morph_mesh
            .map(|mesh| weights(p, mesh))
            .unwrap_or_default();
        match source.place {
            BlockPlace::Head => (p.head * source.local, None, morphs),
            BlockPlace::Rigid => (p.model * source.local, None, morphs),
            BlockPlace::Skinned { palette, before } => {
                // An NPC not yet posed has no palettes: count what it has.
                let before = if p.joints == source.joints {
                    before
                } else {
                    self.npcs[p.npc]
                        .palettes
                        .iter()
                        .take(palette)
                        .map(Vec::len)
                        .sum()
                };
                (p.model, Some(p.palette + before as u32), morphs)
            }
        }
    }

    /// The NPCs the view sees or whose shadow may fall where it looks, with what drawing
    /// them needs, gathered over all cores.
    fn place(&self, frustum: &Frustum, view: &FrameView) -> Vec<Placed> {
        let reach = view.shadow_reach;
        self.npcs
            .par_iter()
            .enumerate()
            .with_min_len(NPCS_PER_TASK)
            .filter_map(|(i, npc)| {
                let centre = npc.position + Vec3::Y * 0.9;
                let main = frustum.sees_sphere(centre, NPC_RADIUS);
                let shadow =
                    view.shadows && centre.distance(reach.center) < reach.radius + NPC_RADIUS;
                if !main && !shadow {
                    return None;
                }
                let distance = centre.distance(view.camera.position);
                let model = npc.model();
                let joint = self
                    .content
                    .avatars
                    .get(npc.avatar)
                    .and_then(|a| a.head_joint)
                    .and_then(|j| npc.node_world.get(j))
                    .copied()
                    .unwrap_or(Mat4::IDENTITY);
                Some(Placed {
                    npc: i,
                    avatar: npc.avatar,
                    lod: lod_for(distance, view.camera.fov_y, &self.lod_distances),
                    distance,
                    main,
                    shadow,
                    model,
                    head: model * joint,
                    joints: npc.palettes.iter().map(Vec::len).sum(),
                    pose: npc.pose(),
                    meshes: npc.weights.per_mesh().len(),
                    active_targets: npc.weights.active().len(),
                    palette: 0,
                    ranges: 0,
                })
            })
            .collect()
    }

    /// Copies the palettes and active targets of `placed` into `list` over all cores; sets
    /// where each NPC's start and returns the morph range of each of its meshes (from
    /// `ranges`).
    fn fill_rooms(&self, placed: &mut [Placed], list: &mut DrawList) -> Vec<MorphRange> {
        let sizes: Vec<RoomSize> = placed
            .iter()
            .map(|p| RoomSize {
                joints: p.joints,
                active_targets: p.active_targets,
                pose: p.pose,
            })
            .collect();
        let mut ranges = vec![MorphRange::default(); placed.iter().map(|p| p.meshes).sum()];
        let rooms = list.make_room(&sizes);
        let mut at = 0;
        for (p, room) in placed.iter_mut().zip(&rooms) {
            p.palette = room.palette_offset;
            p.ranges = at;
            at += p.meshes;
        }
        let pieces = split_lengths(&mut ranges, placed.iter().map(|p| p.meshes));
        rooms
            .into_par_iter()
            .zip(pieces)
            .zip(&*placed)
            .with_min_len(NPCS_PER_TASK)
            .for_each(|((mut room, out), p)| {
                let npc = &self.npcs[p.npc];
                if !room.palette_kept {
                    let mut joint = 0;
                    for palette in &npc.palettes {
                        room.put_palette(joint, palette);
                        joint += palette.len();
                    }
                }
                let active = npc.weights.active();
                let mut target = 0;
                for (mesh, range) in out.iter_mut().enumerate() {
                    *range = room.put_active(target, active.of_mesh(mesh));
                    target += range.count as usize;
                }
            });
        ranges
    }

    /// The scene's instances the view sees, or whose shadow may fall where it looks.
    fn draw_scene(
        &self,
        primitives: &[GpuPrimitive],
        view: &FrameView,
        frustum: &Frustum,
        list: &mut DrawList,
    ) {
        let reach = view.shadow_reach;
        let scene = &self.content.scene;
        let mut kept = Vec::new();
        for (g, group) in scene.asset.instances.iter().enumerate() {
            let casts = !self.content.ground_groups.contains(&g);
            kept.clear();
            let spheres = self.content.scene_spheres.get(g);
            for (i, m) in group.transforms.iter().enumerate() {
                let needed = spheres.and_then(|s| s.get(i)).is_none_or(|&(c, r)| {
                    frustum.sees_sphere(c, r)
                        || (casts && view.shadows && c.distance(reach.center) < reach.radius + r)
                });
                if needed {
                    kept.push(*m);
                }
            }
            if kept.is_empty() {
                continue;
            }
            for (id, p) in scene.stored.primitives_of(group.mesh, primitives) {
                list.push_instances(id, p, &kept);
                if let Some(batch) = list.batches.last_mut() {
                    batch.passes.shadow = casts;
                }
            }
        }
    }
}

/// What a block of objects draws: a primitive of the instance group `group` of an avatar's
/// body or head, for the placed NPCs from `first` on, with what placing each copy needs
/// worked out once for the block.
#[derive(Clone, Copy, Debug)]
struct BlockSource {
    first: usize,
    /// The group's own transform (under the head joint, the NPC, or unused when skinned).
    local: Mat4,
    place: BlockPlace,
    /// The mesh whose weights the copies take, if they take any.
    morph_mesh: Option<usize>,
    /// Palette entries of an NPC of this avatar once posed (all its palettes).
    joints: usize,
}

/// How a block's copies are placed.
#[derive(Clone, Copy, Debug)]
enum BlockPlace {
    /// Under the NPC's head joint.
    Head,
    /// By the NPC's palette `palette` (of the avatar's
    /// [`npc_core::asset::skin::PaletteLayout`]), which starts `before` entries into its
    /// palettes.
    Skinned { palette: usize, before: usize },
    /// By the NPC's placement.
    Rigid,
}

impl BlockSource {
    /// The block for instance group `group` of the avatar's head (`head`) or body.
    fn new(avatar: &AvatarModel, head: bool, group: usize, first: usize) -> Self {
        let skins = &avatar.body.asset.skins;
        let joints = avatar.body.palettes.joints;
        let part = if head {
            avatar.head.as_ref().unwrap_or(&avatar.body)
        } else {
            &avatar.body
        };
        let Some(g) = part.asset.instances.get(group) else {
            return Self {
                first,
                local: Mat4::IDENTITY,
                place: BlockPlace::Rigid,
                morph_mesh: None,
                joints,
            };
        };
        let local = g.transforms.first().copied().unwrap_or(Mat4::IDENTITY);
        // A body's meshes take weights only when the avatar has no separate head.
        let morph_mesh = (head || avatar.head.is_none()).then_some(g.mesh);
        let place = match g.skin {
            _ if head => BlockPlace::Head,
            Some(skin) if skin < skins.len() => BlockPlace::Skinned {
                palette: avatar.body.palettes.palette_of[skin],
                before: avatar.body.palettes.start[skin],
            },
            _ => BlockPlace::Rigid,
        };
        Self {
            first,
            local,
            place,
            morph_mesh,
            joints,
        }
    }
}

/// The blocks of objects and the batches of one frame's NPCs, planned in list order before
/// the objects are filled over all cores.
struct Plan<'a> {
    list: &'a mut DrawList,
    primitives: &'a [GpuPrimitive],
    blocks: &'a mut Vec<ObjectBlock>,
    sources: &'a mut Vec<BlockSource>,
    /// Index of the next object.
    next: &'a mut u32,
}

impl Plan<'_> {
    /// Plans every primitive of `part` for the NPCs of `group` (one avatar and level, sorted
    /// by class, from `first` in the placed list) with a main and a shadow batch each.
    fn part(&mut self, model: &AvatarModel, head: bool, group: &[Placed], first: usize) {
        let part = match (&model.head, head) {
            (Some(h), true) => h,
            _ => &model.body,
        };
        let Some(lod) = group.first().map(|p| p.lod) else {
            return;
        };
        let main_only = group.iter().filter(|p| p.class() == 0).count() as u32;
        let main = group.iter().filter(|p| p.main).count() as u32;
        let shadow = group.iter().filter(|p| p.shadow).count() as u32;
        for (g, instances) in part.asset.instances.iter().enumerate() {
            for (id, p) in part.stored.primitives_of(instances.mesh, self.primitives) {
                // A small part has no silhouette: nothing to draw or deform for it there.
                let triangles = |lod: u8| p.lods.get(usize::from(lod)).map_or(0, |l| l.count);
                if triangles(lod) == 0 && triangles((lod + 1).min(COARSEST)) == 0 {
                    continue;
                }
                let first_object = *self.next;
                *self.next += group.len() as u32;
                self.blocks.push(ObjectBlock {
                    primitive: id as usize,
                    count: group.len(),
                });
                self.sources.push(BlockSource::new(model, head, g, first));
                if main > 0 {
                    self.list.batches.push(Batch {
                        primitive: id,
                        first_object,
                        count: main,
                        lod,
                        shadow_lod: lod,
                        passes: Passes {
                            main: true,
                            shadow: false,
                        },
                    });
                }
                if shadow > 0 {
                    self.list.batches.push(Batch {
                        primitive: id,
                        first_object: first_object + main_only,
                        count: shadow,
                        lod,
                        // Shadows need less detail than what they fall from.
                        shadow_lod: (lod + 1).min(COARSEST),
                        passes: Passes {
                            main: false,
                            shadow: true,
                        },
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(npc: usize, distance: f32, lod: u8) -> Placed {
        Placed {
            npc,
            avatar: 0,
            lod,
            distance,
            main: true,
            shadow: false,
            model: Mat4::IDENTITY,
            head: Mat4::IDENTITY,
            joints: 0,
            pose: 0,
            meshes: 0,
            active_targets: 0,
            palette: 0,
            ranges: 0,
        }
    }

    /// Vertices per level: 50 at full detail, 40, 30, 20, then 10 at the coarsest.
    fn cost(_avatar: usize, lod: u8) -> u64 {
        10 * (u64::from(COARSEST) + 1 - u64::from(lod))
    }

    fn by_npc(placed: &[Placed]) -> Vec<(usize, u8)> {
        let mut kept: Vec<(usize, u8)> = placed.iter().map(|p| (p.npc, p.lod)).collect();
        kept.sort_unstable();
        kept
    }

    #[test]
    fn the_farthest_npcs_drop_to_the_coarsest_level_before_any_is_left_out() {
        assert_eq!(COARSEST, 4, "the costs below count five levels");
        let crowd = || vec![at(0, 9.0, 1), at(1, 2.0, 0), at(2, 5.0, 1), at(3, 1.0, 0)];
        // Everything fits: nothing changes.
        let mut all = crowd();
        assert_eq!(fit_deform_budget(&mut all, 180, cost), 0);
        assert_eq!(by_npc(&all), [(0, 1), (1, 0), (2, 1), (3, 0)]);
        // 180 is needed; 150 takes the farthest to the coarsest level (-30).
        let mut one = crowd();
        assert_eq!(fit_deform_budget(&mut one, 150, cost), 0);
        assert_eq!(by_npc(&one), [(0, COARSEST), (1, 0), (2, 1), (3, 0)]);
        // 120 takes the next farthest too.
        let mut two = crowd();
        assert_eq!(fit_deform_budget(&mut two, 120, cost), 0);
        assert_eq!(by_npc(&two), [(0, COARSEST), (1, 0), (2, COARSEST), (3, 0)]);
        // Every NPC at the coarsest level takes 40: 25 holds the two nearest.
        let mut few = crowd();
        assert_eq!(fit_deform_budget(&mut few, 25, cost), 2);
        assert_eq!(by_npc(&few), [(1, COARSEST), (3, COARSEST)]);
    }

    #[test]
    fn an_npc_only_the_shadow_draws_is_deformed_for_the_shadows_level() {
        let mut shadow_only = at(0, 3.0, 0);
        shadow_only.main = false;
        shadow_only.shadow = true;
        assert_eq!(shadow_only.deform_lod(), 1);
        shadow_only.lod = COARSEST;
        assert_eq!(shadow_only.deform_lod(), COARSEST);
        assert_eq!(at(1, 3.0, 0).deform_lod(), 0);
    }

    #[test]
    fn far_npcs_get_coarser_levels_and_narrow_lenses_finer_ones() {
        let fov = 60_f32.to_radians();
        let at = |d: f32, fov: f32| lod_for(d, fov, &LOD_DISTANCES);
        assert_eq!(at(2.0, fov), 0);
        assert_eq!(at(6.0, fov), 1);
        assert_eq!(at(15.0, fov), 2);
        assert_eq!(at(30.0, fov), 3);
        assert_eq!(at(50.0, fov), 4);
        assert_eq!(at(6.0, 20_f32.to_radians()), 0);
    }
}
