//! egui's output drawn over a finished frame with the player's own wgpu device (egui-wgpu):
//! the window's picture after the world is drawn, or an offscreen frame before it is read
//! back (`render --overlay`).

use egui_wgpu::{Renderer, RendererOptions, ScreenDescriptor};
use npc_render::Gpu;

/// The egui context of the screen and what draws its output.
pub struct OverlayPainter {
    pub ctx: egui::Context,
    renderer: Renderer,
}

/// One egui pass ready to draw: its triangles, its textures' changes and its scale. Made
/// where the pass ran (the context's fonts as that pass laid them out), drawn wherever the
/// GPU is driven from.
pub struct OverlayShapes {
    primitives: Vec<egui::ClippedPrimitive>,
    textures: egui::TexturesDelta,
    pixels_per_point: f32,
}

impl OverlayShapes {
    /// `output`'s shapes tessellated by `ctx`, the context that made them.
    #[must_use]
    pub fn tessellate(ctx: &egui::Context, output: egui::FullOutput) -> Self {
        let pixels_per_point = output.pixels_per_point;
        Self {
            primitives: ctx.tessellate(output.shapes, pixels_per_point),
            textures: output.textures_delta,
            pixels_per_point,
        }
    }
}

impl std::fmt::Debug for OverlayShapes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OverlayShapes")
            .field("primitives", &self.primitives.len())
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for OverlayPainter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OverlayPainter").finish_non_exhaustive()
    }
}

impl OverlayPainter {
    /// A painter for targets of `format`: a linear (not sRGB) view, as egui blends its
    /// colours in sRGB space like every other egui program. `language` (the NPCs' BCP-47
    /// tag) picks between the system's fonts for a script (a Japanese or a Chinese font for
    /// the same ideographs).
    #[must_use]
    pub fn new(gpu: &Gpu, format: wgpu::TextureFormat, language: Option<&str>) -> Self {
        let ctx = egui::Context::default();
        // Lines may be in any language: characters egui's own fonts lack are drawn with the
        // system's fonts (fontconfig's fallback), else as boxes; never a failure.
        ctx.add_font_provider(std::sync::Arc::new(
            egui_system_font_provider::SystemFontProvider::new().with_locale(language),
        ));
        Self {
            ctx,
            renderer: Renderer::new(&gpu.device, format, RendererOptions::default()),
        }
    }

    /// Draws `shapes` (one egui pass) over `view`, `size` pixels, and submits it.
    pub fn paint(
        &mut self,
        gpu: &Gpu,
        view: &wgpu::TextureView,
        size: [u32; 2],
        shapes: OverlayShapes,
    ) {
        let OverlayShapes {
            primitives,
            mut textures,
            pixels_per_point: ppp,
        } = shapes;
        for (id, deltas) in textures.set.drain() {
            for delta in &deltas {
                self.renderer
                    .update_texture(&gpu.device, &gpu.queue, id, delta);
            }
        }
        let screen = ScreenDescriptor {
            size_in_pixels: size,
            pixels_per_point: ppp,
        };
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("overlay"),
            });
        let mut buffers = self.renderer.update_buffers(
            &gpu.device,
            &gpu.queue,
            &mut encoder,
            &primitives,
            &screen,
        );
        {
            let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("overlay"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Load,
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            self.renderer
                .render(&mut pass.forget_lifetime(), &primitives, &screen);
        }
        buffers.push(encoder.finish());
        gpu.queue.submit(buffers);
        for id in textures.free.drain() {
            self.renderer.free_texture(&id);
        }
    }

    /// One pass of the screen without input (offscreen frames): `draw` paints it at
    /// `pixels_per_point` over a picture `size` pixels large; the result is drawn over `view`.
    pub fn paint_frame(
        &mut self,
        gpu: &Gpu,
        view: &wgpu::TextureView,
        size: [u32; 2],
        pixels_per_point: f32,
        draw: impl FnMut(&egui::Context),
    ) {
        let points = egui::vec2(size[0] as f32, size[1] as f32) / pixels_per_point;
        let mut input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, points)),
            ..egui::RawInput::default()
        };
        input
            .viewports
            .entry(input.viewport_id)
            .or_default()
            .native_pixels_per_point = Some(pixels_per_point);
        let output = self.ctx.run_pass(input, draw);
        let shapes = OverlayShapes::tessellate(&self.ctx, output);
        self.paint(gpu, view, size, shapes);
    }
}
