//! `npc-player run`: the project played live against its agent directory, in a window (the
//! default), offscreen (`--headless`), or without drawing at all (`--headless --no-render`:
//! speech and scheduling only, no assets needed). `--agent-sim` runs the demo's agent
//! simulator beside it.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::Context;
use npc_core::project::Project;

use crate::agent_sim;
use crate::link::LinkOut;
use crate::live::Live;
use crate::mic::MicSource;
use crate::record::Recorder;
use crate::runtime::{self, Conductor, ConductorOptions, RunOptions};
use crate::window::{self, WindowOptions};
use crate::world::World;
use npc_io::{Stream, parse_stream};
use npc_render::Headless;
use npc_render::MeshStoreBuilder;

/// Frame period of the offscreen live run.
const HEADLESS_FRAME: Duration = Duration::from_millis(33);

/// Everything `run` takes.
#[derive(Debug)]
pub struct PlayOptions {
    pub project: PathBuf,
    /// The agent directory; by default the project's.
    pub agent_dir: Option<PathBuf>,
    pub agent_sim: bool,
    pub headless: bool,
    pub no_render: bool,
    pub duration: Option<Duration>,
    pub events: Option<PathBuf>,
    pub gap_timeout: Duration,
    /// How long a line's synthesis may take before it is passed over.
    pub synthesis_deadline: Duration,
    pub closeup: Option<String>,
    pub width: u32,
    pub height: u32,
    pub shadows: bool,
    /// Play lines through the sound device (when there is one).
    pub sound: bool,
    /// Where to write the record of every frame (JSON Lines), when wanted.
    pub record: Option<PathBuf>,
    /// Where the person in front of the player is heard from, when they are.
    pub mic: Option<MicSource>,
    /// Where every NPC's face and body are streamed each frame (`--stream`): the live links
    /// given on the command line (the project's `streams` are added).
    pub streams: Vec<Stream>,
    /// Where each synthesised line's audio is kept as a WAV (`--line-audio`).
    pub line_audio: Option<PathBuf>,
    /// Show no subtitles in the window this run.
    pub no_subtitles: bool,
}

/// Starts the demo's agent simulator on its own thread. Called once the player is ready to
/// speak (world loaded, GPU and speech warmed up), so the demo's first line is not appended
/// while the player is still starting.
pub fn start_simulator(dir: PathBuf) {
    let answers = dir.clone();
    let spawned = thread::Builder::new()
        .name("agent-sim".to_owned())
        .spawn(move || {
            if let Err(e) = agent_sim::run(&dir, None, 1.0) {
                tracing::warn!("agent simulator: {e:#}");
            }
        });
    if let Err(e) = spawned {
        tracing::warn!("cannot start the agent simulator: {e}");
    }
    // It answers the person in front of the player too, for as long as the run lasts.
    let spawned = thread::Builder::new()
        .name("agent-sim-answer".to_owned())
        .spawn(move || {
            let answered = agent_sim::load_script(None).and_then(|script| {
                agent_sim::answer(&answers, &script, &|| false, agent_sim::Naming::Simulator)
            });
            if let Err(e) = answered {
                tracing::warn!("agent simulator: {e:#}");
            }
        });
    if let Err(e) = spawned {
        tracing::warn!("cannot start the agent simulator: {e}");
    }
}

/// Runs the project live.
pub fn run(options: PlayOptions) -> anyhow::Result<()> {
    let project = Project::load(&options.project)?;
    let agent_dir = options
        .agent_dir
        .clone()
        .unwrap_or_else(|| Project::resolve(&options.project, &project.agent_dir));
    // Agents may start after the player: an agent directory that is not there yet is made.
    if !agent_dir.exists() {
        std::fs::create_dir_all(&agent_dir).with_context(|| {
            format!("cannot create the agent directory {}", agent_dir.display())
        })?;
        tracing::info!("created the agent directory {}", agent_dir.display());
    }
    let simulator = options.agent_sim.then(|| agent_dir.clone());
    if options.headless && options.no_render {
        if let Some(record) = &options.record {
            anyhow::bail!(
                "--record {} needs the world (its NPCs' positions and joints): leave out --no-render",
                record.display()
            );
        }
        if !options.streams.is_empty() {
            anyhow::bail!(
                "--stream needs the world (its NPCs' faces and bodies): leave out --no-render"
            );
        }
        if options.line_audio.is_some() {
            anyhow::bail!(
                "--line-audio is for engines the NPCs are streamed to: leave out --no-render"
            );
        }
        if !project.streams.is_empty() {
            tracing::warn!(
                "the project's streams are not sent in a --no-render run (there are no faces \
                 or bodies to send)"
            );
        }
        if let Some(dir) = simulator {
            start_simulator(dir);
        }
        return runtime::run(&RunOptions {
            project: options.project,
            agent_dir,
            duration: options.duration,
            events: options.events,
            gap_timeout: options.gap_timeout,
            synthesis_deadline: options.synthesis_deadline,
            sound: options.sound,
        });
    }
    let project_streams = project
        .streams
        .iter()
        .enumerate()
        .map(|(i, url)| {
            parse_stream(url).map_err(|why| {
                anyhow::anyhow!("{}: streams[{i}]: {why}", options.project.display())
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut meshes = MeshStoreBuilder::default();
    let world = World::from_project(project, &options.project, &mut meshes)?;
    crate::frames::check_framed(&world, "--closeup", options.closeup.as_deref())?;
    let conductor = Conductor::open(
        &world.project,
        &ConductorOptions {
            agent_dir: agent_dir.clone(),
            events: options.events.clone(),
            gap_timeout: options.gap_timeout,
            synthesis_deadline: options.synthesis_deadline,
            wait_for_synthesis: false,
            sound: options.sound,
            line_audio: options.line_audio.clone(),
            disk: npc_core::disk::Disk::local(),
        },
    )?;
    let recorder = options
        .record
        .as_deref()
        .map(Recorder::create)
        .transpose()?;
    for stream in options.streams.iter().chain(&project_streams) {
        if let Some(id) = &stream.npc
            && !world.npcs.iter().any(|n| n.id == *id)
        {
            anyhow::bail!(
                "a stream chooses npc={id}, who is not in the roster ({})",
                world
                    .npcs
                    .iter()
                    .map(|n| n.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    let streams = options
        .streams
        .iter()
        .chain(&project_streams)
        .map(LinkOut::open)
        .collect::<Result<Vec<_>, String>>()
        .map_err(anyhow::Error::msg)?;
    let mut live = Live::new(world, Some(conductor))
        .recording(recorder)
        .streaming(streams);
    if let Some(source) = &options.mic {
        live = live.hear_from(source.clone(), &agent_dir)?;
    }
    if options.headless {
        return run_offscreen(live, meshes, &options, simulator, &AtomicBool::new(false));
    }
    if options.duration.is_some() {
        tracing::warn!("--duration applies to --headless runs; the window runs until closed");
    }
    window::run(
        live,
        meshes,
        WindowOptions {
            closeup: options.closeup,
            width: options.width,
            height: options.height,
            shadows: options.shadows,
            simulator,
            no_subtitles: options.no_subtitles,
        },
    )
}

/// The live world drawn offscreen at about 30 frames per second until the duration passes;
/// `simulator` (an agent directory) starts the demo's agent once the first frame is drawn.
pub fn run_offscreen(
    mut live: Live,
    meshes: MeshStoreBuilder,
    options: &PlayOptions,
    mut simulator: Option<PathBuf>,
    stop: &AtomicBool,
) -> anyhow::Result<()> {
    let world = &live.world;
    let mut headless = Headless::new(
        meshes,
        &world.content.skies,
        options.width,
        options.height,
        world.project.scene.shadow_size,
    )?;
    tracing::info!("drawing offscreen on {}", headless.gpu.describe());
    let start = Instant::now();
    let end = options.duration.map(|d| start + d);
    let mut last = start;
    loop {
        let now = Instant::now();
        if stop.load(Ordering::Relaxed) || end.is_some_and(|e| now >= e) {
            return live.finish();
        }
        let camera = match &options.closeup {
            Some(id) => live.world.closeup_camera(id),
            None => None,
        }
        .unwrap_or_else(|| live.world.overview_camera());
        let dt = now.saturating_duration_since(last).as_secs_f32();
        last = now;
        live.step_facing(now, dt, camera.position, camera.target - camera.position)?;
        let mut list = std::mem::take(&mut headless.list);
        let view = live.world.frame_view(camera, options.shadows);
        let aspect = options.width as f32 / options.height.max(1) as f32;
        live.world.draw(
            &headless.renderer.store.primitives,
            &view,
            aspect,
            &mut list,
        );
        headless.submit(&list, &view);
        headless.list = list;
        if let Some(dir) = simulator.take() {
            start_simulator(dir);
        }
        let next = now + HEADLESS_FRAME;
        let wait = next.saturating_duration_since(Instant::now());
        if let Some(c) = live.conductor.as_mut() {
            c.wait(c.next_wake(Instant::now(), wait));
        } else {
            thread::sleep(wait);
        }
    }
}
