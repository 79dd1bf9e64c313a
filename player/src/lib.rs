//! `npc-player`: plays Living NPC projects. The library is the world (NPCs standing, walking
//! and talking in the scene), the live runtime (the conductor that speaks the agent
//! directory's lines and the one loop that applies its cues), the microphone and what the
//! NPCs hear of the person in front of the player, the screen over the world
//! (subtitles, names, microphone light, help and menu), offscreen frames,
//! the frame record, and the command line around them ([`main`]). It draws with `npc-render`
//! and animates with `npc-core`.

mod agent_sim;
mod bench_render;
mod cli;
mod first_person;
mod frames;
mod hearing;
mod link;
mod live;
mod mic;
mod output;
mod play;
mod plot;
mod progress;
mod record;
mod runtime;
mod screen;
mod window;
mod world;

pub use agent_sim::{
    ANSWER_CONVERSATION, Naming, Script, answer as run_answerer, load_script, run as run_agent_sim,
};
pub use bench_render::{BenchOptions, BenchReport, SpeakingCrowd, run as bench_render};
pub use cli::{main, run_from};
pub use frames::{
    RenderOptions, draw_live_with_screen, draw_world, open as open_offscreen, render,
};
pub use link::{LinkOut, LiveLinkOut, VmcOut};
pub use live::Live;
pub use mic::{Mic, MicChunk, MicFeed, MicMessage, MicSource};
pub use play::{PlayOptions, run as play};
pub use record::Recorder;
pub use runtime::{
    BlockLipSync, Conductor, ConductorOptions, Cue, Feed, LineId, RunOptions,
    START_FROM_SOUND_AFTER_MS, SYNTHESIS_DEADLINE, StreamLipSync, marker_of, run_until,
};
pub use screen::{
    CONTROLS, HINT, MenuChoice, MicLight, NameTag, OverlayFrame, OverlayPainter, Prefs, PrefsStore,
    ScreenChoice, SubtitleLine, help as help_window, menu as menu_window, overlay_frame,
    paint as paint_screen,
};
pub use world::{AvatarModel, FaceWeights, Ground, NpcActor, World, WorldContent};
