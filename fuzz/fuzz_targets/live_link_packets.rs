//! Fuzzes what arrives from the network for `capture` and the studio's live input: a Live
//! Link Face packet (any bytes) must decode or be refused, never panic; a packet that decodes
//! re-encodes to one that decodes to the same face. And any bytes read as an OSC packet by
//! rosc, which the VMC link is built on.

#![no_main]

use libfuzzer_sys::fuzz_target;
use npc_core::link::livelink::{LiveLinkFrame, decode, encode};

fuzz_target!(|data: &[u8]| {
    let _ = rosc::decoder::decode_udp(data);
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
