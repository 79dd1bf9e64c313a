//! Fuzzes what arrives from the network for `capture` and the studio's live input: a Live
//! Link Face packet (any bytes) must decode or be refused, never panic; a packet that decodes
//! re-encodes to one that decodes to the same face. And any bytes fed to the VMC face reader
//! (`capture --listen vmc://`): read or refused, never a panic, every weight in 0..1.

#![no_main]

use libfuzzer_sys::fuzz_target;
use npc_core::link::livelink::{LiveLinkFrame, decode, encode};
use npc_core::link::vmc_in::VmcFaceReader;

fuzz_target!(|data: &[u8]| {
    let mut faces = Vec::new();
    let _ = VmcFaceReader::new().feed(data, &mut faces);
    for face in &faces {
        assert!(face.weights.iter().all(|w| (0.0..=1.0).contains(w)));
    }
    let Ok(face) = decode(data) else {
        return;
    };
    let Some((weights, head)) = face.face else {
        return;
    };
    let mut again = Vec::new();
    encode(
        &LiveLinkFrame {
            subject: &face.subject,
            time_s: 0.0,
            fps: 60,
            weights: &weights,
            head,
        },
        &mut again,
    );
    let back = decode(&again).expect("what we encode decodes");
    let (w, _) = back.face.expect("a face");
    assert_eq!(w, weights);
    assert_eq!(back.subject, face.subject);
});
