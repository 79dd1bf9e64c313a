//! The per-frame GPU buffers (globals, objects, active morphs, joint palettes, deform chunks
//! and deformed vertices) and the bind groups that hold them, rebuilt when a buffer grows.
//!
//! The joint palette has a buffer for each of the last two draw lists drawn: a render loop
//! that fills one list while the renderer draws the other (a render thread) alternates
//! between two, and each list's palette changes are counted from its own frame before.

use wgpu::util::DeviceExt;

use super::draw_list::DrawList;
use super::gpu_types::JointRows;
use super::gpu_types::{DeformParams, Globals, GpuDeformed};
use super::grow_buffer::GrowBuffer;
use super::mesh_store::MeshStore;
use super::palette_changes::{PaletteStamp, PaletteUpload, merged};
use super::pipelines::Layouts;
use super::uploads::Uploads;

/// One draw list's joint palette on the GPU and the frame group 0s that bind it.
#[derive(Debug)]
struct PaletteSlot {
    buffer: GrowBuffer,
    /// The draw list frame whose whole palette the buffer holds.
    held: Option<PaletteStamp>,
    /// Group 0 of the render passes.
    render: wgpu::BindGroup,
    /// Group 0 of compute passes.
    compute: wgpu::BindGroup,
}

/// Buffers rewritten every frame.
#[derive(Debug)]
pub struct FrameBuffers {
    globals: wgpu::Buffer,
    objects: GrowBuffer,
    morphs: GrowBuffer,
    palettes: [PaletteSlot; 2],
    /// The slot of the frame last written.
    current: usize,
    chunks: GrowBuffer,
    deformed: GrowBuffer,
    deform_params: wgpu::Buffer,
    uploads: Uploads,
    /// Group 1 of the deform pass.
    pub deform: wgpu::BindGroup,
}

fn entries<'a>(buffers: &[&'a wgpu::Buffer]) -> Vec<wgpu::BindGroupEntry<'a>> {
    buffers
        .iter()
        .enumerate()
        .map(|(i, b)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: b.as_entire_binding(),
        })
        .collect()
}

fn uniform_buffer(device: &wgpu::Device, label: &str, bytes: &[u8]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytes,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    })
}

impl FrameBuffers {
    #[must_use]
    pub fn new(device: &wgpu::Device, layouts: &Layouts, store: &MeshStore) -> Self {
        let globals = uniform_buffer(
            device,
            "globals",
            bytemuck::bytes_of(&<Globals as bytemuck::Zeroable>::zeroed()),
        );
        let deform_params = uniform_buffer(
            device,
            "deform params",
            bytemuck::bytes_of(&<DeformParams as bytemuck::Zeroable>::zeroed()),
        );
        let placeholder = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: None,
            entries: &[],
        });
        let empty = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &placeholder,
            entries: &[],
        });
        let slot = || PaletteSlot {
            buffer: GrowBuffer::new(device, "joint palette"),
            held: None,
            render: empty.clone(),
            compute: empty.clone(),
        };
        let mut frame = Self {
            globals,
            objects: GrowBuffer::new(device, "objects"),
            morphs: GrowBuffer::new(device, "active morphs"),
            palettes: [slot(), slot()],
            current: 0,
            chunks: GrowBuffer::new(device, "deform chunks"),
            deformed: GrowBuffer::new(device, "deformed vertices"),
            deform_params,
            uploads: Uploads::new(device),
            deform: empty,
        };
        frame.rebuild(device, layouts, store);
        frame
    }

    /// Group 0 of the render passes for the frame last written.
    #[must_use]
    pub fn render(&self) -> &wgpu::BindGroup {
        &self.palettes[self.current].render
    }

    /// Group 0 of compute passes for the frame last written.
    #[must_use]
    pub fn compute(&self) -> &wgpu::BindGroup {
        &self.palettes[self.current].compute
    }

    /// Makes the bind groups again (after a buffer was replaced).
    fn rebuild(&mut self, device: &wgpu::Device, layouts: &Layouts, store: &MeshStore) {
        for slot in &mut self.palettes {
            let shared = [
                &self.globals,
                &store.vertices,
                &store.deltas,
                &self.objects.buffer,
                &self.morphs.buffer,
                &slot.buffer.buffer,
            ];
            let mut with_deformed = shared.to_vec();
            with_deformed.push(&self.deformed.buffer);
            slot.render = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("frame"),
                layout: &layouts.frame,
                entries: &entries(&with_deformed),
            });
            slot.compute = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("frame (compute)"),
                layout: &layouts.frame_compute,
                entries: &entries(&shared),
            });
        }
        self.deform = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("deform pass"),
            layout: &layouts.deform,
            entries: &entries(&[
                &self.chunks.buffer,
                &self.deformed.buffer,
                &self.deform_params,
            ]),
        });
    }

    /// Uploads the frame's globals and draw list.
    pub fn write(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        layouts: &Layouts,
        store: &MeshStore,
        globals: &Globals,
        list: &DrawList,
    ) {
        queue.write_buffer(&self.globals, 0, bytemuck::bytes_of(globals));
        queue.write_buffer(
            &self.deform_params,
            0,
            bytemuck::bytes_of(&DeformParams {
                chunk_count: list.chunks.len() as u32,
                pad: [0; 3],
            }),
        );
        let deformed_bytes = u64::from(list.deformed_vertices) * size_of::<GpuDeformed>() as u64;
        let uploads = &mut self.uploads;
        let mut grew = self
            .objects
            .write(device, uploads, bytemuck::cast_slice(&list.objects))
            | self
                .morphs
                .write(device, uploads, bytemuck::cast_slice(&list.morphs))
            | self
                .chunks
                .write(device, uploads, bytemuck::cast_slice(&list.chunks))
            | self.deformed.ensure(device, deformed_bytes);
        let palette = list.palette();
        let changes = list.palette_changes();
        // The slot holding this list's frame before, else the one not drawn last.
        let stamp = changes.stamp();
        self.current = self
            .palettes
            .iter()
            .position(|slot| slot.held.is_some_and(|(list, _)| list == stamp.0))
            .unwrap_or(1 - self.current);
        let slot = &mut self.palettes[self.current];
        let palette_grew = slot.buffer.ensure(device, size_of_val(palette) as u64);
        match changes.since(slot.held.filter(|_| !palette_grew)) {
            PaletteUpload::Nothing => {}
            PaletteUpload::Ranges(ranges) => {
                for r in merged(ranges, MERGE_GAP) {
                    let rows = &palette[r.start as usize..r.end as usize];
                    let offset = u64::from(r.start) * size_of::<JointRows>() as u64;
                    slot.buffer
                        .write_at(uploads, offset, bytemuck::cast_slice(rows));
                }
            }
            PaletteUpload::All => {
                slot.buffer
                    .write_at(uploads, 0, bytemuck::cast_slice(palette));
            }
        }
        slot.held = Some(stamp);
        grew |= palette_grew;
        uploads.submit(queue);
        if grew {
            self.rebuild(device, layouts, store);
        }
    }
}

/// Palette entries between two written ranges that are uploaded with them rather than as a
/// copy of their own: 24 KB copied again costs less than another copy command (an avatar's
/// palette is 20-200 entries; a crowd staggered over frames leaves thousands of gaps).
const MERGE_GAP: u32 = 512;
