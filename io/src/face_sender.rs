//! One face streamed on its own (the studio's character as its view shows it), with its body
//! when it has one.

use npc_core::ArkitTarget;
use npc_core::arkit::ARKIT_TARGET_COUNT;
use npc_core::asset::Transform;
use npc_core::body::{HumanoidBone, PoseReader, Skeleton};
use npc_core::link::livelink::{self, LiveLinkFrame};
use npc_core::link::vmc::{self, VmcBundle};
use npc_core::take::angles::{HeadTurn, head_turn};
use std::net::UdpSocket;

use crate::stream::{Stream, StreamTarget, TIMECODE_FPS, due, socket_for};

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
