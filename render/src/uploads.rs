//! A frame's uploads through staging buffers that are reused frame after frame.
//! (`Queue::write_buffer` makes a new staging buffer for every call: for a crowd's tens of
//! megabytes of palettes a frame, making and freeing them took most of the frame.)

use std::num::NonZeroU64;

/// Writes `bytes` into GPU buffers, recorded as copies in an encoder of its own, then
/// submitted before the frame that reads them.
pub struct Uploads {
    belt: wgpu::util::StagingBelt,
    encoder: Option<wgpu::CommandEncoder>,
    device: wgpu::Device,
}

impl std::fmt::Debug for Uploads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Uploads").finish_non_exhaustive()
    }
}

/// Size of a staging buffer; a larger write gets one of its own size, reused when free.
const CHUNK_BYTES: u64 = 1 << 20;

impl Uploads {
    #[must_use]
    pub fn new(device: &wgpu::Device) -> Self {
        Self {
            belt: wgpu::util::StagingBelt::new(device.clone(), CHUNK_BYTES),
            encoder: None,
            device: device.clone(),
        }
    }

    /// Writes `bytes` (a multiple of 4 long) at `offset` of `target` when
    /// [`Self::submit`] is next called.
    pub fn write(&mut self, target: &wgpu::Buffer, offset: u64, bytes: &[u8]) {
        let Some(size) = NonZeroU64::new(bytes.len() as u64) else {
            return;
        };
        let device = &self.device;
        let encoder = self.encoder.get_or_insert_with(|| {
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("uploads"),
            })
        });
        self.belt
            .write_buffer(encoder, target, offset, size)
            .copy_from_slice(bytes);
    }

    /// Submits the writes so far (before anything submitted after reads them).
    pub fn submit(&mut self, queue: &wgpu::Queue) {
        if let Some(encoder) = self.encoder.take() {
            self.belt.finish();
            queue.submit([encoder.finish()]);
            self.belt.recall();
        }
    }
}
