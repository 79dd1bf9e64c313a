//! A GLB's binary chunk as it is being written: bytes, the buffer views over them and the
//! accessors reading them. The writer of new files and the one that adds shapes to a user's
//! file both append through it.

use serde_json::{Value, json};

pub const FLOAT: u32 = 5126;
pub const UNSIGNED_SHORT: u32 = 5123;
pub const UNSIGNED_INT: u32 = 5125;
pub const ARRAY_BUFFER: u32 = 34962;
pub const ELEMENT_ARRAY_BUFFER: u32 = 34963;

/// The bytes of buffer 0 and the views and accessors over them.
#[derive(Debug, Default)]
pub struct BinChunk {
    pub bin: Vec<u8>,
    pub buffer_views: Vec<Value>,
    pub accessors: Vec<Value>,
}

impl BinChunk {
    /// Goes on from a file's own chunk, views and accessors.
    #[must_use]
    pub fn continuing(bin: Vec<u8>, buffer_views: Vec<Value>, accessors: Vec<Value>) -> Self {
        Self {
            bin,
            buffer_views,
            accessors,
        }
    }

    /// Appends bytes as a buffer view (4-byte aligned) and returns its index.
    pub fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut view =
            json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()});
        if let Some(target) = target {
            view["target"] = json!(target);
        }
        self.bin.extend_from_slice(bytes);
        self.buffer_views.push(view);
        self.buffer_views.len() - 1
    }

    pub fn accessor(&mut self, accessor: Value) -> usize {
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    /// Float data of `width` components per element; min/max are written for VEC3.
    pub fn floats(
        &mut self,
        data: &[f32],
        width: usize,
        target: Option<u32>,
        bounds: bool,
    ) -> usize {
        let kind = match width {
            1 => "SCALAR",
            2 => "VEC2",
            3 => "VEC3",
            4 => "VEC4",
            _ => "MAT4",
        };
        let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes, target);
        let count = data.len() / width.max(1);
        let mut accessor =
            json!({"bufferView": view, "componentType": FLOAT, "count": count, "type": kind});
        if bounds && count > 0 {
            let mut min = vec![f32::MAX; width];
            let mut max = vec![f32::MIN; width];
            for element in data.chunks_exact(width) {
                for (i, &v) in element.iter().enumerate() {
                    min[i] = min[i].min(v);
                    max[i] = max[i].max(v);
                }
            }
            accessor["min"] = json!(min);
            accessor["max"] = json!(max);
        }
        self.accessor(accessor)
    }

    pub fn vec3s(&mut self, data: &[[f32; 3]], bounds: bool) -> usize {
        let flat: Vec<f32> = data.iter().flatten().copied().collect();
        self.floats(&flat, 3, Some(ARRAY_BUFFER), bounds)
    }

    /// Morph deltas: a sparse accessor (only the vertices that move) when most are zero, as
    /// exporters write face targets; dense otherwise.
    pub fn deltas(&mut self, data: &[[f32; 3]], bounds: bool) -> usize {
        let moving: Vec<u32> = data
            .iter()
            .enumerate()
            .filter(|(_, d)| d.iter().any(|&c| c != 0.0))
            .filter_map(|(i, _)| u32::try_from(i).ok())
            .collect();
        if moving.len() * 2 > data.len() {
            return self.vec3s(data, bounds);
        }
        let mut accessor = json!({"componentType": FLOAT, "count": data.len(), "type": "VEC3"});
        // An accessor without a buffer view is all zeros: a target that moves nothing needs
        // no bytes (and glTF allows no empty buffer view, nor a sparse count of 0).
        if !moving.is_empty() {
            let index_bytes: Vec<u8> = moving.iter().flat_map(|i| i.to_le_bytes()).collect();
            let values: Vec<u8> = moving
                .iter()
                .flat_map(|&i| data[i as usize])
                .flat_map(f32::to_le_bytes)
                .collect();
            let indices_view = self.view(&index_bytes, None);
            let values_view = self.view(&values, None);
            accessor["sparse"] = json!({"count": moving.len(),
                "indices": {"bufferView": indices_view, "componentType": UNSIGNED_INT},
                "values": {"bufferView": values_view}});
        }
        if bounds {
            let mut min = [0.0_f32; 3];
            let mut max = [0.0_f32; 3];
            for d in data {
                for i in 0..3 {
                    min[i] = min[i].min(d[i]);
                    max[i] = max[i].max(d[i]);
                }
            }
            accessor["min"] = json!(min);
            accessor["max"] = json!(max);
        }
        self.accessor(accessor)
    }
}
