//! How a character's body lives when no clip says otherwise: each procedural layer's settings
//! and its switch, as a project stores them (project-wide, or per NPC).

use serde::{Deserialize, Serialize};

use super::emotion::BodyEmotionSettings;

/// Every idle-life layer's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BodySettings {
    /// Whether an avatar without clips of its own plays the built-in body's (idle, walk,
    /// talk), retargeted; without them it stands in its posture and idle life alone.
    pub built_in_clips: bool,
    /// Whether a VRM avatar's spring bones (hair, skirts, accessories) swing with its motion;
    /// off, they keep the place the pose gives them.
    pub spring_bones: bool,
    pub posture: PostureSettings,
    pub breathing: BreathingSettings,
    pub sway: SwaySettings,
    pub arms: ArmSettings,
    pub weight_shift: WeightShiftSettings,
    pub hands: HandSettings,
    /// Talking with the hands and head: phrase gestures, beats, listeners' nods.
    pub gestures: GestureSettings,
    /// How each emotion carries the body: posture, breathing, gesture size and speed.
    pub emotions: BodyEmotionSettings,
}

impl Default for BodySettings {
    fn default() -> Self {
        Self {
            built_in_clips: true,
            spring_bones: true,
            posture: PostureSettings::default(),
            breathing: BreathingSettings::default(),
            sway: SwaySettings::default(),
            arms: ArmSettings::default(),
            weight_shift: WeightShiftSettings::default(),
            hands: HandSettings::default(),
            gestures: GestureSettings::default(),
            emotions: BodyEmotionSettings::default(),
        }
    }
}

/// Arms down at the sides when no clip poses the body (no T-pose ever shows).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PostureSettings {
    pub enabled: bool,
    /// Upper arms out from straight down, degrees (more when the hips need clearing).
    pub arm_spread_deg: f32,
    /// Upper arms forward of straight down, degrees.
    pub arm_forward_deg: f32,
    /// Elbow bend, degrees.
    pub elbow_bend_deg: f32,
}

impl Default for PostureSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            arm_spread_deg: 6.0,
            arm_forward_deg: 4.0,
            elbow_bend_deg: 14.0,
        }
    }
}

/// Breathing: the chest lifts, the shoulders barely; the exhale is longer than the inhale.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BreathingSettings {
    pub enabled: bool,
    /// Breaths a minute (people at rest: 12-20).
    pub rate_per_min: f32,
    /// The inhale's share of a breath (0-1).
    pub inhale_share: f32,
    /// How far the chest rises at the top of a breath, millimetres.
    pub chest_lift_mm: f32,
    /// How far the upper spine straightens at the top of a breath, degrees.
    pub chest_deg: f32,
    /// How far the collarbones lift, degrees.
    pub shoulder_deg: f32,
}

impl Default for BreathingSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            rate_per_min: 15.0,
            inhale_share: 0.4,
            chest_lift_mm: 3.0,
            chest_deg: 1.0,
            shoulder_deg: 0.6,
        }
    }
}

/// The torso swaying and turning slowly, the head drifting on its own slower rhythm, the torso
/// turning a little toward what the eyes look at.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SwaySettings {
    pub enabled: bool,
    /// Sideways lean of the torso, degrees.
    pub torso_deg: f32,
    /// Turn of the torso, degrees.
    pub turn_deg: f32,
    /// The torso's main rhythm, seconds.
    pub period_s: f32,
    /// Head drift, degrees.
    pub head_deg: f32,
    /// The head's rhythm, seconds.
    pub head_period_s: f32,
    /// Share of the gaze target's direction the torso turns toward (0-1).
    pub toward_gaze: f32,
    /// ... and while listening to someone speak, toward the speaker (0-1).
    pub toward_speaker: f32,
}

impl Default for SwaySettings {
    fn default() -> Self {
        Self {
            enabled: true,
            torso_deg: 1.2,
            turn_deg: 1.5,
            period_s: 7.0,
            head_deg: 1.5,
            head_period_s: 11.0,
            toward_gaze: 0.15,
            toward_speaker: 0.4,
        }
    }
}

/// Upper arms hanging: drifting and swinging slightly against the torso's sway.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ArmSettings {
    pub enabled: bool,
    /// Drift of each upper arm, degrees.
    pub swing_deg: f32,
    /// Share of the torso's sideways lean the arms hang against (0-1).
    pub hang: f32,
}

impl Default for ArmSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            swing_deg: 1.5,
            hang: 0.7,
        }
    }
}

/// Settling onto one foot now and then: hips over the standing foot, the free side dipping,
/// the shoulders tilted the other way, both feet planted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WeightShiftSettings {
    pub enabled: bool,
    /// Shortest and longest time between shifts, seconds (seeded in between).
    pub min_interval_s: f32,
    pub max_interval_s: f32,
    /// How long a shift takes, seconds.
    pub transition_s: f32,
    /// How far the hips move over the standing foot, metres.
    pub hip_shift_m: f32,
    /// How far the hips drop, metres.
    pub hip_drop_m: f32,
    /// How far the free side of the pelvis dips, degrees.
    pub pelvis_tilt_deg: f32,
    /// How far the shoulders tilt the other way, degrees.
    pub shoulder_tilt_deg: f32,
}

impl Default for WeightShiftSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            min_interval_s: 8.0,
            max_interval_s: 30.0,
            transition_s: 1.6,
            hip_shift_m: 0.06,
            hip_drop_m: 0.012,
            pelvis_tilt_deg: 3.0,
            shoulder_tilt_deg: 2.0,
        }
    }
}

/// Relaxed hands: each finger curled toward the palm, a little more toward the little finger,
/// each drifting on its own slow rhythm.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HandSettings {
    pub enabled: bool,
    /// Curl of each finger joint, degrees (the index finger's; the others more).
    pub curl_deg: f32,
    /// How much more each finger toward the little one curls (share of `curl_deg`).
    pub curl_spread: f32,
    /// Drift of each finger, degrees.
    pub drift_deg: f32,
}

impl Default for HandSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            curl_deg: 18.0,
            curl_spread: 0.15,
            drift_deg: 3.0,
        }
    }
}

/// Talking with the hands and head. For each phrase of a line the hands move into a talking
/// pose (or drop), stressed syllables get a beat (a small down-flick of the raised hand and a
/// nod), and listeners nod now and then as a phrase of the speaker ends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GestureSettings {
    pub enabled: bool,
    /// Share of phrases the hands gesture through (0-1); in the others they drop.
    pub phrase_share: f32,
    /// How far the hands travel toward a talking pose (1: the pose itself; 0.5-1.5).
    pub size: f32,
    /// How quickly the hands move into and out of poses and beats (1: as planned; 0.5-2).
    pub speed: f32,
    /// Share of stressed syllables that get a beat (0-1).
    pub beat_share: f32,
    /// How far a beat flicks the raised hand down, centimetres.
    pub beat_cm: f32,
    /// How far a beat nods the head, degrees.
    pub beat_nod_deg: f32,
    /// How long before the stressed syllable a beat's preparation starts, ms (150-250).
    pub beat_lead_ms: f32,
    /// How long after the stressed syllable starts the stroke's apex comes, ms (0-100).
    pub apex_lag_ms: f32,
    /// Share of the speaker's phrase ends a listener nods at (0-1).
    pub listener_nod_share: f32,
    /// How far a listener nods, degrees.
    pub listener_nod_deg: f32,
}

impl Default for GestureSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            phrase_share: 0.8,
            size: 1.0,
            speed: 1.0,
            beat_share: 0.8,
            beat_cm: 3.0,
            beat_nod_deg: 3.0,
            beat_lead_ms: 200.0,
            apex_lag_ms: 40.0,
            listener_nod_share: 0.5,
            listener_nod_deg: 7.0,
        }
    }
}
