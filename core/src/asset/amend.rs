//! Adding morph targets to a user's GLB while keeping everything else in it: the new targets'
//! deltas are appended to the binary chunk, each primitive of a mesh gets them (all-zero ones
//! take no bytes), the mesh's target names and default weights grow with them. Skins,
//! materials, clips, extensions and compressed views are left as they were.

use serde_json::{Value, json};

use super::bin_chunk::BinChunk;
use super::error::{AssetError, Result};
use super::glb::{join_glb, split_glb};
use crate::arkit::canonical_target;

/// New targets for one primitive, in its own space.
#[derive(Clone, Debug, PartialEq)]
pub struct PrimitiveShapes {
    pub mesh: usize,
    /// Index into the mesh's loaded primitives (points and lines are not loaded).
    pub primitive: usize,
    /// One list of per-vertex deltas per name of [`NewShapes::names`].
    pub deltas: Vec<Vec<[f32; 3]>>,
}

/// Targets to add to a file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NewShapes {
    pub names: Vec<String>,
    pub primitives: Vec<PrimitiveShapes>,
    /// Drop the touched meshes' own targets first (else only those of the same name go).
    pub replace_existing: bool,
}

/// The GLB with the shapes added.
pub fn add_shapes(glb: &[u8], shapes: &NewShapes) -> Result<Vec<u8>> {
    let (json_bytes, bin) = split_glb(glb)?;
    let mut doc: Value = serde_json::from_slice(json_bytes).map_err(|e| AssetError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let declared = match doc.pointer("/buffers/0") {
        Some(buffer) if buffer.get("uri").is_some() => {
            return Err(AssetError::Format(
                "its first buffer is a separate file; shapes are added to self-contained GLB \
                 files (pack it first, for example with gltf-transform copy)"
                    .to_owned(),
            ));
        }
        Some(buffer) => buffer
            .get("byteLength")
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0),
        None => 0,
    };
    let mut bin = bin.unwrap_or_default().to_vec();
    bin.truncate(declared);
    let take = |doc: &mut Value, key: &str| match doc.get_mut(key).map(Value::take) {
        Some(Value::Array(list)) => list,
        _ => Vec::new(),
    };
    let views = take(&mut doc, "bufferViews");
    let accessors = take(&mut doc, "accessors");
    let mut chunk = BinChunk::continuing(bin, views, accessors);

    let mut touched: Vec<usize> = shapes.primitives.iter().map(|p| p.mesh).collect();
    touched.sort_unstable();
    touched.dedup();
    for &m in &touched {
        check_not_animated(&doc, m)?;
        let mesh = doc
            .pointer_mut(&format!("/meshes/{m}"))
            .ok_or(AssetError::IndexOutOfRange {
                what: "mesh",
                index: m,
            })?;
        let kept = kept_targets(mesh, shapes);
        amend_mesh(mesh, m, &kept, shapes, &mut chunk)?;
        grow_node_weights(&mut doc, m, &kept, shapes.names.len());
    }
    doc["bufferViews"] = json!(chunk.buffer_views);
    doc["accessors"] = json!(chunk.accessors);
    if doc
        .get("buffers")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
    {
        doc["buffers"] = json!([{}]);
    }
    doc["buffers"][0]["byteLength"] = json!(chunk.bin.len());
    if chunk.buffer_views.is_empty() {
        doc.as_object_mut().map(|o| o.remove("bufferViews"));
    }
    Ok(join_glb(doc.to_string().as_bytes(), &chunk.bin))
}

/// Refuses meshes whose shape weights a clip animates: the clip's values would no longer
/// match the number of targets.
fn check_not_animated(doc: &Value, mesh: usize) -> Result<()> {
    let nodes = doc.get("nodes").and_then(Value::as_array);
    let drawn_by = |node: u64| {
        nodes
            .and_then(|n| n.get(usize::try_from(node).ok()?))
            .and_then(|n| n.get("mesh"))
            .and_then(Value::as_u64)
            == Some(mesh as u64)
    };
    let animations = doc.get("animations").and_then(Value::as_array);
    for (a, animation) in animations.into_iter().flatten().enumerate() {
        let channels = animation.get("channels").and_then(Value::as_array);
        for channel in channels.into_iter().flatten() {
            let target = channel.get("target");
            let path = target.and_then(|t| t.get("path")).and_then(Value::as_str);
            let node = target.and_then(|t| t.get("node")).and_then(Value::as_u64);
            if path == Some("weights") && node.is_some_and(drawn_by) {
                return Err(AssetError::BadAnimation {
                    animation: a,
                    reason: format!(
                        "it animates the shape weights of mesh {mesh}, which would no longer \
                         match its targets; remove that clip first"
                    ),
                });
            }
        }
    }
    Ok(())
}

/// The names of a mesh's own targets (`extras.targetNames`, or numbered when it has none).
fn own_names(mesh: &Value) -> Vec<String> {
    let count = mesh
        .pointer("/primitives/0/targets")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let names = mesh
        .pointer("/extras/targetNames")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    (0..count)
        .map(|i| {
            names
                .get(i)
                .and_then(Value::as_str)
                .map_or_else(|| format!("target_{i}"), str::to_owned)
        })
        .collect()
}

/// Which of the mesh's own targets stay: all but those the new ones replace.
fn kept_targets(mesh: &Value, shapes: &NewShapes) -> Vec<usize> {
    if shapes.replace_existing {
        return Vec::new();
    }
    let same = |a: &str, b: &str| {
        a == b || matches!((canonical_target(a), canonical_target(b)), (Some(x), Some(y)) if x == y)
    };
    own_names(mesh)
        .iter()
        .enumerate()
        .filter(|(_, name)| !shapes.names.iter().any(|n| same(n, name)))
        .map(|(i, _)| i)
        .collect()
}

fn amend_mesh(
    mesh: &mut Value,
    m: usize,
    kept: &[usize],
    shapes: &NewShapes,
    chunk: &mut BinChunk,
) -> Result<()> {
    let own = own_names(mesh);
    let primitives = mesh
        .get_mut("primitives")
        .and_then(Value::as_array_mut)
        .ok_or_else(|| AssetError::BadMesh {
            mesh: m,
            reason: "no primitives".to_owned(),
        })?;
    let mut loaded = 0;
    for (p, primitive) in primitives.iter_mut().enumerate() {
        let mode = primitive.get("mode").and_then(Value::as_u64).unwrap_or(4);
        let this = (4..=6).contains(&mode).then(|| {
            loaded += 1;
            loaded - 1
        });
        if primitive
            .pointer("/extensions/KHR_draco_mesh_compression")
            .is_some()
        {
            return Err(AssetError::BadMesh {
                mesh: m,
                reason: format!(
                    "primitive {p} is Draco-compressed; new shapes cannot be added to it \
                     (decompress it first, for example with gltf-transform copy)"
                ),
            });
        }
        let count = primitive
            .pointer("/attributes/POSITION")
            .and_then(Value::as_u64)
            .and_then(|a| chunk.accessors.get(usize::try_from(a).ok()?))
            .and_then(|a| a.get("count"))
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0);
        let own_targets = primitive
            .get("targets")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut targets: Vec<Value> = kept
            .iter()
            .filter_map(|&i| own_targets.get(i).cloned())
            .collect();
        let given = this.and_then(|index| {
            shapes
                .primitives
                .iter()
                .find(|s| s.mesh == m && s.primitive == index)
        });
        for n in 0..shapes.names.len() {
            let deltas = given
                .and_then(|g| g.deltas.get(n))
                .filter(|d| d.len() == count);
            let accessor = match deltas {
                Some(d) => chunk.deltas(d, true),
                None => chunk.deltas(&vec![[0.0; 3]; count], true),
            };
            targets.push(json!({"POSITION": accessor}));
        }
        if let Some(object) = primitive.as_object_mut() {
            if targets.is_empty() {
                object.remove("targets");
            } else {
                object.insert("targets".to_owned(), json!(targets));
            }
        }
    }
    let mut names: Vec<String> = kept.iter().filter_map(|&i| own.get(i).cloned()).collect();
    names.extend(shapes.names.iter().cloned());
    if let Some(weights) = mesh.get("weights").and_then(Value::as_array) {
        mesh["weights"] = grown(weights, kept, shapes.names.len());
    }
    if !mesh.get("extras").is_some_and(Value::is_object) {
        mesh["extras"] = json!({});
    }
    mesh["extras"]["targetNames"] = json!(names);
    Ok(())
}

/// The kept weights, then zeros for the added targets.
fn grown(weights: &[Value], kept: &[usize], added: usize) -> Value {
    let mut out: Vec<Value> = kept
        .iter()
        .map(|&i| weights.get(i).cloned().unwrap_or(json!(0.0)))
        .collect();
    out.extend(std::iter::repeat_n(json!(0.0), added));
    json!(out)
}

/// Nodes drawing the mesh with their own weights get the new targets' too.
fn grow_node_weights(doc: &mut Value, mesh: usize, kept: &[usize], added: usize) {
    let Some(nodes) = doc.get_mut("nodes").and_then(Value::as_array_mut) else {
        return;
    };
    for node in nodes {
        if node.get("mesh").and_then(Value::as_u64) != Some(mesh as u64) {
            continue;
        }
        if let Some(weights) = node.get("weights").and_then(Value::as_array) {
            node["weights"] = grown(weights, kept, added);
        }
    }
}
