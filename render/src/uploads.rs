//! A frame's uploads through staging buffers that are reused frame after frame.
//! (`Queue::write_buffer` makes a new staging buffer for every call: for a crowd's tens of
//! megabytes of palettes a frame, making and freeing them took most of the frame.)

use std::num::NonZeroU64;

use rayon::prelude::*;

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

/// Bytes of a write copied by one core, as a copy of its own: a crowd's palettes are tens of
/// megabytes, more than one core copies into staging memory in a millisecond.
const COPY_PIECE: usize = 1 << 20;

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
        let device = &self.device;
        let encoder = self.encoder.get_or_insert_with(|| {
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("uploads"),
            })
        });
        // One staging slice per piece, then the pieces copied over all cores.
        let mut views: Vec<(wgpu::BufferViewMut, &[u8])> = bytes
            .chunks(COPY_PIECE)
            .enumerate()
            .filter_map(|(i, piece)| {
                let size = NonZeroU64::new(piece.len() as u64)?;
                let at = offset + (i * COPY_PIECE) as u64;
                Some((self.belt.write_buffer(encoder, target, at, size), piece))
            })
            .collect();
        views
            .par_iter_mut()
            .for_each(|(view, piece)| view.copy_from_slice(piece));
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

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used, clippy::unwrap_used)]

    use super::*;
    use crate::Gpu;

    /// Reads `buffer` back whole.
    fn read(gpu: &Gpu, buffer: &wgpu::Buffer) -> Vec<u8> {
        let back = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: buffer.size(),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(buffer, 0, &back, 0, buffer.size());
        gpu.queue.submit([encoder.finish()]);
        back.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .unwrap();
        back.slice(..).get_mapped_range().unwrap().to_vec()
    }

    #[test]
    fn a_write_of_many_pieces_lands_whole_and_the_next_frame_reuses_the_belt() {
        let gpu = Gpu::headless().expect("a Vulkan adapter (mesa-vulkan-drivers in CI)");
        let size = 2 * COPY_PIECE + 4096;
        let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: size as u64,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut uploads = Uploads::new(&gpu.device);
        for frame in 0..3_u8 {
            let bytes: Vec<u8> = (0..size - 8).map(|i| (i % 251) as u8 ^ frame).collect();
            uploads.write(&buffer, 4, &bytes);
            uploads.write(&buffer, 0, &[frame; 4]);
            uploads.submit(&gpu.queue);
            let back = read(&gpu, &buffer);
            assert_eq!(back[..4], [frame; 4]);
            assert!(
                back[4..size - 4] == bytes[..],
                "frame {frame}: the pieces differ"
            );
        }
    }
}
