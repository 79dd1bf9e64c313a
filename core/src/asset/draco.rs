//! KHR_draco_mesh_compression: a primitive whose attributes and indices are one Draco stream
//! in a buffer view, decoded with `draco-core` (a Rust port of Google's decoder). Attributes the
//! extension does not name (morph targets among them) stay plain accessors; they must follow the
//! decoded vertex order, which the loader checks by count.

use std::collections::HashMap;

use draco_core::{DataType, DecodeLimits, DecoderBuffer, Mesh, MeshDecoder};
use gltf::json;
use serde_json::Value;

use super::accessor::Reader;
use super::error::{AssetError, Result};

/// The extension's name, as files spell it.
pub const EXTENSION: &str = "KHR_draco_mesh_compression";

/// Most points one primitive may decode to (the loader's own vertex ceiling is lower).
const MAX_POINTS: u64 = 1 << 24;

/// One decoded Draco primitive and the attribute ids its extension names.
pub struct DracoPrimitive {
    mesh: Mesh,
    /// glTF attribute name (POSITION, TEXCOORD_0, ...) to Draco unique id.
    ids: HashMap<String, u32>,
}

fn bad(reason: impl std::fmt::Display) -> AssetError {
    AssetError::Format(format!("{EXTENSION}: {reason}"))
}

/// The primitive's extension object, when it is Draco-compressed.
#[must_use]
pub fn extension_of(primitive: &json::mesh::Primitive) -> Option<&Value> {
    primitive
        .extensions
        .as_ref()
        .and_then(|e| e.others.get(EXTENSION))
}

impl DracoPrimitive {
    /// Decodes the stream the extension points at.
    pub fn decode(reader: &Reader<'_>, ext: &Value) -> Result<Self> {
        let view = ext
            .get("bufferView")
            .and_then(Value::as_u64)
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| bad("no bufferView"))?;
        let ids = ext
            .get("attributes")
            .and_then(Value::as_object)
            .ok_or_else(|| bad("no attributes"))?
            .iter()
            .map(|(name, id)| {
                id.as_u64()
                    .and_then(|id| u32::try_from(id).ok())
                    .map(|id| (name.clone(), id))
                    .ok_or_else(|| bad(format!("attribute {name} has no valid id")))
            })
            .collect::<Result<HashMap<_, _>>>()?;
        let bytes = reader.view_bytes(view)?;
        let limits = DecodeLimits::default()
            .with_max_points(MAX_POINTS)
            .with_max_faces(MAX_POINTS * 2);
        let mut buffer = DecoderBuffer::new(bytes).with_limits(limits);
        let mut mesh = Mesh::new();
        MeshDecoder::new()
            .decode(&mut buffer, &mut mesh)
            .map_err(|e| bad(format!("buffer view {view} does not decode: {e}")))?;
        Ok(Self { mesh, ids })
    }

    /// Decoded vertices (Draco's points).
    #[must_use]
    pub fn vertex_count(&self) -> usize {
        self.mesh.num_points()
    }

    /// The triangle indices.
    #[must_use]
    pub fn indices(&self) -> Vec<u32> {
        self.mesh
            .faces()
            .iter()
            .flat_map(|f| f.map(|p| p.0))
            .collect()
    }

    /// The named attribute as `N` floats a vertex, normalised as its accessor says; None
    /// when the stream does not carry it.
    pub fn floats<const N: usize>(
        &self,
        name: &str,
        accessor: Option<&json::Accessor>,
    ) -> Option<Result<Vec<[f32; N]>>> {
        let id = *self.ids.get(name)?;
        Some(self.read_floats(name, id, accessor))
    }

    fn read_floats<const N: usize>(
        &self,
        name: &str,
        id: u32,
        accessor: Option<&json::Accessor>,
    ) -> Result<Vec<[f32; N]>> {
        let attribute = self
            .mesh
            .attribute_by_unique_id(id)
            .ok_or_else(|| bad(format!("{name}: the stream has no attribute {id}")))?;
        if usize::from(attribute.num_components()) < N {
            return Err(bad(format!(
                "{name} has {} components, {N} expected",
                attribute.num_components()
            )));
        }
        let normalized = accessor.is_some_and(|a| a.normalized) || attribute.normalized();
        let scale = if normalized {
            match attribute.data_type() {
                DataType::Int8 => 1.0 / 127.0,
                DataType::Uint8 => 1.0 / 255.0,
                DataType::Int16 => 1.0 / 32767.0,
                DataType::Uint16 => 1.0 / 65535.0,
                _ => 1.0,
            }
        } else {
            1.0
        };
        let values = attribute.read_f32s(self.vertex_count(), N);
        Ok(values
            .chunks_exact(N)
            .map(|c| {
                std::array::from_fn(|i| {
                    let v = c[i] * scale;
                    if normalized { v.max(-1.0) } else { v }
                })
            })
            .collect())
    }

    /// The named joint indices, four a vertex; None when the stream does not carry them.
    #[must_use]
    pub fn joints(&self, name: &str) -> Option<Result<Vec<[u16; 4]>>> {
        let id = *self.ids.get(name)?;
        Some(self.read_joints(name, id))
    }

    fn read_joints(&self, name: &str, id: u32) -> Result<Vec<[u16; 4]>> {
        let attribute = self
            .mesh
            .attribute_by_unique_id(id)
            .ok_or_else(|| bad(format!("{name}: the stream has no attribute {id}")))?;
        if !matches!(
            attribute.data_type(),
            DataType::Uint8 | DataType::Uint16 | DataType::Uint32
        ) {
            return Err(bad(format!("{name} is not unsigned integers")));
        }
        let n = self.vertex_count();
        let values = attribute.read_f32s(n, 4);
        let mut joints = Vec::with_capacity(n);
        for c in values.chunks_exact(4) {
            let mut joint = [0_u16; 4];
            for (slot, &v) in joint.iter_mut().zip(c) {
                *slot = u16::try_from(v as u32)
                    .map_err(|_| bad(format!("{name}: joint {v} is out of range")))?;
            }
            joints.push(joint);
        }
        Ok(joints)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_stream_that_is_not_draco_is_refused_with_the_reason() {
        let root: json::Root = serde_json::from_value(serde_json::json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": 16}],
            "bufferViews": [{"buffer": 0, "byteLength": 16}]
        }))
        .unwrap();
        let buffers = vec![b"not a draco mesh".to_vec()];
        let reader = Reader::new(&root, &buffers);
        let ext = serde_json::json!({"bufferView": 0, "attributes": {"POSITION": 0}});
        let err = DracoPrimitive::decode(&reader, &ext)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("does not decode"), "{err}");
        let ext = serde_json::json!({"attributes": {"POSITION": 0}});
        let err = DracoPrimitive::decode(&reader, &ext)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("no bufferView"), "{err}");
    }
}
