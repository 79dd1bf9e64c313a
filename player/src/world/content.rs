//! What a project's world is made of, loaded from its files: the scene (meshes, ground,
//! extent), one model per distinct avatar, and the three skies. CPU only: the meshes go to a
//! [`MeshStoreBuilder`] the renderer uploads.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow};
use glam::{Vec2, Vec3};
use npc_core::anim::OwnShapes;
use npc_core::asset::collision::GroundGrid;
use npc_core::asset::material::Texture;
use npc_core::asset::{Asset, FaceRig, TargetRef};
use npc_core::body::{AvatarClips, AvatarRig, ClipLibrary, HumanoidBone, HumanoidMap, PoseReader};
use npc_core::project::{Project, SKIES, SKY_FACES};

use npc_core::asset::skin::PaletteLayout;
use npc_core::body::Skeleton;
use npc_render::CubeFaces;
use npc_render::{MeshStoreBuilder, StoredAsset};

/// A loaded glTF file and where its primitives went.
#[derive(Debug)]
pub struct Part {
    pub asset: Asset,
    pub stored: StoredAsset,
    /// The skins that share one palette (each NPC computes and uploads it once); the stored
    /// meshes are in the shared palettes' bind shapes.
    pub palettes: PaletteLayout,
}

/// An avatar: the body (skinned, with clips) and, when separate, an ARKit head attached to the
/// body's head joint.
#[derive(Debug)]
pub struct AvatarModel {
    pub body: Part,
    pub head: Option<Part>,
    pub skeleton: Skeleton,
    /// The body's head joint (for attaching a separate head and placing close-ups).
    pub head_joint: Option<usize>,
    /// The box around the avatar at rest (its own space), for framing it whole; `None` with
    /// a separate head (the body alone ends at the neck).
    pub rest_bounds: Option<(Vec3, Vec3)>,
    /// The body's joints by humanoid bone.
    pub humanoid: HumanoidMap,
    /// Where the body's clips come from.
    pub clips: AvatarClips,
    /// Reads the body's pose for `--record`, as `bake --body` reads it.
    pub pose_reader: PoseReader,
    /// The face part's rig, with the ARKit targets the avatar plays on shapes of its own.
    pub rig: FaceRig,
    /// The avatar's own shapes (the project's, or a starting table for a known set).
    pub own_shapes: OwnShapes,
    /// Where each own viseme target lives (in the order of the animator's own weights).
    pub own_refs: Vec<Vec<TargetRef>>,
    /// The face part's VRM expressions (empty when it is not a VRM).
    pub vrm_expressions: npc_core::asset::VrmExpressions,
    /// The body's spring bones (hair, skirts), ready to simulate (each NPC's body settings say
    /// whether they swing: `body.spring_bones`).
    pub springs: npc_core::body::spring::SpringRig,
}

impl AvatarModel {
    /// The head joint at rest, in the avatar's space (the origin without one).
    #[must_use]
    pub fn rest_head(&self) -> Vec3 {
        self.head_joint
            .and_then(|j| self.skeleton.rest_world().get(j).copied())
            .map_or(Vec3::ZERO, |m| m.transform_point3(Vec3::ZERO))
    }

    /// How far the top of the head rises above the head joint at rest, metres of the avatar's
    /// space; `None` without its own measure (a separate head).
    #[must_use]
    pub fn head_above_joint(&self) -> Option<f32> {
        let (_, high) = self.rest_bounds?;
        self.head_joint?;
        Some(high.y - self.rest_head().y).filter(|h| *h > 0.0)
    }

    /// The part carrying the face targets: the separate head when there is one.
    #[must_use]
    pub fn face_part(&self) -> &Part {
        self.head.as_ref().unwrap_or(&self.body)
    }

    #[must_use]
    pub fn face_rig(&self) -> &FaceRig {
        &self.rig
    }
}

/// The scene's ground in map terms: normalised map coordinates (0-1, as npc_state.json uses)
/// onto the scene's x/z extent, and the ground height under any point.
#[derive(Debug)]
pub struct Ground {
    pub grid: GroundGrid,
    pub min: Vec2,
    pub max: Vec2,
}

impl Ground {
    /// The point on the ground at map coordinates (`x` east, `y` south; 0-1).
    #[must_use]
    pub fn map_to_world(&self, x: f32, y: f32) -> Vec3 {
        let p = self.min + (self.max - self.min) * Vec2::new(x.clamp(0.0, 1.0), y.clamp(0.0, 1.0));
        Vec3::new(p.x, self.height(p.x, p.y), p.y)
    }

    /// Ground height at (`x`, `z`); 0 off the ground.
    #[must_use]
    pub fn height(&self, x: f32, z: f32) -> f32 {
        self.grid.ground_below(x, 1.0e4, z).unwrap_or(0.0)
    }
}

/// What makes two NPCs' avatars the same model: body, head, bone overrides and clip file.
/// Body, head, bone names, clips file, and the named springs as written.
type AvatarKey = (
    PathBuf,
    Option<PathBuf>,
    BTreeMap<String, String>,
    Vec<PathBuf>,
    String,
);

/// Everything a project's world loads.
#[derive(Debug)]
pub struct WorldContent {
    pub scene: Part,
    /// Scene instance groups that are ground (wider than [`GROUND_EXTENT`]): they receive
    /// shadows but do not cast them.
    pub ground_groups: Vec<usize>,
    /// World bounding sphere (centre, radius) of every scene instance, per instance group.
    pub scene_spheres: Vec<Vec<(Vec3, f32)>>,
    pub ground: Ground,
    pub avatars: Vec<AvatarModel>,
    /// Avatar of each NPC of the roster (index into `avatars`).
    pub npc_avatars: Vec<usize>,
    pub skies: [CubeFaces; 3],
}

fn load_asset(path: &Path, what: &str) -> anyhow::Result<Asset> {
    let asset = Asset::load(path).with_context(|| {
        format!(
            "cannot load the {what} {} (make the demo's files with `npc-player generate-assets \
             --out DIR`)",
            path.display()
        )
    })?;
    for w in &asset.warnings {
        tracing::warn!("{}: {w}", path.display());
    }
    Ok(asset)
}

/// Loads a part and stores its meshes; `by_palettes`: it is drawn by its skins' palettes (a
/// body), so skins that can share one do, their meshes stored in the shared bind shape (a
/// scene or a separate head is drawn rigid and stored as the file has it).
fn part(
    path: &Path,
    what: &str,
    meshes: &mut MeshStoreBuilder,
    by_palettes: bool,
) -> anyhow::Result<Part> {
    let asset = load_asset(path, what)?;
    let uses: Vec<(usize, Option<usize>)> =
        asset.instances.iter().map(|g| (g.mesh, g.skin)).collect();
    let palettes = if by_palettes {
        PaletteLayout::new(&asset.skins, asset.meshes.len(), &uses)
    } else {
        PaletteLayout::default()
    };
    let stored = meshes
        .add_in_bind_shapes(&asset, &palettes.bind_shapes)
        .with_context(|| format!("cannot prepare {} for drawing", path.display()))?;
    Ok(Part {
        asset,
        stored,
        palettes,
    })
}

/// A scene mesh wider than this (metres, along x or z) is ground.
pub const GROUND_EXTENT: f32 = 40.0;

/// The x/z bounds of one placed copy of a mesh.
fn placed_extent(
    mesh: &npc_core::asset::mesh::Mesh,
    placement: &glam::Mat4,
) -> Option<(Vec2, Vec2)> {
    let mut min = Vec2::splat(f32::INFINITY);
    let mut max = Vec2::splat(f32::NEG_INFINITY);
    for p in mesh.primitives.iter().flat_map(|p| &p.positions) {
        let w = placement.transform_point3(Vec3::from(*p));
        if w.is_finite() {
            min = min.min(Vec2::new(w.x, w.z));
            max = max.max(Vec2::new(w.x, w.z));
        }
    }
    (min.x <= max.x && min.y <= max.y).then_some((min, max))
}

/// The world bounding sphere of each instance of each instance group of `asset`.
fn instance_spheres(asset: &Asset) -> Vec<Vec<(Vec3, f32)>> {
    asset
        .instances
        .iter()
        .map(|g| {
            let (center, radius) = asset.meshes.get(g.mesh).map_or((Vec3::ZERO, 0.0), |mesh| {
                let mut min = Vec3::splat(f32::INFINITY);
                let mut max = Vec3::splat(f32::NEG_INFINITY);
                for p in mesh.primitives.iter().flat_map(|p| &p.positions) {
                    min = min.min(Vec3::from(*p));
                    max = max.max(Vec3::from(*p));
                }
                if min.x <= max.x {
                    ((min + max) * 0.5, (max - min).length() * 0.5)
                } else {
                    (Vec3::ZERO, 0.0)
                }
            });
            g.transforms
                .iter()
                .map(|m| {
                    let scale = m
                        .x_axis
                        .truncate()
                        .length()
                        .max(m.y_axis.truncate().length())
                        .max(m.z_axis.truncate().length());
                    (m.transform_point3(center), radius * scale)
                })
                .collect()
        })
        .collect()
}

/// The instance groups of `asset` that are ground.
fn ground_groups(asset: &Asset) -> Vec<usize> {
    asset
        .instances
        .iter()
        .enumerate()
        .filter(|(_, g)| {
            asset.meshes.get(g.mesh).is_some_and(|mesh| {
                g.transforms.iter().any(|m| {
                    placed_extent(mesh, m)
                        .is_some_and(|(min, max)| (max - min).max_element() > GROUND_EXTENT)
                })
            })
        })
        .map(|(i, _)| i)
        .collect()
}

/// The x/z extent of the scene's rigid meshes.
fn extent(asset: &Asset) -> Option<(Vec2, Vec2)> {
    let mut min = Vec2::splat(f32::INFINITY);
    let mut max = Vec2::splat(f32::NEG_INFINITY);
    for group in asset.instances.iter().filter(|g| g.skin.is_none()) {
        let Some(mesh) = asset.meshes.get(group.mesh) else {
            continue;
        };
        for (lo, hi) in group
            .transforms
            .iter()
            .filter_map(|m| placed_extent(mesh, m))
        {
            min = min.min(lo);
            max = max.max(hi);
        }
    }
    (min.x < max.x && min.y < max.y).then_some((min, max))
}

fn load_png(path: &Path) -> anyhow::Result<Texture> {
    let image = image::open(path)
        .with_context(|| format!("cannot read the sky face {}", path.display()))?
        .to_rgba8();
    Ok(Texture {
        width: image.width(),
        height: image.height(),
        rgba: image.into_raw(),
    })
}

/// The skies from `dir` (`sky_{day,noon,night}_{px,nx,py,ny,pz,nz}.png`).
pub fn load_skies(dir: &Path) -> anyhow::Result<[CubeFaces; 3]> {
    let mut skies = Vec::with_capacity(3);
    for sky in SKIES {
        let mut faces = Vec::with_capacity(6);
        for face in SKY_FACES {
            faces.push(load_png(&dir.join(format!("sky_{sky}_{face}.png")))?);
        }
        let faces: CubeFaces = faces
            .try_into()
            .map_err(|_| anyhow!("sky {sky}: six faces expected"))?;
        skies.push(faces);
    }
    skies
        .try_into()
        .map_err(|_| anyhow!("three skies expected"))
}

impl WorldContent {
    /// Loads the project's scene, avatars and skies; paths resolve against `project_file`.
    pub fn load(
        project: &Project,
        project_file: &Path,
        meshes: &mut MeshStoreBuilder,
    ) -> anyhow::Result<Self> {
        let resolve = |p: &Path| Project::resolve(project_file, p);
        let scene = part(&resolve(&project.scene.asset), "scene", meshes, false)?;
        let (min, max) = extent(&scene.asset).ok_or_else(|| {
            anyhow!(
                "the scene {} has no ground (no rigid mesh) for NPCs to stand on",
                resolve(&project.scene.asset).display()
            )
        })?;
        let ground = Ground {
            grid: scene.asset.collision_grid(),
            min,
            max,
        };
        let mut avatars: Vec<AvatarModel> = Vec::new();
        let mut by_files: HashMap<AvatarKey, usize> = HashMap::new();
        let mut npc_avatars = Vec::with_capacity(project.npcs.len());
        let mut clip_library = ClipLibrary::default();
        for npc in &project.npcs {
            let key = (
                resolve(&npc.avatar.body),
                npc.avatar.head.as_deref().map(resolve),
                npc.avatar.bones.clone(),
                npc.avatar
                    .clips
                    .iter()
                    .flat_map(|files| files.iter())
                    .map(|p| resolve(p))
                    .collect(),
                format!("{:?}", npc.avatar.springs),
            );
            if let Some(&i) = by_files.get(&key) {
                npc_avatars.push(i);
                continue;
            }
            let body = part(&key.0, &format!("body of {}", npc.id), meshes, true)?;
            let head = match &key.1 {
                Some(h) => Some(part(h, &format!("head of {}", npc.id), meshes, false)?),
                None => None,
            };
            let AvatarRig {
                skeleton,
                map: humanoid,
                clips,
            } = AvatarRig::load(&body.asset, &npc.avatar.bones, &key.3, &mut clip_library)
                .with_context(|| format!("cannot load the clips of {}", npc.id))?;
            for problem in &humanoid.problems {
                tracing::warn!("{}: avatar bones: {problem}", npc.id);
            }
            let head_joint = humanoid.joint(HumanoidBone::Head);
            if humanoid.joint(HumanoidBone::Hips).is_none() {
                tracing::warn!(
                    "{}: the body has no humanoid hips, so no clips can play on it; it keeps its idle life",
                    npc.id
                );
            }
            let face_asset = &head.as_ref().unwrap_or(&body).asset;
            let face_meshes = &face_asset.meshes;
            let (set, own_shapes) = OwnShapes::for_asset(npc.avatar.shapes.as_ref(), face_asset);
            if let Some(set) = set {
                tracing::info!(
                    "{}: its own shapes are {}; a starting table plays them",
                    npc.id,
                    set.label()
                );
            }
            for name in own_shapes.unknown_names(|n| {
                face_meshes
                    .iter()
                    .any(|m| m.target_names.iter().any(|t| t.raw.as_deref() == Some(n)))
            }) {
                tracing::warn!(
                    "{}: avatar.shapes names {name:?}, which the avatar does not have",
                    npc.id
                );
            }
            let rig = head
                .as_ref()
                .unwrap_or(&body)
                .asset
                .face_rig
                .clone()
                .with_aliases(face_meshes, &own_shapes.targets);
            let own_refs =
                npc_core::asset::face_rig::own_refs(face_meshes, &own_shapes.own_targets());
            let rest_bounds = head.is_none().then(|| body.asset.rest_bounds()).flatten();
            let (spring_bones, problems) = npc_core::body::avatar_springs(
                &body.asset.spring_bones,
                npc.avatar.springs.as_ref(),
                &skeleton,
            );
            for problem in problems {
                tracing::warn!("{}: avatar.{problem}", npc.id);
            }
            let springs = npc_core::body::spring::SpringRig::new(&spring_bones, &skeleton);
            let model = AvatarModel {
                springs,
                rig,
                vrm_expressions: face_asset.vrm_expressions.clone(),
                own_shapes,
                own_refs,
                pose_reader: PoseReader::new(&skeleton, &humanoid),
                body,
                head,
                skeleton,
                head_joint,
                rest_bounds,
                humanoid,
                clips,
            };
            if model.face_rig().arkit_coverage() == 0 && model.own_refs.is_empty() {
                tracing::warn!(
                    "{}: the avatar has no ARKit face targets; its face will not move (npc-player transfer gives it some)",
                    npc.id
                );
            }
            by_files.insert(key, avatars.len());
            npc_avatars.push(avatars.len());
            avatars.push(model);
        }
        let skies = load_skies(&resolve(&project.scene.sky))?;
        Ok(Self {
            ground_groups: ground_groups(&scene.asset),
            scene_spheres: instance_spheres(&scene.asset),
            scene,
            ground,
            avatars,
            npc_avatars,
            skies,
        })
    }
}
