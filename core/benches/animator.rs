//! Speed of the face animator: one frame with every stage, and a 30 s bake.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use npc_core::LineCue;
use npc_core::anim::face::{FaceAnimator, FaceSettings};
use npc_core::anim::lipsync::{VisemeEvent, VisemeTrack};
use npc_core::anim::timeline::{self, BakeOptions};

/// The demo line ("Welcome, traveler. What brings you here?") repeated to `seconds`.
fn speech(seconds: f64) -> VisemeTrack {
    let line: Vec<VisemeEvent> =
        serde_json::from_str(include_str!("../../projects/demo-line.json")).expect("demo line");
    let length = line.last().map_or(1.0, |e| e.offset_ms) + 300.0;
    let mut events = Vec::new();
    let mut start = 0.0;
    while start < seconds * 1000.0 {
        events.extend(
            line.iter()
                .map(|e| VisemeEvent::new(e.id, e.offset_ms + start)),
        );
        start += length;
    }
    VisemeTrack::from_events(events).expect("valid track")
}

fn one_frame(c: &mut Criterion) {
    let track = speech(60.0);
    let end = track.last_offset_ms();
    let mut face = FaceAnimator::new(FaceSettings::default(), 7);
    let cue = LineCue::from_track(track.clone());
    face.start_line(&cue);
    let dt = 1000.0 / 60.0;
    let mut t = 0.0;
    c.bench_function("face_animator_update_60fps", |b| {
        b.iter(|| {
            t += dt;
            if t > end {
                t = 0.0;
                face.start_line(&cue);
            }
            let frame = face
                .update(black_box(t), black_box(dt))
                .expect("complete track");
            black_box(frame.final_pose().0[17]);
        });
    });
}

fn bake_30s(c: &mut Criterion) {
    let track = speech(30.0);
    let settings = FaceSettings::default();
    let cue = LineCue::from_track(track);
    let options = BakeOptions {
        fps: 60.0,
        duration_ms: Some(30_000.0),
        ..BakeOptions::default()
    };
    c.bench_function("bake_30s_60fps_all_stages", |b| {
        b.iter(|| {
            let bake = timeline::bake(&settings, black_box(&cue), &options).expect("bake");
            black_box(bake.frames.len());
        });
    });
}

criterion_group!(benches, one_frame, bake_30s);
criterion_main!(benches);
