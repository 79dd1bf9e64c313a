//! Draco-compressed avatars (KHR_draco_mesh_compression), as web avatar pipelines write them:
//! real avatars compressed by Google's encoder (through glTF-Transform, scripts/draco/), checked
//! by the Khronos validator, load as the same meshes as the uncompressed originals.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use npc_core::asset::mesh::Primitive;
use npc_core::asset::{Asset, Source};
use rstar::RTree;
use rstar::primitives::GeomWithData;

/// The encoder's node modules (`NPC_DRACO_ENCODER`, else setup.sh's cache), or None after
/// saying the test cannot run.
fn encoder() -> Option<PathBuf> {
    common::fetched("NPC_DRACO_ENCODER", "draco-encoder/node_modules")
}

/// `input` compressed with Draco into `dir` by Google's encoder.
fn compress(encoder: &Path, input: &Path, dir: &Path, method: &str) -> PathBuf {
    let output = dir.join(format!(
        "{}.{method}.glb",
        input.file_stem().unwrap().to_string_lossy()
    ));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/draco/compress.cjs");
    let out = Command::new("node")
        .arg(script)
        .arg(input)
        .arg(&output)
        .arg(method)
        .env("NODE_PATH", encoder)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "the encoder failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    output
}

fn area(p: &Primitive) -> f64 {
    p.indices
        .chunks_exact(3)
        .map(|t| {
            let [a, b, c] = [0, 1, 2].map(|i| glam::Vec3::from(p.positions[t[i] as usize]));
            f64::from((b - a).cross(c - a).length() / 2.0)
        })
        .sum()
}

/// What one compressed primitive was checked for.
#[derive(Debug, Default)]
struct Compared {
    worst_position: f32,
    worst_uv: f32,
    worst_weight: f32,
    worst_target: f32,
}

/// Every decoded vertex has an original one at its place (within the encoder's position
/// quantization) with the same joints and, within quantization, the same texture coordinates,
/// weights and morph deltas; the surface is the same.
fn compare(name: &str, original: &Primitive, decoded: &Primitive, tolerance: f32) -> Compared {
    assert_eq!(
        original.indices.len(),
        decoded.indices.len(),
        "{name}: triangles"
    );
    assert_eq!(
        original.targets.len(),
        decoded.targets.len(),
        "{name}: targets"
    );
    assert_eq!(original.uvs.is_empty(), decoded.uvs.is_empty(), "{name}");
    assert_eq!(
        original.joints.is_empty(),
        decoded.joints.is_empty(),
        "{name}"
    );
    let (a, b) = (area(original), area(decoded));
    assert!((a - b).abs() <= a * 0.005, "{name}: area {a} became {b}");
    let tree = RTree::bulk_load(
        original
            .positions
            .iter()
            .enumerate()
            .map(|(i, p)| GeomWithData::new(*p, i))
            .collect(),
    );
    let mut seen = Compared::default();
    for (v, position) in decoded.positions.iter().enumerate() {
        // Several originals may share a place (seams): the best match in every attribute.
        let candidates: Vec<usize> = tree
            .locate_within_distance(*position, tolerance * tolerance)
            .map(|g| g.data)
            .collect();
        assert!(
            !candidates.is_empty(),
            "{name}: decoded vertex {v} at {position:?} has no original within {tolerance}"
        );
        let uv_error = |o: usize| {
            original.uvs.get(o).map_or(0.0, |uv| {
                let d = decoded.uvs[v];
                (uv[0] - d[0]).abs().max((uv[1] - d[1]).abs())
            })
        };
        let o = *candidates
            .iter()
            .min_by(|&&x, &&y| uv_error(x).total_cmp(&uv_error(y)))
            .unwrap();
        let d = glam::Vec3::from(original.positions[o]).distance(glam::Vec3::from(*position));
        seen.worst_position = seen.worst_position.max(d);
        seen.worst_uv = seen.worst_uv.max(uv_error(o));
        if !original.joints.is_empty() {
            for k in 0..4 {
                let (w0, w1) = (original.weights[o][k], decoded.weights[v][k]);
                seen.worst_weight = seen.worst_weight.max((w0 - w1).abs());
                if w0 > 0.01 {
                    assert_eq!(
                        original.joints[o][k], decoded.joints[v][k],
                        "{name}: vertex {v}'s joint {k}"
                    );
                }
            }
        }
        for (t0, t1) in original.targets.iter().zip(&decoded.targets) {
            let e = glam::Vec3::from(t0.positions[o]).distance(glam::Vec3::from(t1.positions[v]));
            seen.worst_target = seen.worst_target.max(e);
        }
    }
    seen
}

fn the_same_avatar(original: &Path, compressed: &Path) {
    let a = Asset::load(original).unwrap();
    let b = Asset::load(compressed).unwrap_or_else(|e| panic!("{}: {e}", compressed.display()));
    assert!(
        b.extensions_required
            .iter()
            .any(|e| e == "KHR_draco_mesh_compression"),
        "{}: not compressed",
        compressed.display()
    );
    // Every primitive of the copy is a Draco stream (none kept plain).
    let source = Source::from_path(compressed).unwrap();
    let plain: Vec<(usize, usize)> = source
        .root
        .meshes
        .iter()
        .enumerate()
        .flat_map(|(m, mesh)| {
            mesh.primitives
                .iter()
                .enumerate()
                .filter_map(move |(p, prim)| {
                    let draco = prim
                        .extensions
                        .as_ref()
                        .is_some_and(|e| e.others.contains_key("KHR_draco_mesh_compression"));
                    (!draco).then_some((m, p))
                })
        })
        .collect();
    assert!(plain.is_empty(), "primitives not compressed: {plain:?}");
    assert_eq!(a.meshes.len(), b.meshes.len());
    assert_eq!(a.skins.len(), b.skins.len());
    assert_eq!(a.clips.len(), b.clips.len());
    assert_eq!(
        a.face_rig.arkit_coverage(),
        b.face_rig.arkit_coverage(),
        "the face's ARKit shapes"
    );
    for (m, (ma, mb)) in a.meshes.iter().zip(&b.meshes).enumerate() {
        assert_eq!(ma.primitives.len(), mb.primitives.len(), "mesh {m}");
        for (p, (pa, pb)) in ma.primitives.iter().zip(&mb.primitives).enumerate() {
            let (lo, hi) = pa.positions.iter().fold(
                (glam::Vec3::splat(f32::MAX), glam::Vec3::splat(f32::MIN)),
                |(lo, hi), &q| (lo.min(q.into()), hi.max(q.into())),
            );
            // The encoder's 14-bit positions: half a step of the largest extent, and a margin.
            let tolerance = (hi - lo).max_element() / f32::from(1_u16 << 14) + 1e-6;
            let name = format!("{} mesh {m} primitive {p}", original.display());
            let seen = compare(&name, pa, pb, tolerance);
            eprintln!("{name}: {seen:?} (tolerance {tolerance})");
            assert!(seen.worst_uv < 1e-3, "{name}: {seen:?}");
            assert!(seen.worst_weight < 2e-3, "{name}: {seen:?}");
            assert!(seen.worst_target < 1e-3, "{name}: {seen:?}");
        }
    }
}

#[test]
fn draco_compressed_real_avatars_load_as_the_same_meshes() {
    let Some(encoder) = encoder() else { return };
    let mut avatars = Vec::new();
    for file in [
        "avatars/Quaternius_Superhero_Female.glb",
        "avatars/VALID_Black_F_1_Busi.glb",
    ] {
        avatars.extend(common::shared_asset(file));
    }
    avatars.extend(common::facecap());
    if avatars.is_empty() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut compressed = Vec::new();
    for avatar in &avatars {
        for method in ["edgebreaker", "sequential"] {
            let file = compress(&encoder, avatar, dir.path(), method);
            the_same_avatar(avatar, &file);
            compressed.push(file);
        }
    }
    // What the project reads, the Khronos validator accepts.
    if let Some(validator) = common::validator::validator() {
        common::validator::assert_valid(&validator, &compressed);
    }
}

#[test]
fn a_damaged_draco_stream_is_refused_with_the_reason() {
    let Some(encoder) = encoder() else { return };
    let Some(avatar) = common::shared_asset("avatars/Quaternius_Superhero_Female.glb") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = compress(&encoder, &avatar, dir.path(), "edgebreaker");
    let mut bytes = std::fs::read(&file).unwrap();
    // Draco streams start "DRACO": overwrite every stream's header and body after it.
    let mut damaged = 0;
    let mut at = 0;
    while let Some(i) = bytes[at..].windows(5).position(|w| w == b"DRACO") {
        let start = at + i + 5;
        let end = (start + 64).min(bytes.len());
        for b in &mut bytes[start..end] {
            *b = 0xff;
        }
        damaged += 1;
        at = start;
    }
    assert!(damaged > 0, "no Draco stream found");
    let err = Asset::from_bytes(&bytes, None)
        .expect_err("refused")
        .to_string();
    eprintln!("{err}");
    assert!(err.contains("KHR_draco_mesh_compression"), "{err}");
}
