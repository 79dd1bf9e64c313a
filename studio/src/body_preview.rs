//! The body tab's bake: the project's first NPC's body over the timeline's line (or a stretch
//! of idle when there is none), through the same `bake_body` that `npc-player bake --body`
//! writes, so the plots show what the player plays. The avatar is loaded once per file; when it
//! cannot be read, the built-in body stands in and the reason is shown.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use npc_core::asset::Asset;
use npc_core::asset::animation::Clip;
use npc_core::body::{
    AvatarClips, BodyBake, BodyBakeOptions, ClipLibrary, HumanoidBone, HumanoidMap, Skeleton,
    bake_body,
};
use npc_core::project::Project;

/// Frames per second of the body bake (the plots need no more).
pub const BODY_FPS: f64 = 30.0;
/// How long the body is baked when no line is on the timeline, ms.
pub const IDLE_MS: f64 = 20_000.0;

/// What a rig is loaded from: the body file, its clip file and its bone overrides.
type RigKey = (Option<PathBuf>, Option<PathBuf>, BTreeMap<String, String>);

/// A rig ready to bake.
#[derive(Debug)]
struct Rig {
    key: RigKey,
    skeleton: Skeleton,
    map: HumanoidMap,
    own_clips: Vec<Clip>,
    clips: AvatarClips,
}

/// The body tab's state.
#[derive(Debug)]
pub struct BodyPreview {
    rig: Option<Rig>,
    library: ClipLibrary,
    pub bake: Option<BodyBake>,
    /// Bones whose angles are plotted, per layer.
    pub plot_bones: Vec<HumanoidBone>,
    /// Why the NPC's own body is not the one baked, when it is not.
    pub note: Option<String>,
}

impl Default for BodyPreview {
    fn default() -> Self {
        Self {
            rig: None,
            library: ClipLibrary::default(),
            bake: None,
            plot_bones: vec![HumanoidBone::UpperChest, HumanoidBone::LeftUpperArm],
            note: None,
        }
    }
}

impl BodyPreview {
    /// Bakes the body of the project's first NPC (`project_file` resolves its paths) for
    /// `duration_ms`, talking for `talking_ms` with a breath before each of the phrases at
    /// `phrase_starts_ms`, seeded with `seed`.
    #[allow(clippy::too_many_arguments)]
    pub fn rebake(
        &mut self,
        project: &Project,
        project_file: Option<&Path>,
        duration_ms: f64,
        talking_ms: f64,
        phrase_starts_ms: Vec<f64>,
        seed: u64,
    ) {
        let npc = project.npcs.first();
        let resolve = |path: &Path| match project_file {
            Some(p) => Project::resolve(p, path),
            None => path.to_owned(),
        };
        let key = (
            npc.map(|n| resolve(&n.avatar.body)),
            npc.and_then(|n| n.avatar.clips.as_deref().map(resolve)),
            npc.map(|n| n.avatar.bones.clone()).unwrap_or_default(),
        );
        if self.rig.as_ref().map(|r| &r.key) != Some(&key) {
            self.rig = Some(self.load(key));
        }
        let Some(rig) = &self.rig else { return };
        let settings = npc.map_or(&project.body, |n| project.body_settings(&n.id));
        let duration_ms = if duration_ms > 0.0 {
            duration_ms
        } else {
            IDLE_MS
        };
        self.bake = Some(bake_body(
            &rig.skeleton,
            &rig.map,
            rig.clips.source(&rig.own_clips, settings),
            settings,
            &BodyBakeOptions {
                fps: BODY_FPS,
                duration_ms,
                talking_ms,
                seed,
                phrase_starts_ms,
            },
        ));
    }

    /// The rig `key` names, or the built-in body with a note saying why.
    fn load(&mut self, key: RigKey) -> Rig {
        self.note = None;
        if let Some(path) = &key.0 {
            match Asset::load(path) {
                Ok(asset) => {
                    let skeleton = Skeleton::of(&asset);
                    let map = HumanoidMap::with_overrides(&skeleton, &key.2);
                    let clips = match self.library.for_avatar(&asset, &map, key.1.as_deref()) {
                        Ok(c) => c,
                        Err(e) => {
                            self.note = Some(format!("its clips cannot be read ({e})"));
                            AvatarClips::Own
                        }
                    };
                    return Rig {
                        key,
                        skeleton,
                        map,
                        own_clips: asset.clips,
                        clips,
                    };
                }
                Err(e) => {
                    self.note = Some(format!(
                        "{} cannot be read ({e}); the built-in body is shown",
                        path.display()
                    ));
                }
            }
        } else {
            self.note = Some("the roster is empty; the built-in body is shown".to_owned());
        }
        let rig = npc_core::procedural::body::clip_rig();
        Rig {
            key,
            map: rig.map,
            skeleton: rig.skeleton,
            own_clips: rig.clips,
            clips: AvatarClips::Own,
        }
    }
}
