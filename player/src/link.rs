//! `run --stream vmc://HOST:PORT`: every NPC's face and body sent to another engine each frame
//! over the VMC protocol (core's [`npc_core::link::vmc`]). Receivers expect one avatar per
//! port, so the roster's NPCs go to consecutive ports from PORT, in roster order (the first
//! NPC on PORT). The socket never blocks: a receiver that is gone, slow or unreachable costs a
//! frame nothing (a failed send is said once).

use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};

use npc_core::ArkitTarget;
use npc_core::link::vmc::{self, VmcPose};

use crate::world::World;

/// The most poses sent per NPC a second.
pub const RATE_HZ: f64 = 60.0;

/// Where a stream goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamTarget {
    /// The VMC protocol: the first NPC on this address, the next on the next port, ...
    Vmc(SocketAddr),
}

/// Reads `vmc://HOST:PORT` (PORT defaults to VMC's 39539).
///
/// # Errors
/// Another scheme, or a host that does not resolve: the reason, in words.
pub fn parse_stream(url: &str) -> Result<StreamTarget, String> {
    let Some(rest) = url.strip_prefix("vmc://") else {
        return Err(format!(
            "{url:?} is not a stream this player sends: use vmc://HOST:PORT"
        ));
    };
    let with_port = if rest
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
    {
        rest.to_owned()
    } else {
        format!("{rest}:{}", vmc::DEFAULT_PORT)
    };
    with_port
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .map(StreamTarget::Vmc)
        .ok_or_else(|| {
            format!("{url}: {with_port:?} is not a host and port this machine can reach")
        })
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
        let local = if base.is_ipv4() {
            "0.0.0.0:0"
        } else {
            "[::]:0"
        };
        let socket = UdpSocket::bind(local)
            .and_then(|s| s.set_nonblocking(true).map(|()| s))
            .map_err(|e| format!("cannot open a UDP socket for vmc://{base}: {e}"))?;
        Ok(Self {
            socket,
            base,
            last_s: None,
            failed: false,
            pose: VmcPose::default(),
        })
    }

    /// Sends every NPC's pose at `time_s` on the run's clock (at most [`RATE_HZ`] a second).
    pub fn send(&mut self, world: &World, time_s: f64) {
        if self
            .last_s
            .is_some_and(|last| time_s - last < 1.0 / RATE_HZ - 1e-4)
        {
            return;
        }
        self.last_s = Some(time_s);
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
