//! The glTF loader on small documents written here: name spellings, shared targets,
//! quantized attributes, sparse accessors, and broken files.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use base64::Engine as _;
use npc_core::asset::{Asset, AssetError};
use npc_core::{ArkitTarget, Pose};
use serde_json::{Value, json};

/// Builds a glTF JSON document with one embedded buffer.
#[derive(Default)]
struct Doc {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Doc {
    fn view(&mut self, bytes: &[u8]) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        self.views
            .push(json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()}));
        self.bin.extend_from_slice(bytes);
        self.views.len() - 1
    }

    fn accessor(&mut self, accessor: Value) -> usize {
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    fn floats(&mut self, data: &[f32], kind: &str) -> usize {
        let width = match kind {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            _ => 16,
        };
        let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes);
        let mut a = json!({"bufferView": view, "componentType": 5126, "count": data.len() / width, "type": kind});
        if kind == "VEC3" {
            let (mut min, mut max) = ([f32::MAX; 3], [f32::MIN; 3]);
            for c in data.chunks(3) {
                for i in 0..3 {
                    min[i] = min[i].min(c[i]);
                    max[i] = max[i].max(c[i]);
                }
            }
            a["min"] = json!(min);
            a["max"] = json!(max);
        }
        self.accessor(a)
    }

    fn u16s(&mut self, data: &[u16]) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes);
        self.accessor(json!({"bufferView": view, "componentType": 5123, "count": data.len(), "type": "SCALAR"}))
    }

    /// A triangle mesh with the given targets (each moves vertex 0 up by its index + 1).
    fn triangle_mesh(&mut self, name: &str, target_names: &[&str]) -> Value {
        let positions = self.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
        let indices = self.u16s(&[0, 1, 2]);
        let targets: Vec<Value> = (0..target_names.len())
            .map(|t| {
                let up = (t + 1) as f32;
                json!({"POSITION": self.floats(&[0.0, up, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], "VEC3")})
            })
            .collect();
        json!({
            "name": name,
            "primitives": [{"attributes": {"POSITION": positions}, "indices": indices, "targets": targets}],
            "extras": {"targetNames": target_names},
        })
    }

    fn finish(self, mut extra: Value) -> Vec<u8> {
        let uri = format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&self.bin)
        );
        let mut doc = json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": self.bin.len(), "uri": uri}],
            "bufferViews": self.views,
            "accessors": self.accessors,
        });
        if let (Some(doc), Some(extra)) = (doc.as_object_mut(), extra.as_object_mut()) {
            doc.append(extra);
        }
        serde_json::to_vec(&doc).unwrap()
    }
}

/// Nodes placing each mesh once.
fn nodes_for(meshes: usize) -> Value {
    let nodes: Vec<Value> = (0..meshes).map(|m| json!({"mesh": m})).collect();
    let roots: Vec<usize> = (0..meshes).collect();
    json!({"nodes": nodes, "scenes": [{"nodes": roots}], "scene": 0})
}

fn with_meshes(doc: Doc, meshes: Vec<Value>) -> Vec<u8> {
    let mut extra = nodes_for(meshes.len());
    extra["meshes"] = Value::Array(meshes);
    doc.finish(extra)
}

#[test]
fn both_spellings_of_a_name_reach_the_same_target() {
    let mut doc = Doc::default();
    let a = doc.triangle_mesh("head", &["eyeBlink_L", "jawOpen", "mouthSmile_R"]);
    let b = doc.triangle_mesh("lashes", &["EyeBlinkLeft", "Custom shape"]);
    let asset = Asset::from_bytes(&with_meshes(doc, vec![a, b]), None).unwrap();
    let blink = asset.face_rig.arkit(ArkitTarget::EyeBlinkLeft);
    assert_eq!(blink.len(), 2);
    assert_eq!((blink[0].mesh, blink[0].target), (0, 0));
    assert_eq!((blink[1].mesh, blink[1].target), (1, 0));
    assert_eq!(asset.face_rig.arkit(ArkitTarget::MouthSmileRight).len(), 1);
    assert_eq!(asset.face_rig.arkit_coverage(), 3);
    assert_eq!(
        asset.meshes[1].target_names[1].raw.as_deref(),
        Some("Custom shape")
    );
    assert_eq!(asset.meshes[1].target_names[1].canonical, None);
}

#[test]
fn a_target_shared_by_three_meshes_moves_all_of_them() {
    let mut doc = Doc::default();
    let meshes = vec![
        doc.triangle_mesh("head", &["jawOpen", "eyeBlinkLeft"]),
        doc.triangle_mesh("teeth", &["jawOpen"]),
        doc.triangle_mesh("tongue", &["tongueOut", "jawOpen"]),
    ];
    let asset = Asset::from_bytes(&with_meshes(doc, meshes), None).unwrap();
    assert_eq!(asset.face_rig.arkit(ArkitTarget::JawOpen).len(), 3);
    let mut weights: Vec<Vec<f32>> = asset
        .meshes
        .iter()
        .map(|m| m.default_weights.clone())
        .collect();
    asset.face_rig.apply(
        &Pose::from_pairs(&[(ArkitTarget::JawOpen, 0.4)]),
        &mut weights,
    );
    assert_eq!(weights, vec![vec![0.4, 0.0], vec![0.4], vec![0.0, 0.4]]);
}

#[test]
fn quantized_attributes_are_decoded() {
    let mut doc = Doc::default();
    // Positions as SHORT (not normalised), normals as normalised BYTE, UVs as normalised USHORT.
    let positions: Vec<u8> = [[0_i16, 0, 0, 0], [100, 0, 0, 0], [0, -200, 0, 0]]
        .iter()
        .flatten()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let pv = doc.view(&positions);
    doc.views[pv]["byteStride"] = json!(8);
    let pos = doc.accessor(
        json!({"bufferView": pv, "componentType": 5122, "count": 3, "type": "VEC3",
        "min": [0, -200, 0], "max": [100, 0, 0]}),
    );
    let nv = doc.view(&[0, 127, 0, 0, 0, 0x81, 0, 0, 127, 0, 0, 0]);
    doc.views[nv]["byteStride"] = json!(4);
    let nor = doc.accessor(json!({"bufferView": nv, "componentType": 5120, "normalized": true, "count": 3, "type": "VEC3"}));
    let uvs: Vec<u8> = [0_u16, 65535, 32768, 0, 65535, 65535]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let uv = doc.view(&uvs);
    let tex = doc.accessor(json!({"bufferView": uv, "componentType": 5123, "normalized": true, "count": 3, "type": "VEC2"}));
    let indices = doc.u16s(&[0, 1, 2]);
    let mesh = json!({"primitives": [{"attributes": {"POSITION": pos, "NORMAL": nor, "TEXCOORD_0": tex}, "indices": indices}]});
    let mut extra = nodes_for(1);
    extra["meshes"] = json!([mesh]);
    extra["extensionsUsed"] = json!(["KHR_mesh_quantization"]);
    extra["extensionsRequired"] = json!(["KHR_mesh_quantization"]);
    let asset = Asset::from_bytes(&doc.finish(extra), None).unwrap();
    let p = &asset.meshes[0].primitives[0];
    assert_eq!(
        p.positions,
        vec![[0.0, 0.0, 0.0], [100.0, 0.0, 0.0], [0.0, -200.0, 0.0]]
    );
    assert_eq!(
        p.normals,
        vec![[0.0, 1.0, 0.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.0]]
    );
    assert!((p.uvs[1][0] - 32768.0 / 65535.0).abs() < 1e-6);
    assert_eq!(p.uvs[2], [1.0, 1.0]);
}

#[test]
fn sparse_accessors_substitute_their_values() {
    let mut doc = Doc::default();
    let positions = doc.floats(&[0.0; 12], "VEC3");
    let indices = doc.u16s(&[0, 1, 2, 0, 2, 3]);
    let sparse_idx: Vec<u8> = [1_u16, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
    let iv = doc.view(&sparse_idx);
    let values: Vec<u8> = [0.0_f32, 0.5, 0.0, 0.0, 0.0, -0.25]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let vv = doc.view(&values);
    let delta = doc.accessor(json!({"componentType": 5126, "count": 4, "type": "VEC3",
        "sparse": {"count": 2, "indices": {"bufferView": iv, "componentType": 5123}, "values": {"bufferView": vv}}}));
    let mesh = json!({"primitives": [{"attributes": {"POSITION": positions}, "indices": indices, "targets": [{"POSITION": delta}]}],
        "extras": {"targetNames": ["mouthClose"]}});
    let mut extra = nodes_for(1);
    extra["meshes"] = json!([mesh]);
    let asset = Asset::from_bytes(&doc.finish(extra), None).unwrap();
    let target = &asset.meshes[0].primitives[0].targets[0];
    assert_eq!(
        target.positions,
        vec![[0.0; 3], [0.0, 0.5, 0.0], [0.0; 3], [0.0, 0.0, -0.25]]
    );
}

fn load_err(doc: Doc, meshes: Value, tweak: impl FnOnce(&mut Value)) -> AssetError {
    let mut extra = nodes_for(meshes.as_array().map_or(0, Vec::len));
    extra["meshes"] = meshes;
    let mut value: Value = serde_json::from_slice(&doc.finish(extra)).unwrap();
    tweak(&mut value);
    Asset::from_bytes(&serde_json::to_vec(&value).unwrap(), None).expect_err("must fail")
}

#[test]
fn broken_documents_give_typed_errors() {
    let mut doc = Doc::default();
    let mesh = doc.triangle_mesh("m", &["jawOpen"]);
    let err = load_err(doc, json!([mesh]), |v| {
        v["meshes"][0]["primitives"][0]["indices"] = json!(99)
    });
    assert!(
        matches!(
            err,
            AssetError::IndexOutOfRange {
                what: "accessor",
                index: 99
            }
        ),
        "{err}"
    );

    let mut doc = Doc::default();
    let mesh = doc.triangle_mesh("m", &[]);
    let err = load_err(doc, json!([mesh]), |v| {
        v["accessors"][0]["count"] = json!(1000)
    });
    assert!(err.to_string().contains("past the end"), "{err}");

    let mut doc = Doc::default();
    let mesh = doc.triangle_mesh("m", &[]);
    let err = load_err(doc, json!([mesh]), |v| {
        v["buffers"][0] = json!({"byteLength": 10, "uri": "missing.bin"})
    });
    assert!(matches!(err, AssetError::MissingBuffer { .. }), "{err}");

    let mut doc = Doc::default();
    let mesh = doc.triangle_mesh("m", &[]);
    let err = load_err(doc, json!([mesh]), |v| {
        v["extensionsRequired"] = json!(["KHR_meshopt_compression"])
    });
    assert!(err.to_string().contains("KHR_meshopt_compression"), "{err}");

    let mut doc = Doc::default();
    let mesh = doc.triangle_mesh("m", &[]);
    let err = load_err(doc, json!([mesh]), |v| {
        v["nodes"] = json!([{"children": [1]}, {"children": [0]}])
    });
    assert!(matches!(err, AssetError::BadHierarchy { .. }), "{err}");
}

#[test]
fn out_of_range_vertex_indices_are_refused() {
    let mut doc = Doc::default();
    let positions = doc.floats(&[0.0; 9], "VEC3");
    let indices = doc.u16s(&[0, 1, 7]);
    let mesh = json!({"primitives": [{"attributes": {"POSITION": positions}, "indices": indices}]});
    let mut extra = nodes_for(1);
    extra["meshes"] = json!([mesh]);
    let err = Asset::from_bytes(&doc.finish(extra), None).expect_err("index 7 of 3");
    assert!(err.to_string().contains("index 7 is out of range"), "{err}");
}

#[test]
fn meshopt_compressed_views_decode_like_gltfpack_writes_them() {
    // Four vertices of 12 bytes (f32 positions) and two triangles, compressed as gltfpack does.
    let positions: [[f32; 3]; 4] = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.5],
    ];
    let vertices: Vec<[u8; 12]> = positions
        .iter()
        .map(|p| {
            let mut v = [0_u8; 12];
            for (i, c) in p.iter().enumerate() {
                v[i * 4..i * 4 + 4].copy_from_slice(&c.to_le_bytes());
            }
            v
        })
        .collect();
    let encoded_vertices = meshopt::encoding::encode_vertex_buffer(&vertices).unwrap();
    let encoded_indices = meshopt::encoding::encode_index_buffer(&[0, 1, 2, 0, 2, 3], 4).unwrap();

    let mut doc = Doc::default();
    let cv = doc.view(&encoded_vertices);
    let ci = doc.view(&encoded_indices);
    let compressed = |view: &Value, stride: usize, count: usize, mode: &str| {
        json!({"buffer": 0, "byteOffset": view["byteOffset"], "byteLength": view["byteLength"],
            "byteStride": stride, "count": count, "mode": mode})
    };
    let vertex_ext = compressed(&doc.views[cv], 12, 4, "ATTRIBUTES");
    let index_ext = compressed(&doc.views[ci], 2, 6, "TRIANGLES");
    // Decoded views live in a fallback buffer with no data, as gltfpack -cc writes.
    let pv = doc.views.len();
    doc.views
        .push(json!({"buffer": 1, "byteLength": 48, "byteStride": 12,
        "extensions": {"EXT_meshopt_compression": vertex_ext}}));
    doc.views.push(json!({"buffer": 1, "byteLength": 12,
        "extensions": {"EXT_meshopt_compression": index_ext}}));
    let pos = doc.accessor(
        json!({"bufferView": pv, "componentType": 5126, "count": 4, "type": "VEC3",
        "min": [0, 0, 0], "max": [1, 1, 0.5]}),
    );
    let idx = doc.accessor(
        json!({"bufferView": pv + 1, "componentType": 5123, "count": 6, "type": "SCALAR"}),
    );
    let mut extra = nodes_for(1);
    extra["meshes"] = json!([{"primitives": [{"attributes": {"POSITION": pos}, "indices": idx}]}]);
    extra["extensionsUsed"] = json!(["EXT_meshopt_compression"]);
    extra["extensionsRequired"] = json!(["EXT_meshopt_compression"]);
    let mut value: Value = serde_json::from_slice(&doc.finish(extra)).unwrap();
    value["buffers"].as_array_mut().unwrap().push(
        json!({"byteLength": 60, "extensions": {"EXT_meshopt_compression": {"fallback": true}}}),
    );
    let asset = Asset::from_bytes(&serde_json::to_vec(&value).unwrap(), None).unwrap();
    let p = &asset.meshes[0].primitives[0];
    assert_eq!(p.positions, positions.to_vec());
    assert_eq!(p.indices, vec![0, 1, 2, 0, 2, 3]);

    // Corrupt compressed bytes: an error, not a panic.
    let mut broken = value.clone();
    broken["buffers"][0]["uri"] = json!(
        "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    );
    broken["buffers"][0]["byteLength"] = json!(51);
    let err = Asset::from_bytes(&serde_json::to_vec(&broken).unwrap(), None).expect_err("corrupt");
    assert!(err.to_string().contains("EXT_meshopt_compression"), "{err}");
}

#[test]
fn textures_that_cannot_be_decoded_leave_the_mesh_untextured_with_a_warning() {
    let mut doc = Doc::default();
    let mesh = doc.triangle_mesh("m", &[]);
    let broken_png = doc.view(b"\x89PNG\r\n\x1a\nnot really");
    let broken_ktx2 = doc.view(b"\xABKTX 20\xBB\r\n\x1A\nnot really a texture at all");
    let mut extra = nodes_for(1);
    let mut mesh = mesh;
    mesh["primitives"][0]["material"] = json!(0);
    extra["meshes"] = json!([mesh]);
    extra["materials"] = json!([
        {"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}, "baseColorFactor": [1, 0.5, 0.5, 1]}},
        {"pbrMetallicRoughness": {"baseColorTexture": {"index": 1}}, "alphaMode": "MASK", "alphaCutoff": 0.3}
    ]);
    // Texture 0 is a corrupt KTX2 (basis) only; texture 1 is a corrupt PNG.
    extra["textures"] = json!([
        {"extensions": {"KHR_texture_basisu": {"source": 0}}},
        {"source": 1}
    ]);
    extra["images"] = json!([
        {"bufferView": broken_ktx2, "mimeType": "image/ktx2"},
        {"bufferView": broken_png, "mimeType": "image/png"}
    ]);
    extra["extensionsUsed"] = json!(["KHR_texture_basisu"]);
    extra["extensionsRequired"] = json!(["KHR_texture_basisu"]);
    let asset = Asset::from_bytes(&doc.finish(extra), None).unwrap();
    assert_eq!(asset.meshes.len(), 1);
    assert_eq!(asset.materials[0].base_color_texture, None);
    assert_eq!(asset.materials[0].base_color, [1.0, 0.5, 0.5, 1.0]);
    assert_eq!(asset.materials[1].base_color_texture, None);
    assert_eq!(
        asset.materials[1].alpha_mode,
        npc_core::asset::material::AlphaMode::Mask { cutoff: 0.3 }
    );
    assert_eq!(
        asset
            .warnings
            .iter()
            .filter(|w| w.contains("texture"))
            .count(),
        2,
        "{:?}",
        asset.warnings
    );
    assert!(
        asset
            .warnings
            .iter()
            .any(|w| w.contains("texture 0 (image 0) cannot be decoded: it is KTX2")),
        "{:?}",
        asset.warnings
    );
}
