//! The head (or whole avatar) the studio shows: loaded once, posed in its rest pose with the
//! face weights of the moment, and framed by an orbiting camera.

use std::path::Path;

use anyhow::Context;
use glam::{Mat4, Vec3};
use npc_core::Pose;
use npc_core::anim::OwnShapes;
use npc_core::asset::{Asset, FaceRig, TargetRef};
use npc_core::body::Skeleton;
use npc_render::GpuPrimitive;
use npc_render::{DrawList, MeshStoreBuilder, MorphRange, StoredAsset};

/// A loaded head and what drawing it needs.
#[derive(Debug)]
pub struct HeadScene {
    pub asset: Asset,
    pub stored: StoredAsset,
    /// Where it came from ("built-in head" for the default).
    pub label: String,
    palettes: Vec<Vec<Mat4>>,
    weights: Vec<Vec<f32>>,
    /// Centre and radius of the face (the meshes with ARKit targets).
    pub focus: Vec3,
    pub radius: f32,
    /// Centre and radius of the whole avatar at rest.
    pub body_focus: Vec3,
    pub body_radius: f32,
    skeleton: Skeleton,
    world: Vec<Mat4>,
    /// The face rig, with the ARKit targets the head plays on its own shapes.
    rig: FaceRig,
    /// The own shapes shown, and where their viseme targets live.
    shapes: OwnShapes,
    own_refs: Vec<Vec<TargetRef>>,
}

/// The face's bounds: meshes with ARKit targets, or with any targets when none has ARKit ones
/// (every mesh when `whole`), in the rest pose.
fn face_bounds(asset: &Asset, palettes: &[Vec<Mat4>], whole: bool) -> (Vec3, f32) {
    let mut min = Vec3::splat(f32::INFINITY);
    let mut max = Vec3::splat(f32::NEG_INFINITY);
    let with = |arkit: bool| -> Vec<usize> {
        (0..asset.meshes.len())
            .filter(|&m| {
                !whole
                    && asset.meshes[m]
                        .target_names
                        .iter()
                        .any(|n| !arkit || n.canonical.is_some())
            })
            .collect()
    };
    let faces = match with(true) {
        arkit if arkit.is_empty() => with(false),
        arkit => arkit,
    };
    for group in &asset.instances {
        if !faces.is_empty() && !faces.contains(&group.mesh) {
            continue;
        }
        let Some(mesh) = asset.meshes.get(group.mesh) else {
            continue;
        };
        for p in &mesh.primitives {
            for (v, pos) in p.positions.iter().enumerate() {
                let local = Vec3::from(*pos);
                let w = match group.skin.and_then(|s| palettes.get(s)) {
                    Some(palette) if p.joints.len() == p.positions.len() => {
                        let j = p.joints[v];
                        let wt = p.weights[v];
                        let skin = (0..4).fold(Mat4::ZERO, |acc, k| {
                            acc + palette
                                .get(j[k] as usize)
                                .copied()
                                .unwrap_or(Mat4::IDENTITY)
                                * wt[k]
                        });
                        skin.transform_point3(local)
                    }
                    _ => group
                        .transforms
                        .first()
                        .copied()
                        .unwrap_or(Mat4::IDENTITY)
                        .transform_point3(local),
                };
                if w.is_finite() {
                    min = min.min(w);
                    max = max.max(w);
                }
            }
        }
    }
    if min.x > max.x {
        return (Vec3::new(0.0, 1.6, 0.0), 0.15);
    }
    ((min + max) * 0.5, ((max - min).length() * 0.5).max(0.05))
}

impl HeadScene {
    /// Loads a head or avatar file into `meshes`.
    pub fn load(path: &Path, meshes: &mut MeshStoreBuilder) -> anyhow::Result<Self> {
        let asset = Asset::load(path).with_context(|| format!("cannot load {}", path.display()))?;
        Self::from_asset(asset, path.display().to_string(), meshes)
    }

    /// The built-in ARKit head.
    pub fn builtin(meshes: &mut MeshStoreBuilder) -> anyhow::Result<Self> {
        let asset = Asset::from_bytes(&npc_core::procedural::head::head_glb(), None)?;
        Self::from_asset(asset, "built-in head".to_owned(), meshes)
    }

    fn from_asset(
        asset: Asset,
        label: String,
        meshes: &mut MeshStoreBuilder,
    ) -> anyhow::Result<Self> {
        let stored = meshes.add(&asset)?;
        let skeleton = Skeleton::of(&asset);
        let mut world = Vec::new();
        skeleton.world_into(&skeleton.rest, &mut world);
        let palettes: Vec<Vec<Mat4>> = asset
            .skins
            .iter()
            .map(|s| {
                let mut p = Vec::new();
                s.palette_into(&world, &mut p);
                p
            })
            .collect();
        let weights = asset
            .meshes
            .iter()
            .map(|m| {
                let mut w = m.default_weights.clone();
                w.resize(m.target_count(), 0.0);
                w
            })
            .collect();
        let (focus, radius) = face_bounds(&asset, &palettes, false);
        let (body_focus, body_radius) = face_bounds(&asset, &palettes, true);
        Ok(Self {
            rig: asset.face_rig.clone(),
            shapes: OwnShapes::default(),
            own_refs: Vec::new(),
            asset,
            stored,
            label,
            palettes,
            weights,
            focus,
            radius,
            body_focus,
            body_radius,
            skeleton,
            world,
        })
    }

    /// Every morph target name of the head, as in its file.
    #[must_use]
    pub fn target_names(&self) -> Vec<String> {
        npc_core::asset::face_rig::target_names(&self.asset.meshes)
    }

    /// The head's VRM expressions (empty for other files).
    #[must_use]
    pub fn vrm_expressions(&self) -> npc_core::asset::VrmExpressions {
        self.asset.vrm_expressions.clone()
    }

    /// Plays `shapes` on the head's own targets from the next draw.
    pub fn set_shapes(&mut self, shapes: &OwnShapes) {
        if *shapes == self.shapes {
            return;
        }
        self.shapes = shapes.clone();
        self.rig = self
            .asset
            .face_rig
            .clone()
            .with_aliases(&self.asset.meshes, &shapes.targets);
        self.own_refs =
            npc_core::asset::face_rig::own_refs(&self.asset.meshes, &shapes.own_targets());
    }

    /// Poses the body by `locals` (one per node, as a body bake's frame has them), or rests
    /// it when `None`.
    pub fn pose_body(&mut self, locals: Option<&[npc_core::asset::Transform]>) {
        let locals = match locals {
            Some(l) if l.len() == self.skeleton.len() => l,
            _ => &self.skeleton.rest,
        };
        self.skeleton.world_into(locals, &mut self.world);
        for (skin, palette) in self.asset.skins.iter().zip(&mut self.palettes) {
            skin.palette_into(&self.world, palette);
        }
    }

    /// ARKit targets found, and the names of those missing.
    #[must_use]
    pub fn coverage(&self) -> (usize, Vec<&'static str>) {
        (
            self.asset.face_rig.arkit_coverage(),
            self.asset.face_rig.arkit_missing_names(),
        )
    }

    /// The weights per mesh of the last [`Self::draw`].
    #[must_use]
    pub fn weights(&self) -> &[Vec<f32>] {
        &self.weights
    }

    /// Fills `list` with the head in `pose`, its own shapes at `own` (in the order of the
    /// shapes' viseme targets).
    pub fn draw(
        &mut self,
        pose: &Pose,
        own: &[f32],
        primitives: &[GpuPrimitive],
        list: &mut DrawList,
    ) {
        list.clear();
        self.rig.apply(pose, &mut self.weights);
        FaceRig::apply_own(&self.own_refs, own, &mut self.weights);
        let palettes: Vec<u32> = self.palettes.iter().map(|p| list.push_palette(p)).collect();
        let morphs: Vec<MorphRange> = self.weights.iter().map(|w| list.push_morphs(w)).collect();
        for group in &self.asset.instances {
            let morph = morphs.get(group.mesh).copied().unwrap_or_default();
            for (id, p) in self.stored.primitives_of(group.mesh, primitives) {
                let first = list.objects.len() as u32;
                let palette = group.skin.and_then(|s| palettes.get(s).copied());
                let models: Vec<Mat4> = if palette.is_some() {
                    vec![Mat4::IDENTITY]
                } else {
                    group.transforms.clone()
                };
                for m in &models {
                    list.push_object(p, *m, palette, morph, 0);
                }
                list.batches.push(npc_render::Batch {
                    primitive: id,
                    first_object: first,
                    count: models.len() as u32,
                    lod: 0,
                    shadow_lod: 0,
                    passes: npc_render::Passes::BOTH,
                });
            }
        }
    }
}

/// A camera circling the face.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Orbit {
    /// Turn about +Y, radians (0: in front, on +Z).
    pub yaw: f32,
    pub pitch: f32,
    /// Distance in face radii.
    pub zoom: f32,
}

impl Default for Orbit {
    fn default() -> Self {
        Self {
            yaw: 0.0,
            pitch: 0.05,
            zoom: 3.2,
        }
    }
}

impl Orbit {
    /// Turns by a drag of (`dx`, `dy`) points.
    pub fn drag(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * 0.01;
        self.pitch = (self.pitch + dy * 0.01).clamp(-1.2, 1.2);
    }

    /// Zooms by a scroll of `delta` points (positive: closer).
    pub fn scroll(&mut self, delta: f32) {
        self.zoom = (self.zoom * (-delta * 0.002).exp()).clamp(1.2, 40.0);
    }

    /// The camera for a face at `focus` of `radius`.
    #[must_use]
    pub fn camera(&self, focus: Vec3, radius: f32) -> npc_render::Camera {
        let dir = Vec3::new(
            self.yaw.sin() * self.pitch.cos(),
            self.pitch.sin(),
            self.yaw.cos() * self.pitch.cos(),
        );
        let mut camera = npc_render::Camera::looking_at(focus + dir * radius * self.zoom, focus);
        camera.fov_y = 35_f32.to_radians();
        camera.near = (radius * 0.05).max(0.005);
        camera
    }
}
