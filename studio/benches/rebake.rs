//! An edit in the studio re-bakes the line and re-plots it: a viseme weight changed with a
//! 30 s line on the timeline, then the points of every stage of the plotted targets built.

use criterion::{Criterion, criterion_group, criterion_main};
use npc_core::anim::face::Stage;
use npc_core::anim::lipsync::{VisemeEvent, VisemeTrack};
use npc_core::project::demo_project;
use npc_core::speech::LineSource;
use npc_core::{ArkitTarget, LineCue, VisemeId};
use npc_studio::command::Command;
use npc_studio::panels::timeline::stage_points;
use npc_studio::state::Studio;

/// 30 s of visemes, a new one every 90 ms, cycling through the 22 ids.
fn thirty_seconds() -> LineSource {
    let events: Vec<VisemeEvent> = (0..333)
        .map(|i| VisemeEvent::new(VisemeId::new(i % 22).expect("id"), f64::from(i) * 90.0))
        .collect();
    LineSource {
        cue: LineCue::from_track(VisemeTrack::from_events(events).expect("track")),
        audio: None,
        utterance: None,
        heard: Vec::new(),
    }
}

fn rebake(c: &mut Criterion) {
    let mut studio = Studio::new(demo_project(), None);
    let project = studio.doc.project.clone();
    studio.timeline.set_source(
        "30 s".to_owned(),
        thirty_seconds(),
        &project,
        &npc_core::anim::OwnShapes::default(),
    );
    let frames = studio.timeline.bake.as_ref().map_or(0, |b| b.frames.len());
    assert!(frames > 1800, "{frames} frames");
    let pp = VisemeId::new(21).expect("id");
    let mut w = 0.0;
    c.bench_function("rebake_and_replot_30s_line_after_an_edit", |b| {
        b.iter(|| {
            w = if w > 0.5 { 0.1 } else { w + 0.01 };
            studio.apply(Command::SetVisemeWeight {
                viseme: pp,
                target: ArkitTarget::MouthPressLeft,
                weight: w,
            });
            let bake = studio.timeline.bake.as_ref().expect("baked");
            let mut n = 0;
            for &t in &studio.timeline.plot_targets {
                for stage in Stage::ALL {
                    n += stage_points(bake, stage, t).len();
                }
            }
            std::hint::black_box(n)
        });
    });
}

criterion_group!(benches, rebake);
criterion_main!(benches);
