//! `npc-player`: plays Living NPC projects. Today it offers the command line around the shared
//! animation engine (`bake`); the renderer and the live runtime build on the same library.

pub mod agent_sim;
pub mod audio;
pub mod bake;
pub mod bench_render;
pub mod check;
pub mod cli;
pub mod first_person;
pub mod frames;
pub mod generate;
pub mod headless;
pub mod inspect;
pub mod line_source;
pub mod live;
pub mod output;
pub mod play;
pub mod plot;
pub mod record;
pub mod render;
pub mod runtime;
pub mod say;
pub mod window;
pub mod world;
