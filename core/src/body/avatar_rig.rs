//! An avatar's body as every tool reads it (the player's world, `bake --body`, the studio's
//! body view, `check`): its skeleton, its humanoid map with the project's bone names, and
//! where its clips come from. One way, so that what one shows the others show.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::clips::{AvatarClips, ClipLibrary};
use super::humanoid::HumanoidMap;
use super::skeleton::Skeleton;
use crate::asset::Asset;

/// The rig of one avatar's body.
#[derive(Debug)]
pub struct AvatarRig {
    pub skeleton: Skeleton,
    /// The humanoid map; its `problems` are the project's bone names that do not fit.
    pub map: HumanoidMap,
    pub clips: AvatarClips,
}

impl AvatarRig {
    /// The rig of `body`, its humanoid bones named by `bones` where the project names them,
    /// its clips from `clip_files` (already resolved; none: its own, or the built-in body's,
    /// [`ClipLibrary::for_avatar`]); files read once per library.
    ///
    /// # Errors
    /// One of `clip_files` cannot be read as clips.
    pub fn load(
        body: &Asset,
        bones: &BTreeMap<String, String>,
        clip_files: &[PathBuf],
        library: &mut ClipLibrary,
    ) -> crate::asset::Result<Self> {
        let mut rig = Self::own(body, bones);
        rig.clips = library.for_avatar(body, &rig.skeleton, &rig.map, clip_files)?;
        Ok(rig)
    }

    /// The rig of `body` playing only its own clips (none read from elsewhere: what is left
    /// when its clip file cannot be read).
    #[must_use]
    pub fn own(body: &Asset, bones: &BTreeMap<String, String>) -> Self {
        let skeleton = Skeleton::of(body);
        let map = HumanoidMap::with_overrides(&skeleton, bones);
        Self {
            skeleton,
            map,
            clips: AvatarClips::Own,
        }
    }
}
