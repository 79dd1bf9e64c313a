//! A frame's main pass drawn by visibility and resolved in compute (`crate::visibility`):
//! which objects it draws, the passes it records, and what the rasterizer shades over it.

use std::collections::BTreeMap;

use super::{OUTLINE_LODS, Renderer, Target};
use crate::compute_raster::{ComputeRaster, Gathered, RasterLists};
use crate::draw_list::DrawList;
use crate::gpu::Gpu;
use crate::mesh_store::{GpuPrimitive, Surface};
use crate::shading::Shading;
use crate::timer::GpuTimer;
use crate::visibility::{self, Visibility};

/// What a frame resolved in compute draws: see [`Renderer::resolve_lists`].
struct ResolveLists {
    object_draws: Vec<[u32; 2]>,
    used: BTreeMap<u32, Shading>,
    over: bool,
    /// The objects rasterized in compute, numbered.
    raster: Gathered,
}

/// Which path draws a primitive's pixels in a frame resolved in compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Path {
    /// The visibility pass's rasterizer.
    Rasterizer,
    /// The compute raster.
    ComputeRaster,
    /// The mesh passes, over the resolve.
    Over,
}

impl Renderer {
    /// The texture to resolve the main pass into by visibility, where this frame can: the
    /// device has the path, the target is an sRGB RGBA8 texture the renderer may copy into,
    /// the mesh store's indices are readable and the screen's tiles and the lists fit.
    pub(super) fn resolvable<'t>(&self, target: &Target<'t>) -> Option<&'t wgpu::Texture> {
        let texture = target.texture?;
        (self.visibility.is_some()
            && texture.format() == wgpu::TextureFormat::Rgba8UnormSrgb
            && texture.sample_count() == 1
            && self.store.indices_readable
            && visibility::fits(
                target.width,
                target.height,
                visibility::list_count(self.store.materials.len()),
            ))
        .then_some(texture)
    }

    /// The main pass by visibility: the visibility pass, the tiles sorted by list, one
    /// resolve dispatch per list and the sky's, the image copied to `texture`, then what the
    /// rasterizer shades over it (outlines, see-through surfaces).
    pub(super) fn encode_resolved(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        target: &Target<'_>,
        texture: &wgpu::Texture,
        list: &DrawList,
        timer: Option<&GpuTimer>,
    ) {
        let lists = visibility::list_count(self.store.materials.len());
        // The paths are chosen with the compute raster where the device has it and it has
        // triangles to draw, else without it (every choice below follows the same rule).
        let can_raster = self.visibility.as_ref().is_some_and(|v| v.raster.is_some());
        let mut chosen = self.resolve_lists(list, can_raster);
        if can_raster && chosen.raster.triangles == 0 {
            chosen = self.resolve_lists(list, false);
        }
        let ResolveLists {
            object_draws,
            used,
            over,
            raster,
        } = chosen;
        let rastering = raster.triangles > 0;
        self.rastered = raster.triangles;
        let Some(vis) = self.visibility.as_mut() else {
            return;
        };
        for &shading in used.values() {
            vis.prepare_shading(&gpu.device, shading);
        }
        if rastering && let Some(r) = vis.raster.as_mut() {
            r.prepare(
                gpu,
                (target.width, target.height),
                &raster.items,
                raster.triangles,
                &raster.runs,
            );
        }
        let groups = vis.prepare(
            gpu,
            (target.width, target.height),
            lists,
            &object_draws,
            &self.store.indices,
            rastering,
        );
        let Some(vis) = self.visibility.as_ref() else {
            return;
        };
        let (Some((ids, depth)), Some(dispatches)) = (vis.attachments(), vis.dispatches()) else {
            return;
        };
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("visibility"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: ids,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: ids_undefined(),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: timer.map(GpuTimer::visibility_writes),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, self.frame.render(), &[]);
            pass.set_index_buffer(self.store.indices.slice(..), wgpu::IndexFormat::Uint32);
            for surface in [Surface::Opaque, Surface::Masked] {
                pass.set_pipeline(vis.raster_for(surface));
                let drawn = |p: &GpuPrimitive, lod| {
                    p.surface == surface && self.path(p, lod, rastering) == Path::Rasterizer
                };
                self.draw_surfaces(&mut pass, list.batches.iter(), false, drawn, |_, _, _| {});
            }
        }
        if rastering && let Some(r) = &vis.raster {
            r.encode(
                &gpu.device,
                encoder,
                self.frame.render(),
                &self.store.indices,
                &self.store.materials,
                depth,
                ids,
                timer.map(GpuTimer::raster_writes),
            );
        }
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("classify"),
                timestamp_writes: timer.map(GpuTimer::tiles_writes),
            });
            pass.set_pipeline(vis.classify());
            pass.set_bind_group(0, &groups.classify, &[]);
            let (across, down) = vis.tiles();
            pass.dispatch_workgroups(across, down, 1);
        }
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("resolve"),
                timestamp_writes: timer.map(|t| t.resolve_writes(!over)),
            });
            let sky = lists - 1;
            pass.set_pipeline(vis.sky());
            pass.set_bind_group(0, self.frame.render(), &[]);
            pass.set_bind_group(1, &self.sky_group, &[]);
            pass.set_bind_group(3, &groups.tiles, &[vis.list_offset(sky)]);
            pass.dispatch_workgroups_indirect(dispatches, Visibility::dispatch_offset(sky));
            for (&l, &shading) in &used {
                let (Some(pipeline), Some(material)) = (
                    vis.resolve_for(shading),
                    self.store.materials.get((l / 2) as usize),
                ) else {
                    continue;
                };
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, self.frame.render(), &[]);
                pass.set_bind_group(1, material, &[]);
                pass.set_bind_group(2, &self.light_group, &[]);
                pass.set_bind_group(3, &groups.tiles, &[vis.list_offset(l)]);
                pass.dispatch_workgroups_indirect(dispatches, Visibility::dispatch_offset(l));
            }
        }
        vis.copy_to(encoder, texture);
        if over {
            let raster = vis.raster.as_ref().filter(|_| rastering);
            self.encode_over(gpu, encoder, target, depth, list, raster, timer);
        }
    }

    /// Which path draws `p` at level `lod` in a frame resolved in compute, the far objects'
    /// compute raster allowed (`raster`) or not. Without it the visibility pass draws opaque
    /// and masked surfaces at the levels it draws and MToon ones at every level (their far
    /// shading is the dearer in the fragment stage: at 10,000 of VRoid's suzuha on an H100,
    /// 8.1 ms resolved against 10.4 ms shaded from 40 m on), the mesh passes shade the rest
    /// over the resolve. With it, opaque and masked surfaces from its level on are rasterized
    /// in compute (masked ones where that is on), and every level of every
    /// opaque or masked surface is resolved (the distant silhouette was left to the mesh
    /// passes only for the rasterizer's cost of drawing it by visibility).
    fn path(&self, p: &GpuPrimitive, lod: u8, raster: bool) -> Path {
        let computed = match p.surface {
            Surface::Opaque => true,
            Surface::Masked => self.raster_masked,
            Surface::Blended => false,
        };
        if p.surface == Surface::Blended {
            Path::Over
        } else if raster && computed && lod >= self.raster_from_lod {
            Path::ComputeRaster
        } else if raster || lod < self.resolved_lods || p.shading.toon {
            Path::Rasterizer
        } else {
            Path::Over
        }
    }

    /// Each object the visibility pass draws: the first index of its triangles and the list
    /// it is shaded with; the lists used with their shading needs; whether anything is drawn
    /// over the resolve (see-through surfaces, outlines); the far objects' triangles to
    /// rasterize in compute if `raster`.
    fn resolve_lists(&self, list: &DrawList, raster: bool) -> ResolveLists {
        let mut object_draws = vec![[0, u32::MAX]; list.objects.len()];
        let mut used = BTreeMap::new();
        let mut over = false;
        let mut raster_lists = RasterLists::default();
        for batch in &list.batches {
            let Some(p) = self.store.primitives.get(batch.primitive as usize) else {
                continue;
            };
            let range = p.lods[usize::from(batch.lod).min(p.lods.len() - 1)];
            if !batch.passes.main || range.count == 0 || batch.count == 0 {
                continue;
            }
            let path = self.path(p, batch.lod, raster);
            if path == Path::Over || (p.outline && usize::from(batch.lod) < OUTLINE_LODS) {
                over = true;
            }
            if path == Path::Over {
                continue;
            }
            let l = visibility::list_of(p, batch.lod, self.far_lod);
            used.insert(l, p.shading.at_lod(batch.lod, self.far_lod));
            let objects = batch.first_object..batch.first_object + batch.count;
            if let Some(draws) = object_draws.get_mut(objects.start as usize..objects.end as usize)
            {
                draws.fill([range.first, l]);
            }
            if path == Path::ComputeRaster {
                raster_lists.push(p, objects, range);
            }
        }
        ResolveLists {
            object_draws,
            used,
            over,
            raster: raster_lists.gather(),
        }
    }

    /// Which path draws `p` into the shadow map at level `lod`: the compute raster where it
    /// is on for the frame (`raster`), from its level for shadows on (masked surfaces, and see-through
    /// ones cast as masked, where masked ones are), else the rasterizer.
    pub(super) fn shadow_path(&self, p: &GpuPrimitive, lod: u8, raster: bool) -> Path {
        let computed = p.surface == Surface::Opaque || self.raster_masked;
        if raster && computed && lod >= self.shadow_raster_from_lod {
            Path::ComputeRaster
        } else {
            Path::Rasterizer
        }
    }

    /// The shadow casters the compute raster draws into the shadow map this frame.
    pub(super) fn shadow_raster_lists(&self, list: &DrawList) -> Gathered {
        let mut lists = RasterLists::default();
        for batch in &list.batches {
            let Some(p) = self.store.primitives.get(batch.primitive as usize) else {
                continue;
            };
            let range = p.lods[usize::from(batch.shadow_lod).min(p.lods.len() - 1)];
            if !batch.passes.shadow || range.count == 0 || batch.count == 0 {
                continue;
            }
            if self.shadow_path(p, batch.shadow_lod, true) == Path::ComputeRaster {
                lists.push(
                    p,
                    batch.first_object..batch.first_object + batch.count,
                    range,
                );
            }
        }
        lists.gather()
    }

    /// Draws over the resolved image what the rasterizer shades: MToon outlines and
    /// see-through surfaces, tested against the visibility pass's depth.
    #[allow(clippy::too_many_arguments)]
    fn encode_over(
        &self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        target: &Target<'_>,
        depth: &wgpu::TextureView,
        list: &DrawList,
        raster: Option<&ComputeRaster>,
        timer: Option<&GpuTimer>,
    ) {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("over the resolve"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target.view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: timer.map(GpuTimer::over_writes),
            occlusion_query_set: None,
            multiview_mask: None,
        });
        // The far objects rasterized in compute hide what is behind them too.
        if let Some(r) = raster {
            r.lay_depth(&gpu.device, &mut pass);
        }
        pass.set_bind_group(2, &self.light_group, &[]);
        // What the visibility pass left out, with the outlines of all.
        let rastered = raster.is_some();
        let left = |p: &GpuPrimitive, lod| self.path(p, lod, rastered) == Path::Over;
        self.lay_depth(&mut pass, list, &left);
        let surfaces = [Surface::Opaque, Surface::Masked];
        self.draw_meshes_of(&mut pass, list, false, &surfaces, &left);
        self.draw_meshes(&mut pass, list, false, &[Surface::Blended]);
    }
}

/// Whether the main pass may be drawn by visibility: on a GPU unless `NPC_RESOLVE=off` (the
/// mesh passes shading every pixel, for comparing the two); on a CPU rasterizer (llvmpipe)
/// only with `NPC_RESOLVE=on`, since there the compute resolve took twice the mesh passes'
/// time (151 against 75 ms for three of the project's NPCs at 480x270).
pub(super) fn visibility_from_env(gpu: &Gpu) -> bool {
    match std::env::var("NPC_RESOLVE").as_deref() {
        Ok("off") => false,
        Ok("on") => true,
        _ => gpu.info.device_type != wgpu::DeviceType::Cpu,
    }
}

/// The visibility pass's ids load: nothing.
fn ids_undefined() -> wgpu::LoadOp<wgpu::Color> {
    // SAFETY: `LoadOp::DontCare` leaves the ids undefined at the start of the pass. The classify
    // pass and the resolve read a pixel's ids only where the pass's depth (cleared to the far
    // plane) is nearer than the far plane, that is where a fragment of this pass wrote both.
    #[allow(unsafe_code)]
    let token = unsafe { wgpu::LoadOpDontCare::enabled() };
    wgpu::LoadOp::DontCare(token)
}

/// Levels of detail the visibility pass draws (but MToon surfaces': all): all but the distant
/// silhouette (with a 60 degree lens, out to 40 m); beyond, an NPC's few pixels are cheaper to
/// shade in the fragment stage than its triangles are to draw with their primitive index (on
/// an H100, 10,000 of the project's NPCs 6.9 ms a frame against 8.1 ms all resolved; VALID's
/// 6.4 against 6.8 ms). `NPC_RESOLVED_LODS` sets it, for timing.
const RESOLVED_LODS: u8 = 4;

pub(super) fn resolved_lods_from_env() -> u8 {
    std::env::var("NPC_RESOLVED_LODS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(RESOLVED_LODS)
}

/// The level of detail from which opaque and masked surfaces are rasterized in compute (where
/// the device can): every level, the ground and the nearest NPCs too, now that huge triangles
/// are shared out between workgroups. On an H100 (GPU frame, from the first level against
/// from the second): one of the project's NPCs 1.050 against 1.225 ms, 100 1.378 against
/// 1.563, 1000 1.623 against 1.688; VALID 0.928 / 1.129, 1.353 / 1.525, 1.571 / 1.634; VRoid
/// suzuha 1.408 / 1.357, 2.499 / 2.653, 2.626 / 2.610. (Before the sharing, from the first
/// level one NPC took 2.064 ms.) `NPC_RASTER_LOD` sets it, for timing.
const RASTER_FROM_LOD: u8 = 0;

/// The level from which shadow casters are rasterized in compute by default: the second (from
/// the first, before huge triangles were shared out, the shadow pass of 100 of the project's
/// NPCs took 0.403 against 0.309 ms on an H100).
const SHADOW_RASTER_FROM_LOD: u8 = 1;

/// Whether masked surfaces are rasterized in compute (the alpha test there): yes unless
/// `NPC_RASTER_MASKED=off`. On an H100, 1000 VRoid NPCs (every surface masked MToon) took
/// 2.65 ms of GPU with it against 3.94 ms without, 100 of them 2.78 against 2.94 ms.
pub(super) fn raster_masked_from_env() -> bool {
    std::env::var("NPC_RASTER_MASKED").as_deref() != Ok("off")
}

/// Whether the shadow map's casters are rasterized in compute (where the main pass is): yes
/// unless `NPC_RASTER_SHADOW=off`. On an H100 the GPU frame of 1000 of the project's NPCs took
/// 1.704 ms with it against 1.963 ms without, of 1000 VRoid NPCs 2.635 against 2.964 ms; below
/// [`SHADOW_RASTER_MIN`] casters' triangles it cost more than it saved.
pub(super) fn raster_shadow_from_env() -> bool {
    std::env::var("NPC_RASTER_SHADOW").as_deref() != Ok("off")
}

/// Fewest casters' triangles worth rasterizing in compute in a frame: below it the compute
/// pass's fixed work (the pack over the whole map and its copy into the depth texture) costs
/// more than the rasterizer drawing them. On an H100 (GPU frame, compute against rasterizer):
/// 10,326 triangles +0.148 ms, 87,840 +0.103, 171,320 +0.039, 218,248 -0.096, 334,400 -0.082,
/// 498,399 -0.259. `NPC_RASTER_SHADOW_MIN` sets it, for timing.
const SHADOW_RASTER_MIN: u32 = 200_000;

pub(super) fn shadow_raster_min_from_env() -> u32 {
    std::env::var("NPC_RASTER_SHADOW_MIN")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(SHADOW_RASTER_MIN)
}

/// The level from which shadow casters are rasterized in compute (where that is on):
/// [`SHADOW_RASTER_FROM_LOD`] unless `NPC_RASTER_SHADOW_LOD` sets it, for timing.
pub(super) fn shadow_raster_from_lod_from_env() -> u8 {
    std::env::var("NPC_RASTER_SHADOW_LOD")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(SHADOW_RASTER_FROM_LOD)
}

pub(super) fn raster_from_lod_from_env() -> u8 {
    std::env::var("NPC_RASTER_LOD")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(RASTER_FROM_LOD)
}
