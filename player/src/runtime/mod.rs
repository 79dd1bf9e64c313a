//! The live runtime without a window (`npc-player run --headless`): watches an agent
//! directory, speaks each line it hands out with the offline engine, drives the speaking
//! NPC's face at the line's audio position, and reports when each line's audio ended (which
//! advances `spoken.json`).
//!
//! Threads: the main loop polls the directory, plays lines and animates faces (~60 Hz while
//! something plays; when idle it sleeps up to 100 ms, woken at once by file events); a pool of
//! synthesis workers (two more than the cores, four to eight) speaks and aligns lines, so one slow line
//! never holds another conversation's.
//!
//! The speech itself is the [`Conductor`]'s; the windowed and offscreen players use it too.

mod breaker;
mod conductor;
pub(crate) mod events;
mod pool;
mod speaker;
mod stream;
mod stream_lips;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use npc_core::anim::face::{FaceAnimator, FaceSettings};
use npc_core::project::Project;
use npc_core::{LineCue, face_seed};

pub use conductor::{Conductor, ConductorOptions, Cue, Feed, LineId};
pub(crate) use events::LineEvent;
pub use stream::{BlockLipSync, marker_of};
pub use stream_lips::StreamLipSync;

/// Frame period while a line plays (~60 Hz).
const TICK: Duration = Duration::from_millis(16);
/// Longest sleep when nothing plays.
const IDLE_WAIT: Duration = Duration::from_millis(100);

/// What `npc-player run --headless` needs.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The project file (only its roster, face settings and voices are used; no assets load).
    pub project: PathBuf,
    /// The agent directory.
    pub agent_dir: PathBuf,
    /// Stop after this long; `None` runs until the stop flag is set (or the process is killed).
    pub duration: Option<Duration>,
    /// Where to append one JSON line per line event.
    pub events: Option<PathBuf>,
    /// How long a gap in a conversation's seq numbers is waited out before moving on.
    pub gap_timeout: Duration,
    /// Play lines through the sound device (when there is one).
    pub sound: bool,
}

/// Runs the live runtime until `options.duration` passes or `stop` is set.
pub fn run_until(options: &RunOptions, stop: &AtomicBool) -> anyhow::Result<()> {
    let project = Project::load(&options.project)?;
    let mut conductor = Conductor::open(
        &project,
        &ConductorOptions {
            agent_dir: options.agent_dir.clone(),
            events: options.events.clone(),
            gap_timeout: options.gap_timeout,
            wait_for_synthesis: false,
            sound: options.sound,
            line_audio: None,
        },
    )?;
    let mut faces = Faces::new(&project);
    let mut cues = Vec::new();
    let start = Instant::now();
    conductor.set_origin(start);
    let end = options.duration.map(|d| start + d);
    let mut last_tick = start;
    loop {
        let now = Instant::now();
        if stop.load(Ordering::Relaxed) || end.is_some_and(|e| now >= e) {
            return Ok(());
        }
        conductor.step(now, &mut cues)?;
        for cue in cues.drain(..) {
            match cue {
                Cue::Speak { npc, cue, .. } => faces.speak(&npc, &cue),
                Cue::SpeakStreamed { npc, feed, .. } => {
                    if let Some(feed) = feed.take() {
                        faces.get(&npc).start_streamed_line(feed);
                    }
                }
                Cue::Stop { npc } => faces.stop(&npc),
                Cue::NpcState(_) => {}
            }
        }
        let now = Instant::now();
        let dt_ms = now.saturating_duration_since(last_tick).as_secs_f64() * 1000.0;
        last_tick = now;
        faces.update(&conductor, now, dt_ms);
        // Sleep until a file event, the next frame or gap deadline, or the end.
        let tick = if conductor.busy() { TICK } else { IDLE_WAIT };
        let mut wait = conductor.next_wake(now, tick);
        if let Some(e) = end {
            wait = wait.min(e.saturating_duration_since(now));
        }
        conductor.wait(wait);
    }
}

/// Runs until `options.duration` passes (or forever without one).
pub fn run(options: &RunOptions) -> anyhow::Result<()> {
    run_until(options, &AtomicBool::new(false))
}

/// One face animator per NPC, seeded as the world seeds them.
#[derive(Debug)]
struct Faces {
    /// Each NPC's face profile (the project's for NPCs without their own).
    settings: BTreeMap<String, FaceSettings>,
    default: FaceSettings,
    seed: u64,
    faces: BTreeMap<String, FaceAnimator>,
}

impl Faces {
    fn new(project: &Project) -> Self {
        let mut faces = Self {
            settings: project
                .npcs
                .iter()
                .map(|n| (n.id.clone(), project.face_settings(&n.id).clone()))
                .collect(),
            default: project.face.clone(),
            seed: project.seed,
            faces: BTreeMap::new(),
        };
        for npc in &project.npcs {
            faces.get(&npc.id);
        }
        faces
    }

    fn get(&mut self, npc: &str) -> &mut FaceAnimator {
        let seed = face_seed(self.seed, npc);
        self.faces.entry(npc.to_owned()).or_insert_with(|| {
            let settings = self.settings.get(npc).unwrap_or(&self.default);
            FaceAnimator::new(settings.clone(), seed)
        })
    }

    fn speak(&mut self, npc: &str, cue: &LineCue) {
        self.get(npc).start_line(cue);
    }

    fn stop(&mut self, npc: &str) {
        self.get(npc).end_line();
    }

    fn update(&mut self, conductor: &Conductor, now: Instant, dt_ms: f64) {
        for (id, face) in &mut self.faces {
            let audio_ms = conductor.audio_ms(id, now).unwrap_or(0.0);
            if let Err(e) = face.update(audio_ms, dt_ms) {
                tracing::warn!("{id}: {e}");
            }
        }
    }
}
