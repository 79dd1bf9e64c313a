//! The renderer on the machine's Vulkan adapter (software Vulkan in CI), drawing the player's
//! world: GPU morphing and skinning match the CPU, and frames of the demo show what they should.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use glam::Vec3;
use image::RgbaImage;
use npc_core::asset::Asset;
use npc_core::asset::Transform;
use npc_core::asset::lod::{lod_indices, nested_levels};
use npc_core::asset::material::Material;
use npc_core::asset::mesh::Primitive;
use npc_core::asset::scene::Node;
use npc_core::asset::writer::GlbWriter;
use npc_core::project::demo_project;
use npc_core::{ArkitTarget, Pose};
use npc_player::World;
use npc_player::{draw_world, open_offscreen};
use npc_render::Headless;
use npc_render::deformed_positions;
use npc_render::{Camera, DepthPrepass, DrawList, MeshStoreBuilder, Surface};

/// A temp folder holding the demo project and its generated assets.
struct Demo {
    _tmp: tempfile::TempDir,
    project: PathBuf,
}

fn demo() -> Demo {
    let tmp = tempfile::tempdir().unwrap();
    npc_core::procedural::generate::generate(&tmp.path().join("assets")).unwrap();
    let project = tmp.path().join("demo.ron");
    demo_project().save(&project).unwrap();
    Demo { _tmp: tmp, project }
}

fn open(project: &Path, w: u32, h: u32) -> (World, Headless) {
    open_offscreen(project, Some(7), (w, h), 4)
        .expect("a Vulkan adapter (mesa-vulkan-drivers in CI)")
}

fn luminance(p: &image::Rgba<u8>) -> f64 {
    0.2126 * f64::from(p[0]) + 0.7152 * f64::from(p[1]) + 0.0722 * f64::from(p[2])
}

fn mean_luminance(image: &RgbaImage) -> f64 {
    image.pixels().map(luminance).sum::<f64>() / f64::from(image.width() * image.height())
}

/// Mean luminance of a square patch around pixel (x, y).
fn patch(image: &RgbaImage, x: i64, y: i64, r: i64) -> f64 {
    let mut sum = 0.0;
    let mut n = 0.0;
    for dy in -r..=r {
        for dx in -r..=r {
            let (px, py) = (x + dx, y + dy);
            if px >= 0 && py >= 0 && (px as u32) < image.width() && (py as u32) < image.height() {
                sum += luminance(image.get_pixel(px as u32, py as u32));
                n += 1.0;
            }
        }
    }
    sum / n
}

/// The store ids of the demo avatar's primitives.
fn avatar_primitives(world: &World) -> std::collections::HashSet<u32> {
    world.content.avatars[0]
        .body
        .stored
        .meshes
        .iter()
        .flatten()
        .copied()
        .collect()
}

/// Pixels of a square window around (x, y) where any channel differs by more than 24.
fn changed_pixels(a: &RgbaImage, b: &RgbaImage, x: i64, y: i64, r: i64) -> usize {
    let mut n = 0;
    for dy in -r..=r {
        for dx in -r..=r {
            let (px, py) = (x + dx, y + dy);
            if px < 0 || py < 0 || px as u32 >= a.width() || py as u32 >= a.height() {
                continue;
            }
            let (p, q) = (
                a.get_pixel(px as u32, py as u32),
                b.get_pixel(px as u32, py as u32),
            );
            if (0..3).any(|c| p[c].abs_diff(q[c]) > 24) {
                n += 1;
            }
        }
    }
    n
}

/// Pixel of a world point seen by `camera` in an image of `w` x `h`.
fn project(camera: &Camera, w: u32, h: u32, p: Vec3) -> (i64, i64) {
    let ndc = camera.view_proj(w as f32 / h as f32).project_point3(p);
    (
        ((ndc.x * 0.5 + 0.5) * w as f32) as i64,
        ((0.5 - ndc.y * 0.5) * h as f32) as i64,
    )
}

#[test]
fn gpu_morphing_and_skinning_match_the_cpu() {
    let demo = demo();
    let (mut world, mut headless) = open(&demo.project, 64, 64);
    // A posed frame: walk a little so joints move, and set a mix of face targets.
    world.set_goal("Elara", 0.6, 0.6);
    for _ in 0..20 {
        world.update(1.0 / 30.0, Vec3::new(0.0, 1.7, 8.0), &|_| 0.0);
    }
    let npc = &mut world.npcs[0];
    let avatar = &world.content.avatars[npc.avatar];
    let pose = Pose::from_pairs(&[
        (ArkitTarget::JawOpen, 0.8),
        (ArkitTarget::MouthSmileLeft, 0.5),
        (ArkitTarget::EyeBlinkRight, 1.0),
        (ArkitTarget::MouthFunnel, 0.3),
    ]);
    npc.weights.edit(|w| avatar.face_rig().apply(&pose, w));
    let mut list = DrawList::default();
    let view = world.frame_view(world.closeup_camera("Elara").unwrap(), true);
    world.draw(&headless.renderer.store.primitives, &view, 1.0, &mut list);
    headless.draw_list(&list, &view).unwrap();

    // The face mesh: the avatar mesh with the most targets.
    let npc = &world.npcs[0];
    let avatar = &world.content.avatars[npc.avatar];
    let asset = &avatar.body.asset;
    let (mesh_index, mesh) = asset
        .meshes
        .iter()
        .enumerate()
        .max_by_key(|(_, m)| m.target_count())
        .unwrap();
    let prim_id = avatar.body.stored.meshes[mesh_index][0];
    let gpu_prim = headless.renderer.store.primitives[prim_id as usize];
    // Elara is the only NPC in view: her object is the first of the primitive's main batch.
    let batch = list
        .batches
        .iter()
        .find(|b| b.primitive == prim_id)
        .unwrap();
    let object = list.objects[batch.first_object as usize];
    assert!(
        object.morph_count >= 4,
        "active targets: {}",
        object.morph_count
    );
    let gpu = deformed_positions(
        &headless.gpu,
        &headless.renderer,
        batch.first_object,
        gpu_prim.vertex_base,
        gpu_prim.vertex_count,
    )
    .unwrap();

    // CPU reference straight from the asset.
    let p = &mesh.primitives[0];
    let weights = &npc.weights.per_mesh()[mesh_index];
    let palette = &npc.palettes[0];
    let model = npc.model();
    assert_eq!(gpu.len(), p.positions.len());
    // The store numbers a primitive's vertices coarse levels first.
    let order = nested_levels(p.positions.len(), &lod_indices(&p.positions, &p.indices)).order;
    let mut worst = 0.0_f32;
    let mut moved = 0;
    for (&v, gpu_position) in order.iter().zip(&gpu) {
        let v = v as usize;
        let mut pos = Vec3::from(p.positions[v]);
        for (t, target) in p.targets.iter().enumerate() {
            pos += weights[t] * Vec3::from(target.positions[v]);
        }
        if pos != Vec3::from(p.positions[v]) {
            moved += 1;
        }
        let j = p.joints[v];
        let w = p.weights[v];
        let skin = palette[j[0] as usize] * w[0]
            + palette[j[1] as usize] * w[1]
            + palette[j[2] as usize] * w[2]
            + palette[j[3] as usize] * w[3];
        let cpu = model.transform_point3(skin.transform_point3(pos));
        worst = worst.max((cpu - *gpu_position).length());
    }
    assert!(moved > 100, "the pose moved only {moved} vertices");
    assert!(worst < 1e-4, "GPU and CPU differ by up to {worst} m");
}

#[test]
fn the_demo_renders_a_scene_not_a_blank_frame() {
    let demo = demo();
    let (mut world, mut headless) = open(&demo.project, 320, 180);
    world.update(1.0 / 30.0, Vec3::ZERO, &|_| 0.0);
    let view = world.frame_view(world.overview_camera(), true);
    let image = draw_world(&mut headless, &world, &view).unwrap();
    let mut colours = std::collections::HashSet::new();
    for p in image.pixels() {
        colours.insert([p[0] / 8, p[1] / 8, p[2] / 8]);
    }
    assert!(colours.len() > 200, "only {} colours", colours.len());
    // Sky at the top (blue over red), ground at the bottom (green over blue).
    let top = image.get_pixel(160, 5);
    let bottom = image.get_pixel(160, 175);
    assert!(top[2] > top[0], "top {top:?}");
    assert!(bottom[1] > bottom[2], "bottom {bottom:?}");
    // Every NPC is drawn: around its head the frame differs from one of the scene alone.
    let mut list = DrawList::default();
    world.draw(
        &headless.renderer.store.primitives,
        &view,
        320.0 / 180.0,
        &mut list,
    );
    let avatar_primitives = avatar_primitives(&world);
    assert!(
        list.batches
            .iter()
            .any(|b| avatar_primitives.contains(&b.primitive))
    );
    let mut scene_only = list.clone();
    scene_only
        .batches
        .retain(|b| !avatar_primitives.contains(&b.primitive));
    let empty = headless.draw_list(&scene_only, &view).unwrap();
    for npc in &world.npcs {
        let avatar = &world.content.avatars[npc.avatar];
        let (x, y) = project(&view.camera, 320, 180, npc.head_position(avatar));
        let changed = changed_pixels(&image, &empty, x, y, 2);
        assert!(
            changed >= 4,
            "{} not drawn at ({x}, {y}): {changed} pixels differ",
            npc.id
        );
    }
}

#[test]
fn laying_the_depth_down_first_draws_the_same_frame() {
    let demo = demo();
    let (mut world, mut headless) = open(&demo.project, 320, 180);
    world.update(1.0 / 30.0, Vec3::ZERO, &|_| 0.0);
    let view = world.frame_view(world.overview_camera(), true);
    let mut list = DrawList::default();
    world.draw(
        &headless.renderer.store.primitives,
        &view,
        320.0 / 180.0,
        &mut list,
    );
    let primitives = &headless.renderer.store.primitives;
    let masked = list
        .batches
        .iter()
        .filter(|b| b.passes.main && primitives[b.primitive as usize].surface == Surface::Masked)
        .count();
    assert!(masked > 0, "no alpha-masked surface in view");
    let mut frames = Vec::new();
    for prepass in [DepthPrepass::Off, DepthPrepass::Masked, DepthPrepass::All] {
        headless
            .renderer
            .set_depth_prepass(&headless.gpu.device, prepass);
        // The target keeps what the last frame left where nothing is drawn: the sky alone
        // first, so a surface left unshaded shows.
        headless.draw_list(&DrawList::default(), &view).unwrap();
        frames.push((prepass, draw_world(&mut headless, &world, &view).unwrap()));
    }
    let (_, off) = &frames[0];
    for (prepass, image) in &frames[1..] {
        // Shading tested `Equal` against depth another pipeline wrote: a vertex placed even a
        // little differently leaves surfaces unshaded (the masked grass alone is a few hundred
        // pixels of this frame).
        let differ = off
            .pixels()
            .zip(image.pixels())
            .filter(|(a, b)| (0..3).any(|c| a[c].abs_diff(b[c]) > 24))
            .count();
        assert!(
            differ <= 16,
            "{prepass:?}: {differ} pixels differ from the frame drawn without a depth prepass"
        );
    }
}

#[test]
fn a_closeup_with_the_jaw_open_differs_in_the_mouth_region() {
    let demo = demo();
    let (w, h) = (320, 240);
    let (mut world, mut headless) = open(&demo.project, w, h);
    world.update(1.0 / 30.0, Vec3::ZERO, &|_| 0.0);
    let camera = world.closeup_camera("Elara").unwrap();
    let view = world.frame_view(camera, true);
    let mut frame = |jaw: f32, world: &mut World| {
        let npc = &mut world.npcs[0];
        let avatar = &world.content.avatars[npc.avatar];
        let pose = Pose::from_pairs(&[(ArkitTarget::JawOpen, jaw)]);
        npc.weights.edit(|w| avatar.face_rig().apply(&pose, w));
        draw_world(&mut headless, world, &view).unwrap()
    };
    let closed = frame(0.0, &mut world);
    let open = frame(1.0, &mut world);
    let (mut inside, mut outside) = (0, 0);
    for y in 0..h {
        for x in 0..w {
            let a = closed.get_pixel(x, y);
            let b = open.get_pixel(x, y);
            if (luminance(a) - luminance(b)).abs() > 12.0 {
                let mouth =
                    (w * 3 / 10..w * 7 / 10).contains(&x) && (h / 2..h * 9 / 10).contains(&y);
                if mouth { inside += 1 } else { outside += 1 }
            }
        }
    }
    assert!(
        inside > 300,
        "only {inside} pixels changed in the mouth region"
    );
    assert!(
        inside > 5 * outside,
        "{inside} changed inside, {outside} outside"
    );
}

#[test]
fn shadows_darken_the_ground_beside_an_npc_and_night_is_darker_than_noon() {
    let demo = demo();
    let (w, h) = (320, 240);
    let (mut world, mut headless) = open(&demo.project, w, h);
    world.clock_runs = false;
    world.time_of_day = 0.5;
    world.update(1.0 / 30.0, Vec3::ZERO, &|_| 0.0);
    let npc = &world.npcs[0];
    let camera = Camera::looking_at(npc.position + Vec3::new(0.5, 3.5, 3.5), npc.position);
    let on = world.frame_view(camera, true);
    let off = world.frame_view(camera, false);
    let with = draw_world(&mut headless, &world, &on).unwrap();
    let without = draw_world(&mut headless, &world, &off).unwrap();
    // Where the torso's shadow falls at noon: away from the light, about 0.5 m out.
    let l = on.daylight.light_direction;
    let away = Vec3::new(-l.x, 0.0, -l.z).normalize() * (1.1 * (1.0 - l.y * l.y).sqrt() / l.y);
    let mut spot = npc.position + away;
    spot.y = world.content.ground.height(spot.x, spot.z);
    let (x, y) = project(&camera, w, h, spot);
    let lit = patch(&without, x, y, 2);
    let shaded = patch(&with, x, y, 2);
    assert!(
        shaded < 0.8 * lit,
        "shadow {shaded:.1} vs lit {lit:.1} at ({x}, {y})"
    );
    // Shadows only take light away.
    assert!(mean_luminance(&with) < mean_luminance(&without));

    let noon = mean_luminance(
        &draw_world(
            &mut headless,
            &world,
            &world.frame_view(world.overview_camera(), true),
        )
        .unwrap(),
    );
    world.time_of_day = 0.0;
    let night = mean_luminance(
        &draw_world(
            &mut headless,
            &world,
            &world.frame_view(world.overview_camera(), true),
        )
        .unwrap(),
    );
    assert!(night < 0.5 * noon, "night {night:.1}, noon {noon:.1}");
}

#[test]
fn an_instanced_mesh_draws_every_instance() {
    // One red cube placed 64 times (EXT_mesh_gpu_instancing) on an 8 x 8 grid.
    let grid: Vec<Vec3> = (0..64)
        .map(|i| Vec3::new((i % 8) as f32 * 2.0 - 7.0, 0.0, (i / 8) as f32 * 2.0 - 7.0))
        .collect();
    let red = Material {
        base_color: [0.9, 0.05, 0.05, 1.0],
        ..Material::default()
    };
    let asset = cubes(&[(red, grid.clone())]);
    assert_eq!(asset.instances[0].transforms.len(), 64);
    let (w, h) = (256, 256);
    let (mut headless, list) = draw_cubes(&asset, w, h);
    assert_eq!(list.batches.len(), 1, "one instanced draw");
    let camera = Camera::looking_at(Vec3::new(0.0, 20.0, 0.01), Vec3::ZERO);
    let view = cube_view(camera);
    let image = headless.draw_list(&list, &view).unwrap();
    for (i, &c) in grid.iter().enumerate() {
        let (x, y) = project(&camera, w, h, c + Vec3::Y * 0.4);
        let p = image.get_pixel(x as u32, y as u32);
        assert!(
            u16::from(p[0]) > 2 * u16::from(p[1]).max(10) && p[0] > 60,
            "instance {i} at ({x}, {y}) is not drawn: {p:?}"
        );
    }
}

#[test]
fn npcs_out_of_view_cast_shadows_but_are_not_drawn_and_far_ones_use_coarser_triangles() {
    let demo = demo();
    let (mut world, headless) = open(&demo.project, 64, 64);
    world.update(1.0 / 30.0, Vec3::ZERO, &|_| 0.0);
    let primitives = &headless.renderer.store.primitives;
    let avatar_primitives = avatar_primitives(&world);
    let npc_objects = |list: &DrawList, main: bool| -> u32 {
        list.batches
            .iter()
            .filter(|b| avatar_primitives.contains(&b.primitive))
            .filter(|b| if main { b.passes.main } else { b.passes.shadow })
            .map(|b| b.count)
            .sum()
    };
    let per_npc = world.content.avatars[0]
        .body
        .stored
        .meshes
        .iter()
        .map(Vec::len)
        .sum::<usize>() as u32;
    // A close-up sees one NPC; the shadow reaches all three.
    let mut list = DrawList::default();
    let view = world.frame_view(world.closeup_camera("Elara").unwrap(), true);
    world.draw(primitives, &view, 1.0, &mut list);
    assert_eq!(npc_objects(&list, true), per_npc);
    assert_eq!(npc_objects(&list, false), 3 * per_npc);
    // Without shadows, nothing is drawn for the shadow pass.
    let view = world.frame_view(world.closeup_camera("Elara").unwrap(), false);
    world.draw(primitives, &view, 1.0, &mut list);
    assert_eq!(npc_objects(&list, false), 0);
    // From 30 m away every NPC is drawn at the silhouette level, from 80 m at the distant
    // silhouette (this avatar's silhouette is already about as coarse as its shape allows:
    // tests/distant_silhouette.rs checks real avatars' triangles).
    let centre = world.centre();
    let mut triangles = Vec::new();
    for (metres, level) in [(30.0, 3), (80.0, 4)] {
        let far = Camera::looking_at(centre + Vec3::new(0.0, 2.0, metres), centre);
        let view = world.frame_view(far, true);
        world.draw(primitives, &view, 1.0, &mut list);
        // Without the parts too small for a silhouette (irises, pupils).
        let silhouette_parts = world.content.avatars[0]
            .body
            .stored
            .meshes
            .iter()
            .flatten()
            .filter(|&&id| primitives[id as usize].lods[3].count > 0)
            .count() as u32;
        assert!(
            (per_npc / 2..per_npc).contains(&silhouette_parts),
            "{silhouette_parts} of {per_npc}"
        );
        assert_eq!(npc_objects(&list, true), 3 * silhouette_parts);
        let lods: std::collections::HashSet<u8> = list
            .batches
            .iter()
            .filter(|b| avatar_primitives.contains(&b.primitive) && b.passes.main)
            .map(|b| b.lod)
            .collect();
        assert_eq!(lods, [level].into_iter().collect());
        let mut npcs_only = list.clone();
        npcs_only
            .batches
            .retain(|b| avatar_primitives.contains(&b.primitive));
        triangles.push(npc_render::triangles_drawn(&npcs_only, primitives)[0]);
    }
    assert!(
        triangles[1] <= triangles[0],
        "triangles at the silhouette and the distant silhouette: {triangles:?}"
    );
    let face = list
        .batches
        .iter()
        .filter(|b| avatar_primitives.contains(&b.primitive))
        .map(|b| primitives[b.primitive as usize])
        .max_by_key(|p| p.lods[0].count)
        .unwrap();
    assert!(
        face.lods[2].count * 4 < face.lods[0].count,
        "{:?}",
        face.lods
    );
}

/// A draw list used frame after frame keeps the palettes of NPCs not animated since the last
/// frame instead of writing them again; what it holds must be what a new list gets.
#[test]
fn a_draw_list_kept_from_frame_to_frame_holds_the_palettes_a_new_one_gets() {
    let demo = demo();
    let (mut world, headless) = open(&demo.project, 64, 64);
    let primitives = &headless.renderer.store.primitives;
    let centre = world.centre();
    let view = world.frame_view(
        Camera::looking_at(centre + Vec3::new(0.0, 1.5, 6.0), centre),
        true,
    );
    let mut kept = DrawList::default();
    let mut last: Option<Vec<[[f32; 4]; 3]>> = None;
    for frame in 0..6 {
        // Animated every other frame: the frames between draw the same poses again.
        if frame % 2 == 0 {
            world.update(1.0 / 30.0, Vec3::ZERO, &|_| 0.0);
        }
        world.draw(primitives, &view, 1.0, &mut kept);
        let mut fresh = DrawList::default();
        world.draw(primitives, &view, 1.0, &mut fresh);
        assert!(!fresh.palette().is_empty());
        assert_eq!(kept.palette(), fresh.palette(), "frame {frame}");
        if frame % 2 == 0
            && let Some(before) = &last
        {
            assert_ne!(
                before.as_slice(),
                fresh.palette(),
                "frame {frame} moved nothing"
            );
        }
        last = Some(fresh.palette().to_vec());
    }
}

#[test]
fn a_far_npc_deformed_only_for_its_level_looks_as_one_deformed_in_full() {
    let demo = demo();
    let (mut world, mut headless) = open(&demo.project, 96, 128);
    world.set_goal("Elara", 0.6, 0.6);
    for _ in 0..20 {
        world.update(1.0 / 30.0, Vec3::new(0.0, 1.7, 8.0), &|_| 0.0);
    }
    let view = world.frame_view(world.body_camera("Elara").unwrap(), true);
    let coarsest = npc_render::LOD_COUNT as u8 - 1;
    // Near: every vertex deformed. Drawn at the coarsest level, from the prefix of the
    // vertices that level uses only, and from all of them.
    let mut full = DrawList::default();
    world.draw(
        &headless.renderer.store.primitives,
        &view,
        96.0 / 128.0,
        &mut full,
    );
    for b in &mut full.batches {
        b.lod = coarsest;
        b.shadow_lod = coarsest;
    }
    let mut prefix = full.clone();
    let primitives = &headless.renderer.store.primitives;
    let mut skipped = 0;
    for b in &full.batches {
        let p = primitives[b.primitive as usize];
        for o in &mut prefix.objects[b.first_object as usize..][..b.count as usize] {
            if o.deformed_base != u32::MAX {
                skipped += o.deformed_count - p.lod_vertices[usize::from(coarsest)];
                o.deformed_count = p.lod_vertices[usize::from(coarsest)];
            }
        }
    }
    assert!(skipped > 1000, "only {skipped} vertices left undeformed");
    // The prefix first, on a device whose deformed vertices no frame has written before.
    let from_prefix = headless.draw_list(&prefix, &view).unwrap();
    let from_all = headless.draw_list(&full, &view).unwrap();
    let nothing = headless.draw_list(&DrawList::default(), &view).unwrap();
    let elara = changed_pixels(&from_all, &nothing, 48, 64, 48);
    assert!(elara > 500, "Elara covers only {elara} pixels");
    assert_eq!(changed_pixels(&from_prefix, &from_all, 48, 64, 64), 0);
}

#[test]
fn ten_thousand_npcs_are_all_drawn_within_the_deform_budget_at_coarser_levels() {
    let demo = demo();
    let mut crowd = npc_player::SpeakingCrowd::new(&demo.project, 10_000).unwrap();
    let camera = crowd.camera();
    crowd.update(500.0, camera.position);
    let npc_player::SpeakingCrowd { world, meshes, .. } = crowd;
    let headless = Headless::new(meshes, &world.content.skies, 64, 36, 512).unwrap();
    let primitives = &headless.renderer.store.primitives;
    let view = world.frame_view(camera, true);
    let mut unlimited = DrawList::default();
    world.draw(primitives, &view, 16.0 / 9.0, &mut unlimited);
    // NPCs drawn: copies of each avatar's part with the most silhouette triangles (every
    // level has it; small parts have no silhouette).
    let coarsest = npc_render::LOD_COUNT - 1;
    let bodies: Vec<u32> = world
        .content
        .avatars
        .iter()
        .filter_map(|a| {
            a.body
                .stored
                .meshes
                .iter()
                .flatten()
                .copied()
                .max_by_key(|&i| primitives[i as usize].lods[coarsest].count)
        })
        .collect();
    let drawn = |list: &DrawList, main: bool| -> u32 {
        list.batches
            .iter()
            .filter(|b| bodies.contains(&b.primitive))
            .filter(|b| if main { b.passes.main } else { b.passes.shadow })
            .map(|b| b.count)
            .sum()
    };
    // This device's budget, then a twentieth less than the levels chosen by distance need:
    // the farthest NPCs drop to the coarsest level, none is left out, in either pass.
    let device = headless.list.deform_budget.unwrap_or(u32::MAX);
    for budget in [device, unlimited.deformed_vertices / 20 * 19] {
        let mut fitted = DrawList::default();
        fitted.deform_budget = Some(budget);
        world.draw(primitives, &view, 16.0 / 9.0, &mut fitted);
        assert_eq!(fitted.left_out, 0, "budget {budget}");
        assert!(fitted.deformed_vertices <= budget);
        for main in [true, false] {
            assert_eq!(drawn(&fitted, main), drawn(&unlimited, main));
        }
    }
    assert!(
        drawn(&unlimited, true) > 5_000,
        "{}",
        drawn(&unlimited, true)
    );
}

#[test]
fn scene_instances_out_of_view_and_out_of_the_shadow_reach_are_left_out() {
    let demo = demo();
    let (mut world, headless) = open(&demo.project, 64, 64);
    world.update(1.0 / 30.0, Vec3::ZERO, &|_| 0.0);
    let primitives = &headless.renderer.store.primitives;
    let avatar_primitives = avatar_primitives(&world);
    let scene_objects = |list: &DrawList| -> u32 {
        list.batches
            .iter()
            .filter(|b| !avatar_primitives.contains(&b.primitive))
            .map(|b| b.count)
            .sum()
    };
    let instances: u32 = world
        .content
        .scene
        .asset
        .instances
        .iter()
        .map(|g| g.transforms.len() as u32)
        .sum();
    let mut list = DrawList::default();
    // Looking over the map: some of its plants and rocks are behind the camera.
    let view = world.frame_view(world.overview_camera(), true);
    world.draw(primitives, &view, 16.0 / 9.0, &mut list);
    let seen = scene_objects(&list);
    assert!(seen > 10 && seen < instances, "{seen} of {instances}");
    // From high above the map's edge, looking out and up: only the ground remains (it is
    // never left out; it is one instance).
    let centre = world.centre();
    let away = Camera::looking_at(
        centre + Vec3::new(0.0, 400.0, 2_000.0),
        centre + Vec3::new(0.0, 800.0, 4_000.0),
    );
    let view = world.frame_view(away, false);
    world.draw(primitives, &view, 16.0 / 9.0, &mut list);
    assert!(scene_objects(&list) <= world.content.ground_groups.len() as u32);
}

/// An asset of 0.8 m cubes: for each (material, positions), one cube mesh placed at those
/// positions (EXT_mesh_gpu_instancing).
fn cubes(groups: &[(Material, Vec<Vec3>)]) -> Asset {
    let mut writer = GlbWriter::new();
    let corners: Vec<[f32; 3]> = (0..8)
        .map(|i| {
            let s = |b: u32| if i & b != 0 { 0.4 } else { -0.4 };
            [s(1), s(2), s(4)]
        })
        .collect();
    let faces = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let mut roots = Vec::new();
    for (g, (material, places)) in groups.iter().enumerate() {
        let material = writer.add_material(material, &[]);
        let mut positions = Vec::new();
        let mut indices = Vec::new();
        for f in faces {
            let base = positions.len() as u32;
            positions.extend(f.iter().map(|&c| corners[c]));
            indices.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
        }
        let normals = npc_core::asset::mesh::vertex_normals(&positions, &indices);
        let mesh = writer.add_mesh(
            &format!("cube {g}"),
            &[Primitive {
                positions,
                normals,
                indices,
                material: Some(material),
                ..Primitive::default()
            }],
            &[],
            &[],
        );
        roots.push(
            writer.add_node(&Node {
                name: Some(format!("cubes {g}")),
                parent: None,
                children: Vec::new(),
                transform: Transform::IDENTITY,
                mesh: Some(mesh),
                skin: None,
                gpu_instances: places
                    .iter()
                    .map(|&t| Transform {
                        translation: t,
                        ..Transform::IDENTITY
                    })
                    .collect(),
            }),
        );
    }
    writer.set_roots(roots);
    Asset::from_bytes(&writer.to_glb(), None).unwrap()
}

/// An offscreen renderer of `w` x `h` holding `asset` under the project's skies.
fn renderer_for(asset: &Asset, w: u32, h: u32) -> (Headless, npc_render::StoredAsset) {
    let mut meshes = MeshStoreBuilder::default();
    let stored = meshes.add(asset).unwrap();
    let skies =
        npc_core::procedural::sky::SkyKind::ALL.map(|k| npc_core::procedural::sky::cubemap(k, 8));
    (Headless::new(meshes, &skies, w, h, 1024).unwrap(), stored)
}

/// A renderer holding `asset` and a draw list of all its instances.
fn draw_cubes(asset: &Asset, w: u32, h: u32) -> (Headless, DrawList) {
    let (headless, stored) = renderer_for(asset, w, h);
    let mut list = DrawList::default();
    for (group, ids) in asset.instances.iter().zip(&stored.meshes) {
        let id = ids[0];
        let prim = headless.renderer.store.primitives[id as usize];
        list.push_instances(id, &prim, &group.transforms);
    }
    (headless, list)
}

/// Noon light, fog and shadows around the origin, seen by `camera`.
fn cube_view(camera: Camera) -> npc_render::FrameView {
    npc_render::FrameView {
        camera,
        daylight: npc_core::daylight::daylight(0.5, &npc_core::project::SunSettings::default()),
        fog_start: 80.0,
        fog_end: 300.0,
        shadows: true,
        shadow_reach: npc_render::ShadowReach {
            center: Vec3::ZERO,
            radius: 15.0,
        },
        exposure: 1.0,
        sky_light: 1.0,
    }
}

#[test]
fn a_blended_surface_lets_what_is_behind_show_through() {
    // A half-transparent blue cube in front of an opaque red one, seen from the front.
    let red = Material {
        base_color: [0.9, 0.05, 0.05, 1.0],
        ..Material::default()
    };
    let glass = Material {
        base_color: [0.05, 0.05, 0.9, 0.5],
        alpha_mode: npc_core::asset::material::AlphaMode::Blend,
        ..Material::default()
    };
    let (w, h) = (128, 128);
    let camera = Camera::looking_at(Vec3::new(0.0, 0.0, 4.0), Vec3::ZERO);
    let centre = (w / 2, h / 2);
    let draw = |groups: &[(Material, Vec<Vec3>)]| {
        let (mut headless, list) = draw_cubes(&cubes(groups), w, h);
        *headless
            .draw_list(&list, &cube_view(camera))
            .unwrap()
            .get_pixel(centre.0, centre.1)
    };
    let both = draw(&[
        (red.clone(), vec![Vec3::ZERO]),
        (glass.clone(), vec![Vec3::new(0.0, 0.0, 1.5)]),
    ]);
    let red_alone = draw(&[(red, vec![Vec3::ZERO])]);
    let glass_alone = draw(&[(glass, vec![Vec3::new(0.0, 0.0, 1.5)])]);
    // Red and blue both come through; neither surface alone gives that pixel.
    assert!(both[0] > 40 && both[2] > 40, "{both:?}");
    assert!(both[0] < red_alone[0], "{both:?} vs red {red_alone:?}");
    assert!(
        both != glass_alone,
        "{both:?} vs glass over sky {glass_alone:?}"
    );
}

/// A 2 m square facing +Z at the origin, textured top-left (u right, v down the image as
/// glTF lays it: v grows toward -Y), in `material` with `textures`.
fn plane(material: &Material, textures: &[Option<npc_core::asset::material::Texture>]) -> Asset {
    plane_with_tangents(material, textures, Vec::new())
}

/// [`plane`] with the file's own `tangents` (none: the loader makes MikkTSpace's where the
/// material has a normal map).
fn plane_with_tangents(
    material: &Material,
    textures: &[Option<npc_core::asset::material::Texture>],
    tangents: Vec<[f32; 4]>,
) -> Asset {
    one_mesh(
        "plane",
        Primitive {
            tangents,
            positions: vec![
                [-1.0, 1.0, 0.0],
                [1.0, 1.0, 0.0],
                [1.0, -1.0, 0.0],
                [-1.0, -1.0, 0.0],
            ],
            normals: vec![[0.0, 0.0, 1.0]; 4],
            uvs: vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
            indices: vec![0, 2, 1, 0, 3, 2],
            ..Primitive::default()
        },
        material,
        textures,
    )
}

/// An asset of one node showing `primitive` in `material` (with `textures`), at the origin.
fn one_mesh(
    name: &str,
    primitive: Primitive,
    material: &Material,
    textures: &[Option<npc_core::asset::material::Texture>],
) -> Asset {
    let mut writer = GlbWriter::new();
    let material = writer.add_material(material, textures);
    let primitive = Primitive {
        material: Some(material),
        ..primitive
    };
    let mesh = writer.add_mesh(name, &[primitive], &[], &[]);
    let root = writer.add_node(&Node::showing(name, mesh));
    writer.set_roots(vec![root]);
    Asset::from_bytes(&writer.to_glb(), None).unwrap()
}

/// A renderer holding `asset`, its nodes in the draw list as placed.
fn draw_nodes(asset: &Asset, w: u32, h: u32) -> (Headless, DrawList) {
    let (headless, stored) = renderer_for(asset, w, h);
    let mut list = DrawList::default();
    for node in &asset.nodes {
        let Some(mesh) = node.mesh else { continue };
        for &id in &stored.meshes[mesh] {
            let prim = headless.renderer.store.primitives[id as usize];
            list.push_instances(id, &prim, &[node.transform.to_mat4()]);
        }
    }
    (headless, list)
}

/// The plane's mean luminance at the middle of the image, lit by the sun alone from `light`
/// (toward it; the ground the sun lights would light the plane more from above than below),
/// seen head-on from 3 m.
fn plane_brightness(asset: &Asset, light: Vec3) -> f64 {
    plane_brightness_at(asset, light, 0)
}

/// [`plane_brightness`] with the plane drawn at level of detail `lod`.
fn plane_brightness_at(asset: &Asset, light: Vec3, lod: u8) -> f64 {
    let (w, h) = (96, 96);
    let (mut headless, mut list) = draw_nodes(asset, w, h);
    for batch in &mut list.batches {
        batch.lod = lod;
    }
    let mut view = cube_view(Camera::looking_at(Vec3::new(0.0, 0.0, 3.0), Vec3::ZERO));
    view.shadows = false;
    view.sky_light = 0.0;
    view.daylight.light_direction = light.normalize();
    let image = headless.draw_list(&list, &view).unwrap();
    patch(&image, i64::from(w / 2), i64::from(h / 2), 10)
}

/// One texel repeated: a texture of `size` x `size`.
fn flat_texture(size: u32, texel: [u8; 4]) -> npc_core::asset::material::Texture {
    npc_core::asset::material::Texture {
        width: size,
        height: size,
        rgba: texel.repeat((size * size) as usize),
    }
}

#[test]
fn a_normal_map_turns_the_shading_toward_the_light() {
    // Every texel's normal tilted 40 degrees toward the map's +Y (up the image, which is up on
    // this plane) or +X (along u: right): lit from that side the surface faces the light more
    // than the bare plane does, lit from the other side less. Without the map, or with either
    // sign of glTF's tangent frame wrong, the two would not part that way.
    let tilt = 40f32.to_radians();
    let (lean, out) = (
        (128.0 + 127.0 * tilt.sin()).round() as u8,
        (128.0 + 127.0 * tilt.cos()).round() as u8,
    );
    let matte = Material {
        base_color: [0.6, 0.6, 0.6, 1.0],
        ..Material::default()
    };
    let bumped = Material {
        surface: npc_core::asset::material::Surface {
            normal_texture: Some(npc_core::asset::material::TextureRef::plain(0)),
            ..matte.surface.clone()
        },
        ..matte.clone()
    };
    let bare = plane(&matte, &[]);
    for (texel, toward) in [
        ([128, lean, out, 255], Vec3::Y),
        ([lean, 128, out, 255], Vec3::X),
    ] {
        let mapped = plane(&bumped, &[Some(flat_texture(8, texel))]);
        assert!(mapped.materials[0].surface.normal_texture.is_some());
        let (with, against) = (toward + Vec3::Z * 0.6, -toward + Vec3::Z * 0.6);
        let (bare_with, bare_against) = (
            plane_brightness(&bare, with),
            plane_brightness(&bare, against),
        );
        let (mapped_with, mapped_against) = (
            plane_brightness(&mapped, with),
            plane_brightness(&mapped, against),
        );
        assert!(
            (bare_with - bare_against).abs() < 2.0,
            "the bare plane is lit alike from both sides: {bare_with} vs {bare_against}"
        );
        assert!(
            mapped_with > bare_with + 10.0 && mapped_against < bare_against - 10.0,
            "tilted toward {toward}: lit from there {mapped_with}, from the other side \
             {mapped_against}, bare {bare_with}"
        );
    }
}

#[test]
fn far_away_a_normal_map_is_left_out() {
    // At the far levels of detail the map's texels are smaller than a pixel and the coarse
    // surface is not the one it was baked on: the plane is shaded as if it had none, and
    // nearer it still leans toward the light.
    let tilt = 40f32.to_radians();
    let (lean, out) = (
        (128.0 + 127.0 * tilt.sin()).round() as u8,
        (128.0 + 127.0 * tilt.cos()).round() as u8,
    );
    let matte = Material {
        base_color: [0.6, 0.6, 0.6, 1.0],
        ..Material::default()
    };
    let bumped = Material {
        surface: npc_core::asset::material::Surface {
            normal_texture: Some(npc_core::asset::material::TextureRef::plain(0)),
            ..matte.surface.clone()
        },
        ..matte.clone()
    };
    let bare = plane(&matte, &[]);
    let mapped = plane(&bumped, &[Some(flat_texture(8, [128, lean, out, 255]))]);
    let light = Vec3::Y + Vec3::Z * 0.6;
    let bare_lit = plane_brightness(&bare, light);
    let near = plane_brightness_at(&mapped, light, npc_render::FAR_LOD - 1);
    let far = plane_brightness_at(&mapped, light, npc_render::FAR_LOD);
    assert!(
        near > bare_lit + 10.0,
        "one level nearer the map still bends the plane: {near} against {bare_lit} bare"
    );
    assert!(
        (far - bare_lit).abs() < 1.0,
        "at the far level the plane is shaded as the bare one: {far} against {bare_lit}"
    );
}

#[test]
fn a_normal_map_bends_along_the_tangents_the_file_gives() {
    // The file says the tangent (+u's direction for the map) points up the plane, +Y, and the
    // bitangent cross(+Z, +Y) * -1 = +X: every texel leaning toward the map's +X then leans
    // the surface up, not right as the texture coordinates alone would make it. The loader
    // keeps the file's frame and the shader reads it: lit from above, brighter than the bare
    // plane, from below darker, from either side alike.
    let tilt = 40f32.to_radians();
    let (lean, out) = (
        (128.0 + 127.0 * tilt.sin()).round() as u8,
        (128.0 + 127.0 * tilt.cos()).round() as u8,
    );
    let matte = Material {
        base_color: [0.6, 0.6, 0.6, 1.0],
        ..Material::default()
    };
    let bumped = Material {
        surface: npc_core::asset::material::Surface {
            normal_texture: Some(npc_core::asset::material::TextureRef::plain(0)),
            ..matte.surface.clone()
        },
        ..matte.clone()
    };
    let texture = [Some(flat_texture(8, [lean, 128, out, 255]))];
    let mapped = plane_with_tangents(&bumped, &texture, vec![[0.0, 1.0, 0.0, -1.0]; 4]);
    assert_eq!(
        mapped.meshes[0].primitives[0].tangents,
        vec![[0.0, 1.0, 0.0, -1.0]; 4]
    );
    let bare = plane(&matte, &[]);
    let light = |toward: Vec3| toward + Vec3::Z * 0.6;
    let bare_lit = plane_brightness(&bare, light(Vec3::Y));
    let (up, down) = (
        plane_brightness(&mapped, light(Vec3::Y)),
        plane_brightness(&mapped, light(-Vec3::Y)),
    );
    let (right, left) = (
        plane_brightness(&mapped, light(Vec3::X)),
        plane_brightness(&mapped, light(-Vec3::X)),
    );
    assert!(
        up > bare_lit + 10.0 && down < bare_lit - 10.0,
        "lit from above {up}, from below {down}, the bare plane {bare_lit}"
    );
    assert!(
        (right - left).abs() < 4.0,
        "lit from the right {right} and the left {left} should be alike"
    );
}

#[test]
fn a_normal_map_turned_by_its_texture_transform_turns_its_frame() {
    // KHR_texture_transform turns the normal map a quarter (u' = v, v' = -u): the map's +X,
    // along u', now runs down the plane (-Y). The plane's tangents (MikkTSpace's, along u =
    // +X) are turned with it: lit from below, brighter than from above; from either side
    // alike.
    let tilt = 40f32.to_radians();
    let (lean, out) = (
        (128.0 + 127.0 * tilt.sin()).round() as u8,
        (128.0 + 127.0 * tilt.cos()).round() as u8,
    );
    let turned = npc_core::asset::material::TextureRef {
        transform: npc_core::asset::material::UvTransform::from_offset_rotation_scale(
            [0.0, 0.0],
            std::f32::consts::FRAC_PI_2,
            [1.0, 1.0],
        ),
        ..npc_core::asset::material::TextureRef::plain(0)
    };
    let bumped = Material {
        base_color: [0.6, 0.6, 0.6, 1.0],
        surface: npc_core::asset::material::Surface {
            normal_texture: Some(turned),
            ..Material::default().surface
        },
        ..Material::default()
    };
    let mapped = plane(&bumped, &[Some(flat_texture(8, [lean, 128, out, 255]))]);
    assert_eq!(mapped.meshes[0].primitives[0].tangents.len(), 4);
    let light = |toward: Vec3| plane_brightness(&mapped, toward + Vec3::Z * 0.6);
    let (up, down, right, left) = (
        light(Vec3::Y),
        light(-Vec3::Y),
        light(Vec3::X),
        light(-Vec3::X),
    );
    assert!(down > up + 20.0, "lit from below {down}, from above {up}");
    assert!(
        (right - left).abs() < 4.0,
        "lit from the right {right} and the left {left} should be alike"
    );
}

#[test]
fn a_smooth_surface_shows_the_sun_as_a_highlight_and_a_rough_one_spreads_it() {
    // The sun behind the camera, mirrored by the plane straight back into it: a smooth
    // dielectric concentrates its 4% reflection there, a rough one spreads it out.
    let with = |roughness: f32, metallic: f32| {
        let m = Material {
            base_color: [0.3, 0.3, 0.3, 1.0],
            surface: npc_core::asset::material::Surface {
                roughness,
                metallic,
                ..npc_core::asset::material::Surface::MATTE
            },
            ..Material::default()
        };
        plane_brightness(&plane(&m, &[]), Vec3::Z)
    };
    let (smooth, rough) = (with(0.15, 0.0), with(1.0, 0.0));
    assert!(smooth > rough + 20.0, "smooth {smooth}, rough {rough}");
    // A metal takes its colour into the reflection and has no diffuse light of its own: a
    // dark rough metal is darker than the same colour as a rough dielectric.
    let rough_metal = with(1.0, 1.0);
    assert!(
        rough_metal < rough,
        "rough metal {rough_metal}, rough {rough}"
    );
}

#[test]
fn a_clear_coat_adds_a_sharp_highlight_and_a_higher_index_of_refraction_reflects_more() {
    // A rough matte plane, the sun mirrored back into the camera: a clear coat (smooth) puts a
    // highlight on it that the bare plane lacks; a dielectric of index 2.4 (diamond) reflects
    // more than glTF's 1.5, and KHR_materials_specular's factor 0 takes the reflection away.
    use npc_core::asset::material::{Clearcoat, Specular, Surface};
    let with = |surface: Surface| {
        let m = Material {
            base_color: [0.3, 0.3, 0.3, 1.0],
            surface,
            ..Material::default()
        };
        plane_brightness(&plane(&m, &[]), Vec3::Z)
    };
    let rough = Surface {
        roughness: 1.0,
        ..Surface::MATTE
    };
    let bare = with(rough.clone());
    let coated = with(Surface {
        clearcoat: Some(Clearcoat::plain(1.0, 0.1)),
        ..rough.clone()
    });
    assert!(coated > bare + 20.0, "coated {coated}, bare {bare}");
    // Rough enough that the highlight stays well below white.
    let smooth = Surface {
        roughness: 0.5,
        ..Surface::MATTE
    };
    let glass = with(smooth.clone());
    let diamond = with(Surface {
        specular: Specular {
            ior: 2.4,
            ..Specular::DEFAULT
        },
        ..smooth.clone()
    });
    let none = with(Surface {
        specular: Specular {
            factor: 0.0,
            ..Specular::DEFAULT
        },
        ..smooth
    });
    assert!(
        diamond > glass + 10.0 && none < glass - 10.0,
        "ior 2.4 {diamond}, ior 1.5 {glass}, no specular {none}"
    );
}

#[test]
fn a_mouth_material_looks_wet() {
    // The same rough plane named as Ready Player Me names its teeth and as it names clothes,
    // the sun mirrored back into the camera: the mouth's wet film shows the sun, the cloth
    // does not.
    let named = |name: &str| {
        let m = Material {
            name: Some(name.to_owned()),
            base_color: [0.6, 0.45, 0.45, 1.0],
            surface: npc_core::asset::material::Surface {
                roughness: 0.9,
                ..npc_core::asset::material::Surface::MATTE
            },
            ..Material::default()
        };
        plane_brightness(&plane(&m, &[]), Vec3::Z)
    };
    let (wet, dry) = (named("Wolf3D_Teeth"), named("Wolf3D_Outfit_Top"));
    assert!(wet > dry + 20.0, "teeth {wet}, cloth {dry}");
}

#[test]
fn an_emissive_surface_glows_at_night() {
    let dark = Material {
        base_color: [0.2, 0.2, 0.2, 1.0],
        ..Material::default()
    };
    let glowing = Material {
        surface: npc_core::asset::material::Surface {
            emissive: [1.0, 0.6, 0.2],
            emissive_texture: Some(npc_core::asset::material::TextureRef::plain(0)),
            ..dark.surface.clone()
        },
        ..dark.clone()
    };
    let at_night = |asset: &Asset| {
        let (w, h) = (64, 64);
        let (mut headless, list) = draw_nodes(asset, w, h);
        let mut view = cube_view(Camera::looking_at(Vec3::new(0.0, 0.0, 3.0), Vec3::ZERO));
        view.daylight =
            npc_core::daylight::daylight(0.0, &npc_core::project::SunSettings::default());
        let image = headless.draw_list(&list, &view).unwrap();
        *image.get_pixel(w / 2, h / 2)
    };
    let plain = at_night(&plane(&dark, &[]));
    // The emissive texture is white in its middle half only.
    let mut texture = flat_texture(8, [0, 0, 0, 255]);
    for y in 2..6 {
        for x in 2..6 {
            let i = ((y * 8 + x) * 4) as usize;
            texture.rgba[i..i + 3].copy_from_slice(&[255, 255, 255]);
        }
    }
    let lit = at_night(&plane(&glowing, &[Some(texture)]));
    assert!(
        lit[0] > plain[0] + 100 && lit[0] > lit[2],
        "{lit:?} vs {plain:?}: the glow is warm"
    );
}

#[test]
fn tone_mapping_keeps_a_bright_sky_below_white_and_blue() {
    // Two stops over: a plain clamp would turn the noon sky white; the tone map rolls it off
    // with its hue.
    let (w, h) = (48, 48);
    let (mut headless, list) = draw_nodes(&plane(&Material::default(), &[]), w, h);
    let mut view = cube_view(Camera::looking_at(
        Vec3::new(0.0, 0.0, 3.0),
        Vec3::new(0.0, 6.0, 3.5),
    ));
    let sky_at = |headless: &mut Headless, exposure: f32, view: &mut npc_render::FrameView| {
        view.exposure = exposure;
        *headless.draw_list(&list, view).unwrap().get_pixel(w / 2, 4)
    };
    let plain = sky_at(&mut headless, 1.0, &mut view);
    let bright = sky_at(&mut headless, 4.0, &mut view);
    assert!(plain[2] > plain[0], "the sky is blue: {plain:?}");
    assert!(
        bright.0[..3].iter().all(|&c| c < 255) && bright[2] > bright[0],
        "at 4x the sky is {bright:?} (at 1x {plain:?})"
    );
    assert!(bright[0] > plain[0], "brighter: {bright:?} vs {plain:?}");
}

/// A sphere of radius 1 at the origin (`rings` x `segments` quads) in `material`.
fn sphere(material: &Material, rings: u32, segments: u32) -> Asset {
    let mut positions = Vec::new();
    let mut uvs = Vec::new();
    for r in 0..=rings {
        let polar = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..=segments {
            let azimuth = std::f32::consts::TAU * s as f32 / segments as f32;
            positions.push([
                polar.sin() * azimuth.cos(),
                polar.cos(),
                polar.sin() * azimuth.sin(),
            ]);
            uvs.push([s as f32 / segments as f32, r as f32 / rings as f32]);
        }
    }
    let mut indices = Vec::new();
    for r in 0..rings {
        for s in 0..segments {
            let a = r * (segments + 1) + s;
            let b = a + segments + 1;
            indices.extend([a, a + 1, b, a + 1, b + 1, b]);
        }
    }
    one_mesh(
        "sphere",
        Primitive {
            normals: positions.clone(),
            positions,
            uvs,
            indices,
            ..Primitive::default()
        },
        material,
        &[],
    )
}

#[test]
fn an_eye_catches_a_light_wherever_the_sun_is_and_a_ball_does_not() {
    // A matte white sphere lit from behind: named as an eye it shows a catchlight far
    // brighter than the rest of it; named as a ball, nothing stands out.
    let (w, h) = (96, 96);
    let brightest_over_median = |name: &str| {
        let material = Material {
            name: Some(name.to_owned()),
            base_color: [0.8, 0.8, 0.8, 1.0],
            surface: npc_core::asset::material::Surface {
                roughness: 1.0,
                ..npc_core::asset::material::Surface::MATTE
            },
            ..Material::default()
        };
        let (mut headless, list) = draw_nodes(&sphere(&material, 48, 96), w, h);
        let mut view = cube_view(Camera::looking_at(Vec3::new(0.0, 0.0, 3.5), Vec3::ZERO));
        view.shadows = false;
        view.daylight.light_direction = Vec3::new(0.3, 0.5, -1.0).normalize();
        let image = headless.draw_list(&list, &view).unwrap();
        let centre = (f64::from(w) / 2.0, f64::from(h) / 2.0);
        let mut on_sphere: Vec<f64> = image
            .enumerate_pixels()
            .filter(|(x, y, _)| {
                (f64::from(*x) - centre.0).hypot(f64::from(*y) - centre.1) < f64::from(w) * 0.2
            })
            .map(|(_, _, p)| luminance(p))
            .collect();
        on_sphere.sort_by(f64::total_cmp);
        on_sphere[on_sphere.len() - 1] - on_sphere[on_sphere.len() / 2]
    };
    let eye = brightest_over_median("Wolf3D_Eye");
    let ball = brightest_over_median("Ball");
    assert!(
        eye > 60.0,
        "the eye's catchlight stands {eye} over its median"
    );
    assert!(
        ball < 20.0,
        "the ball's brightest pixel stands {ball} over its median"
    );
}

/// The luminances of the middle row of a sphere seen head-on, lit from the right and a little
/// from the front, across the middle 80% of its width on screen.
fn sphere_row(asset: &Asset) -> Vec<f64> {
    let (w, h) = (128, 64);
    let (mut headless, list) = draw_nodes(asset, w, h);
    let mut view = cube_view(Camera::looking_at(Vec3::new(0.0, 0.0, 2.6), Vec3::ZERO));
    view.shadows = false;
    view.daylight.light_direction = Vec3::new(1.0, 0.0, 0.3).normalize();
    let image = headless.draw_list(&list, &view).unwrap();
    // The sphere's radius on screen: from the middle out to where the sky starts (the sky's
    // own gradient is a few levels across the row).
    let row = h / 2;
    let sky = luminance(image.get_pixel(0, row));
    let radius = (0..w / 2)
        .take_while(|&d| (luminance(image.get_pixel(w / 2 + d, row)) - sky).abs() > 6.0)
        .count() as u32;
    let inner = radius * 8 / 10;
    (w / 2 - inner..w / 2 + inner)
        .map(|x| luminance(image.get_pixel(x, row)))
        .collect()
}

/// Share of `row` between a quarter and three quarters of the way from its darkest to its
/// brightest: the soft gradient of a lit sphere, or the narrow step of a toon one.
fn share_in_between(row: &[f64]) -> f64 {
    let (lo, hi) = row
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    let between = row
        .iter()
        .filter(|&&v| v > lo + 0.25 * (hi - lo) && v < hi - 0.25 * (hi - lo))
        .count();
    between as f64 / row.len() as f64
}

#[test]
fn a_toon_material_has_two_shade_bands_and_an_unlit_one_ignores_the_light() {
    // The same white sphere lit from the side: physically based, its light falls off
    // smoothly across it; in VRM's MToon, it is lit or in a blue shade with a narrow step.
    let material = Material {
        base_color: [0.9, 0.9, 0.9, 1.0],
        ..Material::default()
    };
    let smooth = sphere(&material, 48, 96);
    let mut toon = smooth.clone();
    toon.materials[0].toon = Some(npc_core::asset::toon::Toon {
        shade: [0.1, 0.15, 0.5],
        toony: 0.95,
        ..npc_core::asset::toon::Toon::default()
    });
    let (smooth_row, toon_row) = (sphere_row(&smooth), sphere_row(&toon));
    let (soft, stepped) = (share_in_between(&smooth_row), share_in_between(&toon_row));
    assert!(
        soft > 0.2,
        "the lit sphere's gradient: {soft} of the row in between"
    );
    assert!(
        stepped < 0.08,
        "the toon sphere's step: {stepped} in between"
    );
    // Two bands: the shaded side far darker than the lit side.
    let n = toon_row.len();
    assert!(
        toon_row[n - 1 - n / 8] > toon_row[n / 8] + 40.0,
        "lit {} vs shade {}",
        toon_row[n - 1 - n / 8],
        toon_row[n / 8]
    );
    // Unlit (KHR_materials_unlit): one colour across, wherever the light is.
    let mut unlit = smooth;
    unlit.materials[0].unlit = true;
    let flat = sphere_row(&unlit);
    let spread = flat.iter().copied().fold(f64::MIN, f64::max)
        - flat.iter().copied().fold(f64::MAX, f64::min);
    assert!(spread < 2.0, "the unlit sphere varies by {spread}");
}

#[test]
fn parts_left_out_of_the_silhouette_are_a_few_pixels_where_it_begins() {
    // A 1080-pixel-high image with the default lens: NPCs 19 m away, just inside the level
    // before the silhouette, drawn with and without the parts that have no silhouette.
    let demo = demo();
    let (mut world, mut headless) = open(&demo.project, 256, 1080);
    world.update(1.0 / 30.0, Vec3::ZERO, &|_| 0.0);
    let centre = world.centre() + Vec3::Y * 0.9;
    let camera = Camera::looking_at(centre + Vec3::new(0.0, 0.0, 19.0), centre);
    let view = world.frame_view(camera, true);
    let mut with = DrawList::default();
    let primitives = headless.renderer.store.primitives.clone();
    world.draw(&primitives, &view, 256.0 / 1080.0, &mut with);
    let coarsest = npc_render::LOD_COUNT - 1;
    let npc_parts: std::collections::HashSet<u32> = world
        .content
        .avatars
        .iter()
        .flat_map(|a| std::iter::once(&a.body).chain(&a.head))
        .flat_map(|part| part.stored.meshes.iter().flatten().copied())
        .collect();
    let npc = |b: &npc_render::Batch| npc_parts.contains(&b.primitive);
    let small = |b: &npc_render::Batch| {
        npc(b) && primitives[b.primitive as usize].lods[coarsest].count == 0
    };
    assert!(
        with.batches
            .iter()
            .any(|b| b.passes.main && b.lod == 2 && small(b)),
        "no part without a silhouette is drawn at 19 m"
    );
    let mut without = with.clone();
    without.batches.retain(|b| !small(b));
    let a = headless.draw_list(&with, &view).unwrap();
    let b = headless.draw_list(&without, &view).unwrap();
    let mut no_npcs = with.clone();
    no_npcs.batches.retain(|b| !npc(b));
    let nothing = headless.draw_list(&no_npcs, &view).unwrap();
    let whole = changed_pixels(&a, &nothing, 128, 540, 540);
    let changed = changed_pixels(&a, &b, 128, 540, 540);
    eprintln!("the NPCs cover {whole} pixels; leaving the small parts out changes {changed}");
    assert!(whole > 500, "{whole}");
    assert!(changed <= 12, "{changed} of {whole} pixels change");
}

/// A renderer holding `asset` (nodes as placed) under the project's skies at `sky_size`
/// texels a face.
fn draw_under_skies(asset: &Asset, w: u32, h: u32, sky_size: u32) -> (Headless, DrawList) {
    let mut meshes = MeshStoreBuilder::default();
    let stored = meshes.add(asset).unwrap();
    let skies = npc_core::procedural::sky::SkyKind::ALL
        .map(|k| npc_core::procedural::sky::cubemap(k, sky_size));
    let headless = Headless::new(meshes, &skies, w, h, 1024).unwrap();
    let mut list = DrawList::default();
    for node in &asset.nodes {
        let Some(mesh) = node.mesh else { continue };
        for &id in &stored.meshes[mesh] {
            let prim = headless.renderer.store.primitives[id as usize];
            list.push_instances(id, &prim, &[node.transform.to_mat4()]);
        }
    }
    (headless, list)
}

#[test]
fn a_smooth_metal_floor_mirrors_the_sky() {
    // A white mirror-smooth metal floor reaching far away, seen from 1 m above it looking
    // level at noon: each pixel of it below the horizon shows the sky of the pixel as far
    // above the horizon (the mirrored direction), which changes from the haze at the horizon
    // to the deep blue higher up. A uniform sky light would make the floor one colour.
    let (w, h) = (128, 128);
    let mirror = Material {
        base_color: [1.0, 1.0, 1.0, 1.0],
        surface: npc_core::asset::material::Surface {
            roughness: 0.0,
            metallic: 1.0,
            ..npc_core::asset::material::Surface::MATTE
        },
        ..Material::default()
    };
    let floor = one_mesh(
        "floor",
        Primitive {
            positions: vec![
                [-500.0, 0.0, -500.0],
                [500.0, 0.0, -500.0],
                [500.0, 0.0, 500.0],
                [-500.0, 0.0, 500.0],
            ],
            normals: vec![[0.0, 1.0, 0.0]; 4],
            uvs: vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
            indices: vec![0, 2, 1, 0, 3, 2],
            ..Primitive::default()
        },
        &mirror,
        &[],
    );
    let (mut headless, list) = draw_under_skies(&floor, w, h, 32);
    let mut view = cube_view(Camera::looking_at(
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(0.0, 1.0, -10.0),
    ));
    view.shadows = false;
    view.fog_start = 1.0e4;
    view.fog_end = 2.0e4;
    let image = headless.draw_list(&list, &view).unwrap();
    // Rows 3 to 50 pixels from the horizon (the middle of the image), every column.
    let (mut difference, mut count) = (0.0, 0.0);
    let (mut sky_lo, mut sky_hi) = (f64::MAX, f64::MIN);
    for k in 3..50 {
        for x in 0..w {
            let sky = image.get_pixel(x, h / 2 - 1 - k);
            let floor = image.get_pixel(x, h / 2 + k);
            for c in 0..3 {
                difference += (f64::from(sky[c]) - f64::from(floor[c])).abs();
                count += 1.0;
            }
            sky_lo = sky_lo.min(f64::from(sky[2]) - f64::from(sky[0]));
            sky_hi = sky_hi.max(f64::from(sky[2]) - f64::from(sky[0]));
        }
    }
    let mean = difference / count;
    assert!(
        sky_hi - sky_lo > 30.0,
        "the sky changes from haze to blue over the rows compared: {sky_lo} to {sky_hi}"
    );
    assert!(
        mean < 4.0,
        "the floor differs from the mirrored sky by {mean} levels a channel on average"
    );
}

#[test]
fn the_sky_lights_a_matte_ball_from_where_it_is_bright() {
    // A white matte ball under the morning sky with the sun's own light off: the side
    // turned toward the glow around the low sun (east, +X) gets more of the sky's light than
    // the side turned away. A sky light the same from every side lights both alike.
    let (w, h) = (96, 96);
    let matte = Material {
        base_color: [0.8, 0.8, 0.8, 1.0],
        surface: npc_core::asset::material::Surface {
            roughness: 1.0,
            ..npc_core::asset::material::Surface::MATTE
        },
        ..Material::default()
    };
    let (mut headless, list) = draw_under_skies(&sphere(&matte, 48, 96), w, h, 32);
    let mut view = cube_view(Camera::looking_at(Vec3::new(0.0, 0.0, 3.5), Vec3::ZERO));
    view.shadows = false;
    let no_sun = npc_core::project::SunSettings {
        intensity: 0.0,
        ..npc_core::project::SunSettings::default()
    };
    view.daylight = npc_core::daylight::daylight(0.33, &no_sun);
    assert!(view.daylight.sky[0] > 0.99, "{:?}", view.daylight.sky);
    let image = headless.draw_list(&list, &view).unwrap();
    // The sphere's radius is about 24 pixels on screen.
    let toward = patch(&image, i64::from(w / 2) + 15, i64::from(h / 2), 3);
    let away = patch(&image, i64::from(w / 2) - 15, i64::from(h / 2), 3);
    assert!(
        toward > away + 2.5,
        "the side toward the sun's glow {toward}, the side away {away}"
    );
}

#[test]
fn an_mtoon_outline_rings_the_silhouette_in_world_or_screen_widths() {
    // A light toon sphere lit from the front: with a black outline 6 cm wide in the world,
    // or 2% of the screen's height, a dark band rings it just past its silhouette; nothing
    // inside the silhouette changes.
    use npc_core::asset::toon::{Outline, OutlineWidth, Toon};
    let (w, h) = (96, 96);
    let front = Vec3::new(0.0, 0.3, 1.0);
    let outlined_sphere = |outline: Option<Outline>| {
        let toon = Toon {
            shade: [0.6, 0.6, 0.6],
            outline,
            ..Toon::default()
        };
        toon_sphere(toon, vec![], front)
    };
    let plain = outlined_sphere(None);
    // The sphere's radius on screen: 1 m seen from 3.5 m with a 60 degree lens, 96 pixels.
    let radius = (1.0f64 / 3.5).asin().tan() / 30f64.to_radians().tan() * f64::from(h) / 2.0;
    for width in [OutlineWidth::World(0.06), OutlineWidth::Screen(0.02)] {
        let outlined = outlined_sphere(Some(Outline {
            width,
            color: [0.0; 3],
            lighting_mix: 0.0,
            width_texture: None,
            width_in_red: false,
        }));
        let (mut ring, mut inside, mut beyond) = (0, 0, 0);
        for (x, y, p) in outlined.enumerate_pixels() {
            let before = luminance(plain.get_pixel(x, y));
            let r = (f64::from(x) + 0.5 - f64::from(w) / 2.0)
                .hypot(f64::from(y) + 0.5 - f64::from(h) / 2.0);
            if r < radius - 1.5 {
                inside += usize::from((luminance(p) - before).abs() > 2.0);
            } else if luminance(p) < before - 60.0 {
                if r < radius + 4.0 {
                    ring += 1;
                } else {
                    beyond += 1;
                }
            }
        }
        assert!(
            ring > 100 && beyond == 0 && inside == 0,
            "{width:?}: {ring} dark pixels in the band past the silhouette, {beyond} beyond it, \
             {inside} changed inside it"
        );
    }
}

#[test]
fn specular_and_clear_coat_textures_scale_what_their_factors_give() {
    // A smooth plane mirroring the sun into the camera (as above): KHR_materials_specular's
    // texture with alpha 0, or its colour texture black, takes the reflection away as a factor
    // of 0 does; a clear coat whose texture is 0 in red adds nothing to a rough plane, one at
    // 255 its full highlight. Written by the writer and read back, as a file would be.
    use npc_core::asset::material::{Clearcoat, Specular, Surface, TextureRef};
    let with = |surface: Surface, texel: [u8; 4]| {
        let m = Material {
            base_color: [0.3, 0.3, 0.3, 1.0],
            surface,
            ..Material::default()
        };
        let asset = plane(&m, &[Some(flat_texture(4, texel))]);
        plane_brightness(&asset, Vec3::Z)
    };
    let smooth = Surface {
        roughness: 0.5,
        ..Surface::MATTE
    };
    let glass = with(smooth.clone(), [255; 4]);
    let specular = |texture, color_texture| Surface {
        specular: Specular {
            texture,
            color_texture,
            ..Specular::DEFAULT
        },
        ..smooth.clone()
    };
    let t = Some(TextureRef::plain(0));
    let full = with(specular(t, t), [255; 4]);
    let no_strength = with(specular(t, None), [255, 255, 255, 0]);
    let no_colour = with(specular(None, t), [0, 0, 0, 255]);
    assert!(
        (full - glass).abs() < 2.0 && no_strength < glass - 10.0 && no_colour < glass - 10.0,
        "white textures {full}, none {glass}, alpha 0 {no_strength}, black colour {no_colour}"
    );
    let rough = Surface {
        roughness: 1.0,
        ..Surface::MATTE
    };
    let bare = with(rough.clone(), [255; 4]);
    let coat = |texel| {
        with(
            Surface {
                clearcoat: Some(Clearcoat {
                    texture: t,
                    ..Clearcoat::plain(1.0, 0.1)
                }),
                ..rough.clone()
            },
            texel,
        )
    };
    let (coated, uncoated) = (coat([255; 4]), coat([0, 255, 255, 255]));
    assert!(
        coated > bare + 20.0 && (uncoated - bare).abs() < 2.0,
        "coat texture 255: {coated}, 0: {uncoated}, no coat {bare}"
    );
}

/// A toon sphere (white, lit from the side or front by `light`) with `toon`, its textures
/// (by index) `textures`, seen head-on from 3.5 m.
fn toon_sphere(
    toon: npc_core::asset::toon::Toon,
    textures: Vec<npc_core::asset::material::Texture>,
    light: Vec3,
) -> RgbaImage {
    toon_sphere_on(None, toon, textures, light)
}

/// [`toon_sphere`] with a base-colour texture (by index).
fn toon_sphere_on(
    base_texture: Option<npc_core::asset::material::TextureRef>,
    toon: npc_core::asset::toon::Toon,
    textures: Vec<npc_core::asset::material::Texture>,
    light: Vec3,
) -> RgbaImage {
    let mut asset = sphere(
        &Material {
            base_color: [0.9, 0.9, 0.9, 1.0],
            ..Material::default()
        },
        48,
        96,
    );
    asset.textures = textures.into_iter().map(Some).collect();
    asset.materials[0].base_color_texture = base_texture;
    asset.materials[0].toon = Some(toon);
    let (w, h) = (96, 96);
    let (mut headless, list) = draw_nodes(&asset, w, h);
    let mut view = cube_view(Camera::looking_at(Vec3::new(0.0, 0.0, 3.5), Vec3::ZERO));
    view.shadows = false;
    view.daylight.light_direction = light.normalize();
    headless.draw_list(&list, &view).unwrap()
}

/// A texture of `size` x `size`, its top half `top` and bottom half `bottom`.
fn halves(size: u32, top: [u8; 4], bottom: [u8; 4]) -> npc_core::asset::material::Texture {
    let mut t = flat_texture(size, bottom);
    t.rgba[..(size * size * 2) as usize].copy_from_slice(&top.repeat((size * size / 2) as usize));
    t
}

#[test]
fn mtoon_textures_colour_the_shade_move_the_step_and_add_a_matcap() {
    use npc_core::asset::material::TextureRef;
    use npc_core::asset::toon::Toon;
    let t = |i| Some(TextureRef::plain(i));
    let side = Vec3::new(1.0, 0.0, 0.3);
    let shade_side = |image: &RgbaImage| *image.get_pixel(30, 48);
    // The shade texture colours the shade: a white shade colour times a red texture.
    let white_shade = Toon {
        shade: [1.0; 3],
        toony: 0.95,
        ..Toon::default()
    };
    let plain = shade_side(&toon_sphere(white_shade.clone(), vec![], side));
    let red = shade_side(&toon_sphere(
        Toon {
            shade_texture: t(0),
            ..white_shade.clone()
        },
        vec![flat_texture(4, [255, 0, 0, 255])],
        side,
    ));
    assert!(
        i32::from(red[0]) > i32::from(red[2]) + 60
            && (i32::from(plain[0]) - i32::from(plain[2])).abs() < 20,
        "the shaded side: {red:?} with a red shade texture, {plain:?} without"
    );
    // The same where the shade texture is the base colour's (its texel read once): a reddish
    // base texture reddens the shade too.
    let pink = flat_texture(4, [255, 160, 160, 255]);
    let shared = shade_side(&toon_sphere_on(
        t(0),
        Toon {
            shade_texture: t(0),
            ..white_shade.clone()
        },
        vec![pink.clone()],
        side,
    ));
    let base_only = shade_side(&toon_sphere_on(t(0), white_shade.clone(), vec![pink], side));
    assert!(
        i32::from(shared[0]) > i32::from(shared[2]) + 30
            && (i32::from(base_only[0]) - i32::from(base_only[2])).abs() < 20,
        "the shaded side: {shared:?} with the base texture as shade texture, {base_only:?} \
         with it as base texture alone"
    );
    // The shading shift texture moves the step toward the shade: more of the row is lit.
    let dark_shade = Toon {
        shade: [0.05; 3],
        toony: 0.95,
        ..Toon::default()
    };
    let lit_pixels = |image: &RgbaImage| {
        (0..96)
            .filter(|&x| luminance(image.get_pixel(x, 48)) > 150.0)
            .count()
    };
    let unshifted = lit_pixels(&toon_sphere(dark_shade.clone(), vec![], side));
    let shifted = lit_pixels(&toon_sphere(
        Toon {
            shift_texture: t(0),
            shift_texture_scale: 0.6,
            ..dark_shade
        },
        vec![flat_texture(4, [255, 255, 255, 255])],
        side,
    ));
    assert!(
        shifted > unshifted + 5,
        "lit pixels across the middle: {shifted} shifted, {unshifted} not"
    );
    // A matcap white in its top half, black in its bottom: the sphere's upper half brightens
    // (the picture's top is the camera's up), its lower half does not; a black rim texture
    // takes it away again. Lit from behind, so the sphere's face is in its shade and far
    // from white.
    let front = Vec3::new(0.0, 0.2, -1.0);
    let grey = Toon {
        shade: [0.3; 3],
        ..Toon::default()
    };
    let bare = toon_sphere(grey.clone(), vec![], front);
    let matcap = Toon {
        matcap: [0.5; 3],
        matcap_texture: t(0),
        ..grey
    };
    let picture = halves(8, [255; 4], [0, 0, 0, 255]);
    let capped = toon_sphere(matcap.clone(), vec![picture.clone()], front);
    let (upper, lower) = ((48, 30), (48, 66));
    let gain = |at: (i64, i64)| patch(&capped, at.0, at.1, 3) - patch(&bare, at.0, at.1, 3);
    assert!(
        gain(upper) > 15.0 && gain(lower).abs() < 2.0,
        "the matcap brightens the upper half by {}, the lower by {}",
        gain(upper),
        gain(lower)
    );
    let masked = toon_sphere(
        Toon {
            rim_texture: t(1),
            ..matcap
        },
        vec![picture, flat_texture(4, [0, 0, 0, 255])],
        front,
    );
    let left = patch(&masked, upper.0, upper.1, 3) - patch(&bare, upper.0, upper.1, 3);
    assert!(left.abs() < 2.0, "a black rim texture leaves {left}");
}

#[test]
fn an_mtoon_outline_width_texture_thins_the_outline_where_it_is_dark() {
    // A black outline 6 cm wide: a width texture at 0 takes it away, at 255 keeps it whole;
    // VRM 0.x's is read in red, 1.0's in green.
    use npc_core::asset::material::TextureRef;
    use npc_core::asset::toon::{Outline, OutlineWidth, Toon};
    let front = Vec3::new(0.0, 0.3, 1.0);
    let base = Toon {
        shade: [0.6; 3],
        ..Toon::default()
    };
    let plain = toon_sphere(base.clone(), vec![], front);
    let dark_pixels = |texel: [u8; 4], width_in_red: bool| {
        let outline = Outline {
            width: OutlineWidth::World(0.06),
            color: [0.0; 3],
            lighting_mix: 0.0,
            width_texture: Some(TextureRef::plain(0)),
            width_in_red,
        };
        let image = toon_sphere(
            Toon {
                outline: Some(outline),
                ..base.clone()
            },
            vec![flat_texture(4, texel)],
            front,
        );
        image
            .enumerate_pixels()
            .filter(|(x, y, p)| luminance(p) < luminance(plain.get_pixel(*x, *y)) - 60.0)
            .count()
    };
    let (green, none, red) = (
        dark_pixels([0, 255, 0, 255], false),
        dark_pixels([255, 0, 0, 255], false),
        dark_pixels([255, 0, 0, 255], true),
    );
    assert!(
        green > 100 && none == 0 && red > 100,
        "dark outline pixels: green texture {green}, red read as 1.0's green {none}, \
         red read as 0.x's {red}"
    );
}

#[test]
fn a_device_that_binds_too_few_textures_is_refused_with_a_message() {
    // The materials need more textures a fragment than WebGPU's minimum (16); a device opened
    // with only that (as eframe opens one unless asked for more) is refused by name, not by a
    // validation panic when the pipelines are made.
    let full = match npc_render::Gpu::open(npc_render::instance(None), None) {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!(
                "a_device_that_binds_too_few_textures_is_refused_with_a_message: NOT RUN, {e}"
            );
            return;
        }
    };
    let desc = wgpu::DeviceDescriptor {
        required_limits: wgpu::Limits::default(),
        ..wgpu::DeviceDescriptor::default()
    };
    let (device, queue) = pollster::block_on(full.adapter.request_device(&desc)).unwrap();
    let small =
        npc_render::Gpu::from_parts(full.instance.clone(), full.adapter.clone(), device, queue);
    let skies =
        npc_core::procedural::sky::SkyKind::ALL.map(|k| npc_core::procedural::sky::cubemap(k, 8));
    let refused = npc_render::Renderer::new(
        &small,
        MeshStoreBuilder::default(),
        &skies,
        npc_render::OFFSCREEN_FORMAT,
        1,
        256,
    );
    let Err(error) = refused else {
        panic!(
            "a device with {} textures a stage was taken",
            wgpu::Limits::default().max_sampled_textures_per_shader_stage
        );
    };
    assert!(
        matches!(error, npc_render::RendererError::TooFewTextures { limit: 16, needed } if needed > 16),
        "{error}"
    );
    assert!(error.to_string().contains("at most 16 textures"), "{error}");
    // The device the player opens (the adapter's own limits) is taken.
    assert!(
        npc_render::Renderer::new(
            &full,
            MeshStoreBuilder::default(),
            &skies,
            npc_render::OFFSCREEN_FORMAT,
            1,
            256
        )
        .is_ok()
    );
}
