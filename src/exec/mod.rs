//! The symbolic executor, split as KLEE splits it: [`Executor`] (the loop
//! and the instructions), [`ExecutionState`] (one path: frames, constraints,
//! revision set, memory, outputs), [`memory`] (copy-on-write object memory),
//! [`searcher`] (state selection), `special` (the KLEE API, `__klee_meta`
//! and the libc functions the engine models), `stdio` (output: the printf
//! family, puts, fwrite) and [`printf`] (glibc-exact formatting).
//!
//! Revisions: a state carries the set of revisions that follow it. An
//! expression that mentions the revision is never sent to the solver: when
//! one must be decided, the state splits by the value each revision gives
//! it (see `Executor::split_revisions`), so shared code runs once for all.
//!
//! The observer: a `HaltObserver` set with `set_observer` sees every
//! `HaltedPath` with the pool and the solver (`on_halt`), and may stop the run;
//! `on_progress` is called about every `PROGRESS_INTERVAL` (100 ms) with the
//! statistics and may stop it too (exploration may halt no path for a long
//! while); `on_end` once exploration has ended; `on_domain` once, with the input
//! domain or why there is none; `open_pairs` and `proved_by_exploration` let the
//! engine prove pairs by exploration (`reach.rs`). The `SeedInbox` is the other
//! way in: inputs from another thread (`seeds.rs`). These two are all the engine
//! knows of the differentiator and the fuzzer.
//!
//! Revisions: splitting covers every expression that mentions the revision and
//! must be decided: a branch, a switch, a select condition, an address, a call
//! target, a size, an assumption. Every part re-runs the instruction. A branch
//! decided by the revision alone looks further (`meta.rs`): each revision
//! follows its edge on through blocks that only compute on the revision (the
//! `||`/`&&` chains of `__klee_meta(S) == r` tests that `unify` writes), and the
//! state splits by the block where the chains land, so revisions that select the
//! same variant stay one state. A `__klee_meta_in(S, set)` call (a long
//! chain's one test) splits the state into the revisions in the set and the
//! rest. At a halt, outputs that mention the revision split the `HaltedPath`
//! per group of revisions.

mod access;
mod alloc;
mod calls;
pub mod coverage;
mod defer;
pub mod domain;
mod executor;
mod float;
pub mod halt;
mod instructions;
pub mod memory;
mod merge;
mod meta;
pub mod printf;
mod reach;
pub mod revset;
pub mod searcher;
mod seeds;
mod slab;
mod special;
pub mod state;
mod stdio;
pub mod value;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

pub use coverage::Coverage;
pub use domain::{DomainObject, InputDomain};
pub use executor::Executor;
pub use halt::{
    Annotation, ApproxKind, Approximation, ErrorKind, FmtArg, HaltedPath, Location, OutputEvent, StackFrame,
    Stream, SymbolicObject, Termination, ktest_objects,
};
pub use revset::RevSet;
pub use searcher::{SearchKind, SearchView, Searcher, StateId};
pub use seeds::SeedInbox;
pub use slab::Slab;
pub use special::engine_provides;
pub use state::ExecutionState;

use crate::expr::ExprPool;
use crate::solver::{Solver, SolverStats};

/// What to do with a call to a function that has neither a body nor a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExternalCalls {
    /// End the path with an `external` error.
    #[default]
    Error,
    /// Call the host's function (found with `dlsym`) on concrete integer
    /// arguments, as KLEE's `--external-calls=all` does. Pointer, float and
    /// variadic arguments are not passed: such a call is still an error.
    Native,
}

#[derive(Debug, Clone)]
pub struct ExecConfig {
    /// The function to start in.
    pub entry: String,
    /// `argv` for an entry function that takes `(argc, argv)`.
    pub argv: Vec<String>,
    pub search: SearchKind,
    /// Seed of the randomised searchers.
    pub seed: u64,
    pub max_time: Option<Duration>,
    /// Where `max_time` counts from (default: the start of `Executor::run`).
    pub budget_start: Option<Instant>,
    /// Total instructions over all paths.
    pub max_instructions: Option<u64>,
    /// Symbolic branches along one path; a path that would fork deeper ends
    /// early.
    pub max_depth: Option<u32>,
    /// Total forks; after that only one side of a branch is followed.
    pub max_forks: Option<u64>,
    /// Resident memory in MiB; over it, states are ended early.
    pub max_memory_mb: Option<u64>,
    /// The time limit of one solver query.
    pub max_solver_time: Duration,
    /// Report shifts by the width or more as `overshift` errors (otherwise
    /// they behave as x86-64 does).
    pub check_overshift: bool,
    pub external_calls: ExternalCalls,
    /// The number of revisions, overriding the module's
    /// `__psychic_revisions`.
    pub revisions: Option<u32>,
    /// Keep every halted path in the summary.
    pub keep_paths: bool,
    /// Call depth at which a path ends with a stack-overflow error.
    pub max_stack_frames: usize,
    /// Split a state into one per revision at its first `__klee_meta` call,
    /// as the paper's ApplyMetaBranch does, instead of splitting revision sets
    /// only where the revisions' code differs. For measuring the gain of
    /// shared execution.
    pub per_revision_states: bool,
    /// Seed inputs (KLEE's --seed-dir): states that agree with a seed run
    /// first, so exploration starts along the seeds' paths.
    pub seeds: Vec<crate::ktest::KTest>,
    /// A path that ends seeds, with its input, the live states of other
    /// revisions that accept that input: their paths over it run next, so that
    /// the halted paths the differentiator compares cover common inputs.
    pub cross_seed: bool,
    /// Inputs found while the run goes on (native fuzzing's): the engine takes
    /// a few at every progress interval as seeds of the live states that agree
    /// with them, so that those run along them next.
    pub seed_inbox: Option<SeedInbox>,
    /// Set from outside (Ctrl-C) to stop the run as a limit would.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// Merge the states of a revision split again where the variants meet
    /// with equal effects (`merge`).
    pub merge: bool,
    /// Per meta-branch site, the revisions of each of its variants (the meta
    /// program's site table), so that the run knows which pairs a site can
    /// still tell apart (`reach`). A site not listed may tell apart any.
    pub site_variants: std::collections::HashMap<u32, Vec<RevSet>>,
}

impl Default for ExecConfig {
    fn default() -> Self {
        ExecConfig {
            entry: "main".into(),
            argv: vec!["program".into()],
            search: SearchKind::Default,
            seed: 1,
            max_time: None,
            budget_start: None,
            max_instructions: None,
            max_depth: None,
            max_forks: None,
            max_memory_mb: None,
            max_solver_time: Duration::from_secs(10),
            check_overshift: false,
            external_calls: ExternalCalls::Error,
            revisions: None,
            keep_paths: true,
            max_stack_frames: 10_000,
            per_revision_states: false,
            seeds: Vec::new(),
            cross_seed: false,
            seed_inbox: None,
            interrupt: None,
            merge: true,
            site_variants: Default::default(),
        }
    }
}

/// Counters of one run.
#[derive(Debug, Clone, Default)]
pub struct ExecStats {
    pub instructions: u64,
    pub forks: u64,
    /// Splits of a state's revision set.
    pub revision_splits: u64,
    pub states_created: u64,
    pub max_live_states: u64,
    /// Halted paths by termination: exit, error, silent, early.
    pub paths_exited: u64,
    pub paths_errored: u64,
    pub paths_silent: u64,
    pub paths_early: u64,
    /// Live states seeded with the input of a halted path of other revisions
    /// (`ExecConfig::cross_seed`).
    pub cross_seeded: u64,
    /// Inputs of `ExecConfig::seed_inbox` taken as seeds, the live states
    /// they were handed to, and the paths that followed one to their end.
    pub inbox_seeds: u64,
    pub inbox_seeded: u64,
    pub inbox_paths: u64,
    pub covered_blocks: u64,
    pub total_blocks: u64,
    pub elapsed: Duration,
    /// Revision splits whose variants meet again in the split's frame
    /// (merge groups), those that ended before all their states met, states
    /// merged into another, and the queries that proved them equal.
    pub merge_groups: u64,
    pub merge_groups_expired: u64,
    pub merged_states: u64,
    pub merge_queries: u64,
    pub merge_time: Duration,
    /// Branch queries that ran out of their first (or a later) timeout and
    /// put their state aside (`defer`).
    pub deferred_queries: u64,
}

impl ExecStats {
    /// Paths that ran to an end (exit or error). KLEE's summary counts only
    /// exits as completed (see `run`).
    pub fn completed_paths(&self) -> u64 {
        self.paths_exited + self.paths_errored
    }
}

/// Whether the run goes on after an observer saw a halted path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    Continue,
    Stop,
}

/// What an observer may use when a path halts.
pub struct HaltContext<'a> {
    pub pool: &'a mut ExprPool,
    pub solver: &'a mut Solver,
    pub stats: &'a ExecStats,
}

/// Called at every halt, in order (a later stage generates differential
/// tests on the fly here).
pub trait HaltObserver {
    fn on_halt(&mut self, path: &HaltedPath, cx: &mut HaltContext<'_>) -> Control;

    /// Called about every [`PROGRESS_INTERVAL`] while the run goes on (progress
    /// lines, periodic statistics).
    /// `Control::Stop` ends the run as `on_halt`'s does.
    fn on_progress(&mut self, _progress: &Progress<'_>) -> Control {
        Control::Continue
    }

    /// Called once when exploration has ended, before the run returns: work
    /// put off for the sake of exploration (the solver's deadline still holds).
    fn on_end(&mut self, _cx: &mut HaltContext<'_>) {}

    /// Called once: early, with the box if the program's first steps bound
    /// every input to one (`domain`), else with why they do not, or why the
    /// run ended before it knew.
    fn on_domain(&mut self, _domain: Result<&InputDomain, &str>) {}

    /// The revision pairs neither told apart nor proved equivalent, if every
    /// comparison of their halted paths settled without a difference (none
    /// waits for the solver, none failed): the run may stop once no state
    /// left can tell them apart. `None`: it may not.
    fn open_pairs(&mut self) -> Option<Vec<(u32, u32)>> {
        None
    }

    /// The run stops because no state left can tell these pairs apart, and
    /// nothing was approximated on their paths: they are equivalent.
    fn proved_by_exploration(&mut self, _pairs: &[(u32, u32)]) {}
}

/// How often [`HaltObserver::on_progress`] is called.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

/// A snapshot of a run in progress.
pub struct Progress<'a> {
    /// `elapsed` is the time since the run started.
    pub stats: &'a ExecStats,
    pub solver: &'a SolverStats,
    pub live_states: usize,
}

/// Lends an observer to the executor, so the caller reads its results after
/// the run.
impl<T: HaltObserver + ?Sized> HaltObserver for &mut T {
    fn on_halt(&mut self, path: &HaltedPath, cx: &mut HaltContext<'_>) -> Control {
        (**self).on_halt(path, cx)
    }

    fn on_progress(&mut self, progress: &Progress<'_>) -> Control {
        (**self).on_progress(progress)
    }

    fn on_end(&mut self, cx: &mut HaltContext<'_>) {
        (**self).on_end(cx)
    }

    fn on_domain(&mut self, domain: Result<&InputDomain, &str>) {
        (**self).on_domain(domain)
    }

    fn open_pairs(&mut self) -> Option<Vec<(u32, u32)>> {
        (**self).open_pairs()
    }

    fn proved_by_exploration(&mut self, pairs: &[(u32, u32)]) {
        (**self).proved_by_exploration(pairs)
    }
}

/// The result of [`Executor::run`].
#[derive(Debug)]
pub struct RunSummary {
    pub stats: ExecStats,
    pub solver: SolverStats,
    /// Every halted path, if `keep_paths`.
    pub paths: Vec<HaltedPath>,
    /// Engine warnings (concretisations, `klee_warning`), deduplicated.
    pub warnings: Vec<String>,
    /// Why the run stopped before exploring every path, if it did.
    pub stopped_early: Option<String>,
    /// Exact and approximated paths per revision.
    pub coverage: Coverage,
}

#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error(transparent)]
    Load(#[from] crate::ir::LoadError),
    #[error("entry function `{0}` takes parameters psychic cannot provide (expected none, or argc and argv)")]
    EntrySignature(String),
}
