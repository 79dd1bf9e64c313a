//! The gestures an agent asks for with a line, added to the speaker's plan: each starts at
//! the word it names (the line's start otherwise) and replaces the phrase's own pose for the
//! hands it uses; nods and head shakes go to the head. A clip of the speaker's avatar asked
//! for by name (any but point, which aims) plays in place of the built-in gesture of that
//! name, and in place of the phrases' own poses while it lasts.

use super::phases::Phases;
use super::plan::{ClipStroke, Nod, Stroke, TalkPlan};
use super::poses::{Hands, TalkPose};
use crate::agent::cues::{GestureCue, GestureName};
use crate::anim::LineCue;
use crate::asset::animation::Clip;

/// A requested pose's preparation starts this long before its word, ms.
const LEAD_MS: f64 = 300.0;
/// ... it is there this long after the word starts, ms.
const APEX_MS: f64 = 250.0;
/// ... it holds this long, ms.
const HOLD_MS: f64 = 1200.0;
/// ... and retracts over this long, ms.
const RETRACTION_MS: f64 = 600.0;
/// A requested nod, degrees.
const NOD_DEG: f32 = 10.0;
/// A head shake lasts this long, ms.
const SHAKE_MS: f64 = 1100.0;
/// A gesture clip blends in and out over this long at most (a third of a short clip), ms.
const CLIP_BLEND_MS: f64 = 300.0;

impl TalkPlan {
    /// Adds `requests` over the line `cue`; `pointing_hand(i)` says which hand points at
    /// request `i`'s target (the one on the target's side); `clips` are the ones the body can
    /// play. A request that is neither built in nor one of `clips` is left out with a warning.
    #[must_use]
    pub fn with_requests(
        mut self,
        requests: &[GestureCue],
        cue: &LineCue,
        pointing_hand: impl Fn(usize) -> Hands,
        clips: &[Clip],
        warnings: &mut Vec<String>,
    ) -> Self {
        for (i, request) in requests.iter().enumerate() {
            let at = request
                .word
                .and_then(|w| cue.words_ms.get(w).copied())
                .or_else(|| cue.phrases_ms().first().map(|p| p.0))
                .unwrap_or(0.0);
            let start = (at - LEAD_MS).max(0.0);
            let clip = (request.name != GestureName::Point)
                .then(|| clip_named(clips, request.name.name()))
                .flatten();
            if let Some(clip) = clip {
                self.add_clip(clip, start);
                continue;
            }
            match &request.name {
                GestureName::Nod => self.nods.push(Nod {
                    phases: Phases::new(start, at + APEX_MS, at + APEX_MS + 80.0, at + 800.0),
                    deg: NOD_DEG,
                }),
                GestureName::Headshake => {
                    self.shakes.push(Phases::new(
                        at,
                        at + 200.0,
                        at + SHAKE_MS - 250.0,
                        at + SHAKE_MS,
                    ));
                }
                GestureName::Clip(name) => warnings.push(clip_missing(name, clips)),
                name => {
                    let (pose, hands) = match name {
                        GestureName::Point => (TalkPose::Point, pointing_hand(i)),
                        GestureName::Shrug => (TalkPose::Shrug, Hands::Both),
                        GestureName::OpenPalms => (TalkPose::OpenPalms, Hands::Both),
                        GestureName::Thinking => (TalkPose::Thinking, Hands::Right),
                        _ => (TalkPose::Wave, Hands::Right),
                    };
                    let phases = Phases::new(
                        start,
                        at + APEX_MS,
                        at + APEX_MS + HOLD_MS,
                        at + APEX_MS + HOLD_MS + RETRACTION_MS,
                    );
                    let shares = |h: Hands| (0..2).any(|side| h.has(side) && hands.has(side));
                    self.strokes.retain(|s| {
                        s.requested
                            || !shares(s.hands)
                            || s.phases.end_ms <= phases.start_ms
                            || s.phases.start_ms >= phases.end_ms
                    });
                    self.strokes.push(Stroke {
                        pose,
                        hands,
                        phases,
                        requested: true,
                    });
                }
            }
        }
        self.finish()
    }

    /// Plays `clip` from `start_ms`, its hands in place of the phrases' own poses and beats.
    fn add_clip(&mut self, clip: &Clip, start_ms: f64) {
        let length_ms = f64::from(clip.duration_s) * 1000.0;
        let blend_ms = CLIP_BLEND_MS.min(length_ms / 3.0);
        let phases = Phases::new(
            start_ms,
            start_ms + blend_ms,
            start_ms + length_ms - blend_ms,
            start_ms + length_ms,
        );
        let apart = |p: &Phases| p.end_ms <= phases.start_ms || p.start_ms >= phases.end_ms;
        self.strokes.retain(|s| s.requested || apart(&s.phases));
        self.beats.retain(|b| apart(&b.phases));
        self.clips.push(ClipStroke {
            clip: clip.name.clone(),
            phases,
        });
    }

    /// How far the head is turned aside in a shake at `t_ms`, degrees (+ to its left).
    #[must_use]
    pub fn shake_deg(&self, t_ms: f64) -> f32 {
        self.shakes
            .iter()
            .map(|p| {
                let cycle = ((t_ms - p.start_ms) / 380.0 * std::f64::consts::TAU).sin() as f32;
                12.0 * p.weight(t_ms) * cycle
            })
            .sum()
    }
}

/// The clip of `clips` called `name`, its case, spaces, hyphens and underscores alike
/// (`"standing_greeting"` finds Mixamo's "Standing Greeting").
#[must_use]
pub fn clip_named<'a>(clips: &'a [Clip], name: &str) -> Option<&'a Clip> {
    let key = |s: &str| -> String {
        s.trim()
            .chars()
            .map(|c| match c {
                ' ' | '-' => '_',
                c => c.to_ascii_lowercase(),
            })
            .collect()
    };
    let wanted = key(name);
    clips.iter().find(|c| key(&c.name) == wanted)
}

/// Why a gesture named `name` cannot be played with `clips`.
fn clip_missing(name: &str, clips: &[Clip]) -> String {
    let names: Vec<&str> = clips.iter().map(|c| c.name.as_str()).collect();
    format!(
        "gesture {name:?}: neither built in ({}) nor a clip of this avatar's ({}); ignored",
        GestureName::built_in_names(),
        if names.is_empty() {
            "it has none".to_owned()
        } else {
            names.join(", ")
        }
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::Arc;

    use glam::Quat;

    use super::*;
    use crate::anim::lipsync::{VisemeEvent, VisemeTrack};
    use crate::asset::animation::{Channel, Interpolation, Property};
    use crate::body::spring::SpringRig;
    use crate::body::{
        BodyBake, BodyBakeOptions, BodySettings, ClipRig, ClipSource, HumanoidBone, bake_body,
    };
    use crate::viseme::VisemeId;

    /// A line of three words at 200, 900 and 1600 ms, spoken to 3000 ms.
    fn cue() -> LineCue {
        let id = |n| VisemeId::new(n).unwrap();
        let mut cue = LineCue::from_track(
            VisemeTrack::from_events(vec![
                VisemeEvent::new(id(0), 0.0),
                VisemeEvent::new(id(2), 200.0),
                VisemeEvent::new(id(0), 3000.0),
            ])
            .unwrap(),
        );
        cue.words_ms = vec![200.0, 900.0, 1600.0];
        cue
    }

    /// The built-in rig's clips and a test-made gesture clip called `name`: the right upper
    /// arm held 1.4 rad about its local Z for 1.5 s.
    fn rig_with(name: &str) -> ClipRig {
        let rig = crate::procedural::body::clip_rig();
        let arm = rig.map.joint(HumanoidBone::RightUpperArm).unwrap();
        let raised = rig.skeleton.rest[arm].rotation * Quat::from_rotation_z(1.4);
        let mut clips = rig.clips.clone();
        clips.push(Clip {
            name: name.to_owned(),
            duration_s: 1.5,
            channels: vec![Channel {
                node: arm,
                property: Property::Rotation,
                interpolation: Interpolation::Linear,
                times: Arc::from([0.0, 1.5]),
                values: Arc::from([raised.to_array(), raised.to_array()].concat()),
                width: 4,
            }],
            face: crate::asset::clip_face::FaceTracks::default(),
        });
        ClipRig::new(rig.skeleton.clone(), clips)
    }

    fn bake(rig: &ClipRig, gestures: &[&str]) -> BodyBake {
        bake_body(
            &rig.skeleton,
            &rig.map,
            &SpringRig::default(),
            ClipSource::Own(&rig.clips),
            &BodySettings::default(),
            &BodyBakeOptions {
                fps: 100.0,
                duration_ms: 3500.0,
                talking_ms: 3000.0,
                seed: 7,
                line: Some(cue()),
                emotion: None,
                gestures: gestures
                    .iter()
                    .map(|g| GestureCue::parse(g).unwrap())
                    .collect(),
            },
        )
    }

    #[test]
    fn a_clip_asked_for_by_name_plays_at_its_word_and_hands_back() {
        let rig = rig_with("Standing Salute");
        let plain = bake(&rig, &[]);
        let saluting = bake(&rig, &["standing_salute:1"]);
        assert!(saluting.warnings.is_empty(), "{:?}", saluting.warnings);
        let plan = saluting.talk.as_ref().unwrap();
        assert_eq!(plan.clips.len(), 1);
        let stroke = &plan.clips[0];
        assert_eq!(stroke.clip, "Standing Salute");
        // From 300 ms before its word, blending over 300 ms each way.
        assert_eq!(
            (stroke.phases.start_ms, stroke.phases.apex_ms),
            (600.0, 900.0)
        );
        assert_eq!(
            (stroke.phases.hold_ms, stroke.phases.end_ms),
            (1800.0, 2100.0)
        );
        // The phrase's own poses and beats give way while it plays.
        let apart = |p: &Phases| p.end_ms <= 600.0 || p.start_ms >= 2100.0;
        assert!(plan.strokes.iter().all(|s| apart(&s.phases)));
        assert!(plan.beats.iter().all(|b| apart(&b.phases)));
        let frame = |ms: f64| saluting.times_ms.iter().position(|&t| t >= ms).unwrap();
        // The clips layer holds the clip's pose: the arm 1.4 rad (80.2 degrees) from rest.
        let raised_deg = saluting.angles_deg("clips", "rightUpperArm").unwrap();
        for ms in [950.0, 1300.0, 1750.0] {
            let off = (raised_deg[frame(ms)] - 1.4f32.to_degrees()).abs();
            assert!(
                off < 0.1,
                "at {ms} ms the arm is {off} degrees off the clip's"
            );
        }
        // Nothing of it in the clips layer before it starts or after it ends.
        let clips = saluting.layers.iter().position(|l| *l == "clips").unwrap();
        let bone = saluting
            .bones
            .iter()
            .position(|b| *b == "rightUpperArm")
            .unwrap();
        let arm_at =
            |bake: &BodyBake, ms: f64| Quat::from_array(bake.rotations[frame(ms)][clips][bone]);
        for ms in [0.0, 550.0, 2150.0, 3400.0] {
            let off = arm_at(&saluting, ms)
                .angle_between(arm_at(&plain, ms))
                .to_degrees();
            assert!(off < 0.01, "at {ms} ms the clip shows ({off} degrees)");
        }
        // Halfway into the blend, the arm is between the two.
        let raised = arm_at(&saluting, 1300.0);
        let (with, without) = (arm_at(&saluting, 750.0), arm_at(&plain, 750.0));
        let (to_clip, from_plain) = (with.angle_between(raised), with.angle_between(without));
        assert!(to_clip > 0.1 && from_plain > 0.1, "{to_clip} {from_plain}");
    }

    #[test]
    fn an_avatars_clip_takes_a_built_in_name_and_an_unknown_name_warns() {
        let rig = rig_with("Wave");
        let plan = bake(&rig, &["wave"]).talk.unwrap();
        assert_eq!(plan.clips.len(), 1);
        assert!(plan.strokes.iter().all(|s| !s.requested));
        let missing = bake(&rig, &["jazz_hands:1", "shrug"]);
        assert_eq!(missing.warnings.len(), 1, "{:?}", missing.warnings);
        let w = &missing.warnings[0];
        assert!(w.contains("\"jazz_hands\"") && w.contains("Wave"), "{w}");
        let plan = missing.talk.unwrap();
        assert!(plan.clips.is_empty());
        assert_eq!(plan.strokes.iter().filter(|s| s.requested).count(), 1);
    }
}
