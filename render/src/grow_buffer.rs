//! A storage buffer rewritten every frame that grows (to the next power of two) when the
//! frame's data outgrows it.

use super::uploads::Uploads;

/// A per-frame storage buffer.
#[derive(Debug)]
pub struct GrowBuffer {
    pub buffer: wgpu::Buffer,
    label: &'static str,
}

/// The smallest buffer made: bindings need at least one element.
const MIN_BYTES: u64 = 256;

/// A buffer for `needed` bytes: the next power of two, but never more than the device binds
/// (a frame that needs more is cut short, see [`GrowBuffer::write`], rather than failing).
fn create(device: &wgpu::Device, label: &'static str, needed: u64) -> wgpu::Buffer {
    let limit = device.limits().max_storage_buffer_binding_size & !3;
    let size = needed.next_power_of_two().min(limit).max(MIN_BYTES);
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

impl GrowBuffer {
    #[must_use]
    pub fn new(device: &wgpu::Device, label: &'static str) -> Self {
        Self {
            buffer: create(device, label, MIN_BYTES),
            label,
        }
    }

    /// Makes room for `bytes` bytes (contents undefined); returns true when replaced.
    pub fn ensure(&mut self, device: &wgpu::Device, bytes: u64) -> bool {
        let needed = bytes.max(MIN_BYTES);
        let grew = needed > self.buffer.size();
        if grew {
            self.buffer = create(device, self.label, needed);
        }
        grew
    }

    /// Writes `bytes` at the start through `uploads`; returns true when the buffer had to be
    /// replaced (bind groups holding it must be made again).
    pub fn write(&mut self, device: &wgpu::Device, uploads: &mut Uploads, bytes: &[u8]) -> bool {
        let grew = self.ensure(device, bytes.len() as u64);
        self.write_at(uploads, 0, bytes);
        grew
    }

    /// Writes `bytes` from byte `offset` (a multiple of 4) through `uploads`. What does not
    /// fit the buffer is left out (it is the largest the device binds: the renderer warns, and
    /// the draw list's budget normally keeps within it).
    pub fn write_at(&self, uploads: &mut Uploads, offset: u64, bytes: &[u8]) {
        let room = usize::try_from(self.buffer.size().saturating_sub(offset)).unwrap_or(usize::MAX);
        let fits = bytes.len().min(room) & !3;
        if fits > 0 {
            uploads.write(&self.buffer, offset, &bytes[..fits]);
        }
    }
}
