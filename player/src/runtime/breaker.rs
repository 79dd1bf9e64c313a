//! The circuit breaker in front of a cloud speech engine: after a few failures in a row, lines
//! go straight to the offline engine for a while (said once) instead of each waiting out the
//! cloud's timeout; then one line tries the cloud again, and a success closes the breaker.
//! Time is an input: every call takes the moment it is made.

use std::time::{Duration, Instant};

/// Failures in a row that open the breaker.
pub const FAILURES_TO_OPEN: u32 = 3;
/// How long lines skip the cloud once it opened.
pub const OPEN_FOR: Duration = Duration::from_secs(60);

/// The breaker's state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Breaker {
    failures: u32,
    open_until: Option<Instant>,
}

impl Breaker {
    /// Whether a line at `now` may try the cloud.
    #[must_use]
    pub fn allows(&self, now: Instant) -> bool {
        self.open_until.is_none_or(|until| now >= until)
    }

    /// The cloud spoke a line: the breaker closes. Returns what to say when it had opened.
    pub fn succeeded(&mut self) -> Option<String> {
        self.failures = 0;
        self.open_until
            .take()
            .map(|_| "the cloud speech engine answers again; lines go to it".to_owned())
    }

    /// The cloud failed a line at `now`. Returns what to say when this opens the breaker.
    pub fn failed(&mut self, now: Instant) -> Option<String> {
        self.failures = self.failures.saturating_add(1);
        let was_open = self.open_until.is_some();
        if self.failures < FAILURES_TO_OPEN {
            return None;
        }
        self.open_until = Some(now + OPEN_FOR);
        (!was_open).then(|| {
            format!(
                "the cloud speech engine failed {} lines in a row; lines are spoken offline for \
                 the next {} s",
                self.failures,
                OPEN_FOR.as_secs()
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_in_a_row_open_it_once_and_a_later_success_closes_it() {
        let t0 = Instant::now();
        let mut b = Breaker::default();
        assert!(b.allows(t0));
        assert_eq!(b.failed(t0), None);
        assert_eq!(
            b.succeeded(),
            None,
            "a success between failures resets the count"
        );
        assert_eq!(b.failed(t0), None);
        assert_eq!(b.failed(t0), None);
        assert!(
            b.failed(t0).is_some(),
            "the third in a row opens it, said once"
        );
        assert!(!b.allows(t0 + OPEN_FOR / 2));
        // After the pause one line tries again; its failure keeps it open, unsaid.
        assert!(b.allows(t0 + OPEN_FOR));
        assert_eq!(b.failed(t0 + OPEN_FOR), None);
        assert!(!b.allows(t0 + OPEN_FOR + Duration::from_secs(1)));
        let later = t0 + OPEN_FOR * 2;
        assert!(b.allows(later));
        assert!(b.succeeded().is_some(), "closing is said");
        assert!(b.allows(later));
        assert_eq!(b.failed(later), None, "counting starts again");
    }
}
