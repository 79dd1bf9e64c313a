//! Lip sync as explicit stages, each a function with its own settings:
//!
//! 1. [`target`]: the pose the track asks for at the (lead-compensated) track time, with an
//!    apex hold and a smoothstep transition to the next viseme, and the jaw opened more or
//!    less with the line's loudness when the audio is known ([`jaw_amount`]);
//! 2. [`Smoother`]: frame-rate independent exponential smoothing of that target;
//! 3. [`bilabial`]: p/b/m closure forced back in after smoothing;
//! 4. [`anticipation`]: lip rounding that starts early and ends late around rounded visemes.
//!
//! [`LipSyncSettings::lead_ms`] shifts every read of the track ahead of the audio clock so the
//! smoothing lag is cancelled and the mouth lands on (slightly before) the sound.

mod anticipation;
mod bilabial;
mod jaw;
mod settings;
mod smoothing;
mod target;
mod track;

pub use anticipation::{ROUNDING_TARGETS, anticipation, anticipation_of};
pub use bilabial::{bilabial, bilabial_envelope};
pub use jaw::{JawSettings, Loudness, jaw_amount, jaw_scale};
pub use settings::{
    AnticipationSettings, BilabialSettings, LipSyncSettings, SmoothingSettings, TargetSettings,
};
pub use smoothing::Smoother;
pub use target::{smoothstep, target};
pub use track::{TrackError, TrackReceiver, TrackSender, VisemeEvent, VisemeTrack, track_channel};
