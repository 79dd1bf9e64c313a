//! Progress of long commands on the terminal (`render`, `align`, `transfer`,
//! `generate-assets`): a bar for work counted in steps, a spinner with the time taken for one
//! long step. indicatif (the maintained terminal progress crate) draws it on stderr only when
//! stderr is a terminal, so logs, pipes and tests see none of it. `bench-render` shows none:
//! drawing would be measured with the frames.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// How often a spinner turns.
const SPIN: Duration = Duration::from_millis(120);

/// A progress bar or spinner, cleared when dropped.
#[derive(Debug)]
pub(crate) struct Progress(ProgressBar);

impl Progress {
    /// A bar of `len` steps of `what` ("frames").
    pub(crate) fn steps(len: u64, what: &str) -> Self {
        let bar = ProgressBar::new(len);
        if let Ok(style) = ProgressStyle::with_template(&format!(
            "{{bar:30}} {{pos}}/{{len}} {what}, {{elapsed}} (about {{eta}} left)"
        )) {
            bar.set_style(style);
        }
        Self(bar)
    }

    /// A spinner saying what is being done and for how long.
    pub(crate) fn working(what: &str) -> Self {
        let bar = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
            bar.set_style(style);
        }
        bar.set_message(what.to_owned());
        bar.enable_steady_tick(SPIN);
        Self(bar)
    }

    /// One step done.
    pub(crate) fn step(&self) {
        self.0.inc(1);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}
