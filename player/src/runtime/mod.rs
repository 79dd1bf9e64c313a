//! The live runtime without a window (`npc-player run --headless`): watches an agent
//! directory, speaks each line it hands out with the offline engine, drives the speaking
//! NPC's face at the line's audio position, and reports when each line's audio ended (which
//! advances `spoken.json`).
//!
//! Threads: the main loop polls the directory, plays lines and animates faces (~60 Hz while
//! something plays, waking at least every 20 ms when idle); one worker thread synthesises, so
//! the next line of another conversation can be synthesised while a line plays.
//!
//! A line that cannot be synthesised is logged, reported as `line_rejected` in the events file
//! and then marked finished (`line_finished`, so `spoken.json` passes over it): one bad line
//! must not stall its conversation forever, and retrying would fail the same way.

pub mod events;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::Context;
use npc_core::agent::{AgentDirectory, AgentEvent, AgentOptions, Line};
use npc_core::face::{FaceAnimator, FaceSettings};
use npc_core::lipsync::VisemeTrack;
use npc_core::project::{Gender, Npc, Project, Voice};
use npc_core::speech::{OfflineEngine, SpeechEngine, SpeechError, Utterance};

use crate::audio::{AudioOut, PlayingLine};
use events::{EventLog, LineEvent};

/// Frame period while a line plays (~60 Hz).
const TICK: Duration = Duration::from_millis(16);
/// Longest sleep when nothing plays.
const IDLE_WAIT: Duration = Duration::from_millis(20);

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
}

/// A line handed to the synthesis worker.
#[derive(Debug)]
struct Job {
    conversation: String,
    line: Line,
    npc: String,
    voice: Voice,
    seen: Instant,
}

/// A line whose synthesis ended.
#[derive(Debug)]
struct Done {
    job: Job,
    result: Result<Utterance, SpeechError>,
}

/// A line whose audio is playing.
#[derive(Debug)]
struct Playing {
    conversation: String,
    line: Line,
    npc: String,
    clock: PlayingLine,
}

/// Runs the live runtime until `options.duration` passes or `stop` is set.
pub fn run_until(options: &RunOptions, stop: &AtomicBool) -> anyhow::Result<()> {
    let project = Project::load(&options.project)?;
    let mut dir = AgentDirectory::open(
        &options.agent_dir,
        &project.npcs,
        AgentOptions {
            gap_timeout: options.gap_timeout,
            ..AgentOptions::default()
        },
    )
    .context("cannot open the agent directory")?;
    let mut log = match &options.events {
        Some(path) => Some(EventLog::open(path)?),
        None => None,
    };
    let engine = OfflineEngine::new()?;
    let (job_tx, job_rx) = mpsc::channel::<Job>();
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    let worker = thread::Builder::new()
        .name("npc-synthesis".to_owned())
        .spawn(move || {
            for job in job_rx {
                let result = engine.synthesize(&job.line.text, &job.voice);
                if done_tx.send(Done { job, result }).is_err() {
                    break;
                }
            }
        })
        .context("cannot start the synthesis thread")?;

    let mut faces = Faces::new(&project.face, &project.npcs);
    let mut audio = AudioOut::open();
    let mut playing: Vec<Playing> = Vec::new();
    let mut in_synthesis = 0usize;
    let start = Instant::now();
    let end = options.duration.map(|d| start + d);
    let mut last_tick = start;
    let result = loop {
        let now = Instant::now();
        if stop.load(Ordering::Relaxed) || end.is_some_and(|e| now >= e) {
            break Ok(());
        }
        for event in dir.poll(now) {
            match event {
                AgentEvent::LineReady {
                    conversation,
                    line,
                    npc,
                } => {
                    let voice = voice_for(&project.npcs, &npc, &line);
                    let job = Job {
                        conversation,
                        line,
                        npc,
                        voice,
                        seen: now,
                    };
                    if job_tx.send(job).is_err() {
                        anyhow::bail!("the synthesis thread stopped");
                    }
                    in_synthesis += 1;
                }
                AgentEvent::Rejected {
                    conversation,
                    file_line,
                    reason,
                } => {
                    tracing::warn!("{file_line}: {reason}; line skipped");
                    if let Some(log) = log.as_mut() {
                        log.write(&LineEvent::rejected_input(
                            &conversation,
                            &file_line,
                            &reason,
                        ));
                    }
                }
                AgentEvent::Warning(w) => tracing::warn!("{w}"),
                AgentEvent::ActiveChanged(_) | AgentEvent::NpcStateChanged(_) => {}
            }
        }
        // Lines whose synthesis ended start playing now.
        while let Ok(done) = done_rx.try_recv() {
            in_synthesis = in_synthesis.saturating_sub(1);
            let now = Instant::now();
            let Done { job, result } = done;
            match result.and_then(|u| track_of(u).map_err(SpeechError::Synthesis)) {
                Ok((utterance, track)) => {
                    let clock = audio.play(&utterance.pcm, utterance.sample_rate, 1.0, now);
                    faces.speak(&job.npc, &track);
                    let latency = now.saturating_duration_since(job.seen);
                    if let Some(log) = log.as_mut() {
                        log.write(&LineEvent::line(
                            "line_started",
                            &job.conversation,
                            &job.line,
                            &job.npc,
                            Some(latency),
                        ));
                    }
                    playing.push(Playing {
                        conversation: job.conversation,
                        line: job.line,
                        npc: job.npc,
                        clock,
                    });
                }
                Err(e) => {
                    tracing::warn!(
                        "{} seq {}: cannot be spoken: {e}; passing over it",
                        job.conversation,
                        job.line.seq
                    );
                    if let Some(log) = log.as_mut() {
                        log.write(&LineEvent::line(
                            "line_rejected",
                            &job.conversation,
                            &job.line,
                            &job.npc,
                            None,
                        ));
                    }
                    finish(&mut dir, &job.conversation, job.line.seq);
                }
            }
        }
        // Animate, and finish lines whose audio ended.
        let now = Instant::now();
        let dt_ms = now.saturating_duration_since(last_tick).as_secs_f64() * 1000.0;
        last_tick = now;
        let mut i = 0;
        while i < playing.len() {
            let p = &playing[i];
            if p.clock.is_finished(now) {
                let p = playing.swap_remove(i);
                finish(&mut dir, &p.conversation, p.line.seq);
                faces.stop(&p.npc);
                if let Some(log) = log.as_mut() {
                    log.write(&LineEvent::line(
                        "line_finished",
                        &p.conversation,
                        &p.line,
                        &p.npc,
                        None,
                    ));
                }
            } else {
                i += 1;
            }
        }
        faces.update(&playing, now, dt_ms);
        // Sleep until a file event, the next frame or gap deadline, or the end.
        let now = Instant::now();
        let mut wait = if playing.is_empty() && in_synthesis == 0 {
            IDLE_WAIT
        } else {
            TICK
        };
        if in_synthesis > 0 {
            // Synthesis takes a few ms: look again soon so the line starts without delay.
            wait = wait.min(Duration::from_millis(2));
        }
        if let Some(d) = dir.next_deadline() {
            wait = wait.min(d.saturating_duration_since(now));
        }
        if let Some(e) = end {
            wait = wait.min(e.saturating_duration_since(now));
        }
        if let Some(p) = playing
            .iter()
            .map(|p| p.clock.duration_ms() - p.clock.position_ms(now))
            .min_by(f64::total_cmp)
        {
            wait = wait.min(Duration::from_secs_f64(p.max(0.0) / 1000.0));
        }
        dir.wait(wait);
    };
    drop(job_tx);
    if worker.join().is_err() {
        tracing::warn!("the synthesis thread panicked");
    }
    result
}

/// Runs until `options.duration` passes (or forever without one).
pub fn run(options: &RunOptions) -> anyhow::Result<()> {
    run_until(options, &AtomicBool::new(false))
}

fn finish(dir: &mut AgentDirectory, conversation: &str, seq: u64) {
    match dir.line_finished(conversation, seq) {
        Ok(true) => {}
        Ok(false) => tracing::warn!("{conversation} seq {seq}: was not the line in flight"),
        Err(e) => tracing::warn!("{e}"),
    }
}

fn track_of(utterance: Utterance) -> Result<(Utterance, VisemeTrack), String> {
    let track = VisemeTrack::from_events(utterance.visemes.clone()).map_err(|e| e.to_string())?;
    Ok((utterance, track))
}

/// The voice of roster NPC `npc`; for a speaker without one (empty roster), a default voice of
/// the line's gender.
fn voice_for(roster: &[Npc], npc: &str, line: &Line) -> Voice {
    roster
        .iter()
        .find(|n| n.id == npc)
        .map(|n| n.voice.clone())
        .unwrap_or_else(|| Voice {
            gender: line.gender.unwrap_or(Gender::Female),
            ..Voice::default()
        })
}

/// One face animator per NPC.
#[derive(Debug)]
struct Faces {
    settings: FaceSettings,
    faces: BTreeMap<String, FaceAnimator>,
}

impl Faces {
    fn new(settings: &FaceSettings, roster: &[Npc]) -> Self {
        let mut faces = Self {
            settings: settings.clone(),
            faces: BTreeMap::new(),
        };
        for npc in roster {
            faces.get(&npc.id);
        }
        faces
    }

    fn get(&mut self, npc: &str) -> &mut FaceAnimator {
        let seed = self.faces.len() as u64;
        self.faces
            .entry(npc.to_owned())
            .or_insert_with(|| FaceAnimator::new(self.settings.clone(), seed))
    }

    fn speak(&mut self, npc: &str, track: &VisemeTrack) {
        let face = self.get(npc);
        face.speak(track);
        face.set_speaking(true);
    }

    fn stop(&mut self, npc: &str) {
        let face = self.get(npc);
        face.stop();
        face.set_speaking(false);
    }

    fn update(&mut self, playing: &[Playing], now: Instant, dt_ms: f64) {
        for (id, face) in &mut self.faces {
            let audio_ms = playing
                .iter()
                .find(|p| &p.npc == id)
                .map_or(0.0, |p| p.clock.position_ms(now));
            if let Err(e) = face.update(audio_ms, dt_ms) {
                tracing::warn!("{id}: {e}");
            }
        }
    }
}

/// Checks the flags of `run` and runs it.
pub fn run_cli(options: &RunOptions, headless: bool, no_render: bool) -> anyhow::Result<()> {
    if !headless {
        anyhow::bail!(
            "the windowed player is not in this build yet; run with --headless (speech, scheduling and animation without a window)"
        );
    }
    if !no_render {
        tracing::warn!(
            "frames are not drawn in this build (no renderer yet): running as --no-render"
        );
    }
    run(options)
}
