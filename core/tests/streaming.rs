//! A viseme track that arrives in pieces while the face plays it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::thread;
use std::time::Duration;

use npc_core::anim::face::{FaceAnimator, FaceSettings};
use npc_core::anim::lipsync::track_channel;
use npc_core::anim::timeline::{BakeOptions, bake};

#[test]
fn a_track_fed_ahead_of_time_plays_exactly_like_the_whole_track() {
    let settings = FaceSettings::default();
    let track = common::speech(6.0);
    let options = BakeOptions::default();
    let whole = bake(&settings, &common::cue(&track), &options).unwrap();

    let (tx, rx) = track_channel();
    let mut face = FaceAnimator::new(settings, options.seed);
    face.start_streamed_line(rx);
    let mut sent = 0;
    let mut previous = 0.0;
    for (&t, expected) in whole.times_ms.iter().zip(&whole.frames) {
        // The speech engine stays 400 ms ahead of the audio clock.
        while let Some(event) = track.events().get(sent) {
            if event.offset_ms > t + 400.0 {
                break;
            }
            tx.send(*event);
            sent += 1;
        }
        if sent == track.events().len() {
            tx.finish();
        }
        let frame = face.update(t, t - previous).unwrap();
        previous = t;
        assert_eq!(frame, expected, "frame at {t} ms");
    }
}

#[test]
fn a_speech_thread_can_feed_the_face_while_it_renders() {
    let track = common::speech(3.0);
    let (tx, rx) = track_channel();
    let mut face = FaceAnimator::new(FaceSettings::default(), 1);
    face.start_streamed_line(rx);
    let events = track.events().to_vec();
    let producer = thread::spawn(move || {
        for chunk in events.chunks(5) {
            for event in chunk {
                tx.send(*event);
            }
            thread::sleep(Duration::from_millis(1));
        }
        tx.finish();
    });
    let mut t = 0.0;
    while !face.track().is_complete() {
        t += 16.0;
        let frame = face.update(t, 16.0).unwrap();
        assert!(frame.final_pose().0.iter().all(|w| (0.0..=1.0).contains(w)));
        thread::sleep(Duration::from_millis(1));
        assert!(t < 1_000_000.0, "the track never completed");
    }
    producer.join().unwrap();
    assert_eq!(face.track().events(), track.events());
}
