//! The windowed player (winit): the live world drawn into a window every frame, walked in
//! first person (WASD + mouse drag, Shift to hurry) or watched in close-up, with the screen
//! over it: subtitles, names, the microphone light, the controls' hint, F1 for help, F2 for
//! subtitles and Esc for the menu (volume, subtitles, mouse sensitivity, quit).

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, anyhow};
use winit::application::ApplicationHandler;
use winit::dpi::LogicalSize;
use winit::event::{DeviceEvent, ElementState, KeyEvent, MouseButton, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowId};

use crate::first_person::FirstPerson;
use crate::live::Live;
use crate::screen::{
    self, MenuChoice, OverlayPainter, OverlayShapes, Prefs, PrefsStore, ScreenChoice,
};
use npc_render::{
    DrawList, FrameView, Gpu, GpuPrimitive, MeshStoreBuilder, RenderThread, Renderer, Target,
};

/// Samples per pixel in the window.
const SAMPLES: u32 = 4;
/// The controls' hint shows this long at start, then fades over a second, seconds.
const HINT_S: f32 = 12.0;

/// What the window shows.
#[derive(Debug)]
pub struct WindowOptions {
    pub closeup: Option<String>,
    pub width: u32,
    pub height: u32,
    pub shadows: bool,
    /// An agent directory for the demo's agent simulator, started once the window shows.
    pub simulator: Option<std::path::PathBuf>,
    /// Show no subtitles this run.
    pub no_subtitles: bool,
}

/// What draws into the window, on the render thread: the surface, the renderer and the
/// screen's painter.
struct Presenter {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    gpu: Gpu,
    renderer: Renderer,
    msaa: Option<wgpu::TextureView>,
    painter: OverlayPainter,
}

/// One frame handed to the render thread: the world's view, the window's size in pixels
/// when it was prepared and the screen drawn over it.
struct Shown {
    view: FrameView,
    size: [u32; 2],
    overlay: OverlayShapes,
}

impl Presenter {
    /// Draws `list` and the screen over it into the window's next image and presents it.
    /// A window resized since the frame before is configured again first; an image the
    /// window cannot give this time is skipped.
    fn show(&mut self, list: &DrawList, shown: Shown) -> anyhow::Result<()> {
        let Shown {
            view: frame_view,
            size,
            overlay,
        } = shown;
        if size != [self.config.width, self.config.height] && size[0] > 0 && size[1] > 0 {
            self.config.width = size[0];
            self.config.height = size[1];
            self.surface.configure(&self.gpu.device, &self.config);
            self.msaa = msaa_view(&self.gpu, &self.config);
        }
        let frame = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(f)
            | wgpu::CurrentSurfaceTexture::Suboptimal(f) => f,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(&self.gpu.device, &self.config);
                return Ok(());
            }
            other => {
                tracing::debug!("no frame this time: {other:?}");
                return Ok(());
            }
        };
        let view = frame
            .texture
            .create_view(&wgpu::TextureViewDescriptor::default());
        let (width, height) = (self.config.width, self.config.height);
        let aspect = width as f32 / height.max(1) as f32;
        self.renderer.prepare(&self.gpu, &frame_view, list, aspect);
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("frame"),
            });
        let target = match &self.msaa {
            Some(ms) => Target {
                view: ms,
                resolve: Some(&view),
                texture: None,
                width,
                height,
            },
            None => Target {
                view: &view,
                resolve: None,
                texture: None,
                width,
                height,
            },
        };
        self.renderer
            .encode(&self.gpu, &mut encoder, &target, &frame_view, list, None);
        self.gpu.queue.submit([encoder.finish()]);
        let overlay_view = frame.texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(self.config.format.remove_srgb_suffix()),
            ..wgpu::TextureViewDescriptor::default()
        });
        self.painter
            .paint(&self.gpu, &overlay_view, [width, height], overlay);
        self.window.pre_present_notify();
        self.gpu.queue.present(frame);
        Ok(())
    }
}

/// An open window on the thread that animates: the window, its input, the screen's egui
/// context and the render thread that draws into it.
struct Surface {
    window: Arc<Window>,
    input: egui_winit::State,
    ctx: egui::Context,
    /// The window's size in pixels.
    size: [u32; 2],
    /// The stored primitives, as the draw list refers to them.
    primitives: Vec<GpuPrimitive>,
    thread: RenderThread<Presenter, Shown>,
}

impl std::fmt::Debug for Surface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Surface")
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

/// The screen's state in the window: the person's settings and what is open.
#[derive(Debug)]
struct ScreenState {
    prefs: Prefs,
    store: Option<PrefsStore>,
    menu: bool,
    help: bool,
    started: Instant,
}

impl ScreenState {
    /// Keeps the settings for the next run (a failure is said, and the run goes on).
    fn save(&self) {
        if let Some(store) = &self.store
            && let Err(e) = store.save(&self.prefs)
        {
            tracing::warn!("the player's settings are not kept: {e:#}");
        }
    }

    /// Whether the menu or help takes the keyboard and mouse.
    fn open(&self) -> bool {
        self.menu || self.help
    }
}

#[derive(Debug)]
struct App {
    live: Live,
    options: WindowOptions,
    meshes: Option<MeshStoreBuilder>,
    surface: Option<Surface>,
    walker: FirstPerson,
    dragging: bool,
    last: Instant,
    error: Option<anyhow::Error>,
    screen: ScreenState,
    quit: bool,
}

fn msaa_view(gpu: &Gpu, config: &wgpu::SurfaceConfiguration) -> Option<wgpu::TextureView> {
    (SAMPLES > 1).then(|| {
        gpu.device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("window multisample"),
                size: wgpu::Extent3d {
                    width: config.width,
                    height: config.height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: SAMPLES,
                dimension: wgpu::TextureDimension::D2,
                format: config.format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                view_formats: &[],
            })
            .create_view(&wgpu::TextureViewDescriptor::default())
    })
}

impl App {
    fn open(&mut self, event_loop: &ActiveEventLoop) -> anyhow::Result<()> {
        let attributes = Window::default_attributes()
            .with_title("Living NPC")
            .with_inner_size(LogicalSize::new(self.options.width, self.options.height));
        let window = Arc::new(
            event_loop
                .create_window(attributes)
                .context("cannot open a window")?,
        );
        let instance = npc_render::instance(Some(Box::new(event_loop.owned_display_handle())));
        let surface = instance
            .create_surface(window.clone())
            .context("cannot draw into the window")?;
        let gpu = Gpu::open(instance, Some(&surface))?;
        let size = window.inner_size();
        let mut config = surface
            .get_default_config(&gpu.adapter, size.width.max(1), size.height.max(1))
            .ok_or_else(|| anyhow!("the GPU cannot draw into this window"))?;
        let caps = surface.get_capabilities(&gpu.adapter);
        if let Some(&srgb) = caps.formats.iter().find(|f| f.is_srgb()) {
            config.format = srgb;
        }
        config.present_mode = wgpu::PresentMode::AutoVsync;
        // The screen over the world blends in sRGB space, through a linear view.
        let overlay_format = config.format.remove_srgb_suffix();
        if overlay_format != config.format {
            config.view_formats = vec![overlay_format];
        }
        surface.configure(&gpu.device, &config);
        let meshes = self.meshes.take().unwrap_or_default();
        let world = &self.live.world;
        let renderer = Renderer::new(
            &gpu,
            meshes,
            &world.content.skies,
            config.format,
            SAMPLES,
            world.project.scene.shadow_size,
        )?;
        tracing::info!(
            "window: {}x{} on {}",
            config.width,
            config.height,
            gpu.describe()
        );
        let msaa = msaa_view(&gpu, &config);
        let language = world
            .project
            .npcs
            .first()
            .map(|n| n.voice.language.as_str());
        let painter = OverlayPainter::new(&gpu, overlay_format, language);
        let ctx = painter.ctx.clone();
        let input = egui_winit::State::new(
            ctx.clone(),
            egui::ViewportId::ROOT,
            &window,
            Some(window.scale_factor() as f32),
            None,
            Some(gpu.device.limits().max_texture_dimension_2d as usize),
        );
        let mut list = DrawList::default();
        list.deform_budget = Some(gpu.deform_budget());
        let size = [config.width, config.height];
        let primitives = renderer.store.primitives.clone();
        let presenter = Presenter {
            window: window.clone(),
            surface,
            config,
            gpu,
            renderer,
            msaa,
            painter,
        };
        let thread = RenderThread::spawn(presenter, list, Presenter::show)?;
        self.surface = Some(Surface {
            window,
            input,
            ctx,
            size,
            primitives,
            thread,
        });
        Ok(())
    }

    /// Prepares the next frame (the walk, the live world, the draw list, the screen) and
    /// hands it to the render thread, which draws it while the one after is prepared.
    fn frame(&mut self) -> anyhow::Result<()> {
        let now = Instant::now();
        let dt = now.saturating_duration_since(self.last).as_secs_f32();
        self.last = now;
        self.walker.update(dt, &self.live.world.content.ground);
        let camera = match &self.options.closeup {
            Some(id) => self
                .live
                .world
                .closeup_camera(id)
                .unwrap_or_else(|| self.walker.camera()),
            None => self.walker.camera(),
        };
        self.live
            .step_facing(now, dt, camera.position, camera.target - camera.position)?;
        let Some(s) = self.surface.as_mut() else {
            return Ok(());
        };
        // Waits for the render thread to finish with the frame before last.
        let Some(mut list) = s.thread.list() else {
            return Err(self.stopped_drawing());
        };
        let frame_view = self.live.world.frame_view(camera, self.options.shadows);
        let size = s.size;
        let aspect = size[0] as f32 / size[1].max(1) as f32;
        self.live
            .world
            .draw(&s.primitives, &frame_view, aspect, &mut list);
        let st = &mut self.screen;
        let since = now.saturating_duration_since(st.started).as_secs_f32();
        let subtitles_default = self.live.world.project.screen.subtitles.show;
        let choice = ScreenChoice {
            subtitles: !self.options.no_subtitles
                && st.prefs.subtitles.unwrap_or(subtitles_default),
            hint: if st.open() {
                0.0
            } else {
                (HINT_S + 1.0 - since).clamp(0.0, 1.0)
            },
        };
        let overlay = screen::overlay_frame(&self.live, &camera, size, choice);
        let raw = s.input.take_egui_input(&s.window);
        let before = st.prefs.clone();
        let mut picked = None;
        let mut output = s.ctx.run_pass(raw, |ctx| {
            screen::paint(ctx, &overlay, size, ctx.pixels_per_point());
            if st.help {
                screen::help(ctx, &mut st.help);
            }
            if st.menu {
                picked = picked.or(screen::menu(ctx, &mut st.prefs, subtitles_default));
            }
        });
        s.input
            .handle_platform_output(&s.window, std::mem::take(&mut output.platform_output));
        let shown = Shown {
            view: frame_view,
            size,
            overlay: OverlayShapes::tessellate(&s.ctx, output),
        };
        if !s.thread.draw(list, shown) {
            return Err(self.stopped_drawing());
        }
        if st.prefs != before {
            self.live.set_volume(st.prefs.volume);
        }
        match picked {
            Some(MenuChoice::Resume) => {
                st.menu = false;
                st.save();
            }
            Some(MenuChoice::Quit) => {
                st.save();
                self.quit = true;
            }
            None => {}
        }
        if let Some(dir) = self.options.simulator.take() {
            crate::play::start_simulator(dir);
        }
        Ok(())
    }

    /// Why the render thread stopped drawing (it is closed; the window draws no more).
    fn stopped_drawing(&mut self) -> anyhow::Error {
        match self.surface.take().map(|s| s.thread.finish()) {
            Some(Err(e)) => e.context("the window stopped drawing"),
            _ => anyhow!("the window stopped drawing"),
        }
    }

    /// Closes the render thread once it has drawn what it was handed.
    fn close(&mut self) -> anyhow::Result<()> {
        match self.surface.take() {
            Some(s) => s.thread.finish().map(|_| ()),
            None => Ok(()),
        }
    }

    fn key(&mut self, code: KeyCode, pressed: bool) {
        if pressed {
            match code {
                KeyCode::Escape => {
                    if self.screen.help {
                        self.screen.help = false;
                    } else {
                        self.screen.menu = !self.screen.menu;
                        if !self.screen.menu {
                            self.screen.save();
                        }
                    }
                }
                KeyCode::F1 => self.screen.help = !self.screen.help,
                KeyCode::F2 => {
                    let default = self.live.world.project.screen.subtitles.show;
                    let on = self.screen.prefs.subtitles.unwrap_or(default);
                    self.screen.prefs.subtitles = Some(!on);
                    self.screen.save();
                }
                _ => {}
            }
        }
        if self.screen.open() {
            // The walk stops while a window is open.
            self.walker.moves = crate::first_person::Moves::default();
            return;
        }
        let m = &mut self.walker.moves;
        match code {
            KeyCode::KeyW | KeyCode::ArrowUp => m.forward = pressed,
            KeyCode::KeyS | KeyCode::ArrowDown => m.back = pressed,
            KeyCode::KeyA | KeyCode::ArrowLeft => m.left = pressed,
            KeyCode::KeyD | KeyCode::ArrowRight => m.right = pressed,
            KeyCode::ShiftLeft | KeyCode::ShiftRight => m.hurry = pressed,
            _ => {}
        }
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, error: anyhow::Error) {
        self.error = Some(error);
        event_loop.exit();
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.surface.is_none()
            && let Err(e) = self.open(event_loop)
        {
            self.fail(event_loop, e);
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let taken = match self.surface.as_mut() {
            Some(s) => s.input.on_window_event(&s.window, &event).consumed,
            None => false,
        };
        if taken && self.screen.open() && !matches!(event, WindowEvent::KeyboardInput { .. }) {
            // A click on the menu is not a drag of the view.
            return;
        }
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => {
                if let Some(s) = self.surface.as_mut()
                    && size.width > 0
                    && size.height > 0
                {
                    // The render thread configures the surface with its next frame.
                    s.size = [size.width, size.height];
                }
            }
            WindowEvent::KeyboardInput {
                event:
                    KeyEvent {
                        physical_key: PhysicalKey::Code(code),
                        state,
                        ..
                    },
                ..
            } => self.key(code, state == ElementState::Pressed),
            WindowEvent::MouseInput {
                button: MouseButton::Left | MouseButton::Right,
                state,
                ..
            } => self.dragging = state == ElementState::Pressed && !self.screen.open(),
            WindowEvent::RedrawRequested => {
                if let Err(e) = self.frame() {
                    self.fail(event_loop, e);
                }
                if self.quit {
                    event_loop.exit();
                }
            }
            _ => {}
        }
    }

    fn device_event(&mut self, _: &ActiveEventLoop, _: winit::event::DeviceId, event: DeviceEvent) {
        if let DeviceEvent::MouseMotion { delta } = event
            && self.dragging
            && !self.screen.open()
        {
            let k = f64::from(self.screen.prefs.mouse_sensitivity);
            self.walker.look(delta.0 * k, delta.1 * k);
        }
    }

    fn about_to_wait(&mut self, _: &ActiveEventLoop) {
        if let Some(s) = &self.surface {
            s.window.request_redraw();
        }
    }
}

/// Opens the window and plays `live` until the window closes. Without a display, says so.
pub fn run(live: Live, meshes: MeshStoreBuilder, options: WindowOptions) -> anyhow::Result<()> {
    let event_loop = EventLoop::new().map_err(|e| {
        anyhow!(
            "no display to open a window on ({e}). Use `npc-player render` to write frames, or \
             `npc-player run --headless` to run without a window"
        )
    })?;
    let walker = FirstPerson::from_camera(&live.world.overview_camera());
    let store = PrefsStore::in_config_dir();
    let prefs = store.as_ref().map(PrefsStore::load).unwrap_or_default();
    let mut live = live;
    live.set_volume(prefs.volume);
    let mut app = App {
        live,
        options,
        meshes: Some(meshes),
        surface: None,
        walker,
        dragging: false,
        last: Instant::now(),
        error: None,
        screen: ScreenState {
            prefs,
            store,
            menu: false,
            help: false,
            started: Instant::now(),
        },
        quit: false,
    };
    event_loop
        .run_app(&mut app)
        .context("the window's event loop failed")?;
    let closed = app.close();
    let finished = app.live.finish();
    match app.error {
        Some(e) => Err(e),
        None => closed.and(finished),
    }
}
