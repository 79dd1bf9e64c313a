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
use npc_core::body::HumanoidBone;
use npc_core::link::livelink::{self, LiveLinkFrame};
use npc_core::link::vmc::{self, VmcPose};
use npc_core::take::angles::{HeadTurn, head_turn};

use crate::world::World;

/// The most poses sent per NPC a second.
pub const RATE_HZ: f64 = 60.0;

/// Where a stream goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamTarget {
    /// The VMC protocol: the first NPC on this address, the next on the next port, ...
    Vmc(SocketAddr),
    /// Unreal's Live Link Face: every NPC a subject on this address.
    LiveLink(SocketAddr),
}

/// Reads `vmc://HOST:PORT` (PORT defaults to VMC's 39539) or `livelink://HOST:PORT` (11111).
///
/// # Errors
/// Another scheme, or a host that does not resolve: the reason, in words.
pub fn parse_stream(url: &str) -> Result<StreamTarget, String> {
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

/// Whether it is time to send again at `time_s` (at most [`RATE_HZ`] a second); moves `last`.
fn due(last: &mut Option<f64>, time_s: f64) -> bool {
    if last.is_some_and(|l| time_s - l < 1.0 / RATE_HZ - 1e-4) {
        return false;
    }
    *last = Some(time_s);
    true
}

/// One face streamed on its own (the studio's character as its view shows it): over Live Link
/// Face a subject, over VMC the blend shapes of one avatar on the port given.
#[derive(Debug)]
pub struct FaceSender {
    target: StreamTarget,
    socket: UdpSocket,
    last_s: Option<f64>,
    failed: bool,
    packet: Vec<u8>,
}

impl FaceSender {
    /// A face stream to `target`.
    ///
    /// # Errors
    /// No UDP socket could be made.
    pub fn open(target: StreamTarget) -> Result<Self, String> {
        let to = match target {
            StreamTarget::Vmc(to) | StreamTarget::LiveLink(to) => to,
        };
        Ok(Self {
            target,
            socket: socket_for(to)?,
            last_s: None,
            failed: false,
            packet: Vec::with_capacity(512),
        })
    }

    /// Where it streams.
    #[must_use]
    pub fn target(&self) -> &StreamTarget {
        &self.target
    }

    /// Sends `weights` as `subject`'s face at `time_s` (at most [`RATE_HZ`] a second).
    pub fn send(&mut self, subject: &str, weights: &[f32; ARKIT_TARGET_COUNT], time_s: f64) {
        if !due(&mut self.last_s, time_s) {
            return;
        }
        let (sent, to) = match self.target {
            StreamTarget::LiveLink(to) => {
                livelink::encode(
                    &LiveLinkFrame {
                        subject,
                        time_s,
                        fps: RATE_HZ as u32,
                        weights,
                        head: HeadTurn::default(),
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
                let pose = VmcPose {
                    time_s: time_s as f32,
                    blends: ArkitTarget::ALL
                        .iter()
                        .map(|&t| (vmc::upper_camel(t.name()), weights[t.index()]))
                        .collect(),
                    ..VmcPose::default()
                };
                let sent = vmc::encode(&pose).and_then(|bytes| {
                    self.socket
                        .send_to(&bytes, to)
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
    pub fn open(target: &StreamTarget) -> Result<Self, String> {
        Ok(match *target {
            StreamTarget::Vmc(to) => Self::Vmc(VmcOut::open(to)?),
            StreamTarget::LiveLink(to) => Self::LiveLink(LiveLinkOut::open(to)?),
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
    last_s: Option<f64>,
    failed: bool,
    packet: Vec<u8>,
}

impl LiveLinkOut {
    /// A stream to `to`.
    ///
    /// # Errors
    /// No UDP socket could be made.
    pub fn open(to: SocketAddr) -> Result<Self, String> {
        Ok(Self {
            socket: socket_for(to)?,
            to,
            last_s: None,
            failed: false,
            packet: Vec::with_capacity(512),
        })
    }

    /// Sends every NPC's face at `time_s` on the run's clock.
    pub fn send(&mut self, world: &World, time_s: f64) {
        if !due(&mut self.last_s, time_s) {
            return;
        }
        for npc in &world.npcs {
            let avatar = &world.content.avatars[npc.avatar];
            let reader = &avatar.pose_reader;
            let head = reader
                .bones()
                .iter()
                .position(|&(b, _)| b == HumanoidBone::Head)
                .and_then(|i| {
                    reader
                        .rotations(&avatar.skeleton, &npc.body.locals)
                        .get(i)
                        .copied()
                })
                .map_or(HeadTurn::default(), |q| {
                    head_turn(glam::Quat::from_array(q))
                });
            let weights = &npc.face.frame().final_pose().0;
            livelink::encode(
                &LiveLinkFrame {
                    subject: &npc.id,
                    time_s,
                    fps: RATE_HZ as u32,
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
    /// When the last poses were sent, s on the run's clock.
    last_s: Option<f64>,
    /// A send failed (said once).
    failed: bool,
    pose: VmcPose,
}

impl VmcOut {
    /// A stream to `base` from an unbound local port.
    ///
    /// # Errors
    /// No UDP socket could be made.
    pub fn open(base: SocketAddr) -> Result<Self, String> {
        Ok(Self {
            socket: socket_for(base)?,
            base,
            last_s: None,
            failed: false,
            pose: VmcPose::default(),
        })
    }

    /// Sends every NPC's pose at `time_s` on the run's clock (at most [`RATE_HZ`] a second).
    pub fn send(&mut self, world: &World, time_s: f64) {
        if !due(&mut self.last_s, time_s) {
            return;
        }
        for (i, npc) in world.npcs.iter().enumerate() {
            let avatar = &world.content.avatars[npc.avatar];
            let model = npc.model();
            let (_, turn, at) = model.to_scale_rotation_translation();
            self.pose.time_s = time_s as f32;
            self.pose.root = (at, turn);
            self.pose.bones =
                vmc::humanoid_bones(&avatar.pose_reader, &avatar.skeleton, &npc.body.locals);
            let weights = npc.face.frame().final_pose();
            self.pose.blends.clear();
            self.pose.blends.extend(
                ArkitTarget::ALL
                    .iter()
                    .map(|&t| (vmc::upper_camel(t.name()), weights.get(t))),
            );
            if let Some(own) = npc.face.own() {
                self.pose.blends.extend(
                    own.names()
                        .iter()
                        .zip(own.weights())
                        .map(|(n, &w)| (n.clone(), w)),
                );
            }
            let Ok(port) = u16::try_from(usize::from(self.base.port()) + i) else {
                continue;
            };
            let to = SocketAddr::new(self.base.ip(), port);
            let sent = vmc::encode(&self.pose)
                .and_then(|bytes| self.socket.send_to(&bytes, to).map_err(|e| e.to_string()));
            if let Err(why) = sent
                && !std::mem::replace(&mut self.failed, true)
            {
                tracing::warn!("vmc://{to} ({}): {why}; the run goes on", npc.id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn stream_urls_are_read_or_refused_in_words() {
        assert_eq!(
            parse_stream("vmc://127.0.0.1:40000"),
            Ok(StreamTarget::Vmc("127.0.0.1:40000".parse().unwrap()))
        );
        assert_eq!(
            parse_stream("vmc://127.0.0.1"),
            Ok(StreamTarget::Vmc("127.0.0.1:39539".parse().unwrap()))
        );
        assert!(
            parse_stream("osc://x:1")
                .unwrap_err()
                .contains("vmc://HOST:PORT")
        );
        assert!(parse_stream("vmc://no such host:1").is_err());
    }
}
