//! The main pass drawn by visibility and resolved in compute (one sample per pixel) shows the
//! picture the mesh passes shade: the demo world from its first camera, a close-up of Elara
//! and a view from 49 m (the distant silhouettes shaded by the mesh passes over the resolve),
//! with the project's avatar and real ones (VALID: textures and normal maps; VRoid's suzuha:
//! MToon, outlines, masked and blended hair), differ by little on few pixels. Barycentrics,
//! texture footprints, facing and the sky are all checked by this, since each one wrong moves
//! many pixels far.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use glam::Vec3;
use npc_player::open_offscreen;
use npc_render::{Camera, DrawList, RasterShares};

const W: u32 = 320;
const H: u32 = 240;

/// How two frames differ: the mean over pixels of the largest channel difference, and the
/// pixels whose largest channel difference is over 32.
fn difference(a: &[u8], b: &[u8]) -> (f64, usize) {
    let per_pixel: Vec<u8> = a
        .chunks_exact(4)
        .zip(b.chunks_exact(4))
        .map(|(p, q)| (0..3).map(|c| p[c].abs_diff(q[c])).max().unwrap_or(0))
        .collect();
    let mean = per_pixel.iter().map(|&d| f64::from(d)).sum::<f64>() / per_pixel.len() as f64;
    (mean, per_pixel.iter().filter(|&&d| d > 32).count())
}

/// Draws the demo world (Elara as `avatar`, the project's own when None) from its first
/// camera and Elara's close-up, resolved in compute and then shaded by the mesh passes; checks
/// they agree.
fn check(name: &str, avatar: Option<&Path>) {
    let demo = common::world_demo();
    let demo = match avatar {
        Some(a) => demo.with_elara_as(a),
        None => demo,
    };
    let (mut world, mut headless) = open_offscreen(&demo.project, Some(7), (W, H), 1)
        .expect("a Vulkan adapter (mesa-vulkan-drivers in CI)");
    headless.renderer.set_resolve(&headless.gpu.device, true);
    assert!(
        headless.renderer.resolves(),
        "this adapter binds too few storage buffers a stage: the compute resolve cannot be \
         tested here"
    );
    world.update(1.0 / 30.0, Vec3::ZERO, &|_| 0.0);
    let primitives = headless.renderer.store.primitives.clone();
    let elara = world.closeup_camera("Elara").unwrap();
    // From 49 m the NPCs are at the distant silhouette, shaded by the mesh passes over the
    // resolve (but MToon ones).
    let far = Camera::looking_at(elara.target + Vec3::new(-30.0, 6.0, 38.0), elara.target);
    let cameras = [
        ("first camera", world.overview_camera()),
        ("close-up", elara),
        ("49 m away", far),
    ];
    let mut frames = Vec::new();
    for resolve in [true, false] {
        headless.renderer.set_resolve(&headless.gpu.device, resolve);
        for (what, camera) in &cameras {
            let view = world.frame_view(*camera, true);
            let mut list = DrawList::default();
            world.draw(&primitives, &view, W as f32 / H as f32, &mut list);
            let coarse = list.batches.iter().any(|b| b.passes.main && b.lod >= 4);
            assert_eq!(coarse, *what == "49 m away", "{what}: levels drawn");
            frames.push(headless.draw_list(&list, &view).unwrap().into_raw());
            assert_eq!(headless.renderer.resolved_last_frame(), resolve);
        }
    }
    // NPC_DUMP=DIR writes the frames as PPM files, to look at.
    if let Some(dir) = std::env::var_os("NPC_DUMP") {
        for (i, img) in frames.iter().enumerate() {
            let mut ppm = format!("P6 {W} {H} 255\n").into_bytes();
            ppm.extend(img.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]));
            let stem = avatar.map_or("own".into(), |a| {
                a.file_stem().unwrap().to_string_lossy().into_owned()
            });
            std::fs::write(Path::new(&dir).join(format!("{stem}-{i}.ppm")), ppm).unwrap();
        }
    }
    let pixels = (W * H) as usize;
    for (i, (what, _)) in cameras.iter().enumerate() {
        let (mean, far) = difference(&frames[i], &frames[i + cameras.len()]);
        eprintln!(
            "{name}, {what}: mean difference {mean:.3} of 255, {far} of {pixels} pixels over 32"
        );
        assert!(mean < 1.0, "{name}, {what}: mean difference {mean:.3}");
        assert!(
            far * 500 < pixels,
            "{name}, {what}: {far} of {pixels} pixels differ by over 32"
        );
    }
}

#[test]
fn the_compute_resolve_shows_what_the_mesh_passes_shade() {
    check("the project's avatar", None);
    if let Some(valid) = common::shared_asset("avatars/VALID_White_M_1_Casual.glb") {
        check("VALID", Some(&valid));
    }
    if let Some(vrm) = common::vrm_avatar("suzuha.vrm") {
        check("VRoid suzuha", Some(&vrm));
    }
}

/// The GPU timer reads back the passes a frame drew and no others (resolving a timestamp
/// never written waited forever on an H100): frames with and without the shadow pass, resolved
/// in compute (its far casters rasterized in compute) and not.
#[test]
fn the_gpu_timer_reads_the_passes_a_frame_drew() {
    let demo = common::world_demo();
    let (mut world, mut headless) = open_offscreen(&demo.project, Some(7), (W, H), 1)
        .expect("a Vulkan adapter (mesa-vulkan-drivers in CI)");
    assert!(
        headless.timer.is_some(),
        "this adapter writes no timestamps in passes: the GPU timer cannot be tested here"
    );
    world.update(1.0 / 30.0, Vec3::ZERO, &|_| 0.0);
    let primitives = headless.renderer.store.primitives.clone();
    // Resolved frames rasterize the far shadow casters in compute too, where the device can
    // (the shadow pass's time then ends in the compute pass).
    headless.renderer.set_raster_shadow(true);
    headless.renderer.set_raster_shadow_min(0);
    for resolve in [true, false] {
        headless.renderer.set_resolve(&headless.gpu.device, resolve);
        for shadows in [true, false, true] {
            let view = world.frame_view(world.overview_camera(), shadows);
            let mut list = DrawList::default();
            world.draw(&primitives, &view, W as f32 / H as f32, &mut list);
            let times = headless.submit(&list, &view).expect("timed frame");
            let what = format!("resolve {resolve}, shadows {shadows}: {times:?}");
            assert!(times.main > 0.0, "{what}");
            assert_eq!(times.shadow > 0.0, shadows, "{what}");
            assert!(times.total >= times.main, "{what}");
            let steps = times.resolve;
            assert_eq!(steps.is_some(), resolve, "{what}");
            if let Some(s) = steps {
                assert!(s.visibility > 0.0 && s.resolve > 0.0, "{what}");
                assert!(
                    s.visibility + s.raster + s.classify + s.resolve + s.over <= times.main * 1.001,
                    "{what}"
                );
            }
        }
    }
}

/// Draws the demo world from its first camera, from 49 m and in close-ups (one at the second
/// level, one with her face cut by the camera's plane), the objects rasterized in compute
/// (masked surfaces and the shadow map's casters too; from the second level, or all) and by
/// the rasterizer, both resolved; checks the compute raster drew them and the frames agree,
/// MToon outlines (drawn over the resolve, behind the merged depth) included (on a device
/// without 64-bit atomics the test says it cannot run).
fn check_compute_raster(name: &str, avatar: Option<&Path>) {
    let demo = common::world_demo();
    let demo = match avatar {
        Some(a) => demo.with_elara_as(a),
        None => demo,
    };
    let (mut world, mut headless) = open_offscreen(&demo.project, Some(7), (W, H), 1)
        .expect("a Vulkan adapter (mesa-vulkan-drivers in CI)");
    headless.renderer.set_resolve(&headless.gpu.device, true);
    headless
        .renderer
        .set_compute_raster(&headless.gpu.device, true);
    headless.renderer.set_raster_masked(true);
    headless.renderer.set_raster_shadow(true);
    headless.renderer.set_raster_shadow_min(0);
    assert!(
        headless.renderer.computes_raster(),
        "this adapter has no 64-bit atomic min and max (shaderInt64, VK_KHR_shader_atomic_int64): \
         the compute raster cannot be tested here"
    );
    world.update(1.0 / 30.0, Vec3::ZERO, &|_| 0.0);
    let primitives = headless.renderer.store.primitives.clone();
    let elara = world.closeup_camera("Elara").unwrap();
    let far = Camera::looking_at(elara.target + Vec3::new(-30.0, 6.0, 38.0), elara.target);
    // The close-up draws every NPC at its second level, the first the compute raster takes:
    // their surfaces large on screen, masked ones' holes (VRoid's hair and lashes) many
    // pixels.
    // From the first level on, everything is rasterized in compute: the ground crossing the
    // camera's plane (clipped there), the nearest NPC's triangles of many pixels (a workgroup
    // each).
    let second_level = [0.01, 1e3, 2e3, 3e3];
    let landed = world.lod_distances;
    // The camera's plane cutting through her face.
    let mut cut = elara;
    cut.near = elara.position.distance(elara.target) * 0.95;
    let cameras = [
        ("first camera", world.overview_camera(), landed, 1),
        ("49 m away", far, landed, 1),
        ("close-up at the second level", elara, second_level, 1),
        (
            "first camera, all in compute",
            world.overview_camera(),
            landed,
            0,
        ),
        ("close-up, all in compute", elara, landed, 0),
        ("her face cut by the camera's plane", cut, landed, 0),
    ];
    let mut frames = Vec::new();
    let mut shadow_rastered = 0;
    // The compute raster as it shares pixels out, then with more triangles left to workgroups
    // and many shared by several (their bounds over 1024 pixels), then the rasterizer alone.
    let shared_out = RasterShares {
        large_pixels: Some(16),
        huge_pixels: Some(1024),
    };
    let configs = [
        (true, RasterShares::default()),
        (true, shared_out),
        (false, RasterShares::default()),
    ];
    for (raster, shares) in configs {
        headless
            .renderer
            .set_compute_raster(&headless.gpu.device, raster);
        if raster {
            headless
                .renderer
                .set_raster_shares(&headless.gpu.device, shares);
        }
        for (what, camera, lods, raster_from) in &cameras {
            world.lod_distances = *lods;
            headless.renderer.set_raster_from_lod(*raster_from);
            let view = world.frame_view(*camera, true);
            let mut list = DrawList::default();
            world.draw(&primitives, &view, W as f32 / H as f32, &mut list);
            frames.push(headless.draw_list(&list, &view).unwrap().into_raw());
            assert!(headless.renderer.resolved_last_frame(), "{name}, {what}");
            let rastered = headless.renderer.rastered_last_frame();
            let shadow = headless.renderer.shadow_rastered_last_frame();
            eprintln!(
                "{name}, {what}: {rastered} triangles rasterized in compute, {shadow} of the \
                 shadow map's"
            );
            assert!(
                raster || shadow == 0,
                "{name}, {what}: {shadow} shadow triangles"
            );
            shadow_rastered += shadow;
            assert_eq!(
                rastered > 0,
                raster,
                "{name}, {what}: {rastered} triangles rasterized in compute"
            );
        }
    }
    assert!(
        shadow_rastered > 0,
        "{name}: no shadow caster rasterized in compute"
    );
    let pixels = (W * H) as usize;
    let n = cameras.len();
    for (c, (what, ..)) in (0..2 * n).map(|c| (c, &cameras[c % n])) {
        let what = format!("{what}{}", if c < n { "" } else { ", pixels shared out" });
        let rasterizer = &frames[2 * n + c % n];
        let (mean, far) = difference(&frames[c], rasterizer);
        let moved = frames[c]
            .chunks_exact(4)
            .zip(rasterizer.chunks_exact(4))
            .filter(|(a, b)| a != b)
            .count();
        eprintln!(
            "{name}, {what}, compute raster against the rasterizer: mean difference {mean:.3} \
             of 255, {far} of {pixels} pixels over 32, {moved} differ at all"
        );
        assert!(mean < 0.5, "{name}, {what}: mean difference {mean:.3}");
        assert!(
            far * 1000 < pixels,
            "{name}, {what}: {far} of {pixels} pixels differ by over 32"
        );
    }
}

#[test]
fn far_npcs_rasterized_in_compute_look_as_the_rasterizer_draws_them() {
    check_compute_raster("the project's avatar", None);
    if let Some(valid) = common::shared_asset("avatars/VALID_White_M_1_Casual.glb") {
        check_compute_raster("VALID", Some(&valid));
    }
    if let Some(vrm) = common::vrm_avatar("suzuha.vrm") {
        check_compute_raster("VRoid suzuha", Some(&vrm));
    }
}
