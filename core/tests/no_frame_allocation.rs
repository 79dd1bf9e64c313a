//! The per-frame path of the face animator allocates nothing, streamed track included.
//! (This file holds one test so that no other test allocates while it counts; only the
//! test's own thread is counted, since the test harness's may allocate meanwhile: once, under
//! the load of the whole suite on two cores, four allocations were counted that the animator
//! did not make.)

#![allow(unsafe_code, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use npc_core::anim::face::{FaceAnimator, FaceSettings};
use npc_core::anim::lipsync::track_channel;

/// Counts allocations made through the global allocator by a thread that counts.
struct CountingAllocator;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn count() {
    if COUNTING.try_with(Cell::get).unwrap_or(false) {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
    }
}

// SAFETY: forwards every call unchanged to the system allocator.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
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

    COUNTING.with(|c| c.set(true));
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    let mut t = 0.0;
    for _ in 0..600 {
        t += 1000.0 / 60.0;
        let frame = face.update(t, 1000.0 / 60.0).expect("valid events");
        std::hint::black_box(frame);
    }
    let during = ALLOCATIONS.load(Ordering::SeqCst) - before;
    COUNTING.with(|c| c.set(false));
    assert_eq!(during, 0, "600 frames allocated {during} times");
    assert_eq!(face.track().events().len(), track.events().len());
}
