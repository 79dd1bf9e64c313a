//! Drawing the world: every NPC the frame needs, batched per avatar primitive and level of
//! detail, then the scene's instances. NPCs outside the view are left out of the main pass,
//! NPCs outside the shadow's reach out of the shadow pass; far NPCs use coarser triangles.

use glam::{Mat4, Vec3};

use super::World;
use super::content::{AvatarModel, Part};
use npc_render::Frustum;
use npc_render::{Batch, DrawList, FrameView, MorphRange, Passes};
use npc_render::{GpuPrimitive, LOD_COUNT};

/// Radius of the sphere around an NPC (centred 0.9 m above its feet), metres.
const NPC_RADIUS: f32 = 1.1;
/// Distances (for a 60 degree field of view) beyond which levels 1 and 2 are used: at 4 m a
/// standing NPC is about 420 pixels tall in a 1080p image, at 9 m about 190.
pub const LOD_DISTANCES: [f32; 2] = [4.0, 9.0];

/// Level of detail for something `distance` metres away seen with `fov_y`.
#[must_use]
pub fn lod_for(distance: f32, fov_y: f32) -> u8 {
    // Narrow lenses magnify: scale the distance by how much smaller the view is than 60 deg.
    let scale = (fov_y * 0.5).tan() / 30_f32.to_radians().tan();
    let d = distance * scale;
    LOD_DISTANCES.iter().filter(|&&limit| d > limit).count() as u8
}

/// An NPC the frame's view or shadow reaches.
#[derive(Clone, Copy, Debug)]
struct Seen {
    npc: usize,
    /// From the camera, metres.
    distance: f32,
    main: bool,
    shadow: bool,
}

/// Vertices the deform pass writes for one NPC of `avatar` at most (every skinned or morphed
/// primitive of its body and head).
fn deform_cost(avatar: &AvatarModel, primitives: &[GpuPrimitive]) -> u64 {
    std::iter::once(&avatar.body)
        .chain(&avatar.head)
        .flat_map(|part| {
            part.asset
                .instances
                .iter()
                .flat_map(|g| part.stored.primitives_of(g.mesh, primitives))
        })
        .filter(|(_, p)| p.skinned || p.target_count > 0)
        .map(|(_, p)| u64::from(p.vertex_count))
        .sum()
}

/// Keeps the nearest of `seen` whose `cost` fits `budget` (all of them when they all fit);
/// returns how many were left out.
fn keep_nearest_within(seen: &mut Vec<Seen>, budget: u64, cost: impl Fn(&Seen) -> u64) -> u32 {
    if seen.iter().map(&cost).sum::<u64>() <= budget {
        return 0;
    }
    seen.sort_by(|a, b| a.distance.total_cmp(&b.distance));
    let before = seen.len();
    let mut used = 0;
    seen.retain(|s| {
        let c = cost(s);
        let fits = used + c <= budget;
        if fits {
            used += c;
        }
        fits
    });
    u32::try_from(before - seen.len()).unwrap_or(u32::MAX)
}

/// One NPC as this frame draws it.
#[derive(Clone, Copy, Debug)]
struct Placed {
    npc: usize,
    lod: u8,
    /// Distance from the camera, for drawing near NPCs first (they hide the ones behind).
    distance: f32,
    main: bool,
    shadow: bool,
    palettes: usize,
    morphs: usize,
}

impl Placed {
    /// Main-only first, then both passes, then shadow-only: each pass's objects stay together.
    fn class(&self) -> u8 {
        match (self.main, self.shadow) {
            (true, false) => 0,
            (true, true) => 1,
            _ => 2,
        }
    }
}

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
        let reach = view.shadow_reach;
        let mut palette_offsets: Vec<u32> = Vec::new();
        let mut palettes: Vec<(u32, &[Mat4])> = Vec::new();
        let mut morph_ranges: Vec<MorphRange> = Vec::new();
        let mut seen: Vec<Seen> = self
            .npcs
            .iter()
            .enumerate()
            .filter_map(|(npc, n)| {
                let centre = n.position + Vec3::Y * 0.9;
                let main = frustum.sees_sphere(centre, NPC_RADIUS);
                let shadow =
                    view.shadows && centre.distance(reach.center) < reach.radius + NPC_RADIUS;
                (main || shadow).then(|| Seen {
                    npc,
                    distance: centre.distance(view.camera.position),
                    main,
                    shadow,
                })
            })
            .collect();
        if let Some(budget) = list.deform_budget {
            let costs: Vec<u64> = self
                .content
                .avatars
                .iter()
                .map(|a| deform_cost(a, primitives))
                .collect();
            let cost = |s: &Seen| costs.get(self.npcs[s.npc].avatar).copied().unwrap_or(0);
            list.left_out = keep_nearest_within(&mut seen, u64::from(budget), cost);
        }
        for (a, avatar) in self.content.avatars.iter().enumerate() {
            let mut placed: Vec<Placed> = Vec::new();
            palette_offsets.clear();
            morph_ranges.clear();
            for &Seen {
                npc: i,
                distance,
                main,
                shadow,
            } in seen.iter().filter(|s| self.npcs[s.npc].avatar == a)
            {
                let npc = &self.npcs[i];
                placed.push(Placed {
                    npc: i,
                    lod: lod_for(distance, view.camera.fov_y),
                    distance,
                    main,
                    shadow,
                    palettes: palette_offsets.len(),
                    morphs: morph_ranges.len(),
                });
                for palette in &npc.palettes {
                    let offset = list.reserve_palette(palette.len());
                    palette_offsets.push(offset);
                    palettes.push((offset, palette));
                }
                morph_ranges.extend(npc.weights.iter().map(|w| list.push_morphs(w)));
            }
            placed.sort_by(|a, b| {
                (a.lod, a.class())
                    .cmp(&(b.lod, b.class()))
                    .then(a.distance.total_cmp(&b.distance))
            });
            let body_has_face = avatar.head.is_none();
            for lod in 0..LOD_COUNT as u8 {
                let group: Vec<Placed> = placed.iter().copied().filter(|p| p.lod == lod).collect();
                if group.is_empty() {
                    continue;
                }
                let skins = avatar.body.asset.skins.len();
                let weights = |p: &Placed, mesh: usize| -> MorphRange {
                    let count = self.npcs[p.npc].weights.len();
                    if mesh < count {
                        morph_ranges[p.morphs + mesh]
                    } else {
                        MorphRange::default()
                    }
                };
                draw_part(list, primitives, &avatar.body, lod, &group, &|p, g| {
                    let npc = &self.npcs[p.npc];
                    let morph = if body_has_face {
                        weights(p, g.mesh)
                    } else {
                        MorphRange::default()
                    };
                    match g.skin {
                        Some(s) if s < skins => {
                            (npc.model(), Some(palette_offsets[p.palettes + s]), morph)
                        }
                        _ => (
                            npc.model() * g.transforms.first().copied().unwrap_or(Mat4::IDENTITY),
                            None,
                            morph,
                        ),
                    }
                });
                if let Some(head) = &avatar.head {
                    draw_part(list, primitives, head, lod, &group, &|p, g| {
                        let npc = &self.npcs[p.npc];
                        let joint = avatar
                            .head_joint
                            .and_then(|j| npc.node_world.get(j))
                            .copied()
                            .unwrap_or(Mat4::IDENTITY);
                        let local = g.transforms.first().copied().unwrap_or(Mat4::IDENTITY);
                        (npc.model() * joint * local, None, weights(p, g.mesh))
                    });
                }
            }
        }
        list.fill_palettes(&palettes);
        // The scene after the NPCs: near NPCs hide ground and plants, which then fail the
        // depth test before they are shaded.
        self.draw_scene(primitives, view, &frustum, list);
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

/// Where one placed NPC's copy of an instance group goes: model, palette, active targets.
type Placement<'a> =
    dyn Fn(&Placed, &npc_core::asset::scene::InstanceGroup) -> (Mat4, Option<u32>, MorphRange) + 'a;

/// Pushes every primitive of `part` for the NPCs of `group` (sorted by class) with a main and
/// a shadow batch each.
fn draw_part(
    list: &mut DrawList,
    primitives: &[GpuPrimitive],
    part: &Part,
    lod: u8,
    group: &[Placed],
    placement: &Placement<'_>,
) {
    let main_only = group.iter().filter(|p| p.class() == 0).count() as u32;
    let main = group.iter().filter(|p| p.main).count() as u32;
    let shadow = group.iter().filter(|p| p.shadow).count() as u32;
    for instances in &part.asset.instances {
        for (id, p) in part.stored.primitives_of(instances.mesh, primitives) {
            let first = list.objects.len() as u32;
            for placed in group {
                let (model, palette, morphs) = placement(placed, instances);
                list.push_object(p, model, palette, morphs);
            }
            if main > 0 {
                list.batches.push(Batch {
                    primitive: id,
                    first_object: first,
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
                list.batches.push(Batch {
                    primitive: id,
                    first_object: first + main_only,
                    count: shadow,
                    lod,
                    // Shadows need less detail than what they fall from.
                    shadow_lod: (lod + 1).min(LOD_COUNT as u8 - 1),
                    passes: Passes {
                        main: false,
                        shadow: true,
                    },
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_npcs_that_fit_the_deform_budget_are_kept() {
        let at = |npc: usize, distance: f32| Seen {
            npc,
            distance,
            main: true,
            shadow: false,
        };
        let mut seen = vec![at(0, 9.0), at(1, 2.0), at(2, 5.0), at(3, 1.0)];
        // Each costs 10 vertices: 25 hold the two nearest.
        assert_eq!(keep_nearest_within(&mut seen, 25, |_| 10), 2);
        let kept: Vec<usize> = seen.iter().map(|s| s.npc).collect();
        assert_eq!(kept, [3, 1]);
        // Everything fits: nothing moves or goes.
        let mut all = vec![at(0, 9.0), at(1, 2.0)];
        assert_eq!(keep_nearest_within(&mut all, 20, |_| 10), 0);
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].npc, 0);
    }

    #[test]
    fn far_npcs_get_coarser_levels_and_narrow_lenses_finer_ones() {
        let fov = 60_f32.to_radians();
        assert_eq!(lod_for(2.0, fov), 0);
        assert_eq!(lod_for(6.0, fov), 1);
        assert_eq!(lod_for(50.0, fov), 2);
        assert_eq!(lod_for(6.0, 20_f32.to_radians()), 0);
    }
}
