//! Writing glTF binaries (GLB) from the same structures the loader reads: meshes with morph
//! targets and skin attributes, nodes (EXT_mesh_gpu_instancing included), skins, clips,
//! materials with PNG textures. The project's own content and test assets are made with it,
//! and a written file loads back through [`super::Asset`] like any user file.

use std::collections::BTreeSet;
use std::path::Path;

use glam::Mat4;
use serde_json::{Value, json};

use super::animation::{Clip, Interpolation, Property};
use super::bin_chunk::{
    ARRAY_BUFFER, BinChunk, ELEMENT_ARRAY_BUFFER, UNSIGNED_INT, UNSIGNED_SHORT,
};
use super::material::{AlphaMode, Material, Specular, Texture, TextureRef, UvTransform};
use super::mesh::Primitive;
use super::scene::Node;

/// The material extensions the writer may use.
const MATERIAL_EXTENSIONS: [&str; 4] = [
    "KHR_materials_emissive_strength",
    "KHR_materials_ior",
    "KHR_materials_specular",
    "KHR_materials_clearcoat",
];

/// Collects a document and its binary chunk.
#[derive(Debug, Default)]
pub struct GlbWriter {
    chunk: BinChunk,
    meshes: Vec<Value>,
    nodes: Vec<Value>,
    skins: Vec<Value>,
    animations: Vec<Value>,
    materials: Vec<Value>,
    textures: Vec<Value>,
    images: Vec<Value>,
    roots: Vec<usize>,
    extensions_used: BTreeSet<&'static str>,
}

impl GlbWriter {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        self.chunk.view(bytes, target)
    }

    fn accessor(&mut self, accessor: Value) -> usize {
        self.chunk.accessor(accessor)
    }

    fn floats(&mut self, data: &[f32], width: usize, target: Option<u32>, bounds: bool) -> usize {
        self.chunk.floats(data, width, target, bounds)
    }

    fn vec3s(&mut self, data: &[[f32; 3]], bounds: bool) -> usize {
        self.chunk.vec3s(data, bounds)
    }

    fn deltas(&mut self, data: &[[f32; 3]], bounds: bool) -> usize {
        self.chunk.deltas(data, bounds)
    }

    /// Adds a material; its textures, if any, are taken from `textures` and stored as PNG
    /// (each once), with their `KHR_texture_transform`s.
    pub fn add_material(&mut self, material: &Material, textures: &[Option<Texture>]) -> usize {
        let surface = &material.surface;
        let mut pbr = json!({
            "baseColorFactor": material.base_color,
            "metallicFactor": surface.metallic,
            "roughnessFactor": surface.roughness,
        });
        let mut stored = Vec::new();
        if let Some(info) = self.texture_info(material.base_color_texture, textures, &mut stored) {
            pbr["baseColorTexture"] = info;
        }
        if let Some(info) =
            self.texture_info(surface.metallic_roughness_texture, textures, &mut stored)
        {
            pbr["metallicRoughnessTexture"] = info;
        }
        let mut m = json!({"pbrMetallicRoughness": pbr, "doubleSided": material.double_sided});
        if let Some(mut info) = self.texture_info(surface.normal_texture, textures, &mut stored) {
            info["scale"] = json!(surface.normal_scale);
            m["normalTexture"] = info;
        }
        if let Some(mut info) = self.texture_info(surface.occlusion_texture, textures, &mut stored)
        {
            info["strength"] = json!(surface.occlusion_strength);
            m["occlusionTexture"] = info;
        }
        if let Some(info) = self.texture_info(surface.emissive_texture, textures, &mut stored) {
            m["emissiveTexture"] = info;
        }
        let mut extensions = serde_json::Map::new();
        let brightest = surface.emissive.iter().copied().fold(0.0_f32, f32::max);
        if brightest > 0.0 {
            // Factors above 1 need KHR_materials_emissive_strength.
            let strength = brightest.max(1.0);
            m["emissiveFactor"] = json!(surface.emissive.map(|c| c / strength));
            if strength > 1.0 {
                extensions.insert(
                    "KHR_materials_emissive_strength".to_owned(),
                    json!({"emissiveStrength": strength}),
                );
            }
        }
        let specular = surface.specular;
        if specular.ior != Specular::DEFAULT.ior {
            extensions.insert("KHR_materials_ior".to_owned(), json!({"ior": specular.ior}));
        }
        if specular.factor != 1.0
            || specular.color != [1.0; 3]
            || specular.texture.is_some()
            || specular.color_texture.is_some()
        {
            let mut e =
                json!({"specularFactor": specular.factor, "specularColorFactor": specular.color});
            let infos = [
                ("specularTexture", specular.texture),
                ("specularColorTexture", specular.color_texture),
            ];
            for (field, texture) in infos {
                if let Some(info) = self.texture_info(texture, textures, &mut stored) {
                    e[field] = info;
                }
            }
            extensions.insert("KHR_materials_specular".to_owned(), e);
        }
        if let Some(coat) = surface.clearcoat {
            let mut e =
                json!({"clearcoatFactor": coat.factor, "clearcoatRoughnessFactor": coat.roughness});
            let infos = [
                ("clearcoatTexture", coat.texture),
                ("clearcoatRoughnessTexture", coat.roughness_texture),
                ("clearcoatNormalTexture", coat.normal_texture),
            ];
            for (field, texture) in infos {
                if let Some(info) = self.texture_info(texture, textures, &mut stored) {
                    e[field] = info;
                }
            }
            if let Some(info) = e.get_mut("clearcoatNormalTexture") {
                info["scale"] = json!(coat.normal_scale);
            }
            extensions.insert("KHR_materials_clearcoat".to_owned(), e);
        }
        if !extensions.is_empty() {
            for name in MATERIAL_EXTENSIONS {
                if extensions.contains_key(name) {
                    self.extensions_used.insert(name);
                }
            }
            m["extensions"] = Value::Object(extensions);
        }
        if let Some(name) = &material.name {
            m["name"] = json!(name);
        }
        match material.alpha_mode {
            AlphaMode::Opaque => {}
            AlphaMode::Mask { cutoff } => {
                m["alphaMode"] = json!("MASK");
                m["alphaCutoff"] = json!(cutoff);
            }
            AlphaMode::Blend => m["alphaMode"] = json!("BLEND"),
        }
        self.materials.push(m);
        self.materials.len() - 1
    }

    /// The texture info of `texture` (taken from `textures`, stored as PNG unless this
    /// material stored it already: `stored` maps its indices to the file's), when there is one.
    fn texture_info(
        &mut self,
        texture: Option<TextureRef>,
        textures: &[Option<Texture>],
        stored: &mut Vec<(usize, usize)>,
    ) -> Option<Value> {
        let TextureRef { texture, transform } = texture?;
        let index = match stored.iter().find(|(from, _)| *from == texture) {
            Some(&(_, to)) => to,
            None => {
                let png = encode_png(textures.get(texture)?.as_ref()?)?;
                let view = self.view(&png, None);
                self.images
                    .push(json!({"bufferView": view, "mimeType": "image/png"}));
                self.textures.push(json!({"source": self.images.len() - 1}));
                stored.push((texture, self.textures.len() - 1));
                self.textures.len() - 1
            }
        };
        let mut info = json!({"index": index});
        if transform != UvTransform::IDENTITY {
            let (offset, rotation, scale) = transform.offset_rotation_scale();
            info["extensions"] = json!({"KHR_texture_transform": {
                "offset": offset, "rotation": rotation, "scale": scale,
            }});
            self.extensions_used.insert("KHR_texture_transform");
        }
        Some(info)
    }

    /// Adds a mesh. Target names go to `extras.targetNames`.
    pub fn add_mesh(
        &mut self,
        name: &str,
        primitives: &[Primitive],
        target_names: &[&str],
        default_weights: &[f32],
    ) -> usize {
        let mut written = Vec::with_capacity(primitives.len());
        for p in primitives {
            let mut attributes = json!({"POSITION": self.vec3s(&p.positions, true)});
            if !p.normals.is_empty() {
                attributes["NORMAL"] = json!(self.vec3s(&p.normals, false));
            }
            if !p.uvs.is_empty() {
                let flat: Vec<f32> = p.uvs.iter().flatten().copied().collect();
                attributes["TEXCOORD_0"] = json!(self.floats(&flat, 2, Some(ARRAY_BUFFER), false));
            }
            // glTF defines tangents only beside normals.
            if !p.normals.is_empty() && p.tangents.len() == p.positions.len() {
                let flat: Vec<f32> = p.tangents.iter().flatten().copied().collect();
                attributes["TANGENT"] = json!(self.floats(&flat, 4, Some(ARRAY_BUFFER), false));
            }
            if !p.joints.is_empty() && p.joints.len() == p.weights.len() {
                let bytes: Vec<u8> = p
                    .joints
                    .iter()
                    .flatten()
                    .flat_map(|j| j.to_le_bytes())
                    .collect();
                let view = self.view(&bytes, Some(ARRAY_BUFFER));
                attributes["JOINTS_0"] = json!(self.accessor(json!({"bufferView": view,
                    "componentType": UNSIGNED_SHORT, "count": p.joints.len(), "type": "VEC4"})));
                let flat: Vec<f32> = p.weights.iter().flatten().copied().collect();
                attributes["WEIGHTS_0"] = json!(self.floats(&flat, 4, Some(ARRAY_BUFFER), false));
            }
            let index_bytes: Vec<u8> = p.indices.iter().flat_map(|i| i.to_le_bytes()).collect();
            let view = self.view(&index_bytes, Some(ELEMENT_ARRAY_BUFFER));
            let indices = self.accessor(json!({"bufferView": view, "componentType": UNSIGNED_INT,
                "count": p.indices.len(), "type": "SCALAR"}));
            let targets: Vec<Value> = p
                .targets
                .iter()
                .map(|t| {
                    let mut target = json!({"POSITION": self.deltas(&t.positions, true)});
                    if !t.normals.is_empty() {
                        target["NORMAL"] = json!(self.deltas(&t.normals, false));
                    }
                    target
                })
                .collect();
            let mut primitive = json!({"attributes": attributes, "indices": indices, "mode": 4});
            if !targets.is_empty() {
                primitive["targets"] = json!(targets);
            }
            if let Some(material) = p.material {
                primitive["material"] = json!(material);
            }
            written.push(primitive);
        }
        let mut mesh = json!({"name": name, "primitives": written});
        if !target_names.is_empty() {
            mesh["extras"] = json!({"targetNames": target_names});
        }
        if !default_weights.is_empty() {
            mesh["weights"] = json!(default_weights);
        }
        self.meshes.push(mesh);
        self.meshes.len() - 1
    }

    /// Adds a node (its `parent` is implied by the other nodes' children).
    pub fn add_node(&mut self, node: &Node) -> usize {
        let t = &node.transform;
        let mut n = json!({
            "translation": t.translation.to_array(),
            "rotation": t.rotation.to_array(),
            "scale": t.scale.to_array(),
        });
        if let Some(name) = &node.name {
            n["name"] = json!(name);
        }
        if !node.children.is_empty() {
            n["children"] = json!(node.children);
        }
        if let Some(mesh) = node.mesh {
            n["mesh"] = json!(mesh);
        }
        if let Some(skin) = node.skin {
            n["skin"] = json!(skin);
        }
        if !node.gpu_instances.is_empty() {
            let translations: Vec<f32> = node
                .gpu_instances
                .iter()
                .flat_map(|i| i.translation.to_array())
                .collect();
            let rotations: Vec<f32> = node
                .gpu_instances
                .iter()
                .flat_map(|i| i.rotation.to_array())
                .collect();
            let scales: Vec<f32> = node
                .gpu_instances
                .iter()
                .flat_map(|i| i.scale.to_array())
                .collect();
            let attributes = json!({
                "TRANSLATION": self.floats(&translations, 3, None, false),
                "ROTATION": self.floats(&rotations, 4, None, false),
                "SCALE": self.floats(&scales, 3, None, false),
            });
            n["extensions"] = json!({"EXT_mesh_gpu_instancing": {"attributes": attributes}});
            self.extensions_used.insert("EXT_mesh_gpu_instancing");
        }
        self.nodes.push(n);
        self.nodes.len() - 1
    }

    /// Adds a skin over `joints` (node indices) with their inverse bind matrices.
    pub fn add_skin(&mut self, name: &str, joints: &[usize], inverse_bind: &[Mat4]) -> usize {
        let flat: Vec<f32> = inverse_bind.iter().flat_map(Mat4::to_cols_array).collect();
        let ibm = self.floats(&flat, 16, None, false);
        self.skins
            .push(json!({"name": name, "joints": joints, "inverseBindMatrices": ibm}));
        self.skins.len() - 1
    }

    /// Adds an animation clip.
    pub fn add_clip(&mut self, clip: &Clip) -> usize {
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        for channel in &clip.channels {
            let input = self.floats(&channel.times, 1, None, true);
            let width = match channel.property {
                Property::Weights => 1,
                _ => channel.width,
            };
            let output = self.floats(&channel.values, width, None, false);
            let interpolation = match channel.interpolation {
                Interpolation::Linear => "LINEAR",
                Interpolation::Step => "STEP",
                Interpolation::CubicSpline => "CUBICSPLINE",
            };
            samplers
                .push(json!({"input": input, "output": output, "interpolation": interpolation}));
            let path = match channel.property {
                Property::Translation => "translation",
                Property::Rotation => "rotation",
                Property::Scale => "scale",
                Property::Weights => "weights",
            };
            channels.push(json!({"sampler": samplers.len() - 1, "target": {"node": channel.node, "path": path}}));
        }
        self.animations
            .push(json!({"name": clip.name, "samplers": samplers, "channels": channels}));
        self.animations.len() - 1
    }

    /// The nodes at the top of the scene.
    pub fn set_roots(&mut self, roots: Vec<usize>) {
        self.roots = roots;
    }

    /// The document as JSON (buffers not embedded).
    fn document(&self) -> Value {
        let mut doc = json!({
            "asset": {"version": "2.0", "generator": "Living NPC"},
            "scene": 0,
            "scenes": [{"nodes": self.roots}],
            "nodes": self.nodes,
            "meshes": self.meshes,
            "accessors": self.chunk.accessors,
            "bufferViews": self.chunk.buffer_views,
            "buffers": [{"byteLength": self.chunk.bin.len()}],
        });
        for (key, list) in [
            ("skins", &self.skins),
            ("animations", &self.animations),
            ("materials", &self.materials),
            ("textures", &self.textures),
            ("images", &self.images),
        ] {
            if !list.is_empty() {
                doc[key] = json!(list);
            }
        }
        if !self.extensions_used.is_empty() {
            doc["extensionsUsed"] = json!(self.extensions_used);
        }
        doc
    }

    /// The GLB bytes: header, JSON chunk, BIN chunk.
    #[must_use]
    pub fn to_glb(&self) -> Vec<u8> {
        super::glb::join_glb(self.document().to_string().as_bytes(), &self.chunk.bin)
    }

    /// Writes the GLB atomically (temporary file, then rename).
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        crate::atomic::write_atomically(path, &self.to_glb())
    }
}

fn encode_png(texture: &Texture) -> Option<Vec<u8>> {
    let image = image::RgbaImage::from_raw(texture.width, texture.height, texture.rgba.clone())?;
    let mut png = std::io::Cursor::new(Vec::new());
    image.write_to(&mut png, image::ImageFormat::Png).ok()?;
    Some(png.into_inner())
}
