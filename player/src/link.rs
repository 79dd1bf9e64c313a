//! `run --stream vmc://HOST:PORT | livelink://HOST:PORT`: every NPC's face and body sent to
//! another engine each frame. Over the VMC protocol (core's [`npc_core::link::vmc`]) receivers
//! expect one avatar per port, so the roster's NPCs go to consecutive ports from PORT, in
//! roster order (the first NPC on PORT). Over Unreal's Live Link Face (core's
//! [`npc_core::link::livelink`]) every NPC is a subject of its own, named by its id, on the one
//! port. Sockets never block: a receiver that is gone, slow or unreachable costs a frame
//! nothing (a failed send is said once).

use std::net::{SocketAddr, UdpSocket};

use npc_core::ArkitTarget;
use npc_core::body::HumanoidBone;
use npc_core::link::livelink::{self, LiveLinkFrame};
use npc_core::link::vmc::{self, VmcBundle, VrmPresets};
use npc_core::take::angles::{HeadTurn, head_turn};
use npc_io::stream::{Stream, StreamTarget, TIMECODE_FPS, due, socket_for};

use crate::world::World;

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
