//! The world a project plays in: the scene, its ground and skies, and the NPCs of the roster
//! standing, walking and talking in it. Updating is separate from drawing: [`World::update`]
//! advances state, [`World::draw`] fills a renderer draw list from it.

mod animation_rate;
mod content;
mod draw;
mod face_weights;
mod npc;
mod speakers;

use std::path::Path;

use crate::runtime::LineId;
use anyhow::Context;
use glam::Vec3;
use npc_core::LineCue;
use npc_core::agent::cues::{Behaviour, Target};
use npc_core::daylight::daylight;
use npc_core::project::Project;
use rayon::prelude::*;

pub use content::{AvatarModel, Ground, WorldContent};
pub use face_weights::FaceWeights;
pub use npc::NpcActor;
use npc_render::{Camera, FrameView, MeshStoreBuilder, ShadowReach};

/// Fewest NPCs worth a thread of their own when animating.
const NPCS_PER_THREAD: usize = 32;

/// Eye height of the first-person camera above the ground, metres.
pub const EYE_HEIGHT: f32 = 1.7;

/// Closer than this, another NPC is this one (it does not attend to itself), metres.
const SELF_M: f32 = 0.1;
/// Listeners look at a speaker closer than this, metres.
const LISTEN_REACH_M: f32 = 8.0;
/// Where on a speaker listeners look: about face height above its feet, metres.
const SPEAKER_FACE_HEIGHT_M: f32 = 1.55;
/// NPCs look at the player closer than this (when no speaker holds them), metres.
const PLAYER_NOTICED_M: f32 = 12.0;
/// The first look: this far to the side of the group and behind it, at this height.
const OVERVIEW_SIDE_M: f32 = 1.5;
const OVERVIEW_BACK_M: f32 = 6.0;
const OVERVIEW_LOOK_HEIGHT_M: f32 = 1.3;
/// The close-up: this far in front of the face, aimed this far above the head joint, with a
/// narrow lens.
const CLOSEUP_DISTANCE_M: f32 = 0.6;
const CLOSEUP_ABOVE_HEAD_M: f32 = 0.1;
const CLOSEUP_FOV_DEG: f32 = 35.0;
/// How far the top of an adult's head rises above its head joint, metres: a head that rises
/// farther is framed from proportionally farther, up to this many times.
const ADULT_HEAD_ABOVE_JOINT_M: f32 = 0.25;
const MAX_CLOSEUP_SCALE: f32 = 4.0;
/// A whole-body view: how much of the avatar's height is kept clear around it, and the lens.
const BODY_VIEW_FOV_DEG: f32 = 30.0;
const BODY_VIEW_MARGIN: f32 = 1.2;
/// Eye height an avatar's head joint is assumed to be at for sizing a whole-body view
/// (share of the standing height).
const HEAD_JOINT_SHARE_OF_HEIGHT: f32 = 0.9;
/// The least height a whole-body view frames, metres.
const MIN_BODY_VIEW_HEIGHT_M: f32 = 0.3;
/// The sun's shadow covers this far around a point this far ahead of the camera, metres.
const SHADOW_FOCUS_AHEAD_M: f32 = 12.0;
const SHADOW_REACH_M: f32 = 30.0;

/// The project's world.
#[derive(Debug)]
pub struct World {
    pub project: Project,
    pub content: WorldContent,
    pub npcs: Vec<NpcActor>,
    /// Fraction of the day (0 midnight, 0.5 noon).
    pub time_of_day: f64,
    /// Whether the clock advances the time of day (agents may set it instead).
    pub clock_runs: bool,
    /// Where the player's camera was at the last update (what `player` targets mean).
    pub camera_position: Vec3,
    /// Whether NPCs far from the camera that no line or person holds animate at a lower rate
    /// (see [`animation_rate`]); on unless turned off.
    pub reduced_rates: bool,
    /// Whether those NPCs also work out less of their faces and hands
    /// ([`animation_rate::detail`]); on unless turned off.
    pub reduced_detail: bool,
    /// Where each coarser level of detail begins, metres for a 60 degree lens
    /// (`LOD_DISTANCES` of the drawing unless changed, for timing).
    pub lod_distances: [f32; npc_render::LOD_COUNT - 1],
}

impl World {
    /// Loads the project at `project_file` and everything it names; the meshes are added to
    /// `meshes` for the renderer. Each NPC's face is seeded by [`Project::face_seed`].
    pub fn load(project_file: &Path, meshes: &mut MeshStoreBuilder) -> anyhow::Result<Self> {
        let project = Project::load(project_file)?;
        Self::from_project(project, project_file, meshes)
    }

    /// As [`Self::load`], for a project already read (paths resolve against `project_file`).
    pub fn from_project(
        project: Project,
        project_file: &Path,
        meshes: &mut MeshStoreBuilder,
    ) -> anyhow::Result<Self> {
        let problems = project.problems();
        if !problems.is_empty() {
            anyhow::bail!(
                "{}: the project is not usable:\n  {}",
                project_file.display(),
                problems.join("\n  ")
            );
        }
        let content = WorldContent::load(&project, project_file, meshes)
            .with_context(|| format!("cannot load the world of {}", project_file.display()))?;
        let npcs = project
            .npcs
            .iter()
            .enumerate()
            .map(|(i, npc)| {
                let avatar = content.npc_avatars[i];
                let position = content.ground.map_to_world(npc.spawn[0], npc.spawn[1]);
                NpcActor::new(
                    &npc.id,
                    avatar,
                    &content.avatars[avatar],
                    position,
                    // The NPC in hand (found again by id, a crowd's load grew with its square).
                    project.face_settings_of(Some(npc)),
                    project.body_settings_of(Some(npc)),
                    project.face_seed(&npc.id),
                )
                .listening(&project.listen)
            })
            .collect();
        let mut world = Self {
            time_of_day: project.scene.start_time,
            clock_runs: true,
            camera_position: Vec3::ZERO,
            reduced_rates: true,
            reduced_detail: true,
            lod_distances: draw::LOD_DISTANCES,
            project,
            content,
            npcs,
        };
        world.face_each_other();
        Ok(world)
    }

    /// Turns every NPC toward the middle of the group (as they stand at the start).
    fn face_each_other(&mut self) {
        let centre = self.centre();
        for npc in &mut self.npcs {
            let d = centre - npc.position;
            if d.length_squared() > 1e-4 {
                npc.heading = d.x.atan2(d.z);
            }
        }
    }

    /// The middle of the NPCs (the map centre when there are none).
    #[must_use]
    pub fn centre(&self) -> Vec3 {
        if self.npcs.is_empty() {
            return self.content.ground.map_to_world(0.5, 0.5);
        }
        self.npcs.iter().map(|n| n.position).sum::<Vec3>() / self.npcs.len() as f32
    }

    /// The NPC with this speaker id.
    #[must_use]
    pub fn npc_index(&self, id: &str) -> Option<usize> {
        self.npcs.iter().position(|n| n.id == id)
    }

    /// NPC `i` starts speaking `line` as `behaviour` asks; the others within earshot listen.
    pub fn speak(&mut self, i: usize, line: LineId, cue: &LineCue, behaviour: &Behaviour) {
        let targets: Vec<Option<Vec3>> = behaviour
            .gestures
            .iter()
            .map(|g| g.target.as_ref().and_then(|t| self.target_position(t)))
            .collect();
        let Some(speaker) = self.npcs.get_mut(i) else {
            return;
        };
        speaker.speak(line, cue, behaviour, &targets);
        let at = speaker.position;
        if let Some(Target::Npc(id)) = &behaviour.look_at
            && let Some(j) = self.npc_index(id)
            && j != i
        {
            self.npcs[j].face.addressed();
        }
        for (j, npc) in self.npcs.iter_mut().enumerate() {
            if j != i && npc.position.distance(at) < LISTEN_REACH_M {
                npc.listen(cue);
            }
        }
    }

    /// The person in front of the player starts speaking, to NPC `to` (or to nobody): it
    /// listens; the others within earshot glance at the person.
    pub fn person_started(&mut self, to: Option<&str>) {
        let earshot = self.project.listen.earshot_m;
        let camera = self.camera_position;
        for npc in &mut self.npcs {
            if Some(npc.id.as_str()) == to {
                npc.person_started();
            } else if npc.position.distance(camera) <= earshot {
                npc.glance_at_person();
            }
        }
    }

    /// A stressed syllable of the person speaking to `to`.
    pub fn person_stress(&mut self, to: Option<&str>) {
        if let Some(i) = to.and_then(|id| self.npc_index(id)) {
            self.npcs[i].person_stress();
        }
    }

    /// The person stopped speaking to `to` (`noise`: it was not speech after all).
    pub fn person_stopped(&mut self, to: Option<&str>, noise: bool) {
        if let Some(i) = to.and_then(|id| self.npc_index(id)) {
            self.npcs[i].person_stopped(noise);
        }
    }

    /// Every NPC as one the person may speak to: its id and where its head is.
    #[must_use]
    pub fn listeners(&self) -> Vec<npc_core::hearing::Listener<'_>> {
        self.npcs
            .iter()
            .map(|n| npc_core::hearing::Listener {
                id: &n.id,
                head: n.head_position(&self.content.avatars[n.avatar]),
            })
            .collect()
    }

    /// NPC `i` starts a streamed line, its visemes arriving through `feed` as it is heard.
    pub fn speak_streamed(
        &mut self,
        i: usize,
        line: LineId,
        feed: npc_core::anim::lipsync::TrackReceiver,
        behaviour: &Behaviour,
    ) {
        if let Some(speaker) = self.npcs.get_mut(i) {
            speaker.speak_streamed(line, feed, behaviour);
        }
    }

    /// Where a line's target is now: an NPC's face, or the player's camera.
    #[must_use]
    pub fn target_position(&self, target: &Target) -> Option<Vec3> {
        match target {
            Target::Player => Some(self.camera_position),
            Target::Npc(id) => {
                let npc = &self.npcs[self.npc_index(id)?];
                Some(npc.head_position(&self.content.avatars[npc.avatar]))
            }
        }
    }

    /// Sends an NPC walking to map coordinates (`x`, `y`), 0-1.
    pub fn set_goal(&mut self, id: &str, x: f32, y: f32) {
        let goal = self.content.ground.map_to_world(x, y);
        if let Some(i) = self.npc_index(id) {
            self.npcs[i].goal = goal;
        }
    }

    /// Advances the world by `dt_s`. `audio_ms(i)` gives NPC `i`'s line position (ignored
    /// while it is silent); `camera` is where the player stands.
    pub fn update(&mut self, dt_s: f32, camera: Vec3, audio_ms: &(dyn Fn(usize) -> f64 + Sync)) {
        self.camera_position = camera;
        // Where each speaker's line asks it to look and point, resolved before anyone moves.
        let aims: Vec<(Option<Vec3>, Option<Vec3>)> = self
            .npcs
            .iter()
            .map(|n| {
                let (look, point) = n.aims();
                (
                    look.and_then(|t| self.target_position(t)),
                    point.and_then(|t| self.target_position(t)),
                )
            })
            .collect();
        if self.clock_runs && self.project.scene.day_length_s > 0.0 {
            self.time_of_day = (self.time_of_day
                + f64::from(dt_s) / self.project.scene.day_length_s)
                .rem_euclid(1.0);
        }
        // Where the speakers stand, searched through a tree built by the first listener that
        // needs it (none when every NPC speaks).
        let speaking: Vec<Vec3> = self
            .npcs
            .iter()
            .filter(|n| n.speaking())
            .map(|n| n.position)
            .collect();
        let speakers = std::sync::OnceLock::new();
        let speakers =
            || speakers.get_or_init(|| speakers::Speakers::new(speaking.iter().copied()));
        let content = &self.content;
        let reduced_rates = self.reduced_rates;
        let reduced_detail = self.reduced_detail;
        let update = |i: usize, npc: &mut NpcActor| {
            let interval = if reduced_rates {
                animation_rate::interval_s(npc.position.distance(camera), npc.needs_every_frame())
            } else {
                0.0
            };
            let Some(lag_s) = npc.beat.tick(dt_s, interval) else {
                return;
            };
            let avatar = &content.avatars[npc.avatar];
            // Listeners look at the nearest speaker; speakers and idle NPCs at the player
            // when near, else at the group.
            let (look, point) = aims.get(i).copied().unwrap_or((None, None));
            let listening_to = || {
                if npc.speaking() {
                    None
                } else {
                    speakers().nearest(npc.position, SELF_M, LISTEN_REACH_M)
                }
            };
            let attention = match look {
                Some(_) => look,
                None if npc.attends_person() => Some(camera),
                None => match listening_to() {
                    Some(p) => Some(p + Vec3::Y * SPEAKER_FACE_HEIGHT_M),
                    None if camera.distance(npc.position) < PLAYER_NOTICED_M => Some(camera),
                    None => None,
                },
            };
            let detail = animation_rate::detail(if reduced_detail { interval } else { 0.0 });
            let audio_ms = audio_ms(i);
            if interval == 0.0 && lag_s > dt_s + animation_rate::EARLY_S {
                // The frame it comes near after holding its pose: the time it skipped is spent
                // first on what it attended to before, then this frame on what it attends to
                // now, as the full rate would have (not all of it turning toward what it has
                // only now noticed).
                let skipped_s = lag_s - dt_s;
                let before = npc.last_aims();
                let audio_before = audio_ms - f64::from(dt_s) * 1000.0;
                npc.update(
                    avatar,
                    &content.ground,
                    skipped_s,
                    audio_before,
                    before,
                    detail,
                );
                npc.update(
                    avatar,
                    &content.ground,
                    dt_s,
                    audio_ms,
                    (attention, point),
                    detail,
                );
            } else {
                npc.update(
                    avatar,
                    &content.ground,
                    lag_s,
                    audio_ms,
                    (attention, point),
                    detail,
                );
            }
        };
        // NPCs animate independently: large crowds are split over the cores (a pool that
        // lives for the process). The result does not depend on the split.
        if self.npcs.len() < 2 * NPCS_PER_THREAD {
            for (i, npc) in self.npcs.iter_mut().enumerate() {
                update(i, npc);
            }
            return;
        }
        self.npcs
            .par_iter_mut()
            .enumerate()
            .with_min_len(NPCS_PER_THREAD)
            .for_each(|(i, npc)| update(i, npc));
    }

    /// The camera of a first look: eye height, a few metres from the group, facing it.
    #[must_use]
    pub fn overview_camera(&self) -> Camera {
        let centre = self.centre();
        let ground = &self.content.ground;
        let x = centre.x + OVERVIEW_SIDE_M;
        let z = centre.z + OVERVIEW_BACK_M;
        let eye = Vec3::new(x, ground.height(x, z) + EYE_HEIGHT, z);
        Camera::looking_at(eye, centre + Vec3::Y * OVERVIEW_LOOK_HEIGHT_M)
    }

    /// A camera close to an NPC's face, in front of it.
    #[must_use]
    pub fn closeup_camera(&self, id: &str) -> Option<Camera> {
        let npc = &self.npcs[self.npc_index(id)?];
        let avatar = &self.content.avatars[npc.avatar];
        // A head bigger than an adult's (a chibi's, a mascot's) is framed from farther away.
        let model = npc.model();
        let scale = avatar
            .head_above_joint()
            .map_or(1.0, |h| {
                model.transform_vector3(Vec3::Y * h).length() / ADULT_HEAD_ABOVE_JOINT_M
            })
            .clamp(1.0, MAX_CLOSEUP_SCALE);
        let head = npc.head_position(avatar) + Vec3::Y * (CLOSEUP_ABOVE_HEAD_M * scale);
        let front = model.transform_vector3(Vec3::Z).normalize_or(Vec3::Z);
        let mut camera = Camera::looking_at(head + front * (CLOSEUP_DISTANCE_M * scale), head);
        camera.fov_y = CLOSEUP_FOV_DEG.to_radians();
        Some(camera)
    }

    /// A camera in front of an NPC showing its whole body, a little to its side.
    #[must_use]
    pub fn body_camera(&self, id: &str) -> Option<Camera> {
        let npc = &self.npcs[self.npc_index(id)?];
        let avatar = &self.content.avatars[npc.avatar];
        let feet = npc.position;
        let model = npc.model();
        // The avatar's own measure where it has one (a chibi's head is half its height, a
        // mascot may be as wide as it is tall); else from its head joint, as an adult's.
        let (bottom, height, width, depth) = match avatar.rest_bounds {
            Some((low, high)) => {
                let y = |v: f32| model.transform_point3(Vec3::Y * v).y;
                let size = model.transform_vector3(high - low).abs();
                (y(low.y), size.y, size.x.max(size.z), size.x.min(size.z))
            }
            None => (
                feet.y,
                (npc.head_position(avatar).y - feet.y) / HEAD_JOINT_SHARE_OF_HEIGHT,
                0.0,
                0.0,
            ),
        };
        let height = height.max(MIN_BODY_VIEW_HEIGHT_M);
        let centre = Vec3::new(feet.x, bottom + height * 0.5, feet.z);
        let front = model.transform_vector3(Vec3::Z).normalize_or(Vec3::Z);
        let side = model.transform_vector3(Vec3::X).normalize_or(Vec3::X);
        let fov = BODY_VIEW_FOV_DEG.to_radians();
        // Far enough for the taller of its height and width, measured from its front.
        let extent = height.max(width);
        let distance = extent * BODY_VIEW_MARGIN * 0.5 / (fov * 0.5).tan() + depth * 0.5;
        let eye = centre + (front + side * 0.35).normalize() * distance;
        let mut camera = Camera::looking_at(eye, centre);
        camera.fov_y = fov;
        Some(camera)
    }

    /// The frame's view from `camera`: the day's light at the current time, fog, shadows.
    #[must_use]
    pub fn frame_view(&self, camera: Camera, shadows: bool) -> FrameView {
        let fog = &self.project.scene.fog;
        let focus = camera.position
            + (camera.target - camera.position).normalize_or(Vec3::NEG_Z) * SHADOW_FOCUS_AHEAD_M;
        FrameView {
            camera,
            daylight: daylight(self.time_of_day, &self.project.scene.sun),
            fog_start: fog.start,
            fog_end: fog.end,
            shadows,
            shadow_reach: ShadowReach {
                center: focus,
                radius: SHADOW_REACH_M,
            },
            exposure: self.project.scene.exposure,
            sky_light: self.project.scene.sky_light,
        }
    }
}
