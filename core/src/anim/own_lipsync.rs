//! Lip sync on the avatar's own shapes: the same stages the ARKit face runs (the track read
//! with apex hold and smoothstep, frame-rate independent smoothing, bilabial closure), over a
//! table whose poses are the own shapes [`OwnShapes`] gives each viseme. Every stage is linear
//! in the table's poses, so a viseme set on own shapes moves exactly as it would on ARKit ones.

use super::lipsync::{LipSyncSettings, Smoother, VisemeTrack, bilabial, target};
use super::own_shapes::OwnShapes;
use super::pose::Pose;
use crate::arkit::ARKIT_TARGET_COUNT;
use crate::viseme::{VISEME_COUNT, VisemeId, VisemeTable};

/// The own shapes' lip sync of one face.
#[derive(Clone, Debug)]
pub struct OwnLipSync {
    names: Vec<String>,
    /// The own targets packed into pose-sized tables: slot `i` of table `k` is target
    /// `names[k * 52 + i]` (the slots are positions here, not ARKit targets).
    tables: Vec<VisemeTable>,
    smoothers: Vec<Smoother>,
    weights: Vec<f32>,
}

impl OwnLipSync {
    /// The lip sync of `shapes`' viseme targets; `None` when the visemes set none.
    #[must_use]
    pub fn new(shapes: &OwnShapes) -> Option<Self> {
        let names = shapes.viseme_targets();
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
        Some(Self {
            weights: vec![0.0; names.len()],
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

    /// Each target's weight after the last step.
    #[must_use]
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// Moves on to audio time `audio_ms` over a frame of `dt_ms` that began at `from_ms`, as
    /// the ARKit face does in the same frame.
    pub(crate) fn step(
        &mut self,
        track: &VisemeTrack,
        lipsync: &LipSyncSettings,
        audio_ms: f64,
        from_ms: f64,
        dt_ms: f64,
    ) {
        let lead = lipsync.lead_ms;
        let track_ms = audio_ms + lead;
        for (k, (table, smoother)) in self.tables.iter().zip(&mut self.smoothers).enumerate() {
            let rest = *table.pose(VisemeId::SILENCE);
            let mut pose = *smoother.advance(&lipsync.smoothing, dt_ms, |u| {
                let audio_at = from_ms + (audio_ms - from_ms) * u;
                if audio_at < 0.0 {
                    rest
                } else {
                    target(track, table, &lipsync.target, audio_at + lead)
                }
            });
            bilabial(&mut pose, track, table, &lipsync.bilabial, track_ms);
            pose.clamp_unit();
            let start = k * ARKIT_TARGET_COUNT;
            let end = (start + ARKIT_TARGET_COUNT).min(self.weights.len());
            self.weights[start..end].copy_from_slice(&pose.0[..end - start]);
        }
    }
}
