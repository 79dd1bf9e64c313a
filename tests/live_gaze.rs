//! Over ten simulated minutes of a live conversation in the world (the drawn world's state,
//! not drawn), speakers avert their gaze more than listeners: the speaking flag reaches the
//! faces the player draws.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use std::time::{Duration, Instant};

use common::{world_demo, write_lines};
use npc_core::anim::gaze::GazeState;
use npc_player::Live;
use npc_player::World;
use npc_player::{Conductor, ConductorOptions};
use npc_render::MeshStoreBuilder;

/// Frames in which the face looks away, and all frames, for speakers and for listeners.
#[derive(Debug, Default)]
struct Aversion {
    speaking: (u32, u32),
    listening: (u32, u32),
}

#[test]
fn over_ten_minutes_in_the_world_speakers_avert_their_gaze_more_than_listeners() {
    let d = world_demo();
    let sentences = [
        (
            "Elara",
            "Good morning, Bram. You are up early today, and the bread smells wonderful.",
        ),
        (
            "Bram",
            "The bread will not bake itself, and the miller wants his flour paid for.",
        ),
        (
            "Elara",
            "Save me a loaf for the journey, and I will bring you news from the coast.",
        ),
        (
            "Bram",
            "Two loaves, if you bring back news of the ships and the price of salt.",
        ),
    ];
    let lines: Vec<(&str, &str)> = sentences.iter().cycle().take(180).copied().collect();
    write_lines(&d.agent, &lines);
    let mut meshes = MeshStoreBuilder::default();
    let world = World::load(&d.project, &mut meshes).unwrap();
    let conductor = Conductor::open(
        &world.project,
        &ConductorOptions {
            agent_dir: d.agent.clone(),
            events: None,
            gap_timeout: Duration::from_secs(3),
            synthesis_deadline: npc_player::SYNTHESIS_DEADLINE,
            wait_for_synthesis: true,
            sound: false,
            line_audio: None,
            disk: npc_core::disk::Disk::local(),
        },
    )
    .unwrap();
    let mut live = Live::new(world, Some(conductor));
    let fps = 30;
    let start = Instant::now();
    let mut counts = Aversion::default();
    for frame in 0..10 * 60 * fps {
        let now = start + Duration::from_secs_f64(f64::from(frame + 1) / f64::from(fps));
        let camera = live.world.overview_camera().position;
        live.step(now, 1.0 / fps as f32, camera).unwrap();
        for npc in live.world.npcs.iter().filter(|n| n.id != "Mira") {
            let averted = u32::from(npc.face.gaze_state() == GazeState::Avert);
            let side = if npc.speaking() {
                &mut counts.speaking
            } else {
                &mut counts.listening
            };
            side.0 += averted;
            side.1 += 1;
        }
    }
    let share = |(a, n): (u32, u32)| f64::from(a) / f64::from(n.max(1));
    let (speaking, listening) = (share(counts.speaking), share(counts.listening));
    eprintln!("averted: speaking {speaking:.3}, listening {listening:.3} ({counts:?})");
    assert!(
        counts.speaking.1 > 5 * 60 * fps,
        "too little speech: {counts:?}"
    );
    assert!(
        speaking > listening + 0.05,
        "speakers avert {speaking:.3} of the time, listeners {listening:.3}"
    );
}
