//! The live runtime without a world (`npc-player run --headless --no-render`): watches an
//! agent directory, speaks each line it hands out, and reports when each line's audio ended
//! (which advances `spoken.json`). No faces are animated: nothing would read them (the world,
//! the record and the streams need `run` without `--no-render`).
//!
//! Threads: the main loop polls the directory and plays lines (~60 Hz while
//! something plays; when idle it sleeps up to 100 ms, woken at once by file events); a pool of
//! synthesis workers (two more than the cores, four to eight) speaks and aligns lines, so one slow line
//! never holds another conversation's.
//!
//! The speech itself is the [`Conductor`]'s; the windowed and offscreen players use it too.

mod block_lips;
mod breaker;
mod conductor;
pub(crate) mod events;
mod pool;
mod speaker;
mod stream;
mod stream_lips;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use npc_core::project::Project;

pub use block_lips::BlockLipSync;
pub use conductor::{Conductor, ConductorOptions, Cue, Feed, LineId, SYNTHESIS_DEADLINE};
pub(crate) use events::LineEvent;
pub use stream::{START_FROM_SOUND_AFTER_MS, marker_of};
pub use stream_lips::StreamLipSync;

/// Frame period while a line plays (~60 Hz).
const TICK: Duration = Duration::from_millis(16);
/// Longest sleep when nothing plays.
const IDLE_WAIT: Duration = Duration::from_millis(100);

/// What `npc-player run --headless --no-render` needs.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The project file (only its roster, speech and voices are used; no assets load).
    pub project: PathBuf,
    /// The agent directory.
    pub agent_dir: PathBuf,
    /// Stop after this long; `None` runs until the stop flag is set (or the process is killed).
    pub duration: Option<Duration>,
    /// Where to append one JSON line per line event.
    pub events: Option<PathBuf>,
    /// How long a gap in a conversation's seq numbers is waited out before moving on.
    pub gap_timeout: Duration,
    /// How long a line's synthesis may take before it is passed over.
    pub synthesis_deadline: Duration,
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
            synthesis_deadline: options.synthesis_deadline,
            wait_for_synthesis: false,
            sound: options.sound,
            line_audio: None,
            disk: npc_core::disk::Disk::local(),
        },
    )?;
    let mut cues = Vec::new();
    let start = Instant::now();
    conductor.set_origin(start);
    let end = options.duration.map(|d| start + d);
    loop {
        let now = Instant::now();
        if stop.load(Ordering::Relaxed) || end.is_some_and(|e| now >= e) {
            return Ok(());
        }
        conductor.step(now, &mut cues)?;
        // The cues are for a world; without one there is nothing to apply them to.
        cues.clear();
        let now = Instant::now();
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
