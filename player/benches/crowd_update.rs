//! Speed of one frame's animation of a speaking crowd (`World::update` alone: bodies with every
//! layer, faces, palettes and morph weights, over all cores), without a GPU: 1000 NPCs of the
//! project's own body and, when ../shared is beside the project, 1000 Quaternius Superhero Male
//! (65 joints, the built-in clips retargeted); then 10,000 of the project's body with the far
//! ones animating at lower rates (the player's default), with every NPC every frame, and at
//! the lower rates without their reduced details.
//! `bench-render` reports the same figure as its "animation" column with a GPU in the loop.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use npc_player::SpeakingCrowd;
use npc_render::DrawList;

const NPCS: usize = 1000;
const BIG_CROWD: usize = 10_000;

/// The demo project and its generated content in `dir`, with every NPC wearing `avatar` (the
/// project's own body when `None`).
fn demo_in(dir: &Path, avatar: Option<&Path>) -> PathBuf {
    npc_core::procedural::generate::generate(&dir.join("assets")).unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo.ron");
    let mut text = std::fs::read_to_string(demo).unwrap();
    if let Some(avatar) = avatar {
        text = text.replace(
            "\"assets/avatar.glb\"",
            &format!("{:?}", avatar.display().to_string()),
        );
    }
    let path = dir.join("crowd.ron");
    std::fs::write(&path, text).unwrap();
    path
}

fn bench_crowd(c: &mut Criterion, name: &str, project: &Path, npcs: usize, reduced_rates: bool) {
    let mut crowd = SpeakingCrowd::new(project, npcs).unwrap();
    crowd.world.reduced_rates = reduced_rates;
    let camera = crowd.camera();
    let mut t_ms = 0.0;
    let name = if reduced_rates {
        name.to_owned()
    } else {
        format!("{name}_full_rate")
    };
    c.bench_function(&format!("crowd_update_{npcs}_{name}"), |b| {
        b.iter(|| {
            t_ms += 1000.0 / 60.0;
            crowd.update(t_ms, camera.position);
        });
    });
    // The draw list of the animated crowd, as bench-render's view sees it (1920x1080, with
    // shadows): culling, levels of detail, palettes, active targets, deform chunks. Timed
    // after each frame's animation (not timed), as a render loop makes it: a list drawn again
    // without the crowd moving would keep every palette it has.
    let view = crowd.world.frame_view(camera, true);
    let mut list = DrawList::default();
    c.bench_function(&format!("crowd_draw_list_{npcs}_{name}"), |b| {
        b.iter_custom(|iterations| {
            let mut spent = Duration::ZERO;
            for _ in 0..iterations {
                t_ms += 1000.0 / 60.0;
                crowd.update(t_ms, camera.position);
                let start = Instant::now();
                crowd
                    .world
                    .draw(crowd.meshes.primitives(), &view, 16.0 / 9.0, &mut list);
                spent += start.elapsed();
            }
            spent
        });
    });
}

fn crowds(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let project = demo_in(dir.path(), None);
    bench_crowd(c, "project_body", &project, NPCS, true);
    let quaternius = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/assets/avatars/Quaternius_Superhero_Male.glb");
    if quaternius.is_file() {
        bench_crowd(
            c,
            "quaternius",
            &demo_in(dir.path(), Some(&quaternius)),
            NPCS,
            true,
        );
    }
    bench_crowd(c, "project_body", &project, BIG_CROWD, true);
    bench_crowd(c, "project_body", &project, BIG_CROWD, false);
    // The lower rates without the reduced details (far faces smoothed in 4 ms steps, the
    // farthest fingers curled): what those details save.
    let mut crowd = SpeakingCrowd::new(&project, BIG_CROWD).unwrap();
    crowd.world.reduced_detail = false;
    let camera = crowd.camera();
    let mut t_ms = 0.0;
    c.bench_function("crowd_update_10000_project_body_full_detail", |b| {
        b.iter(|| {
            t_ms += 1000.0 / 60.0;
            crowd.update(t_ms, camera.position);
        });
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = crowds
}
criterion_main!(benches);
