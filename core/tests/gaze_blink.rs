//! Conversational gaze and blinks over long simulated conversations.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use npc_core::anim::face::{FaceAnimator, FaceSettings};
use npc_core::anim::gaze::{Gaze, GazeSettings};
use npc_core::anim::lipsync::VisemeTrack;
use npc_core::anim::timeline::{BakeOptions, BakeReport, bake};

const TEN_MINUTES_MS: f64 = 600_000.0;

fn aversion_share(speaking: bool, seed: u64) -> f64 {
    let settings = GazeSettings::default();
    let mut gaze = Gaze::new(&settings, seed);
    let mut t = 0.0;
    while t < TEN_MINUTES_MS {
        t += 1000.0 / 60.0;
        gaze.advance(&settings, t, speaking);
    }
    gaze.avert_ms_total() / t
}

#[test]
fn speakers_look_away_more_than_listeners() {
    for seed in [1, 2, 3] {
        let speaking = aversion_share(true, seed);
        let listening = aversion_share(false, seed);
        // Expected from the defaults: about 0.31 speaking, 0.19 listening.
        assert!(
            speaking > listening + 0.05,
            "seed {seed}: {speaking} vs {listening}"
        );
        assert!(
            (0.22..0.40).contains(&speaking),
            "speaking share {speaking}"
        );
        assert!(
            (0.12..0.27).contains(&listening),
            "listening share {listening}"
        );
    }
}

#[test]
fn blink_rate_matches_the_settings() {
    for rate in [12.0, 26.0] {
        let mut settings = FaceSettings::default();
        settings.blink.rate_per_min = rate;
        let mut face = FaceAnimator::new(settings, 5);
        let mut t = 0.0;
        let mut closed_frames = 0_u32;
        while t < TEN_MINUTES_MS {
            t += 1000.0 / 60.0;
            let frame = face.update(0.0, 1000.0 / 60.0).unwrap();
            if frame.final_pose().0[0] > 0.99 {
                closed_frames += 1;
            }
        }
        let per_minute = face.blinker().count() as f64 / 10.0;
        assert!(
            (per_minute - rate).abs() <= 0.15 * rate,
            "{per_minute} blinks a minute, settings say {rate}"
        );
        assert!(closed_frames > 0, "eyelids never closed fully");
    }
}

#[test]
fn same_seed_gives_identical_bytes_and_another_seed_differs() {
    let settings = FaceSettings::default();
    let track: VisemeTrack = common::speech(8.0);
    let json = |seed| {
        let options = BakeOptions {
            seed,
            ..BakeOptions::default()
        };
        let bake = bake(
            &settings,
            &npc_core::LineCue::from_track(track.clone()),
            &options,
        )
        .unwrap();
        serde_json::to_vec(&BakeReport::new(&bake, &track, &settings.table, &options)).unwrap()
    };
    assert_eq!(json(42), json(42));
    assert_ne!(json(42), json(43));
}

#[test]
fn gaze_is_the_same_at_any_frame_rate() {
    let settings = GazeSettings::default();
    let pose_at = |fps: f64| {
        let mut gaze = Gaze::new(&settings, 8);
        let dt = 1000.0 / fps;
        let mut samples = Vec::new();
        for i in 1..=(60.0 * fps) as usize {
            let t = i as f64 * dt;
            gaze.advance(&settings, t, true);
            if i % (fps as usize / 10) == 0 {
                let mut pose = npc_core::Pose::NEUTRAL;
                gaze.apply(&mut pose);
                samples.push(pose);
            }
        }
        samples
    };
    let slow = pose_at(30.0);
    let fast = pose_at(1000.0);
    for (a, b) in slow.iter().zip(&fast) {
        for (x, y) in a.0.iter().zip(&b.0) {
            assert!((x - y).abs() < 1e-4, "{x} vs {y}");
        }
    }
}
