//! A project played live: the world animated by the conductor's cues. Shared by the window,
//! `run --headless` and `render --agent-dir`; each frame is one [`Live::step`] at a given time.

use std::path::Path;
use std::time::{Duration, Instant};

use glam::Vec3;
use npc_core::agent::heard_writer::HeardWritten;
use npc_core::disk::Disk;
use npc_core::hearing::Person;
use serde_json::json;

use crate::hearing::{Hearing, PersonEvent};
use crate::link::LinkOut;
use crate::mic::MicSource;
use crate::record::Recorder;
use crate::runtime::{Conductor, Cue, LineEvent};
use crate::screen::{LineClock, MicLight, MicTracker, SubtitleLine, Subtitles};
use crate::world::World;
use npc_io::distance_volume;

/// The world and, when an agent directory is watched, its conductor.
#[derive(Debug)]
pub struct Live {
    pub world: World,
    pub conductor: Option<Conductor>,
    cues: Vec<Cue>,
    audio: Vec<f64>,
    recorder: Option<Recorder>,
    /// Where every NPC's face and body are streamed each frame (`--stream`).
    streams: Vec<LinkOut>,
    /// When the run began: one step before the first.
    origin: Option<Instant>,
    /// The microphone, when the person in front of the player is heard.
    hearing: Option<Hearing>,
    person: Vec<PersonEvent>,
    /// The last NPC that started a line, and when: its answer keeps the person's
    /// conversation with it going.
    answered: Option<(String, Instant)>,
    /// The lines on screen, and the person's microphone light.
    subtitles: Subtitles,
    mic: MicTracker,
    /// The run's clock at the last step, ms.
    last_ms: f64,
    /// Every line's volume, times the distance's (the menu's).
    volume: f32,
}

impl Live {
    #[must_use]
    pub fn new(world: World, conductor: Option<Conductor>) -> Self {
        Self {
            world,
            conductor,
            cues: Vec::new(),
            audio: Vec::new(),
            recorder: None,
            streams: Vec::new(),
            origin: None,
            hearing: None,
            person: Vec::new(),
            answered: None,
            subtitles: Subtitles::default(),
            mic: MicTracker::default(),
            last_ms: 0.0,
            volume: 1.0,
        }
    }

    /// Hears the person in front of the player from `source` from the first step on, and
    /// writes what they say into the agent directory `agent_dir` (`heard.jsonl`).
    ///
    /// # Errors
    /// The thread that writes the utterances cannot start.
    pub fn hear_from(mut self, source: MicSource, agent_dir: &Path) -> anyhow::Result<Self> {
        let project = &self.world.project;
        let language = project
            .npcs
            .first()
            .map_or_else(|| "en-US".to_owned(), |n| n.voice.language.clone());
        self.hearing = Some(Hearing::new(
            source,
            agent_dir.to_owned(),
            Disk::local(),
            &project.listen,
            &language,
        )?);
        Ok(self)
    }

    /// The run's clock at `at`, ms (the record's `time_ms`, the events' `t_ms`).
    #[must_use]
    pub fn run_ms(&self, at: Instant) -> f64 {
        run_ms_since(self.origin, at)
    }

    /// Streams every NPC's face and body each step from now on (`--stream`).
    #[must_use]
    pub fn streaming(mut self, streams: Vec<LinkOut>) -> Self {
        self.streams = streams;
        self
    }

    /// Records every step from now on (`--record`).
    #[must_use]
    pub fn recording(mut self, recorder: Option<Recorder>) -> Self {
        self.recorder = recorder;
        self
    }

    /// Ends the run: writes out what the record holds.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        if let Some(mut recorder) = self.recorder.take() {
            recorder.finish()?;
        }
        Ok(())
    }

    /// Advances to `now` (`dt_s` after the last step) with the listener at `listener`,
    /// looking at the middle of the group.
    pub fn step(&mut self, now: Instant, dt_s: f32, listener: Vec3) -> anyhow::Result<()> {
        let forward = self.world.centre() - listener;
        self.step_facing(now, dt_s, listener, forward)
    }

    /// Advances to `now` (`dt_s` after the last step) with the listener (the camera) at
    /// `listener`, looking along `forward`: whom the person speaks to depends on it.
    pub fn step_facing(
        &mut self,
        now: Instant,
        dt_s: f32,
        listener: Vec3,
        forward: Vec3,
    ) -> anyhow::Result<()> {
        let origin = match self.origin {
            Some(o) => o,
            None => {
                let o = now
                    .checked_sub(Duration::from_secs_f32(dt_s.max(0.0)))
                    .unwrap_or(now);
                self.origin = Some(o);
                if let Some(conductor) = self.conductor.as_mut() {
                    conductor.set_origin(o);
                }
                o
            }
        };
        self.world.camera_position = listener;
        let time_ms = now.saturating_duration_since(origin).as_secs_f64() * 1000.0;
        self.last_ms = time_ms;
        self.hear(
            now,
            Person {
                position: listener,
                forward,
            },
        );
        if let Some(conductor) = self.conductor.as_mut() {
            conductor.step(now, &mut self.cues)?;
        }
        for cue in self.cues.drain(..) {
            match &cue {
                Cue::Speak {
                    npc,
                    line,
                    text,
                    cue,
                    ..
                } => {
                    self.answered = Some((npc.clone(), now));
                    let (words, length) = (&cue.words_ms, cue.audio_ms);
                    self.subtitles
                        .line_started(npc, line.clone(), text, words, length, time_ms);
                }
                Cue::SpeakStreamed {
                    npc, line, text, ..
                } => {
                    self.answered = Some((npc.clone(), now));
                    self.subtitles
                        .line_started(npc, line.clone(), text, &[], None, time_ms);
                }
                Cue::Stop { .. } | Cue::NpcState(_) => {}
            }
            apply(&mut self.world, cue);
        }
        self.audio.clear();
        for npc in &self.world.npcs {
            let position = match &self.conductor {
                Some(c) => c.audio_ms(&npc.id, now).unwrap_or(0.0),
                None => 0.0,
            };
            self.audio.push(position);
        }
        if let Some(conductor) = self.conductor.as_mut() {
            for npc in self.world.npcs.iter().filter(|n| n.speaking()) {
                let volume = distance_volume(npc.position.distance(listener)) * self.volume;
                conductor.set_volume(&npc.id, volume);
            }
        }
        let audio = &self.audio;
        self.world
            .update(dt_s, listener, &|i| audio.get(i).copied().unwrap_or(0.0));
        let clocks: Vec<LineClock<'_>> = self
            .world
            .npcs
            .iter()
            .filter(|n| n.line.is_some())
            .map(|n| LineClock {
                npc: &n.id,
                line: n.line.as_ref(),
                audio_ms: n.audio_ms,
            })
            .collect();
        self.subtitles.update(&clocks, time_ms);
        if let Some(recorder) = self.recorder.as_mut() {
            recorder.record(&self.world, time_ms)?;
        }
        for stream in &mut self.streams {
            stream.send(&self.world, time_ms / 1000.0);
        }
        Ok(())
    }
}

impl Live {
    /// Tells the ear where everyone is, and takes what it heard: the person starts speaking
    /// to an NPC (it listens; it stops talking when barge-in is on), stresses syllables (it
    /// nods on some), stops (the utterance is written for the agents).
    fn hear(&mut self, now: Instant, person: Person) {
        let Some(hearing) = self.hearing.as_ref() else {
            return;
        };
        let listeners: Vec<(String, Vec3)> = self
            .world
            .listeners()
            .into_iter()
            .map(|l| (l.id.to_owned(), l.head))
            .collect();
        let (origin, answered) = (self.origin, self.answered.clone());
        hearing.publish(|scene| {
            scene.origin = origin;
            scene.person = Some(person);
            scene.listeners = listeners;
            scene.answered = answered;
        });
        hearing.poll(&mut self.person);
        let events = std::mem::take(&mut self.person);
        for event in events {
            match event {
                PersonEvent::MicStarted { at } => {
                    let at_ms = round(self.run_ms(at));
                    self.log(&LineEvent::person(
                        "microphone_started",
                        json!({"stream_start_ms": at_ms}),
                    ));
                }
                PersonEvent::Onset { at, to } => {
                    self.mic.onset(to.clone());
                    self.person_started(at, to, now);
                }
                PersonEvent::Stress { at, to } => {
                    self.world.person_stress(to.as_deref());
                    self.log(&LineEvent::person(
                        "person_stress",
                        json!({"to": to, "at_ms": round(self.run_ms(at))}),
                    ));
                }
                PersonEvent::Stopped { start, end, to } => {
                    self.mic.stopped();
                    self.world.person_stopped(to.as_deref(), false);
                    if let Some(conductor) = self.conductor.as_mut() {
                        conductor.hold(None);
                    }
                    let (start_ms, end_ms) = (self.run_ms(start), self.run_ms(end));
                    self.log(&LineEvent::person(
                        "person_stopped",
                        json!({"to": to, "start_ms": round(start_ms), "end_ms": round(end_ms),
                               "detected_ms": round(self.run_ms(now))}),
                    ));
                }
                PersonEvent::Dropped { to } => {
                    self.mic.stopped();
                    self.world.person_stopped(to.as_deref(), true);
                    if let Some(conductor) = self.conductor.as_mut() {
                        conductor.hold(None);
                    }
                    self.log(&LineEvent::person("person_noise", json!({"to": to})));
                }
                PersonEvent::Written(HeardWritten::Line { line, at, warning }) => {
                    if let Some(w) = warning {
                        tracing::warn!("{w}");
                    }
                    let written_ms = self.run_ms(at);
                    self.mic.sent(line.to.clone(), written_ms);
                    if let Some(text) = &line.text {
                        self.subtitles.person_said(text, self.last_ms);
                    }
                    self.log(&LineEvent::person(
                        "heard",
                        json!({"seq": line.seq, "to": line.to, "audio": line.audio,
                               "start_ms": line.start_ms, "end_ms": line.end_ms,
                               "text": line.text, "written_ms": round(written_ms),
                               "latency_ms": round(written_ms - line.end_ms)}),
                    ));
                }
                PersonEvent::Written(HeardWritten::Refused(why)) => tracing::warn!("{why}"),
                PersonEvent::Written(HeardWritten::Recovered) => {
                    tracing::info!("heard utterances are written again");
                }
                PersonEvent::Written(HeardWritten::Unwritten { count, why }) => {
                    tracing::warn!("{count} heard utterances were never written: {why}");
                }
            }
        }
    }

    fn person_started(&mut self, at: Instant, to: Option<String>, now: Instant) {
        let at_ms = self.run_ms(at);
        let barge_in = self.world.project.listen.barge_in;
        self.world.person_started(to.as_deref());
        let mut interrupted = false;
        if let Some(conductor) = self.conductor.as_mut() {
            // Its next line waits for the person to finish.
            conductor.hold(to.as_deref());
            if barge_in && let Some(npc) = &to {
                interrupted = conductor.interrupt(npc, now, &mut self.cues);
            }
        }
        self.log(&LineEvent::person(
            "person_started",
            json!({"to": to, "start_ms": round(at_ms), "detected_ms": round(self.run_ms(now)),
                   "barge_in": interrupted}),
        ));
    }

    fn log(&mut self, event: &LineEvent) {
        if let Some(conductor) = self.conductor.as_mut() {
            conductor.log(event);
        }
    }

    /// The subtitles as of the last step.
    #[must_use]
    pub fn subtitle_lines(&self) -> Vec<SubtitleLine> {
        self.subtitles.lines(self.last_ms)
    }

    /// The microphone light as of the last step; `None` when the run hears nobody.
    #[must_use]
    pub fn mic_light(&self) -> Option<MicLight> {
        let hearing = self.hearing.as_ref()?;
        Some(
            self.mic
                .light(hearing.mic_open(), hearing.level(), self.last_ms),
        )
    }

    /// The NPC the person speaks to now, or has just spoken to.
    #[must_use]
    pub fn addressed(&self) -> Option<&str> {
        self.mic.addressed(self.last_ms)
    }

    /// Sets every line's volume (0-1), times the distance's.
    pub fn set_volume(&mut self, volume: f32) {
        self.volume = if volume.is_finite() {
            volume.clamp(0.0, 1.0)
        } else {
            1.0
        };
    }

    /// Whether the person in front of the player is speaking now.
    #[must_use]
    pub fn person_speaking(&self) -> bool {
        self.hearing.as_ref().is_some_and(Hearing::person_speaking)
    }
}

fn run_ms_since(origin: Option<Instant>, at: Instant) -> f64 {
    origin.map_or(0.0, |o| {
        if at >= o {
            at.duration_since(o).as_secs_f64() * 1000.0
        } else {
            -(o.duration_since(at).as_secs_f64() * 1000.0)
        }
    })
}

fn round(ms: f64) -> f64 {
    crate::runtime::events::round_ms(ms)
}

/// Applies one cue to the world.
fn apply(world: &mut World, cue: Cue) {
    match cue {
        Cue::Speak {
            npc,
            line,
            cue,
            behaviour,
            ..
        } => match world.npc_index(&npc) {
            Some(i) => world.speak(i, line, &cue, &behaviour),
            None => tracing::warn!("{npc}: not in the world; its line plays unseen"),
        },
        Cue::SpeakStreamed {
            npc,
            line,
            feed,
            behaviour,
            ..
        } => match (world.npc_index(&npc), feed.take()) {
            (Some(i), Some(feed)) => world.speak_streamed(i, line, feed, &behaviour),
            _ => tracing::warn!("{npc}: not in the world; its line plays unseen"),
        },
        Cue::Stop { npc } => {
            if let Some(i) = world.npc_index(&npc) {
                world.npcs[i].stop();
            }
        }
        Cue::NpcState(state) => {
            if let Some(t) = state.time_of_day {
                world.time_of_day = t;
            }
            for p in &state.npcs {
                world.set_goal(&p.id, p.x as f32, p.y as f32);
            }
        }
    }
}
