//! Speed of one body update with every layer on (clips, idle life, foot IK, look-at): on the
//! project's own body (with its clips) and, when ../shared is beside the project, on a
//! Quaternius rig and a VALID rig (centimetres, 0.01 scale), both playing the built-in
//! body's clips retargeted. And one update while talking, with the talking layer on and off.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec3;
use npc_core::LineCue;
use npc_core::anim::lipsync::{VisemeEvent, VisemeTrack};
use npc_core::asset::Asset;
use npc_core::body::talk::{TalkMoment, TalkPlan};
use npc_core::body::{
    Activity, Body, BodySettings, ClipRig, ClipSource, HumanoidMap, LayerInput, RetargetedClips,
    Skeleton,
};
use npc_core::procedural::{body, head};
use npc_core::viseme::VisemeId;
use std::sync::Arc;

fn bench_body(
    c: &mut Criterion,
    name: &str,
    asset: &Asset,
    clips: ClipSource<'_>,
    settings: &BodySettings,
) {
    let skeleton = Skeleton::of(asset);
    let map = HumanoidMap::of(&skeleton);
    let mut body = Body::new(&skeleton, &map, clips, settings, 7, 0.0);
    let ground = |p: Vec3| 0.02 * p.x;
    let mut attention = Vec3::new(0.5, 1.6, 2.0);
    c.bench_function(&format!("body_update_{name}"), |b| {
        b.iter(|| {
            attention.x = -attention.x;
            let input = LayerInput {
                dt_s: 1.0 / 60.0,
                time_s: 0.0,
                clip_pose: false,
                inhale: false,
                activity: Activity::Idle,
                attention: Some(attention),
                talk: None,
                bearing: npc_core::body::Bearing::default(),
                detail: npc_core::body::BodyDetail::Full,
                ground: Some(&ground),
            };
            body.update(&skeleton, black_box(&input));
            black_box(body.locals[0].translation.y);
        });
    });
}

fn updates(c: &mut Criterion) {
    let own = Asset::from_bytes(&body::avatar_glb(&head::head_parts()), None).expect("avatar");
    let all = BodySettings::default();
    let mut without_idle_life = BodySettings::default();
    without_idle_life.posture.enabled = false;
    without_idle_life.breathing.enabled = false;
    without_idle_life.sway.enabled = false;
    without_idle_life.arms.enabled = false;
    without_idle_life.weight_shift.enabled = false;
    without_idle_life.hands.enabled = false;
    bench_body(
        c,
        "all_layers_project_body",
        &own,
        ClipSource::Own(&own.clips),
        &all,
    );
    let rig: Arc<ClipRig> = Arc::new(body::clip_rig());
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/assets/avatars");
    for (name, file) in [
        ("quaternius", "Quaternius_Superhero_Male.glb"),
        ("valid", "VALID_White_M_1_Casual.glb"),
    ] {
        if let Ok(asset) = Asset::load(&shared.join(file)) {
            let skeleton = Skeleton::of(&asset);
            let made = RetargetedClips::new(&rig, &skeleton, &HumanoidMap::of(&skeleton));
            let clips = ClipSource::Retargeted(&made);
            bench_body(c, &format!("all_layers_{name}"), &asset, clips, &all);
            bench_body(
                c,
                &format!("clips_ik_look_at_{name}"),
                &asset,
                clips,
                &without_idle_life,
            );
        }
    }
}

/// A 6 s line of three phrases with a stressed syllable every 450 ms.
fn talking_line() -> LineCue {
    let id = |n| VisemeId::new(n).unwrap_or(VisemeId::SILENCE);
    let mut events = vec![VisemeEvent::new(VisemeId::SILENCE, 0.0)];
    for (start, end) in [(100.0, 1900.0), (2300.0, 4000.0), (4400.0, 5800.0)] {
        let mut t = start;
        let mut k = 0;
        while t < end {
            events.push(VisemeEvent::new(id([2, 21, 6, 11][k % 4]), t));
            t += 90.0;
            k += 1;
        }
        events.push(VisemeEvent::new(VisemeId::SILENCE, end));
    }
    let mut cue = LineCue::from_track(VisemeTrack::from_events(events).expect("track"));
    cue.stresses_ms = (0..13).map(|k| 150.0 + 450.0 * f64::from(k)).collect();
    cue
}

/// One body update while talking (the line's talking poses, beats and nods), with the
/// talking layer on and off (the difference is what talking costs), and in a sad line (the
/// bearing's slump and breathing).
fn talking(c: &mut Criterion) {
    let own = Asset::from_bytes(&body::avatar_glb(&head::head_parts()), None).expect("avatar");
    let skeleton = Skeleton::of(&own);
    let map = HumanoidMap::of(&skeleton);
    let cue = talking_line();
    let ground = |_: Vec3| 0.0;
    let sad = Some((npc_core::anim::emotion::Emotion::Sad, 1.0));
    for (name, on, emotion) in [
        ("talking_project_body", true, None),
        ("talking_sad_project_body", true, sad),
        ("talking_off_project_body", false, None),
    ] {
        let mut settings = BodySettings::default();
        settings.gestures.enabled = on;
        let plan = TalkPlan::speaking(&cue, &settings.gestures, 7);
        let mut body = Body::new(
            &skeleton,
            &map,
            ClipSource::Own(&own.clips),
            &settings,
            7,
            0.0,
        );
        body.set_emotion(emotion);
        let mut at_ms = 0.0;
        c.bench_function(name, |b| {
            b.iter(|| {
                at_ms = (at_ms + 1000.0 / 60.0) % 6000.0;
                let input = LayerInput {
                    dt_s: 1.0 / 60.0,
                    time_s: 0.0,
                    clip_pose: false,
                    inhale: false,
                    activity: Activity::Talk,
                    attention: None,
                    talk: Some(TalkMoment {
                        plan: &plan,
                        at_ms,
                        point_at: None,
                    }),
                    bearing: npc_core::body::Bearing::default(),
                    detail: npc_core::body::BodyDetail::Full,
                    ground: Some(&ground),
                };
                body.update(&skeleton, black_box(&input));
                black_box(body.locals[0].translation.y);
            });
        });
    }
}

/// Spring bones of real avatars, one frame at 60 fps with the avatar walking: a VRoid-made
/// one (suzuha.vrm, VRM 0.x: 24 chains, 66 joints, 22 colliders) and a UniVRM-made one
/// (AliciaSolid.vrm, VRM 1.0: 18 springs, 48 joints simulated, 14 colliders), as
/// scripts/setup.sh fetches them; the goal is under 20 us per NPC for about 200 joints.
fn springs(c: &mut Criterion) {
    use npc_core::body::spring::{SpringRig, SpringState};
    let folder = std::env::var_os("NPC_VRM_AVATARS")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/living-npc/vrm")));
    for (name, file) in [
        ("spring_bones_vroid", "suzuha.vrm"),
        ("spring_bones_vrm1", "AliciaSolid.vrm"),
    ] {
        let Some(asset) = folder
            .as_ref()
            .map(|d| d.join(file))
            .filter(|p| p.exists())
            .and_then(|p| Asset::load(&p).ok())
        else {
            println!("{name}: NOT RUN, {file} is not fetched (scripts/setup.sh)");
            continue;
        };
        let skeleton = Skeleton::of(&asset);
        // The avatar's own springs, then its chains simulated three times over: what a joint
        // costs beyond the frame's fixed work (placing colliders), for an avatar of about
        // 200 joints (none such is fetched).
        let mut tripled = asset.spring_bones.clone();
        let chains = tripled.chains.clone();
        tripled.chains.extend(chains.iter().cloned());
        tripled.chains.extend(chains);
        for (bones, times) in [(&asset.spring_bones, ""), (&tripled, "_chains_x3")] {
            let rig = SpringRig::new(bones, &skeleton);
            let mut state = SpringState::default();
            let mut world = Vec::new();
            let mut locals = skeleton.rest.clone();
            let mut t = 0.0f32;
            c.bench_function(
                &format!("{name}{times}_{}_joints", rig.joint_count()),
                |b| {
                    b.iter(|| {
                        t += 1.0 / 60.0;
                        let model = glam::Mat4::from_translation(Vec3::new(0.0, 0.0, 1.4 * t));
                        locals.clone_from(&skeleton.rest);
                        skeleton.world_into(&locals, &mut world);
                        rig.update(&mut state, model, &mut locals, &mut world, 1.0 / 60.0);
                        black_box(locals[0].rotation);
                    });
                },
            );
        }
        let mut world = Vec::new();
        let mut locals = skeleton.rest.clone();
        // The same frame without the springs: what the simulation costs is the difference.
        c.bench_function(&format!("{name}_pose_only"), |b| {
            b.iter(|| {
                locals.clone_from(&skeleton.rest);
                skeleton.world_into(&locals, &mut world);
                black_box(world[0]);
            });
        });
    }
}

criterion_group!(benches, updates, talking, springs);
criterion_main!(benches);
