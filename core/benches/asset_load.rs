//! Speed of loading assets: a Ready Player Me sized avatar (3 MB, 70 targets on 4 meshes,
//! 67-joint skin), the largest sample model, and a real normal-mapped avatar (VALID, whose
//! file has no tangents: MikkTSpace's are made as it loads), with the tangents alone.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use npc_core::asset::Asset;
use npc_core::asset::tangents::mikktspace_tangents;

#[path = "../tests/common/avatar.rs"]
mod avatar;

fn load_avatar(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("avatar.glb");
    std::fs::write(&path, avatar::avatar_glb()).unwrap();
    c.bench_function("load_avatar_3mb_70_targets_67_joints", |b| {
        b.iter(|| black_box(Asset::load(&path).unwrap()));
    });
}

fn load_largest_sample(c: &mut Criterion) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/assets/gltf-samples/MorphStressTest/MorphStressTest.gltf");
    if !path.exists() {
        eprintln!("skipping: {} is missing", path.display());
        return;
    }
    c.bench_function("load_morph_stress_test", |b| {
        b.iter(|| black_box(Asset::load(&path).unwrap()));
    });
}

fn load_normal_mapped_avatar(c: &mut Criterion) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/assets/avatars/VALID_White_M_1_Casual.glb");
    if !path.exists() {
        eprintln!("skipping load_valid_avatar: {} is missing", path.display());
        return;
    }
    c.bench_function("load_valid_avatar_with_tangents", |b| {
        b.iter(|| black_box(Asset::load(&path).unwrap()));
    });
    let asset = Asset::load(&path).unwrap();
    let largest = asset
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .max_by_key(|p| p.indices.len())
        .unwrap();
    let name = format!(
        "mikktspace_tangents_valid_{}_triangles",
        largest.indices.len() / 3
    );
    c.bench_function(&name, |b| {
        b.iter(|| black_box(mikktspace_tangents(largest)));
    });
}

criterion_group!(
    benches,
    load_avatar,
    load_largest_sample,
    load_normal_mapped_avatar
);
criterion_main!(benches);
