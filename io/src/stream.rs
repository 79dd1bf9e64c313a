//! Where a face or a crowd is streamed to another engine: `vmc://HOST:PORT` (the VMC protocol,
//! core's [`npc_core::link::vmc`]) or `livelink://HOST:PORT` (Unreal's Live Link Face, core's
//! [`npc_core::link::livelink`]), with the rate and the NPC chosen in the URL; the
//! non-blocking sockets they go out on and the pacing of sends on a run's clock.

use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};

use npc_core::link::{livelink, vmc};

/// Poses sent per NPC a second unless the URL says (`?hz=N`).
pub const RATE_HZ: f64 = 60.0;
/// Live Link Face frame times count frames of this rate, whatever the send rate.
pub const TIMECODE_FPS: u32 = 60;

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
///
/// # Errors
/// The system refused one: the reason, in words.
pub fn socket_for(to: SocketAddr) -> Result<UdpSocket, String> {
    let local = if to.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" };
    UdpSocket::bind(local)
        .and_then(|s| s.set_nonblocking(true).map(|()| s))
        .map_err(|e| format!("cannot open a UDP socket for {to}: {e}"))
}

/// Whether it is time to send again at `time_s` (at most `rate_hz` a second); moves `last`.
pub fn due(last: &mut Option<f64>, time_s: f64, rate_hz: f64) -> bool {
    if last.is_some_and(|l| time_s - l < 1.0 / rate_hz - 1e-4) {
        return false;
    }
    *last = Some(time_s);
    true
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
