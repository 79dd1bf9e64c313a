//! `npc-player capture`: a live capture received as a take (the player's `link_in`) and
//! written as Live Link Face CSV, which the studio's "Compare with capture" and `export` read.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::bail;
use npc_core::take::write_livelink_csv;

use crate::output::write_atomically;
use npc_io::{CaptureListener, CaptureTake};

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

pub(super) fn run(args: &CaptureArgs) -> anyhow::Result<()> {
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
    let mut listener =
        CaptureListener::open(&args.listen, args.subject.clone()).map_err(anyhow::Error::msg)?;
    let (protocol, at) = (listener.protocol(), listener.address());
    eprintln!("listening for {protocol} on {at} for {} s", args.seconds);
    let end = Instant::now() + Duration::from_secs_f64(args.seconds);
    let mut take = CaptureTake::default();
    let mut heard = Vec::new();
    while Instant::now() < end {
        heard.clear();
        listener.receive(Duration::from_millis(100), &mut heard);
        for (at, frame) in heard.drain(..) {
            take.push(at, frame);
        }
    }
    let unknown = listener.unknown_names();
    if !unknown.is_empty() {
        tracing::warn!(
            "blend shapes that are not ARKit weights were left out: {}",
            unknown.join(", ")
        );
    }
    let name = listener.name();
    let Some(take) = take.take(&name) else {
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
    write_atomically(&args.out, write_livelink_csv(&take).as_bytes())?;
    eprintln!(
        "{} frames of {name} written to {} ({} without a face written as gaps)",
        take.times_ms.len(),
        args.out.display(),
        take.gaps_ms.len()
    );
    Ok(())
}
