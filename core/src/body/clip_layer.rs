//! The clips of the three activities (idle, walk, talk), cross-blended when the activity
//! changes; an activity without a clip falls back to idle, and idle to the rest pose. A clip
//! an agent asked for as a gesture (the line's plan says which and when) is blended over
//! them. What the clips playing do to the face (a VRM animation's expressions and look) is
//! blended alike and read by the face ([`ClipLayer::face`]).

use super::layer::{Activity, BodyLayer, LayerInput};
use super::skeleton::Skeleton;
use crate::asset::Transform;
use crate::asset::animation::{Clip, blend};
use crate::asset::clip_face::ClipFace;

/// Cross-blend length between clips, seconds.
pub const CROSS_BLEND_S: f32 = 0.3;

/// The clips of the three activities, cross-blended on change.
#[derive(Debug)]
pub struct ClipLayer {
    clips: [Option<Clip>; 3],
    current: Activity,
    previous: Activity,
    /// Time in the current and previous clips.
    t_current: f32,
    t_previous: f32,
    /// Progress of the blend from previous to current, 0-1.
    blend: f32,
    /// Playback rate of the walk clip (1: as made).
    walk_rate: f32,
    /// Every clip, for gestures by name.
    all: Vec<Clip>,
    scratch_a: Vec<Transform>,
    scratch_b: Vec<Transform>,
    weights: Vec<Vec<f32>>,
    /// What the clips did to the face in the last frame.
    face: ClipFace,
}

fn index(a: Activity) -> usize {
    match a {
        Activity::Idle => 0,
        Activity::Walk => 1,
        Activity::Talk => 2,
    }
}

impl ClipLayer {
    /// Picks the clips named like "idle", "walk" and "talk" (case ignored) from `clips`;
    /// an activity without a clip falls back to idle, and idle to the rest pose.
    #[must_use]
    pub fn new(clips: &[Clip], start_phase_s: f32) -> Self {
        let find = |name: &str| {
            clips
                .iter()
                .find(|c| c.name.to_lowercase().contains(name))
                .cloned()
        };
        Self {
            clips: [find("idle"), find("walk"), find("talk")],
            current: Activity::Idle,
            previous: Activity::Idle,
            t_current: start_phase_s,
            t_previous: start_phase_s,
            blend: 1.0,
            walk_rate: 1.0,
            all: clips.to_vec(),
            scratch_a: Vec::new(),
            scratch_b: Vec::new(),
            weights: Vec::new(),
            face: ClipFace::NONE,
        }
    }

    fn clip(clips: &[Option<Clip>; 3], a: Activity) -> Option<&Clip> {
        clips[index(a)].as_ref().or(clips[0].as_ref())
    }

    /// What `clip` (if any) does to the face `t_s` seconds in.
    fn face_of(clip: Option<&Clip>, t_s: f32, looped: bool) -> ClipFace {
        match clip {
            Some(clip) if !clip.face.is_empty() => clip.face.sample(clip.time_in(t_s, looped)),
            _ => ClipFace::NONE,
        }
    }

    /// What the clips played in the last frame do to the face: their expressions' weights
    /// and where their look-at tracks turn the eyes, blended as their poses are.
    #[must_use]
    pub fn face(&self) -> &ClipFace {
        &self.face
    }

    /// Takes `hips`' travel out of the walk clip (root motion made in place: the player moves
    /// the character, the clip only its stride).
    #[must_use]
    pub fn with_walk_in_place(mut self, hips: Option<usize>) -> Self {
        if let (Some(hips), Some(walk)) = (hips, self.clips[index(Activity::Walk)].as_mut()) {
            *walk = walk.in_place(hips);
        }
        self
    }

    /// Plays the walk clip at `rate` times its speed.
    #[must_use]
    pub fn with_walk_rate(mut self, rate: f32) -> Self {
        self.walk_rate = if rate.is_finite() && rate > 0.0 {
            rate
        } else {
            1.0
        };
        self
    }

    /// The playback rate of `activity`'s clip.
    fn rate(&self, activity: Activity) -> f32 {
        if activity == Activity::Walk {
            self.walk_rate
        } else {
            1.0
        }
    }

    /// Whether a clip poses the body for `activity` (its own, or idle's in its place).
    #[must_use]
    pub fn poses(&self, activity: Activity) -> bool {
        Self::clip(&self.clips, activity).is_some()
    }

    /// Every clip the layer can play, gestures included.
    #[must_use]
    pub fn all(&self) -> &[Clip] {
        &self.all
    }

    /// Blends the gesture clips the line's plan plays now over `locals`.
    fn apply_gestures(
        &mut self,
        skeleton: &Skeleton,
        input: &LayerInput,
        locals: &mut [Transform],
    ) {
        let Some(talk) = input.talk else {
            return;
        };
        for stroke in &talk.plan.clips {
            let weight = stroke.phases.weight(talk.at_ms);
            let Some(clip) = self.all.iter().find(|c| c.name == stroke.clip) else {
                continue;
            };
            if weight <= 0.0 {
                continue;
            }
            self.scratch_b.clear();
            self.scratch_b.extend_from_slice(&skeleton.rest);
            let t_s = stroke.clip_time_s(talk.at_ms);
            clip.sample(t_s, false, &mut self.scratch_b, &mut self.weights);
            if !clip.face.is_empty() || !self.face.is_none() {
                self.face =
                    ClipFace::mix(&self.face, &Self::face_of(Some(clip), t_s, false), weight);
            }
            self.scratch_a.clear();
            self.scratch_a.extend_from_slice(locals);
            blend(&self.scratch_a, &self.scratch_b, weight, locals);
        }
    }

    /// The activity shown (the one blended toward).
    #[must_use]
    pub fn activity(&self) -> Activity {
        self.current
    }
}

impl BodyLayer for ClipLayer {
    fn name(&self) -> &'static str {
        "clips"
    }

    fn apply(&mut self, skeleton: &Skeleton, input: &LayerInput, locals: &mut [Transform]) {
        let dt = if input.dt_s.is_finite() {
            input.dt_s.max(0.0)
        } else {
            0.0
        };
        if input.activity != self.current {
            self.previous = self.current;
            self.t_previous = self.t_current;
            self.current = input.activity;
            self.t_current = 0.0;
            self.blend = 0.0;
        }
        self.t_current += dt * self.rate(self.current);
        self.t_previous += dt * self.rate(self.previous);
        self.blend = (self.blend + dt / CROSS_BLEND_S).min(1.0);
        self.scratch_a.clear();
        self.scratch_a.extend_from_slice(&skeleton.rest);
        self.weights.resize(skeleton.len(), Vec::new());
        let current = Self::clip(&self.clips, self.current);
        if let Some(clip) = current {
            clip.sample(self.t_current, true, &mut self.scratch_a, &mut self.weights);
        }
        self.face = Self::face_of(current, self.t_current, true);
        if self.blend < 1.0 {
            self.scratch_b.clear();
            self.scratch_b.extend_from_slice(&skeleton.rest);
            let previous = Self::clip(&self.clips, self.previous);
            if let Some(clip) = previous {
                clip.sample(
                    self.t_previous,
                    true,
                    &mut self.scratch_b,
                    &mut self.weights,
                );
            }
            // Smooth in and out of the blend.
            let b = self.blend;
            let eased = b * b * (3.0 - 2.0 * b);
            blend(&self.scratch_b, &self.scratch_a, eased, locals);
            let before = Self::face_of(previous, self.t_previous, true);
            if !before.is_none() || !self.face.is_none() {
                self.face = ClipFace::mix(&before, &self.face, eased);
            }
        } else {
            for (out, t) in locals.iter_mut().zip(&self.scratch_a) {
                *out = *t;
            }
        }
        self.apply_gestures(skeleton, input, locals);
    }
}
