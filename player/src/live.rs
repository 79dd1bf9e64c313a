//! A project played live: the world animated by the conductor's cues. Shared by the window,
//! `run --headless` and `render --agent-dir`; each frame is one [`Live::step`] at a given time.

use std::time::{Duration, Instant};

use glam::Vec3;

use crate::audio::distance_volume;
use crate::record::Recorder;
use crate::runtime::{Conductor, Cue};
use crate::world::World;

/// The world and, when an agent directory is watched, its conductor.
#[derive(Debug)]
pub struct Live {
    pub world: World,
    pub conductor: Option<Conductor>,
    cues: Vec<Cue>,
    audio: Vec<f64>,
    recorder: Option<Recorder>,
    /// When the run began: one step before the first.
    origin: Option<Instant>,
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
            origin: None,
        }
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

    /// Advances to `now` (`dt_s` after the last step) with the listener at `listener`.
    pub fn step(&mut self, now: Instant, dt_s: f32, listener: Vec3) -> anyhow::Result<()> {
        let origin = *self.origin.get_or_insert_with(|| {
            now.checked_sub(Duration::from_secs_f32(dt_s.max(0.0)))
                .unwrap_or(now)
        });
        if let Some(conductor) = self.conductor.as_mut() {
            conductor.step(now, &mut self.cues)?;
        }
        for cue in self.cues.drain(..) {
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
                conductor.set_volume(&npc.id, distance_volume(npc.position.distance(listener)));
            }
        }
        let audio = &self.audio;
        self.world
            .update(dt_s, listener, &|i| audio.get(i).copied().unwrap_or(0.0));
        if let Some(recorder) = self.recorder.as_mut() {
            let time_ms = now.saturating_duration_since(origin).as_secs_f64() * 1000.0;
            recorder.record(&self.world, time_ms)?;
        }
        Ok(())
    }
}

/// Applies one cue to the world.
fn apply(world: &mut World, cue: Cue) {
    match cue {
        Cue::Speak {
            npc,
            line,
            cue,
            behaviour,
        } => match world.npc_index(&npc) {
            Some(i) => world.speak(i, line, &cue, &behaviour),
            None => tracing::warn!("{npc}: not in the world; its line plays unseen"),
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
