//! `npc-player capture`: a live capture received as a take. Listens for Unreal's Live Link
//! Face packets (the iPhone app, or any sender of that protocol) and writes the subject's
//! frames as Live Link Face CSV, which the studio's "Compare with capture" and `export` read.
//! Frames are timed by when they arrive (senders' timecodes disagree: the iPhone app's count
//! frames of the day, some libraries' repeat a frame number). Packets are untrusted: one that
//! cannot be read is dropped, said once per kind of fault.

use std::collections::{BTreeSet, HashSet};
use std::net::UdpSocket;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use npc_core::link::livelink;
use npc_core::take::{HeadTurn, Take, write_livelink_csv};

use crate::link::{StreamTarget, parse_stream};
use crate::output::write_atomically;

#[derive(Debug, clap::Args)]
pub(super) struct CaptureArgs {
    /// Where to listen: livelink://HOST:PORT (0.0.0.0 for every interface; 11111 by default).
    #[arg(long, value_name = "URL")]
    pub(super) listen: String,
    /// The take to write (Live Link Face CSV).
    #[arg(long, value_name = "FILE.csv")]
    pub(super) out: PathBuf,
    /// How long to listen, seconds.
    #[arg(long, default_value_t = 10.0)]
    pub(super) seconds: f64,
    /// The subject to record (by default the first one heard).
    #[arg(long, value_name = "NAME")]
    pub(super) subject: Option<String>,
}

pub(super) fn run(args: &CaptureArgs) -> anyhow::Result<()> {
    let at = match parse_stream(&args.listen)
        .map_err(anyhow::Error::msg)?
        .target
    {
        StreamTarget::LiveLink(at) => at,
        StreamTarget::Vmc(_) => bail!("capture listens for livelink://HOST:PORT only so far"),
    };
    if !args
        .out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"))
    {
        bail!(
            "--out {}: a capture is written as Live Link Face CSV (.csv)",
            args.out.display()
        );
    }
    if !(args.seconds.is_finite() && args.seconds > 0.0) {
        bail!(
            "--seconds must be a number of seconds > 0, not {}",
            args.seconds
        );
    }
    let socket = UdpSocket::bind(at).with_context(|| format!("cannot listen on {at}"))?;
    socket.set_read_timeout(Some(Duration::from_millis(100)))?;
    eprintln!(
        "listening for Live Link Face on {at} for {} s",
        args.seconds
    );
    let end = Instant::now() + Duration::from_secs_f64(args.seconds);
    let mut subject = args.subject.clone();
    let (mut faults, mut others) = (HashSet::new(), BTreeSet::new());
    let (mut times, mut weights, mut heads) = (Vec::new(), Vec::new(), Vec::new());
    let mut first: Option<Instant> = None;
    let mut gaps = 0usize;
    let mut packet = vec![0u8; 65_536];
    while Instant::now() < end {
        let Ok(n) = socket.recv(&mut packet) else {
            continue;
        };
        let face = match livelink::decode(&packet[..n]) {
            Ok(face) => face,
            Err(why) => {
                if faults.insert(std::mem::discriminant(&why)) {
                    tracing::warn!("a packet dropped: {why}");
                }
                continue;
            }
        };
        let wanted = subject.get_or_insert_with(|| face.subject.clone());
        if face.subject != *wanted {
            if others.insert(face.subject.clone()) {
                tracing::warn!("{} is heard too; recording {wanted} only", face.subject);
            }
            continue;
        }
        let Some((w, head)) = face.face else {
            gaps += 1;
            continue;
        };
        let arrived = Instant::now();
        let t_ms = arrived
            .saturating_duration_since(*first.get_or_insert(arrived))
            .as_secs_f64()
            * 1000.0;
        if times.last().is_some_and(|&last| t_ms <= last) {
            // Two in the same instant: the take's times only go forward.
            continue;
        }
        times.push(t_ms);
        weights.push(w);
        heads.push(head);
    }
    let name = subject.unwrap_or_default();
    if times.is_empty() {
        bail!(
            "no Live Link Face frames arrived on {at} in {} s{}",
            args.seconds,
            if name.is_empty() {
                String::new()
            } else {
                format!(" from {name}")
            }
        );
    }
    let frames = times.len();
    let take = Take {
        name: name.clone(),
        fps: 60.0,
        times_ms: times,
        weights,
        body: None,
        own: None,
        head: Some(heads).filter(|h: &Vec<HeadTurn>| !h.is_empty()),
    };
    write_atomically(&args.out, write_livelink_csv(&take).as_bytes())?;
    eprintln!(
        "{frames} frames of {name} written to {} ({gaps} without a face left out)",
        args.out.display()
    );
    Ok(())
}
