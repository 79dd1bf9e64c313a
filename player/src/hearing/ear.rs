//! The ear: the hearing thread's loop. Each chunk of the microphone goes through the voice
//! segmenter at once; an utterance's words are recognised as it is spoken, and it is written
//! for the agents as soon as it ends.

use npc_core::disk::Disk;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use npc_core::hearing::{
    Addressing, ListenSettings, Listener, VOICE_RATE, VoiceEvent, VoiceSegmenter,
};

use super::scribe::{Ended, Note, Scribe};
use super::{Meter, PersonEvent, Scene};
use crate::mic::{DeviceWatch, Mic, MicMessage, MicSource};

/// How often the ear looks whether it should stop while the microphone is quiet.
const STOP_CHECK: Duration = Duration::from_millis(50);

pub(super) struct Ear {
    pub source: MicSource,
    pub agent_dir: PathBuf,
    pub disk: Disk,
    pub settings: ListenSettings,
    pub language: String,
    pub scene: Arc<Mutex<Scene>>,
    pub speaking: Arc<AtomicBool>,
    pub meter: Arc<Meter>,
    pub stop: Arc<AtomicBool>,
    pub events: mpsc::Sender<PersonEvent>,
}

/// The utterance being heard.
struct Current {
    to: Option<String>,
    /// Samples of its sound given to the recognizer so far.
    fed: usize,
}

/// What the ear keeps between chunks.
struct State {
    origin: Instant,
    stream_origin: Option<Instant>,
    segmenter: VoiceSegmenter,
    scribe: Scribe,
    addressing: Addressing,
    /// The last answer taken into the addressing.
    answered: Option<(String, Instant)>,
    current: Option<Current>,
    voice: Vec<VoiceEvent>,
}

impl Ear {
    pub(super) fn run(self) {
        self.listen();
        self.meter.set_open(false);
    }

    fn listen(&self) {
        // The run's clock starts with the first frame; the recording with it.
        let origin = loop {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            if let Some(o) = self.lock().origin {
                break o;
            }
            thread::sleep(Duration::from_millis(5));
        };
        let scribe = match Scribe::start(
            self.agent_dir.clone(),
            self.disk.clone(),
            self.language.clone(),
            self.events.clone(),
        ) {
            Ok(s) => s,
            Err(why) => {
                tracing::warn!("{why}; the person is not heard");
                return;
            }
        };
        let mic = match Mic::open(&self.source) {
            Ok(mic) => {
                tracing::info!("listening to {}", mic.describe());
                self.meter.set_open(true);
                mic
            }
            Err(why) => {
                tracing::warn!("no microphone: {why}; the run goes on without it");
                return;
            }
        };
        let mut state = State {
            origin,
            stream_origin: None,
            segmenter: VoiceSegmenter::new(&self.settings.voice),
            scribe,
            addressing: Addressing::default(),
            answered: None,
            current: None,
            voice: Vec::new(),
        };
        // A device (not a recording) that goes quiet without an error is said so.
        let mut watch =
            matches!(self.source, MicSource::Device(_)).then(|| DeviceWatch::new(Instant::now()));
        while !self.stop.load(Ordering::Relaxed) {
            let message = match mic.recv_timeout(STOP_CHECK) {
                Ok(m) => m,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let Some(why) = watch.as_mut().and_then(|w| w.check(Instant::now())) {
                        tracing::warn!("{why}");
                    }
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            };
            match message {
                MicMessage::Chunk(chunk) => {
                    self.meter.heard(&chunk.samples);
                    if let Some(back) = watch.as_mut().and_then(|w| w.heard(Instant::now())) {
                        tracing::info!("{back}");
                    }
                    let stream_origin = match state.stream_origin {
                        Some(o) => o,
                        None => {
                            let heard = chunk.samples.len() as f64 / f64::from(VOICE_RATE);
                            let o = chunk
                                .heard_at
                                .checked_sub(Duration::from_secs_f64(heard))
                                .unwrap_or(chunk.heard_at);
                            state.stream_origin = Some(o);
                            self.send(PersonEvent::MicStarted { at: o });
                            o
                        }
                    };
                    state.segmenter.push(&chunk.samples, &mut state.voice);
                    self.handle(&mut state, stream_origin);
                }
                MicMessage::Lost(why) => {
                    tracing::warn!("{why}; the run goes on without the microphone");
                    self.end(&mut state);
                    return;
                }
                MicMessage::Ended => {
                    tracing::info!("the microphone recording ended");
                    self.end(&mut state);
                    return;
                }
            }
        }
    }

    fn end(&self, state: &mut State) {
        state.segmenter.finish(&mut state.voice);
        if let Some(o) = state.stream_origin {
            self.handle(state, o);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Scene> {
        self.scene
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn send(&self, event: PersonEvent) {
        // The frame loop is gone when the run ends: nothing is waiting for the event then.
        let _ = self.events.send(event);
    }

    /// Acts on what the segmenter heard in the last chunk.
    fn handle(&self, state: &mut State, stream_origin: Instant) {
        let at = |ms: f64| stream_origin + Duration::from_secs_f64(ms.max(0.0) / 1000.0);
        let origin = state.origin;
        let run_ms = |i: Instant| -> f64 {
            if i >= origin {
                i.duration_since(origin).as_secs_f64() * 1000.0
            } else {
                -(origin.duration_since(i).as_secs_f64() * 1000.0)
            }
        };
        let voice: Vec<VoiceEvent> = state.voice.drain(..).collect();
        for event in voice {
            match event {
                VoiceEvent::Onset { start_ms } => {
                    let onset = at(start_ms);
                    let to = self.addressee(state, run_ms(onset));
                    state.scribe.note(Note::Begin);
                    state.current = Some(Current {
                        to: to.clone(),
                        fed: 0,
                    });
                    self.speaking.store(true, Ordering::Relaxed);
                    self.send(PersonEvent::Onset { at: onset, to });
                }
                VoiceEvent::Stress { at_ms } => {
                    let to = state.current.as_ref().and_then(|c| c.to.clone());
                    self.send(PersonEvent::Stress { at: at(at_ms), to });
                }
                VoiceEvent::Dropped { .. } => {
                    self.speaking.store(false, Ordering::Relaxed);
                    let to = state.current.take().and_then(|c| c.to);
                    state.scribe.note(Note::Drop);
                    self.send(PersonEvent::Dropped { to });
                }
                VoiceEvent::Utterance(speech) => {
                    self.speaking.store(false, Ordering::Relaxed);
                    let current = state.current.take();
                    let fed = current.as_ref().map_or(0, |c| c.fed);
                    let to = current.and_then(|c| c.to);
                    let (start, end) = (at(speech.start_ms), at(speech.end_ms));
                    self.send(PersonEvent::Stopped {
                        start,
                        end,
                        to: to.clone(),
                    });
                    if let Some(to) = &to {
                        state.addressing.exchanged(to, run_ms(end));
                    }
                    let rest = speech.samples.get(fed..).unwrap_or(&[]).to_vec();
                    if !rest.is_empty() {
                        state.scribe.note(Note::Sound(rest));
                    }
                    state.scribe.note(Note::End(Ended {
                        to,
                        start_ms: run_ms(start),
                        end_ms: run_ms(end),
                        audio_start_ms: run_ms(at(speech.audio_start_ms)),
                        samples: speech.samples,
                    }));
                }
            }
        }
        // The words of the utterance under way are searched as it is spoken.
        if let Some(current) = state.current.as_mut() {
            let audio = state.segmenter.utterance_audio();
            if let Some(new) = audio.get(current.fed..)
                && !new.is_empty()
            {
                state.scribe.note(Note::Sound(new.to_vec()));
                current.fed = audio.len();
            }
        }
    }

    /// Whom an utterance starting at `at_ms` (run's clock) is for, by the latest scene.
    fn addressee(&self, state: &mut State, at_ms: f64) -> Option<String> {
        let scene = self.lock().clone();
        if let Some((npc, when)) = &scene.answered
            && state.answered.as_ref() != Some(&(npc.clone(), *when))
        {
            let ms = when.saturating_duration_since(state.origin).as_secs_f64() * 1000.0;
            state.addressing.exchanged(npc, ms);
            state.answered = Some((npc.clone(), *when));
        }
        let person = scene.person?;
        let listeners: Vec<Listener<'_>> = scene
            .listeners
            .iter()
            .map(|(id, head)| Listener { id, head: *head })
            .collect();
        state
            .addressing
            .addressee(person, &listeners, &self.settings, at_ms)
            .map(str::to_owned)
    }
}
