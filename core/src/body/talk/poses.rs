//! The talking poses the hands move into for a phrase, and the hand shapes the fingers take.
//! Hand places are given in arm lengths from the arm's own shoulder, in the body's frame, so
//! one table fits every rig.

use serde::Serialize;

/// A hand shape: how far each finger curls, degrees at its base (thumb, index, middle, ring,
/// little); `None` leaves the fingers as idle life holds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HandShape {
    Open,
    Relaxed,
    Pinch,
    Point,
    Fist,
}

impl HandShape {
    /// Each finger's curl, degrees (thumb first); `None` for relaxed (idle life's own curl).
    #[must_use]
    pub fn curls_deg(self) -> Option<[f32; 5]> {
        match self {
            Self::Open => Some([4.0, 3.0, 3.0, 5.0, 8.0]),
            Self::Relaxed => None,
            Self::Pinch => Some([30.0, 48.0, 22.0, 28.0, 34.0]),
            Self::Point => Some([38.0, 0.0, 80.0, 85.0, 85.0]),
            Self::Fist => Some([50.0, 85.0, 90.0, 90.0, 90.0]),
        }
    }
}

/// Which hands a gesture moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Hands {
    Left,
    Right,
    Both,
}

impl Hands {
    /// Whether the hand of `side` (0 left, 1 right) takes part.
    #[must_use]
    pub fn has(self, side: usize) -> bool {
        matches!(
            (self, side),
            (Self::Both, _) | (Self::Left, 0) | (Self::Right, 1)
        )
    }
}

/// A talking pose for a phrase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TalkPose {
    /// Both palms up, explaining.
    PalmsUp,
    /// One hand forward, leading the phrase.
    Leading,
    /// Both palms down, calming.
    PalmsDown,
    /// One hand's thumb and index together: a precise point.
    Pinch,
    /// Both hands together in front of the body.
    Together,
    /// Asked for by an agent: the arm stretched toward a target, index finger out.
    Point,
    /// Asked for: both hands out and low, palms up.
    Shrug,
    /// Asked for: both hands open and wide, palms up.
    OpenPalms,
    /// Asked for: one hand up by the chin.
    Thinking,
    /// Asked for: one hand up beside the head, waving.
    Wave,
}

/// Where a talking pose puts a hand and how it turns it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandPlace {
    /// Forward of the shoulder, arm lengths.
    pub forward: f32,
    /// Below the shoulder, arm lengths.
    pub down: f32,
    /// Outward from the shoulder (toward its own side), arm lengths; negative is inward.
    pub out: f32,
    /// Palm turn, degrees: 0 palm facing the body's middle, 90 palm up, -90 palm down.
    pub palm_deg: f32,
    pub shape: HandShape,
}

impl TalkPose {
    /// The pose's name as plans are written (`palms_up`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::PalmsUp => "palms_up",
            Self::Leading => "leading",
            Self::PalmsDown => "palms_down",
            Self::Pinch => "pinch",
            Self::Together => "together",
            Self::Point => "point",
            Self::Shrug => "shrug",
            Self::OpenPalms => "open_palms",
            Self::Thinking => "thinking",
            Self::Wave => "wave",
        }
    }

    /// The poses a phrase chooses from (the others come only when an agent asks).
    pub const ALL: [Self; 5] = [
        Self::PalmsUp,
        Self::Leading,
        Self::PalmsDown,
        Self::Pinch,
        Self::Together,
    ];

    /// Whether the pose is made with one hand (the other hangs).
    #[must_use]
    pub fn one_handed(self) -> bool {
        matches!(
            self,
            Self::Leading | Self::Pinch | Self::Point | Self::Thinking | Self::Wave
        )
    }

    /// Where the pose puts a hand.
    #[must_use]
    pub fn place(self) -> HandPlace {
        let at = |forward, down, out, palm_deg, shape| HandPlace {
            forward,
            down,
            out,
            palm_deg,
            shape,
        };
        match self {
            Self::PalmsUp => at(0.55, 0.55, 0.05, 65.0, HandShape::Open),
            Self::Leading => at(0.62, 0.45, 0.0, 25.0, HandShape::Open),
            Self::PalmsDown => at(0.5, 0.6, 0.1, -70.0, HandShape::Open),
            Self::Pinch => at(0.52, 0.42, -0.15, 10.0, HandShape::Pinch),
            Self::Together => at(0.45, 0.6, -0.28, 0.0, HandShape::Relaxed),
            // Pointing aims at its target instead; this is where the hand goes without one.
            Self::Point => at(0.9, 0.2, 0.1, -80.0, HandShape::Point),
            Self::Shrug => at(0.35, 0.7, 0.3, 90.0, HandShape::Open),
            Self::OpenPalms => at(0.5, 0.55, 0.25, 80.0, HandShape::Open),
            // The fist under the chin: above the shoulder and in toward the middle.
            Self::Thinking => at(0.3, 0.03, -0.45, 0.0, HandShape::Fist),
            Self::Wave => at(0.2, -0.3, 0.3, 0.0, HandShape::Open),
        }
    }
}
