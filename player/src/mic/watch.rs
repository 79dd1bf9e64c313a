//! A sound device that stops delivering sound without reporting an error (unplugged on some
//! systems, a sound server that hangs) is noticed: after [`QUIET`] without a chunk the run
//! says so once and listens on, and says so again when sound comes back. Times are inputs.

use std::time::{Duration, Instant};

/// A device that has sent nothing for this long is called quiet.
pub const QUIET: Duration = Duration::from_secs(1);

/// Watches a sound device's chunks arriving.
#[derive(Clone, Copy, Debug)]
pub struct DeviceWatch {
    last: Instant,
    quiet: bool,
}

impl DeviceWatch {
    /// Watching from `now` (the device just opened).
    #[must_use]
    pub fn new(now: Instant) -> Self {
        Self {
            last: now,
            quiet: false,
        }
    }

    /// A chunk came at `now`; what to say if the device had gone quiet.
    pub fn heard(&mut self, now: Instant) -> Option<&'static str> {
        self.last = now;
        std::mem::take(&mut self.quiet).then_some("the microphone is heard again")
    }

    /// Nothing came by `now`; what to say, once, when the device has gone quiet.
    pub fn check(&mut self, now: Instant) -> Option<String> {
        if self.quiet || now.saturating_duration_since(self.last) < QUIET {
            return None;
        }
        self.quiet = true;
        Some(format!(
            "no sound from the microphone for {} s (unplugged, or its sound server stopped?); \
             the run goes on and listens for it",
            QUIET.as_secs()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_gone_quiet_is_said_once_and_again_when_it_comes_back() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut watch = DeviceWatch::new(t0);
        assert_eq!(watch.heard(at(10)), None);
        assert_eq!(watch.check(at(900)), None);
        assert!(watch.check(at(1_100)).is_some());
        assert_eq!(watch.check(at(5_000)), None, "said once");
        assert_eq!(
            watch.heard(at(5_010)),
            Some("the microphone is heard again")
        );
        assert_eq!(watch.check(at(5_500)), None);
        assert!(watch.check(at(6_100)).is_some());
    }
}
