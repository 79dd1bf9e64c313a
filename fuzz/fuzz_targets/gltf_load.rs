//! Fuzzes the glTF/GLB loader: `Asset::from_bytes` must never panic, whatever the bytes.
//! When the bytes do load, the inspection report and the ground collision grid are built
//! too, so the code that walks a loaded asset is exercised on odd-but-valid documents.

#![no_main]

use libfuzzer_sys::fuzz_target;
use npc_core::asset::Asset;
use npc_core::asset::inspect::Inspection;

fuzz_target!(|data: &[u8]| {
    // No base directory: external URIs are refused, so the fuzzer never touches the disk.
    if let Ok(asset) = Asset::from_bytes(data, None) {
        let _ = Inspection::of(&asset);
        let _ = asset.collision_grid();
    }
});
