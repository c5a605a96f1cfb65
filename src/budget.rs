//! `--max-time`: one start and one deadline for the whole command, which the
//! solver, the executor, fuzzing, replay and the progress line all read, so
//! that no stage derives its own.

use std::time::{Duration, Instant};

/// A command's time budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// When the command started: the time limit counts from here.
    pub start: Instant,
    /// The time limit, if there is one.
    pub limit: Option<Duration>,
}

impl Budget {
    pub fn new(start: Instant, limit: Option<Duration>) -> Budget {
        Budget { start, limit }
    }

    /// No limit, counting from now.
    pub fn unlimited() -> Budget {
        Budget { start: Instant::now(), limit: None }
    }

    /// When the budget ends, if it does.
    pub fn deadline(&self) -> Option<Instant> {
        self.limit.map(|l| self.start + l)
    }

    /// The budget has ended.
    pub fn spent(&self) -> bool {
        self.deadline().is_some_and(|d| Instant::now() >= d)
    }
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::unlimited()
    }
}
