//! A storage buffer rewritten every frame that grows (to the next power of two) when the
//! frame's data outgrows it.

/// A per-frame storage buffer.
#[derive(Debug)]
pub struct GrowBuffer {
    pub buffer: wgpu::Buffer,
    label: &'static str,
}

/// The smallest buffer made: bindings need at least one element.
const MIN_BYTES: u64 = 256;

fn create(device: &wgpu::Device, label: &'static str, size: u64) -> wgpu::Buffer {
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
            self.buffer = create(device, self.label, needed.next_power_of_two());
        }
        grew
    }

    /// Writes `bytes` at the start; returns true when the buffer had to be replaced (bind
    /// groups holding it must be made again).
    pub fn write(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, bytes: &[u8]) -> bool {
        let needed = (bytes.len() as u64).max(MIN_BYTES);
        let grew = needed > self.buffer.size();
        if grew {
            self.buffer = create(device, self.label, needed.next_power_of_two());
        }
        if !bytes.is_empty() {
            queue.write_buffer(&self.buffer, 0, bytes);
        }
        grew
    }
}
