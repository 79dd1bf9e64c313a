//! Where a body's clips come from: its own file, or another rig's clips retargeted onto it
//! (the project's idle, walk and talk on an avatar that brings none), made once per avatar.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::clip_layer::ClipLayer;
use super::humanoid::HumanoidBone;
use super::humanoid::HumanoidMap;
use super::layer::{Activity, BodyLayer, LayerInput};
use super::retarget::ClipRig;
use super::retargeted::RetargetedClips;
use super::settings::BodySettings;
use super::skeleton::Skeleton;
use crate::asset::animation::Clip;
use crate::asset::{Asset, Transform};
use crate::project::BODY_CLIPS;

/// Where an avatar's clips come from.
#[derive(Debug, Clone)]
pub enum AvatarClips {
    /// Its own file's.
    Own,
    /// The built-in body's, retargeted (its file has none).
    BuiltIn(Arc<RetargetedClips>),
    /// The file the project names for it, retargeted.
    File(Arc<RetargetedClips>),
}

impl AvatarClips {
    /// The clips a body made with `settings` plays: `own` are the body file's.
    #[must_use]
    pub fn source<'a>(&'a self, own: &'a [Clip], settings: &BodySettings) -> ClipSource<'a> {
        match self {
            Self::BuiltIn(made) if settings.built_in_clips => ClipSource::Retargeted(made),
            Self::File(made) => ClipSource::Retargeted(made),
            Self::Own | Self::BuiltIn(_) => ClipSource::Own(own),
        }
    }
}

/// The rigs avatars play clips from, each loaded once.
#[derive(Debug, Default)]
pub struct ClipLibrary {
    built_in: Option<Arc<ClipRig>>,
    files: HashMap<PathBuf, Arc<ClipRig>>,
    /// Several files' clips on the first one's rig, by the list of files.
    merged: HashMap<Vec<PathBuf>, Arc<ClipRig>>,
}

impl ClipLibrary {
    /// Where the clips of an avatar with `body` (its `skeleton` and humanoid `map`) come
    /// from: the clip files it names, else its own when it has a clip for idle, walk or talk,
    /// else the built-in body's; another rig's clips are made into clips on the avatar's
    /// joints here, once. A rig without humanoid hips keeps its own (none can be retargeted
    /// onto it).
    pub fn for_avatar(
        &mut self,
        body: &Asset,
        skeleton: &Skeleton,
        map: &HumanoidMap,
        files: &[PathBuf],
    ) -> crate::asset::Result<AvatarClips> {
        if (files.is_empty() && has_activity_clip(&body.clips))
            || map.joint(HumanoidBone::Hips).is_none()
        {
            return Ok(AvatarClips::Own);
        }
        let made = |rig: &Arc<ClipRig>| Arc::new(RetargetedClips::new(rig, skeleton, map));
        Ok(match files {
            [] => AvatarClips::BuiltIn(made(self.built_in())),
            [path] => AvatarClips::File(made(&self.file(path)?)),
            several => AvatarClips::File(made(&self.files(several)?)),
        })
    }

    /// The built-in body's rig and clips (made once per library).
    fn built_in(&mut self) -> &Arc<ClipRig> {
        self.built_in
            .get_or_insert_with(|| Arc::new(crate::procedural::body::clip_rig()))
    }
}

impl ClipLibrary {
    /// The clips of the file `path` and the rig they were made on (read once per library).
    ///
    /// # Errors
    /// The file cannot be read as glTF.
    pub fn file(&mut self, path: &Path) -> crate::asset::Result<Arc<ClipRig>> {
        if let Some(rig) = self.files.get(path) {
            return Ok(Arc::clone(rig));
        }
        let asset = Asset::load(path)?;
        // Said once per file: the library reads each file once.
        for w in &asset.warnings {
            tracing::warn!("{}: {w}", path.display());
        }
        let rig = Arc::new(ClipRig::new(Skeleton::of(&asset), asset.clips));
        self.files.insert(path.to_owned(), Arc::clone(&rig));
        Ok(rig)
    }

    /// The clips of several files on the first file's rig (as one character's Mixamo
    /// downloads share theirs): each other file's channels moved onto the joint of the same
    /// name, those of joints the first rig lacks left out (read once per library).
    ///
    /// # Errors
    /// One of the files cannot be read.
    pub fn files(&mut self, paths: &[PathBuf]) -> crate::asset::Result<Arc<ClipRig>> {
        if let Some(rig) = self.merged.get(paths) {
            return Ok(Arc::clone(rig));
        }
        let rigs = paths
            .iter()
            .map(|p| self.file(p))
            .collect::<crate::asset::Result<Vec<_>>>()?;
        let Some((first, others)) = rigs.split_first() else {
            return Ok(Arc::clone(self.built_in()));
        };
        let mut clips = first.clips.clone();
        for other in others {
            clips.extend(other.clips.iter().map(|clip| {
                clip.on_nodes(|node| first.skeleton.index(other.skeleton.names.get(node)?))
            }));
        }
        let rig = Arc::new(ClipRig::new(first.skeleton.clone(), clips));
        self.merged.insert(paths.to_vec(), Arc::clone(&rig));
        Ok(rig)
    }
}

/// Whether `clips` has one for idle, walk or talk (a name containing it, any case).
#[must_use]
pub fn has_activity_clip(clips: &[Clip]) -> bool {
    clips.iter().any(|c| {
        let name = c.name.to_lowercase();
        BODY_CLIPS.iter().any(|activity| name.contains(activity))
    })
}

/// The clips a body is made with.
#[derive(Clone, Copy, Debug)]
pub enum ClipSource<'a> {
    /// Clips on the body's own nodes.
    Own(&'a [Clip]),
    /// Another rig's clips, made into clips on the body's joints through both humanoid maps.
    Retargeted(&'a RetargetedClips),
}

/// The clip layer of a body: its own clips, or another rig's made on its joints.
#[derive(Debug)]
pub struct Clips(ClipLayer);

impl Clips {
    #[must_use]
    pub fn new(source: ClipSource<'_>, map: &HumanoidMap, start_phase_s: f32) -> Self {
        let layer = match source {
            ClipSource::Own(clips) => ClipLayer::new(clips, start_phase_s),
            ClipSource::Retargeted(made) => {
                ClipLayer::new(&made.clips, start_phase_s).with_walk_rate(made.walk_rate)
            }
        };
        Self(layer.with_walk_in_place(map.joint(HumanoidBone::Hips)))
    }

    /// Whether a clip poses the body for `activity`.
    #[must_use]
    pub fn poses(&self, activity: Activity) -> bool {
        self.0.poses(activity)
    }

    /// Every clip the body can play (activities and gestures by name).
    #[must_use]
    pub fn all(&self) -> &[Clip] {
        self.0.all()
    }

    /// What the clips played in the last frame do to the face.
    #[must_use]
    pub fn face(&self) -> &crate::asset::clip_face::ClipFace {
        self.0.face()
    }

    /// Poses `locals` for this frame.
    pub fn apply(&mut self, skeleton: &Skeleton, input: &LayerInput, locals: &mut [Transform]) {
        self.0.apply(skeleton, input, locals);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use glam::Vec3;

    use super::*;
    use crate::asset::animation::{Channel, Interpolation, Property};

    /// The built-in walk with 1.4 m/s of travel put on its hips (as a Mixamo clip downloaded
    /// without "in place" has), played for two seconds on its own rig and on the same rig
    /// retargeted: the hips' greatest drift from where they rest.
    #[test]
    fn a_walk_with_root_motion_walks_in_place() {
        let rig = crate::procedural::body::clip_rig();
        let hips = rig.map.joint(HumanoidBone::Hips).unwrap();
        let rest = rig.skeleton.rest[hips].translation;
        let mut clips = rig.clips.clone();
        let walk = clips
            .iter_mut()
            .find(|c| c.name.to_lowercase().contains("walk"))
            .unwrap();
        walk.channels
            .retain(|c| !(c.node == hips && c.property == Property::Translation));
        let times: Vec<f32> = (0..=10)
            .map(|i| i as f32 * walk.duration_s / 10.0)
            .collect();
        let values: Vec<f32> = times
            .iter()
            .flat_map(|&t| (rest + Vec3::Z * 1.4 * t).to_array())
            .collect();
        walk.channels.push(Channel {
            node: hips,
            property: Property::Translation,
            interpolation: Interpolation::Linear,
            times: times.into(),
            values: values.into(),
            width: 3,
        });
        let travelling = RetargetedClips::new(
            &Arc::new(ClipRig::new(rig.skeleton.clone(), clips.clone())),
            &rig.skeleton,
            &rig.map,
        );
        for (name, source) in [
            ("own", ClipSource::Own(&clips)),
            ("retargeted", ClipSource::Retargeted(&travelling)),
        ] {
            let mut layer = Clips::new(source, &rig.map, 0.0);
            let mut locals = rig.skeleton.rest.clone();
            let mut drift = 0.0f32;
            for _ in 0..120 {
                let input = LayerInput {
                    dt_s: 1.0 / 60.0,
                    time_s: 0.0,
                    clip_pose: true,
                    inhale: false,
                    activity: Activity::Walk,
                    attention: None,
                    talk: None,
                    bearing: super::super::Bearing::default(),
                    detail: crate::body::BodyDetail::Full,
                    ground: None,
                };
                layer.apply(&rig.skeleton, &input, &mut locals);
                let at = locals[hips].translation;
                drift = drift.max(Vec3::new(at.x - rest.x, 0.0, at.z - rest.z).length());
            }
            assert!(drift < 0.02, "{name}: the hips drift {drift} m");
        }
    }

    /// Several clip files (one character's downloads) play on the first file's rig: every
    /// file's clips are there, each channel on the joint of its own joint's name; a joint the
    /// first rig lacks loses its channels.
    #[test]
    fn several_clip_files_play_on_the_first_files_rig() {
        let dir = tempfile::tempdir().unwrap();
        let parts = crate::procedural::head::head_parts();
        let bytes = crate::procedural::body::avatar_glb(&parts);
        let paths: Vec<PathBuf> = ["Idle.glb", "More.glb"]
            .iter()
            .map(|name| dir.path().join(name))
            .collect();
        for path in &paths {
            std::fs::write(path, &bytes).unwrap();
        }
        let mut library = ClipLibrary::default();
        let one = library.file(&paths[0]).unwrap();
        let both = library.files(&paths).unwrap();
        assert_eq!(both.clips.len(), 2 * one.clips.len());
        assert!(one.clips.len() >= 3);
        for (i, clip) in both.clips.iter().enumerate() {
            let original = &one.clips[i % one.clips.len()];
            assert_eq!(clip.name, original.name);
            assert_eq!(clip.channels, original.channels);
        }
        // Read once: the same list gives the same rig.
        assert!(Arc::ptr_eq(&both, &library.files(&paths).unwrap()));

        let hips = one.map.joint(HumanoidBone::Hips).unwrap();
        let walk = one.clips.iter().find(|c| c.name.contains("walk")).unwrap();
        let without_hips = walk.on_nodes(|n| (n != hips).then_some(n + 1));
        assert!(without_hips.channels.iter().all(|c| c.node != hips + 1));
        assert_eq!(
            without_hips.channels.len(),
            walk.channels.iter().filter(|c| c.node != hips).count()
        );
        assert!(walk.channels.iter().any(|c| c.node == hips));
    }
}
