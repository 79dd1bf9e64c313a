//! Takes: one performance of a line as frames (the face's 52 weights, and the body's pose
//! when it has one), so that what the studio tunes leaves the tool and real captures come in.
//!
//! - read from a bake (`npc-player bake` JSON), a frame record (`--record` JSON Lines), a Live
//!   Link Face CSV or a glTF file's weights animation ([`Take::from_bake_json`],
//!   [`Take::from_record`], [`read_livelink_csv`], [`Take::from_gltf_clip`]);
//! - written as Live Link Face CSV ([`write_livelink_csv`]) or into an avatar's GLB as an
//!   animation clip ([`glb_with_take`]).

pub mod angles;
mod capture_file;
mod error;
mod gltf_clip;

mod livelink;
mod sources;

pub use angles::{EyeTurns, HeadTurn, eye_turns, head_turn};
pub use capture_file::read_capture;
pub use error::TakeError;
pub use gltf_clip::glb_with_take;
pub use livelink::{LIVELINK_COLUMNS, read_livelink_csv, write_livelink_csv};

use crate::arkit::ARKIT_TARGET_COUNT;
use crate::body::{HumanoidBone, HumanoidPose};

/// One line's performance, frame by frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Take {
    /// What exports call it (the clip's name in glTF).
    pub name: String,
    /// The frame rate it was made at (estimated for records and captures).
    pub fps: f64,
    /// Each frame's time from the take's start, strictly increasing.
    pub times_ms: Vec<f64>,
    /// Each frame's 52 ARKit weights, in canonical order (`ArkitTarget::ALL`).
    pub weights: Vec<[f32; ARKIT_TARGET_COUNT]>,
    /// The body, when the source had one.
    pub body: Option<BodyTrack>,
    /// The avatar's own shapes, when the source had them (a bake of a head with own shapes).
    pub own: Option<OwnTrack>,
    /// Head turns a capture carried (Live Link's HeadYaw, HeadPitch, HeadRoll); a take with a
    /// body takes its head's turn from the body instead.
    pub head: Option<Vec<HeadTurn>>,
    /// Times (ms from the take's start, between its first and last frame) of frames the
    /// capture marked untracked: the iPhone app's rows with no face, a Live Link packet with
    /// no values, a VMC sender's "tracking lost". Players hold the frame before across them;
    /// the studio marks them in its plots.
    pub gaps_ms: Vec<f64>,
}

/// The avatar's own shapes over a take's frames.
#[derive(Clone, Debug, PartialEq)]
pub struct OwnTrack {
    /// The targets, by their names in the avatar's file.
    pub targets: Vec<String>,
    /// `weights[frame][target]`.
    pub weights: Vec<Vec<f32>>,
}

/// A body over a take's frames.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyTrack {
    /// The bones each pose's rotations belong to.
    pub bones: Vec<HumanoidBone>,
    /// One pose per frame.
    pub poses: Vec<HumanoidPose>,
}

impl Take {
    /// The take's length, ms.
    #[must_use]
    pub fn duration_ms(&self) -> f64 {
        self.times_ms.last().copied().unwrap_or(0.0)
    }

    /// Each frame's head turn: from the body's head bone, else from the capture, else none.
    #[must_use]
    pub fn head_turns(&self) -> Vec<HeadTurn> {
        let from_body = self.body.as_ref().and_then(|body| {
            let head = body.bones.iter().position(|&b| b == HumanoidBone::Head)?;
            Some(
                body.poses
                    .iter()
                    .map(|p| {
                        p.rotations
                            .get(head)
                            .map_or(HeadTurn::default(), |&q| head_turn(q))
                    })
                    .collect::<Vec<_>>(),
            )
        });
        from_body
            .or_else(|| self.head.clone())
            .unwrap_or_else(|| vec![HeadTurn::default(); self.times_ms.len()])
    }

    /// Checks what every reader promises: one weight row per frame, times finite and strictly
    /// increasing, a body pose per frame.
    pub(crate) fn checked(self) -> Result<Self, TakeError> {
        if self.times_ms.is_empty() {
            return Err(TakeError::Empty);
        }
        if self.weights.len() != self.times_ms.len() {
            return Err(TakeError::Invalid(format!(
                "{} weight rows for {} frames",
                self.weights.len(),
                self.times_ms.len()
            )));
        }
        for (i, pair) in self.times_ms.windows(2).enumerate() {
            if !(pair[1].is_finite() && pair[1] > pair[0]) {
                return Err(TakeError::Invalid(format!(
                    "frame {} at {} ms does not come after frame {i} at {} ms",
                    i + 1,
                    pair[1],
                    pair[0]
                )));
            }
        }
        if let Some(own) = &self.own
            && (own.weights.len() != self.times_ms.len()
                || own.weights.iter().any(|w| w.len() != own.targets.len()))
        {
            return Err(TakeError::Invalid(
                "the own shapes do not have one full row per frame".to_owned(),
            ));
        }
        if let Some(body) = &self.body
            && (body.poses.len() != self.times_ms.len()
                || body
                    .poses
                    .iter()
                    .any(|p| p.rotations.len() != body.bones.len()))
        {
            return Err(TakeError::Invalid(
                "the body does not have one full pose per frame".to_owned(),
            ));
        }
        Ok(self)
    }
}

/// The frame rate of frames at `times_ms`: from the median step, rounded to 0.001 fps.
pub(crate) fn estimated_fps(times_ms: &[f64]) -> f64 {
    let mut steps: Vec<f64> = times_ms.windows(2).map(|w| w[1] - w[0]).collect();
    if steps.is_empty() {
        return 60.0;
    }
    steps.sort_by(f64::total_cmp);
    let median = steps[steps.len() / 2];
    if median > 0.0 {
        (1_000_000.0 / median).round() / 1000.0
    } else {
        60.0
    }
}
