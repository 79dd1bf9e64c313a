//! The default body: skeleton, skin weights, parts, clips and the assembled avatar.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::asset::Asset;
use crate::asset::animation::Property;
use crate::asset::mesh::MorphTarget;
use crate::asset::scene::world_transforms;

/// A stand-in head (not the real one): a small sphere with two named targets.
fn fake_head_part() -> HeadPart {
    let mut primitive = Primitive::default();
    for r in 0..8 {
        let theta = r as f32 / 7.0 * std::f32::consts::PI;
        for s in 0..10 {
            let phi = s as f32 / 10.0 * TAU;
            let d = Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                theta.sin() * phi.sin(),
            );
            primitive.positions.push((d * 0.1).to_array());
            primitive.normals.push(d.to_array());
        }
    }
    for r in 0..7_u32 {
        for s in 0..10_u32 {
            let (a, b) = (r * 10 + s, r * 10 + (s + 1) % 10);
            primitive
                .indices
                .extend_from_slice(&[a, a + 10, b, b, a + 10, b + 10]);
        }
    }
    let n = primitive.positions.len();
    for k in 0..2 {
        primitive.targets.push(MorphTarget {
            positions: (0..n).map(|i| [0.0, 0.001 * (i + k) as f32, 0.0]).collect(),
            normals: Vec::new(),
        });
    }
    HeadPart {
        name: "FakeHead",
        primitive,
        target_names: vec!["jawOpen", "eyeBlinkLeft"],
        material: Material::default(),
    }
}

fn heads() -> Vec<HeadPart> {
    vec![fake_head_part()]
}

/// Signed volume of a closed mesh: positive when its triangles face outward.
fn signed_volume(p: &Piece) -> f32 {
    p.indices
        .chunks_exact(3)
        .map(|t| {
            let [a, b, c] = [0, 1, 2].map(|k| p.positions[t[k] as usize]);
            a.dot(b.cross(c)) / 6.0
        })
        .sum()
}

#[test]
fn skeleton_has_mixamo_names_and_proportions() {
    let sk = skeleton();
    assert_eq!(sk.len(), JOINT_COUNT);
    for name in [
        "mixamorig:Hips",
        "mixamorig:Spine2",
        "mixamorig:Head",
        "mixamorig:HeadTop_End",
        "mixamorig:LeftHand",
        "mixamorig:RightForeArm",
        "mixamorig:LeftToeBase",
        "mixamorig:RightFoot",
    ] {
        assert!(sk.index(name).is_some(), "{name}");
    }
    for (j, parent) in sk.parents.iter().enumerate() {
        assert_eq!(parent.is_none(), j == HIPS);
        assert!(parent.is_none_or(|p| p < j));
    }
    let world = sk.rest_world();
    let y = |j: usize| world[j].w_axis.y;
    assert!((y(HIPS) - 0.95).abs() < 0.03);
    assert!((1.55..=1.6).contains(&y(HEAD)));
    assert!((1.7..=1.82).contains(&y(HEAD_TOP_END)));
    // Left is +X, mirrored on the right.
    assert!(world[LEFT_HAND].w_axis.x > 0.1);
    assert!((world[LEFT_HAND].w_axis.x + world[RIGHT_HAND].w_axis.x).abs() < 1e-6);
}

#[test]
fn body_pieces_are_closed_and_face_outward() {
    let pieces = [
        ("torso", shirt_torso()),
        ("sleeve", sleeve(LEFT)),
        ("right sleeve", sleeve(RIGHT)),
        ("hand", hand(RIGHT)),
        ("neck", neck()),
        ("pelvis", pelvis()),
        ("leg", trouser_leg(RIGHT)),
        ("shoe", shoe(LEFT)),
    ];
    for (name, piece) in pieces {
        assert!(signed_volume(&piece) > 0.0, "{name} faces inward");
        // Closed: every edge is shared by exactly two triangles.
        let mut edges = std::collections::HashMap::new();
        for t in piece.indices.chunks_exact(3) {
            for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                *edges.entry((a.min(b), a.max(b))).or_insert(0) += 1;
            }
        }
        assert!(edges.values().all(|&n| n == 2), "{name} is not closed");
    }
    // The body spans the floor to the neck and is about as wide as a person.
    let parts = body_parts();
    let all: Vec<Vec3> = parts
        .iter()
        .flat_map(|p| p.primitive.positions.iter().map(|&q| Vec3::from(q)))
        .collect();
    let min = all.iter().fold(Vec3::MAX, |a, &b| a.min(b));
    let max = all.iter().fold(Vec3::MIN, |a, &b| a.max(b));
    assert!(min.y.abs() < 0.01, "lowest point {min}");
    assert!((1.5..1.65).contains(&max.y), "highest point {max}");
    assert!(
        (0.4..0.6).contains(&(max.x - min.x)),
        "width {}",
        max.x - min.x
    );
}

#[test]
fn avatar_loads_with_skin_clips_and_weights() {
    let bytes = avatar_glb(&heads());
    let asset = Asset::from_bytes(&bytes, None).unwrap();
    assert_eq!(asset.skins.len(), 1);
    let skin = &asset.skins[0];
    for name in [
        "mixamorig:Hips",
        "mixamorig:Head",
        "mixamorig:LeftHand",
        "mixamorig:RightFoot",
    ] {
        assert!(skin.joint_names.iter().any(|n| n == name), "{name}");
    }
    assert_eq!(skin.joints, (0..JOINT_COUNT).collect::<Vec<_>>());
    let names: Vec<&str> = asset.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["idle", "walk", "talk"]);
    assert!(asset.clips.iter().all(|c| c.duration_s > 0.5));
    let mut vertices = 0;
    for mesh in &asset.meshes {
        for p in &mesh.primitives {
            assert_eq!(p.joints.len(), p.positions.len());
            assert_eq!(p.weights.len(), p.positions.len());
            for (j, w) in p.joints.iter().zip(&p.weights) {
                let sum: f32 = w.iter().sum();
                assert!((sum - 1.0).abs() < 1e-3, "weights {w:?}");
                assert!(w.iter().all(|&x| x >= 0.0));
                assert!(j.iter().all(|&k| usize::from(k) < skin.joints.len()));
            }
            vertices += p.positions.len();
        }
    }
    assert!(vertices > 1000, "{vertices} vertices");
    // Every mesh is skinned; the head kept its targets and names.
    assert!(asset.instances.iter().all(|g| g.skin == Some(0)));
    let head = asset
        .meshes
        .iter()
        .find(|m| m.name.as_deref() == Some("FakeHead"))
        .unwrap();
    assert_eq!(head.target_count(), 2);
    assert_eq!(head.target_names[0].raw.as_deref(), Some("jawOpen"));
    assert!(asset.face_rig.arkit_coverage() >= 2);
    assert_eq!(bytes, avatar_glb(&heads()), "bytes differ between calls");
}

#[test]
fn avatar_with_the_project_head_has_the_arkit_face() {
    let parts = super::super::head::head_parts();
    let bytes = avatar_glb(&parts);
    let asset = Asset::from_bytes(&bytes, None).unwrap();
    assert_eq!(asset.face_rig.arkit_coverage(), 52);
    assert_eq!(asset.meshes.len(), body_parts().len() + parts.len());
    let rest: Vec<Transform> = asset.nodes.iter().map(|n| n.transform).collect();
    let world = world_transforms(&asset.nodes, &rest);
    let head_at = world[HEAD].w_axis.truncate();
    let neck_base = super::super::head::landmarks().neck_base;
    assert!(
        neck_base.distance(HEAD_NECK_BASE) < 0.03,
        "the head's neck base is at {neck_base}"
    );
    for part in &parts {
        let mesh = asset
            .meshes
            .iter()
            .find(|m| m.name.as_deref() == Some(part.name))
            .unwrap();
        let p = &mesh.primitives[0];
        assert_eq!(p.targets.len(), part.primitive.targets.len());
        assert!(p.joints.iter().all(|j| usize::from(j[0]) == HEAD));
        assert!(p.weights.iter().all(|w| w[0] == 1.0));
        for (q, original) in p.positions.iter().zip(&part.primitive.positions) {
            let expected = Vec3::from(*original) - HEAD_NECK_BASE + head_at;
            assert!(Vec3::from(*q).abs_diff_eq(expected, 1e-5));
        }
    }
    // Textured head materials keep their textures.
    assert!(asset.textures.iter().any(Option::is_some));
}

#[test]
fn walk_moves_the_feet_in_place() {
    let asset = Asset::from_bytes(&avatar_glb(&heads()), None).unwrap();
    let rest: Vec<Transform> = asset.nodes.iter().map(|n| n.transform).collect();
    let rest_world = world_transforms(&asset.nodes, &rest);
    let walk = asset.clips.iter().find(|c| c.name == "walk").unwrap();
    let foot = |t: f32| {
        let mut locals = rest.clone();
        let mut weights = vec![Vec::new(); locals.len()];
        walk.sample(t, true, &mut locals, &mut weights);
        let world = world_transforms(&asset.nodes, &locals);
        (
            world[LEFT_FOOT].w_axis.truncate(),
            world[RIGHT_FOOT].w_axis.truncate(),
            locals[HIPS].translation,
        )
    };
    let (left, right, hips) = foot(0.25);
    let at_rest = rest_world[LEFT_FOOT].w_axis.truncate();
    assert!(left.distance(at_rest) > 0.05, "{left} vs rest {at_rest}");
    // Left forward, right back, a quarter of the way through the stride.
    assert!(left.z > 0.1 && right.z < -0.1, "{left} {right}");
    assert!((hips.z - rest[HIPS].translation.z).abs() < 1e-6);
    // Half a stride later the feet have swapped.
    let (left2, right2, _) = foot(0.75);
    assert!(left2.z < -0.1 && right2.z > 0.1, "{left2} {right2}");
    // Looping: the end is the start.
    let (a, _, _) = foot(0.0);
    let (b, _, _) = foot(walk.duration_s);
    assert!(a.distance(b) < 1e-4);
}

#[test]
fn head_vertices_follow_the_head_joint() {
    let asset = Asset::from_bytes(&avatar_glb(&heads()), None).unwrap();
    let skin = &asset.skins[0];
    let head_mesh = asset
        .meshes
        .iter()
        .position(|m| m.name.as_deref() == Some("FakeHead"))
        .unwrap();
    let p = &asset.meshes[head_mesh].primitives[0];
    // The head's neck base sits on the Head joint.
    let rest: Vec<Transform> = asset.nodes.iter().map(|n| n.transform).collect();
    let world = world_transforms(&asset.nodes, &rest);
    let head_at = world[HEAD].w_axis.truncate();
    let lowest = p.positions.iter().map(|q| q[1]).fold(f32::MAX, f32::min);
    assert!((lowest - (head_at.y - HEAD_NECK_BASE.y - 0.1)).abs() < 1e-4);
    assert!(p.joints.iter().all(|j| usize::from(j[0]) == HEAD));
    let mut palette = Vec::new();
    skin.palette_into(&world, &mut palette);
    for q in p.positions.iter().take(20) {
        let v = Vec3::from(*q);
        assert!(palette[HEAD].transform_point3(v).abs_diff_eq(v, 1e-5));
    }
    // In the talk clip the head turns, and its vertices turn with the joint.
    let talk = asset.clips.iter().find(|c| c.name == "talk").unwrap();
    let mut locals = rest.clone();
    talk.sample(
        1.3,
        true,
        &mut locals,
        &mut vec![Vec::new(); asset.nodes.len()],
    );
    let posed = world_transforms(&asset.nodes, &locals);
    skin.palette_into(&posed, &mut palette);
    let v = Vec3::from(p.positions[0]);
    let expected = posed[HEAD].transform_point3(world[HEAD].inverse().transform_point3(v));
    let moved = palette[HEAD].transform_point3(v);
    assert!(moved.abs_diff_eq(expected, 1e-4));
    assert!(
        moved.distance(v) > 0.005,
        "the head did not move: {moved} {v}"
    );
}

#[test]
fn clips_loop_and_keep_the_root_in_place() {
    let sk = skeleton();
    for clip in clips(&sk) {
        assert!(clip.duration_s > 0.5);
        for channel in &clip.channels {
            let w = channel.width;
            let first = &channel.values[..w];
            let last = &channel.values[channel.values.len() - w..];
            for (a, b) in first.iter().zip(last) {
                assert!((a - b).abs() < 1e-4, "{} node {}", clip.name, channel.node);
            }
            if channel.property == Property::Translation {
                assert_eq!(channel.node, HIPS);
                for key in channel.values.chunks_exact(3) {
                    assert!(key[2].abs() < 1e-6, "{}: hips move along z", clip.name);
                    assert!((key[1] - 0.95).abs() < 0.06);
                }
            }
        }
    }
}

#[test]
fn the_idle_clip_leaves_the_breath_to_the_breathing_layer() {
    // The joints a breath lifts hold still in the idle clip (the hips keep only their sway,
    // sideways), so a character's breathing settings and switch are all of its breath.
    let sk = skeleton();
    let idle = clips(&sk)
        .into_iter()
        .find(|c| c.name == "idle")
        .expect("idle clip");
    for channel in &idle.channels {
        let still = [SPINE1, NECK, LEFT.shoulder, RIGHT.shoulder].contains(&channel.node)
            || channel.property == Property::Translation;
        if !still {
            continue;
        }
        let w = channel.width;
        for key in channel.values.chunks_exact(w) {
            let first = &channel.values[..w];
            // Translation: the height (y) holds; rotations hold whole.
            let held: Vec<usize> = if channel.property == Property::Translation {
                vec![1]
            } else {
                (0..w).collect()
            };
            for c in held {
                assert!(
                    (key[c] - first[c]).abs() < 1e-5,
                    "node {} moves in the idle clip",
                    channel.node
                );
            }
        }
    }
}
