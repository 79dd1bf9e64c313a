//! Speed of loading assets: a Ready Player Me sized avatar (3 MB, 70 targets on 4 meshes,
//! 67-joint skin) and the largest sample model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use npc_core::asset::Asset;

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

criterion_group!(benches, load_avatar, load_largest_sample);
criterion_main!(benches);
