//! EXT_meshopt_compression: buffer views compressed by gltfpack, decoded with meshoptimizer's
//! own decoder (safe on untrusted input) and its filters.

use gltf::json;
use serde_json::Value;

use super::error::{AssetError, Result};

/// Most bytes one decoded view may hold.
const MAX_DECODED_VIEW: usize = 512 << 20;

fn bad(view: usize, reason: impl std::fmt::Display) -> AssetError {
    AssetError::Format(format!(
        "buffer view {view} (EXT_meshopt_compression): {reason}"
    ))
}

/// Decodes every compressed buffer view; `None` for views stored plainly.
pub fn decode_views(root: &json::Root, buffers: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>> {
    root.buffer_views
        .iter()
        .enumerate()
        .map(|(i, view)| {
            let ext = view
                .extensions
                .as_ref()
                .and_then(|e| e.others.get("EXT_meshopt_compression"));
            ext.map(|ext| decode_view(i, ext, buffers)).transpose()
        })
        .collect()
}

fn field(ext: &Value, name: &str) -> Option<usize> {
    ext.get(name)
        .and_then(Value::as_u64)
        .and_then(|v| usize::try_from(v).ok())
}

fn decode_view(view: usize, ext: &Value, buffers: &[Vec<u8>]) -> Result<Vec<u8>> {
    let buffer = field(ext, "buffer").ok_or_else(|| bad(view, "no buffer"))?;
    let offset = field(ext, "byteOffset").unwrap_or(0);
    let length = field(ext, "byteLength").ok_or_else(|| bad(view, "no byteLength"))?;
    let stride = field(ext, "byteStride").ok_or_else(|| bad(view, "no byteStride"))?;
    let count = field(ext, "count").ok_or_else(|| bad(view, "no count"))?;
    let mode = ext.get("mode").and_then(Value::as_str).unwrap_or("");
    let filter = ext.get("filter").and_then(Value::as_str).unwrap_or("NONE");
    let data = buffers
        .get(buffer)
        .and_then(|b| b.get(offset..offset.checked_add(length)?))
        .ok_or_else(|| bad(view, "compressed data lies outside its buffer"))?;
    if count
        .checked_mul(stride)
        .is_none_or(|n| n > MAX_DECODED_VIEW)
    {
        return Err(bad(view, "decoded size is too large"));
    }
    let decoded = match mode {
        "ATTRIBUTES" => {
            let mut bytes = decode_attributes(data, count, stride).map_err(|e| bad(view, e))?;
            apply_filter(filter, &mut bytes, stride).map_err(|e| bad(view, e))?;
            bytes
        }
        "TRIANGLES" | "INDICES" => {
            decode_indices(mode, data, count, stride).map_err(|e| bad(view, e))?
        }
        other => return Err(bad(view, format!("unknown mode `{other}`"))),
    };
    Ok(decoded)
}

/// One vertex of `N` bytes, as the decoder writes it.
#[derive(Clone, Copy)]
#[repr(transparent)]
struct Vertex<const N: usize>([u8; N]);

impl<const N: usize> Default for Vertex<N> {
    fn default() -> Self {
        Self([0; N])
    }
}

/// Decodes a vertex stream of `count` elements of `stride` bytes.
fn decode_attributes(data: &[u8], count: usize, stride: usize) -> Result<Vec<u8>, String> {
    macro_rules! by_stride {
        ($($n:literal)*) => {
            match stride {
                $($n => meshopt::encoding::decode_vertex_buffer::<Vertex<$n>>(data, count)
                    .map(|v| v.into_iter().flat_map(|x| x.0).collect())
                    .map_err(|e| e.to_string()),)*
                _ => Err(format!("byteStride {stride} is not a multiple of 4 up to 256")),
            }
        };
    }
    by_stride!(4 8 12 16 20 24 28 32 36 40 44 48 52 56 60 64 68 72 76 80 84 88 92 96 100 104 108
        112 116 120 124 128 132 136 140 144 148 152 156 160 164 168 172 176 180 184 188 192 196
        200 204 208 212 216 220 224 228 232 236 240 244 248 252 256)
}

fn decode_indices(mode: &str, data: &[u8], count: usize, stride: usize) -> Result<Vec<u8>, String> {
    use meshopt::encoding::{decode_index_buffer, decode_index_sequence};
    let sequence = mode == "INDICES";
    match stride {
        2 => {
            let v: Vec<u16> = if sequence {
                decode_index_sequence(data, count)
            } else {
                decode_index_buffer(data, count)
            }
            .map_err(|e| e.to_string())?;
            Ok(v.into_iter().flat_map(u16::to_le_bytes).collect())
        }
        4 => {
            let v: Vec<u32> = if sequence {
                decode_index_sequence(data, count)
            } else {
                decode_index_buffer(data, count)
            }
            .map_err(|e| e.to_string())?;
            Ok(v.into_iter().flat_map(u32::to_le_bytes).collect())
        }
        _ => Err(format!("index byteStride {stride} must be 2 or 4")),
    }
}

/// Undoes a gltfpack filter in place.
fn apply_filter(filter: &str, bytes: &mut [u8], stride: usize) -> Result<(), String> {
    use meshopt::encoding::{decode_filter_exp, decode_filter_oct, decode_filter_quat};
    match (filter, stride) {
        ("NONE", _) => {}
        ("OCTAHEDRAL", 4) => with_elements::<i8, 4>(bytes, decode_filter_oct),
        ("OCTAHEDRAL", 8) => with_elements::<i16, 4>(bytes, decode_filter_oct),
        ("QUATERNION", 8) => with_elements::<i16, 4>(bytes, decode_filter_quat),
        ("EXPONENTIAL", 4) => with_elements::<u32, 1>(bytes, decode_filter_exp),
        ("EXPONENTIAL", 8) => with_elements::<u32, 2>(bytes, decode_filter_exp),
        ("EXPONENTIAL", 12) => with_elements::<u32, 3>(bytes, decode_filter_exp),
        ("EXPONENTIAL", 16) => with_elements::<u32, 4>(bytes, decode_filter_exp),
        (other, stride) => {
            return Err(format!(
                "filter {other} with byteStride {stride} is not supported"
            ));
        }
    }
    Ok(())
}

/// Little-endian numbers that a filter works on.
trait Component: Copy + Default {
    const SIZE: usize;
    fn read(b: &[u8]) -> Self;
    fn write(self, b: &mut [u8]);
}

macro_rules! component {
    ($($t:ty),*) => {$(
        impl Component for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn read(b: &[u8]) -> Self {
                let mut raw = [0_u8; std::mem::size_of::<$t>()];
                raw.copy_from_slice(&b[..Self::SIZE]);
                <$t>::from_le_bytes(raw)
            }
            fn write(self, b: &mut [u8]) {
                b[..Self::SIZE].copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
component!(i8, i16, u32);

/// Copies `bytes` into typed elements, runs `filter` on them, and writes them back.
fn with_elements<C: Component, const N: usize>(
    bytes: &mut [u8],
    filter: impl FnOnce(&mut [[C; N]]),
) {
    let element = C::SIZE * N;
    let mut elements: Vec<[C; N]> = bytes
        .chunks_exact(element)
        .map(|e| std::array::from_fn(|i| C::read(&e[i * C::SIZE..])))
        .collect();
    filter(&mut elements);
    for (e, out) in elements.iter().zip(bytes.chunks_exact_mut(element)) {
        for (i, c) in e.iter().enumerate() {
            c.write(&mut out[i * C::SIZE..]);
        }
    }
}
