//! Every mesh the renderer draws, in three shared GPU buffers: vertices (pulled by index in
//! the vertex shader), indices and morph deltas (all targets of a primitive side by side,
//! position and normal per vertex), plus one bind group per material.
//!
//! Assets are added on the CPU first ([`MeshStoreBuilder::add`]), then uploaded at once.

use std::collections::HashMap;

use glam::Mat4;
use npc_core::asset::Asset;
use npc_core::asset::lod::{
    LOD_RATIOS, drop_small_silhouette, lod_indices, nested_levels, rest_extents,
};
use npc_core::asset::material::{AlphaMode, Material, Surface as SurfaceModel};
use thiserror::Error;
use wgpu::util::DeviceExt;

use super::bind_shape::BindShape;
use super::gpu::Gpu;
use super::gpu_types::{GpuMaterial, GpuVertex};
use super::materials::{
    MaterialLayout, MipTexture, NeutralTextures, SLOTS, Slot, gpu_material, material_bind_group,
    well_formed,
};
use super::octahedral;
use super::shading::Shading;

/// Index of a primitive in the store.
pub type PrimitiveId = u32;

/// Levels of detail of every primitive.
pub const LOD_COUNT: usize = LOD_RATIOS.len();

/// A range of the shared index buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexRange {
    pub first: u32,
    pub count: u32,
}

/// Where a primitive lives in the shared buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuPrimitive {
    /// Its triangles at each level of detail (0 the full list), over the same vertices.
    pub lods: [IndexRange; LOD_COUNT],
    /// How many of its first vertices each level's triangles use: what deforming it for that
    /// level (and any coarser one) takes.
    pub lod_vertices: [u32; LOD_COUNT],
    pub vertex_base: u32,
    pub vertex_count: u32,
    /// First delta (a `vec4`) of its targets.
    pub delta_base: u32,
    pub target_count: u32,
    /// Index into the store's materials.
    pub material: u32,
    pub skinned: bool,
    /// How its material treats alpha (which pipelines draw it).
    pub surface: Surface,
    /// The parts of the lit shader its material needs (which main-pass pipeline draws it).
    pub shading: Shading,
    /// Its material has an MToon outline (the outline pipeline draws it again).
    pub outline: bool,
}

/// How a material treats alpha.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Surface {
    /// Alpha ignored: drawn without discard, so the depth test runs before shading.
    Opaque,
    /// Holes where alpha is under the cutoff (grass, leaves).
    Masked,
    /// See-through: blended over what is behind, after everything opaque, far to near;
    /// casts shadows as a mask at one half.
    Blended,
}

/// The primitives of one added asset: `meshes[mesh]` lists the ids of that mesh's primitives.
#[derive(Clone, Debug, Default)]
pub struct StoredAsset {
    pub meshes: Vec<Vec<PrimitiveId>>,
}

impl StoredAsset {
    /// The stored primitives of the asset's mesh `mesh`, with their ids: what a draw list
    /// pushes for each placed copy of that mesh.
    pub fn primitives_of<'a>(
        &'a self,
        mesh: usize,
        primitives: &'a [GpuPrimitive],
    ) -> impl Iterator<Item = (PrimitiveId, &'a GpuPrimitive)> + 'a {
        self.meshes
            .get(mesh)
            .into_iter()
            .flatten()
            .filter_map(|&id| primitives.get(id as usize).map(|p| (id, p)))
    }
}

/// A material before upload.
#[derive(Debug)]
struct PendingMaterial {
    uniform: GpuMaterial,
    /// By slot: the index of its texture in the builder's textures.
    textures: [Option<usize>; SLOTS],
    surface: Surface,
    shading: Shading,
}

/// Collects assets on the CPU.
#[derive(Debug, Default)]
pub struct MeshStoreBuilder {
    vertices: Vec<GpuVertex>,
    deltas: Vec<[f32; 4]>,
    indices: Vec<u32>,
    primitives: Vec<GpuPrimitive>,
    materials: Vec<PendingMaterial>,
    /// Each texture a material uses, once, and whether it is colour (sRGB).
    /// With their mipmaps made as they are added (where the asset is read: off the thread
    /// that uploads them).
    textures: Vec<MipTexture>,
}

/// Why the meshes could not go to the GPU.
#[derive(Debug, Error)]
pub enum StoreError {
    #[error(
        "the {what} of all meshes take {bytes} bytes, more than this GPU binds at once \
         ({limit} bytes); use fewer or smaller meshes"
    )]
    TooLarge {
        what: &'static str,
        bytes: u64,
        limit: u64,
    },
    #[error("the meshes hold more than 2^32 {0}")]
    Overflow(&'static str),
}

/// The uploaded store.
#[derive(Debug)]
pub struct MeshStore {
    pub vertices: wgpu::Buffer,
    pub deltas: wgpu::Buffer,
    pub indices: wgpu::Buffer,
    /// Whether `indices` can be bound as storage (for the compute resolve).
    pub indices_readable: bool,
    pub primitives: Vec<GpuPrimitive>,
    pub materials: Vec<wgpu::BindGroup>,
    /// Whether any primitive has an MToon outline.
    pub has_outlines: bool,
}

fn packed_joints(j: [u16; 4]) -> [u32; 2] {
    [
        u32::from(j[0]) | (u32::from(j[1]) << 16),
        u32::from(j[2]) | (u32::from(j[3]) << 16),
    ]
}

fn count(n: usize, what: &'static str) -> Result<u32, StoreError> {
    u32::try_from(n).map_err(|_| StoreError::Overflow(what))
}

impl MeshStoreBuilder {
    /// Adds every mesh and material of `asset`.
    pub fn add(&mut self, asset: &Asset) -> Result<StoredAsset, StoreError> {
        self.add_in_bind_shapes(asset, &[])
    }

    /// Adds every mesh and material of `asset`, the vertices (and target deltas) of mesh `m`
    /// taken through `bind_shapes[m]` (identity where missing): the bind shape of a skin
    /// whose palette another skin's stands for (see `npc_core::asset::skin::PaletteLayout`).
    pub fn add_in_bind_shapes(
        &mut self,
        asset: &Asset,
        bind_shapes: &[Mat4],
    ) -> Result<StoredAsset, StoreError> {
        let material_base = self.materials.len();
        // The asset's textures already taken, by (index, sRGB): uploaded once however many
        // materials use them.
        let mut taken: HashMap<(usize, bool), usize> = HashMap::new();
        for (i, m) in asset.materials.iter().enumerate() {
            let textures = Slot::ALL.map(|slot| {
                let t = slot.of(m)?.texture;
                let key = (t, slot.srgb());
                if let Some(&at) = taken.get(&key) {
                    return Some(at);
                }
                let texture = asset.textures.get(t)?.as_ref().filter(|t| well_formed(t))?;
                self.textures.push(MipTexture::new(texture, slot.srgb()));
                taken.insert(key, self.textures.len() - 1);
                Some(self.textures.len() - 1)
            });
            let (surface, alpha_cutoff) = match m.alpha_mode {
                AlphaMode::Opaque => (Surface::Opaque, 0.0),
                AlphaMode::Mask { cutoff } => (Surface::Masked, cutoff),
                // The cutoff of a blended material shapes its shadow.
                AlphaMode::Blend => (Surface::Blended, 0.5),
            };
            tracing::trace!("material {i}: {:?}", m.name);
            let uniform = gpu_material(m, alpha_cutoff, textures.map(|t| t.is_some()));
            self.materials.push(PendingMaterial {
                uniform,
                textures,
                surface,
                shading: Shading::of(&uniform),
            });
        }
        let mut stored = StoredAsset::default();
        let extents = rest_extents(asset);
        let asset_extent = extents.iter().flatten().copied().fold(0.0, f32::max);
        for (m, (mesh, mesh_extents)) in asset.meshes.iter().zip(&extents).enumerate() {
            let shape = BindShape::new(bind_shapes.get(m).copied().unwrap_or(Mat4::IDENTITY));
            let mut ids = Vec::with_capacity(mesh.primitives.len());
            for (p, &part_extent) in mesh.primitives.iter().zip(mesh_extents) {
                let material = match p.material {
                    Some(m) if m < asset.materials.len() => material_base + m,
                    _ => self.default_material(),
                };
                let vertex_base = count(self.vertices.len(), "vertices")?;
                let delta_base = count(self.deltas.len(), "deltas")?;
                let n = p.positions.len();
                let skinned = p.joints.len() == n && p.weights.len() == n && n > 0;
                // Coarse levels' vertices first: a far copy deforms only a prefix.
                let mut levels = lod_indices(&p.positions, &p.indices);
                drop_small_silhouette(&mut levels, part_extent, asset_extent);
                let nested = nested_levels(n, &levels);
                for &v in &nested.order {
                    let v = v as usize;
                    let pos = shape.point(p.positions[v]);
                    let normal = shape.normal(p.normals.get(v).copied().unwrap_or([0.0, 1.0, 0.0]));
                    let [tx, ty, tz, sign] = p.tangents.get(v).copied().unwrap_or_default();
                    let (tangent, sign) = shape.tangent([tx, ty, tz], sign);
                    self.vertices.push(GpuVertex {
                        position: pos,
                        tangent_sign: sign,
                        normal,
                        tangent: octahedral::encode(tangent),
                        uv: p.uvs.get(v).copied().unwrap_or_default(),
                        joints: if skinned {
                            packed_joints(p.joints[v])
                        } else {
                            [0, 0]
                        },
                        weights: if skinned { p.weights[v] } else { [0.0; 4] },
                    });
                }
                for target in &p.targets {
                    for &v in &nested.order {
                        let v = v as usize;
                        let d = shape.vector(target.positions.get(v).copied().unwrap_or_default());
                        let dn =
                            shape.normal_delta(target.normals.get(v).copied().unwrap_or_default());
                        self.deltas.push([d[0], d[1], d[2], 0.0]);
                        self.deltas.push([dn[0], dn[1], dn[2], 0.0]);
                    }
                }
                let mut lods = [IndexRange::default(); LOD_COUNT];
                for (lod, indices) in lods.iter_mut().zip(&nested.indices) {
                    *lod = IndexRange {
                        first: count(self.indices.len(), "indices")?,
                        count: count(indices.len(), "indices")?,
                    };
                    self.indices.extend_from_slice(indices);
                }
                ids.push(count(self.primitives.len(), "primitives")?);
                self.primitives.push(GpuPrimitive {
                    lods,
                    lod_vertices: nested.used,
                    vertex_base,
                    vertex_count: count(n, "vertices")?,
                    delta_base,
                    target_count: count(p.targets.len(), "targets")?,
                    material: count(material, "materials")?,
                    skinned,
                    surface: self
                        .materials
                        .get(material)
                        .map_or(Surface::Opaque, |m| m.surface),
                    shading: self
                        .materials
                        .get(material)
                        .map_or(Shading::FULL, |m| m.shading),
                    outline: self
                        .materials
                        .get(material)
                        .is_some_and(|m| m.uniform.outline_width[0] > 0.0),
                });
            }
            stored.meshes.push(ids);
        }
        Ok(stored)
    }

    /// The material glTF gives primitives without one: light grey, fully metallic and rough.
    fn default_material(&mut self) -> usize {
        let material = Material {
            base_color: [0.8, 0.8, 0.8, 1.0],
            surface: SurfaceModel::GLTF_DEFAULT,
            ..Material::default()
        };
        let uniform = gpu_material(&material, 0.0, [false; SLOTS]);
        self.materials.push(PendingMaterial {
            uniform,
            textures: [None; SLOTS],
            surface: Surface::Opaque,
            shading: Shading::of(&uniform),
        });
        self.materials.len() - 1
    }

    /// The primitives added so far.
    #[must_use]
    pub fn primitives(&self) -> &[GpuPrimitive] {
        &self.primitives
    }

    /// Uploads everything.
    pub fn build(self, gpu: &Gpu, layout: &MaterialLayout) -> Result<MeshStore, StoreError> {
        let limit = gpu.device.limits().max_storage_buffer_binding_size;
        let buffer = |what: &'static str,
                      bytes: &[u8],
                      usage: wgpu::BufferUsages|
         -> Result<wgpu::Buffer, StoreError> {
            let len = bytes.len() as u64;
            if usage.contains(wgpu::BufferUsages::STORAGE) && len > limit {
                return Err(StoreError::TooLarge {
                    what,
                    bytes: len,
                    limit,
                });
            }
            // Buffers may not be empty; storage bindings need at least one element.
            let padded;
            let contents = if bytes.len() < 64 {
                padded = [bytes, &[0u8; 64][bytes.len()..]].concat();
                &padded[..]
            } else {
                bytes
            };
            Ok(gpu
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(what),
                    contents,
                    usage,
                }))
        };
        let vertices = buffer(
            "vertices",
            bytemuck::cast_slice(&self.vertices),
            wgpu::BufferUsages::STORAGE,
        )?;
        let deltas = buffer(
            "morph deltas",
            bytemuck::cast_slice(&self.deltas),
            wgpu::BufferUsages::STORAGE,
        )?;
        // The compute resolve reads the indices as storage where the device binds them whole.
        let indices_bytes = size_of_val(self.indices.as_slice()) as u64;
        let indices_readable = indices_bytes <= limit;
        let indices = buffer(
            "indices",
            bytemuck::cast_slice(&self.indices),
            if indices_readable {
                wgpu::BufferUsages::INDEX | wgpu::BufferUsages::STORAGE
            } else {
                wgpu::BufferUsages::INDEX
            },
        )?;
        let views: Vec<wgpu::TextureView> = self
            .textures
            .iter()
            .map(|t| {
                t.upload(gpu)
                    .create_view(&wgpu::TextureViewDescriptor::default())
            })
            .collect();
        let neutral = NeutralTextures::new(gpu);
        let materials = self
            .materials
            .iter()
            .map(|m| {
                let textures = m.textures.map(|t| t.and_then(|t| views.get(t)));
                material_bind_group(gpu, layout, &m.uniform, textures, &neutral)
            })
            .collect();
        tracing::debug!(
            "mesh store: {} primitives, {} vertices, {} deltas, {} indices",
            self.primitives.len(),
            self.vertices.len(),
            self.deltas.len(),
            self.indices.len()
        );
        Ok(MeshStore {
            vertices,
            deltas,
            indices,
            indices_readable,
            has_outlines: self.primitives.iter().any(|p| p.outline),
            primitives: self.primitives,
            materials,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joints_pack_low_half_first() {
        assert_eq!(packed_joints([1, 2, 3, 65535]), [0x0002_0001, 0xffff_0003]);
    }
}
