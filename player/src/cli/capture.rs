//! `npc-player capture`: a live capture received as a take. Listens for Unreal's Live Link
//! Face packets (the iPhone app, or any sender of that protocol) or for the VMC protocol
//! (VSeeFace, Warudo, any VMC sender: its ARKit blend shapes and head bone) and writes the
//! face as Live Link Face CSV, which the studio's "Compare with capture" and `export` read.
//! Frames are timed by when they arrive (senders' timecodes disagree: the iPhone app's count
//! frames of the day, some libraries' repeat a frame number); frames the sender marks
//! untracked are the take's gaps. Packets are untrusted: one that cannot be read is dropped,
//! said once per kind of fault.

use std::collections::{BTreeSet, HashSet};
use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use npc_core::arkit::ARKIT_TARGET_COUNT;
use npc_core::link::livelink;
use npc_core::link::vmc_in::{VmcFace, VmcFaceReader};
use npc_core::take::{HeadTurn, Take, write_livelink_csv};

use crate::link::{StreamTarget, parse_stream};
use crate::output::write_atomically;

#[derive(Debug, clap::Args)]
pub(super) struct CaptureArgs {
    /// Where to listen: livelink://HOST:PORT (11111 by default) or vmc://HOST:PORT (39539 by
    /// default); HOST 0.0.0.0 for every interface.
    #[arg(long, value_name = "URL")]
    pub(super) listen: String,
    /// The take to write (Live Link Face CSV).
    #[arg(long, value_name = "FILE.csv")]
    pub(super) out: PathBuf,
    /// How long to listen, seconds.
    #[arg(long, default_value_t = 10.0)]
    pub(super) seconds: f64,
    /// The Live Link subject to record (by default the first one heard; VMC has one avatar
    /// per port).
    #[arg(long, value_name = "NAME")]
    pub(super) subject: Option<String>,
}

/// One frame heard: a face with its head's turn (when the sender gave one), or a gap.
type Heard = Option<([f32; ARKIT_TARGET_COUNT], Option<HeadTurn>)>;

/// What a capture listens to, and what it has heard of it so far.
enum Listener {
    LiveLink {
        subject: Option<String>,
        others: BTreeSet<String>,
    },
    Vmc(VmcFaceReader),
}

impl Listener {
    fn protocol(&self) -> &'static str {
        match self {
            Self::LiveLink { .. } => "Live Link Face",
            Self::Vmc(_) => "VMC",
        }
    }

    /// The frames in one packet; a fault is said once per kind.
    fn read(&mut self, packet: &[u8], faults: &mut HashSet<String>, heard: &mut Vec<Heard>) {
        let mut fault = |why: String, kind: String| {
            if faults.insert(kind) {
                tracing::warn!("a packet dropped: {why}");
            }
        };
        match self {
            Self::LiveLink { subject, others } => match livelink::decode(packet) {
                Ok(face) => {
                    let wanted = subject.get_or_insert_with(|| face.subject.clone());
                    if face.subject != *wanted {
                        if others.insert(face.subject.clone()) {
                            tracing::warn!(
                                "{} is heard too; recording {wanted} only",
                                face.subject
                            );
                        }
                        return;
                    }
                    heard.push(face.face.map(|(w, head)| (w, Some(head))));
                }
                Err(why) => fault(
                    why.to_string(),
                    format!("{:?}", std::mem::discriminant(&why)),
                ),
            },
            Self::Vmc(reader) => {
                let mut faces = Vec::new();
                if let Err(why) = reader.feed(packet, &mut faces) {
                    fault(
                        why.to_string(),
                        format!("{:?}", std::mem::discriminant(&why)),
                    );
                }
                heard.extend(
                    faces
                        .into_iter()
                        .map(|f: VmcFace| f.tracked.then_some((f.weights, f.head))),
                );
            }
        }
    }
}

pub(super) fn run(args: &CaptureArgs) -> anyhow::Result<()> {
    let (at, mut listener): (SocketAddr, Listener) = match parse_stream(&args.listen)
        .map_err(anyhow::Error::msg)?
        .target
    {
        StreamTarget::LiveLink(at) => (
            at,
            Listener::LiveLink {
                subject: args.subject.clone(),
                others: BTreeSet::new(),
            },
        ),
        StreamTarget::Vmc(at) => {
            if args.subject.is_some() {
                bail!("--subject names a Live Link subject; VMC sends one avatar per port");
            }
            (at, Listener::Vmc(VmcFaceReader::new()))
        }
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
    let protocol = listener.protocol();
    eprintln!("listening for {protocol} on {at} for {} s", args.seconds);
    let end = Instant::now() + Duration::from_secs_f64(args.seconds);
    let mut faults = HashSet::new();
    let (mut times, mut weights, mut heads, mut gaps_ms) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut first: Option<Instant> = None;
    let mut packet = vec![0u8; 65_536];
    let mut heard = Vec::new();
    while Instant::now() < end {
        let Ok(n) = socket.recv(&mut packet) else {
            continue;
        };
        heard.clear();
        listener.read(&packet[..n], &mut faults, &mut heard);
        let arrived = Instant::now();
        for frame in heard.drain(..) {
            let Some((w, head)) = frame else {
                // A gap counts once the take has begun.
                if let Some(first) = first {
                    gaps_ms.push(arrived.saturating_duration_since(first).as_secs_f64() * 1000.0);
                }
                continue;
            };
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
    }
    let name = match &listener {
        Listener::LiveLink { subject, .. } => subject.clone().unwrap_or_default(),
        Listener::Vmc(reader) => {
            if !reader.unknown_names().is_empty() {
                tracing::warn!(
                    "blend shapes that are not ARKit weights were left out: {}",
                    reader
                        .unknown_names()
                        .iter()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            "vmc".to_owned()
        }
    };
    let Some(&last) = times.last() else {
        bail!(
            "no {protocol} frames arrived on {at} in {} s{}",
            args.seconds,
            if name.is_empty() {
                String::new()
            } else {
                format!(" from {name}")
            }
        );
    };
    gaps_ms.retain(|&g| g < last);
    let frames = times.len();
    let gaps = gaps_ms.len();
    let head = heads
        .iter()
        .any(Option::is_some)
        .then(|| heads.iter().map(|h| h.unwrap_or_default()).collect());
    let take = Take {
        name: name.clone(),
        fps: 60.0,
        times_ms: times,
        weights,
        body: None,
        own: None,
        head,
        gaps_ms,
    };
    write_atomically(&args.out, write_livelink_csv(&take).as_bytes())?;
    eprintln!(
        "{frames} frames of {name} written to {} ({gaps} without a face written as gaps)",
        args.out.display()
    );
    Ok(())
}
