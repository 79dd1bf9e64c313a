//! Skins: which nodes are the joints of a skinned mesh, their inverse bind matrices, and the
//! joint palette the vertex shader multiplies by.

use glam::Mat4;

use super::accessor::Reader;
use super::error::{AssetError, Result};
use super::scene::Node;

/// Most joints one skin may have.
pub const MAX_JOINTS: usize = 1024;

/// One skin: the joints (node indices) and the matrices that take the mesh from its bind pose
/// into each joint's space.
#[derive(Clone, Debug, PartialEq)]
pub struct Skin {
    pub name: Option<String>,
    /// Node index of each joint, in the order JOINTS_0 refers to them.
    pub joints: Vec<usize>,
    /// Name of each joint's node, or `"joint N"` (N its position in `joints`) when it has none.
    pub joint_names: Vec<String>,
    /// One per joint; identity when the file gives none.
    pub inverse_bind: Vec<Mat4>,
}

/// Reads every skin, checking its joints against `nodes` and its inverse bind matrices.
///
/// Errors: a joint node out of range ([`AssetError::IndexOutOfRange`]), more than
/// [`MAX_JOINTS`] joints ([`AssetError::TooManyJoints`]), or fewer inverse bind matrices than
/// joints ([`AssetError::BadAccessor`]). Non-finite matrices are replaced with identity.
pub fn read_skins(reader: &Reader<'_>, nodes: &[Node]) -> Result<Vec<Skin>> {
    reader
        .root
        .skins
        .iter()
        .enumerate()
        .map(|(index, skin)| read_skin(reader, nodes, index, skin))
        .collect()
}

fn read_skin(
    reader: &Reader<'_>,
    nodes: &[Node],
    index: usize,
    skin: &gltf::json::Skin,
) -> Result<Skin> {
    let count = skin.joints.len();
    if count > MAX_JOINTS {
        return Err(AssetError::TooManyJoints {
            skin: index,
            count,
            max: MAX_JOINTS,
        });
    }
    let mut joints = Vec::with_capacity(count);
    let mut joint_names = Vec::with_capacity(count);
    for (position, joint) in skin.joints.iter().enumerate() {
        let node_index = joint.value();
        let node = nodes.get(node_index).ok_or(AssetError::IndexOutOfRange {
            what: "node",
            index: node_index,
        })?;
        joints.push(node_index);
        joint_names.push(
            node.name
                .clone()
                .unwrap_or_else(|| format!("joint {position}")),
        );
    }
    let inverse_bind = match skin.inverse_bind_matrices {
        None => vec![Mat4::IDENTITY; count],
        Some(accessor) => {
            let accessor = accessor.value();
            let matrices = reader.mat4(accessor, "inverse bind matrices")?;
            if matrices.len() < count {
                return Err(AssetError::BadAccessor {
                    index: accessor,
                    reason: format!(
                        "skin {index} has {count} joints but only {} inverse bind matrices",
                        matrices.len()
                    ),
                });
            }
            matrices
                .iter()
                .take(count)
                .map(|m| {
                    let m = Mat4::from_cols_array(m);
                    if m.is_finite() { m } else { Mat4::IDENTITY }
                })
                .collect()
        }
    };
    Ok(Skin {
        name: skin.name.clone(),
        joints,
        joint_names,
        inverse_bind,
    })
}

impl Skin {
    /// The joint palette: `world[joint] * inverse_bind` for each joint, written into `out`.
    ///
    /// `out` is cleared first and ends with one matrix per joint; it does not allocate when its
    /// capacity suffices. A joint without a world matrix, or without an inverse bind matrix,
    /// uses identity for the missing part.
    pub fn palette_into(&self, world: &[Mat4], out: &mut Vec<Mat4>) {
        out.clear();
        out.extend(self.joints.iter().enumerate().map(|(i, &node)| {
            let joint_world = world.get(node).copied().unwrap_or(Mat4::IDENTITY);
            let inverse_bind = self.inverse_bind.get(i).copied().unwrap_or(Mat4::IDENTITY);
            joint_world * inverse_bind
        }));
    }
}

/// The palettes a posed avatar computes. Exporters often give each mesh its own copy of one
/// skin: the same joints, with inverse bind matrices that are the same or differ by one
/// matrix per mesh (a VALID avatar's seven skins of 84 joints each fold their mesh's
/// dequantisation into them). Such skins share one palette, computed and uploaded once; a
/// mesh of a skin that differs by a matrix (its bind shape) is drawn with its vertices taken
/// through that matrix first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PaletteLayout {
    /// The skins whose palettes are computed, in order.
    pub owners: Vec<usize>,
    /// For each skin: which of the owners' palettes it uses.
    pub palette_of: Vec<usize>,
    /// For each skin: entries before its palette, the owners' palettes laid end to end.
    pub start: Vec<usize>,
    /// Entries of all the owners' palettes.
    pub joints: usize,
    /// For each mesh: the matrix its vertices go through before the shared palette skins
    /// them (identity for most).
    pub bind_shapes: Vec<Mat4>,
}

/// How far two inverse bind matrices' bind shapes may differ and still be taken as one, in
/// units of the bind shape's own size.
const SAME_BIND_SHAPE: f32 = 1e-4;

/// The matrix `m` with `owner[j] * m == skin[j]` for every joint `j`, when there is one.
fn bind_shape(owner: &[Mat4], skin: &[Mat4]) -> Option<Mat4> {
    let first = owner.first()?.inverse() * *skin.first()?;
    let size = first
        .to_cols_array()
        .iter()
        .fold(0.0_f32, |a, v| a.max(v.abs()));
    let same = owner.iter().zip(skin).all(|(o, s)| {
        let m = o.inverse() * *s;
        m.to_cols_array()
            .iter()
            .zip(first.to_cols_array())
            .all(|(a, b)| (a - b).abs() <= SAME_BIND_SHAPE * size)
    });
    let invertible = first.determinant() != 0.0 && first.inverse().is_finite();
    (same && first.is_finite() && invertible).then_some(first)
}

impl PaletteLayout {
    /// The layout of `skins` for an asset of `meshes` meshes whose instances put mesh `m`
    /// under skin `s` for each `(m, Some(s))` of `uses`, and rigid for each `(m, None)`. Skins
    /// with the same joints and inverse bind matrices share; so do skins whose inverse bind
    /// matrices differ by one matrix, where their meshes are drawn by no other skin and never
    /// rigid.
    #[must_use]
    pub fn new(skins: &[Skin], meshes: usize, uses: &[(usize, Option<usize>)]) -> Self {
        // A mesh drawn by several skins, or also rigid, cannot take one skin's bind shape.
        let mut skins_of_mesh: Vec<Vec<Option<usize>>> = vec![Vec::new(); meshes];
        for &(m, s) in uses {
            if let Some(list) = skins_of_mesh.get_mut(m)
                && !list.contains(&s)
            {
                list.push(s);
            }
        }
        let alone = |skin: usize| {
            skins_of_mesh
                .iter()
                .all(|list| !list.contains(&Some(skin)) || list.len() == 1)
        };
        let mut layout = Self {
            bind_shapes: vec![Mat4::IDENTITY; meshes],
            ..Self::default()
        };
        let mut owner_start = Vec::new();
        let mut shapes = Vec::with_capacity(skins.len());
        for (k, skin) in skins.iter().enumerate() {
            let same_joints = |o: usize| skins[o].joints == skin.joints;
            // An equal skin first; else one a bind shape away, where the meshes allow.
            let equal = layout
                .owners
                .iter()
                .position(|&o| same_joints(o) && skins[o].inverse_bind == skin.inverse_bind);
            let shared = equal.map(|palette| (palette, Mat4::IDENTITY)).or_else(|| {
                if !alone(k) {
                    return None;
                }
                layout.owners.iter().enumerate().find_map(|(palette, &o)| {
                    let shape = bind_shape(&skins[o].inverse_bind, &skin.inverse_bind);
                    shape.filter(|_| same_joints(o)).map(|m| (palette, m))
                })
            });
            let (palette, shape) = shared.unwrap_or_else(|| {
                layout.owners.push(k);
                owner_start.push(layout.joints);
                layout.joints += skin.joints.len();
                (layout.owners.len() - 1, Mat4::IDENTITY)
            });
            layout.palette_of.push(palette);
            layout.start.push(owner_start[palette]);
            shapes.push(shape);
        }
        for (m, list) in skins_of_mesh.iter().enumerate() {
            if let [Some(s)] = list[..]
                && let Some(&shape) = shapes.get(s)
            {
                layout.bind_shapes[m] = shape;
            }
        }
        layout
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use base64::Engine as _;
    use glam::{Quat, Vec3};

    use super::*;
    use crate::asset::Source;
    use crate::asset::scene::{read_nodes, world_transforms};
    use crate::asset::transform::Transform;

    /// A document whose buffer holds `matrices` (column-major) and whose skin 0 has `joints`.
    fn document(node_count: usize, joints: &[usize], matrices: &[Mat4]) -> Source {
        let bytes: Vec<u8> = matrices
            .iter()
            .flat_map(|m| m.to_cols_array())
            .flat_map(f32::to_le_bytes)
            .collect();
        let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
        let nodes: Vec<String> = (0..node_count)
            .map(|i| {
                if i == 0 && node_count > 1 {
                    format!(r#"{{"name":"n{i}","children":[1],"translation":[1,0,0]}}"#)
                } else if i == 1 {
                    r#"{"translation":[0,2,0],"rotation":[0,0,0.70710677,0.70710677]}"#.to_owned()
                } else {
                    format!(r#"{{"name":"n{i}"}}"#)
                }
            })
            .collect();
        let joints: Vec<String> = joints.iter().map(ToString::to_string).collect();
        let ibm = if matrices.is_empty() {
            String::new()
        } else {
            r#","inverseBindMatrices":0"#.to_owned()
        };
        let json = format!(
            r#"{{"asset":{{"version":"2.0"}},
            "buffers":[{{"byteLength":{len},"uri":"data:application/octet-stream;base64,{data}"}}],
            "bufferViews":[{{"buffer":0,"byteLength":{len}}}],
            "accessors":[{{"bufferView":0,"componentType":5126,"count":{count},"type":"MAT4"}}],
            "nodes":[{nodes}],
            "skins":[{{"name":"body","joints":[{joints}]{ibm}}}]}}"#,
            len = bytes.len(),
            count = matrices.len(),
            nodes = nodes.join(","),
            joints = joints.join(","),
        );
        Source::from_bytes(json.as_bytes(), None).expect("test document parses")
    }

    fn load(source: &Source) -> Result<(Vec<Node>, Vec<Skin>)> {
        let reader = Reader::new(&source.root, &source.buffers);
        let nodes = read_nodes(&reader, &mut Vec::new())?;
        let skins = read_skins(&reader, &nodes)?;
        Ok((nodes, skins))
    }

    #[test]
    fn palette_is_world_times_inverse_bind() {
        let ibm = [
            Mat4::from_translation(Vec3::new(-1.0, 0.0, 0.0)),
            Mat4::from_rotation_translation(Quat::from_rotation_y(0.5), Vec3::new(0.0, -3.0, 0.5)),
        ];
        let source = document(2, &[0, 1], &ibm);
        let (nodes, skins) = load(&source).unwrap();
        let skin = &skins[0];
        assert_eq!(skin.name.as_deref(), Some("body"));
        assert_eq!(skin.joints, vec![0, 1]);
        assert_eq!(
            skin.joint_names,
            vec!["n0".to_owned(), "joint 1".to_owned()]
        );
        assert_eq!(skin.inverse_bind, ibm.to_vec());

        let locals: Vec<Transform> = nodes.iter().map(|n| n.transform).collect();
        let world = world_transforms(&nodes, &locals);
        let mut palette = Vec::with_capacity(8);
        let capacity = palette.capacity();
        skin.palette_into(&world, &mut palette);
        assert_eq!(palette.len(), 2);
        assert_eq!(palette.capacity(), capacity);
        for (i, m) in palette.iter().enumerate() {
            let expected = world[skin.joints[i]] * ibm[i];
            assert!(
                m.abs_diff_eq(expected, 1e-6),
                "joint {i}: {m} != {expected}"
            );
        }
        // The child's world matrix includes the parent's translation.
        assert!(
            world[1]
                .w_axis
                .truncate()
                .abs_diff_eq(Vec3::new(1.0, 2.0, 0.0), 1e-6)
        );
    }

    #[test]
    fn missing_inverse_binds_are_identity_and_bad_ones_are_sanitised() {
        let source = document(2, &[1, 0], &[]);
        let (_, skins) = load(&source).unwrap();
        assert_eq!(skins[0].inverse_bind, vec![Mat4::IDENTITY; 2]);

        let mut nan = Mat4::IDENTITY;
        nan.x_axis.x = f32::NAN;
        let source = document(2, &[0, 1], &[nan, Mat4::from_scale(Vec3::splat(2.0))]);
        let (_, skins) = load(&source).unwrap();
        assert_eq!(skins[0].inverse_bind[0], Mat4::IDENTITY);
        assert_eq!(skins[0].inverse_bind[1], Mat4::from_scale(Vec3::splat(2.0)));
    }

    #[test]
    fn too_few_inverse_binds_is_an_error() {
        let source = document(3, &[0, 1, 2], &[Mat4::IDENTITY, Mat4::IDENTITY]);
        let err = load(&source).unwrap_err();
        assert!(
            matches!(err, AssetError::BadAccessor { index: 0, .. }),
            "{err}"
        );
    }

    #[test]
    fn joint_out_of_range_is_an_error() {
        let source = document(2, &[0, 7], &[]);
        let err = load(&source).unwrap_err();
        assert!(
            matches!(
                err,
                AssetError::IndexOutOfRange {
                    what: "node",
                    index: 7
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn too_many_joints_is_an_error() {
        let joints = vec![0; MAX_JOINTS + 1];
        let source = document(1, &joints, &[]);
        let err = load(&source).unwrap_err();
        assert!(
            matches!(
                err,
                AssetError::TooManyJoints { skin: 0, count, max: MAX_JOINTS } if count == MAX_JOINTS + 1
            ),
            "{err}"
        );
    }

    #[test]
    fn palette_tolerates_short_inputs() {
        let skin = Skin {
            name: None,
            joints: vec![0, 5],
            joint_names: vec!["a".into(), "b".into()],
            inverse_bind: vec![Mat4::from_scale(Vec3::splat(3.0))],
        };
        let mut out = vec![Mat4::ZERO; 10];
        skin.palette_into(&[Mat4::from_translation(Vec3::X)], &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(
            out[0],
            Mat4::from_translation(Vec3::X) * Mat4::from_scale(Vec3::splat(3.0))
        );
        assert_eq!(out[1], Mat4::IDENTITY);
    }

    fn uses(pairs: &[(usize, usize)]) -> Vec<(usize, Option<usize>)> {
        pairs.iter().map(|&(m, s)| (m, Some(s))).collect()
    }

    fn skin(joints: &[usize], scale: f32) -> Skin {
        Skin {
            name: None,
            joints: joints.to_vec(),
            joint_names: joints.iter().map(|j| format!("joint {j}")).collect(),
            inverse_bind: vec![Mat4::from_scale(Vec3::splat(scale)); joints.len()],
        }
    }

    #[test]
    fn equal_skins_share_a_palette_and_others_keep_their_own() {
        let skins = [
            skin(&[0, 1, 2], 1.0),
            skin(&[0, 1, 2], 1.0),
            skin(&[0, 1, 2], 2.0),
            skin(&[0, 1], 1.0),
            skin(&[0, 1, 2], 2.0),
        ];
        // Skin 2's mesh is also skinned by skin 0: it keeps its own palette.
        let layout = PaletteLayout::new(&skins, 3, &uses(&[(0, 0), (1, 1), (0, 2), (2, 4)]));
        assert_eq!(layout.owners, [0, 2, 3]);
        assert_eq!(layout.palette_of, [0, 0, 1, 2, 1]);
        assert_eq!(layout.start, [0, 0, 3, 6, 3]);
        assert_eq!(layout.joints, 8);
        assert_eq!(layout.bind_shapes, [Mat4::IDENTITY; 3]);
    }

    #[test]
    fn skins_that_differ_by_a_bind_shape_share_and_their_meshes_take_it() {
        let joints = [0, 1, 2];
        let owner = Skin {
            name: None,
            joints: joints.to_vec(),
            joint_names: vec![String::new(); 3],
            inverse_bind: vec![
                Mat4::from_translation(Vec3::X),
                Mat4::from_rotation_z(0.5),
                Mat4::from_scale(Vec3::splat(0.5)),
            ],
        };
        let shape = Mat4::from_scale_rotation_translation(
            Vec3::splat(0.01),
            Quat::IDENTITY,
            Vec3::new(0.1, 0.8, 0.0),
        );
        let mut dequantised = owner.clone();
        for m in &mut dequantised.inverse_bind {
            *m *= shape;
        }
        let mut bent = dequantised.clone();
        bent.inverse_bind[2] = Mat4::IDENTITY;
        let skins = [owner, dequantised, bent];
        let layout = PaletteLayout::new(&skins, 3, &uses(&[(0, 0), (1, 1), (2, 2)]));
        assert_eq!(
            layout.owners,
            [0, 2],
            "no one matrix takes skin 0 to skin 2"
        );
        assert_eq!(layout.palette_of, [0, 0, 1]);
        assert!(layout.bind_shapes[1].abs_diff_eq(shape, 1e-6));
        assert_eq!(layout.bind_shapes[0], Mat4::IDENTITY);
        // The shared palette through the bind shape skins as the skin's own palette does.
        let world = [
            Mat4::from_rotation_y(0.3),
            Mat4::from_translation(Vec3::Y),
            Mat4::from_rotation_x(1.0),
        ];
        let (mut shared, mut own) = (Vec::new(), Vec::new());
        skins[0].palette_into(&world, &mut shared);
        skins[1].palette_into(&world, &mut own);
        for (s, o) in shared.iter().zip(&own) {
            assert!((*s * layout.bind_shapes[1]).abs_diff_eq(*o, 1e-5));
        }
        // Skinned by a second skin too, or drawn rigid as well, a mesh cannot take the bind
        // shape: no sharing.
        let layout = PaletteLayout::new(&skins[..2], 1, &uses(&[(0, 0), (0, 1)]));
        assert_eq!(layout.owners, [0, 1]);
        assert_eq!(layout.bind_shapes, [Mat4::IDENTITY]);
        let layout = PaletteLayout::new(&skins[..2], 2, &[(0, Some(0)), (1, Some(1)), (1, None)]);
        assert_eq!(layout.owners, [0, 1]);
        assert_eq!(layout.bind_shapes, [Mat4::IDENTITY; 2]);
        // A mesh only ever drawn rigid keeps identity.
        let layout = PaletteLayout::new(&skins[..2], 2, &[(0, Some(0)), (1, None)]);
        assert_eq!(layout.bind_shapes, [Mat4::IDENTITY; 2]);
    }

    #[test]
    fn no_skins_no_palettes() {
        let layout = PaletteLayout::new(&[], 0, &[]);
        assert!(layout.owners.is_empty() && layout.start.is_empty());
        assert_eq!(layout.joints, 0);
    }
}
