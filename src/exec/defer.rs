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
//!
//! The first timeout is 100 ms (`FIRST_TIMEOUT`). A state is put aside only if a
//! state of another revision is there to run (not put aside, not waiting to
//! merge); it comes back after twice its next timeout, or when nothing else is
//! left, with ten times the timeout, up to the solver's own, until its
//! instruction is done (a switch asks one query per target). A state that
//! follows a seed is never put aside (seeds first). `report.json`'s
//! `stats.deferred_branch_queries` counts them.

use std::collections::{HashSet, VecDeque};
use std::time::{Duration, Instant};

use crate::expr::{ExprId, ExprPool};
use crate::solver::{Solver, SolverError};

use super::executor::{Executor, Res, Stop};
use super::searcher::{ProcessTree, SearchView, Searcher, StateId, forward_update};
use super::slab::Slab;
use super::state::ExecutionState;

/// The first timeout of a branch query.
const FIRST_TIMEOUT: Duration = Duration::from_millis(100);

/// The layer over the searcher that holds the states put aside for a branch
/// query that ran out of its timeout: out of the searcher below it and out
/// of the process tree's walk until their time to come back.
pub(super) struct Deferring {
    inner: Box<dyn Searcher>,
    /// When each may come back, in the order they were put aside.
    queue: VecDeque<(Instant, StateId)>,
    set: HashSet<StateId>,
    /// Put aside since the searcher below last heard: it hears of them as
    /// removed in the same update as the step that put them aside.
    left: Vec<StateId>,
    /// Set by a query of the running state that ran out of time.
    ran_out: bool,
}

impl Deferring {
    pub(super) fn new(inner: Box<dyn Searcher>) -> Self {
        Deferring { inner, queue: VecDeque::new(), set: HashSet::new(), left: Vec::new(), ran_out: false }
    }

    pub(super) fn set_base(&mut self, inner: Box<dyn Searcher>) {
        self.inner = inner;
    }

    pub(super) fn contains(&self, s: StateId) -> bool {
        self.set.contains(&s)
    }

    /// Whether some state is put aside.
    pub(super) fn holds_any(&self) -> bool {
        !self.queue.is_empty()
    }

    /// Whether a query of the running state ran out of time in its step;
    /// clears it for the next.
    pub(super) fn take_ran_out(&mut self) -> bool {
        std::mem::take(&mut self.ran_out)
    }

    fn put_aside(&mut self, ptree: &mut ProcessTree, sid: StateId, leaf: usize, back: Instant) {
        ptree.park(leaf);
        self.queue.push_back((back, sid));
        self.set.insert(sid);
        self.left.push(sid);
    }

    /// Brings back the states whose time to come back has come (all of them
    /// when no other state is left to run), into the walk and the searcher.
    pub(super) fn bring_back(&mut self, states: &Slab<Option<Box<ExecutionState>>>, ptree: &mut ProcessTree) {
        if self.queue.is_empty() {
            return;
        }
        let nothing_else = self.inner.is_empty();
        let now = Instant::now();
        let mut back = Vec::new();
        self.queue.retain(|&(at, s)| {
            let due = nothing_else || at <= now;
            if due {
                back.push(s);
            }
            !due
        });
        for &s in &back {
            self.set.remove(&s);
            let leaf = states.get(s).and_then(|s| s.as_deref()).expect("live state").ptree_node;
            ptree.unpark(leaf, s);
        }
        if !back.is_empty() {
            self.inner.update(&SearchView { states, ptree }, None, &back, &[]);
        }
    }
}

impl Searcher for Deferring {
    fn select(&mut self, view: &SearchView) -> StateId {
        self.inner.select(view)
    }

    fn update(
        &mut self,
        view: &SearchView,
        current: Option<StateId>,
        added: &[StateId],
        removed: &[StateId],
    ) {
        forward_update(self.inner.as_mut(), view, current, added, removed, &mut self.left);
    }

    fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    fn name(&self) -> &'static str {
        "deferring"
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
                self.searcher.deferring().ran_out = true;
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
        self.states.keys().filter(|&k| !self.searcher.holds_out(k)).any(|k| {
            self.states
                .get(k)
                .and_then(|s| s.as_deref())
                .is_some_and(|o| o.revisions.iter().any(|r| !st.revisions.contains(r)))
        })
    }

    /// After a step of `sid` (back in its slot), if a branch query of it ran
    /// out of time (`ran_out`, taken after every step): it goes aside.
    /// Returns whether it did.
    pub(super) fn defer_step(&mut self, sid: StateId, ran_out: bool) -> bool {
        if !ran_out {
            return false;
        }
        let st = self.slot(sid).as_deref_mut().expect("live state");
        let next = FIRST_TIMEOUT.saturating_mul(10u32.pow(u32::from(st.patience)));
        let leaf = st.ptree_node;
        let back = Instant::now() + 2 * next.min(self.solver.timeout());
        self.searcher.deferring().put_aside(&mut self.ptree, sid, leaf, back);
        true
    }
}
