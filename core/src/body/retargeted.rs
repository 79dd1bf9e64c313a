//! Another rig's clips made once into clips on an avatar's own joints: retargeting a pose costs
//! a walk down both skeletons, and a crowd of one avatar plays the same few clips, so each clip
//! is retargeted at its keys when the avatar loads and every NPC then samples the result as it
//! would the avatar's own clips.

use std::sync::Arc;

use glam::Quat;

use super::humanoid::HumanoidMap;
use super::retarget::{ClipRig, Retarget};
use super::skeleton::Skeleton;
use crate::asset::animation::{Channel, Clip, Interpolation, Property};

/// Keys of a clip made on the avatar are at most this far apart, seconds: between two of the
/// source's keys the made clip turns each joint along the shortest arc, where retargeting the
/// source's in-between pose would turn it along a slightly different one.
pub const MAX_KEY_GAP_S: f32 = 1.0 / 60.0;

/// A rig's clips, made into clips on one avatar's joints.
#[derive(Debug)]
pub struct RetargetedClips {
    /// The rig the clips were made on.
    pub rig: Arc<ClipRig>,
    /// Each of the rig's clips on the avatar's joints, in the rig's order and with its names.
    pub clips: Vec<Clip>,
    /// The rate the walk plays at: longer legs take longer strides, so they walk slower to keep
    /// pace with the ground covered.
    pub walk_rate: f32,
}

impl RetargetedClips {
    /// `rig`'s clips on the avatar with `skeleton` and humanoid `map`.
    #[must_use]
    pub fn new(rig: &Arc<ClipRig>, skeleton: &Skeleton, map: &HumanoidMap) -> Self {
        let mut retarget = Retarget::new(rig, skeleton, map);
        let clips = rig
            .clips
            .iter()
            .map(|clip| made_on_avatar(&mut retarget, &rig.skeleton, clip, skeleton))
            .collect();
        Self {
            rig: Arc::clone(rig),
            clips,
            walk_rate: 1.0 / retarget.scale.max(0.1),
        }
    }
}

/// The times `clip` is sampled at: every key of every channel, with keys added where two are
/// more than [`MAX_KEY_GAP_S`] apart.
fn key_times(clip: &Clip) -> Vec<f32> {
    let mut keys: Vec<f32> = clip
        .channels
        .iter()
        .flat_map(|c| c.times.iter().copied())
        .filter(|t| t.is_finite() && *t >= 0.0 && *t <= clip.duration_s)
        .chain([0.0, clip.duration_s])
        .collect();
    keys.sort_by(f32::total_cmp);
    keys.dedup_by(|a, b| (*a - *b).abs() < 1e-5);
    let mut times = Vec::with_capacity(keys.len());
    for pair in keys.windows(2) {
        let steps = ((pair[1] - pair[0]) / MAX_KEY_GAP_S).ceil().max(1.0) as usize;
        times.extend((0..steps).map(|i| pair[0] + (pair[1] - pair[0]) * i as f32 / steps as f32));
    }
    times.extend(keys.last());
    times
}

/// `clip` (on `source`'s joints) retargeted at its keys onto `target`'s: a rotation channel for
/// each joint the retarget poses, a translation channel for the hips.
fn made_on_avatar(
    retarget: &mut Retarget,
    source: &Skeleton,
    clip: &Clip,
    target: &Skeleton,
) -> Clip {
    let times = key_times(clip);
    let posed = retarget.posed_joints();
    let hips = retarget.target_hips();
    let mut rotations: Vec<Vec<f32>> = vec![Vec::with_capacity(times.len() * 4); posed.len()];
    let mut translations = Vec::with_capacity(times.len() * 3);
    let mut source_locals = source.rest.clone();
    let mut locals = target.rest.clone();
    let mut weights = vec![Vec::new(); source.len()];
    let mut last: Vec<Quat> = vec![Quat::IDENTITY; posed.len()];
    for &t in &times {
        source_locals.clone_from_slice(&source.rest);
        clip.sample(t, false, &mut source_locals, &mut weights);
        retarget.apply(source, &source_locals, target, &mut locals);
        for (i, &joint) in posed.iter().enumerate() {
            let mut q = locals[joint].rotation;
            // Neighbouring keys on the same side of the sphere, so the shortest arc is taken.
            if q.dot(last[i]) < 0.0 {
                q = -q;
            }
            last[i] = q;
            rotations[i].extend(q.to_array());
        }
        if let Some(h) = hips {
            translations.extend(locals[h].translation.to_array());
        }
    }
    let times: Arc<[f32]> = times.into();
    let channel = |node, property, values: Vec<f32>, width| Channel {
        node,
        property,
        interpolation: Interpolation::Linear,
        times: Arc::clone(&times),
        values: values.into(),
        width,
    };
    let mut channels: Vec<Channel> = posed
        .iter()
        .zip(rotations)
        .map(|(&joint, values)| channel(joint, Property::Rotation, values, 4))
        .collect();
    if let Some(h) = hips {
        channels.push(channel(h, Property::Translation, translations, 3));
    }
    Clip {
        name: clip.name.clone(),
        duration_s: clip.duration_s,
        channels,
        face: clip.face.clone(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::asset::Transform;
    use crate::procedural::body::clip_rig;

    /// `clip`'s pose at `t` (looped) on `skeleton`.
    fn sampled(clip: &Clip, t: f32, skeleton: &Skeleton) -> Vec<Transform> {
        let mut locals = skeleton.rest.clone();
        let mut weights = vec![Vec::new(); skeleton.len()];
        clip.sample(t, true, &mut locals, &mut weights);
        locals
    }

    /// The built-in clips made once on a rig with longer legs and its arms raised to a T at
    /// rest play, at times between their keys, the pose retargeting every frame gives: every
    /// joint within 1 mm.
    #[test]
    fn clips_made_once_match_retargeting_every_frame() {
        let rig = Arc::new(clip_rig());
        let mut rest = rig.skeleton.rest.clone();
        for (side, sign) in [(0, 1.0_f32), (1, -1.0)] {
            let upper = rig
                .map
                .joint(super::super::humanoid::ARMS[side][1])
                .unwrap();
            rest[upper].rotation =
                Quat::from_rotation_z(sign * std::f32::consts::FRAC_PI_2) * rest[upper].rotation;
        }
        for side in super::super::humanoid::LEGS {
            let shin = rig.map.joint(side[1]).unwrap();
            rest[shin].translation *= 1.3;
        }
        let target = Skeleton::new(
            rig.skeleton.parents.clone(),
            rig.skeleton.names.clone(),
            rest,
        );
        let map = HumanoidMap::of(&target);
        let made = RetargetedClips::new(&rig, &target, &map);
        assert!(made.walk_rate < 1.0, "longer legs walk slower");
        let mut retarget = Retarget::new(&rig, &target, &map);
        let mut worst = 0.0f32;
        for (clip, source) in made.clips.iter().zip(&rig.clips) {
            assert_eq!(clip.name, source.name);
            for i in 0..97 {
                let t = source.duration_s * i as f32 / 96.0 + 0.0037;
                let mut live = target.rest.clone();
                retarget.apply(
                    &rig.skeleton,
                    &sampled(source, t, &rig.skeleton),
                    &target,
                    &mut live,
                );
                let (want, got) = (
                    target.world(&live),
                    target.world(&sampled(clip, t, &target)),
                );
                for (w, g) in want.iter().zip(&got) {
                    worst = worst.max(w.w_axis.distance(g.w_axis));
                }
            }
        }
        eprintln!("worst joint {worst} m from retargeting every frame");
        assert!(
            worst < 1e-3,
            "a joint {worst} m from retargeting every frame"
        );
    }

    #[test]
    fn keys_are_never_further_apart_than_the_gap() {
        let rig = clip_rig();
        for clip in &rig.clips {
            let times = key_times(clip);
            assert_eq!(times.first(), Some(&0.0));
            assert_eq!(times.last(), Some(&clip.duration_s));
            for pair in times.windows(2) {
                assert!(pair[1] > pair[0]);
                assert!(pair[1] - pair[0] <= MAX_KEY_GAP_S + 1e-6);
            }
        }
    }
}
