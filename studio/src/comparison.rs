//! A comparison line: a real capture (a Live Link Face CSV, or the weights animation of a
//! glTF file such as a Face Cap recording) laid under the synthesized line on the timeline and
//! playable on the head, so human motion can be judged beside the engine's.

use std::path::Path;

use npc_core::take::{Take, read_capture};
use npc_core::{ArkitTarget, Pose};

/// The rate a glTF weights animation is sampled at.
const GLTF_SAMPLE_FPS: f64 = 60.0;

/// A capture on the timeline.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The file it came from, for the timeline's label.
    pub label: String,
    pub take: Take,
}

impl Comparison {
    /// Reads a Live Link Face CSV (`.csv`) or a glTF file's first clip that animates ARKit
    /// targets; the error says what is wrong, with `file:line:column` where it can.
    pub fn open(path: &Path) -> Result<Self, String> {
        let take = read_capture(path, GLTF_SAMPLE_FPS)?;
        let label = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        Ok(Self { label, take })
    }

    /// An empty capture that frames will arrive into (a live capture).
    #[must_use]
    pub fn live(label: &str) -> Self {
        Self {
            label: label.to_owned(),
            take: Take {
                name: label.to_owned(),
                fps: 60.0,
                times_ms: Vec::new(),
                weights: Vec::new(),
                body: None,
                own: None,
                head: Some(Vec::new()),
                gaps_ms: Vec::new(),
            },
        }
    }

    /// A frame of a live capture at `t_ms` (after the last; one that is not is left out), or
    /// a gap there.
    pub fn push(&mut self, t_ms: f64, heard: npc_io::Heard) {
        let take = &mut self.take;
        if !t_ms.is_finite() || take.times_ms.last().is_some_and(|&last| t_ms <= last) {
            return;
        }
        match heard {
            None => take.gaps_ms.push(t_ms),
            Some((weights, head)) => {
                take.times_ms.push(t_ms);
                take.weights.push(weights);
                if let Some(heads) = &mut take.head {
                    heads.push(head.unwrap_or_default());
                }
            }
        }
    }

    /// Where the capture had no face (ms spans): each untracked frame's stretch, from the
    /// frame before it to the frame after, merged where they touch.
    #[must_use]
    pub fn gap_spans(&self) -> Vec<(f64, f64)> {
        let times = &self.take.times_ms;
        let mut spans: Vec<(f64, f64)> = Vec::new();
        for &gap in &self.take.gaps_ms {
            let after = times.partition_point(|&t| t <= gap);
            let start = after.checked_sub(1).map_or(gap, |i| times[i]);
            let end = times.get(after).copied().unwrap_or(gap);
            match spans.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => spans.push((start, end)),
            }
        }
        spans
    }

    /// The capture's weights at `t_ms` (the last frame at or before it).
    #[must_use]
    pub fn pose_at(&self, t_ms: f64) -> Pose {
        let times = &self.take.times_ms;
        let i = times.partition_point(|&t| t <= t_ms).saturating_sub(1);
        self.take.weights.get(i).map_or(Pose::NEUTRAL, |w| Pose(*w))
    }

    /// One target's curve: (ms, weight) per frame.
    #[must_use]
    pub fn points(&self, target: ArkitTarget) -> Vec<[f64; 2]> {
        self.take
            .times_ms
            .iter()
            .zip(&self.take.weights)
            .map(|(&t, w)| [t, f64::from(w[target.index()])])
            .collect()
    }

    #[must_use]
    pub fn duration_ms(&self) -> f64 {
        self.take.duration_ms()
    }
}
