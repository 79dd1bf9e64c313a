//! The per-frame path of the face animator allocates nothing, streamed track included.
//! (This file holds one test so that no other test allocates while it counts.)

#![allow(unsafe_code, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use npc_core::anim::face::{FaceAnimator, FaceSettings};
use npc_core::anim::lipsync::track_channel;

/// Counts allocations made through the global allocator.
struct CountingAllocator;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call unchanged to the system allocator.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

#[test]
fn updating_a_face_does_not_allocate() {
    let track = common::speech(5.0);
    let (tx, rx) = track_channel();
    for event in track.events() {
        tx.send(*event);
    }
    tx.finish();
    let mut face = FaceAnimator::new(FaceSettings::default(), 3);
    face.start_streamed_line(rx);

    let before = ALLOCATIONS.load(Ordering::SeqCst);
    let mut t = 0.0;
    for _ in 0..600 {
        t += 1000.0 / 60.0;
        let frame = face.update(t, 1000.0 / 60.0).expect("valid events");
        std::hint::black_box(frame);
    }
    let during = ALLOCATIONS.load(Ordering::SeqCst) - before;
    assert_eq!(during, 0, "600 frames allocated {during} times");
    assert_eq!(face.track().events().len(), track.events().len());
}
