//! A synthetic avatar shaped like real ones (Ready Player Me size): a head mesh of about
//! 3000 vertices carrying the 52 ARKit targets, the 15 Oculus visemes and a few custom ones,
//! teeth, eyes and tongue meshes that repeat some of those targets, and a 67-joint skin with a
//! clip. Written as GLB with the project's writer, so loading it tests the whole path.

use glam::{Mat4, Quat, Vec3};
use npc_core::arkit::{ArkitTarget, OculusViseme};
use npc_core::asset::Transform;
use npc_core::asset::animation::{Channel, Clip, Interpolation, Property};
use npc_core::asset::mesh::{MorphTarget, Primitive};
use npc_core::asset::scene::Node;
use npc_core::asset::writer::GlbWriter;

pub const JOINTS: usize = 67;

/// A UV sphere of `rings` x `segments` vertices, skinned to two joints, with one morph target
/// per name (each a smooth, distinct displacement).
pub fn sphere(
    radius: f32,
    centre: Vec3,
    rings: usize,
    segments: usize,
    targets: usize,
    joint: u16,
) -> Primitive {
    let mut p = Primitive::default();
    for r in 0..rings {
        let v = r as f32 / (rings - 1) as f32;
        let theta = v * std::f32::consts::PI;
        for s in 0..segments {
            let u = s as f32 / segments as f32;
            let phi = u * std::f32::consts::TAU;
            let n = Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                theta.sin() * phi.sin(),
            );
            p.positions.push((centre + n * radius).to_array());
            p.normals.push(n.to_array());
            p.uvs.push([u, v]);
            p.joints.push([joint, joint.saturating_sub(1), 0, 0]);
            p.weights.push([0.8, 0.2, 0.0, 0.0]);
        }
    }
    for r in 0..rings - 1 {
        for s in 0..segments {
            let a = (r * segments + s) as u32;
            let b = (r * segments + (s + 1) % segments) as u32;
            let c = a + segments as u32;
            let d = b + segments as u32;
            p.indices.extend_from_slice(&[a, c, b, b, c, d]);
        }
    }
    for t in 0..targets {
        let k = t as f32 + 1.0;
        let positions = p
            .positions
            .iter()
            .map(|q| {
                let w = (q[0] * k).sin() * (q[1] * 0.5 * k).cos() * 0.01;
                [w, w * 0.5, -w]
            })
            .collect();
        p.targets.push(MorphTarget {
            positions,
            normals: Vec::new(),
        });
    }
    p
}

fn names_head() -> Vec<String> {
    let mut names: Vec<String> = ArkitTarget::ALL
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    names.extend(OculusViseme::ALL.iter().map(|v| v.name().to_owned()));
    names.extend(["mouthOpen", "mouthSmile", "browSad"].map(str::to_owned));
    names
}

/// The avatar as GLB bytes.
pub fn avatar_glb() -> Vec<u8> {
    let mut w = GlbWriter::new();
    let head_names = names_head();
    let head = sphere(0.1, Vec3::new(0.0, 1.6, 0.0), 50, 60, head_names.len(), 66);
    let head_refs: Vec<&str> = head_names.iter().map(String::as_str).collect();
    let m_head = w.add_mesh("Wolf3D_Head", &[head], &head_refs, &[]);
    let teeth = sphere(0.03, Vec3::new(0.0, 1.55, 0.05), 20, 24, 2, 66);
    let m_teeth = w.add_mesh("Wolf3D_Teeth", &[teeth], &["jawOpen", "mouthOpen"], &[]);
    let eyes = [
        sphere(0.012, Vec3::new(-0.03, 1.63, 0.08), 16, 20, 8, 65),
        sphere(0.012, Vec3::new(0.03, 1.63, 0.08), 16, 20, 8, 64),
    ];
    let eye_names = [
        "eyeLookDown_L",
        "eyeLookIn_L",
        "eyeLookOut_L",
        "eyeLookUp_L",
        "eyeLookDown_R",
        "eyeLookIn_R",
        "eyeLookOut_R",
        "eyeLookUp_R",
    ];
    let m_eyes = w.add_mesh("EyeLeftRight", &eyes, &eye_names, &[]);
    let tongue = sphere(0.02, Vec3::new(0.0, 1.54, 0.04), 12, 16, 2, 66);
    let m_tongue = w.add_mesh("Tongue", &[tongue], &["tongueOut", "jawOpen"], &[]);

    // A 67-joint tree: joint i hangs under joint (i - 1) / 2, 4 cm further up.
    let mut nodes: Vec<Node> = (0..JOINTS)
        .map(|i| Node {
            name: Some(format!("mixamorig:Joint{i}")),
            parent: None,
            children: Vec::new(),
            transform: Transform {
                translation: Vec3::new(0.0, if i == 0 { 1.0 } else { 0.04 }, 0.0),
                ..Transform::IDENTITY
            },
            mesh: None,
            skin: None,
            gpu_instances: Vec::new(),
        })
        .collect();
    for i in 1..JOINTS {
        nodes[(i - 1) / 2].children.push(i);
    }
    let mut world = vec![Mat4::IDENTITY; JOINTS];
    for i in 0..JOINTS {
        let local = nodes[i].transform.to_mat4();
        world[i] = if i == 0 {
            local
        } else {
            world[(i - 1) / 2] * local
        };
    }
    for node in &nodes {
        w.add_node(node);
    }
    let inverse_bind: Vec<Mat4> = world.iter().map(Mat4::inverse).collect();
    let joints: Vec<usize> = (0..JOINTS).collect();
    let skin = w.add_skin("Armature", &joints, &inverse_bind);
    let mut roots = vec![0];
    for mesh in [m_head, m_teeth, m_eyes, m_tongue] {
        let node = Node {
            name: Some(format!("mesh {mesh}")),
            parent: None,
            children: Vec::new(),
            transform: Transform::IDENTITY,
            mesh: Some(mesh),
            skin: Some(skin),
            gpu_instances: Vec::new(),
        };
        roots.push(w.add_node(&node));
    }
    // A 2 s clip rotating every joint a little.
    let times = vec![0.0, 1.0, 2.0];
    let channels = (0..JOINTS)
        .map(|j| {
            let tilt = Quat::from_rotation_z(0.05 * (j % 5) as f32);
            Channel {
                node: j,
                property: Property::Rotation,
                interpolation: Interpolation::Linear,
                times: times.clone().into(),
                values: [Quat::IDENTITY, tilt, Quat::IDENTITY]
                    .iter()
                    .flat_map(|q| q.to_array())
                    .collect(),
                width: 4,
            }
        })
        .collect();
    w.add_clip(&Clip {
        name: "idle".into(),
        duration_s: 2.0,
        channels,
        face: npc_core::asset::clip_face::FaceTracks::default(),
    });
    w.set_roots(roots);
    w.to_glb()
}
