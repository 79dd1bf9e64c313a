//! A listener's face: the brow flash when spoken to, and thinking (the eyes held up and to a
//! side, the thinking face) until its own line starts.

#![allow(clippy::unwrap_used)]

use npc_core::anim::emotion::Emotion;
use npc_core::anim::gaze::GazeState;
use npc_core::anim::lipsync::VisemeEvent;
use npc_core::anim::lipsync::VisemeTrack;
use npc_core::{ArkitTarget as T, FaceAnimator, FaceSettings, LineCue, VisemeId};

const DT: f64 = 1000.0 / 60.0;

fn run(face: &mut FaceAnimator, ms: f64) {
    let mut t = 0.0;
    while t < ms {
        face.update(0.0, DT).unwrap();
        t += DT;
    }
}

#[test]
fn spoken_to_the_brows_flash_after_the_lag() {
    let mut face = FaceAnimator::new(FaceSettings::default(), 3);
    run(&mut face, 500.0);
    face.addressed_after(60.0);
    let mut peak: (f64, f32) = (0.0, 0.0);
    let mut t = 0.0;
    while t < 600.0 {
        let up = face
            .update(0.0, DT)
            .unwrap()
            .final_pose()
            .get(T::BrowInnerUp);
        if up > peak.1 {
            peak = (t, up);
        }
        t += DT;
    }
    assert!(peak.1 > 0.3, "brows up {}", peak.1);
    assert!(peak.0 >= 60.0 && peak.0 <= 200.0, "peak at {} ms", peak.0);
}

#[test]
fn thinking_holds_the_eyes_up_and_aside_until_the_line_starts() {
    let mut face = FaceAnimator::new(FaceSettings::default(), 11);
    run(&mut face, 300.0);
    face.think(true, 0.7);
    for _ in 0..3 {
        run(&mut face, 1_000.0);
        let pose = *face.frame().final_pose();
        let up = pose.get(T::EyeLookUpLeft);
        let aside = pose
            .get(T::EyeLookOutLeft)
            .max(pose.get(T::EyeLookOutRight));
        assert!(up > 0.3 && aside > 0.3, "eyes up {up}, aside {aside}");
        assert_eq!(face.gaze_state(), GazeState::Avert);
        assert_eq!(face.emotion().map(|e| e.0), Some(Emotion::Thinking));
    }
    // Its line starts: the eyes come back to the partner.
    let track = VisemeTrack::from_events(vec![
        VisemeEvent::new(VisemeId::SILENCE, 0.0),
        VisemeEvent::new(VisemeId::new(2).unwrap(), 100.0),
    ])
    .unwrap();
    face.start_line(&LineCue::from_track(track));
    assert!(!face.thinking());
    run(&mut face, 400.0);
    let pose = *face.frame().final_pose();
    assert!(
        pose.get(T::EyeLookUpLeft) < 0.1,
        "{}",
        pose.get(T::EyeLookUpLeft)
    );
}
