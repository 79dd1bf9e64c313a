//! The body tab's bake: the selected character's body over the timeline's line (or a stretch
//! of idle when there is none), through the same `bake_body` that `npc-player bake --body`
//! writes, so the plots show what the player plays. The avatar is loaded once per file (a new
//! file is read off the UI thread, the body shown until it is ready); when it cannot be read,
//! the built-in body stands in and the reason is shown.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use npc_core::LineCue;
use npc_core::agent::cues::Behaviour;
use npc_core::asset::Asset;
use npc_core::asset::animation::Clip;
use npc_core::body::{
    AvatarClips, AvatarRig, BodyBake, BodyBakeOptions, ClipLibrary, HumanoidBone, HumanoidMap,
    PoseReader, Skeleton, bake_body,
};
use npc_core::project::{Npc, Project};

use crate::jobs::Job;

/// Frames per second of the body bake (the plots need no more).
pub const BODY_FPS: f64 = 30.0;
/// How long the body is baked when no line is on the timeline, ms.
pub const IDLE_MS: f64 = 20_000.0;

/// What a rig is loaded from: the body file, its clip file and its bone overrides.
/// Body, clips file, bone names, named springs.
type RigKey = (
    Option<PathBuf>,
    Vec<PathBuf>,
    BTreeMap<String, String>,
    Option<npc_core::body::NamedSprings>,
);

/// A rig ready to bake.
#[derive(Debug)]
struct Rig {
    key: RigKey,
    /// The file the rig was read from; `None` when the built-in body stands in.
    file: Option<PathBuf>,
    skeleton: Skeleton,
    map: HumanoidMap,
    /// Reads the humanoid bones' turns off the baked poses (for the live link).
    reader: PoseReader,
    own_clips: Vec<Clip>,
    clips: AvatarClips,
    /// Its spring bones (hair, skirts), as the player swings them.
    springs: npc_core::body::spring::SpringRig,
}

/// The body tab's state.
#[derive(Debug)]
pub struct BodyPreview {
    rig: Option<Rig>,
    /// A new avatar file being read for the rig, off the UI thread.
    reading: Option<(RigKey, Job<Result<Asset, String>>)>,
    library: ClipLibrary,
    pub bake: Option<BodyBake>,
    /// Bones whose angles are plotted, per layer.
    pub plot_bones: Vec<HumanoidBone>,
    /// Why the NPC's own body is not the one baked, when it is not.
    pub note: Option<String>,
    /// Whether idle life plays (Play with no line on the timeline), and where it is, ms.
    pub idle_playing: bool,
    pub idle_ms: f64,
}

impl Default for BodyPreview {
    fn default() -> Self {
        Self {
            rig: None,
            reading: None,
            library: ClipLibrary::default(),
            bake: None,
            plot_bones: vec![HumanoidBone::UpperChest, HumanoidBone::LeftUpperArm],
            note: None,
            idle_playing: false,
            idle_ms: 0.0,
        }
    }
}

impl BodyPreview {
    /// Bakes the body of `npc`, the character shown (`project_file` resolves its paths), for
    /// `duration_ms`, talking for `talking_ms` with the gestures and breaths of `line` (and what
    /// its behaviour asks for), seeded with `seed`.
    #[allow(clippy::too_many_arguments)]
    pub fn rebake(
        &mut self,
        project: &Project,
        npc: Option<&Npc>,
        project_file: Option<&Path>,
        duration_ms: f64,
        talking_ms: f64,
        line: Option<(&LineCue, &Behaviour)>,
        seed: u64,
    ) {
        let resolve = |path: &Path| match project_file {
            Some(p) => Project::resolve(p, path),
            None => path.to_owned(),
        };
        let key = (
            npc.map(|n| resolve(&n.avatar.body)),
            npc.and_then(|n| n.avatar.clips.as_ref())
                .iter()
                .flat_map(|files| files.iter())
                .map(|p| resolve(p))
                .collect(),
            npc.map(|n| n.avatar.bones.clone()).unwrap_or_default(),
            npc.and_then(|n| n.avatar.springs.clone()),
        );
        if self.rig.as_ref().map(|r| &r.key) != Some(&key) {
            self.read(key);
        }
        let duration_ms = if duration_ms > 0.0 {
            duration_ms
        } else {
            IDLE_MS
        };
        self.bake = self.bake_at(project, npc, BODY_FPS, duration_ms, talking_ms, line, seed);
    }

    /// The loaded rig's body baked at `fps` over `duration_ms` with the project's settings for
    /// `npc` (what an export of the line carries); `None` before any rig is loaded.
    #[must_use]
    #[allow(clippy::too_many_arguments)]
    pub fn bake_at(
        &self,
        project: &Project,
        npc: Option<&Npc>,
        fps: f64,
        duration_ms: f64,
        talking_ms: f64,
        line: Option<(&LineCue, &Behaviour)>,
        seed: u64,
    ) -> Option<BodyBake> {
        let rig = self.rig.as_ref()?;
        let settings = npc.map_or(&project.body, |n| project.body_settings(&n.id));
        Some(bake_body(
            &rig.skeleton,
            &rig.map,
            &rig.springs,
            rig.clips.source(&rig.own_clips, settings),
            settings,
            &BodyBakeOptions {
                fps,
                duration_ms,
                talking_ms,
                seed,
                line: line.map(|l| l.0.clone()),
                emotion: line.and_then(|l| l.1.emotion),
                gestures: line.map(|l| l.1.gestures.clone()).unwrap_or_default(),
            },
        ))
    }

    /// The names of the clips the rig plays, which a line may ask for as gestures.
    #[must_use]
    pub fn clip_names(&self) -> Vec<String> {
        let Some(rig) = &self.rig else {
            return Vec::new();
        };
        let clips = match &rig.clips {
            AvatarClips::Own => rig.own_clips.as_slice(),
            AvatarClips::BuiltIn(r) | AvatarClips::File(r) => r.clips.as_slice(),
        };
        clips.iter().map(|c| c.name.clone()).collect()
    }

    /// The avatar file the body is baked from; `None` for the built-in body.
    #[must_use]
    pub fn avatar_file(&self) -> Option<&Path> {
        self.rig.as_ref()?.file.as_deref()
    }

    /// Moves idle playback on by `dt_s`, round the idle bake.
    pub fn advance_idle(&mut self, dt_s: f64) {
        if self.idle_playing && dt_s.is_finite() {
            self.idle_ms = (self.idle_ms + dt_s.max(0.0) * 1000.0).rem_euclid(IDLE_MS);
        }
    }

    /// The body's node transforms at `t_ms`, when the view labelled `view_label` shows the
    /// file the body was baked from (the same nodes).
    #[must_use]
    pub fn pose_for(&self, view_label: &str, t_ms: f64) -> Option<&[npc_core::asset::Transform]> {
        let file = self.rig.as_ref()?.key.0.as_ref()?;
        if file.display().to_string() != view_label {
            return None;
        }
        let bake = self.bake.as_ref()?;
        let i = bake
            .times_ms
            .partition_point(|&t| t <= t_ms)
            .saturating_sub(1);
        bake.poses.get(i).map(Vec::as_slice)
    }

    /// The body as baked at `t_ms`, with the rig that reads it: what the live link streams.
    #[must_use]
    pub fn streamed(&self, t_ms: f64) -> Option<npc_io::BodyFrame<'_>> {
        let rig = self.rig.as_ref()?;
        let bake = self.bake.as_ref()?;
        let i = bake
            .times_ms
            .partition_point(|&t| t <= t_ms)
            .saturating_sub(1);
        Some(npc_io::BodyFrame {
            reader: &rig.reader,
            skeleton: &rig.skeleton,
            locals: bake.poses.get(i)?,
        })
    }

    /// The rig `key` names, or the built-in body with a note saying why.
    /// Has the rig made from `key`'s files: at once for the first rig or the built-in body,
    /// else read off the UI thread (the body shown stays until [`Self::poll`] has it).
    fn read(&mut self, key: RigKey) {
        let path = match (&self.rig, &key.0) {
            (Some(_), Some(path)) => path.clone(),
            _ => {
                self.reading = None;
                let asset = key.0.as_deref().map(read_asset);
                self.rig = Some(self.made(key, asset));
                return;
            }
        };
        if self.reading.as_ref().is_some_and(|(k, _)| *k == key) {
            return;
        }
        let mut job = Job::default();
        let what = format!("reading the body {}", file_label(&path));
        let read = path.clone();
        match job.start(what, move || read_asset(&read)) {
            Ok(()) => self.reading = Some((key, job)),
            Err(_) => self.rig = Some(self.made(key, Some(read_asset(&path)))),
        }
    }

    /// Takes the rig read off the UI thread once it is ready: whether a new one was taken (the
    /// body is to be baked again).
    pub fn poll(&mut self) -> bool {
        let Some((_, job)) = self.reading.as_mut() else {
            return false;
        };
        let Some(read) = job.take() else {
            return false;
        };
        self.take(read)
    }

    /// Waits for the rig being read (the command line, tests): whether a new one was taken.
    pub fn wait(&mut self) -> bool {
        match self.reading.as_mut().and_then(|(_, job)| job.wait()) {
            Some(read) => self.take(read),
            None => false,
        }
    }

    /// The reading running and for how long, for the status bar.
    #[must_use]
    pub fn reading(&self) -> Option<(&str, std::time::Duration)> {
        self.reading.as_ref().and_then(|(_, job)| job.running())
    }

    fn take(&mut self, read: Result<Result<Asset, String>, String>) -> bool {
        let Some((key, _)) = self.reading.take() else {
            return false;
        };
        self.rig = Some(self.made(key, Some(read.and_then(|r| r))));
        true
    }

    /// The rig of `key` from its avatar as read (the built-in body when there is none or it
    /// could not be read: the reason goes in the note).
    fn made(&mut self, key: RigKey, asset: Option<Result<Asset, String>>) -> Rig {
        self.note = None;
        match (asset, &key.0) {
            (Some(Ok(asset)), Some(path)) => {
                let AvatarRig {
                    skeleton,
                    map,
                    clips,
                } = AvatarRig::load(&asset, &key.2, &key.1, &mut self.library).unwrap_or_else(
                    |e| {
                        self.note = Some(format!("its clips cannot be read ({e})"));
                        AvatarRig::own(&asset, &key.2)
                    },
                );
                let (spring_bones, problems) =
                    npc_core::body::avatar_springs(&asset.spring_bones, key.3.as_ref(), &skeleton);
                if let Some(problem) = problems.first() {
                    self.note = Some(format!("avatar.{problem}"));
                }
                return Rig {
                    file: Some(path.clone()),
                    key,
                    springs: npc_core::body::spring::SpringRig::new(&spring_bones, &skeleton),
                    reader: PoseReader::new(&skeleton, &map),
                    skeleton,
                    map,
                    own_clips: asset.clips,
                    clips,
                };
            }
            (Some(Err(e)), Some(path)) => {
                self.note = Some(format!(
                    "{} cannot be read ({e}); the built-in body is shown",
                    path.display()
                ));
            }
            _ => {
                self.note = Some("the roster is empty; the built-in body is shown".to_owned());
            }
        }
        let rig = npc_core::procedural::body::clip_rig();
        Rig {
            key,
            file: None,
            springs: npc_core::body::spring::SpringRig::default(),
            reader: PoseReader::new(&rig.skeleton, &rig.map),
            map: rig.map,
            skeleton: rig.skeleton,
            own_clips: rig.clips,
            clips: AvatarClips::Own,
        }
    }
}

/// Reads an avatar file for its rig.
fn read_asset(path: &Path) -> Result<Asset, String> {
    Asset::load(path).map_err(|e| e.to_string())
}

/// A file's name, for the status bar.
fn file_label(path: &Path) -> String {
    path.file_name()
        .unwrap_or(path.as_os_str())
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_view_of_the_baked_file_gets_its_pose_at_the_playhead() {
        let dir = tempfile::tempdir().unwrap();
        npc_core::procedural::generate::generate(&dir.path().join("assets")).unwrap();
        let project_file = dir.path().join("p.ron");
        let project = npc_core::project::demo_project();
        let mut preview = BodyPreview::default();
        preview.rebake(
            &project,
            project.npcs.first(),
            Some(&project_file),
            3000.0,
            2000.0,
            None,
            1,
        );
        assert!(preview.note.is_none(), "{:?}", preview.note);
        let file = dir.path().join("assets/avatar.glb").display().to_string();
        let early = preview.pose_for(&file, 0.0).unwrap().to_vec();
        let later = preview.pose_for(&file, 2500.0).unwrap();
        assert_eq!(early.len(), later.len());
        assert_ne!(early.as_slice(), later, "the body moves over the bake");
        assert!(preview.pose_for("built-in head", 0.0).is_none());
    }
}
