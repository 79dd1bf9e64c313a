//! The renderer: long-lived pipelines and meshes, per-frame buffers, and the passes of a
//! frame (deform, shadow map from the sun, lit meshes, sky behind them; or, at one sample per
//! pixel on a GPU, the main pass by visibility and a compute resolve: `resolved.rs`).

use super::compute_raster::RasterShares;
use super::draw_list::{Batch, DrawList};
use super::environment::Environment;
use super::frame_buffers::FrameBuffers;
use super::gpu::Gpu;
use super::gpu_types::DEFORM_ROW;
use super::mesh_store::{GpuPrimitive, MeshStore, MeshStoreBuilder, StoreError, Surface};
use super::pipelines::{DEPTH_FORMAT, DepthPrepass, Layouts, MAIN_PASS_TEXTURES, Pipelines};
use super::shading::{Shading, far_lod_from_env};
use super::shadow_map::ShadowMap;
use super::sky_textures::{CubeFaces, SkyCubes, sky_bind_group};
use super::timer::GpuTimer;
use super::view::FrameView;
use super::visibility::Visibility;

mod resolved;

use resolved::{
    raster_from_lod_from_env, raster_masked_from_env, raster_shadow_from_env,
    resolved_lods_from_env, shadow_raster_from_lod_from_env, shadow_raster_min_from_env,
    visibility_from_env,
};

/// Levels of detail drawn with their MToon outlines: the full mesh and the first simplified
/// level (with a 60 degree lens, out to 9 m).
const OUTLINE_LODS: usize = 2;

/// Why a renderer could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RendererError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Sky(String),
    #[error(
        "this GPU's device binds at most {limit} textures a shader stage; characters' \
         materials need {needed}"
    )]
    TooFewTextures { limit: u32, needed: u32 },
}

/// A colour target to draw into.
#[derive(Debug)]
pub struct Target<'a> {
    pub view: &'a wgpu::TextureView,
    /// Where multisampled drawing resolves to, when `view` is multisampled.
    pub resolve: Option<&'a wgpu::TextureView>,
    /// The single-sample texture `view` shows, where the renderer may write it by copy (an
    /// [`crate::OFFSCREEN_FORMAT`] texture made with `COPY_DST`): the main pass is then drawn
    /// by visibility and a compute resolve (`visibility.rs`).
    pub texture: Option<&'a wgpu::Texture>,
    pub width: u32,
    pub height: u32,
}

/// The renderer for one colour format.
#[derive(Debug)]
pub struct Renderer {
    pub store: MeshStore,
    layouts: Layouts,
    pipelines: Pipelines,
    /// The level of detail from which materials are shaded as [`Shading::far`].
    far_lod: u8,
    frame: FrameBuffers,
    /// Chunks of the deform pass in the last prepared list.
    chunk_count: u32,
    shadow: ShadowMap,
    environment: Environment,
    /// Group 2 of the main pass: the shadow map and the image-based light.
    light_group: wgpu::BindGroup,
    sky_group: wgpu::BindGroup,
    depth: Option<(u32, u32, wgpu::TextureView)>,
    /// Whether a frame has had to leave things out to fit the device (said once).
    told_left_out: bool,
    /// The main pass by visibility and a compute resolve, where the device can and the
    /// target is single-sampled (`None`: the mesh passes shade alone).
    visibility: Option<Visibility>,
    /// Whether the last frame's main pass was resolved in compute.
    resolved: bool,
    /// Levels of detail the visibility pass draws (coarser ones are shaded by the mesh passes
    /// over the resolve).
    resolved_lods: u8,
    /// The level of detail from which opaque surfaces are rasterized in compute.
    raster_from_lod: u8,
    /// Whether masked surfaces are rasterized in compute too (their alpha test there).
    raster_masked: bool,
    /// Whether the shadow map's casters are rasterized in compute too, and from which level.
    raster_shadow: bool,
    /// Fewest casters' triangles a frame rasterizes in compute (fewer: all by the rasterizer).
    shadow_raster_min: u32,
    shadow_raster_from_lod: u8,
    /// Triangles the last frame rasterized in compute.
    rastered: u32,
    /// Shadow casters' triangles the last frame rasterized in compute.
    shadow_rastered: u32,
}

impl Renderer {
    /// Uploads the meshes and skies and builds pipelines for `color_format` with `samples`
    /// samples per pixel and a square shadow map of `shadow_size` texels.
    pub fn new(
        gpu: &Gpu,
        meshes: MeshStoreBuilder,
        skies: &[CubeFaces; 3],
        color_format: wgpu::TextureFormat,
        samples: u32,
        shadow_size: u32,
    ) -> Result<Self, RendererError> {
        let device = &gpu.device;
        let limit = device.limits().max_sampled_textures_per_shader_stage;
        if limit < MAIN_PASS_TEXTURES {
            return Err(RendererError::TooFewTextures {
                limit,
                needed: MAIN_PASS_TEXTURES,
            });
        }
        let layouts = Layouts::new(device, gpu.anisotropy());
        let mut pipelines = Pipelines::new(device, &layouts, color_format, samples);
        let store = meshes.build(gpu, &layouts.material)?;
        pipelines.specialize(
            device,
            store
                .primitives
                .iter()
                .flat_map(|p| [(p.surface, p.shading), (p.surface, p.shading.far())]),
        );
        let frame = FrameBuffers::new(device, &layouts, &store);
        let shadow = ShadowMap::new(device, shadow_size);
        let skies = SkyCubes::new(gpu, skies).map_err(RendererError::Sky)?;
        let sky_group = sky_bind_group(gpu, &layouts.sky, &skies);
        let environment = Environment::new(gpu, &skies);
        let light_group = light_bind_group(device, &layouts.light, &shadow, &environment);
        let visibility = if samples == 1 && visibility_from_env(gpu) {
            Visibility::new(device, &layouts, pipelines.color_format)
        } else {
            None
        };
        Ok(Self {
            store,
            layouts,
            pipelines,
            far_lod: far_lod_from_env(),
            frame,
            chunk_count: 0,
            shadow,
            environment,
            light_group,
            sky_group,
            depth: None,
            told_left_out: false,
            visibility,
            resolved: false,
            resolved_lods: resolved_lods_from_env(),
            raster_from_lod: raster_from_lod_from_env(),
            shadow_raster_from_lod: shadow_raster_from_lod_from_env(),
            raster_masked: raster_masked_from_env(),
            raster_shadow: raster_shadow_from_env(),
            shadow_raster_min: shadow_raster_min_from_env(),
            rastered: 0,
            shadow_rastered: 0,
        })
    }

    /// Draws `meshes` from now on in place of the meshes it had (a new avatar in a viewer),
    /// keeping the pipelines, shadow map and skies: only the new meshes are uploaded.
    ///
    /// # Errors
    /// The meshes do not fit the device; the renderer keeps the old ones then.
    pub fn set_meshes(&mut self, gpu: &Gpu, meshes: MeshStoreBuilder) -> Result<(), RendererError> {
        let store = meshes.build(gpu, &self.layouts.material)?;
        self.frame = FrameBuffers::new(&gpu.device, &self.layouts, &store);
        self.store = store;
        self.chunk_count = 0;
        Ok(())
    }

    /// Whether the main pass is drawn by visibility and a compute resolve where the target
    /// allows (else the mesh passes shade every pixel).
    #[must_use]
    pub fn resolves(&self) -> bool {
        self.visibility.is_some()
    }

    /// Whether the last frame's main pass was drawn by visibility and the compute resolve.
    #[must_use]
    pub fn resolved_last_frame(&self) -> bool {
        self.resolved
    }

    /// Whether far objects of the visibility pass are rasterized in compute (the device has
    /// 64-bit atomics, and it is on).
    #[must_use]
    pub fn computes_raster(&self) -> bool {
        self.visibility.as_ref().is_some_and(|v| v.raster.is_some())
    }

    /// Triangles the last frame resolved in compute rasterized in compute (0: none; a frame
    /// with outlines or see-through surfaces draws all with the rasterizer).
    #[must_use]
    pub fn rastered_last_frame(&self) -> u32 {
        if self.resolved { self.rastered } else { 0 }
    }

    /// Rasterizes in compute the objects drawn at `lod` or coarser (0: every object, the
    /// ground and nearest NPCs too), where the compute raster is on.
    pub fn set_raster_from_lod(&mut self, lod: u8) {
        self.raster_from_lod = lod;
        self.shadow_raster_from_lod = lod;
    }

    /// Shadow casters' triangles the last frame rasterized in compute (0: none).
    #[must_use]
    pub fn shadow_rastered_last_frame(&self) -> u32 {
        self.shadow_rastered
    }

    /// Rasterizes masked surfaces in compute too (`on`; their alpha test there), where the
    /// compute raster is on (on unless `NPC_RASTER_MASKED=off`).
    pub fn set_raster_masked(&mut self, on: bool) {
        self.raster_masked = on;
    }

    /// Rasterizes the shadow map's casters in compute too (`on`), in frames whose main pass is
    /// resolved with the compute raster (on unless `NPC_RASTER_SHADOW=off`).
    pub fn set_raster_shadow(&mut self, on: bool) {
        self.raster_shadow = on;
    }

    /// Rasterizes the shadow map's casters in compute only in frames where at least
    /// `triangles` of them would go there (fewer: all drawn by the rasterizer, whose pass then
    /// costs less than the compute pass's fixed work); 200,000 unless `NPC_RASTER_SHADOW_MIN`.
    pub fn set_raster_shadow_min(&mut self, triangles: u32) {
        self.shadow_raster_min = triangles;
    }

    /// Rasterizes far objects of the visibility pass in compute where the device can (`on`),
    /// or draws them all with the rasterizer.
    pub fn set_compute_raster(&mut self, device: &wgpu::Device, on: bool) {
        if let Some(v) = self.visibility.as_mut() {
            v.set_compute_raster(device, &self.layouts, self.pipelines.color_format, on);
        }
    }

    /// Rasterizes in compute (where the device can) sharing triangles' pixels out between
    /// threads and workgroups as `shares` says (`NPC_RASTER_LARGE_PIXELS` and
    /// `NPC_RASTER_HUGE_PIXELS` set it at start).
    pub fn set_raster_shares(&mut self, device: &wgpu::Device, shares: RasterShares) {
        if let Some(v) = self.visibility.as_mut() {
            v.set_raster_shares(device, &self.layouts, self.pipelines.color_format, shares);
        }
    }

    /// Draws the main pass by visibility where the device and target allow (`on`), or with
    /// the mesh passes alone.
    pub fn set_resolve(&mut self, device: &wgpu::Device, on: bool) {
        if !on {
            self.visibility = None;
        } else if self.visibility.is_none() && self.pipelines.samples == 1 {
            self.visibility = Visibility::new(device, &self.layouts, self.pipelines.color_format);
        }
    }

    /// The colour format the pipelines draw into.
    #[must_use]
    pub fn color_format(&self) -> wgpu::TextureFormat {
        self.pipelines.color_format
    }

    /// Samples per pixel of the colour target.
    #[must_use]
    pub fn samples(&self) -> u32 {
        self.pipelines.samples
    }

    /// Group 0 as compute passes outside the renderer bind it (the deform check).
    #[must_use]
    pub fn compute_bind_group(&self) -> &wgpu::BindGroup {
        self.frame.compute()
    }

    /// The layout of [`Self::compute_bind_group`].
    #[must_use]
    pub fn compute_layout(&self) -> &wgpu::BindGroupLayout {
        &self.layouts.frame_compute
    }

    /// Uploads the frame's values and draw list (call before [`Self::encode`]).
    pub fn prepare(&mut self, gpu: &Gpu, view: &FrameView, list: &DrawList, aspect: f32) {
        let globals = view.globals(aspect, self.shadow.size);
        self.frame.write(
            &gpu.device,
            &gpu.queue,
            &self.layouts,
            &self.store,
            &globals,
            list,
        );
        self.chunk_count = list.chunks.len() as u32;
        if list.left_out > 0 && !self.told_left_out {
            self.told_left_out = true;
            tracing::warn!(
                "this GPU deforms at most {} vertices a frame: even with the far NPCs at the \
                 coarsest level, {} NPCs farthest from the camera are left out of the picture \
                 (fewer NPCs, or avatars with fewer vertices, fit)",
                list.deform_budget.unwrap_or(u32::MAX),
                list.left_out
            );
        }
    }

    fn depth_view(&mut self, device: &wgpu::Device, width: u32, height: u32) -> wgpu::TextureView {
        if let Some((w, h, view)) = &self.depth
            && *w == width
            && *h == height
        {
            return view.clone();
        }
        let view = device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("depth"),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: self.pipelines.samples,
                dimension: wgpu::TextureDimension::D2,
                format: DEPTH_FORMAT,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                view_formats: &[],
            })
            .create_view(&wgpu::TextureViewDescriptor::default());
        self.depth = Some((width, height, view.clone()));
        view
    }

    /// Draws the list's batches of `surfaces` for one pass (`shadow`: the shadow pass, else
    /// the main pass), each kind with its pipeline: opaque and masked surfaces in list order
    /// (near NPCs first), in the main pass one run per set of shading needs; blended ones in
    /// reverse (far first), switching pipelines where the needs change. The shadow pass draws
    /// blended surfaces with the masked ones.
    fn draw_meshes(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        list: &DrawList,
        shadow: bool,
        surfaces: &[Surface],
    ) {
        self.draw_meshes_of(pass, list, shadow, surfaces, &|_, _| true);
    }

    /// [`Self::draw_meshes`] for the primitives `only` takes at their level in the pass (MToon
    /// outlines are drawn for all).
    fn draw_meshes_of(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        list: &DrawList,
        shadow: bool,
        surfaces: &[Surface],
        only: &dyn Fn(&GpuPrimitive, u8) -> bool,
    ) {
        pass.set_bind_group(0, self.frame.render(), &[]);
        pass.set_index_buffer(self.store.indices.slice(..), wgpu::IndexFormat::Uint32);
        let batches = || list.batches.iter();
        for &surface in surfaces {
            if shadow {
                pass.set_pipeline(self.pipelines.shadow.for_surface(surface));
                let drawn = |p: &GpuPrimitive, lod| {
                    (p.surface == surface
                        || (surface == Surface::Masked && p.surface == Surface::Blended))
                        && only(p, lod)
                };
                self.draw_surfaces(pass, list.batches.iter(), true, drawn, |_, _, _| {});
            } else if surface == Surface::Blended {
                let mut current = None;
                let switch = |pass: &mut wgpu::RenderPass<'_>, p: &GpuPrimitive, lod| {
                    let shading = p.shading.at_lod(lod, self.far_lod);
                    if current != Some(shading) {
                        current = Some(shading);
                        pass.set_pipeline(self.pipelines.main_for(surface, shading));
                    }
                };
                let drawn = |p: &GpuPrimitive, lod| p.surface == surface && only(p, lod);
                self.draw_surfaces(pass, batches().rev(), false, drawn, switch);
            } else {
                for (&(_, shading), pipeline) in self
                    .pipelines
                    .specialized
                    .range((surface, Shading::MIN)..=(surface, Shading::FULL))
                {
                    pass.set_pipeline(pipeline);
                    let drawn = |p: &GpuPrimitive, lod| {
                        p.surface == surface
                            && p.shading.at_lod(lod, self.far_lod) == shading
                            && only(p, lod)
                    };
                    self.draw_surfaces(pass, batches(), false, drawn, |_, _, _| {});
                }
                // Whatever has no pipeline of its own: the one for every material.
                pass.set_pipeline(self.pipelines.main.for_surface(surface));
                let drawn = |p: &GpuPrimitive, lod| {
                    p.surface == surface
                        && !self
                            .pipelines
                            .specialized
                            .contains_key(&(surface, p.shading.at_lod(lod, self.far_lod)))
                        && only(p, lod)
                };
                self.draw_surfaces(pass, batches(), false, drawn, |_, _, _| {});
                if self.store.has_outlines {
                    self.draw_outlines(pass, list, surface);
                }
            }
        }
    }

    /// Which surfaces the main pass lays down depth for before shading them.
    #[must_use]
    pub fn depth_prepass(&self) -> DepthPrepass {
        self.pipelines.prepass
    }

    /// Shades after laying down the depth of the surfaces `prepass` covers (the pipelines are
    /// made again).
    pub fn set_depth_prepass(&mut self, device: &wgpu::Device, prepass: DepthPrepass) {
        self.pipelines.set_prepass(device, prepass);
    }

    /// Shades materials as [`Shading::far`] from level of detail `lod` on (4 or more: never).
    /// Their pipelines are made with the meshes.
    pub fn set_far_lod(&mut self, lod: u8) {
        self.far_lod = lod;
    }

    /// Lays down the depth of the surfaces the depth prepass covers (masked ones' holes cut),
    /// before they are shaded.
    fn lay_depth(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        list: &DrawList,
        only: &dyn Fn(&GpuPrimitive, u8) -> bool,
    ) {
        let prepass = self.pipelines.prepass;
        for surface in [Surface::Masked, Surface::Opaque] {
            if !prepass.covers(surface) {
                continue;
            }
            pass.set_bind_group(0, self.frame.render(), &[]);
            pass.set_index_buffer(self.store.indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.set_pipeline(self.pipelines.depth.for_surface(surface));
            let drawn = |p: &GpuPrimitive, lod| p.surface == surface && only(p, lod);
            self.draw_surfaces(pass, list.batches.iter(), false, drawn, |_, _, _| {});
        }
    }

    /// Draws the MToon outlines of the list's `surface` primitives that have one, at the
    /// levels of detail up to [`OUTLINE_LODS`] (farther, a world-sized outline is below a
    /// pixel).
    fn draw_outlines(&self, pass: &mut wgpu::RenderPass<'_>, list: &DrawList, surface: Surface) {
        pass.set_pipeline(self.pipelines.outline.for_surface(surface));
        let near = list
            .batches
            .iter()
            .filter(|b| usize::from(b.lod) < OUTLINE_LODS);
        let drawn = |p: &GpuPrimitive, _| p.outline && p.surface == surface;
        self.draw_surfaces(pass, near, false, drawn, |_, _, _| {});
    }

    /// Draws the batches whose primitives are `drawn` at the pass's level of detail, calling
    /// `before` with each one drawn and its level first (to switch pipelines).
    fn draw_surfaces<'b>(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        batches: impl Iterator<Item = &'b Batch>,
        shadow: bool,
        drawn: impl Fn(&GpuPrimitive, u8) -> bool,
        mut before: impl FnMut(&mut wgpu::RenderPass<'_>, &GpuPrimitive, u8),
    ) {
        let mut material = u32::MAX;
        for batch in batches {
            let (wanted, lod) = if shadow {
                (batch.passes.shadow, batch.shadow_lod)
            } else {
                (batch.passes.main, batch.lod)
            };
            let Some(p) = self.store.primitives.get(batch.primitive as usize) else {
                continue;
            };
            let range = p.lods[usize::from(lod).min(p.lods.len() - 1)];
            if !wanted || !drawn(p, lod) || range.count == 0 || batch.count == 0 {
                continue;
            }
            before(pass, p, lod);
            if p.material != material {
                material = p.material;
                if let Some(group) = self.store.materials.get(material as usize) {
                    pass.set_bind_group(1, group, &[]);
                }
            }
            pass.draw_indexed(
                range.first..range.first + range.count,
                p.vertex_base as i32,
                batch.first_object..batch.first_object + batch.count,
            );
        }
    }

    /// The shadow map: the rasterizer's casters, then (in a frame resolved in compute with
    /// the compute raster) the rest rasterized in compute and merged into it.
    fn encode_shadow(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        target: &Target<'_>,
        list: &DrawList,
        timer: Option<&GpuTimer>,
    ) {
        let can_raster = self.raster_shadow
            && self.resolvable(target).is_some()
            && self.visibility.as_ref().is_some_and(|v| v.raster.is_some());
        let gathered = if can_raster {
            self.shadow_raster_lists(list)
        } else {
            super::compute_raster::Gathered::default()
        };
        let computing = gathered.triangles > 0 && gathered.triangles >= self.shadow_raster_min;
        self.shadow_rastered = if computing { gathered.triangles } else { 0 };
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("shadow"),
                color_attachments: &[],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.shadow.view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: timer.map(|t| t.shadow_writes(!computing)),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            let drawn = |p: &GpuPrimitive, lod| {
                self.shadow_path(p, lod, computing) == resolved::Path::Rasterizer
            };
            let surfaces = [Surface::Opaque, Surface::Masked];
            self.draw_meshes_of(&mut pass, list, true, &surfaces, &drawn);
        }
        if !computing {
            return;
        }
        let size = self.shadow.size;
        let Some(r) = self.visibility.as_mut().and_then(|v| v.raster.as_mut()) else {
            return;
        };
        r.prepare_shadow(
            gpu,
            size,
            &gathered.items,
            gathered.triangles,
            &gathered.runs,
        );
        r.encode_shadow(
            &gpu.device,
            encoder,
            self.frame.render(),
            &self.store.indices,
            &self.store.materials,
            (&self.shadow.texture, &self.shadow.view),
            timer.map(GpuTimer::shadow_raster_writes),
        );
    }

    /// Records the frame: deform pass, shadow pass (when `view.shadows`), main pass, sky.
    pub fn encode(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        target: &Target<'_>,
        view: &FrameView,
        list: &DrawList,
        timer: Option<&GpuTimer>,
    ) {
        let weights = view.daylight.sky;
        self.environment.blend(
            &gpu.queue,
            encoder,
            [weights[0], weights[1], weights[2], view.daylight.warmth],
        );
        if self.chunk_count > 0 {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("deform"),
                timestamp_writes: timer.map(GpuTimer::compute_writes),
            });
            pass.set_pipeline(&self.pipelines.deform);
            pass.set_bind_group(0, self.frame.compute(), &[]);
            pass.set_bind_group(1, &self.frame.deform, &[]);
            let rows = self.chunk_count.div_ceil(DEFORM_ROW);
            pass.dispatch_workgroups(self.chunk_count.min(DEFORM_ROW), rows, 1);
        }
        self.shadow_rastered = 0;
        if view.shadows {
            self.encode_shadow(gpu, encoder, target, list, timer);
        }
        self.resolved = false;
        if let Some(texture) = self.resolvable(target) {
            self.resolved = true;
            self.encode_resolved(gpu, encoder, target, texture, list, timer);
            return;
        }
        let depth = self.depth_view(&gpu.device, target.width, target.height);
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("main"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target.view,
                depth_slice: None,
                resolve_target: target.resolve,
                ops: wgpu::Operations {
                    load: every_pixel_drawn(),
                    store: if target.resolve.is_some() {
                        wgpu::StoreOp::Discard
                    } else {
                        wgpu::StoreOp::Store
                    },
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: timer.map(|t| t.pass_writes(1)),
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_bind_group(2, &self.light_group, &[]);
        self.lay_depth(&mut pass, list, &|_, _| true);
        self.draw_meshes(&mut pass, list, false, &[Surface::Opaque, Surface::Masked]);
        pass.set_pipeline(&self.pipelines.sky);
        pass.set_bind_group(0, self.frame.render(), &[]);
        pass.set_bind_group(1, &self.sky_group, &[]);
        pass.draw(0..3, 0..1);
        // See-through surfaces last, over the sky too.
        self.draw_meshes(&mut pass, list, false, &[Surface::Blended]);
    }
}

/// Group 2 of the main pass: the shadow map and the image-based light.
fn light_bind_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    shadow: &ShadowMap,
    environment: &Environment,
) -> wgpu::BindGroup {
    let view = wgpu::BindingResource::TextureView;
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("light"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: view(&shadow.view),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::Sampler(&shadow.sampler),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: view(&environment.irradiance),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: view(&environment.specular),
            },
            wgpu::BindGroupEntry {
                binding: 4,
                resource: view(&environment.brdf_table),
            },
            wgpu::BindGroupEntry {
                binding: 5,
                resource: wgpu::BindingResource::Sampler(&environment.sampler),
            },
            wgpu::BindGroupEntry {
                binding: 6,
                resource: environment.above.as_entire_binding(),
            },
        ],
    })
}

/// The main pass's colour load: nothing, since every pixel is drawn in the pass (clearing
/// a 1080p target costs about 0.15 ms on a GPU with few graphics units).
fn every_pixel_drawn() -> wgpu::LoadOp<wgpu::Color> {
    // SAFETY: `LoadOp::DontCare` leaves the colour target undefined at the start of the pass;
    // it is sound when every pixel (every sample) is written before the pass stores it. The
    // main pass always draws the sky after the opaque and masked surfaces (before blended
    // ones, which only blend over what is there): a triangle over the whole target at the far plane,
    // depth-tested `LessEqual` against depth cleared to the far plane, with no discard and
    // no blending, so it writes every sample no mesh wrote (discarded mask fragments leave
    // depth at the far plane, so the sky writes those too).
    #[allow(unsafe_code)]
    let token = unsafe { wgpu::LoadOpDontCare::enabled() };
    wgpu::LoadOp::DontCare(token)
}
