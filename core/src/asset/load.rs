//! Loading a whole asset: document, meshes, face rig, nodes, skins, clips, materials,
//! instance groups.

use std::path::Path;

use super::accessor::Reader;
use super::animation::{Clip, read_clips};
use super::collision::GroundGrid;
use super::error::{AssetError, Result};
use super::face_rig::FaceRig;
use super::material::{Material, Texture, read_materials};
use super::mesh::{Mesh, read_meshes};
use super::scene::{InstanceGroup, Node, instance_groups, read_nodes, scene_roots};
use super::skin::{Skin, read_skins};
use super::source::Source;
use super::vrm::VrmExpressions;

/// Extensions a file may require and still load here.
pub const SUPPORTED_REQUIRED_EXTENSIONS: &[&str] = &[
    "KHR_mesh_quantization",
    "EXT_mesh_gpu_instancing",
    "KHR_materials_unlit",
    "KHR_texture_transform",
    "KHR_texture_basisu",
    "EXT_texture_webp",
    "EXT_meshopt_compression",
    // Channels that animate node transforms or morph weights are played; others are skipped
    // with a warning (animation_pointer.rs).
    "KHR_animation_pointer",
    // Decoded with draco-core (draco.rs); morph targets stay plain accessors.
    "KHR_draco_mesh_compression",
];

/// Everything the tools need from a glTF file, on the CPU.
#[derive(Clone, Debug)]
pub struct Asset {
    pub meshes: Vec<Mesh>,
    pub materials: Vec<Material>,
    /// Decoded base-colour textures by glTF texture index (None: not used or not decodable).
    pub textures: Vec<Option<Texture>>,
    pub nodes: Vec<Node>,
    /// Root nodes of the scene shown.
    pub roots: Vec<usize>,
    pub skins: Vec<Skin>,
    pub clips: Vec<Clip>,
    /// Each mesh placed in the scene once per group, with one world transform per instance.
    pub instances: Vec<InstanceGroup>,
    pub face_rig: FaceRig,
    /// The humanoid table a VRM file declares: (VRM 1.0 bone name, node).
    pub humanoid_table: Vec<(String, usize)>,
    /// The expressions a VRM file declares (empty for other files).
    pub vrm_expressions: VrmExpressions,
    /// Swinging parts (hair, skirts) and their colliders, from a VRM file's spring bones.
    pub spring_bones: super::spring_bones::SpringBones,
    /// A VRM 0.x file, which faces -Z: its scene roots (and the clips that move them) were
    /// turned half a turn about +Y at load, so it faces +Z ([`super::vrm::HALF_TURN`]).
    pub turned_to_face_forward: bool,
    pub extensions_used: Vec<String>,
    pub extensions_required: Vec<String>,
    /// Things that did not stop the load but were left out or guessed.
    pub warnings: Vec<String>,
}

impl Asset {
    /// Loads a .gltf, .glb, .vrm or .vrma file, or an FBX file's skeleton and clips. A file's
    /// one clip with a name that says nothing (`"animation"`, `"mixamo.com"`) takes the file's
    /// name, so `Idle.vrma` plays as idle and `Waving.glb` is asked for as "waving".
    pub fn load(path: &Path) -> Result<Self> {
        let bytes = super::source::read_limited(path)?;
        let stem = path.file_stem().and_then(|s| s.to_str());
        if super::fbx::is_fbx(&bytes) {
            return super::fbx::read(&bytes, stem);
        }
        let mut asset = Self::from_bytes(&bytes, path.parent())?;
        if let ([clip], Some(stem)) = (asset.clips.as_mut_slice(), stem)
            && super::animation::name_says_nothing(&clip.name)
        {
            stem.clone_into(&mut clip.name);
        }
        Ok(asset)
    }

    /// Loads from bytes (glTF, or an FBX file's skeleton and clips); external files resolve
    /// against `base_dir` when given.
    pub fn from_bytes(bytes: &[u8], base_dir: Option<&Path>) -> Result<Self> {
        if super::fbx::is_fbx(bytes) {
            return super::fbx::read(bytes, None);
        }
        Self::from_source(&Source::from_bytes(bytes, base_dir.map(Path::to_path_buf))?)
    }

    fn from_source(source: &Source) -> Result<Self> {
        let root = &source.root;
        if let Some(ext) = root
            .extensions_required
            .iter()
            .find(|e| !SUPPORTED_REQUIRED_EXTENSIONS.contains(&e.as_str()))
        {
            return Err(AssetError::UnsupportedExtension(ext.clone()));
        }
        let reader = Reader::of(source);
        let mut warnings = source.warnings.clone();
        warnings.extend(super::extensions::unread(&root.extensions_used));
        let mut meshes = read_meshes(&reader, &mut warnings)?;
        let mut nodes = read_nodes(&reader, &mut warnings)?;
        let roots = scene_roots(root, &nodes);
        let target_counts = |m: usize| meshes.get(m).map_or(0, Mesh::target_count);
        let mut clips = read_clips(&reader, &nodes, &target_counts)?;
        if let Some(animation) = root
            .extensions
            .as_ref()
            .and_then(|e| e.others.get("VRMC_vrm_animation"))
        {
            super::clip_face::attach(animation, &mut clips, &mut warnings);
        }
        let turned_to_face_forward = super::vrm::faces_back(root);
        if turned_to_face_forward {
            super::vrm::turn_around(&mut nodes, &roots, &mut clips);
        }
        let skins = read_skins(&reader, &nodes)?;
        let (materials, textures) = read_materials(source, &reader, &mut warnings);
        let given = super::tangents::give_tangents(&mut meshes, &materials);
        if given > 0 {
            tracing::debug!("MikkTSpace tangents made for {given} normal-mapped primitives");
        }
        let instances = instance_groups(&nodes, &roots);
        let face_rig = FaceRig::from_meshes(&meshes);
        let humanoid_table = super::vrm::humanoid_table(root, &mut warnings);
        let vrm_expressions = VrmExpressions::of(root, &meshes, &mut warnings);
        let children: Vec<Vec<usize>> = nodes.iter().map(|n| n.children.clone()).collect();
        let spring_bones = root.extensions.as_ref().map_or_else(Default::default, |e| {
            super::spring_bones::SpringBones::of(&e.others, &children, &mut warnings)
        });
        Ok(Self {
            meshes,
            materials,
            textures,
            nodes,
            roots,
            skins,
            clips,
            instances,
            face_rig,
            humanoid_table,
            vrm_expressions,
            spring_bones,
            turned_to_face_forward,
            extensions_used: root.extensions_used.clone(),
            extensions_required: root.extensions_required.clone(),
            warnings,
        })
    }

    /// Instances in the scene of meshes placed more than once.
    #[must_use]
    pub fn repeated_instances(&self) -> usize {
        self.instances
            .iter()
            .filter(|g| g.transforms.len() > 1)
            .map(|g| g.transforms.len())
            .sum()
    }

    /// The triangles of every unskinned mesh in the scene, in world space, for ground collision.
    #[must_use]
    pub fn collision_grid(&self) -> GroundGrid {
        let mut triangles = Vec::new();
        for group in self.instances.iter().filter(|g| g.skin.is_none()) {
            let Some(mesh) = self.meshes.get(group.mesh) else {
                continue;
            };
            for transform in &group.transforms {
                for primitive in &mesh.primitives {
                    for tri in primitive.indices.chunks_exact(3) {
                        let corner = |i: u32| {
                            let p = primitive
                                .positions
                                .get(i as usize)
                                .copied()
                                .unwrap_or_default();
                            transform.transform_point3(glam::Vec3::from(p))
                        };
                        triangles.push([corner(tri[0]), corner(tri[1]), corner(tri[2])]);
                    }
                }
            }
        }
        GroundGrid::new(triangles)
    }
}
