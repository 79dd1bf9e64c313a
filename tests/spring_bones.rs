//! Spring bones on real avatars (fetched by scripts/setup.sh): a VRoid-made one (suzuha.vrm,
//! VRM 0.x `secondaryAnimation`) and a UniVRM-made one (AliciaSolid.vrm, VRM 1.0
//! `VRMC_springBone`): their springs and colliders are read, and their hair and skirts trail
//! the NPC's motion, stay out of their colliders, and rest where the pose puts them once it
//! stands still; in the live world `body.spring_bones: false` keeps them rigid.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use glam::{Mat4, Vec3};
use npc_core::asset::Asset;
use npc_core::asset::spring_bones::ColliderShape;
use npc_core::body::Skeleton;
use npc_core::body::spring::{SpringRig, SpringState};

/// The world positions of every spring joint's node with the model at `place(t)`, played at
/// `fps` for `seconds`; the last frame's.
fn play(
    asset: &Asset,
    rig: &SpringRig,
    place: impl Fn(f32) -> Vec3,
    fps: f32,
    seconds: f32,
) -> Vec<Mat4> {
    let skeleton = Skeleton::of(asset);
    let mut state = SpringState::default();
    let frames = (seconds * fps).round() as u32;
    let mut world = Vec::new();
    for f in 0..=frames {
        let model = Mat4::from_translation(place(f as f32 / fps));
        let mut locals = skeleton.rest.clone();
        skeleton.world_into(&locals, &mut world);
        let dt = if f == 0 { 0.0 } else { 1.0 / fps };
        rig.update(&mut state, model, &mut locals, &mut world, dt);
        skeleton.world_into(&locals, &mut world);
        world.iter_mut().for_each(|w| *w = model * *w);
    }
    world
}

/// What a file declares of its springs: colliders, collider groups, at least this many chains
/// and simulated joints.
struct Declared {
    colliders: usize,
    groups: usize,
    chains: usize,
    joints: usize,
}

#[test]
fn a_vroid_avatars_hair_trails_its_motion_and_keeps_out_of_its_colliders() {
    // VRM 0.x: 18 bone groups, 24 roots; 10 collider groups of 22 spheres.
    trails_its_motion_and_keeps_out_of_its_colliders(
        "a_vroid_avatars_hair_trails_its_motion_and_keeps_out_of_its_colliders",
        "suzuha.vrm",
        &Declared {
            colliders: 22,
            groups: 10,
            chains: 24,
            joints: 50,
        },
    );
}

#[test]
fn a_vrm1_avatars_hair_and_skirt_trail_its_motion_and_keep_out_of_its_colliders() {
    // VRM 1.0: 18 springs (hair, ribbons, braid, skirt) of 66 joints; 6 collider groups of 14
    // spheres.
    trails_its_motion_and_keeps_out_of_its_colliders(
        "a_vrm1_avatars_hair_and_skirt_trail_its_motion_and_keep_out_of_its_colliders",
        "AliciaSolid.vrm",
        &Declared {
            colliders: 14,
            groups: 6,
            chains: 18,
            joints: 45,
        },
    );
}

fn trails_its_motion_and_keeps_out_of_its_colliders(test: &str, file: &str, declared: &Declared) {
    let Some(path) = common::vrm_avatar(file) else {
        eprintln!("{test}: NOT RUN, no {file}");
        return;
    };
    let asset = Asset::load(&path).unwrap();
    let springs = &asset.spring_bones;
    assert_eq!(springs.colliders.len(), declared.colliders);
    assert_eq!(springs.groups.len(), declared.groups);
    assert!(
        springs.chains.len() >= declared.chains,
        "{} chains",
        springs.chains.len()
    );
    let skeleton = Skeleton::of(&asset);
    let rig = SpringRig::new(springs, &skeleton);
    eprintln!(
        "{file}: {} chains, {} joints simulated",
        springs.chains.len(),
        rig.joint_count()
    );
    assert!(rig.joint_count() > declared.joints);
    let joints: Vec<usize> = springs
        .chains
        .iter()
        .flat_map(|c| c.joints.iter().map(|j| j.node))
        .collect();
    let tips = |world: &[Mat4]| -> Vec<Vec3> {
        joints.iter().map(|&j| world[j].w_axis.truncate()).collect()
    };
    // Standing still: the springs rest near the pose (gravity may pull some a little).
    let still = tips(&play(&asset, &rig, |_| Vec3::ZERO, 60.0, 3.0));
    let rest: Vec<Vec3> = tips(&skeleton.rest_world());
    let settled = still
        .iter()
        .zip(&rest)
        .map(|(a, b)| a.distance(*b))
        .fold(0.0f32, f32::max);
    eprintln!("standing still, the springs' joints are at most {settled:.3} m from the pose");
    assert!(settled < 0.05);
    // Walking off quickly toward +Z (1.5 m/s) then: the hair trails behind (-Z) the pose.
    let walk = |t: f32| Vec3::Z * 1.5 * t;
    let moving = tips(&play(&asset, &rig, walk, 60.0, 0.5));
    let lag: f32 = moving
        .iter()
        .zip(&rest)
        .map(|(m, r)| (r.z + walk(0.5).z) - m.z)
        .sum::<f32>()
        / joints.len() as f32;
    eprintln!("walking, the springs' joints trail the pose by {lag:.3} m on average");
    assert!(lag > 0.003, "lag {lag}");
    // No joint ends inside a collider it keeps out of (with the joint's own radius, 1 mm
    // slack), in either run.
    let world = play(&asset, &rig, walk, 60.0, 0.5);
    for chain in &springs.chains {
        for &g in &chain.collider_groups {
            for &c in &springs.groups[g] {
                let collider = springs.colliders[c];
                let ColliderShape::Sphere { offset, radius } = collider.shape else {
                    continue;
                };
                let centre = world[collider.node].transform_point3(offset);
                for pair in chain.joints.windows(2) {
                    let tail = world[pair[1].node].w_axis.truncate();
                    let gap = tail.distance(centre) - radius - pair[0].hit_radius;
                    assert!(
                        gap > -0.001,
                        "{}: joint {} is {gap} m inside collider {c}",
                        chain.name,
                        pair[1].node
                    );
                }
            }
        }
    }
}

#[test]
fn the_world_swings_a_vrm_avatars_springs_unless_the_project_turns_them_off() {
    use npc_player::World;
    use npc_render::MeshStoreBuilder;
    let Some(path) = common::vrm_avatar("suzuha.vrm") else {
        eprintln!(
            "the_world_swings_a_vrm_avatars_springs_unless_the_project_turns_them_off: NOT RUN, no suzuha.vrm"
        );
        return;
    };
    for on in [true, false] {
        let d = common::world_demo().with_elara_as(&path);
        let mut project = npc_core::project::Project::load(&d.project).unwrap();
        project.body.spring_bones = on;
        project.save(&d.project).unwrap();
        let mut meshes = MeshStoreBuilder::default();
        let mut world = World::load(&d.project, &mut meshes).unwrap();
        let i = world.npc_index("Elara").unwrap();
        let joints = world.content.avatars[world.npcs[i].avatar]
            .springs
            .joint_count();
        assert!(joints > 0, "spring_bones {on}: {joints} joints");
        // Sent walking, her springs turn away from where the pose puts them (or not).
        let goal = world.npcs[i].position + Vec3::new(3.0, 0.0, 0.0);
        world.npcs[i].goal = goal;
        let mut turned = 0.0f32;
        for _ in 0..20 {
            world.update(1.0 / 30.0, Vec3::new(0.0, 1.7, 10.0), &|_| 0.0);
            let npc = &world.npcs[i];
            let avatar = &world.content.avatars[npc.avatar];
            // The clips leave the hair as it rests in its parent: any turn is the springs'.
            for chain in &avatar.body.asset.spring_bones.chains {
                let j = chain.joints[0].node;
                let (now, was) = (
                    npc.body.locals[j].rotation,
                    avatar.skeleton.rest[j].rotation,
                );
                turned = turned.max(now.angle_between(was));
            }
        }
        assert_eq!(turned > 0.01, on, "spring_bones {on}: turned {turned} rad");
    }
}

/// Two of suzuha's hair strands named in the project as a user names the chains of a rig
/// without VRM spring bones (the file's own chains set aside): the named chains alone swing,
/// hang under the gravity the project gives them, trail a walk, and reach the live world.
#[test]
fn chains_named_in_the_project_swing_in_place_of_the_files_own() {
    use npc_core::body::{NamedSprings, avatar_springs};
    let Some(path) = common::vrm_avatar("suzuha.vrm") else {
        return;
    };
    let asset = Asset::load(&path).unwrap();
    let skeleton = Skeleton::of(&asset);
    let strand = |id: &str| {
        format!("035b16596f269853112e4d6c99bd5aee3c69447b.transferable_HairJoint-{id}-1")
    };
    let named = |gravity: f32| -> NamedSprings {
        ron::from_str(&format!(
            r#"(chains: [(root: "{}", gravity: {gravity}), (root: "{}", gravity: {gravity})],
                colliders: [(joint: "J_Bip_C_Head", offset: (0.0, 0.08, 0.0), radius: 0.09)])"#,
            strand("0b80988a2e7f4c03876a2f848c5cf396"),
            strand("ab06387547ad45c0b906e617f2315160"),
        ))
        .unwrap()
    };
    let (bones, problems) = avatar_springs(&asset.spring_bones, Some(&named(0.0)), &skeleton);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(bones.chains.len(), 2);
    let rig = SpringRig::new(&bones, &skeleton);
    // Each strand is three joints: the first two turn, the end one is the tip.
    assert_eq!(rig.joint_count(), 4);
    let tips: Vec<usize> = bones
        .chains
        .iter()
        .map(|c| match c.tip {
            npc_core::asset::spring_bones::SpringTip::Node(n) => n,
            other => panic!("{other:?}"),
        })
        .collect();
    let rest = skeleton.rest_world();
    let at = |world: &[Mat4]| -> Vec<Vec3> {
        tips.iter().map(|&t| world[t].w_axis.truncate()).collect()
    };
    // Still and without gravity: at the pose. With gravity 2: lower.
    let still = at(&play(&asset, &rig, |_| Vec3::ZERO, 60.0, 2.0));
    let (heavy, _) = avatar_springs(&asset.spring_bones, Some(&named(2.0)), &skeleton);
    let heavy_rig = SpringRig::new(&heavy, &skeleton);
    let hung = at(&play(&asset, &heavy_rig, |_| Vec3::ZERO, 60.0, 2.0));
    for ((s, h), r) in still.iter().zip(&hung).zip(at(&rest)) {
        eprintln!("named strand tip: rest {r}, still {s}, under gravity {h}");
        assert!(s.distance(r) < 0.01, "still {s} rest {r}");
        assert!(h.y < r.y - 0.005, "under gravity {h} rest {r}");
    }
    // Walking toward +Z: the strands trail behind the pose.
    let walk = |t: f32| Vec3::Z * 1.5 * t;
    let moving = at(&play(&asset, &rig, walk, 60.0, 0.5));
    for (m, r) in moving.iter().zip(at(&rest)) {
        assert!(r.z + walk(0.5).z - m.z > 0.003, "walking {m} rest {r}");
    }
    // In the live world, the project's chains are the avatar's.
    use npc_player::World;
    use npc_render::MeshStoreBuilder;
    let d = common::world_demo().with_elara_as(&path);
    let mut project = npc_core::project::Project::load(&d.project).unwrap();
    for npc in project.npcs.iter_mut().filter(|n| n.id == "Elara") {
        npc.avatar.springs = Some(named(0.5));
    }
    project.save(&d.project).unwrap();
    let world = World::load(&d.project, &mut MeshStoreBuilder::default()).unwrap();
    let i = world.npc_index("Elara").unwrap();
    let avatar = &world.content.avatars[world.npcs[i].avatar];
    assert_eq!(avatar.springs.joint_count(), 4);
}
