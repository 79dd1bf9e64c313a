//! Fuzzes what protocol 1.1 reads as it arrives: a streamed line's WAV, given in pieces whose
//! size the first byte picks (headers cut anywhere, frames cut mid-sample, any fmt chunk), and
//! the voice segmenter on any sound in any chunks. None may panic; the pieces must give the
//! samples the whole gives.

#![no_main]

use libfuzzer_sys::fuzz_target;
use npc_core::hearing::{VoiceEvent, VoiceSegmenter, VoiceSettings};
use npc_core::speech::growing_wav::GrowingWav;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Some((&split, bytes)) = data.split_first() else {
        return;
    };
    let mut whole = Vec::new();
    let whole_ok = GrowingWav::new(Path::new("f.wav")).push_bytes(bytes, &mut whole);
    let mut pieces = Vec::new();
    let mut reader = GrowingWav::new(Path::new("f.wav"));
    let mut pieces_ok = Ok(0);
    for chunk in bytes.chunks(usize::from(split).max(1)) {
        pieces_ok = reader.push_bytes(chunk, &mut pieces);
        if pieces_ok.is_err() {
            break;
        }
    }
    if whole_ok.is_ok() && pieces_ok.is_ok() {
        assert_eq!(whole, pieces);
    }
    // The same bytes as sound (16-bit), heard in chunks.
    let sound: Vec<f32> = bytes
        .chunks_exact(2)
        .map(|b| f32::from(i16::from_le_bytes([b[0], b[1]])) / 32_768.0)
        .collect();
    let mut segmenter = VoiceSegmenter::new(&VoiceSettings::default());
    let mut events = Vec::new();
    for chunk in sound.chunks(usize::from(split).max(1) * 7) {
        segmenter.push(chunk, &mut events);
    }
    segmenter.finish(&mut events);
    for e in &events {
        if let VoiceEvent::Utterance(u) = e {
            assert!(u.start_ms <= u.end_ms);
            assert!(u.audio_start_ms <= u.start_ms);
        }
    }
});
