//! The circuit breaker in front of a cloud speech engine: after a few failures in a row, lines
//! go straight to the offline engine for a while (said once) instead of each waiting out the
//! cloud's timeout; then one line tries the cloud again, and a success closes the breaker.
//! While a call has gone unanswered for longer than [`SLOW_CALL`], or as many calls are under
//! way as the breaker allows at once, new lines do not join them: they are spoken offline at
//! once (a hung service holds only the lines already waiting on it, never every worker). Time
//! is an input: every call takes the moment it is made.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Failures in a row that open the breaker.
pub const FAILURES_TO_OPEN: u32 = 3;
/// How long lines skip the cloud once it opened.
pub const OPEN_FOR: Duration = Duration::from_secs(60);
/// A call unanswered this long is slow: new lines go offline instead of waiting with it
/// (a cloud voice's first audio comes in well under a second).
pub const SLOW_CALL: Duration = Duration::from_secs(2);

/// The breaker's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breaker {
    failures: u32,
    open_until: Option<Instant>,
    /// The calls under way, by number: when each began.
    calls: BTreeMap<u64, Instant>,
    next_call: u64,
    /// How many calls may be under way at once.
    max_calls: usize,
}

impl Default for Breaker {
    fn default() -> Self {
        Self::with_max_calls(usize::MAX)
    }
}

impl Breaker {
    /// A closed breaker that lets at most `max_calls` calls be under way at once.
    #[must_use]
    pub fn with_max_calls(max_calls: usize) -> Self {
        Self {
            failures: 0,
            open_until: None,
            calls: BTreeMap::new(),
            next_call: 0,
            max_calls: max_calls.max(1),
        }
    }

    /// Whether a line at `now` may try the cloud.
    #[must_use]
    pub fn allows(&self, now: Instant) -> bool {
        self.open_until.is_none_or(|until| now >= until)
            && self.calls.len() < self.max_calls
            && !self
                .calls
                .values()
                .any(|&began| now.saturating_duration_since(began) > SLOW_CALL)
    }

    /// A call begins at `now`; its number, for [`Self::ended`].
    pub fn began(&mut self, now: Instant) -> u64 {
        let call = self.next_call;
        self.next_call += 1;
        self.calls.insert(call, now);
        call
    }

    /// Call `call` has ended (then [`Self::succeeded`] or [`Self::failed`]).
    pub fn ended(&mut self, call: u64) {
        self.calls.remove(&call);
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

    #[test]
    fn a_call_gone_unanswered_too_long_sends_new_lines_offline_until_it_ends() {
        let t0 = Instant::now();
        let mut b = Breaker::default();
        let call = b.began(t0);
        assert!(b.allows(t0 + SLOW_CALL), "not slow yet: others may try too");
        assert!(!b.allows(t0 + SLOW_CALL + Duration::from_millis(1)));
        b.ended(call);
        assert!(b.allows(t0 + SLOW_CALL * 2));
        let mut two = Breaker::with_max_calls(2);
        let first = two.began(t0);
        two.began(t0);
        assert!(!two.allows(t0), "two under way: a third goes offline");
        two.ended(first);
        assert!(two.allows(t0));
    }
}
