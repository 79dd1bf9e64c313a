//! Hearing the person in front of the player: the microphone's sound cut into utterances
//! (`npc_core::hearing`), each given times on the run's clock, and written for the agents
//! (`heard.jsonl`, protocol 1.1) on a thread of its own. What the NPCs do about it is the
//! world's; whom each utterance is for is decided by the caller ([`crate::Live`]), which
//! knows where everyone stands.

mod writer;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use npc_core::hearing::{HeardSpeech, ListenSettings, VoiceEvent, VoiceSegmenter};

use crate::mic::{Mic, MicMessage, MicSource};
pub(crate) use writer::Written;

/// What the person did, on the wall clock.
#[derive(Debug)]
pub(crate) enum PersonEvent {
    /// The microphone's first sample was heard at `at`: its stream's clock starts.
    MicStarted { at: Instant },
    /// Started speaking; `at` is when its first voiced sound was heard.
    Onset { at: Instant },
    /// A stressed syllable.
    Stress { at: Instant },
    /// Stopped: one utterance, from its first to its last voiced sound.
    Stopped {
        start: Instant,
        end: Instant,
        speech: HeardSpeech,
    },
    /// What began as speech was noise after all.
    Dropped,
    /// An utterance was written for the agents (or could not be).
    Written(Written),
}

/// The microphone, the voice segmenter and the writer of `heard.jsonl`.
#[derive(Debug)]
pub(crate) struct Hearing {
    source: MicSource,
    mic: Option<Mic>,
    /// Opened (or tried) already.
    opened: bool,
    segmenter: VoiceSegmenter,
    writer: writer::Writer,
    /// When the stream's first sample was heard.
    stream_origin: Option<Instant>,
    voice: Vec<VoiceEvent>,
}

impl Hearing {
    /// Hears `source` (opened at the first poll) and writes utterances into `agent_dir`.
    pub(crate) fn new(
        source: MicSource,
        agent_dir: PathBuf,
        settings: &ListenSettings,
        language: &str,
    ) -> anyhow::Result<Self> {
        Ok(Self {
            source,
            mic: None,
            opened: false,
            segmenter: VoiceSegmenter::new(&settings.voice),
            writer: writer::Writer::start(agent_dir, language.to_owned())
                .map_err(anyhow::Error::msg)?,
            stream_origin: None,
            voice: Vec::new(),
        })
    }

    /// Whether the person is speaking now.
    #[must_use]
    pub(crate) fn person_speaking(&self) -> bool {
        self.segmenter.speaking()
    }

    /// Takes what the microphone heard since the last poll; appends what happened to `out`.
    pub(crate) fn poll(&mut self, out: &mut Vec<PersonEvent>) {
        if !self.opened {
            self.opened = true;
            match Mic::open(&self.source) {
                Ok(mic) => {
                    tracing::info!("listening to {}", mic.describe());
                    self.mic = Some(mic);
                }
                Err(why) => tracing::warn!("no microphone: {why}; the run goes on without it"),
            }
        }
        while let Some(message) = self.mic.as_ref().and_then(Mic::try_recv) {
            match message {
                MicMessage::Chunk(chunk) => {
                    let origin = match self.stream_origin {
                        Some(o) => o,
                        None => {
                            let heard =
                                chunk.samples.len() as f64 / f64::from(crate::mic::VOICE_RATE);
                            let o = chunk
                                .heard_at
                                .checked_sub(Duration::from_secs_f64(heard))
                                .unwrap_or(chunk.heard_at);
                            self.stream_origin = Some(o);
                            out.push(PersonEvent::MicStarted { at: o });
                            o
                        }
                    };
                    self.segmenter.push(&chunk.samples, &mut self.voice);
                    self.translate(origin, out);
                }
                MicMessage::Lost(why) => {
                    tracing::warn!("{why}; the run goes on without the microphone");
                    self.close(out);
                }
                MicMessage::Ended => {
                    tracing::info!("the microphone recording ended");
                    self.close(out);
                }
            }
        }
        while let Some(written) = self.writer.try_recv() {
            out.push(PersonEvent::Written(written));
        }
    }

    /// Hands an utterance to the writer: `to` the NPC it was for, times on the run's clock.
    pub(crate) fn write(
        &self,
        to: Option<String>,
        run_ms: impl Fn(Instant) -> f64,
        stopped: &(Instant, Instant, HeardSpeech),
    ) {
        let (start, end, speech) = stopped;
        let audio_start = self.at(speech.audio_start_ms);
        self.writer.send(writer::Job {
            to,
            start_ms: run_ms(*start),
            end_ms: run_ms(*end),
            samples: speech.samples.clone(),
            audio_start_ms: audio_start.map_or(run_ms(*start), run_ms),
        });
    }

    fn close(&mut self, out: &mut Vec<PersonEvent>) {
        self.mic = None;
        self.segmenter.finish(&mut self.voice);
        if let Some(origin) = self.stream_origin {
            self.translate(origin, out);
        }
    }

    /// The moment `stream_ms` into the microphone's stream was heard.
    fn at(&self, stream_ms: f64) -> Option<Instant> {
        self.stream_origin
            .map(|o| o + Duration::from_secs_f64(stream_ms.max(0.0) / 1000.0))
    }

    fn translate(&mut self, origin: Instant, out: &mut Vec<PersonEvent>) {
        let at = |ms: f64| origin + Duration::from_secs_f64(ms.max(0.0) / 1000.0);
        for event in self.voice.drain(..) {
            out.push(match event {
                VoiceEvent::Onset { start_ms } => PersonEvent::Onset { at: at(start_ms) },
                VoiceEvent::Stress { at_ms } => PersonEvent::Stress { at: at(at_ms) },
                VoiceEvent::Utterance(speech) => PersonEvent::Stopped {
                    start: at(speech.start_ms),
                    end: at(speech.end_ms),
                    speech,
                },
                VoiceEvent::Dropped { .. } => PersonEvent::Dropped,
            });
        }
    }
}
