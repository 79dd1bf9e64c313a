//! Hearing the person in front of the NPCs: their speech cut into utterances with onset and
//! end times ([`VoiceSegmenter`]), the stressed syllables a listener nods on, and whom each
//! utterance is for ([`Addressing`]), and how an NPC attends to them as a listener
//! ([`PersonAttention`]). Pure logic: the microphone and its clock are the
//! player's; here a stream of 16 kHz samples comes in and events come out.

mod address;
mod attention;
mod listen_bake;
mod settings;
mod stresses;
mod voice;

pub use address::{Addressing, Listener, Person};
pub use attention::{PersonAttention, Talk};
pub use listen_bake::{ListenBake, ListenBakeError, ListenBakeOptions, bake_listening};
pub use settings::{ListenSettings, VoiceSettings};
pub use voice::{FRAME, FRAME_MS, HeardSpeech, VOICE_RATE, VoiceEvent, VoiceSegmenter};
