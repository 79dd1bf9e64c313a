//! `run --stream vmc://HOST:PORT | livelink://HOST:PORT`: every NPC's face and body sent to
//! another engine each frame. Over the VMC protocol (core's [`npc_core::link::vmc`]) receivers
//! expect one avatar per port, so the roster's NPCs go to consecutive ports from PORT, in
//! roster order (the first NPC on PORT). Over Unreal's Live Link Face (core's
//! [`npc_core::link::livelink`]) every NPC is a subject of its own, named by its id, on the one
//! port. Sockets never block: a receiver that is gone, slow or unreachable costs a frame
//! nothing (a failed send is said once).

use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};

use npc_core::ArkitTarget;
use npc_core::arkit::ARKIT_TARGET_COUNT;
use npc_core::asset::Transform;
use npc_core::body::{HumanoidBone, PoseReader, Skeleton};
use npc_core::link::livelink::{self, LiveLinkFrame};
use npc_core::link::vmc::{self, VmcBundle, VrmPresets};
use npc_core::take::angles::{HeadTurn, head_turn};

use crate::world::World;

/// Poses sent per NPC a second unless the URL says (`?hz=N`).
pub const RATE_HZ: f64 = 60.0;
/// Live Link Face frame times count frames of this rate, whatever the send rate.
const TIMECODE_FPS: u32 = 60;

/// A stream: where, how often, and whom.
#[derive(Clone, Debug, PartialEq)]
pub struct Stream {
    pub target: StreamTarget,
    /// Poses sent per NPC a second (at most one per frame).
    pub rate_hz: f64,
    /// The one NPC sent (by id), when the URL chose one (`?npc=ID`): over VMC it alone goes
    /// to PORT, for a receiver that takes one avatar.
    pub npc: Option<String>,
}

/// Where a stream goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamTarget {
    /// The VMC protocol: the first NPC on this address, the next on the next port, ...
    Vmc(SocketAddr),
    /// Unreal's Live Link Face: every NPC a subject on this address.
    LiveLink(SocketAddr),
}

/// Reads `vmc://HOST:PORT` (PORT defaults to VMC's 39539) or `livelink://HOST:PORT` (11111),
/// optionally with settings after `?`, joined by `&`: `hz=N` (poses a second, 1-1000; 60 when
/// not given) and `npc=ID` (that NPC alone).
///
/// # Errors
/// Another scheme, a host that does not resolve, a rate out of range or a setting that is not
/// one: the reason, in words.
pub fn parse_stream(url: &str) -> Result<Stream, String> {
    let (address, query) = url.split_once('?').unwrap_or((url, ""));
    let mut stream = Stream {
        target: parse_target(address)?,
        rate_hz: RATE_HZ,
        npc: None,
    };
    for setting in query.split('&').filter(|s| !s.is_empty()) {
        match setting.split_once('=') {
            Some(("hz", hz)) => {
                stream.rate_hz = hz
                    .parse::<f64>()
                    .ok()
                    .filter(|hz| (1.0..=1000.0).contains(hz))
                    .ok_or_else(|| {
                        format!("{url}: hz={hz} is not a rate: N from 1 to 1000 poses a second")
                    })?;
            }
            Some(("npc", id)) if !id.is_empty() => stream.npc = Some(id.to_owned()),
            _ => {
                return Err(format!(
                    "{url}: {setting:?} is not a stream setting; they are ?hz=N (poses a \
                     second) and ?npc=ID (one NPC), joined by &"
                ));
            }
        }
    }
    Ok(stream)
}

fn parse_target(url: &str) -> Result<StreamTarget, String> {
    let (rest, port, target): (&str, u16, fn(SocketAddr) -> StreamTarget) =
        if let Some(rest) = url.strip_prefix("vmc://") {
            (rest, vmc::DEFAULT_PORT, StreamTarget::Vmc)
        } else if let Some(rest) = url.strip_prefix("livelink://") {
            (rest, livelink::DEFAULT_PORT, StreamTarget::LiveLink)
        } else {
            return Err(format!(
                "{url:?} is not a stream this player sends: use vmc://HOST:PORT or \
                 livelink://HOST:PORT"
            ));
        };
    let with_port = if rest
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
    {
        rest.to_owned()
    } else {
        format!("{rest}:{port}")
    };
    with_port
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .map(target)
        .ok_or_else(|| {
            format!("{url}: {with_port:?} is not a host and port this machine can reach")
        })
}

/// A non-blocking UDP socket for sending to `to`.
fn socket_for(to: SocketAddr) -> Result<UdpSocket, String> {
    let local = if to.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" };
    UdpSocket::bind(local)
        .and_then(|s| s.set_nonblocking(true).map(|()| s))
        .map_err(|e| format!("cannot open a UDP socket for {to}: {e}"))
}

/// Whether it is time to send again at `time_s` (at most `rate_hz` a second); moves `last`.
fn due(last: &mut Option<f64>, time_s: f64, rate_hz: f64) -> bool {
    if last.is_some_and(|l| time_s - l < 1.0 / rate_hz - 1e-4) {
        return false;
    }
    *last = Some(time_s);
    true
}

/// A body posed for one frame, with the rig that reads its humanoid bones.
#[derive(Clone, Copy, Debug)]
pub struct BodyFrame<'a> {
    pub reader: &'a PoseReader,
    pub skeleton: &'a Skeleton,
    pub locals: &'a [Transform],
}

/// One face streamed on its own (the studio's character as its view shows it): over Live Link
/// Face a subject, over VMC the blend shapes of one avatar on the port given.
#[derive(Debug)]
pub struct FaceSender {
    stream: Stream,
    socket: UdpSocket,
    last_s: Option<f64>,
    failed: bool,
    packet: Vec<u8>,
    /// Over VMC: the bundle, and the rig it was made for (its node and humanoid bone
    /// counts; none for a face alone).
    vmc: Option<(VmcBundle, Option<(usize, usize)>)>,
}

impl FaceSender {
    /// A face stream to `target`.
    ///
    /// # Errors
    /// No UDP socket could be made.
    pub fn open(stream: Stream) -> Result<Self, String> {
        let target = stream.target;
        let to = match target {
            StreamTarget::Vmc(to) | StreamTarget::LiveLink(to) => to,
        };
        Ok(Self {
            stream,
            socket: socket_for(to)?,
            last_s: None,
            failed: false,
            packet: Vec::with_capacity(512),
            vmc: None,
        })
    }

    /// Where it streams, and how often.
    #[must_use]
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// Sends `weights` as `subject`'s face at `time_s` (at most its rate a second), and over
    /// VMC the humanoid bones of `body` when there is one (over Live Link, its head's turn).
    pub fn send(
        &mut self,
        subject: &str,
        weights: &[f32; ARKIT_TARGET_COUNT],
        body: Option<BodyFrame<'_>>,
        time_s: f64,
    ) {
        if !due(&mut self.last_s, time_s, self.stream.rate_hz) {
            return;
        }
        let (sent, to) = match self.stream.target {
            StreamTarget::LiveLink(to) => {
                let head = body
                    .and_then(|b| {
                        b.reader
                            .rotation_of(b.skeleton, b.locals, HumanoidBone::Head)
                    })
                    .map_or(HeadTurn::default(), head_turn);
                livelink::encode(
                    &LiveLinkFrame {
                        subject,
                        time_s,
                        fps: TIMECODE_FPS,
                        weights,
                        head,
                    },
                    &mut self.packet,
                );
                (
                    self.socket
                        .send_to(&self.packet, to)
                        .map(|_| ())
                        .map_err(|e| e.to_string()),
                    to,
                )
            }
            StreamTarget::Vmc(to) => {
                let rig = body.map(|b| (b.skeleton.len(), b.reader.bones().len()));
                if self
                    .vmc
                    .as_ref()
                    .is_none_or(|(_, made_for)| *made_for != rig)
                {
                    let bundle = VmcBundle::new(
                        body.map(|b| (b.reader, b.skeleton)),
                        ArkitTarget::ALL.iter().map(|t| vmc::upper_camel(t.name())),
                    );
                    self.vmc = Some((bundle, rig));
                }
                let sent = self.vmc.as_mut().map_or(Ok(()), |(bundle, _)| {
                    bundle.set_time(time_s as f32);
                    if let Some(b) = body {
                        bundle.set_body(b.reader, b.skeleton, b.locals);
                    }
                    bundle.set_blends(ArkitTarget::ALL.iter().map(|t| weights[t.index()]));
                    self.socket
                        .send_to(bundle.encode(), to)
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                });
                (sent, to)
            }
        };
        if let Err(why) = sent
            && !std::mem::replace(&mut self.failed, true)
        {
            tracing::warn!("streaming {subject}'s face to {to}: {why}");
        }
    }
}

/// A stream of every NPC, of either protocol.
#[derive(Debug)]
pub enum LinkOut {
    Vmc(VmcOut),
    LiveLink(LiveLinkOut),
}

impl LinkOut {
    /// A stream to `target`.
    ///
    /// # Errors
    /// No UDP socket could be made.
    pub fn open(stream: &Stream) -> Result<Self, String> {
        Ok(match stream.target {
            StreamTarget::Vmc(to) => Self::Vmc(VmcOut::open(to, stream)?),
            StreamTarget::LiveLink(to) => Self::LiveLink(LiveLinkOut::open(to, stream)?),
        })
    }

    /// Sends every NPC at `time_s` on the run's clock.
    pub fn send(&mut self, world: &World, time_s: f64) {
        match self {
            Self::Vmc(v) => v.send(world, time_s),
            Self::LiveLink(l) => l.send(world, time_s),
        }
    }
}

/// A Live Link Face stream of every NPC, each a subject.
#[derive(Debug)]
pub struct LiveLinkOut {
    socket: UdpSocket,
    to: SocketAddr,
    rate_hz: f64,
    /// The one NPC sent, when chosen.
    npc: Option<String>,
    last_s: Option<f64>,
    failed: bool,
    packet: Vec<u8>,
}

impl LiveLinkOut {
    /// A stream to `to`.
    ///
    /// # Errors
    /// No UDP socket could be made.
    pub fn open(to: SocketAddr, stream: &Stream) -> Result<Self, String> {
        Ok(Self {
            socket: socket_for(to)?,
            to,
            rate_hz: stream.rate_hz,
            npc: stream.npc.clone(),
            last_s: None,
            failed: false,
            packet: Vec::with_capacity(512),
        })
    }

    /// Sends every NPC's face at `time_s` on the run's clock (at most its rate a second).
    pub fn send(&mut self, world: &World, time_s: f64) {
        if !due(&mut self.last_s, time_s, self.rate_hz) {
            return;
        }
        let chosen = |id: &str| self.npc.as_deref().is_none_or(|n| n == id);
        for npc in world.npcs.iter().filter(|npc| chosen(&npc.id)) {
            let avatar = &world.content.avatars[npc.avatar];
            let head = avatar
                .pose_reader
                .rotation_of(&avatar.skeleton, &npc.body.locals, HumanoidBone::Head)
                .map_or(HeadTurn::default(), head_turn);
            let weights = &npc.face.frame().final_pose().0;
            livelink::encode(
                &LiveLinkFrame {
                    subject: &npc.id,
                    time_s,
                    fps: TIMECODE_FPS,
                    weights,
                    head,
                },
                &mut self.packet,
            );
            if let Err(why) = self.socket.send_to(&self.packet, self.to)
                && !std::mem::replace(&mut self.failed, true)
            {
                tracing::warn!(
                    "livelink://{} ({}): {why}; the run goes on",
                    self.to,
                    npc.id
                );
            }
        }
    }
}

/// A VMC stream of every NPC.
#[derive(Debug)]
pub struct VmcOut {
    socket: UdpSocket,
    base: SocketAddr,
    rate_hz: f64,
    /// The one NPC sent (to the base port), when chosen.
    npc: Option<String>,
    /// When the last poses were sent, s on the run's clock.
    last_s: Option<f64>,
    /// A send failed (said once).
    failed: bool,
    /// Each NPC's bundle and its VRM presets, made on its first frame.
    bundles: Vec<(VmcBundle, VrmPresets)>,
}

impl VmcOut {
    /// A stream to `base` from an unbound local port.
    ///
    /// # Errors
    /// No UDP socket could be made.
    pub fn open(base: SocketAddr, stream: &Stream) -> Result<Self, String> {
        Ok(Self {
            socket: socket_for(base)?,
            base,
            rate_hz: stream.rate_hz,
            npc: stream.npc.clone(),
            last_s: None,
            failed: false,
            bundles: Vec::new(),
        })
    }

    /// Sends every NPC's pose at `time_s` on the run's clock (at most its rate a second).
    pub fn send(&mut self, world: &World, time_s: f64) {
        if !due(&mut self.last_s, time_s, self.rate_hz) {
            return;
        }
        if self.bundles.len() != world.npcs.len() {
            self.bundles = world
                .npcs
                .iter()
                .map(|npc| bundle_for(world, npc))
                .collect();
        }
        let chosen = |id: &str| self.npc.as_deref().is_none_or(|n| n == id);
        let sent = world
            .npcs
            .iter()
            .zip(&mut self.bundles)
            .filter(|(npc, _)| chosen(&npc.id));
        for (i, (npc, (bundle, presets))) in sent.enumerate() {
            let avatar = &world.content.avatars[npc.avatar];
            let (_, turn, at) = npc.model().to_scale_rotation_translation();
            bundle.set_time(time_s as f32);
            bundle.set_root(at, turn);
            bundle.set_body(&avatar.pose_reader, &avatar.skeleton, &npc.body.locals);
            let weights = npc.face.frame().final_pose();
            let own = npc.face.own().map_or(&[][..], |own| own.weights());
            bundle.set_blends(
                ArkitTarget::ALL
                    .iter()
                    .map(|&t| weights.get(t))
                    .chain(own.iter().copied())
                    .chain(presets.values(&weights.0, own)),
            );
            let Ok(port) = u16::try_from(usize::from(self.base.port()) + i) else {
                continue;
            };
            let to = SocketAddr::new(self.base.ip(), port);
            if let Err(why) = self.socket.send_to(bundle.encode(), to)
                && !std::mem::replace(&mut self.failed, true)
            {
                tracing::warn!("vmc://{to} ({}): {why}; the run goes on", npc.id);
            }
        }
    }
}

/// `npc`'s VMC bundle: its avatar's humanoid bones, the 52 ARKit shapes, its own shapes, then
/// its VRM expressions by their VRM 0.x names (`A`, `Blink_L`, `Joy`: what receivers of avatars
/// without the 52 shapes take).
fn bundle_for(world: &World, npc: &crate::world::NpcActor) -> (VmcBundle, VrmPresets) {
    let avatar = &world.content.avatars[npc.avatar];
    let own: Vec<String> = npc
        .face
        .own()
        .map_or_else(Vec::new, |own| own.names().to_vec());
    let presets = VrmPresets::new(&avatar.vrm_expressions, &own, &avatar.own_shapes.targets);
    let bundle = VmcBundle::new(
        Some((&avatar.pose_reader, &avatar.skeleton)),
        ArkitTarget::ALL
            .iter()
            .map(|t| vmc::upper_camel(t.name()))
            .chain(own)
            .chain(presets.names()),
    );
    (bundle, presets)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn stream_urls_are_read_or_refused_in_words() {
        let target = |url| parse_stream(url).map(|s| s.target);
        assert_eq!(
            target("vmc://127.0.0.1:40000"),
            Ok(StreamTarget::Vmc("127.0.0.1:40000".parse().unwrap()))
        );
        assert_eq!(
            target("vmc://127.0.0.1"),
            Ok(StreamTarget::Vmc("127.0.0.1:39539".parse().unwrap()))
        );
        assert_eq!(
            target("livelink://127.0.0.1"),
            Ok(StreamTarget::LiveLink("127.0.0.1:11111".parse().unwrap()))
        );
        assert!(
            parse_stream("osc://x:1")
                .unwrap_err()
                .contains("vmc://HOST:PORT")
        );
        assert!(parse_stream("vmc://no such host:1").is_err());
        let one = parse_stream("vmc://127.0.0.1:40000?npc=Bram&hz=30").unwrap();
        assert_eq!((one.npc.as_deref(), one.rate_hz), (Some("Bram"), 30.0));
        let err = parse_stream("vmc://127.0.0.1?avatar=Bram").unwrap_err();
        assert!(err.contains("?npc=ID"), "{err}");
    }

    #[test]
    fn a_stream_takes_its_rate_from_the_url() {
        let rate = |url: &str| parse_stream(url).map(|s| s.rate_hz);
        assert_eq!(rate("vmc://127.0.0.1:40000"), Ok(RATE_HZ));
        assert_eq!(rate("vmc://127.0.0.1:40000?hz=30"), Ok(30.0));
        assert_eq!(rate("livelink://127.0.0.1?hz=120"), Ok(120.0));
        for bad in ["?hz=0", "?hz=abc", "?fps=30", "?hz=5000"] {
            let err = rate(&format!("vmc://127.0.0.1{bad}")).unwrap_err();
            assert!(err.contains("hz=") && err.contains("not a"), "{err}");
        }
    }

    #[test]
    fn poses_go_at_the_streams_rate_on_the_runs_clock() {
        let mut last = None;
        let sent = |rate_hz, last: &mut Option<f64>| {
            (0..120)
                .filter(|frame| due(last, f64::from(*frame) / 120.0, rate_hz))
                .count()
        };
        assert_eq!(sent(60.0, &mut last), 60);
        last = None;
        assert_eq!(sent(30.0, &mut last), 30);
        last = None;
        assert_eq!(sent(1000.0, &mut last), 120, "at most one a frame");
    }
}
