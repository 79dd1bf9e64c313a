//! Meshes and primitives with their morph targets, target names normalised to canonical
//! ARKit / Oculus names.

use gltf::json;
use gltf::json::mesh::{Mode, Semantic};
use gltf::json::validation::Checked;

use super::accessor::Reader;
use super::draco::{self, DracoPrimitive};
use super::error::{AssetError, Result};
use super::tangents;
use crate::arkit::{CanonicalTarget, canonical_target};

/// Most morph targets one mesh may carry.
pub const MAX_TARGETS: usize = 512;
/// Most vertices one primitive may carry.
pub const MAX_VERTICES: usize = 1 << 24;

/// One morph target of a primitive: per-vertex deltas.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphTarget {
    pub positions: Vec<[f32; 3]>,
    /// Empty when the file has no normal deltas for this target.
    pub normals: Vec<[f32; 3]>,
}

/// A triangle list with its vertex attributes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Primitive {
    pub positions: Vec<[f32; 3]>,
    /// Computed from the triangles when the file has none.
    pub normals: Vec<[f32; 3]>,
    /// Empty when the file has none.
    pub uvs: Vec<[f32; 2]>,
    /// glTF's tangent frame for normal maps (`xyz` along +u, `w` the bitangent's sign): the
    /// file's, else MikkTSpace's where the material has a normal map
    /// ([`super::tangents`]); empty otherwise.
    pub tangents: Vec<[f32; 4]>,
    /// Empty unless skinned.
    pub joints: Vec<[u16; 4]>,
    pub weights: Vec<[f32; 4]>,
    /// Triangle list (strips and fans are converted).
    pub indices: Vec<u32>,
    pub targets: Vec<MorphTarget>,
    pub material: Option<usize>,
}

/// How a mesh's targets are named.
#[derive(Clone, Debug, PartialEq)]
pub struct TargetName {
    /// The name in the file (`mesh.extras.targetNames`), if any.
    pub raw: Option<String>,
    /// The canonical ARKit or Oculus target it normalises to, if any.
    pub canonical: Option<CanonicalTarget>,
}

/// A mesh: primitives sharing one set of morph targets and weights.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    pub name: Option<String>,
    pub primitives: Vec<Primitive>,
    /// One per target (the mesh's `weights`, zero when absent).
    pub default_weights: Vec<f32>,
    pub target_names: Vec<TargetName>,
}

impl Mesh {
    /// Number of morph targets (the most any primitive has).
    #[must_use]
    pub fn target_count(&self) -> usize {
        self.primitives
            .iter()
            .map(|p| p.targets.len())
            .max()
            .unwrap_or(0)
    }

    #[must_use]
    pub fn vertex_count(&self) -> usize {
        self.primitives.iter().map(|p| p.positions.len()).sum()
    }
}

/// Reads every mesh.
pub fn read_meshes(reader: &Reader<'_>, warnings: &mut Vec<String>) -> Result<Vec<Mesh>> {
    reader
        .root
        .meshes
        .iter()
        .enumerate()
        .map(|(i, m)| read_mesh(reader, i, m, warnings))
        .collect()
}

/// `targetNames` from extras (the mesh's, or else its first primitive's).
fn target_names_from_extras(mesh: &json::Mesh) -> Option<Vec<String>> {
    let from = |extras: &json::Extras| -> Option<Vec<String>> {
        let raw = extras.as_ref()?;
        let value: serde_json::Value = serde_json::from_str(raw.get()).ok()?;
        let names = value.get("targetNames")?.as_array()?;
        Some(
            names
                .iter()
                .map(|n| n.as_str().unwrap_or_default().to_owned())
                .collect(),
        )
    };
    from(&mesh.extras).or_else(|| mesh.primitives.first().and_then(|p| from(&p.extras)))
}

fn read_mesh(
    reader: &Reader<'_>,
    index: usize,
    mesh: &json::Mesh,
    warnings: &mut Vec<String>,
) -> Result<Mesh> {
    let bad = |reason: String| AssetError::BadMesh {
        mesh: index,
        reason,
    };
    let mut primitives = Vec::with_capacity(mesh.primitives.len());
    for (p, primitive) in mesh.primitives.iter().enumerate() {
        match read_primitive(reader, primitive) {
            Ok(Some(prim)) => primitives.push(prim),
            Ok(None) => warnings.push(format!(
                "mesh {index} primitive {p}: points and lines are not drawn; skipped"
            )),
            Err(PrimitiveError::Asset(e)) => return Err(e),
            Err(PrimitiveError::Mesh(reason)) => {
                return Err(bad(format!("primitive {p}: {reason}")));
            }
        }
    }
    let count = primitives
        .iter()
        .map(|p| p.targets.len())
        .max()
        .unwrap_or(0);
    if count > MAX_TARGETS {
        return Err(AssetError::TooManyTargets {
            mesh: index,
            count,
            max: MAX_TARGETS,
        });
    }
    if primitives.iter().any(|p| p.targets.len() != count) {
        warnings.push(format!(
            "mesh {index}: primitives disagree on the number of morph targets"
        ));
    }
    let names = target_names_from_extras(mesh);
    if let Some(names) = &names
        && names.len() != count
    {
        warnings.push(format!(
            "mesh {index}: {} target names for {count} targets",
            names.len()
        ));
    }
    let target_names = (0..count)
        .map(|t| {
            let raw = names
                .as_ref()
                .and_then(|n| n.get(t))
                .filter(|n| !n.is_empty())
                .cloned();
            let canonical = raw.as_deref().and_then(canonical_target);
            TargetName { raw, canonical }
        })
        .collect();
    let mut default_weights = mesh.weights.clone().unwrap_or_default();
    default_weights.resize(count, 0.0);
    for w in &mut default_weights {
        if !w.is_finite() {
            *w = 0.0;
        }
    }
    Ok(Mesh {
        name: mesh.name.clone(),
        primitives,
        default_weights,
        target_names,
    })
}

enum PrimitiveError {
    Asset(AssetError),
    Mesh(String),
}

impl From<AssetError> for PrimitiveError {
    fn from(e: AssetError) -> Self {
        Self::Asset(e)
    }
}

fn read_primitive(
    reader: &Reader<'_>,
    primitive: &json::mesh::Primitive,
) -> std::result::Result<Option<Primitive>, PrimitiveError> {
    let mode = match primitive.mode {
        Checked::Valid(mode) => mode,
        Checked::Invalid => return Err(PrimitiveError::Mesh("unknown primitive mode".into())),
    };
    if !matches!(
        mode,
        Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
    ) {
        return Ok(None);
    }
    let data = PrimitiveData::of(reader, primitive)?;
    let Some(positions) = data.floats::<3>(Semantic::Positions, "positions")? else {
        return Err(PrimitiveError::Mesh("no POSITION attribute".into()));
    };
    let n = positions.len();
    if n > MAX_VERTICES {
        return Err(PrimitiveError::Mesh(format!(
            "{n} vertices is more than {MAX_VERTICES}"
        )));
    }
    let same_length = |what: &str, len: usize| {
        if len == n {
            Ok(())
        } else {
            Err(PrimitiveError::Mesh(format!(
                "{what} has {len} entries for {n} vertices"
            )))
        }
    };
    let mut normals = data
        .floats::<3>(Semantic::Normals, "normals")?
        .unwrap_or_default();
    if !normals.is_empty() {
        same_length("NORMAL", normals.len())?;
    }
    let uvs = data
        .floats::<2>(Semantic::TexCoords(0), "texture coordinates")?
        .unwrap_or_default();
    if !uvs.is_empty() {
        same_length("TEXCOORD_0", uvs.len())?;
    }
    let tangents = match data.floats::<4>(Semantic::Tangents, "tangents")? {
        Some(tangents) => {
            same_length("TANGENT", tangents.len())?;
            // A frame with no length or a NaN: MikkTSpace's are made instead.
            tangents::sanitized(tangents).unwrap_or_default()
        }
        None => Vec::new(),
    };
    let (joints, weights) = match (
        data.joints(Semantic::Joints(0))?,
        data.floats::<4>(Semantic::Weights(0), "skin weights")?,
    ) {
        (Some(joints), Some(weights)) => {
            same_length("JOINTS_0", joints.len())?;
            same_length("WEIGHTS_0", weights.len())?;
            (joints, weights)
        }
        _ => (Vec::new(), Vec::new()),
    };
    let raw_indices = match data.indices()? {
        Some(indices) => indices,
        None => (0..u32::try_from(n).unwrap_or(u32::MAX)).collect(),
    };
    if let Some(&bad) = raw_indices.iter().find(|&&i| i as usize >= n) {
        return Err(PrimitiveError::Mesh(format!(
            "index {bad} is out of range for {n} vertices"
        )));
    }
    let indices = triangle_list(mode, &raw_indices);
    let mut targets = Vec::new();
    for target in primitive.targets.iter().flatten() {
        let positions = match &target.positions {
            Some(a) => reader.vec3(a.value(), "morph position deltas")?,
            None => vec![[0.0; 3]; n],
        };
        same_length("a morph target's POSITION", positions.len())?;
        let normals = match &target.normals {
            Some(a) => reader.vec3(a.value(), "morph normal deltas")?,
            None => Vec::new(),
        };
        if !normals.is_empty() {
            same_length("a morph target's NORMAL", normals.len())?;
        }
        targets.push(MorphTarget { positions, normals });
        if targets.len() > MAX_TARGETS {
            break;
        }
    }
    if normals.is_empty() {
        normals = vertex_normals(&positions, &indices);
    }
    let material = primitive
        .material
        .map(|m| m.value())
        .filter(|&m| m < reader.root.materials.len());
    Ok(Some(Primitive {
        positions,
        normals,
        uvs,
        tangents,
        joints,
        weights,
        indices,
        targets,
        material,
    }))
}

/// Where a primitive's vertex attributes come from: its accessors, or for a Draco-compressed
/// primitive the decoded stream (attributes the stream does not name stay accessors).
struct PrimitiveData<'r> {
    reader: &'r Reader<'r>,
    primitive: &'r json::mesh::Primitive,
    draco: Option<DracoPrimitive>,
}

impl<'r> PrimitiveData<'r> {
    fn of(reader: &'r Reader<'r>, primitive: &'r json::mesh::Primitive) -> Result<Self> {
        let draco = draco::extension_of(primitive)
            .map(|ext| DracoPrimitive::decode(reader, ext))
            .transpose()?;
        Ok(Self {
            reader,
            primitive,
            draco,
        })
    }

    fn accessor(&self, semantic: &Semantic) -> Option<usize> {
        self.primitive
            .attributes
            .get(&Checked::Valid(semantic.clone()))
            .map(|a| a.value())
    }

    fn floats<const N: usize>(
        &self,
        semantic: Semantic,
        what: &str,
    ) -> Result<Option<Vec<[f32; N]>>> {
        let accessor = self.accessor(&semantic);
        if let Some(draco) = &self.draco {
            let declared = accessor.and_then(|a| self.reader.root.accessors.get(a));
            if let Some(values) = draco.floats::<N>(&semantic.to_string(), declared) {
                return values.map(Some);
            }
        }
        accessor
            .map(|a| self.reader.fixed::<N>(a, what))
            .transpose()
    }

    fn joints(&self, semantic: Semantic) -> Result<Option<Vec<[u16; 4]>>> {
        if let Some(joints) = self
            .draco
            .as_ref()
            .and_then(|d| d.joints(&semantic.to_string()))
        {
            return joints.map(Some);
        }
        self.accessor(&semantic)
            .map(|a| self.reader.joints(a))
            .transpose()
    }

    fn indices(&self) -> Result<Option<Vec<u32>>> {
        if let Some(draco) = &self.draco {
            return Ok(Some(draco.indices()));
        }
        self.primitive
            .indices
            .map(|a| self.reader.indices(a.value()))
            .transpose()
    }
}

/// Converts strips and fans into a plain triangle list.
fn triangle_list(mode: Mode, indices: &[u32]) -> Vec<u32> {
    match mode {
        Mode::TriangleStrip => (2..indices.len())
            .flat_map(|i| {
                if i % 2 == 0 {
                    [indices[i - 2], indices[i - 1], indices[i]]
                } else {
                    [indices[i - 1], indices[i - 2], indices[i]]
                }
            })
            .collect(),
        Mode::TriangleFan => (2..indices.len())
            .flat_map(|i| [indices[0], indices[i - 1], indices[i]])
            .collect(),
        _ => indices[..indices.len() / 3 * 3].to_vec(),
    }
}

/// Area-weighted vertex normals for a triangle list.
#[must_use]
pub fn vertex_normals(positions: &[[f32; 3]], indices: &[u32]) -> Vec<[f32; 3]> {
    use glam::Vec3;
    let mut sums = vec![Vec3::ZERO; positions.len()];
    for tri in indices.chunks_exact(3) {
        let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| i as usize);
        let (Some(&pa), Some(&pb), Some(&pc)) =
            (positions.get(a), positions.get(b), positions.get(c))
        else {
            continue;
        };
        let n = (Vec3::from(pb) - Vec3::from(pa)).cross(Vec3::from(pc) - Vec3::from(pa));
        if n.is_finite() {
            for i in [a, b, c] {
                sums[i] += n;
            }
        }
    }
    sums.into_iter()
        .map(|n| n.try_normalize().unwrap_or(Vec3::Y).to_array())
        .collect()
}
