//! Checking a project against the files it names: every asset loads, avatars have faces and
//! clips, the sky is complete.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::Project;
use crate::anim::OwnShapes;
use crate::arkit::ARKIT_TARGET_COUNT;
use crate::asset::Asset;
use crate::body::humanoid::CORE_BONES;
use crate::body::{ClipLibrary, HumanoidBone, HumanoidMap, Skeleton};

/// The clips a body needs for the NPC states.
pub const BODY_CLIPS: [&str; 3] = ["idle", "walk", "talk"];
/// The sky faces, in cube layer order.
pub const SKY_FACES: [&str; 6] = ["px", "nx", "py", "ny", "pz", "nz"];
/// The three skies blended over the day.
pub const SKIES: [&str; 3] = ["day", "noon", "night"];

/// What a check found: problems fail it, warnings do not.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckReport {
    pub problems: Vec<String>,
    pub warnings: Vec<String>,
}

impl CheckReport {
    #[must_use]
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// What a check needs to know about one loaded file.
#[derive(Clone, Debug)]
struct Facts {
    /// Meshes it draws (an FBX file's are not read).
    meshes: usize,
    skinned: bool,
    clips: Vec<String>,
    arkit_coverage: usize,
    arkit_missing: Vec<&'static str>,
    has_ground: bool,
    skeleton: Skeleton,
    /// Every morph target name, as in the file.
    target_names: Vec<String>,
    vrm_expressions: crate::asset::VrmExpressions,
}

impl Facts {
    fn of(asset: &Asset) -> Self {
        Self {
            meshes: asset.meshes.len(),
            skinned: !asset.skins.is_empty(),
            clips: asset.clips.iter().map(|c| c.name.clone()).collect(),
            arkit_coverage: asset.face_rig.arkit_coverage(),
            arkit_missing: asset.face_rig.arkit_missing_names(),
            has_ground: !asset.collision_grid().is_empty(),
            skeleton: Skeleton::of(asset),
            target_names: crate::asset::face_rig::target_names(&asset.meshes),
            vrm_expressions: asset.vrm_expressions.clone(),
        }
    }
}

/// Checks the project and every file it references. `project_file` is where the project was
/// read from; relative paths resolve against its folder.
#[must_use]
pub fn check_assets(project: &Project, project_file: &Path) -> CheckReport {
    let mut report = CheckReport {
        problems: project.problems(),
        warnings: Vec::new(),
    };
    let mut loaded: BTreeMap<PathBuf, Option<Facts>> = BTreeMap::new();
    let mut load = |relative: &Path, what: &str, report: &mut CheckReport| -> Option<Facts> {
        let path = Project::resolve(project_file, relative);
        loaded
            .entry(path.clone())
            .or_insert_with(|| match Asset::load(&path) {
                Ok(asset) => Some(Facts::of(&asset)),
                Err(e) => {
                    report
                        .problems
                        .push(format!("{what} {}: {e}", relative.display()));
                    None
                }
            })
            .clone()
    };

    if let Some(scene) = load(&project.scene.asset, "scene", &mut report)
        && !scene.has_ground
    {
        report.warnings.push(format!(
            "scene {}: no ground to stand on; NPCs keep their spawn height",
            project.scene.asset.display()
        ));
    }
    let missing_sky: Vec<String> = SKIES
        .iter()
        .flat_map(|sky| {
            SKY_FACES
                .iter()
                .map(move |face| format!("sky_{sky}_{face}.png"))
        })
        .filter(|file| !Project::resolve(project_file, &project.scene.sky.join(file)).is_file())
        .collect();
    if !missing_sky.is_empty() {
        report.problems.push(format!(
            "sky images missing in {} ({} of {}): {}",
            project.scene.sky.display(),
            missing_sky.len(),
            SKIES.len() * SKY_FACES.len(),
            missing_sky.join(", ")
        ));
    }
    if project.npcs.is_empty() {
        report
            .warnings
            .push("the roster has no NPCs: nobody can speak".to_owned());
    }
    let mut clip_files = ClipLibrary::default();
    for npc in &project.npcs {
        let body = load(
            &npc.avatar.body,
            &format!("npc {}: body", npc.id),
            &mut report,
        );
        let head = match &npc.avatar.head {
            Some(h) => load(h, &format!("npc {}: head", npc.id), &mut report),
            None => None,
        };
        let Some(body) = body else { continue };
        if body.meshes == 0 {
            report.problems.push(format!(
                "npc {}: the body {} has nothing to draw (an FBX file gives skeletons and clips \
                 only, as avatar.clips); bring the avatar as glTF or VRM",
                npc.id,
                npc.avatar.body.display()
            ));
        }
        if !body.skinned {
            report.warnings.push(format!(
                "npc {}: the body has no skin; it will not move",
                npc.id
            ));
        }
        let missing_clips: Vec<&str> = BODY_CLIPS
            .into_iter()
            .filter(|clip| !body.clips.iter().any(|c| c.to_lowercase().contains(clip)))
            .collect();
        if let Some(files) = &npc.avatar.clips {
            // Read as the world reads them, so that a file the world would refuse fails here.
            for file in files.iter() {
                let path = Project::resolve(project_file, file);
                match clip_files.file(&path) {
                    Ok(rig) if rig.clips.is_empty() => report.warnings.push(format!(
                        "npc {}: avatar.clips {} has no animations in it",
                        npc.id,
                        path.display()
                    )),
                    Ok(rig) if rig.map.joint(HumanoidBone::Hips).is_none() => {
                        report.problems.push(format!(
                            "npc {}: avatar.clips {}: no humanoid hips found in its skeleton, so \
                         its clips cannot be played on a humanoid",
                            npc.id,
                            path.display()
                        ));
                    }
                    Ok(_) => {}
                    Err(e) => report.problems.push(format!(
                        "npc {}: avatar.clips {} cannot be read: {e}",
                        npc.id,
                        path.display()
                    )),
                }
            }
        } else if missing_clips.len() == BODY_CLIPS.len() {
            report.warnings.push(format!(
                "npc {}: the body has no idle, walk or talk clip; it plays the built-in body's, retargeted",
                npc.id
            ));
        } else {
            for clip in missing_clips {
                report.warnings.push(format!(
                    "npc {}: the body has no `{clip}` clip; its idle plays instead",
                    npc.id
                ));
            }
        }
        if let Some(named) = &npc.avatar.springs {
            let (_, problems) = named.resolve(&Default::default(), &body.skeleton);
            for problem in problems {
                report
                    .problems
                    .push(format!("npc {}: avatar.{problem}", npc.id));
            }
        }
        if body.skinned {
            let map = HumanoidMap::with_overrides(&body.skeleton, &npc.avatar.bones);
            for problem in &map.problems {
                report
                    .problems
                    .push(format!("npc {}: avatar bones: {problem}", npc.id));
            }
            let missing = map.missing(&CORE_BONES);
            if !missing.is_empty() {
                let names: Vec<&str> = missing.into_iter().map(HumanoidBone::name).collect();
                report.warnings.push(format!(
                    "npc {}: the body has no humanoid {} (name joints in the avatar's `bones`); \
                     the layers that need them leave it still",
                    npc.id,
                    names.join(", ")
                ));
            }
        }
        let face = head.as_ref().unwrap_or(&body);
        let coverage = face.arkit_coverage;
        let (set, shapes) = OwnShapes::for_avatar(
            npc.avatar.shapes.as_ref(),
            &face.target_names,
            &face.vrm_expressions,
        );
        for problem in shapes.problems() {
            report
                .problems
                .push(format!("npc {}: avatar.{problem}", npc.id));
        }
        for name in shapes.unknown_names(|n| face.target_names.iter().any(|t| t == n)) {
            report.problems.push(format!(
                "npc {}: avatar.shapes names the target {name:?}, which the avatar does not have",
                npc.id
            ));
        }
        if let Some(set) = set {
            report.warnings.push(format!(
                "npc {}: no ARKit mouth; a starting table plays its {} (avatar.shapes to tune it)",
                npc.id,
                set.label()
            ));
        }
        let talks_on_own = !shapes.viseme_targets().is_empty();
        if coverage == 0 && talks_on_own {
            // Its own shapes talk; gaze and blinks play where avatar.shapes.targets says.
        } else if coverage == 0 {
            report.problems.push(format!(
                "npc {}: the avatar has no ARKit blend shapes, so its face cannot move; \
                 `npc-player transfer --target {} --out FACE.glb` gives it the project's",
                npc.id,
                npc.avatar
                    .head
                    .as_ref()
                    .unwrap_or(&npc.avatar.body)
                    .display()
            ));
        } else if coverage < ARKIT_TARGET_COUNT {
            report.warnings.push(format!(
                "npc {}: {coverage}/{ARKIT_TARGET_COUNT} ARKit targets; missing {}",
                npc.id,
                face.arkit_missing.join(", ")
            ));
        }
    }
    if !Project::resolve(project_file, &project.agent_dir).is_dir() {
        report.warnings.push(format!(
            "agent directory {} does not exist yet; it is created on start",
            project.agent_dir.display()
        ));
    }
    report
}
