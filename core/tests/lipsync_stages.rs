//! Properties of the lip-sync stages that must hold for any track at any frame rate.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{cue, random_track, sample_at, speech, track};
use npc_core::anim::face::{FaceSettings, Stage};
use npc_core::anim::lipsync::ROUNDING_TARGETS;
use npc_core::anim::timeline::{self, BakeOptions, bake_at};
use npc_core::arkit::{ArkitTarget, Region};
use npc_core::viseme::VisemeId;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn options(fps: f64) -> BakeOptions {
    BakeOptions {
        fps,
        seed: 3,
        speaking: true,
        duration_ms: None,
        emotion: None,
        clip_faces: Vec::new(),
    }
}

/// Frame times with a random dt between 4 and 40 ms.
fn jittered_times(duration_ms: f64, seed: u64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut times = vec![0.0];
    let mut t = 0.0;
    while t < duration_ms {
        t += rng.random_range(4.0..40.0);
        times.push(t);
    }
    times
}

#[test]
fn every_weight_of_every_stage_stays_in_unit_range() {
    let settings = FaceSettings::default();
    for (i, track) in [speech(12.0), random_track(1, 200), random_track(2, 200)]
        .iter()
        .enumerate()
    {
        for fps in [30.0, 60.0, 1000.0] {
            let bake = timeline::bake(&settings, &cue(track), &options(fps)).unwrap();
            for (f, frame) in bake.frames.iter().enumerate() {
                for stage in Stage::ALL {
                    for (k, &w) in frame.stage(stage).0.iter().enumerate() {
                        assert!(
                            (0.0..=1.0).contains(&w),
                            "track {i} at {fps} fps, frame {f}, stage {}, target {k}: {w}",
                            stage.name()
                        );
                    }
                }
            }
        }
    }
}

fn speech_targets() -> Vec<ArkitTarget> {
    ArkitTarget::ALL
        .into_iter()
        .filter(|t| matches!(t.region(), Region::Mouth | Region::Jaw | Region::Cheeks))
        .collect()
}

#[test]
fn final_mouth_is_the_same_at_any_frame_rate() {
    let settings = FaceSettings::default();
    for track in [speech(10.0), random_track(5, 120)] {
        let reference = timeline::bake(&settings, &cue(&track), &options(1000.0)).unwrap();
        let duration = *reference.times_ms.last().unwrap();
        let runs = [
            timeline::bake(&settings, &cue(&track), &options(30.0)).unwrap(),
            timeline::bake(&settings, &cue(&track), &options(60.0)).unwrap(),
            timeline::bake(&settings, &cue(&track), &options(240.0)).unwrap(),
            bake_at(
                &settings,
                &cue(&track),
                jittered_times(duration, 9),
                3,
                true,
            )
            .unwrap(),
        ];
        for run in &runs {
            let mut worst = (0.0_f32, 0.0, ArkitTarget::JawOpen);
            for target in speech_targets() {
                let reference_series: Vec<f32> = reference.series(Stage::Final, target).collect();
                for (&t, w) in run.times_ms.iter().zip(run.series(Stage::Final, target)) {
                    let diff = (w - sample_at(&reference.times_ms, &reference_series, t)).abs();
                    if diff > worst.0 {
                        worst = (diff, t, target);
                    }
                }
            }
            assert!(
                worst.0 <= 0.02,
                "{} frames: {} differs by {} at {} ms",
                run.times_ms.len(),
                worst.2.name(),
                worst.0,
                worst.1
            );
        }
    }
}

#[test]
fn lips_close_at_every_bilabial_apex_at_any_frame_rate() {
    let settings = FaceSettings::default();
    let closed = *settings.table.pose(VisemeId::BILABIAL);
    let lead = settings.lipsync.lead_ms;
    for track in [speech(10.0), random_track(11, 150)] {
        let duration = track.last_offset_ms() + 500.0;
        let mut runs = vec![
            bake_at(
                &settings,
                &cue(&track),
                jittered_times(duration, 4),
                3,
                true,
            )
            .unwrap(),
        ];
        for fps in [30.0, 60.0, 144.0, 1000.0] {
            runs.push(timeline::bake(&settings, &cue(&track), &options(fps)).unwrap());
        }
        for run in &runs {
            for event in track.events().iter().filter(|e| e.id.is_bilabial()) {
                // The first frame at or after the apex (audio time = offset - lead).
                let apex_audio_ms = event.offset_ms - lead;
                let Some(f) = run.times_ms.iter().position(|&t| t >= apex_audio_ms) else {
                    continue;
                };
                let frame = run.frames[f].final_pose();
                for (target, want) in closed.active() {
                    let got = frame.get(target);
                    assert!(
                        got >= 0.95 * want,
                        "{} frames, apex at {} ms: {} is {got}, closed pose wants {want}",
                        run.times_ms.len(),
                        event.offset_ms,
                        target.name()
                    );
                }
            }
        }
    }
}

#[test]
fn adjacent_rounded_visemes_cross_fade_without_a_snap() {
    let settings = FaceSettings::default();
    // "show" (sh + ow), "woo" (w + uw + ow), "shore" (sh + ao): rounded next to rounded.
    let tracks = [
        track(&[(0, 0.0), (16, 200.0), (8, 290.0), (0, 450.0)]),
        track(&[(0, 0.0), (7, 150.0), (7, 230.0), (8, 300.0), (0, 420.0)]),
        track(&[(0, 0.0), (16, 100.0), (3, 160.0), (13, 260.0), (0, 380.0)]),
    ];
    for track in &tracks {
        let bake = timeline::bake(&settings, &cue(track), &options(1000.0)).unwrap();
        for target in ROUNDING_TARGETS {
            let series: Vec<f32> = bake.series(Stage::Anticipation, target).collect();
            let worst = series
                .windows(2)
                .map(|w| (w[1] - w[0]).abs())
                .fold(0.0_f32, f32::max);
            assert!(
                worst < 0.02,
                "{} changes by {worst} in one ms around {:?}",
                target.name(),
                track.events()
            );
        }
    }
}

#[test]
fn rounding_starts_before_the_rounded_viseme_is_due() {
    let settings = FaceSettings::default();
    // "... add woo": aa, d, then w; the target only starts towards w after d's apex hold.
    let t = track(&[(0, 0.0), (2, 100.0), (19, 500.0), (7, 600.0), (0, 800.0)]);
    let bake = timeline::bake(&settings, &cue(&t), &options(1000.0)).unwrap();
    let pucker: Vec<f32> = bake
        .series(Stage::Anticipation, ArkitTarget::MouthPucker)
        .collect();
    let smoothed: Vec<f32> = bake
        .series(Stage::Smoothed, ArkitTarget::MouthPucker)
        .collect();
    // Audio time 600 - lead - 100 ms: the smoothed target has not begun rounding, anticipation has.
    let early = (600.0 - settings.lipsync.lead_ms - 100.0) as usize;
    assert!(
        smoothed[early] < 0.01,
        "smoothed already rounding: {}",
        smoothed[early]
    );
    assert!(pucker[early] > 0.05, "no anticipation: {}", pucker[early]);
}

#[test]
fn the_target_stage_moves_lead_ms_before_the_viseme_offsets() {
    let t = track(&[(0, 0.0), (2, 500.0), (0, 1000.0)]);
    for lead in [60.0, 0.0] {
        let mut settings = FaceSettings::default();
        settings.lipsync.lead_ms = lead;
        let aa = settings
            .table
            .pose(VisemeId::new(2).unwrap())
            .get(ArkitTarget::JawOpen);
        let bake = timeline::bake(&settings, &cue(&t), &options(1000.0)).unwrap();
        let jaw: Vec<f32> = bake.series(Stage::Target, ArkitTarget::JawOpen).collect();
        let apex = (500.0 - lead) as usize;
        let onset = (500.0 - 0.4 * 500.0 - lead) as usize;
        assert_eq!(
            jaw[apex], aa,
            "lead {lead}: apex of aa reached at {apex} ms"
        );
        assert!(jaw[apex - 1] < aa, "lead {lead}: apex reached early");
        assert_eq!(jaw[onset], 0.0, "lead {lead}: moving before the hold ends");
        assert!(
            jaw[onset + 1] > 0.0,
            "lead {lead}: not moving after the hold"
        );
    }
}

#[test]
fn the_jaw_opens_wider_on_the_louder_of_two_identical_syllables() {
    let settings = FaceSettings::default();
    // "ba ... BA": the same syllable twice, the second one louder in the audio.
    let t = track(&[
        (0, 0.0),
        (21, 200.0),
        (2, 280.0),
        (0, 600.0),
        (21, 1200.0),
        (2, 1280.0),
        (0, 1600.0),
    ]);
    let rate = 16_000_u32;
    let samples: Vec<f32> = (0..2 * rate)
        .map(|i| {
            let ms = f64::from(i) * 1000.0 / f64::from(rate);
            let amp = if (250.0..600.0).contains(&ms) {
                0.1
            } else if (1250.0..1600.0).contains(&ms) {
                0.5
            } else {
                0.0
            };
            amp * (i as f32 * 0.07).sin()
        })
        .collect();
    let options = options(1000.0);
    let recorded = npc_core::LineCue::from_recording(t.clone(), &samples, rate);
    let with = timeline::bake(&settings, &recorded, &options).unwrap();
    let jaw: Vec<f32> = with.series(Stage::Final, ArkitTarget::JawOpen).collect();
    let peak = |from: usize, to: usize| jaw[from..to].iter().copied().fold(0.0_f32, f32::max);
    let (quiet, loud) = (peak(250, 600), peak(1250, 1600));
    assert!(loud > quiet * 1.2, "loud {loud} vs quiet {quiet}");
    // Without audio both syllables open the same.
    let without = timeline::bake(&settings, &cue(&t), &options).unwrap();
    let jaw: Vec<f32> = without.series(Stage::Final, ArkitTarget::JawOpen).collect();
    let peak = |from: usize, to: usize| jaw[from..to].iter().copied().fold(0.0_f32, f32::max);
    assert!((peak(250, 600) - peak(1250, 1600)).abs() < 1e-3);
}
