//! The default world made by code: a 240 m × 240 m terrain, flat where the NPCs stand and hilly
//! further out, with grass, bushes, trees and rocks scattered over it as hundreds of
//! instances of six unique meshes (EXT_mesh_gpu_instancing), each standing on the ground.

use glam::{Quat, Vec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::asset::Transform;
use crate::asset::material::{AlphaMode, Material, Texture, TextureRef};
use crate::asset::mesh::{Primitive, vertex_normals};
use crate::asset::scene::Node;
use crate::asset::writer::GlbWriter;

/// Half the side of the terrain, metres (the terrain spans -120..120 on x and z).
pub const HALF_EXTENT: f32 = 120.0;
/// Quads along each side of the terrain grid.
pub const TERRAIN_QUADS: usize = 128;
/// No scattered instance stands closer than this to the origin, metres.
pub const CLEAR_RADIUS: f32 = 6.0;

/// Radius of the disc around the origin over which most of the scatter thins out, metres.
const NEAR_RADIUS: f32 = 110.0;

/// Seed of the scatter and the grass texture.
const SEED: u64 = 0x0005_ce4e_2024_0001;

fn smoothstep(edge0: f32, edge1: f32, x: f32) -> f32 {
    let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Ground height at (x, z), metres: nearly flat within about 10 m of the origin, gentle hills
/// beyond, rising toward the edges of the playable area.
#[must_use]
pub fn terrain_height(x: f32, z: f32) -> f32 {
    let r = (x * x + z * z).sqrt();
    let ripple = 0.08 * (0.21 * x + 0.7).sin() * (0.17 * z).cos();
    let hills = 1.6 * (0.045 * x + 0.4).sin() * (0.038 * z - 0.2).cos()
        + 0.9 * (0.083 * x + 0.061 * z + 1.3).sin()
        + 0.45 * (0.14 * z - 0.11 * x + 2.1).sin()
        + 0.25 * (0.19 * x + 0.5).sin() * (0.17 * z + 1.1).sin();
    let hilly = smoothstep(10.0, 45.0, r);
    let rim = 6.0 * smoothstep(75.0, 150.0, r);
    ripple + hilly * (hills + 1.0) + rim
}

/// Unit surface normal of the terrain at (x, z).
#[must_use]
pub fn terrain_normal(x: f32, z: f32) -> Vec3 {
    let e = 0.05;
    let dx = terrain_height(x + e, z) - terrain_height(x - e, z);
    let dz = terrain_height(x, z + e) - terrain_height(x, z - e);
    Vec3::new(-dx, 2.0 * e, -dz).normalize()
}

/// The terrain grid: (TERRAIN_QUADS + 1)² vertices, UVs tiling every 4 m.
fn terrain_primitive(material: usize) -> Primitive {
    let n = TERRAIN_QUADS;
    let step = 2.0 * HALF_EXTENT / n as f32;
    let mut p = Primitive {
        material: Some(material),
        ..Primitive::default()
    };
    for j in 0..=n {
        let z = -HALF_EXTENT + j as f32 * step;
        for i in 0..=n {
            let x = -HALF_EXTENT + i as f32 * step;
            p.positions.push([x, terrain_height(x, z), z]);
            p.normals.push(terrain_normal(x, z).to_array());
            p.uvs.push([x / 4.0, z / 4.0]);
        }
    }
    let row = (n + 1) as u32;
    for j in 0..n as u32 {
        for i in 0..n as u32 {
            let a = j * row + i;
            let b = a + 1;
            let c = a + row;
            let d = c + 1;
            // Counter-clockwise seen from above: normals up.
            p.indices.extend_from_slice(&[a, c, b, b, c, d]);
        }
    }
    p
}

/// A closed, lumpy ellipsoid: `rings` latitude rings (poles included) of `segments` vertices;
/// `shape` maps a unit direction to the surface point.
fn lumpy(
    rings: usize,
    segments: usize,
    material: usize,
    shape: &dyn Fn(Vec3) -> Vec3,
) -> Primitive {
    let mut p = Primitive {
        material: Some(material),
        ..Primitive::default()
    };
    let push = |p: &mut Primitive, d: Vec3, u: f32, v: f32| {
        p.positions.push(shape(d).to_array());
        p.uvs.push([u, v]);
    };
    push(&mut p, Vec3::Y, 0.5, 0.0);
    for r in 1..rings - 1 {
        let v = r as f32 / (rings - 1) as f32;
        let theta = v * std::f32::consts::PI;
        for s in 0..segments {
            let u = s as f32 / segments as f32;
            let phi = u * std::f32::consts::TAU;
            let d = Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                theta.sin() * phi.sin(),
            );
            push(&mut p, d, u, v);
        }
    }
    push(&mut p, -Vec3::Y, 0.5, 1.0);
    let seg = segments as u32;
    let last = p.positions.len() as u32 - 1;
    let ring = |r: u32, s: u32| 1 + r * seg + s % seg;
    let inner = (rings - 2) as u32;
    for s in 0..seg {
        // Seen from outside, counter-clockwise.
        p.indices
            .extend_from_slice(&[0, ring(0, s + 1), ring(0, s)]);
        p.indices
            .extend_from_slice(&[last, ring(inner - 1, s), ring(inner - 1, s + 1)]);
    }
    for r in 0..inner - 1 {
        for s in 0..seg {
            let a = ring(r, s);
            let b = ring(r, s + 1);
            let c = ring(r + 1, s);
            let d = ring(r + 1, s + 1);
            p.indices.extend_from_slice(&[a, b, c, b, d, c]);
        }
    }
    p.normals = vertex_normals(&p.positions, &p.indices);
    p
}

/// A tapered, open-ended cylinder along +y (the trunk), `segments` around.
fn trunk(segments: usize, material: usize) -> Primitive {
    let mut p = Primitive {
        material: Some(material),
        ..Primitive::default()
    };
    let levels: [(f32, f32); 4] = [(-0.4, 0.24), (0.3, 0.2), (1.8, 0.15), (3.0, 0.11)];
    for (l, &(y, r)) in levels.iter().enumerate() {
        for s in 0..segments {
            let phi = s as f32 / segments as f32 * std::f32::consts::TAU;
            // A slight lean and wobble so that the trunk is not a perfect cylinder.
            let wobble = 1.0 + 0.08 * (phi * 3.0 + l as f32).sin();
            p.positions
                .push([r * wobble * phi.cos() + 0.04 * y, y, r * wobble * phi.sin()]);
            p.uvs.push([s as f32 / segments as f32, l as f32 / 3.0]);
        }
    }
    let seg = segments as u32;
    for l in 0..(levels.len() as u32 - 1) {
        for s in 0..seg {
            let a = l * seg + s;
            let b = l * seg + (s + 1) % seg;
            let c = a + seg;
            let d = b + seg;
            // Seen from outside, counter-clockwise.
            p.indices.extend_from_slice(&[a, c, b, b, c, d]);
        }
    }
    p.normals = vertex_normals(&p.positions, &p.indices);
    p
}

/// Three vertical quads crossing at 60°, 0.7 m wide and 0.5 m tall, textured with blades.
/// Normals point up, so that the clump is lit like the ground it stands on.
fn grass_clump(material: usize) -> Primitive {
    let mut p = Primitive {
        material: Some(material),
        ..Primitive::default()
    };
    for k in 0..3 {
        let angle = k as f32 * std::f32::consts::PI / 3.0;
        let (s, c) = angle.sin_cos();
        let half = 0.35;
        let base = p.positions.len() as u32;
        for (x, y, u, v) in [
            (-half, -0.03, 0.0, 1.0),
            (half, -0.03, 1.0, 1.0),
            (half, 0.5, 1.0, 0.0),
            (-half, 0.5, 0.0, 0.0),
        ] {
            p.positions.push([x * c, y, x * s]);
            p.normals.push([0.0, 1.0, 0.0]);
            p.uvs.push([u, v]);
        }
        p.indices
            .extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
    }
    p
}

/// A 64 × 64 RGBA texture of grass blades on a transparent background.
fn grass_texture(rng: &mut ChaCha8Rng) -> Texture {
    let size = 64_usize;
    let mut rgba = vec![0_u8; size * size * 4];
    for _ in 0..16 {
        let x0 = rng.random_range(6.0..58.0_f32);
        let width = rng.random_range(2.5..5.0_f32);
        let height = rng.random_range(34.0..63.0_f32);
        let lean = rng.random_range(-10.0..10.0_f32);
        let shade = rng.random_range(0.8..1.15_f32);
        for row in 0..size {
            // Rows count up from the bottom of the image.
            let t = row as f32 / height;
            if t > 1.0 {
                break;
            }
            let centre = x0 + lean * t * t;
            let half = 0.5 * width * (1.0 - t) + 0.35;
            let dark = Vec3::new(0.13, 0.30, 0.07);
            let light = Vec3::new(0.45, 0.68, 0.22);
            let c = dark.lerp(light, t.sqrt()) * shade;
            let y = size - 1 - row;
            for x in 0..size {
                if (x as f32 + 0.5 - centre).abs() <= half {
                    let i = (y * size + x) * 4;
                    let byte = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
                    rgba[i..i + 4].copy_from_slice(&[byte(c.x), byte(c.y), byte(c.z), 255]);
                }
            }
        }
    }
    Texture {
        width: size as u32,
        height: size as u32,
        rgba,
    }
}

/// A 64 × 64 tiling ground texture: grass green with soft mottling.
fn ground_texture() -> Texture {
    let size = 64_usize;
    let mut rgba = Vec::with_capacity(size * size * 4);
    let tau = std::f32::consts::TAU;
    for y in 0..size {
        for x in 0..size {
            let (u, v) = (x as f32 / size as f32 * tau, y as f32 / size as f32 * tau);
            // Sums of whole periods over the tile, so that it repeats without seams.
            let n = 0.5 * (3.0 * u + 1.0).sin() * (2.0 * v).cos()
                + 0.3 * (5.0 * v + 2.0 * u).sin()
                + 0.2 * (11.0 * u - 7.0 * v + 0.5).sin();
            let k = 0.9 + 0.1 * n;
            let byte = |c: f32| (c * k * 255.0).clamp(0.0, 255.0).round() as u8;
            rgba.extend_from_slice(&[byte(0.9), byte(1.0), byte(0.85), 255]);
        }
    }
    Texture {
        width: size as u32,
        height: size as u32,
        rgba,
    }
}

/// Scatter of one kind of instance.
#[derive(Clone, Copy, Debug)]
struct Scatter {
    count: usize,
    /// No closer than this to the origin.
    min_radius: f32,
    scale: (f32, f32),
}

fn scatter(rng: &mut ChaCha8Rng, s: Scatter) -> Vec<Transform> {
    let mut out = Vec::with_capacity(s.count);
    let range = HALF_EXTENT - 5.0;
    while out.len() < s.count {
        // Most instances thinning out from the middle, where the player is (uniform in radius,
        // so the density falls as 1 / r); the rest anywhere.
        let (x, z) = if rng.random_bool(0.7) {
            let r = rng.random_range(s.min_radius.max(CLEAR_RADIUS)..NEAR_RADIUS);
            let a = rng.random_range(0.0..std::f32::consts::TAU);
            (r * a.cos(), r * a.sin())
        } else {
            (
                rng.random_range(-range..range),
                rng.random_range(-range..range),
            )
        };
        let yaw = rng.random_range(0.0..std::f32::consts::TAU);
        let scale = rng.random_range(s.scale.0..s.scale.1);
        if (x * x + z * z).sqrt() < s.min_radius.max(CLEAR_RADIUS) {
            continue;
        }
        out.push(Transform {
            translation: Vec3::new(x, terrain_height(x, z), z),
            rotation: Quat::from_rotation_y(yaw),
            scale: Vec3::splat(scale),
        });
    }
    out
}

/// Counts of what [`scene_glb`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SceneCounts {
    pub grass: usize,
    pub bushes: usize,
    pub trees: usize,
    pub rocks_a: usize,
    pub rocks_b: usize,
}

/// How many of each instance the scene holds.
pub const COUNTS: SceneCounts = SceneCounts {
    grass: 420,
    bushes: 60,
    trees: 40,
    rocks_a: 45,
    rocks_b: 35,
};

/// A plain material with an sRGB colour (glTF colour factors are linear).
fn material(name: &str, rgb: [f32; 3]) -> Material {
    let linear = |c: f32| {
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    Material {
        name: Some(name.to_owned()),
        base_color: [linear(rgb[0]), linear(rgb[1]), linear(rgb[2]), 1.0],
        ..Material::default()
    }
}

/// The default world as GLB bytes: one terrain node, then one EXT_mesh_gpu_instancing node
/// per scattered mesh (grass, bush, tree, rock A, rock B). The same bytes on every call.
#[must_use]
pub fn scene_glb() -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut w = GlbWriter::new();

    let ground = w.add_material(
        &Material {
            base_color_texture: Some(TextureRef::plain(0)),
            ..material("Ground", [0.36, 0.52, 0.22])
        },
        &[Some(ground_texture())],
    );
    let grass = w.add_material(
        &Material {
            name: Some("Grass".to_owned()),
            base_color: [1.0; 4],
            base_color_texture: Some(TextureRef::plain(0)),
            alpha_mode: AlphaMode::Mask { cutoff: 0.5 },
            double_sided: true,
            ..Material::default()
        },
        &[Some(grass_texture(&mut rng))],
    );
    let leaves = w.add_material(&material("Leaves", [0.18, 0.38, 0.13]), &[]);
    let bush_leaves = w.add_material(&material("BushLeaves", [0.24, 0.43, 0.16]), &[]);
    let bark = w.add_material(&material("Bark", [0.36, 0.27, 0.19]), &[]);
    let stone = w.add_material(&material("Stone", [0.52, 0.51, 0.49]), &[]);
    let dark_stone = w.add_material(&material("DarkStone", [0.40, 0.39, 0.38]), &[]);

    let terrain = w.add_mesh("Terrain", &[terrain_primitive(ground)], &[], &[]);
    let grass_mesh = w.add_mesh("GrassClump", &[grass_clump(grass)], &[], &[]);
    let bush = lumpy(9, 14, bush_leaves, &|d: Vec3| {
        let bump =
            1.0 + 0.14 * (d.x * 5.0 + 1.0).sin() * (d.z * 4.0).cos() + 0.08 * (d.y * 7.0).sin();
        Vec3::new(d.x * 0.75, d.y * 0.55, d.z * 0.75) * bump + Vec3::new(0.0, 0.4, 0.0)
    });
    let bush_mesh = w.add_mesh("Bush", &[bush], &[], &[]);
    let canopy = lumpy(11, 16, leaves, &|d: Vec3| {
        let bump = 1.0 + 0.12 * (d.x * 4.0 + d.y * 3.0).sin() + 0.1 * (d.z * 5.0 - 1.0).cos();
        Vec3::new(d.x * 1.7, d.y * 1.9, d.z * 1.7) * bump + Vec3::new(0.1, 4.0, 0.0)
    });
    let tree_mesh = w.add_mesh("Tree", &[trunk(9, bark), canopy], &[], &[]);
    let rock_a = lumpy(7, 9, stone, &|d: Vec3| {
        let bump = 1.0 + 0.2 * (d.x * 3.0 + 0.3).sin() * (d.z * 2.5 + 1.0).cos();
        Vec3::new(d.x * 0.7, d.y * 0.38, d.z * 0.55) * bump + Vec3::new(0.0, 0.08, 0.0)
    });
    let rock_a_mesh = w.add_mesh("RockA", &[rock_a], &[], &[]);
    let rock_b = lumpy(8, 10, dark_stone, &|d: Vec3| {
        let bump = 1.0 + 0.16 * (d.y * 4.0 + d.x * 2.0).sin() + 0.1 * (d.z * 6.0).sin();
        Vec3::new(d.x * 0.8, d.y * 0.75, d.z * 0.9) * bump + Vec3::new(0.0, 0.3, 0.0)
    });
    let rock_b_mesh = w.add_mesh("RockB", &[rock_b], &[], &[]);

    let groups = [
        (
            "Grass",
            grass_mesh,
            Scatter {
                count: COUNTS.grass,
                min_radius: CLEAR_RADIUS,
                scale: (0.8, 1.35),
            },
        ),
        (
            "Bushes",
            bush_mesh,
            Scatter {
                count: COUNTS.bushes,
                min_radius: 9.0,
                scale: (0.7, 1.4),
            },
        ),
        (
            "Trees",
            tree_mesh,
            Scatter {
                count: COUNTS.trees,
                min_radius: 14.0,
                scale: (0.8, 1.3),
            },
        ),
        (
            "RocksA",
            rock_a_mesh,
            Scatter {
                count: COUNTS.rocks_a,
                min_radius: 8.0,
                scale: (0.5, 1.6),
            },
        ),
        (
            "RocksB",
            rock_b_mesh,
            Scatter {
                count: COUNTS.rocks_b,
                min_radius: 10.0,
                scale: (0.6, 1.5),
            },
        ),
    ];

    let mut roots = vec![w.add_node(&Node {
        name: Some("Terrain".to_owned()),
        parent: None,
        children: Vec::new(),
        transform: Transform::IDENTITY,
        mesh: Some(terrain),
        skin: None,
        gpu_instances: Vec::new(),
    })];
    for (name, mesh, s) in groups {
        let instances = scatter(&mut rng, s);
        roots.push(w.add_node(&Node {
            gpu_instances: instances,
            ..Node::showing(name, mesh)
        }));
    }
    w.set_roots(roots);
    w.to_glb()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::asset::Asset;

    fn load() -> Asset {
        Asset::from_bytes(&scene_glb(), None).unwrap()
    }

    #[test]
    fn terrain_is_flat_near_the_origin_and_hilly_further_out() {
        let (mut lo, mut hi) = (f32::MAX, f32::MIN);
        for i in -8..=8 {
            for j in -8..=8 {
                let h = terrain_height(i as f32, j as f32);
                lo = lo.min(h);
                hi = hi.max(h);
            }
        }
        assert!(hi - lo < 0.3, "near the origin {lo}..{hi}");
        let (mut lo, mut hi) = (f32::MAX, f32::MIN);
        for i in -12..=12 {
            for j in -12..=12 {
                let h = terrain_height(i as f32 * 10.0, j as f32 * 10.0);
                lo = lo.min(h);
                hi = hi.max(h);
            }
        }
        assert!(hi - lo > 3.0, "over the area {lo}..{hi}");
        assert!(terrain_normal(0.0, 0.0).y > 0.99);
    }

    #[test]
    fn scene_has_hundreds_of_instances_of_a_few_meshes() {
        let asset = load();
        assert!(asset.meshes.len() <= 8, "{} meshes", asset.meshes.len());
        assert!(
            asset.repeated_instances() >= 500,
            "{} repeated instances",
            asset.repeated_instances()
        );
        assert!(
            asset
                .extensions_used
                .iter()
                .any(|e| e == "EXT_mesh_gpu_instancing")
        );
        let terrain = asset
            .meshes
            .iter()
            .find(|m| m.name.as_deref() == Some("Terrain"));
        assert_eq!(
            terrain.unwrap().vertex_count(),
            (TERRAIN_QUADS + 1) * (TERRAIN_QUADS + 1)
        );
        // The grass is alpha-tested, double-sided and textured with blades.
        let grass = asset
            .materials
            .iter()
            .find(|m| m.name.as_deref() == Some("Grass"))
            .unwrap();
        assert_eq!(grass.alpha_mode, AlphaMode::Mask { cutoff: 0.5 });
        assert!(grass.double_sided);
        let texture = asset.textures[grass.base_color_texture.unwrap().texture]
            .as_ref()
            .unwrap();
        let alphas: Vec<u8> = texture.rgba.chunks_exact(4).map(|p| p[3]).collect();
        assert!(alphas.contains(&0) && alphas.contains(&255));
    }

    #[test]
    fn instances_stand_on_the_terrain_away_from_the_origin() {
        let asset = load();
        let mut count = 0;
        for group in asset.instances.iter().filter(|g| g.transforms.len() > 1) {
            for m in &group.transforms {
                let t = m.w_axis.truncate();
                assert!(
                    (t.x * t.x + t.z * t.z).sqrt() >= CLEAR_RADIUS,
                    "instance at {t}"
                );
                assert!(t.x.abs() < HALF_EXTENT && t.z.abs() < HALF_EXTENT);
                assert!(
                    (t.y - terrain_height(t.x, t.z)).abs() < 1e-4,
                    "instance at {t}"
                );
                count += 1;
            }
        }
        let c = COUNTS;
        assert_eq!(count, c.grass + c.bushes + c.trees + c.rocks_a + c.rocks_b);
    }

    #[test]
    fn collision_grid_follows_the_terrain() {
        let asset = load();
        let grid = asset.collision_grid();
        let positions: Vec<Vec3> = asset
            .instances
            .iter()
            .filter(|g| g.transforms.len() > 1)
            .flat_map(|g| g.transforms.iter().map(|m| m.w_axis.truncate()))
            .collect();
        let mut checked = 0;
        let mut worst = 0.0_f32;
        for i in -11..=11 {
            for j in -11..=11 {
                let (x, z) = (i as f32 * 10.3 + 0.37, j as f32 * 10.1 - 0.21);
                let terrain = terrain_height(x, z);
                let ground = grid.ground_height(x, z).unwrap();
                assert!(ground >= terrain - 0.05, "({x}, {z}): {ground} < {terrain}");
                let clear = positions.iter().all(|p| (p.x - x).hypot(p.z - z) > 5.0);
                if clear {
                    worst = worst.max((ground - terrain).abs());
                    checked += 1;
                }
            }
        }
        assert!(checked >= 12, "only {checked} clear points");
        assert!(worst < 0.05, "grid differs from terrain_height by {worst}");
        // Near the origin, where the NPCs stand, nothing else is in the way.
        for (x, z) in [(0.0, 0.0), (2.5, -1.5), (-3.0, 4.0), (4.5, 0.5)] {
            let ground = grid.ground_height(x, z).unwrap();
            assert!((ground - terrain_height(x, z)).abs() < 0.05);
        }
    }

    #[test]
    fn scene_bytes_are_deterministic() {
        assert_eq!(scene_glb(), scene_glb());
    }
}
