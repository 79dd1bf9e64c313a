//! Another rig's clips are retargeted once, when an avatar loads, into clips on the avatar's own
//! joints (`RetargetedClips`): on the real avatars users bring, the made clips pose every joint
//! where retargeting the source's pose every frame puts it, between the keys too.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use std::path::PathBuf;
use std::sync::Arc;

use npc_core::asset::Asset;
use npc_core::asset::animation::Clip;
use npc_core::body::{ClipRig, HumanoidMap, Retarget, RetargetedClips, Skeleton};

/// `clip`'s pose at `t_s` on `skeleton` (looped).
fn sampled(clip: &Clip, t_s: f32, skeleton: &Skeleton) -> Vec<npc_core::asset::Transform> {
    let mut locals = skeleton.rest.clone();
    clip.sample(t_s, true, &mut locals, &mut []);
    locals
}

/// The farthest any joint of `target` is, over 200 times in each clip of `rig`, between the
/// made clips' pose and the pose retargeting the source's every frame gives; in the avatar's
/// metres.
fn worst_joint_m(rig: &Arc<ClipRig>, target: &Skeleton) -> f32 {
    let map = HumanoidMap::of(target);
    let made = RetargetedClips::new(rig, target, &map);
    let mut live_retarget = Retarget::new(rig, target, &map);
    let mut worst = 0.0f32;
    assert_eq!(made.clips.len(), rig.clips.len());
    for (clip, source) in made.clips.iter().zip(&rig.clips) {
        for i in 0..200 {
            // Off the keys: 200 steps that fall between the source's 30 or 60 a second.
            let t = source.duration_s * (i as f32 + 0.37) / 200.0;
            let mut live = target.rest.clone();
            live_retarget.apply(
                &rig.skeleton,
                &sampled(source, t, &rig.skeleton),
                target,
                &mut live,
            );
            let want = target.world(&live);
            let got = target.world(&sampled(clip, t, target));
            for (w, g) in want.iter().zip(&got) {
                worst = worst.max(w.w_axis.truncate().distance(g.w_axis.truncate()));
            }
        }
    }
    worst
}

#[test]
fn clips_made_once_on_real_avatars_match_retargeting_every_frame() {
    let avatars: Vec<PathBuf> = [
        common::shared_asset("avatars/Quaternius_Superhero_Male.glb"),
        common::shared_asset("avatars/VALID_White_M_1_Casual.glb"),
        common::vrm_avatar("suzuha.vrm"),
        common::vrm_avatar("AliciaSolid.vrm"),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut sources = vec![("built-in", Arc::new(npc_core::procedural::body::clip_rig()))];
    if let Some(vrma) = common::vrm_avatar("VRMA_01.vrma") {
        let asset = Asset::load(&vrma).unwrap();
        sources.push((
            "VRMA_01",
            Arc::new(ClipRig::new(Skeleton::of(&asset), asset.clips)),
        ));
    }
    for path in &avatars {
        let target = Skeleton::of(&Asset::load(path).unwrap());
        for (name, rig) in &sources {
            let worst = worst_joint_m(rig, &target);
            eprintln!(
                "{} playing {name}: every joint within {:.3} mm",
                path.file_name().unwrap().to_string_lossy(),
                worst * 1000.0
            );
            assert!(
                worst < 1e-3,
                "{}: {name}'s clips made once put a joint {worst} m from retargeting every frame",
                path.display()
            );
        }
    }
}
