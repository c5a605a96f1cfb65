//! The progress line on the terminal (indicatif): the stage, and while the
//! engine explores, its counters, what the caller adds (tests, clusters) and
//! the time left in the budget. Drawn on stderr only when stderr is a terminal
//! and the user did not ask for quiet; otherwise it draws nothing at all.
//!
//! Any command can use it: [`Progress::stage`] between stages, and
//! [`Tracked`] around the engine's halt observer to follow exploration.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use crate::exec::{self, Control, HaltContext, HaltObserver, HaltedPath};

pub struct Progress {
    bar: ProgressBar,
    /// The exploration budget (`--max-time`), for "time left".
    budget: Option<Duration>,
}

impl Progress {
    /// A spinner on stderr if `wanted` and stderr is a terminal; otherwise a
    /// hidden one.
    pub fn on_stderr(wanted: bool) -> Progress {
        if !(wanted && std::io::stderr().is_terminal()) {
            return Progress { bar: ProgressBar::hidden(), budget: None };
        }
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner:.cyan} {prefix:.bold} [{elapsed}] {wide_msg}")
                .expect("a valid template"),
        );
        bar.enable_steady_tick(Duration::from_millis(100));
        Progress { bar, budget: None }
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

    pub fn set_budget(&mut self, budget: Option<Duration>) {
        self.budget = budget;
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
        if let Some(b) = self.budget {
            parts.push(format!("{:.0}s left", b.saturating_sub(st.elapsed).as_secs_f64().ceil()));
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

/// A halt observer that also shows progress: halts go to `inner`, snapshots
/// to the progress line with `extra(&inner)` appended.
pub struct Tracked<'p, O, F> {
    pub inner: O,
    progress: &'p Progress,
    extra: F,
}

impl<'p, O: HaltObserver, F: Fn(&O) -> String> Tracked<'p, O, F> {
    pub fn new(inner: O, progress: &'p Progress, extra: F) -> Self {
        Tracked { inner, progress, extra }
    }
}

impl<O: HaltObserver, F: Fn(&O) -> String> HaltObserver for Tracked<'_, O, F> {
    fn on_halt(&mut self, path: &HaltedPath, cx: &mut HaltContext<'_>) -> Control {
        self.inner.on_halt(path, cx)
    }

    fn on_end(&mut self, cx: &mut HaltContext<'_>) {
        self.inner.on_end(cx)
    }

    fn on_domain(&mut self, domain: Result<&exec::InputDomain, &str>) {
        self.inner.on_domain(domain)
    }

    fn open_pairs(&mut self) -> Option<Vec<(u32, u32)>> {
        self.inner.open_pairs()
    }

    fn proved_by_exploration(&mut self, pairs: &[(u32, u32)]) {
        self.inner.proved_by_exploration(pairs)
    }

    fn on_progress(&mut self, p: &exec::Progress<'_>) -> Control {
        let control = self.inner.on_progress(p);
        if self.progress.shown() {
            self.progress.explored(p, &(self.extra)(&self.inner));
        }
        control
    }
}
