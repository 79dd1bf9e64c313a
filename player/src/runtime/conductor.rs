//! The conductor of live speech: takes the lines the agent directory hands out, has them
//! synthesised on a worker thread, starts each line's audio, and marks it spoken when its
//! audio has ended. What it decides comes out as cues (who starts or stops speaking, where NPCs
//! go, the time of day) for whoever animates the NPCs: the headless runtime or the world.
//!
//! Time is an argument: every step takes `now`, so the renderer can drive it with frame time.
//!
//! A line that cannot be synthesised is logged, reported as `line_rejected` in the events file
//! and then marked finished (`line_finished`, so `spoken.json` passes over it): one bad line
//! must not stall its conversation forever, and retrying would fail the same way.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::Context;
use npc_core::LineCue;
use npc_core::agent::cues::Behaviour;
use npc_core::agent::{AgentDirectory, AgentEvent, AgentOptions, Line, NpcState};
use npc_core::anim::lipsync::{TrackReceiver, track_channel};
use npc_core::disk::Disk;
use npc_core::project::{Gender, Npc, Project, Voice};
use npc_core::speech::{LineSource, SpeechError};

use super::events::{EventLog, LineEvent};
use super::pool::{WorkerPool, workers_for};
use super::speaker::Speaker;
use super::stream::{StreamEnd, StreamedLine};
use npc_io::{AudioOut, PlayingLine};

/// Which agent line is spoken: its conversation and seq number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineId {
    pub conversation: String,
    pub seq: u64,
}

/// What the conductor tells the animation.
#[derive(Clone, Debug, PartialEq)]
pub enum Cue {
    /// `npc` starts `line`: its face performs `cue` at [`Conductor::audio_ms`].
    Speak {
        npc: String,
        line: LineId,
        /// What is said (the subtitle).
        text: String,
        cue: LineCue,
        /// What the line asks of the speaker's body (targets checked against the roster).
        behaviour: Behaviour,
    },
    /// `npc` starts a streamed line: its face performs the visemes that come through `feed`
    /// as the sound arrives, at [`Conductor::audio_ms`].
    SpeakStreamed {
        npc: String,
        line: LineId,
        /// What is said (the subtitle).
        text: String,
        feed: Feed,
        behaviour: Behaviour,
    },
    /// `npc`'s line ended.
    Stop { npc: String },
    /// Agents moved NPCs or set the time.
    NpcState(NpcState),
}

/// The visemes of a streamed line as they are heard, for the face that speaks it (taken once).
#[derive(Clone)]
pub struct Feed(Arc<Mutex<Option<TrackReceiver>>>);

impl Feed {
    fn new(receiver: TrackReceiver) -> Self {
        Self(Arc::new(Mutex::new(Some(receiver))))
    }

    /// The receiver, to the first who takes it.
    #[must_use]
    pub fn take(&self) -> Option<TrackReceiver> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }
}

impl std::fmt::Debug for Feed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Feed")
    }
}

impl PartialEq for Feed {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// How far a playing line is: a whole recording or synthesis, or a stream still arriving.
#[derive(Debug)]
enum Clock {
    Whole(PlayingLine),
    Streamed(StreamedLine),
}

impl Clock {
    fn position_ms(&self, now: Instant) -> f64 {
        match self {
            Self::Whole(c) => c.position_ms(now),
            Self::Streamed(s) => s.position_ms(now),
        }
    }

    fn remaining_ms(&self, now: Instant) -> f64 {
        match self {
            Self::Whole(c) => c.duration_ms() - c.position_ms(now),
            Self::Streamed(_) => 10.0,
        }
    }

    fn set_volume(&mut self, volume: f32) {
        match self {
            Self::Whole(c) => c.set_volume(volume),
            Self::Streamed(s) => s.set_volume(volume),
        }
    }

    fn stop(&mut self) {
        match self {
            Self::Whole(c) => c.stop(),
            Self::Streamed(s) => s.stop(),
        }
    }
}

/// A streamed line waiting for enough of its sound to start.
#[derive(Debug)]
struct Waiting {
    conversation: String,
    line: Line,
    npc: String,
    stream: StreamedLine,
    feed: TrackReceiver,
    seen: Instant,
}

/// A line handed to the synthesis worker.
#[derive(Debug)]
struct Job {
    conversation: String,
    line: Line,
    npc: String,
    voice: Voice,
    seen: Instant,
    /// Handed in as the n-th job (results that finish together start in this order).
    order: u64,
}

/// A line being synthesised: what is needed to pass over it when its deadline passes.
#[derive(Debug)]
struct InFlight {
    order: u64,
    conversation: String,
    line: Line,
    npc: String,
    since: Instant,
}

/// How long a line may take to be synthesised (or its recording aligned) in a live run before
/// it is passed over, so that an engine that hangs on one line does not stop its
/// conversation. (A cloud engine's own timeout and the offline engine after it fit well
/// within it; `render` waits for every line instead, for the same frames.)
pub const SYNTHESIS_DEADLINE: Duration = Duration::from_secs(30);

/// The lines of `in_flight` past their deadline at `now`, latest first (to remove by index).
fn overdue(in_flight: &[InFlight], now: Instant, deadline: Duration) -> Vec<usize> {
    let mut late: Vec<usize> = in_flight
        .iter()
        .enumerate()
        .filter(|(_, f)| now.saturating_duration_since(f.since) > deadline)
        .map(|(i, _)| i)
        .collect();
    late.reverse();
    late
}

/// A line ready to start, made on a worker by the one path `bake` and the studio take
/// ([`LineSource`]): its sound and what the face performs (visemes, loudness, stresses and
/// word starts: a recorded line with a script gets its words' times, as its bake does).
#[derive(Debug)]
struct Performed {
    pcm: Vec<i16>,
    sample_rate: u32,
    cue: LineCue,
}

impl Performed {
    fn from_source(source: LineSource) -> Result<Self, SpeechError> {
        let (pcm, sample_rate) = match (source.utterance, source.audio) {
            (Some(u), _) => (u.pcm, u.sample_rate),
            (None, Some((samples, rate))) => (
                samples
                    .iter()
                    .map(|&s| (s.clamp(-1.0, 1.0) * 32767.0).round() as i16)
                    .collect(),
                rate,
            ),
            (None, None) => {
                return Err(SpeechError::Synthesis("the line has no audio".to_owned()));
            }
        };
        Ok(Self {
            pcm,
            sample_rate,
            cue: source.cue,
        })
    }
}

/// A line whose synthesis ended.
#[derive(Debug)]
struct Done {
    job: Job,
    result: Result<Performed, SpeechError>,
    /// The line's audio as a file: the agent's recording, or the synthesised WAV written.
    audio_file: Option<PathBuf>,
}

/// A line whose audio is playing.
#[derive(Debug)]
struct Playing {
    conversation: String,
    line: Line,
    npc: String,
    clock: Clock,
}

/// How the conductor is set up.
#[derive(Clone, Debug)]
pub struct ConductorOptions {
    pub agent_dir: PathBuf,
    pub events: Option<PathBuf>,
    pub gap_timeout: Duration,
    /// How long a line's synthesis may take before it is passed over (refused, so that its
    /// conversation goes on): [`SYNTHESIS_DEADLINE`] unless the user says otherwise.
    pub synthesis_deadline: Duration,
    /// Wait for synthesis inside [`Conductor::step`] (deterministic frames for `render`).
    pub wait_for_synthesis: bool,
    /// Play lines through the sound device (when there is one); otherwise, and for
    /// deterministic frames, time them by the offline clock.
    pub sound: bool,
    /// A folder where each synthesised line's audio is written as a WAV (named in its
    /// `line_started` event as `audio`), so an engine the NPCs are streamed to can play it.
    pub line_audio: Option<PathBuf>,
    /// Where `spoken.json` and the events file are written (the machine's disk; a
    /// benchmark's slow or full one).
    pub disk: Disk,
}

/// The live speech of a project's NPCs.
#[derive(Debug)]
pub struct Conductor {
    roster: Vec<Npc>,
    dir: AgentDirectory,
    log: Option<EventLog>,
    pool: WorkerPool<Job, Done>,
    jobs_sent: u64,
    audio: AudioOut,
    playing: Vec<Playing>,
    /// Streamed lines waiting for their first sound.
    waiting: Vec<Waiting>,
    /// Lines ready while the person was speaking to their NPC: they start when the person
    /// stops (turn-taking: an answer does not talk over the question after it).
    deferred: Vec<Done>,
    /// The NPC the person is speaking to now.
    held: Option<String>,
    /// When the person last stopped speaking to an NPC (its held lines may start).
    released: Option<Instant>,
    /// Lines handed to the pool and not back yet.
    in_flight: Vec<InFlight>,
    /// Lines passed over at their deadline whose results, when they come, are dropped.
    abandoned: Vec<u64>,
    wait_for_synthesis: bool,
    synthesis_deadline: Duration,
}

impl Conductor {
    /// Opens the agent directory and starts the synthesis worker.
    pub fn open(project: &Project, options: &ConductorOptions) -> anyhow::Result<Self> {
        let dir = AgentDirectory::open(
            &options.agent_dir,
            &project.npcs,
            AgentOptions {
                gap_timeout: options.gap_timeout,
                disk: options.disk.clone(),
                ..AgentOptions::default()
            },
        )
        .context("cannot open the agent directory")?;
        let log = match &options.events {
            Some(path) => Some(EventLog::open(path, options.disk.clone())?),
            None => None,
        };
        let cores = thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
        let workers = workers_for(cores);
        // One worker is always left for lines spoken offline.
        let speaker = Speaker::for_project(&project.speech)?.limit_cloud_calls(workers - 1);
        let voices = roster_voices(&project.npcs);
        let line_audio = options.line_audio.clone();
        let speaker = Arc::new(speaker);
        let warm = Arc::clone(&speaker);
        let pool = WorkerPool::start(
            "npc-synthesis",
            workers,
            // The first synthesis of a voice loads its data: done before the first line.
            move || {
                for voice in &voices {
                    warm.warm_up(WARM_UP_TEXT, voice);
                }
            },
            move |job: Job| {
                let source = match &job.line.audio {
                    Some(path) => recorded(Path::new(path), &job.line.text, &job.voice),
                    None => speaker
                        .synthesize(&job.line.text, &job.voice)
                        .and_then(|u| {
                            LineSource::from_utterance(u)
                                .map_err(|e| SpeechError::Synthesis(e.to_string()))
                        }),
                };
                let result = source.and_then(Performed::from_source);
                let audio_file = match (&job.line.audio, &result, &line_audio) {
                    (Some(path), _, _) => Some(PathBuf::from(path)),
                    (None, Ok(p), Some(dir)) => keep_line_audio(dir, &job, p),
                    _ => None,
                };
                Done {
                    job,
                    result,
                    audio_file,
                }
            },
        )
        .context("cannot start the synthesis threads")?;
        Ok(Self {
            roster: project.npcs.clone(),
            dir,
            log,
            pool,
            jobs_sent: 0,
            audio: if options.sound {
                AudioOut::open()
            } else {
                AudioOut::offline()
            },
            playing: Vec::new(),
            waiting: Vec::new(),
            deferred: Vec::new(),
            held: None,
            released: None,
            in_flight: Vec::new(),
            abandoned: Vec::new(),
            wait_for_synthesis: options.wait_for_synthesis,
            synthesis_deadline: options.synthesis_deadline,
        })
    }

    /// One step at `now`: reads the directory, starts lines whose synthesis ended and ends
    /// lines whose audio ended; appends what changed to `cues`.
    pub fn step(&mut self, now: Instant, cues: &mut Vec<Cue>) -> anyhow::Result<()> {
        for event in self.dir.poll(now) {
            match event {
                AgentEvent::LineReady {
                    conversation,
                    line,
                    npc,
                } if line.streamed() => self.open_stream(conversation, line, npc, now),
                AgentEvent::LineReady {
                    conversation,
                    line,
                    npc,
                } => {
                    let voice = voice_for(&self.roster, &npc, &line);
                    let order = self.jobs_sent;
                    self.jobs_sent += 1;
                    self.in_flight.push(InFlight {
                        order,
                        conversation: conversation.clone(),
                        line: line.clone(),
                        npc: npc.clone(),
                        since: now,
                    });
                    let job = Job {
                        conversation,
                        line,
                        npc,
                        voice,
                        seen: now,
                        order,
                    };
                    if !self.pool.send(job) {
                        anyhow::bail!("the synthesis threads stopped");
                    }
                }
                AgentEvent::Rejected {
                    conversation,
                    file_line,
                    reason,
                } => {
                    tracing::warn!("{file_line}: {reason}; line skipped");
                    if let Some(log) = self.log.as_mut() {
                        log.write(&LineEvent::rejected_input(
                            &conversation,
                            &file_line,
                            &reason,
                        ));
                    }
                }
                AgentEvent::Warning(w) => tracing::warn!("{w}"),
                AgentEvent::NpcStateChanged(state) => cues.push(Cue::NpcState(state)),
                AgentEvent::ActiveChanged(_) => {}
            }
        }
        // Lines held while the person spoke to their NPC go first, once it may speak.
        let mut i = 0;
        while i < self.deferred.len() {
            if self.holds(&self.deferred[i].job.npc) {
                i += 1;
            } else {
                let done = self.deferred.remove(i);
                self.start(done, now, cues);
            }
        }
        let mut finished = Vec::new();
        loop {
            let done = if self.wait_for_synthesis && !self.in_flight.is_empty() {
                self.pool.recv()
            } else {
                self.pool.try_recv()
            };
            let Some(done) = done else { break };
            let order = done.job.order;
            if let Some(i) = self.abandoned.iter().position(|&o| o == order) {
                self.abandoned.swap_remove(i);
                tracing::info!(
                    "{} seq {}: synthesised after its deadline; dropped",
                    done.job.conversation,
                    done.job.line.seq
                );
                continue;
            }
            self.in_flight.retain(|f| f.order != order);
            finished.push(done);
        }
        if !self.wait_for_synthesis {
            self.pass_over_late_lines(now);
        }
        // Lines that finished together start in the order they were handed in, whichever
        // worker was quicker (the same frames from the same lines).
        finished.sort_by_key(|d| d.job.order);
        for done in finished {
            if self.holds(&done.job.npc) {
                self.deferred.push(done);
                continue;
            }
            self.start(done, now, cues);
        }
        self.start_streams(now, cues);
        let mut i = 0;
        while i < self.playing.len() {
            let ended = match &mut self.playing[i].clock {
                Clock::Whole(c) => c.is_finished(now).then_some(None),
                Clock::Streamed(s) => {
                    s.hand_over();
                    s.finished(now).map(Some)
                }
            };
            if let Some(end) = ended {
                let p = self.playing.swap_remove(i);
                if let Some(StreamEnd::Incomplete(why)) = &end {
                    tracing::warn!("{} seq {}: {why}", p.conversation, p.line.seq);
                    if let Some(log) = self.log.as_mut() {
                        log.write(&LineEvent::incomplete(
                            &p.conversation,
                            &p.line,
                            &p.npc,
                            why,
                        ));
                    }
                }
                finish(&mut self.dir, &p.conversation, p.line.seq);
                // Audio end -> spoken.json's state handed to its writer, on the wall clock (frame time in
                // `render` is not the wall clock, so it says nothing there).
                let spoken_after = match &p.clock {
                    Clock::Whole(c) => (!self.wait_for_synthesis)
                        .then(|| Instant::now().saturating_duration_since(c.ends_at())),
                    Clock::Streamed(_) => None,
                };
                cues.push(Cue::Stop { npc: p.npc.clone() });
                if let Some(log) = self.log.as_mut() {
                    log.write(&LineEvent::finished(
                        &p.conversation,
                        &p.line,
                        &p.npc,
                        spoken_after,
                    ));
                }
            } else {
                i += 1;
            }
        }
        Ok(())
    }

    /// Starts a synthesised line (or passes over one that failed).
    fn start(&mut self, done: Done, now: Instant, cues: &mut Vec<Cue>) {
        let Done {
            job,
            result,
            audio_file,
        } = done;
        // The clock starts when the line is handed over, which is when it is heard.
        let now = if self.wait_for_synthesis {
            now
        } else {
            Instant::now().max(now)
        };
        match result {
            Ok(Performed {
                pcm,
                sample_rate,
                cue,
            }) => {
                let clock = self.audio.play(&pcm, sample_rate, 1.0, now);
                let mut behaviour = job.line.behaviour.clone();
                let mut warnings = Vec::new();
                let roster = &self.roster;
                behaviour.keep_known(|id| roster.iter().any(|n| n.id == id), &mut warnings);
                for w in warnings {
                    tracing::warn!("{} seq {}: {w}", job.conversation, job.line.seq);
                }
                cues.push(Cue::Speak {
                    npc: job.npc.clone(),
                    line: LineId {
                        conversation: job.conversation.clone(),
                        seq: job.line.seq,
                    },
                    text: job.line.text.clone(),
                    cue,
                    behaviour,
                });
                let latency = now.saturating_duration_since(job.seen);
                if let Some(log) = self.log.as_mut() {
                    log.write(
                        &LineEvent::line(
                            "line_started",
                            &job.conversation,
                            &job.line,
                            &job.npc,
                            Some(latency),
                        )
                        .with_audio(audio_file.as_deref()),
                    );
                }
                self.playing.push(Playing {
                    conversation: job.conversation,
                    line: job.line,
                    npc: job.npc,
                    clock: Clock::Whole(clock),
                });
            }
            Err(e) => {
                tracing::warn!(
                    "{} seq {}: cannot be spoken: {e}; passing over it",
                    job.conversation,
                    job.line.seq
                );
                if let Some(log) = self.log.as_mut() {
                    log.write(&LineEvent::refused(
                        &job.conversation,
                        &job.line,
                        &job.npc,
                        &e.to_string(),
                    ));
                }
                finish(&mut self.dir, &job.conversation, job.line.seq);
            }
        }
    }

    /// Passes over the lines whose synthesis outlasted their deadline: refused with
    /// the reason, so their conversations go on; their results are dropped when they come.
    fn pass_over_late_lines(&mut self, now: Instant) {
        for i in overdue(&self.in_flight, now, self.synthesis_deadline) {
            let late = self.in_flight.swap_remove(i);
            let why = format!(
                "not synthesised within {} s (the speech engine may hang)",
                self.synthesis_deadline.as_secs_f64()
            );
            tracing::warn!(
                "{} seq {}: {why}; passing over it",
                late.conversation,
                late.line.seq
            );
            if let Some(log) = self.log.as_mut() {
                log.write(&LineEvent::refused(
                    &late.conversation,
                    &late.line,
                    &late.npc,
                    &why,
                ));
            }
            finish(&mut self.dir, &late.conversation, late.line.seq);
            self.abandoned.push(late.order);
        }
    }

    /// Starts reading a streamed line; it starts when enough of its sound has arrived.
    fn open_stream(&mut self, conversation: String, line: Line, npc: String, now: Instant) {
        let path = line.audio.clone().unwrap_or_default();
        let voice = voice_for(&self.roster, &npc, &line);
        let (sender, receiver) = track_channel();
        match StreamedLine::open(Path::new(&path), &line.text, &voice, sender) {
            Ok(stream) => self.waiting.push(Waiting {
                conversation,
                line,
                npc,
                stream,
                feed: receiver,
                seen: now,
            }),
            Err(why) => {
                tracing::warn!("{conversation} seq {}: {why}; passing over it", line.seq);
                if let Some(log) = self.log.as_mut() {
                    log.write(&LineEvent::refused(&conversation, &line, &npc, &why));
                }
                finish(&mut self.dir, &conversation, line.seq);
            }
        }
    }

    /// Starts the streamed lines whose first sound has arrived.
    fn start_streams(&mut self, now: Instant, cues: &mut Vec<Cue>) {
        let mut i = 0;
        while i < self.waiting.len() {
            if !self.waiting[i].stream.ready() || self.holds(&self.waiting[i].npc) {
                i += 1;
                continue;
            }
            let Waiting {
                conversation,
                line,
                npc,
                mut stream,
                feed,
                seen,
            } = self.waiting.swap_remove(i);
            let started = Instant::now().max(now);
            stream.start(started, self.audio.stream_player());
            let mut behaviour = line.behaviour.clone();
            let mut warnings = Vec::new();
            let roster = &self.roster;
            behaviour.keep_known(|id| roster.iter().any(|n| n.id == id), &mut warnings);
            for w in warnings {
                tracing::warn!("{conversation} seq {}: {w}", line.seq);
            }
            cues.push(Cue::SpeakStreamed {
                npc: npc.clone(),
                line: LineId {
                    conversation: conversation.clone(),
                    seq: line.seq,
                },
                text: line.text.clone(),
                feed: Feed::new(feed),
                behaviour,
            });
            if let Some(log) = self.log.as_mut() {
                // The player's own part: from its first samples, or from when the person
                // stopped speaking if it was held for them (that wait reported beside it).
                let arrived = stream.first_sound_arrived();
                let held = arrived
                    .zip(self.released)
                    .and_then(|(a, r)| (r > a).then(|| r.saturating_duration_since(a)));
                let first = arrived
                    .map(|a| started.saturating_duration_since(a + held.unwrap_or_default()));
                log.write(
                    &LineEvent::streamed_start(
                        &conversation,
                        &line,
                        &npc,
                        started.saturating_duration_since(seen),
                        first,
                        held,
                    )
                    .with_audio(line.audio.as_deref().map(Path::new)),
                );
            }
            self.playing.push(Playing {
                conversation,
                line,
                npc,
                clock: Clock::Streamed(stream),
            });
        }
    }

    /// The person is speaking to `npc` (or to nobody, or has stopped: `None`): that NPC's
    /// next lines wait until they stop.
    pub fn hold(&mut self, npc: Option<&str>) {
        if npc.is_none() && self.held.is_some() {
            self.released = Some(Instant::now());
        }
        self.held = npc.map(str::to_owned);
    }

    fn holds(&self, npc: &str) -> bool {
        self.held.as_deref() == Some(npc)
    }

    /// Sets the run's clock: events carry `t_ms`, ms since `origin` (the record's `time_ms`).
    pub fn set_origin(&mut self, origin: Instant) {
        if let Some(log) = self.log.as_mut() {
            log.set_origin(origin);
        }
    }

    /// Appends an event of the run (the person's speech) to the events file, if there is one.
    pub fn log(&mut self, event: &LineEvent) {
        if let Some(log) = self.log.as_mut() {
            log.write(event);
        }
    }

    /// Barge-in: the person started speaking over `npc`'s line at `now`. Its sound stops, its
    /// face is told to stop (the mouth eases shut), and the line is reported interrupted with
    /// how much of it was heard; the conversation goes on past it. Returns whether a line was
    /// playing.
    pub fn interrupt(&mut self, npc: &str, now: Instant, cues: &mut Vec<Cue>) -> bool {
        let Some(i) = self.playing.iter().rposition(|p| p.npc == npc) else {
            return false;
        };
        let mut p = self.playing.swap_remove(i);
        let at_ms = p.clock.position_ms(now);
        p.clock.stop();
        match self
            .dir
            .line_interrupted(&p.conversation, p.line.seq, at_ms)
        {
            Ok(true) => {}
            Ok(false) => tracing::warn!(
                "{} seq {}: was not the line in flight",
                p.conversation,
                p.line.seq
            ),
            Err(e) => tracing::warn!("{e}"),
        }
        cues.push(Cue::Stop { npc: p.npc.clone() });
        if let Some(log) = self.log.as_mut() {
            log.write(&LineEvent::interrupted(
                &p.conversation,
                &p.line,
                &p.npc,
                at_ms,
            ));
        }
        true
    }

    /// Audio position of `npc`'s line at `now`, ms; `None` when it is silent.
    #[must_use]
    pub fn audio_ms(&self, npc: &str, now: Instant) -> Option<f64> {
        // The latest line of the NPC drives its face.
        self.playing
            .iter()
            .rev()
            .find(|p| p.npc == npc)
            .map(|p| p.clock.position_ms(now))
    }

    /// Sets the volume of `npc`'s line (distance to the listener).
    pub fn set_volume(&mut self, npc: &str, volume: f32) {
        for p in self.playing.iter_mut().filter(|p| p.npc == npc) {
            p.clock.set_volume(volume);
        }
    }

    /// Whether a line plays or is being synthesised.
    #[must_use]
    pub fn busy(&self) -> bool {
        !self.playing.is_empty()
            || !self.waiting.is_empty()
            || !self.deferred.is_empty()
            || !self.in_flight.is_empty()
    }

    /// How long the caller may sleep before the next step is due: a file deadline, the end of
    /// a line, or soon when synthesis is under way. `tick` is the longest sleep wanted.
    #[must_use]
    pub fn next_wake(&self, now: Instant, tick: Duration) -> Duration {
        let mut wait = tick;
        if !self.in_flight.is_empty() {
            // Synthesis takes a few ms: look again soon so the line starts without delay.
            wait = wait.min(Duration::from_millis(2));
        }
        if let Some(d) = self.dir.next_deadline() {
            wait = wait.min(d.saturating_duration_since(now));
        }
        if !self.waiting.is_empty() {
            wait = wait.min(Duration::from_millis(5));
        }
        if let Some(p) = self
            .playing
            .iter()
            .map(|p| p.clock.remaining_ms(now))
            .min_by(f64::total_cmp)
        {
            wait = wait.min(Duration::from_secs_f64(p.max(0.0) / 1000.0));
        }
        wait
    }

    /// Sleeps up to `d`, waking early when the directory changes.
    pub fn wait(&mut self, d: Duration) {
        self.dir.wait(d);
    }
}

fn finish(dir: &mut AgentDirectory, conversation: &str, seq: u64) {
    match dir.line_finished(conversation, seq) {
        Ok(true) => {}
        Ok(false) => tracing::warn!("{conversation} seq {seq}: was not the line in flight"),
        Err(e) => tracing::warn!("{e}"),
    }
}

/// Spoken (and thrown away) once per voice when the conductor starts, so that the first line
/// does not wait for the engine and its voices to load.
const WARM_UP_TEXT: &str = "Hello.";

/// The distinct voices of the roster.
fn roster_voices(roster: &[Npc]) -> Vec<Voice> {
    let mut voices: Vec<Voice> = Vec::new();
    for npc in roster {
        if !voices.contains(&npc.voice) {
            voices.push(npc.voice.clone());
        }
    }
    voices
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

/// A recorded line: its visemes from its script aligned to its sound (docs/align.md) when the
/// line has text, else from its sound alone (the phones the acoustic model hears, else its
/// formants), as `bake --audio [--transcript]` makes them.
fn recorded(path: &Path, script: &str, voice: &Voice) -> Result<LineSource, SpeechError> {
    if !script.trim().is_empty() {
        match LineSource::from_wav_and_script(path, script, voice) {
            Ok(source) => return Ok(source),
            Err(e) => tracing::warn!(
                "{}: its script cannot be aligned to it ({e:#}); lip-synced from its sound alone",
                path.display()
            ),
        }
    }
    LineSource::from_wav(path, &voice.language)
        .map_err(|e| SpeechError::Synthesis(format!("{e:#}")))
}

/// Writes a synthesised line's audio into `dir` as `CONVERSATION-SEQ.wav` (the conversation
/// file's name without `.jsonl`); None, said, when it cannot be written.
fn keep_line_audio(dir: &Path, job: &Job, line: &Performed) -> Option<PathBuf> {
    let stem = Path::new(&job.conversation)
        .file_stem()
        .map_or_else(|| "line".to_owned(), |s| s.to_string_lossy().into_owned());
    let path = dir.join(format!("{stem}-{}.wav", job.line.seq));
    let written = std::fs::create_dir_all(dir)
        .map_err(|e| e.to_string())
        .and_then(|()| {
            npc_core::speech::wav::write(&path, &line.pcm, line.sample_rate)
                .map_err(|e| e.to_string())
        });
    match written {
        Ok(()) => Some(path),
        Err(why) => {
            tracing::warn!(
                "{} seq {}: its audio cannot be kept in {} ({why}); the line plays",
                job.conversation,
                job.line.seq,
                dir.display()
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn only_lines_past_their_deadline_are_passed_over_latest_index_first() {
        let t0 = Instant::now();
        let line: Line =
            serde_json::from_str(r#"{"seq": 0, "speaker_id": "Elara", "text": "hi"}"#).unwrap();
        let flight = |order, after_s| InFlight {
            order,
            conversation: "c".to_owned(),
            line: line.clone(),
            npc: "Elara".to_owned(),
            since: t0 + Duration::from_secs(after_s),
        };
        let in_flight = [flight(0, 0), flight(1, 25), flight(2, 1)];
        let now = t0 + Duration::from_secs(32);
        assert_eq!(overdue(&in_flight, now, SYNTHESIS_DEADLINE), [2, 0]);
        assert!(overdue(&in_flight, t0 + SYNTHESIS_DEADLINE, SYNTHESIS_DEADLINE).is_empty());
    }
}
