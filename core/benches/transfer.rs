//! Speed of blend-shape transfer: the project's head's 52 ARKit targets onto a VALID head
//! (22 249 vertices on the head mesh, 31 k on all its parts), landmarks included. Goal: 2 s.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use npc_core::asset::Asset;
use npc_core::procedural::{body, head};
use npc_core::transfer::{TransferOptions, transfer};

fn transfer_onto_a_valid_head(c: &mut Criterion) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/assets/avatars/VALID_Black_F_1_Busi.glb");
    if !path.exists() {
        eprintln!("skipping: {} is missing", path.display());
        return;
    }
    let target = Asset::load(&path).unwrap();
    let source = Asset::from_bytes(&body::avatar_glb(&head::head_parts()), None).unwrap();
    let options = TransferOptions::default();
    let mut group = c.benchmark_group("transfer");
    group.sample_size(10);
    group.bench_function("arkit_52_onto_valid_head_22k", |b| {
        b.iter(|| black_box(transfer(&source, &target, &options).unwrap()));
    });
    group.finish();
}

criterion_group!(benches, transfer_onto_a_valid_head);
criterion_main!(benches);
