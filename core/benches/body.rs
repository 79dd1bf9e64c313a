//! Speed of one body update with every layer on (clips, idle life, foot IK, look-at): on the
//! project's own body (67 nodes with clips) and, when ../shared is beside the project, on a
//! Quaternius rig (no clips: posture stands in) and a VALID rig (centimetres, 0.01 scale).

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec3;
use npc_core::asset::Asset;
use npc_core::body::{Activity, Body, BodySettings, HumanoidMap, LayerInput, Skeleton};
use npc_core::procedural::{body, head};

fn bench_body(c: &mut Criterion, name: &str, asset: &Asset) {
    let skeleton = Skeleton::of(asset);
    let map = HumanoidMap::of(&skeleton);
    let mut body = Body::new(
        &skeleton,
        &map,
        &asset.clips,
        &BodySettings::default(),
        7,
        0.0,
    );
    let ground = |p: Vec3| 0.02 * p.x;
    let mut attention = Vec3::new(0.5, 1.6, 2.0);
    c.bench_function(&format!("body_update_all_layers_{name}"), |b| {
        b.iter(|| {
            attention.x = -attention.x;
            let input = LayerInput {
                dt_s: 1.0 / 60.0,
                time_s: 0.0,
                clip_pose: false,
                activity: Activity::Idle,
                attention: Some(attention),
                ground: Some(&ground),
            };
            body.update(&skeleton, black_box(&input));
            black_box(body.locals[0].translation.y);
        });
    });
}

fn updates(c: &mut Criterion) {
    let own = Asset::from_bytes(&body::avatar_glb(&head::head_parts()), None).expect("avatar");
    bench_body(c, "project_body", &own);
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/assets/avatars");
    for (name, file) in [
        ("quaternius", "Quaternius_Superhero_Male.glb"),
        ("valid", "VALID_White_M_1_Casual.glb"),
    ] {
        if let Ok(asset) = Asset::load(&shared.join(file)) {
            bench_body(c, name, &asset);
        }
    }
}

criterion_group!(benches, updates);
criterion_main!(benches);
