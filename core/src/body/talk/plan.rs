//! A line's gestures planned ahead from its track: the line is known before it is heard, so
//! each gesture's preparation can start before the syllable it lands on. The speaker's plan
//! has a talking pose per phrase (or the hands drop), beats on stressed syllables and a nod
//! with each; a listener's plan has nods as the speaker's phrases end. Seeded: same line,
//! settings and seed, same plan.

use rand::Rng;
use serde::Serialize;

use super::phases::Phases;
use super::poses::{Hands, TalkPose};
use crate::anim::LineCue;
use crate::body::idle::{LISTEN_STREAM, TALK_STREAM, stream};
use crate::body::settings::GestureSettings;

/// A phrase shorter than this gets no pose of its own, ms.
const MIN_PHRASE_MS: f64 = 400.0;
/// A pose's preparation starts this long before its phrase, ms.
const POSE_LEAD_MS: f64 = 300.0;
/// ... and the pose is there this long after the phrase starts, ms.
const POSE_APEX_MS: f64 = 150.0;
/// The hands take this long to drop after a phrase, ms.
const POSE_RETRACTION_MS: f64 = 500.0;
/// A beat's stroke (the down-flick) takes this long to its apex, ms.
const BEAT_STROKE_MS: f64 = 110.0;
/// A beat holds its apex this long, ms.
const BEAT_HOLD_MS: f64 = 40.0;
/// A beat takes this long to come back, ms.
const BEAT_RETRACTION_MS: f64 = 230.0;
/// How high the hand lifts in a beat's preparation (share of the flick).
const BEAT_LIFT: f32 = 0.3;
/// A listener's nod starts this long after the speaker's phrase ends, ms.
const NOD_DELAY_MS: f64 = 120.0;
/// A nod's phases: down, held, back up, ms.
const NOD_DOWN_MS: f64 = 260.0;
const NOD_HOLD_MS: f64 = 80.0;
const NOD_UP_MS: f64 = 420.0;

/// The hands in a talking pose through a phrase.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stroke {
    pub pose: TalkPose,
    pub hands: Hands,
    pub phases: Phases,
    /// Asked for by an agent (it replaces the phrase's own pose).
    pub requested: bool,
}

/// A beat on a stressed syllable: the raised hand lifts a little, flicks down to the apex and
/// comes back; the head nods with it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Beat {
    /// Where the stressed syllable starts, ms.
    pub stress_ms: f64,
    pub phases: Phases,
    /// How long the down-flick takes to its apex, ms.
    pub stroke_ms: f64,
}

impl Beat {
    /// The flick at `t_ms`: up to [`BEAT_LIFT`] through the preparation, -1 at the apex
    /// (down), back to 0 at the end.
    #[must_use]
    pub fn flick(&self, t_ms: f64) -> f32 {
        let p = &self.phases;
        let stroke_from = p.apex_ms - self.stroke_ms;
        if t_ms <= p.start_ms || t_ms >= p.end_ms {
            0.0
        } else if t_ms < stroke_from {
            BEAT_LIFT * ease(t_ms, p.start_ms, stroke_from)
        } else if t_ms < p.apex_ms {
            BEAT_LIFT - (1.0 + BEAT_LIFT) * ease(t_ms, stroke_from, p.apex_ms)
        } else if t_ms <= p.hold_ms {
            -1.0
        } else {
            -1.0 + ease(t_ms, p.hold_ms, p.end_ms)
        }
    }
}

/// A nod: the head pitches down by `deg` and comes back up.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Nod {
    pub phases: Phases,
    pub deg: f32,
}

fn ease(t: f64, from: f64, to: f64) -> f32 {
    crate::body::idle::smoothstep(((t - from) / (to - from).max(1e-6)) as f32)
}

/// A clip of the avatar's played as a gesture an agent asked for: from its first key at
/// `phases.start_ms`, blended in over the preparation and out over the retraction; it poses
/// the whole body over the activity's clip.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClipStroke {
    /// The clip's name as the avatar's file gives it.
    pub clip: String,
    pub phases: Phases,
}

impl ClipStroke {
    /// Where in its clip the stroke is at `t_ms`, seconds.
    #[must_use]
    pub fn clip_time_s(&self, t_ms: f64) -> f32 {
        ((t_ms - self.phases.start_ms).max(0.0) / 1000.0) as f32
    }
}

/// Everything one NPC's body does with a line.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TalkPlan {
    pub strokes: Vec<Stroke>,
    /// Clips asked for as gestures.
    pub clips: Vec<ClipStroke>,
    pub beats: Vec<Beat>,
    pub nods: Vec<Nod>,
    /// Head shakes asked for.
    pub shakes: Vec<Phases>,
    /// After this nothing moves, ms.
    pub end_ms: f64,
    /// How far the hands travel toward a pose (the settings' size).
    pub size: f32,
    /// How far a beat flicks the hand, metres.
    pub beat_m: f32,
    /// A listener's plan (it lasts while the speaker's phrases do).
    pub listening: bool,
}

impl TalkPlan {
    /// The speaker's plan for `cue`.
    #[must_use]
    pub fn speaking(cue: &LineCue, settings: &GestureSettings, seed: u64) -> Self {
        let mut plan = Self::empty(settings);
        if !settings.enabled {
            return plan;
        }
        let mut rng = stream(seed, TALK_STREAM);
        // Quicker hands take less time to get anywhere; the apexes stay where they land.
        let slow = 1.0 / f64::from(settings.speed.clamp(0.25, 4.0));
        let mut last_pose = None;
        for (start, end) in cue.phrases_ms() {
            // Draw for every phrase, so one phrase's outcome does not shift the others'.
            let gestures = rng.random::<f32>() < settings.phrase_share;
            let pick = rng.random_range(0..TalkPose::ALL.len() - 1);
            let right = rng.random::<bool>();
            if !gestures || end - start < MIN_PHRASE_MS {
                continue;
            }
            // Never the same pose twice running.
            let choices: Vec<TalkPose> = TalkPose::ALL
                .into_iter()
                .filter(|p| Some(*p) != last_pose)
                .collect();
            let pose = choices[pick.min(choices.len() - 1)];
            last_pose = Some(pose);
            let hands = match (pose.one_handed(), right) {
                (false, _) => Hands::Both,
                (true, true) => Hands::Right,
                (true, false) => Hands::Left,
            };
            let phases = Phases::new(
                (start - POSE_LEAD_MS * slow).max(0.0),
                start + POSE_APEX_MS * slow,
                end,
                end + POSE_RETRACTION_MS * slow,
            );
            plan.strokes.push(Stroke {
                pose,
                hands,
                phases,
                requested: false,
            });
        }
        // Hand over from one pose to the next in one window instead of dropping between.
        for i in 1..plan.strokes.len() {
            let next = plan.strokes[i].phases;
            let prev = &mut plan.strokes[i - 1].phases;
            if next.start_ms < prev.end_ms {
                *prev = Phases::new(prev.start_ms, prev.apex_ms, next.start_ms, next.apex_ms);
            }
        }
        let lead = f64::from(settings.beat_lead_ms.clamp(0.0, 1000.0));
        let lag = f64::from(settings.apex_lag_ms.clamp(0.0, 500.0));
        for &stress in &cue.stresses_ms {
            if rng.random::<f32>() >= settings.beat_share {
                continue;
            }
            let apex = stress + lag;
            let (stroke, retraction) = (BEAT_STROKE_MS * slow, BEAT_RETRACTION_MS * slow);
            let start = (stress - lead).min(apex - stroke).max(0.0);
            let phases = Phases::new(
                start,
                apex,
                apex + BEAT_HOLD_MS,
                apex + BEAT_HOLD_MS + retraction,
            );
            plan.beats.push(Beat {
                stress_ms: stress,
                phases,
                stroke_ms: stroke,
            });
            plan.nods.push(Nod {
                phases: Phases::new(
                    apex - stroke,
                    apex,
                    apex + BEAT_HOLD_MS,
                    apex + BEAT_HOLD_MS + retraction,
                ),
                deg: settings.beat_nod_deg,
            });
        }
        plan.finish()
    }

    /// A listener's plan for the speaker's `cue`: nods as some of its phrases end.
    #[must_use]
    pub fn listening(cue: &LineCue, settings: &GestureSettings, seed: u64) -> Self {
        let mut plan = Self {
            listening: true,
            ..Self::empty(settings)
        };
        if !settings.enabled {
            return plan;
        }
        let mut rng = stream(seed, LISTEN_STREAM);
        for (_, end) in cue.phrases_ms() {
            if rng.random::<f32>() >= settings.listener_nod_share {
                continue;
            }
            let start = end + NOD_DELAY_MS;
            plan.nods.push(Nod {
                phases: Phases::new(
                    start,
                    start + NOD_DOWN_MS,
                    start + NOD_DOWN_MS + NOD_HOLD_MS,
                    start + NOD_DOWN_MS + NOD_HOLD_MS + NOD_UP_MS,
                ),
                deg: settings.listener_nod_deg,
            });
        }
        let last_phrase_end = cue.phrases_ms().last().map_or(0.0, |p| p.1);
        let mut plan = plan.finish();
        plan.end_ms = plan.end_ms.max(last_phrase_end);
        plan
    }

    /// A listener's plan for someone speaking live, whose phrases are not known ahead: it
    /// holds the hands still (no strokes) and gains a nod with each [`Self::nod_at`], until
    /// [`Self::close_at`].
    #[must_use]
    pub fn listening_live(settings: &GestureSettings) -> Self {
        Self {
            listening: true,
            end_ms: f64::INFINITY,
            ..Self::empty(settings)
        }
    }

    /// A listener's nod starting at `start_ms`, `deg` down.
    pub fn nod_at(&mut self, start_ms: f64, deg: f32) {
        let phases = Phases::new(
            start_ms,
            start_ms + NOD_DOWN_MS,
            start_ms + NOD_DOWN_MS + NOD_HOLD_MS,
            start_ms + NOD_DOWN_MS + NOD_HOLD_MS + NOD_UP_MS,
        );
        self.nods.push(Nod { phases, deg });
    }

    /// Ends a live listener's plan at `t_ms`, or when its last nod is done.
    pub fn close_at(&mut self, t_ms: f64) {
        let nods_end = self
            .nods
            .iter()
            .map(|n| n.phases.end_ms)
            .fold(0.0, f64::max);
        self.end_ms = t_ms.max(nods_end);
    }

    fn empty(settings: &GestureSettings) -> Self {
        Self {
            size: settings.size.clamp(0.0, 2.0),
            beat_m: settings.beat_cm.clamp(0.0, 20.0) / 100.0,
            ..Self::default()
        }
    }

    pub(super) fn finish(mut self) -> Self {
        self.end_ms = self
            .strokes
            .iter()
            .map(|s| s.phases.end_ms)
            .chain(self.beats.iter().map(|b| b.phases.end_ms))
            .chain(self.nods.iter().map(|n| n.phases.end_ms))
            .chain(self.shakes.iter().map(|p| p.end_ms))
            .chain(self.clips.iter().map(|c| c.phases.end_ms))
            .fold(0.0, f64::max);
        self
    }

    /// How far the head is nodded down at `t_ms`, degrees.
    #[must_use]
    pub fn nod_deg(&self, t_ms: f64) -> f32 {
        self.nods
            .iter()
            .map(|n| n.deg * n.phases.weight(t_ms))
            .sum()
    }

    /// The beat flick at `t_ms` (see [`Beat::flick`]); beats do not overlap.
    #[must_use]
    pub fn flick(&self, t_ms: f64) -> f32 {
        self.beats
            .iter()
            .map(|b| b.flick(t_ms))
            .sum::<f32>()
            .clamp(-1.0, 1.0)
    }
}
