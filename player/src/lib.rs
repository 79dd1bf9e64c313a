//! `npc-player`: plays Living NPC projects. The library is the world (NPCs standing, walking
//! and talking in the scene), the live runtime (the conductor that speaks the agent
//! directory's lines and the one loop that applies its cues), sound output, offscreen frames,
//! the frame record, and the command line around them ([`main`]). It draws with `npc-render`
//! and animates with `npc-core`.

pub mod agent_sim;
pub mod audio;
pub mod bench_render;
mod cli;
pub mod first_person;
pub mod frames;
pub mod live;
pub mod output;
pub mod play;
pub mod plot;
pub mod record;
pub mod runtime;
pub mod window;
pub mod world;

pub use cli::{main, run_from};
