//! Branch queries that never stall the run for long.
//!
//! The executor runs one state at a time, and a branch query that takes the
//! solver's whole timeout (seconds) holds every other state, of every
//! revision, for that long. So a branch query first gets a short timeout;
//! one that runs out puts its state aside (out of the searcher and the
//! process tree's walk) and the run goes on with the others. The state
//! comes back once the others have had about twice its next timeout, or at
//! once when nothing else is left, and asks again with ten times the
//! timeout, up to the solver's own. The query is asked before any side
//! effect of its instruction, which the state runs again from the start,
//! as a revision split does. The differentiator's queries follow the same
//! ladder (`diff`).

use std::collections::{HashSet, VecDeque};
use std::time::{Duration, Instant};

use crate::expr::{ExprId, ExprPool};
use crate::solver::{Solver, SolverError};

use super::executor::{Executor, Res, Stop};
use super::searcher::StateId;
use super::state::ExecutionState;

/// The first timeout of a branch query.
const FIRST_TIMEOUT: Duration = Duration::from_millis(100);

/// States put aside for a branch query that ran out of its timeout.
#[derive(Default)]
pub(super) struct Deferred {
    /// When each may come back, in the order they were put aside.
    queue: VecDeque<(Instant, StateId)>,
    set: HashSet<StateId>,
    /// Set by a query of the running state that ran out of time.
    pub(super) now: bool,
}

impl Deferred {
    pub(super) fn contains(&self, s: StateId) -> bool {
        self.set.contains(&s)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

impl Executor<'_> {
    /// A branch query of `st`, with the timeout of its patience: on running
    /// out of it, the state's instruction stops before any side effect and
    /// the state goes aside (`defer_step`). Past the run's deadline, and for
    /// a state alone in the run, the query has the solver's own timeout.
    pub(super) fn branch_query<T>(
        &mut self,
        st: &mut ExecutionState,
        query: impl Fn(&mut Solver, &ExprPool, &[ExprId]) -> Result<T, SolverError>,
    ) -> Res<T> {
        let constraints = std::mem::take(&mut st.constraints);
        let result = self.branch_query_on(st, &constraints, query);
        st.constraints = constraints;
        result
    }

    fn branch_query_on<T>(
        &mut self,
        st: &mut ExecutionState,
        constraints: &[ExprId],
        query: impl Fn(&mut Solver, &ExprPool, &[ExprId]) -> Result<T, SolverError>,
    ) -> Res<T> {
        let full = self.solver.timeout();
        let this = FIRST_TIMEOUT.saturating_mul(10u32.pow(u32::from(st.patience))).min(full);
        // A state that follows a seed is the one to run (seeds first).
        let may_defer = this < full && self.states.len() > 1 && st.seeds.is_empty();
        if may_defer {
            self.solver.set_timeout(this);
        }
        let mut result = query(&mut self.solver, &self.pool, constraints);
        self.solver.set_timeout(full);
        if may_defer && matches!(result, Err(SolverError::Timeout)) && !self.solver.past_deadline() {
            if self.others_wait(st) {
                st.patience += 1;
                self.deferred.now = true;
                self.stats.deferred_queries += 1;
                return Err(Stop::Restart);
            }
            result = query(&mut self.solver, &self.pool, constraints);
        }
        result.map_err(|e| self.solver_error(st, e))
    }

    /// Whether a state that can run follows a revision `st` does not: only
    /// then does putting `st` aside let another revision go on.
    fn others_wait(&self, st: &ExecutionState) -> bool {
        let runnable = |k: StateId| !self.deferred.contains(k) && !self.merges.is_waiting(k);
        self.states.keys().filter(|&k| runnable(k)).any(|k| {
            self.states
                .get(k)
                .and_then(|s| s.as_deref())
                .is_some_and(|o| o.revisions.iter().any(|r| !st.revisions.contains(r)))
        })
    }

    /// After a step of `sid` (back in its slot), if a branch query of it ran
    /// out of time (`ran_out`, taken from `deferred.now` after every step):
    /// it goes aside. Returns whether it did.
    pub(super) fn defer_step(&mut self, sid: StateId, ran_out: bool) -> bool {
        if !ran_out {
            return false;
        }
        let st = self.slot(sid).as_deref_mut().expect("live state");
        let next = FIRST_TIMEOUT.saturating_mul(10u32.pow(u32::from(st.patience)));
        let leaf = st.ptree_node;
        self.ptree.park(leaf);
        let back = Instant::now() + 2 * next.min(self.solver.timeout());
        self.deferred.queue.push_back((back, sid));
        self.deferred.set.insert(sid);
        true
    }

    /// The states whose time to come back has come (all of them when no
    /// other state is left to run).
    pub(super) fn deferred_back(&mut self, nothing_else: bool) -> Vec<StateId> {
        let now = Instant::now();
        let mut back = Vec::new();
        self.deferred.queue.retain(|&(at, s)| {
            let due = nothing_else || at <= now;
            if due {
                back.push(s);
            }
            !due
        });
        for &s in &back {
            self.deferred.set.remove(&s);
            let leaf = self.slot(s).as_deref().expect("live state").ptree_node;
            self.ptree.unpark(leaf, s);
        }
        back
    }
}
