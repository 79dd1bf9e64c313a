//! `npc-player replay TAKE --to URL`: a capture (a Live Link Face CSV, or a glTF file's clip
//! such as a Face Cap recording) sent live, frame by frame at its own times, over Live Link
//! Face or VMC, as the device that recorded it would have sent it: to drive an engine's
//! character from a recording, or to check a receiver. Gaps go as untracked frames.

use std::net::UdpSocket;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use npc_core::ArkitTarget;
use npc_core::link::livelink::{self, LiveLinkFrame};
use npc_core::link::vmc::{self, VmcBundle};
use npc_core::take::read_capture;

use npc_io::stream::TIMECODE_FPS;
use npc_io::{StreamTarget, parse_stream};

/// The rate a glTF clip is sampled at.
const GLTF_FPS: f64 = 60.0;

#[derive(Debug, clap::Args)]
pub(super) struct ReplayArgs {
    /// The take: Live Link Face CSV, or a glTF file whose clip animates ARKit targets.
    #[arg(value_name = "TAKE")]
    take: PathBuf,
    /// Where to send it: livelink://HOST:PORT (11111 by default) or vmc://HOST:PORT (39539).
    #[arg(long, value_name = "URL")]
    to: String,
    /// The Live Link subject it is sent as.
    #[arg(long, value_name = "NAME", default_value = "Replay")]
    subject: String,
}

/// One moment of the take: a frame's index, or a gap.
#[derive(Clone, Copy)]
enum Moment {
    Frame(usize),
    Gap,
}

pub(super) fn run(args: &ReplayArgs) -> anyhow::Result<()> {
    let take = read_capture(&args.take, GLTF_FPS).map_err(anyhow::Error::msg)?;
    let target = parse_stream(&args.to).map_err(anyhow::Error::msg)?.target;
    let to = match target {
        StreamTarget::LiveLink(to) | StreamTarget::Vmc(to) => to,
    };
    if args.subject.is_empty() {
        bail!("--subject must name the subject");
    }
    let local = if to.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" };
    let socket = UdpSocket::bind(local).context("cannot open a UDP socket")?;
    let mut moments: Vec<(f64, Moment)> = take
        .times_ms
        .iter()
        .enumerate()
        .map(|(i, &t)| (t, Moment::Frame(i)))
        .chain(take.gaps_ms.iter().map(|&t| (t, Moment::Gap)))
        .collect();
    moments.sort_by(|a, b| a.0.total_cmp(&b.0));
    let heads = take.head_turns();
    let mut bundle = matches!(target, StreamTarget::Vmc(_)).then(|| {
        VmcBundle::new(
            None,
            ArkitTarget::ALL.iter().map(|t| vmc::upper_camel(t.name())),
        )
    });
    let lost = vmc::encode_tracking_lost();
    eprintln!(
        "replaying {} ({} frames, {} gaps, {:.1} s) to {}",
        args.take.display(),
        take.times_ms.len(),
        take.gaps_ms.len(),
        take.duration_ms() / 1000.0,
        args.to
    );
    let start = Instant::now();
    let mut packet = Vec::with_capacity(512);
    let mut failed = false;
    for (t_ms, moment) in moments {
        let at = start + Duration::from_secs_f64(t_ms.max(0.0) / 1000.0);
        std::thread::sleep(at.saturating_duration_since(Instant::now()));
        let time_s = t_ms / 1000.0;
        let sent = match (moment, bundle.as_mut()) {
            (Moment::Frame(i), None) => {
                livelink::encode(
                    &LiveLinkFrame {
                        subject: &args.subject,
                        time_s,
                        fps: TIMECODE_FPS,
                        weights: &take.weights[i],
                        head: heads.get(i).copied().unwrap_or_default(),
                    },
                    &mut packet,
                );
                socket.send_to(&packet, to).map(|_| ())
            }
            (Moment::Gap, None) => {
                livelink::encode_untracked(&args.subject, time_s, TIMECODE_FPS, &mut packet);
                socket.send_to(&packet, to).map(|_| ())
            }
            (Moment::Frame(i), Some(bundle)) => {
                bundle.set_time(time_s as f32);
                bundle.set_blends(take.weights[i].iter().copied());
                socket.send_to(bundle.encode(), to).map(|_| ())
            }
            (Moment::Gap, Some(_)) => socket.send_to(&lost, to).map(|_| ()),
        };
        if let Err(why) = sent
            && !std::mem::replace(&mut failed, true)
        {
            tracing::warn!("sending to {to}: {why}; the replay goes on");
        }
    }
    eprintln!("replayed in {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}
