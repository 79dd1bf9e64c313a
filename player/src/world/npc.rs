//! One NPC in the world: where it stands and faces, what its body does, its face, and the
//! per-frame state drawing needs (joint palettes and morph weights).

use glam::{Mat4, Quat, Vec3};
use npc_core::LineCue;
use npc_core::anim::face::{FaceAnimator, FaceDetail, FaceSettings};
use npc_core::asset::FaceRig;

use super::animation_rate::AnimationBeat;
use super::content::{AvatarModel, Ground};
use super::face_weights::FaceWeights;
use crate::runtime::LineId;
use npc_core::agent::cues::{Behaviour, GestureName, Target};
use npc_core::body::talk::{SpokenBody, TalkMoment, TalkPlan};
use npc_core::body::{
    Activity, Body, BodyDetail, BodyEmotionSettings, BodySettings, GestureSettings, Inhales,
    LayerInput,
};
use npc_core::hearing::{ListenSettings, PersonAttention};

/// Fastest walking speed, metres per second.
pub const WALK_SPEED: f32 = 1.4;
/// Below this distance to its goal an NPC stands.
const ARRIVED_M: f32 = 0.05;
/// How fast the body turns toward its heading (time constant, seconds).
const TURN_TAU_S: f32 = 0.35;
/// Longest step an update takes (a stalled frame does not teleport anyone), seconds.
const MAX_STEP_S: f32 = 0.25;
/// Standing, the body turns toward what it attends to only past this angle; the head takes
/// the rest.
const HEAD_ONLY_TURN_DEG: f32 = 50.0;
/// A turn toward what it attends to ends this close to facing it, degrees.
const TURN_DONE_DEG: f32 = 1.0;
/// Head height assumed for an avatar without a head joint, metres.
const HEADLESS_EYE_HEIGHT_M: f32 = 1.6;

/// An NPC of the roster, alive in the world.
#[derive(Debug)]
pub struct NpcActor {
    pub id: String,
    pub avatar: usize,
    /// Feet position on the ground.
    pub position: Vec3,
    /// Where it walks to.
    pub goal: Vec3,
    /// Facing angle about +Y (0 faces +Z).
    pub heading: f32,
    /// The heading it is turning to while standing, once what it attends to went past what
    /// the head alone reaches; it turns all the way, so the turn does not depend on the frame
    /// rate.
    turn_to: Option<f32>,
    pub body: Body,
    pub face: FaceAnimator,
    /// The seed of the face (gaze and blinks) and of idle life.
    pub seed: u64,
    /// The agent line being spoken, when it speaks one.
    pub line: Option<LineId>,
    /// The line's audio position at the last update, ms.
    pub audio_ms: f64,
    /// The breaths before the phrases of the line being spoken.
    inhales: Inhales,
    /// How it talks with its hands and head, and how emotions change that.
    gestures: GestureSettings,
    emotions: BodyEmotionSettings,
    /// The gestures of the line it speaks or listens to, and where that line's clock is;
    /// kept after the line ends until the last gesture has retracted.
    talk: Option<(TalkPlan, f64)>,
    /// Whom the line asks it to look at, while it speaks.
    look_at: Option<Target>,
    /// Whom its line's pointing gesture aims at.
    point_at: Option<Target>,
    /// How it listens to the person in front of the player.
    listen_settings: ListenSettings,
    /// What it does about the person.
    person: PersonAttention,
    /// Per skin of the body: world joint matrices times inverse bind (avatar space).
    pub palettes: Vec<Vec<Mat4>>,
    /// Names the pose `palettes` hold, new each time they are worked out (see
    /// [`Self::pose`]).
    pose: PoseStamp,
    /// World matrices of the body's nodes (avatar space).
    pub node_world: Vec<Mat4>,
    /// Where its spring bones' tails are (hair, skirts), and whether they swing.
    springs: npc_core::body::spring::SpringState,
    springs_on: bool,
    /// Morph weights per mesh of the face part.
    pub weights: FaceWeights,
    /// When it animates (far NPCs less often than every frame).
    pub(super) beat: AnimationBeat,
    /// What it attended to and pointed at in its last update.
    last_aims: (Option<Vec3>, Option<Vec3>),
}

fn wrap_angle(a: f32) -> f32 {
    (a + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU) - std::f32::consts::PI
}

impl NpcActor {
    #[must_use]
    pub fn new(
        id: &str,
        avatar_index: usize,
        avatar: &AvatarModel,
        position: Vec3,
        face: &FaceSettings,
        body: &BodySettings,
        seed: u64,
    ) -> Self {
        let body_asset = &avatar.body.asset;
        let phase = Body::start_phase_s(seed);
        let weights = avatar
            .face_part()
            .asset
            .meshes
            .iter()
            .map(|m| {
                let mut w = m.default_weights.clone();
                w.resize(m.target_count(), 0.0);
                w
            })
            .collect();
        Self {
            id: id.to_owned(),
            avatar: avatar_index,
            position,
            goal: position,
            heading: 0.0,
            turn_to: None,
            // Idle life draws from its own streams of the face's seed.
            body: Body::new(
                &avatar.skeleton,
                &avatar.humanoid,
                avatar.clips.source(&body_asset.clips, body),
                body,
                seed,
                phase,
            ),
            face: {
                let mut animator = FaceAnimator::new(face.clone(), seed);
                animator.set_own_shapes(&avatar.own_shapes);
                animator
            },
            seed,
            // Its own beat among the crowd's, from its seed's top bits.
            last_aims: (None, None),
            beat: AnimationBeat::with_phase(
                (seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 62) as f32 / 4.0,
            ),
            line: None,
            audio_ms: 0.0,
            inhales: Inhales::default(),
            gestures: body.gestures.clone(),
            emotions: body.emotions.clone(),
            talk: None,
            look_at: None,
            point_at: None,
            listen_settings: ListenSettings::default(),
            person: PersonAttention::default(),
            palettes: Vec::new(),
            pose: PoseStamp::new(),
            node_world: Vec::new(),
            springs: npc_core::body::spring::SpringState::default(),
            springs_on: body.spring_bones,
            weights: FaceWeights::new(weights),
        }
    }

    /// Listens to the person in front of the player as `settings` say.
    #[must_use]
    pub fn listening(mut self, settings: &ListenSettings) -> Self {
        self.listen_settings = settings.clone();
        self
    }

    /// Placement of the avatar in the world.
    #[must_use]
    pub fn model(&self) -> Mat4 {
        Mat4::from_rotation_translation(Quat::from_rotation_y(self.heading), self.position)
    }

    /// Starts speaking a line (its clock is the line's audio position) as `behaviour` asks;
    /// `targets` are where each requested gesture's target stands now (world space).
    pub fn speak(
        &mut self,
        line: LineId,
        cue: &LineCue,
        behaviour: &Behaviour,
        targets: &[Option<Vec3>],
    ) {
        self.person.speaks();
        self.face.start_line(cue);
        self.face.set_emotion(behaviour.emotion);
        self.body.set_emotion(behaviour.emotion);
        let model_inverse = self.model().inverse();
        let targets: Vec<Option<Vec3>> = targets
            .iter()
            .map(|t| t.map(|p| model_inverse.transform_point3(p)))
            .collect();
        let SpokenBody {
            inhales,
            plan,
            warnings,
        } = SpokenBody::new(
            cue,
            &self.gestures,
            &self.emotions,
            behaviour.emotion,
            &behaviour.gestures,
            &targets,
            self.body.clips.all(),
            self.seed,
        );
        for w in warnings {
            tracing::warn!("{} seq {}: {w}", line.conversation, line.seq);
        }
        self.inhales = inhales;
        self.talk = Some((plan, 0.0));
        self.look_at = behaviour.look_at.clone();
        self.point_at = behaviour
            .gestures
            .iter()
            .find(|g| g.name == GestureName::Point)
            .and_then(|g| g.target.clone());
        self.line = Some(line);
    }

    /// Starts speaking a streamed line: the face performs the visemes as they arrive; the
    /// hands, without the line's phrases known ahead, stay in idle life.
    pub fn speak_streamed(
        &mut self,
        line: LineId,
        feed: npc_core::anim::lipsync::TrackReceiver,
        behaviour: &Behaviour,
    ) {
        self.person.speaks();
        self.face.start_streamed_line(feed);
        self.face.set_emotion(behaviour.emotion);
        self.body.set_emotion(behaviour.emotion);
        self.inhales = Inhales::default();
        self.talk = None;
        self.look_at = behaviour.look_at.clone();
        self.point_at = None;
        self.line = Some(line);
    }

    /// Whom the line being spoken asks it to look at and to point at.
    #[must_use]
    pub fn aims(&self) -> (Option<&Target>, Option<&Target>) {
        if self.line.is_none() && self.talk.is_none() {
            return (None, None);
        }
        (
            self.look_at.as_ref().filter(|_| self.line.is_some()),
            self.point_at.as_ref(),
        )
    }

    /// Listens to a line another NPC starts speaking now (nods as its phrases end).
    pub fn listen(&mut self, cue: &LineCue) {
        if self.line.is_none() {
            self.talk = Some((TalkPlan::listening(cue, &self.gestures, self.seed), 0.0));
        }
    }

    /// The person in front of the player starts speaking to it: its brows flash, it turns to
    /// them and holds its hands still, and nods on some of their stressed syllables.
    pub fn person_started(&mut self) {
        let speaking = self.line.is_some();
        self.person.started(
            &self.listen_settings,
            &self.gestures,
            &mut self.face,
            &mut self.talk,
            speaking,
        );
    }

    /// A stressed syllable of the person speaking to it: a nod, on a seeded share of them.
    pub fn person_stress(&mut self) {
        self.person
            .stress(&self.listen_settings, self.seed, &mut self.talk);
    }

    /// The person stopped speaking to it: it waits for its reply, and shows it is thinking
    /// if the reply is slow to come. `noise`: it was not speech after all, nothing to answer.
    pub fn person_stopped(&mut self, noise: bool) {
        let speaking = self.line.is_some();
        self.person.stopped(noise, speaking, &mut self.talk);
    }

    /// The person spoke to another NPC nearby: it glances at them.
    pub fn glance_at_person(&mut self) {
        self.person.glance(&self.listen_settings);
    }

    /// Whether it attends to the person in front of the player (listening, waiting to reply,
    /// glancing).
    #[must_use]
    pub fn attends_person(&self) -> bool {
        self.person.attends()
    }

    /// Whether the person is speaking to it now.
    #[must_use]
    pub fn listens_to_person(&self) -> bool {
        self.person.listening()
    }

    /// Stops speaking.
    pub fn stop(&mut self) {
        self.look_at = None;
        self.face.end_line();
        self.body.set_emotion(None);
        self.inhales = Inhales::default();
        self.line = None;
    }

    /// Whether it is the one talking.
    #[must_use]
    pub fn speaking(&self) -> bool {
        self.face.is_speaking()
    }

    /// What it attended to and pointed at (world points) in its last update.
    #[must_use]
    pub fn last_aims(&self) -> (Option<Vec3>, Option<Vec3>) {
        self.last_aims
    }

    /// Whether it must animate every frame wherever it stands: it attends to the person in
    /// front of the player (the one spoken with, whom the player watches however far).
    #[must_use]
    pub fn needs_every_frame(&self) -> bool {
        self.attends_person() || self.listens_to_person()
    }

    /// Advances one frame: walking toward the goal, turning, body layers, face (at
    /// `audio_ms` of the current line), joint palettes and morph weights. `attention` is the
    /// world point it attends to, `point_at` where its line asks it to point; the details say
    /// how much of body and face is worked out for its size on screen
    /// ([`super::animation_rate::detail`]).
    pub fn update(
        &mut self,
        avatar: &AvatarModel,
        ground: &Ground,
        dt_s: f32,
        audio_ms: f64,
        (attention, point_at): (Option<Vec3>, Option<Vec3>),
        (body_detail, face_detail): (BodyDetail, FaceDetail),
    ) {
        self.last_aims = (attention, point_at);
        let dt = if dt_s.is_finite() {
            dt_s.clamp(0.0, MAX_STEP_S)
        } else {
            0.0
        };
        self.person.attend(
            &self.listen_settings,
            &mut self.face,
            f64::from(dt) * 1000.0,
        );
        let to_goal = Vec3::new(
            self.goal.x - self.position.x,
            0.0,
            self.goal.z - self.position.z,
        );
        let distance = to_goal.length();
        let walking = distance > ARRIVED_M;
        let want_heading = if walking {
            let step = (WALK_SPEED * dt).min(distance);
            self.position += to_goal / distance * step;
            self.turn_to = None;
            Some(to_goal.x.atan2(to_goal.z))
        } else {
            if let Some(a) = attention {
                let d = a - self.position;
                // Turn the body only when the head alone cannot reach.
                let angle = d.x.atan2(d.z);
                if wrap_angle(angle - self.heading).abs() > HEAD_ONLY_TURN_DEG.to_radians() {
                    self.turn_to = Some(angle);
                }
            }
            if let Some(h) = self.turn_to
                && wrap_angle(h - self.heading).abs() < TURN_DONE_DEG.to_radians()
            {
                self.turn_to = None;
            }
            self.turn_to
        };
        self.position.y = ground.height(self.position.x, self.position.z);
        if let Some(h) = want_heading {
            let k = 1.0 - (-dt / TURN_TAU_S).exp();
            self.heading = wrap_angle(self.heading + wrap_angle(h - self.heading) * k);
        }
        let activity = if walking {
            Activity::Walk
        } else if self.speaking() {
            Activity::Talk
        } else {
            Activity::Idle
        };
        let model = self.model();
        let model_inverse = model.inverse();
        let ground_below = |p: Vec3| {
            let w = model.transform_point3(p);
            let on_ground = Vec3::new(w.x, ground.height(w.x, w.z), w.z);
            model_inverse.transform_point3(on_ground).y
        };
        // The speaker's gestures follow its audio; after the line, and for listeners, their
        // own clock runs on.
        if let Some((plan, at_ms)) = &mut self.talk {
            *at_ms = if self.line.is_some() {
                audio_ms
            } else {
                *at_ms + f64::from(dt) * 1000.0
            };
            if *at_ms > plan.end_ms {
                self.talk = None;
                self.point_at = None;
            }
        }
        let input = LayerInput {
            dt_s: dt,
            time_s: 0.0,
            clip_pose: false,
            inhale: self.line.is_some() && self.inhales.due(audio_ms),
            activity,
            attention: attention.map(|a| model_inverse.transform_point3(a)),
            talk: self.talk.as_ref().map(|(plan, at_ms)| TalkMoment {
                point_at: point_at.map(|p| model_inverse.transform_point3(p)),
                plan,
                at_ms: *at_ms,
            }),
            bearing: npc_core::body::Bearing::default(),
            detail: body_detail,
            ground: Some(&ground_below),
        };
        self.body.update(&avatar.skeleton, &input);
        self.face.set_clip_face(*self.body.clips.face());
        avatar
            .skeleton
            .world_into(&self.body.locals, &mut self.node_world);
        if body_detail == BodyDetail::Far {
            // Too far for hair to show its swing: it hangs as the clip poses it, and swings
            // again from there (a fresh start) when the NPC comes nearer, so nothing jumps.
            self.springs = npc_core::body::spring::SpringState::default();
        } else if self.springs_on && !avatar.springs.is_empty() {
            // Hair and skirts trail the pose (their joints turned in the body's pose, so the
            // record and the live links carry them too).
            avatar.springs.update(
                &mut self.springs,
                model,
                &mut self.body.locals,
                &mut self.node_world,
                dt,
            );
            avatar
                .skeleton
                .world_into(&self.body.locals, &mut self.node_world);
        }
        let skins = &avatar.body.asset.skins;
        self.palettes
            .resize_with(avatar.body.palettes.owners.len(), Vec::new);
        for (&skin, palette) in avatar.body.palettes.owners.iter().zip(&mut self.palettes) {
            skins[skin].palette_into(&self.node_world, palette);
        }
        self.pose.advance();
        self.audio_ms = audio_ms;
        match self
            .face
            .update_in_detail(audio_ms, f64::from(dt) * 1000.0, face_detail)
        {
            Ok(frame) => {
                let pose = *frame.final_pose();
                let own = self.face.own();
                self.weights.edit(|weights| {
                    avatar.face_rig().apply(&pose, weights);
                    if let Some(own) = own {
                        FaceRig::apply_own(&avatar.own_refs, own.weights(), weights);
                    }
                });
            }
            Err(e) => {
                tracing::warn!(
                    "{}: the face track is broken ({e}); stopping the line",
                    self.id
                );
                self.stop();
            }
        }
    }

    /// A number that names the pose its palettes hold: no other NPC's, and a new one each
    /// time they are worked out, so a draw list can keep the palettes it already has.
    #[must_use]
    pub fn pose(&self) -> u64 {
        self.pose.0
    }

    /// World position of the head joint (eye height when there is none).
    #[must_use]
    pub fn head_position(&self, avatar: &AvatarModel) -> Vec3 {
        // Before its first pose (a camera placed for the first frame), where its rest pose
        // puts the head.
        let local = avatar
            .head_joint
            .map_or(Vec3::Y * HEADLESS_EYE_HEIGHT_M, |j| {
                self.node_world
                    .get(j)
                    .map_or_else(|| avatar.rest_head(), |m| m.transform_point3(Vec3::ZERO))
            });
        self.model().transform_point3(local)
    }
}

/// The NPCs made so far in this process: each takes the next number as its own.
static NPCS_MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// An NPC's own number in the top 32 bits, how many poses it has had in the bottom 32: never
/// 0 and never another NPC's, even across worlds loaded one after another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PoseStamp(u64);

impl PoseStamp {
    fn new() -> Self {
        let own = NPCS_MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        Self(own << 32)
    }

    /// The next pose (the count wraps within the NPC's own numbers).
    fn advance(&mut self) {
        let own = self.0 & !0xffff_ffff;
        let count = (self.0 as u32).wrapping_add(1);
        self.0 = own | u64::from(count);
    }
}
