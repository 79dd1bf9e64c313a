//! Lip sync on the avatar's own shapes: the same stages the ARKit face runs (the track read
//! with apex hold and smoothstep, the jaw scaled by loudness, frame-rate independent
//! smoothing, bilabial closure, lip-rounding anticipation), over a table whose poses are the
//! own shapes [`OwnShapes`] gives each viseme. Loudness scales the shapes that open the jaw
//! and anticipation moves the ones that round the lips ([`Role`]), as jawOpen and
//! mouthPucker/mouthFunnel are on an ARKit face. Every stage is linear in the table's poses,
//! so a viseme set on own shapes moves exactly as it would on ARKit ones. The avatar's own
//! expression faces ([`OwnShapes::expressions`]) are added over the mouth at the weights the
//! face gives them ([`OwnLipSync::express`]).

use super::lipsync::{
    LipSyncSettings, Loudness, Smoother, SmoothingSettings, VisemeTrack, anticipation_of, bilabial,
    jaw_scale, target,
};
use super::own_roles::Role;
use super::own_shapes::OwnShapes;
use super::pose::Pose;
use crate::arkit::ARKIT_TARGET_COUNT;
use crate::asset::clip_face::Expression;
use crate::viseme::{VISEME_COUNT, VisemeId, VisemeTable};

/// The own shapes' lip sync of one face.
#[derive(Clone, Debug)]
pub struct OwnLipSync {
    names: Vec<String>,
    /// The own targets packed into pose-sized tables: slot `i` of table `k` is target
    /// `names[k * 52 + i]` (the slots are positions here, not ARKit targets).
    tables: Vec<VisemeTable>,
    /// Per table, the slots of the shapes that open the jaw and of those that round the lips.
    jaw_slots: Vec<Vec<usize>>,
    rounding_slots: Vec<Vec<usize>>,
    smoothers: Vec<Smoother>,
    /// Each expression the avatar has a face of its own for, and that face: (target, weight).
    expressions: Vec<(Expression, Vec<(usize, f32)>)>,
    weights: Vec<f32>,
}

impl OwnLipSync {
    /// The lip sync of `shapes`' viseme targets, with its expression faces; `None` when they
    /// set no target.
    #[must_use]
    pub fn new(shapes: &OwnShapes) -> Option<Self> {
        let names = shapes.own_targets();
        if names.is_empty() {
            return None;
        }
        let tables: Vec<VisemeTable> = names
            .chunks(ARKIT_TARGET_COUNT)
            .map(|chunk| {
                let mut poses = [Pose::NEUTRAL; VISEME_COUNT];
                for (id, pose) in poses.iter_mut().enumerate() {
                    let Some(row) = u8::try_from(id).ok().and_then(|i| shapes.visemes.get(&i))
                    else {
                        continue;
                    };
                    for (slot, name) in chunk.iter().enumerate() {
                        pose.0[slot] = row.get(name).copied().unwrap_or(0.0).clamp(0.0, 1.0);
                    }
                }
                VisemeTable::from_poses(poses)
            })
            .collect();
        let smoothers = tables
            .iter()
            .map(|t| Smoother::new(*t.pose(VisemeId::SILENCE)))
            .collect();
        let slots = |role: Role| -> Vec<Vec<usize>> {
            names
                .chunks(ARKIT_TARGET_COUNT)
                .map(|chunk| {
                    (0..chunk.len())
                        .filter(|&slot| shapes.role(&chunk[slot]) == Some(role))
                        .collect()
                })
                .collect()
        };
        let expressions = shapes
            .expressions
            .iter()
            .filter_map(|(expression, face)| {
                let binds: Vec<(usize, f32)> = face
                    .iter()
                    .filter_map(|(name, &w)| {
                        let slot = names.binary_search(name).ok()?;
                        Some((slot, w.clamp(0.0, 1.0)))
                    })
                    .collect();
                let expression = Expression::from_name(expression)?;
                (!binds.is_empty()).then_some((expression, binds))
            })
            .collect();
        Some(Self {
            expressions,
            weights: vec![0.0; names.len()],
            jaw_slots: slots(Role::Jaw),
            rounding_slots: slots(Role::Rounding),
            names,
            tables,
            smoothers,
        })
    }

    /// The targets driven, in the order of [`Self::weights`].
    #[must_use]
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Whether the avatar has a face of its own for `expression` (happy, sad, ...).
    #[must_use]
    pub fn covers(&self, expression: Expression) -> bool {
        self.expressions.iter().any(|(e, _)| *e == expression)
    }

    /// Adds each expression's own face at its weight (`amount(expression)`, 0-1) over the
    /// mouth of the last step.
    pub(crate) fn express(&mut self, amount: impl Fn(Expression) -> f32) {
        for (expression, binds) in &self.expressions {
            let a = amount(*expression).clamp(0.0, 1.0);
            if a <= 0.0 {
                continue;
            }
            for &(slot, w) in binds {
                if let Some(out) = self.weights.get_mut(slot) {
                    *out = (*out + a * w).min(1.0);
                }
            }
        }
    }

    /// Each target's weight after the last step.
    #[must_use]
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// Moves on to audio time `audio_ms` over a frame of `dt_ms` that began at `from_ms`, as
    /// the ARKit face does in the same frame (smoothed by `smoothing`, the lip sync's or
    /// coarser for a far face).
    pub(crate) fn step(
        &mut self,
        track: &VisemeTrack,
        loudness: Option<&Loudness>,
        lipsync: &LipSyncSettings,
        smoothing: &SmoothingSettings,
        (from_ms, audio_ms): (f64, f64),
        dt_ms: f64,
    ) {
        let lead = lipsync.lead_ms;
        let track_ms = audio_ms + lead;
        let parts = self
            .tables
            .iter()
            .zip(&mut self.smoothers)
            .zip(self.jaw_slots.iter().zip(&self.rounding_slots));
        for (k, ((table, smoother), (jaw, rounding))) in parts.enumerate() {
            let rest = *table.pose(VisemeId::SILENCE);
            let target_at = |t: f64| {
                let mut pose = target(track, table, &lipsync.target, t);
                if let Some(loudness) = loudness {
                    let scale = jaw_scale(loudness, &lipsync.jaw, t);
                    for &slot in jaw {
                        pose.0[slot] *= scale;
                    }
                }
                pose
            };
            let mut pose = *smoother.advance(smoothing, dt_ms, |u| {
                let audio_at = from_ms + (audio_ms - from_ms) * u;
                if audio_at < 0.0 {
                    rest
                } else {
                    target_at(audio_at + lead)
                }
            });
            bilabial(&mut pose, track, table, &lipsync.bilabial, track_ms);
            anticipation_of(
                rounding,
                &mut pose,
                track,
                table,
                &lipsync.anticipation,
                track_ms,
            );
            pose.clamp_unit();
            let start = k * ARKIT_TARGET_COUNT;
            let end = (start + ARKIT_TARGET_COUNT).min(self.weights.len());
            self.weights[start..end].copy_from_slice(&pose.0[..end - start]);
        }
    }
}
