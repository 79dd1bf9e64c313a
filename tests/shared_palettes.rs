//! An avatar whose meshes each carry their own copy of one skin (a VALID character: seven
//! skins of the same 84 joints) poses one palette per NPC, not seven: and every one of its
//! skinned primitives, deformed on the GPU through that shared palette, lands where the CPU
//! puts it with the primitive's own skin.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use glam::{Mat4, Vec3};
use npc_core::asset::lod::{drop_small_silhouette, lod_indices, nested_levels, rest_extents};
use npc_core::{ArkitTarget, Pose};
use npc_player::open_offscreen;
use npc_render::{DrawList, deformed_positions};

#[test]
fn seven_equal_skins_pose_one_palette_that_deforms_every_primitive() {
    let Some(valid) = common::shared_asset("avatars/VALID_White_M_1_Casual.glb") else {
        return;
    };
    let demo = common::world_demo().with_elara_as(&valid);
    let (mut world, mut headless) = open_offscreen(&demo.project, Some(7), (64, 64), 4)
        .expect("a Vulkan adapter (mesa-vulkan-drivers in CI)");
    world.set_goal("Elara", 0.6, 0.6);
    for _ in 0..20 {
        world.update(1.0 / 30.0, Vec3::new(0.0, 1.7, 8.0), &|_| 0.0);
    }
    let npc = &mut world.npcs[0];
    let avatar = &world.content.avatars[npc.avatar];
    let skins = &avatar.body.asset.skins;
    assert_eq!(skins.len(), 7, "the VALID body's skins");
    assert_eq!(
        avatar.body.palettes.owners,
        [0],
        "one palette for seven equal skins"
    );
    assert_eq!(npc.palettes.len(), 1);
    assert_eq!(npc.palettes[0].len(), skins[0].joints.len());
    let pose = Pose::from_pairs(&[(ArkitTarget::JawOpen, 0.8), (ArkitTarget::MouthFunnel, 0.4)]);
    npc.weights.edit(|w| avatar.face_rig().apply(&pose, w));
    let mut list = DrawList::default();
    let view = world.frame_view(world.closeup_camera("Elara").unwrap(), true);
    world.draw(&headless.renderer.store.primitives, &view, 1.0, &mut list);
    headless.draw_list(&list, &view).unwrap();

    let npc = &world.npcs[0];
    let avatar = &world.content.avatars[npc.avatar];
    let asset = &avatar.body.asset;
    let model = npc.model();
    let extents = rest_extents(asset);
    let asset_extent = extents.iter().flatten().copied().fold(0.0, f32::max);
    let mut checked = std::collections::BTreeSet::new();
    for group in &asset.instances {
        let Some(skin) = group.skin else { continue };
        let mut palette = Vec::new();
        asset.skins[skin].palette_into(&npc.node_world, &mut palette);
        let weights = &npc.weights.per_mesh()[group.mesh];
        for (i, (p, &id)) in asset.meshes[group.mesh]
            .primitives
            .iter()
            .zip(&avatar.body.stored.meshes[group.mesh])
            .enumerate()
        {
            // Elara is the only VALID character: her copy is the first of its batch.
            let batch = list.batches.iter().find(|b| b.primitive == id).unwrap();
            let stored = headless.renderer.store.primitives[id as usize];
            let gpu = deformed_positions(
                &headless.gpu,
                &headless.renderer,
                batch.first_object,
                stored.vertex_base,
                stored.vertex_count,
            )
            .unwrap();
            assert_eq!(gpu.len(), p.positions.len());
            // The store numbers a primitive's vertices coarse levels first, small parts
            // (eyes, teeth) without the silhouette level.
            let mut levels = lod_indices(&p.positions, &p.indices);
            drop_small_silhouette(&mut levels, extents[group.mesh][i], asset_extent);
            let order = nested_levels(p.positions.len(), &levels);
            let mut worst = 0.0_f32;
            for (&v, gpu_position) in order.order.iter().zip(&gpu) {
                let v = v as usize;
                let mut pos = Vec3::from(p.positions[v]);
                for (t, target) in p.targets.iter().enumerate() {
                    pos += weights.get(t).copied().unwrap_or(0.0) * Vec3::from(target.positions[v]);
                }
                let (j, w) = (p.joints[v], p.weights[v]);
                let skinning: Mat4 = (0..4)
                    .map(|k| palette[j[k] as usize] * w[k])
                    .fold(Mat4::ZERO, |a, m| a + m);
                let cpu = model.transform_point3(skinning.transform_point3(pos));
                worst = worst.max((cpu - *gpu_position).length());
            }
            assert!(
                worst < 1e-4,
                "mesh {} (skin {skin}): GPU and CPU differ by up to {worst} m",
                group.mesh
            );
            checked.insert(skin);
        }
    }
    assert_eq!(checked.len(), 7, "skins checked: {checked:?}");
}
