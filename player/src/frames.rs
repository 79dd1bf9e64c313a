//! `npc-player render`: draws a project's world offscreen, frame by frame at a fixed step, and
//! writes DIR/frame_0000.png, ... The same seed and options give the same frames.

use std::path::{Path, PathBuf};

use std::time::{Duration, Instant};

use anyhow::Context;
use npc_core::agent::DEFAULT_GAP_TIMEOUT;
use npc_core::project::Project;

use crate::live::Live;
use crate::progress::Progress;
use crate::record::Recorder;
use crate::runtime::{Conductor, ConductorOptions};
use crate::screen::{self, OverlayPainter, ScreenChoice};
use crate::world::World;
use npc_render::Headless;
use npc_render::{Camera, FrameView, MeshStoreBuilder, OFFSCREEN_OVERLAY_FORMAT};

/// What `render` draws.
#[derive(Clone, Debug)]
pub struct RenderOptions {
    pub project: PathBuf,
    /// An agent directory whose lines the NPCs speak (each line synthesised before the frame
    /// it starts in, so frames do not depend on the machine's speed).
    pub agent_dir: Option<PathBuf>,
    pub frames: u32,
    pub fps: f64,
    pub width: u32,
    pub height: u32,
    /// Fixed time of day (0-1); `None` starts at the project's and lets the clock run.
    pub time_of_day: Option<f64>,
    /// Speaker id of the NPC to frame closely.
    pub closeup: Option<String>,
    /// Speaker id of the NPC whose whole body to frame.
    pub full_body: Option<String>,
    /// Replaces the project's seed (every NPC's face seed derives from it).
    pub seed: Option<u64>,
    pub shadows: bool,
    pub out: PathBuf,
    /// Where to write the record of every frame (JSON Lines), when wanted.
    pub record: Option<PathBuf>,
    /// Draw the player's screen over the frames (subtitles, names), as the window does.
    pub overlay: bool,
    /// Leave subtitles out of the screen (`--no-subtitles`).
    pub no_subtitles: bool,
    /// Samples per pixel: 4, or 1 (the main pass then drawn by visibility and a compute
    /// resolve where the GPU can).
    pub samples: u32,
}

/// Draws the world's current state offscreen and reads the frame back.
pub fn draw_world(
    headless: &mut Headless,
    world: &World,
    view: &FrameView,
) -> anyhow::Result<image::RgbaImage> {
    let mut list = std::mem::take(&mut headless.list);
    let aspect = headless.offscreen.width as f32 / headless.offscreen.height as f32;
    world.draw(&headless.renderer.store.primitives, view, aspect, &mut list);
    let image = headless.draw_list(&list, view);
    headless.list = list;
    image
}

/// Draws `live`'s world offscreen with the player's screen over it (`painter` made for
/// [`npc_render::OFFSCREEN_OVERLAY_FORMAT`]), and reads the frame back.
pub fn draw_live_with_screen(
    headless: &mut Headless,
    painter: &mut OverlayPainter,
    live: &Live,
    camera: Camera,
    view: &FrameView,
    choice: ScreenChoice,
) -> anyhow::Result<image::RgbaImage> {
    let mut list = std::mem::take(&mut headless.list);
    let (w, h) = (headless.offscreen.width, headless.offscreen.height);
    live.world.draw(
        &headless.renderer.store.primitives,
        view,
        w as f32 / h as f32,
        &mut list,
    );
    let frame = screen::overlay_frame(live, &camera, [w, h], choice);
    let image = headless.draw_list_over(&list, view, |gpu, target, size| {
        painter.paint_frame(gpu, target, size, 1.0, |ctx| {
            screen::paint(ctx, &frame, size, 1.0)
        });
    });
    headless.list = list;
    image
}

/// Refuses an NPC to frame (`flag` names the option) that is not in the world's roster.
pub fn check_framed(world: &World, flag: &str, id: Option<&str>) -> anyhow::Result<()> {
    if let Some(id) = id
        && world.npc_index(id).is_none()
    {
        let ids: Vec<&str> = world.npcs.iter().map(|n| n.id.as_str()).collect();
        anyhow::bail!(
            "{flag} {id}: no such NPC (the project has {})",
            ids.join(", ")
        );
    }
    Ok(())
}

/// Parses a time of day, 0 (midnight) to 1 (the next midnight); 0.5 is noon.
pub fn parse_time_of_day(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|t| (0.0..=1.0).contains(t))
        .ok_or_else(|| {
            format!("{text:?} is not a time of day from 0 (midnight) to 1 (0.5 is noon)")
        })
}

/// Loads the world and a headless renderer for it drawing `samples` samples per pixel;
/// `seed` replaces the project's seed.
pub fn open(
    project_file: &Path,
    seed: Option<u64>,
    (width, height): (u32, u32),
    samples: u32,
) -> anyhow::Result<(World, Headless)> {
    let mut project = Project::load(project_file)?;
    if let Some(seed) = seed {
        project.seed = seed;
    }
    let mut meshes = MeshStoreBuilder::default();
    let world = World::from_project(project, project_file, &mut meshes)?;
    let headless = Headless::with_samples(
        meshes,
        &world.content.skies,
        width,
        height,
        world.project.scene.shadow_size,
        samples,
    )?;
    tracing::info!("rendering on {}", headless.gpu.describe());
    Ok((world, headless))
}

/// Renders the frames; returns the files written.
pub fn render(options: &RenderOptions) -> anyhow::Result<Vec<PathBuf>> {
    if !(options.fps.is_finite() && options.fps > 0.0) {
        anyhow::bail!("--fps must be above 0 (got {})", options.fps);
    }
    let (mut world, mut headless) = open(
        &options.project,
        options.seed,
        (options.width, options.height),
        options.samples,
    )?;
    if let Some(t) = options.time_of_day {
        world.time_of_day = t.clamp(0.0, 1.0);
        world.clock_runs = false;
    }
    check_framed(&world, "--closeup", options.closeup.as_deref())?;
    check_framed(&world, "--full-body", options.full_body.as_deref())?;
    std::fs::create_dir_all(&options.out)
        .with_context(|| format!("cannot create {}", options.out.display()))?;
    let conductor = match &options.agent_dir {
        Some(dir) => Some(Conductor::open(
            &world.project,
            &ConductorOptions {
                agent_dir: dir.clone(),
                events: None,
                gap_timeout: DEFAULT_GAP_TIMEOUT,
                synthesis_deadline: crate::runtime::SYNTHESIS_DEADLINE,
                wait_for_synthesis: true,
                sound: false,
                line_audio: None,
                disk: npc_core::disk::Disk::local(),
            },
        )?),
        None => None,
    };
    let fixed_time = options.time_of_day.is_some();
    let recorder = options
        .record
        .as_deref()
        .map(Recorder::create)
        .transpose()?;
    let mut live = Live::new(world, conductor).recording(recorder);
    let language = live
        .world
        .project
        .npcs
        .first()
        .map(|n| n.voice.language.clone());
    let mut painter = options
        .overlay
        .then(|| OverlayPainter::new(&headless.gpu, OFFSCREEN_OVERLAY_FORMAT, language.as_deref()));
    let choice = ScreenChoice {
        subtitles: !options.no_subtitles && live.world.project.screen.subtitles.show,
        hint: 0.0,
    };
    let dt = (1.0 / options.fps) as f32;
    let start = Instant::now();
    let mut written = Vec::with_capacity(options.frames as usize);
    let progress = Progress::steps(u64::from(options.frames), "frames");
    for frame in 0..options.frames {
        let world = &live.world;
        let camera = match (&options.closeup, &options.full_body) {
            (Some(id), _) => world.closeup_camera(id),
            (None, Some(id)) => world.body_camera(id),
            (None, None) => None,
        }
        .unwrap_or_else(|| world.overview_camera());
        let now = start + Duration::from_secs_f64(f64::from(frame + 1) / options.fps);
        let time_of_day = live.world.time_of_day;
        live.step(now, dt, camera.position)?;
        if fixed_time {
            live.world.time_of_day = time_of_day;
        }
        let view = live.world.frame_view(camera, options.shadows);
        let image = match painter.as_mut() {
            Some(painter) => {
                draw_live_with_screen(&mut headless, painter, &live, camera, &view, choice)?
            }
            None => draw_world(&mut headless, &live.world, &view)?,
        };
        let path = options.out.join(format!("frame_{frame:04}.png"));
        image
            .save(&path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
        progress.step();
    }
    drop(progress);
    live.finish()?;
    Ok(written)
}
