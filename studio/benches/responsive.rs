//! Whether the studio keeps drawing during its longest work: the window's frame times (egui
//! and the 3D view drawn through wgpu, as `egui_kittest` drives them) idle, then while the
//! shape transfer onto a real head (Quaternius) and the alignment of a real recording to its
//! script (CMU ARCTIC a0007) run as jobs, and after them (the new head shown). Prints the
//! median, 95th percentile and worst frame of each; the goal is every frame under 50 ms on the machine's GPU (llvmpipe here is far
//! slower at drawing than any GPU, so its idle figure is the floor).
//!
//! `cargo bench --workspace --bench responsive`

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

#[path = "../../tests/common/shared_asset.rs"]
mod shared_asset;

use std::time::{Duration, Instant};

use egui_kittest::Harness;
use npc_core::project::demo_project;
use npc_studio::app::StudioApp;
use npc_studio::command::Command;
use npc_studio::state::Studio;
use shared_asset::shared_asset;

fn harness(studio: Studio) -> Harness<'static, StudioApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .wgpu()
        .build_eframe(move |_cc| StudioApp::new(studio, None));
    h.run_steps(3);
    h
}

/// The time of one frame.
fn frame(h: &mut Harness<'_, StudioApp>) -> Duration {
    let start = Instant::now();
    h.step();
    start.elapsed()
}

fn report(what: &str, mut times: Vec<Duration>) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "{what}: {} frames, median {:.1} ms, 95th percentile {:.1} ms, worst {:.1} ms",
        times.len(),
        at(0.5).as_secs_f64() * 1e3,
        at(0.95).as_secs_f64() * 1e3,
        at(1.0).as_secs_f64() * 1e3,
    );
}

fn main() {
    let (Some(head), Some(wav)) = (
        shared_asset("avatars/Quaternius_Superhero_Male.glb"),
        shared_asset("speech/arctic_a0007.wav"),
    ) else {
        println!("responsive: NOT RUN, the shared avatars or recording are missing");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let project_file = dir.path().join("p.ron");
    let mut project = demo_project();
    project.npcs[0].avatar.body = head;
    project.save(&project_file).unwrap();
    let project = npc_core::project::Project::load(&project_file).unwrap();
    let mut h = harness(Studio::new(project, Some(project_file)));
    report("idle", (0..30).map(|_| frame(&mut h)).collect());

    let studio = &mut h.state_mut().studio;
    studio.apply(Command::SetLineText(
        "And you always want to see it in the superlative degree.".to_owned(),
    ));
    studio.apply(Command::SetAlignToText(true));
    studio.apply(Command::TransferShapes(dir.path().join("hero.glb")));
    studio.apply(Command::OpenWav(wav));
    let start = Instant::now();
    let mut busy = Vec::new();
    // The slowest frame, its number and the work that ended (was applied) in it.
    let mut slowest = (Duration::ZERO, 0, Vec::new());
    let working = |h: &Harness<'_, StudioApp>| {
        let mut jobs: Vec<String> = h
            .state()
            .studio
            .jobs()
            .iter()
            .map(|(what, _)| (*what).to_owned())
            .collect();
        if h.state().reading_head() {
            jobs.push("reading the new head".to_owned());
        }
        jobs
    };
    let mut before = working(&h);
    while !before.is_empty() && start.elapsed() < Duration::from_secs(300) {
        let t = frame(&mut h);
        let after = working(&h);
        if t > slowest.0 {
            let ended = before.iter().filter(|j| !after.contains(j)).cloned();
            slowest = (t, busy.len(), ended.collect());
        }
        busy.push(t);
        before = after;
    }
    println!(
        "the transfer and the alignment ran {:.1} s",
        start.elapsed().as_secs_f64()
    );
    println!(
        "the slowest was frame {} of {} ({:.1} ms; work that ended in it: {:?})",
        slowest.1 + 1,
        busy.len(),
        slowest.0.as_secs_f64() * 1e3,
        slowest.2
    );
    report("while they ran", busy);
    report("after", (0..10).map(|_| frame(&mut h)).collect());
}
