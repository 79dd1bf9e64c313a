//! The 3D view: the player's renderer draws the head into a texture that egui shows, so the
//! studio's face is drawn by exactly the code the player uses (morphs, skin, light, sky).

use std::path::Path;

use glam::Vec3;
use npc_core::Pose;
use npc_core::daylight::daylight;
use npc_core::procedural::sky::{SkyKind, cubemap};
use npc_core::project::SunSettings;
use npc_render::OFFSCREEN_FORMAT;
use npc_render::{DrawList, FrameView, Gpu, MeshStoreBuilder, Offscreen, Renderer, ShadowReach};

use crate::head_scene::{HeadScene, Orbit};

/// Samples per pixel of the view.
const SAMPLES: u32 = 4;
/// Size of the generated sky faces.
const SKY_SIZE: u32 = 64;
/// The studio's light: noon's colours (fraction of the day)...
const NOON: f64 = 0.5;
/// ...with the key light from in front, above and to the right of the face (toward the light)...
const KEY_LIGHT_FROM: [f32; 3] = [0.45, 0.55, 0.7];
/// ...and more fill than outdoors, so lips, teeth and eyelids read clearly.
const AMBIENT_BOOST: f32 = 1.4;
/// Fog starts this far away: none on a head, metres.
const NO_FOG_M: f32 = 1.0e4;
/// Shadows reach this many head radii around the head.
const SHADOW_REACH_HEADS: f32 = 4.0;

/// The GPU side of the 3D view.
pub struct Viewport {
    gpu: Gpu,
    renderer: Renderer,
    head: HeadScene,
    target: Option<(Offscreen, egui::TextureId)>,
    list: DrawList,
    pub orbit: Orbit,
    /// The weights last drawn, per mesh of the head (what the view shows).
    pub drawn: Vec<Vec<f32>>,
    /// Where the view was last shown in the window, in points.
    pub shown_at: Option<egui::Rect>,
}

impl std::fmt::Debug for Viewport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Viewport")
            .field("head", &self.head.label)
            .finish_non_exhaustive()
    }
}

/// A head read and laid out for the GPU, not yet uploaded: made off the UI thread.
#[derive(Debug)]
pub struct LoadedHead {
    head: HeadScene,
    meshes: MeshStoreBuilder,
    /// Why the head asked for could not be shown (the built-in head is then).
    pub problem: Option<String>,
}

impl LoadedHead {
    /// Reads the head at `path` (the built-in head when `None` or when it cannot load; why
    /// not is kept in `problem`).
    ///
    /// # Errors
    /// Not even the built-in head could be made.
    pub fn load(path: Option<&Path>) -> anyhow::Result<Self> {
        let mut meshes = MeshStoreBuilder::default();
        let mut problem = None;
        let head = match path {
            Some(p) => match HeadScene::load(p, &mut meshes) {
                Ok(h) => h,
                Err(e) => {
                    problem = Some(format!("{e:#}"));
                    meshes = MeshStoreBuilder::default();
                    HeadScene::builtin(&mut meshes)?
                }
            },
            None => HeadScene::builtin(&mut meshes)?,
        };
        Ok(Self {
            head,
            meshes,
            problem,
        })
    }

    #[must_use]
    pub fn head(&self) -> &HeadScene {
        &self.head
    }
}

/// `setup` asking its device for the adapter's own limits, as the player's device is asked:
/// the 3D view's materials bind more textures a shader stage than WebGPU's minimum, which is
/// what eframe (and egui's test harness) ask for. A setup that reuses a device is left as it is.
#[must_use]
pub fn with_adapter_limits(setup: eframe::egui_wgpu::WgpuSetup) -> eframe::egui_wgpu::WgpuSetup {
    match setup {
        eframe::egui_wgpu::WgpuSetup::CreateNew(mut new) => {
            new.device_descriptor = std::sync::Arc::new(|adapter| wgpu::DeviceDescriptor {
                label: Some("npc-studio"),
                required_limits: adapter.limits(),
                ..wgpu::DeviceDescriptor::default()
            });
            eframe::egui_wgpu::WgpuSetup::CreateNew(new)
        }
        other => other,
    }
}

impl Viewport {
    /// A view of `loaded` (pipelines, skies and the head uploaded).
    ///
    /// # Errors
    /// The GPU refused the head's meshes or the skies.
    pub fn new(
        render_state: &eframe::egui_wgpu::RenderState,
        loaded: LoadedHead,
    ) -> anyhow::Result<Self> {
        let gpu = Gpu::from_parts(
            render_state.instance.clone(),
            render_state.adapter.clone(),
            render_state.device.clone(),
            render_state.queue.clone(),
        );
        let skies = SkyKind::ALL.map(|k| cubemap(k, SKY_SIZE));
        let renderer = Renderer::new(&gpu, loaded.meshes, &skies, OFFSCREEN_FORMAT, SAMPLES, 1024)?;
        Ok(Self {
            gpu,
            renderer,
            head: loaded.head,
            target: None,
            list: DrawList::default(),
            orbit: Orbit::default(),
            drawn: Vec::new(),
            shown_at: None,
        })
    }

    /// Shows `loaded` in place of the head it showed: only its meshes are uploaded (the
    /// pipelines stay), so the window does not stall for a new avatar.
    ///
    /// # Errors
    /// The GPU refused the meshes; the old head stays then.
    pub fn set_head(&mut self, loaded: LoadedHead) -> anyhow::Result<()> {
        self.renderer.set_meshes(&self.gpu, loaded.meshes)?;
        self.head = loaded.head;
        self.drawn.clear();
        Ok(())
    }

    #[must_use]
    pub fn head(&self) -> &HeadScene {
        &self.head
    }

    /// The head, to set what it plays.
    pub fn head_mut(&mut self) -> &mut HeadScene {
        &mut self.head
    }

    /// Draws the head in `pose` (its own shapes at `own`) at `width` x `height` pixels; returns
    /// the texture to show.
    /// With `body` (the body's node transforms) the whole avatar is posed and framed. Shaded
    /// as the player shades it, at the scene's exposure and sky light.
    #[allow(clippy::too_many_arguments)]
    pub fn draw(
        &mut self,
        render_state: &eframe::egui_wgpu::RenderState,
        pose: &Pose,
        own: &[f32],
        body: Option<&[npc_core::asset::Transform]>,
        scene: &npc_core::project::SceneSettings,
        width: u32,
        height: u32,
    ) -> egui::TextureId {
        let (width, height) = (width.clamp(16, 4096), height.clamp(16, 4096));
        let stale = self
            .target
            .as_ref()
            .is_none_or(|(o, _)| o.width != width || o.height != height);
        if stale {
            let mut egui_renderer = render_state.renderer.write();
            if let Some((_, id)) = self.target.take() {
                egui_renderer.free_texture(&id);
            }
            let offscreen = Offscreen::new(&self.gpu, width, height, SAMPLES);
            let id = egui_renderer.register_native_texture(
                &self.gpu.device,
                offscreen.view(),
                wgpu::FilterMode::Linear,
            );
            self.target = Some((offscreen, id));
        }
        self.head.pose_body(body);
        self.head
            .draw(pose, own, &self.renderer.store.primitives, &mut self.list);
        self.drawn.clear();
        self.drawn.extend_from_slice(self.head.weights());
        let (focus, radius) = if body.is_some() {
            (self.head.body_focus, self.head.body_radius)
        } else {
            (self.head.focus, self.head.radius)
        };
        let camera = self.orbit.camera(focus, radius);
        let mut light = daylight(NOON, &SunSettings::default());
        light.light_direction = Vec3::from(KEY_LIGHT_FROM).normalize();
        light.ambient *= AMBIENT_BOOST;
        let view = FrameView {
            camera,
            daylight: light,
            fog_start: NO_FOG_M,
            fog_end: 2.0 * NO_FOG_M,
            shadows: true,
            shadow_reach: ShadowReach {
                center: focus - Vec3::Y * radius,
                radius: radius * SHADOW_REACH_HEADS,
            },
            exposure: scene.exposure,
            sky_light: scene.sky_light * AMBIENT_BOOST,
        };
        let Some((offscreen, id)) = &self.target else {
            return egui::TextureId::default();
        };
        self.renderer
            .prepare(&self.gpu, &view, &self.list, width as f32 / height as f32);
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("studio view"),
            });
        self.renderer.encode(
            &self.gpu,
            &mut encoder,
            &offscreen.target(),
            &view,
            &self.list,
            None,
        );
        self.gpu.queue.submit([encoder.finish()]);
        *id
    }
}
