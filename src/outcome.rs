//! What counts as a run's behaviour: the one notion `fuzz` (which hashes
//! outcomes to find differences) and `diff` (which confirms them by replay)
//! must share, so that both compare the same thing.

/// Which parts of a run count as its behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct OutputSelection {
    pub stdout: bool,
    pub stderr: bool,
    /// The exit status, the terminating signal and a timeout.
    pub exit: bool,
    /// `psychic_output` records (function outputs are recorded the same way).
    pub annotations: bool,
}

impl Default for OutputSelection {
    fn default() -> Self {
        OutputSelection { stdout: true, stderr: false, exit: true, annotations: true }
    }
}
