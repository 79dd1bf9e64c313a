//! Reading accessors: every component type, normalised integers (KHR_mesh_quantization),
//! byte strides and sparse substitution, with every offset checked so that no file can make
//! the reader index out of bounds.

use gltf::json;
use gltf::json::accessor::{ComponentType, Type};
use gltf::json::validation::Checked;

use super::error::{AssetError, Result};

/// Most bytes one accessor may expand to once decoded.
const MAX_DECODED_BYTES: usize = 512 << 20;

/// Reads accessors of one document.
#[derive(Clone, Copy, Debug)]
pub struct Reader<'a> {
    pub root: &'a json::Root,
    pub buffers: &'a [Vec<u8>],
    /// Decoded bytes of compressed buffer views, by view index (None: stored plainly).
    pub decoded_views: &'a [Option<Vec<u8>>],
}

/// How values of one component type are laid out and turned into numbers.
#[derive(Clone, Copy, Debug)]
struct Layout {
    component: ComponentType,
    width: usize,
    normalized: bool,
}

fn component_size(c: ComponentType) -> usize {
    match c {
        ComponentType::I8 | ComponentType::U8 => 1,
        ComponentType::I16 | ComponentType::U16 => 2,
        ComponentType::U32 | ComponentType::F32 => 4,
    }
}

fn type_width(t: Type) -> usize {
    match t {
        Type::Scalar => 1,
        Type::Vec2 => 2,
        Type::Vec3 => 3,
        Type::Vec4 | Type::Mat2 => 4,
        Type::Mat3 => 9,
        Type::Mat4 => 16,
    }
}

/// One component as f32, normalised when the accessor says so.
fn decode_f32(c: ComponentType, normalized: bool, b: &[u8]) -> f32 {
    match c {
        ComponentType::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        ComponentType::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
        ComponentType::I8 => {
            let v = f32::from(b[0] as i8);
            if normalized { (v / 127.0).max(-1.0) } else { v }
        }
        ComponentType::U8 => {
            let v = f32::from(b[0]);
            if normalized { v / 255.0 } else { v }
        }
        ComponentType::I16 => {
            let v = f32::from(i16::from_le_bytes([b[0], b[1]]));
            if normalized {
                (v / 32767.0).max(-1.0)
            } else {
                v
            }
        }
        ComponentType::U16 => {
            let v = f32::from(u16::from_le_bytes([b[0], b[1]]));
            if normalized { v / 65535.0 } else { v }
        }
    }
}

/// One unsigned integer component (indices, joints).
fn decode_u32(c: ComponentType, b: &[u8]) -> Option<u32> {
    match c {
        ComponentType::U8 => Some(u32::from(b[0])),
        ComponentType::U16 => Some(u32::from(u16::from_le_bytes([b[0], b[1]]))),
        ComponentType::U32 => Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        _ => None,
    }
}

impl<'a> Reader<'a> {
    #[must_use]
    pub fn new(root: &'a json::Root, buffers: &'a [Vec<u8>]) -> Self {
        Self {
            root,
            buffers,
            decoded_views: &[],
        }
    }

    /// A reader of a whole [`super::Source`], compressed views included.
    #[must_use]
    pub fn of(source: &'a super::Source) -> Self {
        Self {
            root: &source.root,
            buffers: &source.buffers,
            decoded_views: &source.decoded_views,
        }
    }

    fn accessor(&self, index: usize) -> Result<&'a json::Accessor> {
        self.root
            .accessors
            .get(index)
            .ok_or(AssetError::IndexOutOfRange {
                what: "accessor",
                index,
            })
    }

    fn bad(index: usize, reason: impl Into<String>) -> AssetError {
        AssetError::BadAccessor {
            index,
            reason: reason.into(),
        }
    }

    /// The bytes of a buffer view (decoded when it was compressed).
    pub fn view_bytes(&self, view_index: usize) -> Result<&'a [u8]> {
        self.view(view_index).map(|(bytes, _)| bytes)
    }

    /// The bytes of a buffer view, and its stride.
    fn view(&self, view_index: usize) -> Result<(&'a [u8], Option<usize>)> {
        let view = self
            .root
            .buffer_views
            .get(view_index)
            .ok_or(AssetError::IndexOutOfRange {
                what: "buffer view",
                index: view_index,
            })?;
        if let Some(Some(decoded)) = self.decoded_views.get(view_index) {
            return Ok((decoded, view.byte_stride.map(|s| s.0)));
        }
        let buffer_index = view.buffer.value();
        let buffer = self
            .buffers
            .get(buffer_index)
            .ok_or(AssetError::IndexOutOfRange {
                what: "buffer",
                index: buffer_index,
            })?;
        let start = view.byte_offset.map_or(0, |o| o.0);
        let end = start.checked_add(view.byte_length.0);
        let range = usize::try_from(start)
            .ok()
            .zip(end.and_then(|e| usize::try_from(e).ok()))
            .filter(|&(s, e)| e <= buffer.len() && s <= e);
        let Some((s, e)) = range else {
            return Err(AssetError::Format(format!(
                "buffer view {view_index} reaches past the end of buffer {buffer_index}"
            )));
        };
        Ok((&buffer[s..e], view.byte_stride.map(|s| s.0)))
    }

    fn layout(&self, index: usize, accessor: &json::Accessor) -> Result<Layout> {
        let Checked::Valid(component) = accessor.component_type else {
            return Err(Self::bad(index, "unknown component type"));
        };
        let Checked::Valid(kind) = accessor.type_ else {
            return Err(Self::bad(index, "unknown type"));
        };
        Ok(Layout {
            component: component.0,
            width: type_width(kind),
            normalized: accessor.normalized,
        })
    }

    /// Calls `each(element, component, bytes)` for every component of `count` elements laid out
    /// in `bytes` from `offset` with `stride`, after checking the whole range fits.
    fn walk(
        index: usize,
        bytes: &[u8],
        offset: usize,
        stride: Option<usize>,
        count: usize,
        layout: Layout,
        mut each: impl FnMut(usize, usize, &[u8]),
    ) -> Result<()> {
        let size = component_size(layout.component);
        let element = size * layout.width;
        let stride = stride.unwrap_or(element);
        if stride < element {
            return Err(Self::bad(
                index,
                format!("stride {stride} is smaller than an element ({element} bytes)"),
            ));
        }
        if count == 0 {
            return Ok(());
        }
        let last = (count - 1)
            .checked_mul(stride)
            .and_then(|v| v.checked_add(offset))
            .and_then(|v| v.checked_add(element));
        if last.is_none_or(|end| end > bytes.len()) {
            return Err(Self::bad(
                index,
                "its data reaches past the end of its buffer view",
            ));
        }
        for e in 0..count {
            let at = offset + e * stride;
            for c in 0..layout.width {
                let from = at + c * size;
                each(e, c, &bytes[from..from + size]);
            }
        }
        Ok(())
    }

    /// Every component of the accessor as f32 (normalised integers mapped to [-1, 1] or
    /// [0, 1]), with sparse values substituted. Returns the values and the element width.
    pub fn floats(&self, index: usize) -> Result<(Vec<f32>, usize)> {
        self.components(index, |layout, b| {
            decode_f32(layout.component, layout.normalized, b)
        })
    }

    /// Every component as an unsigned integer (u8, u16 or u32 accessors only).
    pub fn uints(&self, index: usize) -> Result<(Vec<u32>, usize)> {
        let layout = self.layout(index, self.accessor(index)?)?;
        if matches!(
            layout.component,
            ComponentType::I8 | ComponentType::I16 | ComponentType::F32
        ) {
            return Err(Self::bad(index, "expected unsigned integers"));
        }
        self.components(index, |layout, b| {
            decode_u32(layout.component, b).unwrap_or(0)
        })
    }

    /// Decodes every component with `decode`: the base data from the buffer view (zeros
    /// without one), then the sparse substitutions. Returns the values and the element width.
    fn components<T: Copy + Default>(
        &self,
        index: usize,
        decode: impl Fn(Layout, &[u8]) -> T,
    ) -> Result<(Vec<T>, usize)> {
        let accessor = self.accessor(index)?;
        let layout = self.layout(index, accessor)?;
        let count = usize::try_from(accessor.count.0).unwrap_or(usize::MAX);
        if count.saturating_mul(layout.width).saturating_mul(4) > MAX_DECODED_BYTES {
            return Err(Self::bad(
                index,
                format!("{count} elements is more than this loader reads"),
            ));
        }
        let w = layout.width;
        let mut out = vec![T::default(); count * w];
        if let Some(view) = accessor.buffer_view {
            let (bytes, stride) = self.view(view.value())?;
            let offset =
                usize::try_from(accessor.byte_offset.map_or(0, |o| o.0)).unwrap_or(usize::MAX);
            Self::walk(index, bytes, offset, stride, count, layout, |e, c, b| {
                out[e * w + c] = decode(layout, b);
            })?;
        }
        if let Some(sparse) = &accessor.sparse {
            let targets = self.sparse_indices(index, sparse, count)?;
            let (bytes, _) = self.view(sparse.values.buffer_view.value())?;
            let offset = usize::try_from(sparse.values.byte_offset.0).unwrap_or(usize::MAX);
            let n = targets.len();
            Self::walk(index, bytes, offset, None, n, layout, |e, c, b| {
                out[targets[e] * w + c] = decode(layout, b);
            })?;
        }
        Ok((out, w))
    }

    fn sparse_indices(
        &self,
        index: usize,
        sparse: &json::accessor::sparse::Sparse,
        count: usize,
    ) -> Result<Vec<usize>> {
        let n = usize::try_from(sparse.count.0).unwrap_or(usize::MAX);
        if n > count {
            return Err(Self::bad(index, "more sparse values than elements"));
        }
        let Checked::Valid(component) = sparse.indices.component_type else {
            return Err(Self::bad(index, "unknown sparse index type"));
        };
        let layout = Layout {
            component: component.0,
            width: 1,
            normalized: false,
        };
        let (bytes, _) = self.view(sparse.indices.buffer_view.value())?;
        let offset = usize::try_from(sparse.indices.byte_offset.0).unwrap_or(usize::MAX);
        let mut targets = Vec::with_capacity(n);
        let mut out_of_range = false;
        Self::walk(index, bytes, offset, None, n, layout, |_, _, b| {
            let i = decode_u32(layout.component, b).map_or(usize::MAX, |v| v as usize);
            out_of_range |= i >= count;
            targets.push(i.min(count.saturating_sub(1)));
        })?;
        if out_of_range {
            return Err(Self::bad(index, "a sparse index is out of range"));
        }
        Ok(targets)
    }

    pub fn fixed<const N: usize>(&self, index: usize, what: &str) -> Result<Vec<[f32; N]>> {
        let (values, width) = self.floats(index)?;
        if width != N {
            return Err(Self::bad(
                index,
                format!("{what} need {N} components, found {width}"),
            ));
        }
        Ok(values
            .chunks_exact(N)
            .map(|c| std::array::from_fn(|i| c[i]))
            .collect())
    }

    pub fn vec2(&self, index: usize, what: &str) -> Result<Vec<[f32; 2]>> {
        self.fixed::<2>(index, what)
    }

    pub fn vec3(&self, index: usize, what: &str) -> Result<Vec<[f32; 3]>> {
        self.fixed::<3>(index, what)
    }

    pub fn vec4(&self, index: usize, what: &str) -> Result<Vec<[f32; 4]>> {
        self.fixed::<4>(index, what)
    }

    pub fn mat4(&self, index: usize, what: &str) -> Result<Vec<[f32; 16]>> {
        self.fixed::<16>(index, what)
    }

    pub fn scalars(&self, index: usize, what: &str) -> Result<Vec<f32>> {
        let (values, width) = self.floats(index)?;
        if width != 1 {
            return Err(Self::bad(
                index,
                format!("{what} need scalars, found {width} components"),
            ));
        }
        Ok(values)
    }

    /// Triangle indices.
    pub fn indices(&self, index: usize) -> Result<Vec<u32>> {
        let (values, width) = self.uints(index)?;
        if width != 1 {
            return Err(Self::bad(index, "indices must be scalars"));
        }
        Ok(values)
    }

    /// JOINTS_0: four joint indices per vertex.
    pub fn joints(&self, index: usize) -> Result<Vec<[u16; 4]>> {
        let (values, width) = self.uints(index)?;
        if width != 4 {
            return Err(Self::bad(index, "joints need 4 components"));
        }
        Ok(values
            .chunks_exact(4)
            .map(|c| std::array::from_fn(|i| u16::try_from(c[i]).unwrap_or(u16::MAX)))
            .collect())
    }
}
