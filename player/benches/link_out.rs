//! Cost of live link out per frame: 100 speaking NPCs (the project's own body; the Quaternius
//! Superhero Male too when ../shared is beside the project) sent over the VMC protocol (one
//! port each, every humanoid bone and blend shape) and over Live Link Face (a subject each),
//! 600 frames at 60 Hz on the run's clock. Reports the time `LinkOut::send` takes per frame
//! (median, p95, max) and the heap allocations it makes per frame, counted by this binary's
//! global allocator. The target: under 0.3 ms a frame and no allocation.
//!
//! `cargo bench -p npc-player --bench link_out`; under `cargo test` it runs 60 frames.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]
// A counting global allocator is the one unsafe thing here: it passes every call on.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::net::UdpSocket;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use npc_io::{Stream, StreamTarget};
use npc_player::{LinkOut, SpeakingCrowd};

/// The system allocator, counting allocations while `COUNTING` is set.
struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const NPCS: usize = 100;

/// The demo project with every NPC wearing `avatar` (the project's own body when `None`).
fn demo_in(dir: &Path, avatar: Option<&Path>) -> PathBuf {
    npc_core::procedural::generate::generate(&dir.join("assets")).unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo.ron");
    let mut text = std::fs::read_to_string(demo).unwrap();
    if let Some(avatar) = avatar {
        text = text.replace(
            "\"assets/avatar.glb\"",
            &format!("{:?}", avatar.display().to_string()),
        );
    }
    let path = dir.join("link.ron");
    std::fs::write(&path, text).unwrap();
    path
}

/// Receivers on `count` consecutive loopback ports (kept open so sends land); the first port.
fn receivers(count: usize) -> (Vec<UdpSocket>, u16) {
    'search: for base in (41000u16..60000).step_by(150) {
        let mut open = Vec::with_capacity(count);
        for i in 0..count {
            let Ok(socket) = UdpSocket::bind(("127.0.0.1", base + i as u16)) else {
                continue 'search;
            };
            open.push(socket);
        }
        return (open, base);
    }
    panic!("no {count} free consecutive UDP ports on loopback");
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn bench(name: &str, project: &Path, frames: usize) {
    let mut crowd = SpeakingCrowd::new(project, NPCS).unwrap();
    let camera = crowd.camera().position;
    let (_open, base) = receivers(NPCS);
    let to = std::net::SocketAddr::from(([127, 0, 0, 1], base));
    for (protocol, target) in [
        ("vmc", StreamTarget::Vmc(to)),
        ("livelink", StreamTarget::LiveLink(to)),
    ] {
        let mut link = LinkOut::open(&Stream {
            target,
            rate_hz: 60.0,
            npc: None,
        })
        .unwrap();
        let mut times = Vec::with_capacity(frames);
        let mut allocations = 0;
        for frame in 0..frames + 10 {
            let t_ms = frame as f64 * 1000.0 / 60.0;
            crowd.update(t_ms, camera);
            ALLOCATIONS.store(0, Ordering::Relaxed);
            COUNTING.store(true, Ordering::Relaxed);
            let start = Instant::now();
            link.send(&crowd.world, t_ms / 1000.0);
            let took = start.elapsed().as_secs_f64() * 1000.0;
            COUNTING.store(false, Ordering::Relaxed);
            // The first frames make each NPC's bundle; the rest are the steady state.
            if frame >= 10 {
                times.push(took);
                allocations += ALLOCATIONS.load(Ordering::Relaxed);
            }
        }
        times.sort_by(f64::total_cmp);
        println!(
            "link_out {protocol:<8} {name:<13} {NPCS} NPCs: {:.3} ms median, {:.3} ms p95, \
             {:.3} ms max per frame; {:.2} allocations per frame ({frames} frames)",
            percentile(&times, 0.5),
            percentile(&times, 0.95),
            times.last().copied().unwrap_or(0.0),
            allocations as f64 / frames as f64,
        );
    }
}

fn main() {
    let frames = if std::env::args().any(|a| a == "--bench") {
        600
    } else {
        60
    };
    let dir = tempfile::tempdir().unwrap();
    bench("project_body", &demo_in(dir.path(), None), frames);
    let quaternius = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/assets/avatars/Quaternius_Superhero_Male.glb");
    if quaternius.is_file() {
        bench(
            "quaternius",
            &demo_in(dir.path(), Some(&quaternius)),
            frames,
        );
    } else {
        println!(
            "link_out quaternius: NOT RUN, {} is missing",
            quaternius.display()
        );
    }
}
