//! The distant silhouette (the coarsest level of detail, from 40 m: as few triangles as keep
//! each part's shape within 2% of its size) covers the pixels the silhouette level would:
//! drawn 41 m away in a 1080-pixel-tall image, the project's avatar and real ones (VALID,
//! Quaternius, VRoid) are covered by one level and not the other on few pixels (the step
//! before, the tenth to the silhouette, is printed beside it), and the dense ones draw far
//! fewer triangles.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use glam::Vec3;
use npc_player::open_offscreen;
use npc_render::{Camera, DrawList, LOD_COUNT};

const W: u32 = 256;
const H: u32 = 1080;

/// Whether each pixel (RGBA bytes) of `a` differs from `b` by more than 24 in any channel.
fn changed(a: &[u8], b: &[u8]) -> Vec<bool> {
    a.chunks_exact(4)
        .zip(b.chunks_exact(4))
        .map(|(p, q)| p.iter().zip(q.iter()).any(|(&x, &y)| x.abs_diff(y) > 24))
        .collect()
}

/// Pixels set in one mask and not the other.
fn either(a: &[bool], b: &[bool]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x != y).count()
}

/// What one avatar's step down changes: pixels it covers at the silhouette, pixels covered
/// at one level and not the other from the tenth to the silhouette and from the silhouette
/// to the distant silhouette, and the triangles each level draws.
struct Steps {
    covered: usize,
    to_silhouette: usize,
    to_distant: usize,
    triangles: [u64; 3],
}

/// Elara alone, as `avatar` (the project's own when None), drawn 41 m away at the tenth,
/// the silhouette and the distant silhouette.
fn steps(avatar: Option<&Path>) -> Steps {
    let demo = common::world_demo();
    let demo = match avatar {
        Some(a) => demo.with_elara_as(a),
        None => demo,
    };
    let (mut world, mut headless) = open_offscreen(&demo.project, Some(7), (W, H), 4)
        .expect("a Vulkan adapter (mesa-vulkan-drivers in CI)");
    let elara = world
        .project
        .npcs
        .iter()
        .position(|n| n.id == "Elara")
        .unwrap();
    let keep = world.npcs.remove(elara);
    world.npcs = vec![keep];
    world.update(1.0 / 30.0, Vec3::ZERO, &|_| 0.0);
    let centre = world.npcs[0].position + Vec3::Y * 0.9;
    let camera = Camera::looking_at(centre + Vec3::new(0.0, 4.0, 41.0), centre);
    let view = world.frame_view(camera, true);
    let primitives = headless.renderer.store.primitives.clone();
    let parts: std::collections::HashSet<u32> = world
        .content
        .avatars
        .iter()
        .flat_map(|a| std::iter::once(&a.body).chain(&a.head))
        .flat_map(|part| part.stored.meshes.iter().flatten().copied())
        .collect();
    let mut images = Vec::new();
    let mut triangles = [0; 3];
    let mut nothing = None;
    // Level 2, 3 and 4 in turn: the coarser levels pushed out of reach.
    for (i, level) in (2..LOD_COUNT).enumerate() {
        world.lod_distances = [4.0, 9.0, 20.0, 40.0];
        for d in &mut world.lod_distances[level..] {
            *d = 1.0e9;
        }
        let mut list = DrawList::default();
        world.draw(&primitives, &view, W as f32 / H as f32, &mut list);
        let levels: std::collections::HashSet<u8> = list
            .batches
            .iter()
            .filter(|b| parts.contains(&b.primitive) && b.passes.main)
            .map(|b| b.lod)
            .collect();
        assert_eq!(levels, [level as u8].into_iter().collect());
        let mut npc_only = list.clone();
        npc_only.batches.retain(|b| parts.contains(&b.primitive));
        triangles[i] = npc_render::triangles_drawn(&npc_only, &primitives)[0];
        if nothing.is_none() {
            let mut without = list.clone();
            without.batches.retain(|b| !parts.contains(&b.primitive));
            nothing = Some(headless.draw_list(&without, &view).unwrap().into_raw());
        }
        images.push(headless.draw_list(&list, &view).unwrap().into_raw());
    }
    // NPC_DUMP=DIR writes the three frames as PPM files, to look at.
    if let Some(dir) = std::env::var_os("NPC_DUMP") {
        for (i, img) in images.iter().enumerate() {
            let mut ppm = format!("P6 {W} {H} 255\n").into_bytes();
            ppm.extend(img.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]));
            let name = avatar.map_or("own".into(), |a| {
                a.file_stem().unwrap().to_string_lossy().into_owned()
            });
            std::fs::write(Path::new(&dir).join(format!("{name}-{i}.ppm")), ppm).unwrap();
        }
    }
    let nothing = nothing.unwrap();
    let masks: Vec<Vec<bool>> = images.iter().map(|i| changed(i, &nothing)).collect();
    Steps {
        covered: masks[1].iter().filter(|&&m| m).count(),
        to_silhouette: either(&masks[0], &masks[1]),
        to_distant: either(&masks[1], &masks[2]),
        triangles,
    }
}

/// Checks one avatar; `dense`: its silhouette has triangles to spare (the distant level draws
/// fewer than half of them).
fn check(name: &str, avatar: Option<&Path>, dense: bool) {
    let s = steps(avatar);
    eprintln!(
        "{name}: covers {} pixels at 41 m; tenth -> silhouette changes {}, silhouette -> \
         distant {}; triangles {:?}",
        s.covered, s.to_silhouette, s.to_distant, s.triangles
    );
    assert!(s.covered > 150, "{name}: only {} pixels", s.covered);
    let kept = if dense { 2 } else { 1 };
    assert!(
        s.triangles[2] * kept <= s.triangles[1],
        "{name}: the distant silhouette keeps {:?} triangles",
        s.triangles
    );
    assert!(
        s.to_distant * 4 <= s.covered,
        "{name}: {} of {} pixels covered by one level and not the other",
        s.to_distant,
        s.covered
    );
}

#[test]
fn the_distant_silhouette_covers_what_the_silhouette_does() {
    check("the project's avatar", None, false);
    if let Some(valid) = common::shared_asset("avatars/VALID_White_M_1_Casual.glb") {
        check("VALID", Some(&valid), true);
    }
    if let Some(q) = common::shared_asset("avatars/Quaternius_Superhero_Male.glb") {
        check("Quaternius", Some(&q), false);
    }
    if let Some(vrm) = common::vrm_avatar("suzuha.vrm") {
        check("VRoid suzuha", Some(&vrm), true);
    }
}
