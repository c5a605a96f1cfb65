//! The progress line on the terminal (indicatif): the stage, and while the
//! engine explores, its counters, what the caller adds (tests, clusters) and
//! the time left in the budget. Drawn on stderr only when stderr is a terminal
//! and the user did not ask for quiet; otherwise it draws nothing at all.
//!
//! Any command can use it: [`Progress::stage`] between stages, and
//! [`Progress::explored`] with the engine's snapshots.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::budget::Budget;
use crate::exec;

pub struct Progress {
    bar: ProgressBar,
    /// The end of the budget (`--max-time`), for "time left".
    deadline: Option<Instant>,
}

impl Progress {
    /// A spinner on stderr if `wanted` and stderr is a terminal; otherwise a
    /// hidden one.
    pub fn on_stderr(wanted: bool) -> Progress {
        if !(wanted && std::io::stderr().is_terminal()) {
            return Progress { bar: ProgressBar::hidden(), deadline: None };
        }
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner:.cyan} {prefix:.bold} [{elapsed}] {wide_msg}")
                .expect("a valid template"),
        );
        bar.enable_steady_tick(Duration::from_millis(100));
        Progress { bar, deadline: None }
    }

    /// Whether anything is drawn.
    pub fn shown(&self) -> bool {
        !self.bar.is_hidden()
    }

    /// Shows `stage` with a word on what it does.
    pub fn stage(&self, stage: &'static str, what: impl Into<String>) {
        self.bar.set_prefix(stage);
        self.bar.set_message(what.into());
    }

    pub fn set_budget(&mut self, budget: Budget) {
        self.deadline = budget.deadline();
    }

    /// `extra` (the caller's results so far), the time left, then the
    /// engine's counters: what matters most first, as narrow terminals cut
    /// the end.
    pub fn explored(&self, p: &exec::Progress<'_>, extra: &str) {
        let st = p.stats;
        let paths = st.paths_exited + st.paths_errored + st.paths_silent + st.paths_early;
        let mut parts = Vec::new();
        if !extra.is_empty() {
            parts.push(extra.to_string());
        }
        if let Some(d) = self.deadline {
            parts.push(format!(
                "{:.0}s left",
                d.saturating_duration_since(Instant::now()).as_secs_f64().ceil()
            ));
        }
        parts.push(format!(
            "{paths} paths, {} states ({} live), {} instructions, {} queries",
            st.states_created, p.live_states, st.instructions, p.solver.queries
        ));
        self.bar.set_prefix("explore");
        self.bar.set_message(parts.join(" | "));
    }

    /// Clears the line, for the output that follows.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
