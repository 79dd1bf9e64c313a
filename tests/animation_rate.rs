//! Animation level of detail measured against the full rate: NPCs far from the camera animate
//! less often (player/src/world/animation_rate.rs); each of their joints stays within a
//! stated distance of where the same NPC animated every frame would put it, while held and
//! the moment the camera comes near.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use glam::Vec3;
use npc_core::project::demo_project;
use npc_player::World;
use npc_render::MeshStoreBuilder;

fn world(project: &std::path::Path, reduced_rates: bool) -> World {
    let mut world = World::load(project, &mut MeshStoreBuilder::default()).unwrap();
    world.clock_runs = false;
    world.reduced_rates = reduced_rates;
    world
}

/// The farthest any joint of NPC `i` is from its place in `b`, metres.
fn joint_error(a: &World, b: &World, i: usize) -> f32 {
    let (na, nb) = (&a.npcs[i], &b.npcs[i]);
    let (ma, mb) = (na.model(), nb.model());
    na.node_world
        .iter()
        .zip(&nb.node_world)
        .map(|(ja, jb)| {
            let pa = ma.transform_point3(ja.w_axis.truncate());
            let pb = mb.transform_point3(jb.w_axis.truncate());
            pa.distance(pb)
        })
        .fold(0.0, f32::max)
}

/// Most any joint of an NPC may be from its full-rate place in the first frame after the
/// camera comes near (measured 7.7 mm, a walker's), metres.
const NEAR_ERROR_M: f32 = 0.01;

#[test]
fn far_npcs_animated_less_often_stay_near_the_full_rate_pose() {
    let tmp = tempfile::tempdir().unwrap();
    npc_core::procedural::generate::generate(&tmp.path().join("assets")).unwrap();
    let project = tmp.path().join("demo.ron");
    demo_project().save(&project).unwrap();
    let mut reduced = world(&project, true);
    let mut full = world(&project, false);
    let centre = reduced.centre();
    let far = centre + Vec3::new(0.0, 1.7, 40.0);
    let near = centre + Vec3::new(0.0, 1.7, 2.5);
    // One walks; the others stand (breathing, idle life, looking about).
    let walker = reduced.npcs.iter().position(|n| n.id == "Bram").unwrap();
    for w in [&mut reduced, &mut full] {
        w.set_goal("Bram", 0.45, 0.55);
    }
    let dt = 1.0 / 60.0;
    let n = reduced.npcs.len();
    let mut held = vec![0.0_f32; n];
    let mut frames_held = vec![0; n];
    for frame in 0..540 {
        for w in [&mut reduced, &mut full] {
            w.update(dt, far, &|_| 0.0);
        }
        for i in 0..n {
            let e = joint_error(&reduced, &full, i);
            held[i] = held[i].max(e);
            frames_held[i] += usize::from(e > 1e-6);
        }
        let _ = frame;
    }
    for w in [&mut reduced, &mut full] {
        w.update(dt, near, &|_| 0.0);
    }
    let near: Vec<f32> = (0..n).map(|i| joint_error(&reduced, &full, i)).collect();
    for i in 0..n {
        eprintln!(
            "{}: far, held poses up to {:.4} m from the full rate's ({} of 540 frames \
             differ); near at once {:.4} m",
            reduced.npcs[i].id, held[i], frames_held[i], near[i]
        );
    }
    for i in 0..n {
        // 40 m away it animates 15 times a second: three frames in four hold the pose.
        assert!(
            frames_held[i] > 300,
            "{}: {}",
            reduced.npcs[i].id,
            frames_held[i]
        );
        assert!(
            near[i] < NEAR_ERROR_M,
            "{}: {} m",
            reduced.npcs[i].id,
            near[i]
        );
        if i != walker {
            assert!(held[i] < 0.01, "{}: {} m", reduced.npcs[i].id, held[i]);
        }
    }
}
