//! The torso swaying and turning slowly, the head drifting on its own slower rhythm, and the
//! torso turning a little toward what the NPC attends to (further toward someone it listens
//! to).

use glam::{Quat, Vec3};

use super::rhythm::{SWAY_STREAM, Wobble, lean, stream};
use crate::asset::Transform;
use crate::body::humanoid::{HumanoidBone, HumanoidMap};
use crate::body::layer::{BodyLayer, LayerInput};
use crate::body::settings::SwaySettings;
use crate::body::skeleton::Skeleton;
use crate::body::space::{position, rotate_world};

/// Time constant of the torso's turn toward the point of attention, seconds.
const GAZE_TURN_TAU_S: f32 = 0.8;
/// The most the torso turns toward the point of attention, degrees.
const MAX_GAZE_TURN_DEG: f32 = 20.0;

/// The sway layer.
#[derive(Debug)]
pub struct SwayLayer {
    pub settings: SwaySettings,
    /// Spine, chest, upper chest: the ones the rig has.
    spine: Vec<usize>,
    neck_head: Vec<usize>,
    /// Where the torso turns from (the chest at rest), avatar space.
    chest_at: Vec3,
    left: Vec3,
    front: Vec3,
    lean: Wobble,
    turn: Wobble,
    /// Head pitch, yaw and roll.
    head: [Wobble; 3],
    /// The turn toward the point of attention now, radians (eased).
    gaze_turn: f32,
}

impl SwayLayer {
    #[must_use]
    pub fn new(skeleton: &Skeleton, map: &HumanoidMap, settings: &SwaySettings, seed: u64) -> Self {
        use HumanoidBone as B;
        let rest = skeleton.rest_world();
        let spine: Vec<usize> = [B::Spine, B::Chest, B::UpperChest]
            .iter()
            .filter_map(|b| map.joint(*b))
            .collect();
        let chest_at = spine.last().map_or(Vec3::Y * 1.3, |&j| position(&rest, j));
        let mut rng = stream(seed, SWAY_STREAM);
        let head_period = settings.head_period_s;
        Self {
            spine,
            neck_head: [B::Neck, B::Head]
                .iter()
                .filter_map(|b| map.joint(*b))
                .collect(),
            chest_at,
            left: map.left(),
            front: map.front,
            lean: lean(seed, settings.period_s),
            turn: Wobble::new(&mut rng, settings.period_s * 1.3),
            head: [
                Wobble::new(&mut rng, head_period),
                Wobble::new(&mut rng, head_period * 1.2),
                Wobble::new(&mut rng, head_period * 0.9),
            ],
            gaze_turn: 0.0,
            settings: settings.clone(),
        }
    }

    /// The turn toward `attention` the torso wants, radians (about up; + toward the left):
    /// more of the way while listening, when what it attends to is the speaker.
    fn wanted_gaze_turn(&self, attention: Option<Vec3>, listening: bool) -> f32 {
        let Some(point) = attention else { return 0.0 };
        let d = point - self.chest_at;
        let (ahead, aside) = (d.dot(self.front), d.dot(self.left));
        if ahead <= 0.0 && aside.abs() < 1e-3 {
            return 0.0;
        }
        let yaw = aside.atan2(ahead.max(1e-3));
        let share = if listening {
            self.settings.toward_speaker
        } else {
            self.settings.toward_gaze
        };
        (yaw * share.clamp(0.0, 1.0)).clamp(
            -MAX_GAZE_TURN_DEG.to_radians(),
            MAX_GAZE_TURN_DEG.to_radians(),
        )
    }
}

impl BodyLayer for SwayLayer {
    fn name(&self) -> &'static str {
        "sway"
    }

    fn apply(&mut self, skeleton: &Skeleton, input: &LayerInput, locals: &mut [Transform]) {
        if !self.settings.enabled {
            return;
        }
        let t = input.time_s;
        let k = 1.0 - (-input.dt_s.max(0.0) / GAZE_TURN_TAU_S).exp();
        let listening = input.talk.is_some_and(|t| t.plan.listening);
        self.gaze_turn += (self.wanted_gaze_turn(input.attention, listening) - self.gaze_turn) * k;
        if !self.spine.is_empty() {
            let share = 1.0 / self.spine.len() as f32;
            let lean = self.settings.torso_deg.to_radians() * self.lean.at(t) * share;
            let turn =
                (self.settings.turn_deg.to_radians() * self.turn.at(t) + self.gaze_turn) * share;
            let step =
                Quat::from_axis_angle(Vec3::Y, turn) * Quat::from_axis_angle(self.front, lean);
            for &j in &self.spine {
                rotate_world(skeleton, locals, j, step);
            }
        }
        if !self.neck_head.is_empty() {
            let share = 1.0 / self.neck_head.len() as f32;
            let amount = self.settings.head_deg.to_radians() * share;
            let [pitch, yaw, roll] = self.head.map(|w| w.at(t) * amount);
            let step = Quat::from_axis_angle(Vec3::Y, yaw)
                * Quat::from_axis_angle(self.left, pitch)
                * Quat::from_axis_angle(self.front, roll * 0.5);
            for &j in &self.neck_head {
                rotate_world(skeleton, locals, j, step);
            }
        }
    }
}
