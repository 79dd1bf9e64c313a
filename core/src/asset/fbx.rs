//! FBX files (Mixamo downloads, other tools' exports) read for their skeleton and clips through
//! ufbx, the maintained FBX loader: every take (animation stack) becomes a clip, sampled at the
//! file's frame rate in glTF's space (right-handed, Y up, metres). Meshes are not read: avatars
//! come as glTF or VRM, and FBX files give them clips (`avatar.clips`), retargeted through the
//! humanoid map like glTF clips.

use std::collections::HashMap;
use std::sync::Arc;

use glam::{Quat, Vec3};

use super::animation::{Channel, Clip, Interpolation, Property};
use super::error::{AssetError, Result};
use super::face_rig::FaceRig;
use super::load::Asset;
use super::scene::Node;
use super::transform::Transform;

/// Whether `bytes` are an FBX file, binary or ASCII.
#[must_use]
pub fn is_fbx(bytes: &[u8]) -> bool {
    bytes.starts_with(b"Kaydara FBX Binary") || bytes.starts_with(b"; FBX")
}

/// Most samples a take's channels get: ten minutes at 60 frames a second.
const MAX_SAMPLES: usize = 10 * 60 * 60;

/// A channel whose every sample is this close to the rest value (metres, or quaternion
/// components) is left out: the rest pose shows it.
const REST_TOLERANCE: f32 = 1e-5;

/// Reads an FBX file's nodes and takes. `file_stem` names the clip of a file with one take
/// whose own name says nothing (Mixamo names every take "mixamo.com").
///
/// # Errors
/// [`AssetError::Fbx`] when ufbx cannot read the file.
pub(super) fn read(bytes: &[u8], file_stem: Option<&str>) -> Result<Asset> {
    let options = ufbx::LoadOpts {
        target_axes: ufbx::CoordinateAxes::right_handed_y_up(),
        target_unit_meters: 1.0,
        // Translations scaled to metres on every node, scales left at 1: the rig's locals come
        // out as a glTF export of it would store them.
        space_conversion: ufbx::SpaceConversion::ModifyGeometry,
        ignore_geometry: true,
        ..Default::default()
    };
    let scene = ufbx::load_memory(bytes, options).map_err(|e| {
        let info = e.info();
        AssetError::Fbx(if info.is_empty() {
            e.description.to_string()
        } else {
            format!("{} ({info})", e.description)
        })
    })?;
    let (nodes, index_of) = read_nodes(&scene);
    let roots = (0..nodes.len())
        .filter(|&i| nodes[i].parent.is_none())
        .collect();
    let mut warnings = Vec::new();
    let meshes = scene.nodes.iter().filter(|n| n.mesh.is_some()).count();
    if meshes > 0 {
        warnings.push(format!(
            "its {meshes} meshes are not read: FBX files give skeletons and clips \
             (avatar.clips); bring the avatar itself as glTF or VRM"
        ));
    }
    let takes = scene.anim_stacks.len();
    let clips = scene
        .anim_stacks
        .iter()
        .enumerate()
        .map(|(i, stack)| {
            let name = clip_name(&stack.element.name, i, takes, file_stem);
            read_take(&scene, stack, &index_of, &nodes, name, &mut warnings)
        })
        .collect();
    Ok(Asset {
        meshes: Vec::new(),
        materials: Vec::new(),
        textures: Vec::new(),
        nodes,
        roots,
        skins: Vec::new(),
        clips,
        instances: Vec::new(),
        face_rig: FaceRig::from_meshes(&[]),
        humanoid_table: Vec::new(),
        vrm_expressions: super::VrmExpressions::default(),
        spring_bones: super::spring_bones::SpringBones::default(),
        turned_to_face_forward: false,
        extensions_used: Vec::new(),
        extensions_required: Vec::new(),
        warnings,
    })
}

/// Every node but ufbx's root, with the map from ufbx's node ids to their indices here.
fn read_nodes(scene: &ufbx::Scene) -> (Vec<Node>, HashMap<u32, usize>) {
    let mut index_of = HashMap::new();
    let mut nodes = Vec::new();
    for node in scene.nodes.iter().filter(|n| !n.is_root) {
        index_of.insert(node.element.typed_id, nodes.len());
        nodes.push(Node {
            name: Some(node.element.name.to_string()),
            parent: None,
            children: Vec::new(),
            transform: rest_of(node),
            mesh: None,
            skin: None,
            gpu_instances: Vec::new(),
        });
    }
    for node in scene.nodes.iter().filter(|n| !n.is_root) {
        let child = index_of[&node.element.typed_id];
        let parent = node
            .parent
            .as_ref()
            .and_then(|p| index_of.get(&p.element.typed_id).copied());
        if let Some(parent) = parent {
            nodes[child].parent = Some(parent);
            nodes[parent].children.push(child);
        }
    }
    (nodes, index_of)
}

/// A node's rest transform: its place in the file's bind pose where the pose has it (the
/// pose its skin was bound in), else its own transform. (A file's own transforms hold the pose
/// it was saved in, often a frame of a take: Blender writes the frame on screen.)
fn rest_of(node: &ufbx::Node) -> Transform {
    node.bind_pose
        .as_ref()
        .and_then(|pose| ufbx::get_bone_pose(pose, node))
        .map_or_else(
            || transform_of(&node.local_transform),
            |bone| transform_of(&ufbx::matrix_to_transform(&bone.bone_to_parent)),
        )
}

/// The name a take's clip gets: its own, or the file's when the file has one take with a name
/// that says nothing of what it is.
fn clip_name(take: &str, index: usize, takes: usize, file_stem: Option<&str>) -> String {
    match file_stem {
        Some(stem) if takes == 1 && super::animation::name_says_nothing(take) => stem.to_owned(),
        _ if take.is_empty() => format!("clip {index}"),
        _ => take.to_owned(),
    }
}

/// One take as a clip: every animated node's translation, rotation and scale sampled at the
/// file's frame rate from the take's start, linear between samples; channels that stay at
/// the rest pose are left out.
fn read_take(
    scene: &ufbx::Scene,
    stack: &ufbx::AnimStack,
    index_of: &HashMap<u32, usize>,
    nodes: &[Node],
    name: String,
    warnings: &mut Vec<String>,
) -> Clip {
    let fps = match scene.settings.frames_per_second {
        f if f.is_finite() && f > 0.0 => f,
        _ => 30.0,
    };
    let length = (stack.time_end - stack.time_begin).max(0.0);
    let mut samples = (length * fps).round() as usize + 1;
    if samples > MAX_SAMPLES {
        warnings.push(format!(
            "take {name}: only its first {MAX_SAMPLES} frames are read ({samples} in all)"
        ));
        samples = MAX_SAMPLES;
    }
    let times: Arc<[f32]> = (0..samples).map(|i| (i as f64 / fps) as f32).collect();
    let mut channels = Vec::new();
    for node in scene.nodes.iter().filter(|n| !n.is_root) {
        let animated = stack
            .layers
            .iter()
            .any(|layer| !layer.find_anim_props(&node.element).is_empty());
        if !animated {
            continue;
        }
        let index = index_of[&node.element.typed_id];
        let rest = nodes[index].transform;
        let mut translations = Vec::with_capacity(samples * 3);
        let mut rotations = Vec::with_capacity(samples * 4);
        let mut scales = Vec::with_capacity(samples * 3);
        let mut previous = rest.rotation;
        for i in 0..samples {
            let time = stack.time_begin + i as f64 / fps;
            let t = transform_of(&ufbx::evaluate_transform(&stack.anim, node, time));
            // Neighbouring keys on the same side of the quaternion sphere, so that
            // interpolating between them takes the short way.
            let rotation = if previous.dot(t.rotation) < 0.0 {
                -t.rotation
            } else {
                t.rotation
            };
            previous = rotation;
            translations.extend_from_slice(&t.translation.to_array());
            rotations.extend_from_slice(&rotation.to_array());
            scales.extend_from_slice(&t.scale.to_array());
        }
        let mut push = |property, values: Vec<f32>, rest: &[f32]| {
            let width = rest.len();
            let at_rest = values.chunks_exact(width).all(|v| {
                v.iter()
                    .zip(rest)
                    .all(|(a, b)| (a - b).abs() <= REST_TOLERANCE)
            });
            if !at_rest {
                channels.push(Channel {
                    node: index,
                    property,
                    interpolation: Interpolation::Linear,
                    times: Arc::clone(&times),
                    values: values.into(),
                    width,
                });
            }
        };
        push(
            Property::Translation,
            translations,
            &rest.translation.to_array(),
        );
        push(
            Property::Rotation,
            rotations,
            &rest_rotation_near(rest.rotation, previous).to_array(),
        );
        push(Property::Scale, scales, &rest.scale.to_array());
    }
    Clip {
        name,
        duration_s: times.last().copied().unwrap_or(0.0),
        channels,
        face: super::clip_face::FaceTracks::default(),
    }
}

/// The rest rotation on the same side of the quaternion sphere as `sample` (a rotation at rest
/// may have been sampled as its negation).
fn rest_rotation_near(rest: Quat, sample: Quat) -> Quat {
    if rest.dot(sample) < 0.0 { -rest } else { rest }
}

fn transform_of(t: &ufbx::Transform) -> Transform {
    let v = |v: ufbx::Vec3| Vec3::new(v.x as f32, v.y as f32, v.z as f32);
    let q = t.rotation;
    let rotation = Quat::from_xyzw(q.x as f32, q.y as f32, q.z as f32, q.w as f32);
    Transform {
        translation: v(t.translation),
        rotation: if rotation.is_finite() && rotation.length_squared() > 0.0 {
            rotation.normalize()
        } else {
            Quat::IDENTITY
        },
        scale: v(t.scale),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_take_that_names_nothing_is_named_after_its_file() {
        assert_eq!(clip_name("mixamo.com", 0, 1, Some("Idle")), "Idle");
        assert_eq!(clip_name("Take 001", 0, 1, Some("Walking")), "Walking");
        assert_eq!(clip_name("", 0, 1, Some("Talking")), "Talking");
        assert_eq!(
            clip_name("Armature|wave", 0, 1, Some("clips")),
            "Armature|wave"
        );
        assert_eq!(clip_name("mixamo.com", 1, 2, Some("Idle")), "mixamo.com");
        assert_eq!(clip_name("", 2, 3, None), "clip 2");
    }

    #[test]
    fn fbx_files_are_told_apart_from_gltf() {
        assert!(is_fbx(b"Kaydara FBX Binary  \0\x1a\0"));
        assert!(is_fbx(b"; FBX 7.4.0 project file"));
        assert!(!is_fbx(b"glTF\x02\0\0\0"));
        assert!(!is_fbx(b"{\"asset\":{\"version\":\"2.0\"}}"));
    }

    #[test]
    fn a_file_ufbx_cannot_read_is_refused_with_its_reason() {
        let error = read(b"Kaydara FBX Binary  \0\x1a\0\xe8\x1c\0\0garbage", None)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(error.starts_with("cannot read the FBX file: "), "{error}");
    }
}
