//! Live captures in: a socket listening for Unreal's Live Link Face (the iPhone app, any
//! sender) or the VMC protocol (VSeeFace, Warudo, any VMC sender), read into frames of a take
//! as they arrive. `capture --listen` writes them to a file; the studio lays them under its
//! timeline while they arrive. Frames are timed by when they arrive (senders' timecodes
//! disagree); frames the sender marks untracked are gaps. Packets are untrusted: one that
//! cannot be read is dropped, said once per kind of fault.

use std::collections::{BTreeSet, HashSet};
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use npc_core::arkit::ARKIT_TARGET_COUNT;
use npc_core::link::livelink;
use npc_core::link::vmc_in::VmcFaceReader;
use npc_core::take::{HeadTurn, Take};

use crate::stream::{StreamTarget, parse_stream};

/// One frame heard: a face with its head's turn (when the sender gave one), or a gap.
pub type Heard = Option<([f32; ARKIT_TARGET_COUNT], Option<HeadTurn>)>;

/// What is listened to, and what has been heard of it so far.
#[derive(Debug)]
enum Protocol {
    LiveLink {
        subject: Option<String>,
        others: BTreeSet<String>,
    },
    Vmc(Box<VmcFaceReader>),
}

/// A socket listening for a live capture.
#[derive(Debug)]
pub struct CaptureListener {
    socket: UdpSocket,
    at: SocketAddr,
    protocol: Protocol,
    faults: HashSet<String>,
    packet: Vec<u8>,
}

impl CaptureListener {
    /// Listens at `url` (`livelink://HOST:PORT` or `vmc://HOST:PORT`; HOST 0.0.0.0 for every
    /// interface); over Live Link, for `subject` (by default the first one heard).
    ///
    /// # Errors
    /// The URL is not one, `subject` was given for VMC (one avatar per port), or the port
    /// cannot be listened on: the reason, in words.
    pub fn open(url: &str, subject: Option<String>) -> Result<Self, String> {
        let (at, protocol) = match parse_stream(url)?.target {
            StreamTarget::LiveLink(at) => (
                at,
                Protocol::LiveLink {
                    subject,
                    others: BTreeSet::new(),
                },
            ),
            StreamTarget::Vmc(at) => {
                if subject.is_some() {
                    return Err(
                        "a subject names a Live Link subject; VMC sends one avatar per port"
                            .to_owned(),
                    );
                }
                (at, Protocol::Vmc(Box::default()))
            }
        };
        let socket = UdpSocket::bind(at).map_err(|e| format!("cannot listen on {at}: {e}"))?;
        Ok(Self {
            socket,
            at,
            protocol,
            faults: HashSet::new(),
            packet: vec![0; 65_536],
        })
    }

    /// The protocol's name, for messages.
    #[must_use]
    pub fn protocol(&self) -> &'static str {
        match self.protocol {
            Protocol::LiveLink { .. } => "Live Link Face",
            Protocol::Vmc(_) => "VMC",
        }
    }

    /// Where it listens.
    #[must_use]
    pub fn address(&self) -> SocketAddr {
        self.at
    }

    /// What the take is called: the Live Link subject heard, or "vmc".
    #[must_use]
    pub fn name(&self) -> String {
        match &self.protocol {
            Protocol::LiveLink { subject, .. } => subject.clone().unwrap_or_default(),
            Protocol::Vmc(_) => "vmc".to_owned(),
        }
    }

    /// Blend shapes a VMC sender sent that are not ARKit weights (left out of the take).
    #[must_use]
    pub fn unknown_names(&self) -> Vec<String> {
        match &self.protocol {
            Protocol::LiveLink { .. } => Vec::new(),
            Protocol::Vmc(reader) => reader.unknown_names().iter().cloned().collect(),
        }
    }

    /// Appends to `heard` every frame of the packets waiting, each with when it arrived; waits
    /// up to `wait` for the first (zero: never waits).
    pub fn receive(&mut self, wait: Duration, heard: &mut Vec<(Instant, Heard)>) {
        let blocking = !wait.is_zero();
        let _ = if blocking {
            self.socket
                .set_nonblocking(false)
                .and_then(|()| self.socket.set_read_timeout(Some(wait)))
        } else {
            self.socket.set_nonblocking(true)
        };
        while let Ok(n) = self.socket.recv(&mut self.packet) {
            let arrived = Instant::now();
            let mut frames = Vec::new();
            read(
                &mut self.protocol,
                &self.packet[..n],
                &mut self.faults,
                &mut frames,
            );
            heard.extend(frames.into_iter().map(|f| (arrived, f)));
            if blocking {
                // The first packet ends the wait; the rest waiting are read without one.
                let _ = self.socket.set_nonblocking(true);
            }
        }
    }
}

/// The frames in one packet; a fault is said once per kind.
fn read(
    protocol: &mut Protocol,
    packet: &[u8],
    faults: &mut HashSet<String>,
    out: &mut Vec<Heard>,
) {
    let mut fault = |why: String, kind: String| {
        if faults.insert(kind) {
            tracing::warn!("a packet dropped: {why}");
        }
    };
    match protocol {
        Protocol::LiveLink { subject, others } => match livelink::decode(packet) {
            Ok(face) => {
                let wanted = subject.get_or_insert_with(|| face.subject.clone());
                if face.subject != *wanted {
                    if others.insert(face.subject.clone()) {
                        tracing::warn!("{} is heard too; recording {wanted} only", face.subject);
                    }
                    return;
                }
                out.push(face.face.map(|(w, head)| (w, Some(head))));
            }
            Err(why) => fault(
                why.to_string(),
                format!("{:?}", std::mem::discriminant(&why)),
            ),
        },
        Protocol::Vmc(reader) => {
            let mut faces = Vec::new();
            if let Err(why) = reader.feed(packet, &mut faces) {
                fault(
                    why.to_string(),
                    format!("{:?}", std::mem::discriminant(&why)),
                );
            }
            out.extend(
                faces
                    .into_iter()
                    .map(|f| f.tracked.then_some((f.weights, f.head))),
            );
        }
    }
}

/// A take growing as frames arrive: times from the first face, gaps once it has begun.
#[derive(Clone, Debug, Default)]
pub struct CaptureTake {
    first: Option<Instant>,
    times_ms: Vec<f64>,
    weights: Vec<[f32; ARKIT_TARGET_COUNT]>,
    heads: Vec<Option<HeadTurn>>,
    gaps_ms: Vec<f64>,
}

impl CaptureTake {
    /// Adds a frame that arrived at `at`; returns its time on the take (ms), or None when it
    /// was left out (a gap before the first face, or a second frame in the same instant).
    pub fn push(&mut self, at: Instant, heard: Heard) -> Option<f64> {
        let Some((w, head)) = heard else {
            let first = self.first?;
            let t = at.saturating_duration_since(first).as_secs_f64() * 1000.0;
            self.gaps_ms.push(t);
            return Some(t);
        };
        let t_ms = at
            .saturating_duration_since(*self.first.get_or_insert(at))
            .as_secs_f64()
            * 1000.0;
        if self.times_ms.last().is_some_and(|&last| t_ms <= last) {
            // Two in the same instant: the take's times only go forward.
            return None;
        }
        self.times_ms.push(t_ms);
        self.weights.push(w);
        self.heads.push(head);
        Some(t_ms)
    }

    /// Faces heard so far.
    #[must_use]
    pub fn frames(&self) -> usize {
        self.times_ms.len()
    }

    /// The take so far, named `name`; None before the first face.
    #[must_use]
    pub fn take(&self, name: &str) -> Option<Take> {
        let &last = self.times_ms.last()?;
        let head = self
            .heads
            .iter()
            .any(Option::is_some)
            .then(|| self.heads.iter().map(|h| h.unwrap_or_default()).collect());
        Some(Take {
            name: name.to_owned(),
            fps: 60.0,
            times_ms: self.times_ms.clone(),
            weights: self.weights.clone(),
            body: None,
            own: None,
            head,
            gaps_ms: self.gaps_ms.iter().copied().filter(|&g| g < last).collect(),
        })
    }
}
