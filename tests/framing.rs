//! `render --full-body` frames every avatar whole by its own measure: a mascot whose head is
//! most of it (VRoid Hub's Cool Loops, a cereal box on legs) and one as wide as it is tall
//! (Catbot), as well as adult proportions. Each avatar's box at rest, placed where the NPC
//! stands, must fall inside a portrait frame (2:3), and fill at least three quarters of its height, in the middle.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use glam::Vec3;
use npc_player::World;
use npc_render::MeshStoreBuilder;

/// Where the top and bottom of Elara's box land in a 2:3 frame (NDC y, -1 bottom to 1 top),
/// and its left and right (NDC x).
fn framed(avatar: Option<&std::path::Path>) -> (f32, f32, f32, f32) {
    let mut d = common::world_demo();
    if let Some(a) = avatar {
        d = d.with_elara_as(a);
    }
    let mut meshes = MeshStoreBuilder::default();
    let world = World::load(&d.project, &mut meshes).unwrap();
    let camera = world.body_camera("Elara").unwrap();
    let npc = &world.npcs[world.npc_index("Elara").unwrap()];
    let (low, high) = world.content.avatars[npc.avatar].rest_bounds.unwrap();
    let clip = camera.view_proj(2.0 / 3.0);
    let model = npc.model();
    let (mut top, mut bottom, mut left, mut right) = (-2.0f32, 2.0f32, 2.0f32, -2.0f32);
    for i in 0..8 {
        let corner = Vec3::new(
            if i & 1 == 0 { low.x } else { high.x },
            if i & 2 == 0 { low.y } else { high.y },
            if i & 4 == 0 { low.z } else { high.z },
        );
        let p = clip.project_point3(model.transform_point3(corner));
        top = top.max(p.y);
        bottom = bottom.min(p.y);
        left = left.min(p.x);
        right = right.max(p.x);
    }
    (top, bottom, left, right)
}

fn assert_whole(name: &str, (top, bottom, left, right): (f32, f32, f32, f32)) {
    assert!(
        top <= 1.0 && bottom >= -1.0,
        "{name}: its height runs out of the frame ({bottom:.2} to {top:.2})"
    );
    // Measured before this framing: Catbot filled 41 % of the height, in the lower half.
    assert!(
        top - bottom >= 1.5,
        "{name}: it fills too little of the frame ({bottom:.2} to {top:.2})"
    );
    assert!(
        (top + bottom).abs() <= 0.2,
        "{name}: not in the middle of the frame ({bottom:.2} to {top:.2})"
    );
    // The box's corners at rest (arms out in a T-pose) may reach past the sides of a
    // portrait frame; its middle must not.
    assert!(
        left < 0.0 && right > 0.0,
        "{name}: off centre ({left:.2} to {right:.2})"
    );
}

#[test]
fn whole_body_views_frame_each_avatar_by_its_own_measure() {
    assert_whole("the project's avatar", framed(None));
    for file in ["cool_loops.vrm", "catbot.vrm", "suzuha.vrm"] {
        let Some(avatar) = common::vrm_avatar(file) else {
            return;
        };
        assert_whole(file, framed(Some(&avatar)));
    }
}

/// Where the head joint and the top of the head land in a 4:3 close-up (NDC y), the camera
/// placed before the first frame is posed, as `render --closeup` places it for frame 0.
fn closeup(avatar: Option<&std::path::Path>) -> (f32, f32) {
    let mut d = common::world_demo();
    if let Some(a) = avatar {
        d = d.with_elara_as(a);
    }
    let mut meshes = MeshStoreBuilder::default();
    let world = World::load(&d.project, &mut meshes).unwrap();
    let camera = world.closeup_camera("Elara").unwrap();
    let npc = &world.npcs[world.npc_index("Elara").unwrap()];
    let avatar = &world.content.avatars[npc.avatar];
    let joint = avatar.rest_head();
    let top = joint + Vec3::Y * avatar.head_above_joint().unwrap();
    let clip = camera.view_proj(4.0 / 3.0);
    let y = |p: Vec3| clip.project_point3(npc.model().transform_point3(p)).y;
    (y(joint), y(top))
}

#[test]
fn close_ups_frame_the_head_from_the_first_frame_by_its_size() {
    let check = |name: &str, (joint, top): (f32, f32)| {
        assert!(
            (-1.0..=1.0).contains(&joint),
            "{name}: the head joint is out of the close-up ({joint:.2})"
        );
        assert!(
            top <= 1.3 && top > joint,
            "{name}: the top of the head is far out of the close-up ({joint:.2} to {top:.2})"
        );
    };
    check("the project's avatar", closeup(None));
    for file in ["catbot.vrm", "suzuha.vrm"] {
        let Some(avatar) = common::vrm_avatar(file) else {
            return;
        };
        check(file, closeup(Some(&avatar)));
    }
}
