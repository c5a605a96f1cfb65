//! The executor's core, KLEE's `Executor` without the instructions: the run
//! loop and its limits, states and the searcher, forks, halting (paths,
//! approximations, cross seeding) and errors with their locations. The
//! instruction semantics, calls, memory access and meta-branch handling are
//! rooms of their own (`instructions`, `calls`, `access`, `meta`), each an
//! `impl Executor` block over the same struct.
//!
//! The loop (`Executor::run`) picks a state through the searcher's layers (`Merging` over `Deferring` over the base searcher), runs it (`run_quantum`) for up to 10,000 instructions, or until it
//! forks or halts. Forks go through `decide`, `may_fork` and `assume_or_fork`; a
//! special function that must decide on a symbolic value (sprintf's text length)
//! commits the state to one side and lets a copy take the other and run the call
//! again from the start, before any side effect, like a pointer resolution.
//!
//! Data flow: `Executor::new(&Module, ExecConfig)` → `run()` → `RunSummary`
//! (stats, solver stats, the `HaltedPath`s if `keep_paths`, warnings). An error
//! halt carries a `Location` (file, line, column from debug info) and the call
//! stack (`StackFrame`: function and the position of its call, innermost first).
//! `ExecConfig::interrupt` (Ctrl-C) stops the run like a limit.
//! `ExecConfig::per_revision_states` splits a state into one per revision at its
//! first `__klee_meta` call (the paper's ApplyMetaBranch), to measure what shared
//! execution gains. A panic inside one state's step ends that state with an
//! internal `exec` error; the run goes on.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use crate::expr::{Assignment, Evaluator, ExprId, ExprPool};
use crate::ir::{Const, FuncId, Module, NO_REG, Operand, Reg, TyId, TypeKind};
use crate::ktest::KTest;
use crate::solver::{Solver, SolverConfig, SolverError, Validity};

use super::coverage::Coverage;
use super::defer::Deferring;
use super::halt::{
    ApproxKind, Approximation, ErrorKind, HaltedPath, Location, StackFrame, Termination, ktest_objects,
};
use super::memory::{AddressSpace, ObjId, ObjKind};
use super::merge::Merging;
use super::meta::split_path_by_revision;
use super::revset::RevSet;
use super::searcher::{First, ProcessTree, SearchView, Searcher, StateId};
use super::slab::Slab;
use super::special::Handler;
use super::state::{ExecutionState, Frame};
use super::value::Value;
use super::{
    Control, ExecConfig, ExecError, ExecStats, HaltContext, HaltObserver, PROGRESS_INTERVAL, Progress,
    RunSummary,
};

/// Instructions a state runs before the searcher chooses again.
const QUANTUM: u64 = 10_000;
/// Objects a symbolic pointer is resolved to at most.
pub(super) const MAX_RESOLVE: usize = 64;

/// Why an instruction did not complete normally.
pub(super) enum Stop {
    /// The state forked for revisions (or pointer targets) before any side
    /// effect: every resulting state runs the instruction again.
    Restart,
    Halt(Box<Termination>),
}

pub(super) type Res<T> = Result<T, Stop>;

/// The clocks of a run's loop: when it started, last reported progress and
/// last took seeds from the inbox, and the quanta it ran.
struct Ticks {
    start: Instant,
    last_progress: Instant,
    last_inbox: Instant,
    steps: u64,
}

/// A resolved memory location: an object and an offset into it.
#[derive(Clone, Copy, Debug)]
pub(super) enum Place {
    C { obj: ObjId, off: u64 },
    S { obj: ObjId, off: ExprId },
}

impl Place {
    pub(super) fn obj(&self) -> ObjId {
        match self {
            Place::C { obj, .. } | Place::S { obj, .. } => *obj,
        }
    }
}

pub struct Executor<'m> {
    pub(super) m: &'m Module,
    pub pool: ExprPool,
    pub solver: Solver,
    pub(super) cfg: ExecConfig,
    consts: Vec<Value>,
    pub(super) handlers: Vec<Option<Handler>>,
    /// Live states; a state's slot is empty while it runs.
    pub(super) states: Slab<Option<Box<ExecutionState>>>,
    /// The configured searcher under the layers that hold states out of it
    /// (`merge`, `defer`).
    pub(super) searcher: Merging,
    pub(super) ptree: ProcessTree,
    covered: Vec<Vec<bool>>,
    pub(super) stats: ExecStats,
    pub(super) observer: Option<Box<dyn HaltObserver + 'm>>,
    pub(super) paths: Vec<HaltedPath>,
    /// States forked off during the current step.
    pub(super) forked: Vec<ExecutionState>,
    warnings: Vec<String>,
    warned: HashSet<String>,
    stop: Option<String>,
    /// The stop came from the observer, which has learned what it wanted:
    /// the states it leaves are no gap in what it reports.
    observer_stopped: bool,
    /// Exact and approximated halted paths per revision.
    pub(super) coverage: Coverage,
    num_revisions: u32,
    pub(super) entry: FuncId,
    /// The `FILE` objects `stdin`, `stdout` and `stderr` point to, if the
    /// program uses them.
    pub(super) std_streams: [Option<u64>; 3],
    /// Set when building a value met something unsupported (symbolic bytes
    /// of an integer wider than 128 bits); the instruction then fails.
    pub(super) unhandled: Option<String>,
    /// The seeds: the configured ones, then those of `cross_seed`.
    pub(super) seeds: Vec<KTest>,
    /// The input bytes of each seed, bound as the paths create the inputs.
    pub(super) seed_values: Vec<Assignment>,
    /// The seeds that came from `ExecConfig::seed_inbox`.
    pub(super) inbox_seeds: HashSet<u32>,
    /// The object (by base address) a symbolic address was computed from by
    /// `getelementptr`; `None` where two objects' arithmetic met in one
    /// expression. C forbids arithmetic from one object into another, and
    /// natively such an address lands wherever the binary's layout puts it,
    /// so an access through it resolves to its own object or is an error
    /// (`Executor::resolve`).
    pub(super) provenance: HashMap<ExprId, Option<u64>>,
    pub(super) domain: super::domain::DomainWindow,
    pub(super) reach: super::reach::SiteReach,
    /// Per function, what merging and early stops ask of its CFG, once.
    analyses: HashMap<FuncId, std::rc::Rc<crate::ir::cfg::Analysis>>,
    /// Where the current step split its state's revisions (function and
    /// instruction), for `merge`.
    pub(super) split_at: Option<(FuncId, u32)>,
    /// The libc model's `__psychic_exit`, which runs the `atexit` handlers
    /// and then ends the run, and the declaration of `exit` it stands for:
    /// a call of `exit` and a return from the entry function go there.
    pub(super) atexit: Option<(FuncId, Option<FuncId>)>,
    /// `__klee_meta_in` sets in read-only objects, by address, parsed
    /// (`meta.rs`).
    pub(super) meta_sets: HashMap<u64, std::rc::Rc<[u8]>>,
}

impl<'m> Executor<'m> {
    pub fn new(m: &'m Module, cfg: ExecConfig) -> Result<Self, ExecError> {
        let entry = m.entry(&cfg.entry)?;
        let nparams = m.func(entry).params.len();
        if nparams > 3 {
            return Err(ExecError::EntrySignature(cfg.entry.clone()));
        }
        let num_revisions = cfg.revisions.or(m.revisions).unwrap_or(1).max(1);
        let solver = Solver::new(SolverConfig { timeout: cfg.max_solver_time, ..SolverConfig::default() });
        let consts = m.consts.iter().map(|c| const_value(m, c)).collect();
        let handlers = m.funcs.iter().map(|f| f.body.is_none().then(|| Handler::lookup(&f.name))).collect();
        let covered =
            m.funcs.iter().map(|f| vec![false; f.body.as_ref().map_or(0, |b| b.blocks.len())]).collect();
        let stats = ExecStats {
            total_blocks: m.funcs.iter().filter_map(|f| f.body.as_ref()).map(|b| b.blocks.len() as u64).sum(),
            ..ExecStats::default()
        };
        let mut searcher = cfg.search.build(cfg.seed);
        if !cfg.seeds.is_empty() || cfg.cross_seed || cfg.seed_inbox.is_some() {
            searcher = Box::new(First::seeds(searcher));
        }
        // The box serves only to tell revisions apart.
        if num_revisions > 1 {
            searcher = Box::new(First::stretches(searcher));
        }
        let seeds = cfg.seeds.clone();
        let atexit = m
            .func_by_name
            .get("__psychic_exit")
            .filter(|&&f| m.func(f).body.is_some())
            .map(|&f| (f, m.func_by_name.get("exit").copied().filter(|&e| m.func(e).body.is_none())));
        let seed_values = vec![Assignment::new(); seeds.len()];
        Ok(Executor {
            m,
            pool: ExprPool::new(),
            solver,
            cfg,
            consts,
            handlers,
            states: Slab::default(),
            searcher: Merging::new(Deferring::new(searcher)),
            ptree: ProcessTree::default(),
            covered,
            stats,
            observer: None,
            paths: Vec::new(),
            forked: Vec::new(),
            warnings: Vec::new(),
            warned: HashSet::new(),
            provenance: HashMap::new(),
            domain: super::domain::DomainWindow::new(num_revisions),
            observer_stopped: false,
            stop: None,
            coverage: Coverage::new(num_revisions),
            num_revisions,
            entry,
            std_streams: [None; 3],
            unhandled: None,
            seeds,
            seed_values,
            reach: super::reach::SiteReach::default(),
            analyses: HashMap::new(),
            split_at: None,
            atexit,
            meta_sets: HashMap::new(),
            inbox_seeds: HashSet::new(),
        })
    }

    pub fn set_observer(&mut self, observer: Box<dyn HaltObserver + 'm>) {
        self.observer = Some(observer);
    }

    /// Replaces the searcher (the default comes from the config).
    pub fn set_searcher(&mut self, searcher: Box<dyn Searcher>) {
        self.searcher.deferring().set_base(searcher);
    }

    pub fn num_revisions(&self) -> u32 {
        self.num_revisions
    }

    /// Explores the program until every path halted or a limit stopped it.
    pub fn run(&mut self) -> RunSummary {
        let start = Instant::now();
        self.begin(start);
        let mut ticks = Ticks { start, last_progress: start, last_inbox: start, steps: 0 };
        while self.searcher.holds_states() {
            if self.stops_between_quanta(&mut ticks) {
                break;
            }
            let Some(sid) = self.pick() else { continue };
            self.run_quantum(sid);
            if let Some(reason) = self.stop.clone() {
                self.end_all(&reason);
                break;
            }
        }
        self.finish(start)
    }

    /// The solver's deadline and the initial state.
    fn begin(&mut self, start: Instant) {
        // No query may run past the budget: its end is the solver's deadline.
        let budget_start = self.cfg.budget_start.unwrap_or(start);
        self.solver.set_deadline(self.cfg.max_time.map(|t| budget_start + t));
        let init = self.initial_state();
        let id = self.insert_state(init);
        let leaf = self.ptree.root(id);
        self.state_mut(id).ptree_node = leaf;
        self.update_searcher(None, &[id], &[]);
    }

    /// Between two quanta: seeds from the inbox and the observer's progress
    /// every interval, then the limits. Whether the run stops here (every
    /// live state ended).
    fn stops_between_quanta(&mut self, ticks: &mut Ticks) -> bool {
        if ticks.last_inbox.elapsed() >= PROGRESS_INTERVAL {
            ticks.last_inbox = Instant::now();
            self.take_inbox();
        }
        if self.observer.is_some() && ticks.last_progress.elapsed() >= PROGRESS_INTERVAL {
            ticks.last_progress = Instant::now();
            if self.progress(ticks.start) == Control::Stop && self.stop.is_none() {
                self.stop = Some("stopped by the halt observer".into());
                self.observer_stopped = true;
                self.end_all("stopped by the halt observer");
                return true;
            }
        }
        if let Some(reason) = self.limit_reached(ticks.start, ticks.steps) {
            self.stop = Some(reason.clone());
            self.end_all(&reason);
            return true;
        }
        ticks.steps += 1;
        false
    }

    /// Tells the observer how the run goes; `Stop` if it has learned enough,
    /// or if no state left can tell apart the pairs it left open (`reach`).
    fn progress(&mut self, start: Instant) -> Control {
        self.stats.elapsed = start.elapsed();
        let p = Progress { stats: &self.stats, solver: self.solver.stats(), live_states: self.states.len() };
        let obs = self.observer.as_mut().expect("checked by the caller");
        if obs.on_progress(&p) == Control::Stop || self.stop_if_settled() == Control::Stop {
            Control::Stop
        } else {
            Control::Continue
        }
    }

    /// The state to run next, through the layers; states put aside whose
    /// time has come are back in the search first.
    fn pick(&mut self) -> Option<StateId> {
        self.searcher.deferring().bring_back(&self.states, &mut self.ptree);
        if self.searcher.is_empty() {
            return None;
        }
        let view = SearchView { states: &self.states, ptree: &self.ptree };
        Some(self.searcher.select(&view))
    }

    /// Runs `sid` for a quantum, then places what it left: its children in
    /// the table and the process tree, the state itself halted, put aside,
    /// waiting at a meeting point or live, and tells the searcher.
    fn run_quantum(&mut self, sid: StateId) {
        let mut st = self.slot(sid).take().expect("searcher selected a live state");
        let domain_open = st.domain_open();
        let halted = self.run_guarded(&mut st);
        let children = std::mem::take(&mut self.forked);
        self.step_domain(domain_open, &st, halted.is_some(), &children);
        let added = self.adopt(sid, &mut st, children);
        let ran_out = self.searcher.deferring().take_ran_out();
        let removed: &[StateId] = match halted {
            Some(t) => {
                self.retire(sid, st, t);
                &[sid]
            }
            None => {
                *self.slot(sid) = Some(st);
                if !self.defer_step(sid, ran_out) {
                    self.after_step(sid);
                }
                &[]
            }
        };
        self.expire_groups();
        self.update_searcher(Some(sid), &added, removed);
        let live = self.states.len() as u64;
        self.stats.max_live_states = self.stats.max_live_states.max(live);
    }

    /// `run_state`, except that a bug in the engine must not take the whole
    /// run down: the state that hit it ends with an internal error, the
    /// others go on.
    fn run_guarded(&mut self, st: &mut ExecutionState) -> Option<Termination> {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.run_state(st))) {
            Ok(h) => h,
            Err(panic) => {
                self.forked.clear();
                let what = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("unknown");
                let message = format!("internal error in psychic's engine (please report it): {what}");
                self.warn(message.clone());
                self.approximate(st, ApproxKind::Internal, message.clone());
                Some(self.error_termination(st, ErrorKind::Exec, message))
            }
        }
    }

    /// The states `st` forked in its quantum join the table, the process
    /// tree and its merge groups (a revision split opens one); their ids.
    fn adopt(
        &mut self,
        sid: StateId,
        st: &mut ExecutionState,
        children: Vec<ExecutionState>,
    ) -> Vec<StateId> {
        let mut added = Vec::new();
        for mut c in children {
            self.follow_seeds(&mut c);
            added.push(self.insert_state(c));
        }
        self.follow_seeds(st);
        if !added.is_empty() {
            let leaves = self.ptree.split(st.ptree_node, sid, &added);
            st.ptree_node = leaves[0];
            for (&c, &l) in added.iter().zip(&leaves[1..]) {
                self.state_mut(c).ptree_node = l;
            }
        }
        if !added.is_empty() {
            self.join_groups(&st.merge, &added);
        }
        if let Some(split) = self.split_at.take() {
            self.open_group(split, st, sid, &added);
        }
        added
    }

    /// `sid` halted: out of the table and the tree, to the observer, and out
    /// of its merge groups.
    fn retire(&mut self, sid: StateId, st: Box<ExecutionState>, t: Termination) {
        self.ptree.remove(st.ptree_node);
        self.states.remove(sid);
        let mut st = st;
        let groups = std::mem::take(&mut st.merge);
        self.halt(*st, t);
        self.leave_groups(sid, &groups);
    }

    /// The observer's last word, and the summary.
    fn finish(&mut self, start: Instant) -> RunSummary {
        self.domain_unknown("no state was left");
        if let Some(obs) = self.observer.as_mut() {
            let mut cx = HaltContext { pool: &mut self.pool, solver: &mut self.solver, stats: &self.stats };
            obs.on_end(&mut cx);
        }
        self.stats.elapsed = start.elapsed();
        RunSummary {
            stats: self.stats.clone(),
            solver: self.solver.stats().clone(),
            paths: std::mem::take(&mut self.paths),
            warnings: self.warnings.clone(),
            stopped_early: self.stop.clone(),
            coverage: self.coverage.clone(),
        }
    }

    fn limit_reached(&self, start: Instant, steps: u64) -> Option<String> {
        if self.cfg.interrupt.as_ref().is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed)) {
            return Some("interrupted".into());
        }
        if let Some(t) = self.cfg.max_time
            && self.cfg.budget_start.unwrap_or(start).elapsed() >= t
        {
            return Some(format!("max-time ({}s) reached", t.as_secs_f64()));
        }
        if let Some(n) = self.cfg.max_instructions
            && self.stats.instructions >= n
        {
            return Some(format!("max-instructions ({n}) reached"));
        }
        if let Some(mb) = self.cfg.max_memory_mb
            && steps.is_multiple_of(64)
            && resident_mb().is_some_and(|r| r > mb)
        {
            return Some(format!("max-memory ({mb} MiB) reached"));
        }
        None
    }

    /// Ends every live state early. Unless the observer asked for the stop
    /// (it knows enough), each left state is behaviour the run did not see.
    fn end_all(&mut self, reason: &str) {
        self.domain_unknown(reason);
        let ids: Vec<StateId> = self.states.keys().collect();
        let cut = (!self.observer_stopped).then_some(ApproxKind::Budget);
        for i in &ids {
            let st = self.states.remove(*i).flatten().expect("live");
            self.halt(*st, Termination::Early { reason: reason.to_string(), cut });
        }
        self.update_searcher(None, &[], &ids);
    }

    /// Keeps the seeds that satisfy the constraints added since the last
    /// check: evaluation under each seed's bytes, no solver. A path that
    /// parts from the fuzzer's last input there is marked
    /// (`ExecutionState::left_inbox_seed`).
    fn follow_seeds(&self, st: &mut ExecutionState) {
        if st.seeds.is_empty() {
            return;
        }
        let followed_inbox = st.seeds.iter().any(|s| self.inbox_seeds.contains(s));
        let new = &st.constraints[st.seeds_checked.min(st.constraints.len())..];
        st.seeds.retain(|&s| {
            let mut eval = Evaluator::new(&self.pool, &self.seed_values[s as usize]);
            new.iter().all(|&c| eval.eval(c) != 0)
        });
        st.seeds_checked = st.constraints.len();
        if followed_inbox && !st.seeds.iter().any(|s| self.inbox_seeds.contains(s)) {
            st.left_inbox_seed = Some(st.depth);
        }
    }

    fn insert_state(&mut self, st: ExecutionState) -> StateId {
        self.stats.states_created += 1;
        self.states.insert(Some(Box::new(st)))
    }

    pub(super) fn slot(&mut self, id: StateId) -> &mut Option<Box<ExecutionState>> {
        self.states.get_mut(id).expect("live state")
    }

    fn state_mut(&mut self, id: StateId) -> &mut ExecutionState {
        self.slot(id).as_deref_mut().expect("live state")
    }

    pub(super) fn update_searcher(
        &mut self,
        current: Option<StateId>,
        added: &[StateId],
        removed: &[StateId],
    ) {
        let view = SearchView { states: &self.states, ptree: &self.ptree };
        self.searcher.update(&view, current, added, removed);
    }

    /// `f`'s post-dominators and live registers.
    pub(super) fn analysis(&mut self, f: FuncId) -> std::rc::Rc<crate::ir::cfg::Analysis> {
        let body = self.m.func(f).body.as_ref().expect("defined");
        std::rc::Rc::clone(
            self.analyses.entry(f).or_insert_with(|| std::rc::Rc::new(crate::ir::cfg::Analysis::of(body))),
        )
    }

    /// Records on `st` that the engine narrowed its behaviour here.
    pub(super) fn approximate(&self, st: &mut ExecutionState, kind: ApproxKind, what: String) {
        let location = self.program_location(st);
        st.approximate(Approximation { kind, what, location });
    }

    /// The position of the program's innermost frame: inside a libc-model
    /// function, its caller's call (the model's own lines mean nothing to
    /// the user).
    pub(super) fn program_location(&self, st: &ExecutionState) -> Option<Location> {
        st.stack.iter().enumerate().rev().find_map(|(i, f)| {
            let innermost = i + 1 == st.stack.len();
            let l = self.location(f.func, if innermost { f.pc } else { f.pc.saturating_sub(1) })?;
            (!crate::runtime::is_libc_model_file(&l.file)).then_some(l)
        })
    }

    pub(super) fn warn(&mut self, msg: String) {
        if self.warned.insert(msg.clone()) {
            self.warnings.push(msg);
        }
    }

    fn initial_state(&mut self) -> ExecutionState {
        let m = self.m;
        let mut mem = AddressSpace::default();
        for g in &m.globals {
            let bytes = match &g.init {
                Some(b) => b.to_vec(),
                None => vec![0; g.size as usize],
            };
            mem.insert_fixed(g.addr, g.size, ObjKind::Global, bytes, g.constant);
        }
        let mut st = ExecutionState::new(RevSet::all(self.num_revisions), mem);
        st.seeds = (0..self.seeds.len() as u32).collect();
        // The standard streams: the FILE objects the globals point to (the
        // libc model's, or objects made here for glibc's extern ones).
        for (i, name) in ["stdin", "stdout", "stderr"].iter().enumerate() {
            let Some(g) = m.global_by_name.get(*name).map(|g| &m.globals[g.index()]) else { continue };
            if g.size != 8 {
                continue;
            }
            if let Some(init) = &g.init {
                self.std_streams[i] = Some(u64::from_le_bytes(init[..8].try_into().expect("8 bytes")));
            } else if !g.defined {
                let file = st.memory.allocate(FILE_SIZE, 8, ObjKind::Runtime);
                let file = st.memory.object(file).base;
                let gid = st.memory.at_base(g.addr).expect("global");
                st.memory.object_mut(gid).write_concrete(&mut self.pool, 0, 8, u128::from(file));
                self.std_streams[i] = Some(file);
            }
        }
        // argc, argv (NULL-terminated) and an empty environment.
        let mut args = Vec::new();
        let nparams = m.func(self.entry).params.len();
        if nparams >= 1 {
            args.push(Value::Int(self.cfg.argv.len() as u128));
        }
        if nparams >= 2 {
            let mut ptrs = Vec::new();
            for a in &self.cfg.argv {
                let mut bytes = a.as_bytes().to_vec();
                bytes.push(0);
                let id = st.memory.allocate(bytes.len() as u64, 1, ObjKind::Runtime);
                let o = st.memory.object_mut(id);
                for (i, b) in bytes.iter().enumerate() {
                    o.write_concrete(&mut self.pool, i as u64, 1, u128::from(*b));
                }
                ptrs.push(o.base);
            }
            ptrs.push(0);
            args.push(Value::Int(u128::from(self.pointer_array(&mut st, &ptrs))));
        }
        if nparams >= 3 {
            args.push(Value::Int(u128::from(self.pointer_array(&mut st, &[0]))));
        }
        self.push_frame(&mut st, self.entry, args, NO_REG);
        st
    }

    fn pointer_array(&mut self, st: &mut ExecutionState, ptrs: &[u64]) -> u64 {
        let id = st.memory.allocate(8 * ptrs.len() as u64, 8, ObjKind::Runtime);
        let o = st.memory.object_mut(id);
        for (i, p) in ptrs.iter().enumerate() {
            o.write_concrete(&mut self.pool, 8 * i as u64, 8, u128::from(*p));
        }
        o.base
    }

    pub(super) fn push_frame(
        &mut self,
        st: &mut ExecutionState,
        func: FuncId,
        args: Vec<Value>,
        ret_dst: Reg,
    ) {
        let body = self.m.func(func).body.as_ref().expect("defined function");
        let mut regs = vec![Value::Int(0); body.num_regs as usize];
        for (r, a) in regs.iter_mut().zip(args) {
            *r = a;
        }
        st.stack.push(Frame { func, pc: 0, regs, ret_dst, allocas: Vec::new(), varargs: None });
        self.cover(st, func, 0);
    }

    pub(super) fn cover(&mut self, st: &mut ExecutionState, func: FuncId, block: usize) {
        let c = &mut self.covered[func.index()][block];
        if !*c {
            *c = true;
            self.stats.covered_blocks += 1;
            st.since_new_cover = 0;
        }
    }

    /// Turns a halted state into paths (one per group of revisions whose
    /// outputs differ) and hands them to the observer.
    pub(super) fn halt(&mut self, st: ExecutionState, t: Termination) {
        let mut input = None;
        if self.cfg.cross_seed && matches!(t, Termination::Exit { .. } | Termination::Error { .. }) {
            input = match st.seeds.first() {
                Some(&s) => Some(self.seed_values[s as usize].clone()),
                None => self.solver.check(&self.pool, &st.constraints).ok().flatten(),
            };
            if let Some(values) = &input {
                self.cross_seed(&st, values);
            }
        }
        let ended = matches!(t, Termination::Exit { .. } | Termination::Error { .. });
        self.stats.inbox_paths += u64::from(ended && st.seeds.iter().any(|s| self.inbox_seeds.contains(s)));
        let mut st = st;
        let end = self.program_location(&st);
        if let Some(mut a) = Approximation::of_termination(&t) {
            a.location = a.location.or_else(|| end.clone());
            st.approximate(a);
        }
        match &t {
            Termination::Exit { .. } => self.stats.paths_exited += 1,
            Termination::Error { .. } => self.stats.paths_errored += 1,
            Termination::Silent => self.stats.paths_silent += 1,
            Termination::Early { .. } => self.stats.paths_early += 1,
        }
        let path = HaltedPath {
            end,
            revisions: st.revisions,
            constraints: st.constraints,
            symbolics: st.symbolics,
            sites: st.sites,
            termination: t,
            outputs: st.outputs,
            annotations: st.annotations,
            instructions: st.instructions,
            depth: st.depth,
            input,
            approximations: st.approximations,
        };
        for p in split_path_by_revision(&mut self.pool, path) {
            self.coverage.record(&p);
            if let Some(obs) = self.observer.as_mut() {
                let mut cx =
                    HaltContext { pool: &mut self.pool, solver: &mut self.solver, stats: &self.stats };
                if obs.on_halt(&p, &mut cx) == Control::Stop && self.stop.is_none() {
                    self.stop = Some("stopped by the halt observer".into());
                    self.observer_stopped = true;
                }
            }
            if self.cfg.keep_paths {
                self.paths.push(p);
            }
        }
    }

    /// Seeds the live states of revisions other than `st`'s that accept `values`, an input on `st`'s
    /// path, with that input, so that they run along it next (`ExecConfig::cross_seed`). A state
    /// that already follows a seed keeps to it.
    pub(super) fn cross_seed(&mut self, st: &ExecutionState, values: &Assignment) {
        if st.symbolics.is_empty() {
            return;
        }
        let targets = self.states_on(&st.symbolics, values, |s| s.revisions.disjoint(&st.revisions));
        if targets.is_empty() {
            return;
        }
        let bytes = st.symbolics.iter().map(|o| values.bytes_padded(o.array, o.size));
        let objects = ktest_objects(&st.symbolics, bytes);
        let test = KTest { args: Vec::new(), sym_argvs: 0, sym_argv_len: 0, objects };
        self.add_seed(test, values.clone(), &targets);
        self.stats.cross_seeded += targets.len() as u64;
    }

    /// Halts a state forked off during this step (an error side) at once.
    pub(super) fn halt_forked(&mut self, st: ExecutionState, t: Termination) {
        self.stats.states_created += 1;
        self.halt(st, t);
    }

    /// An error at the current instruction.
    pub(super) fn error(&self, st: &ExecutionState, kind: ErrorKind, message: impl Into<String>) -> Stop {
        Stop::Halt(Box::new(self.error_termination(st, kind, message.into())))
    }

    pub(super) fn error_termination(
        &self,
        st: &ExecutionState,
        kind: ErrorKind,
        message: String,
    ) -> Termination {
        // A caller's pc is already past its call instruction.
        let stack: Vec<StackFrame> = st
            .stack
            .iter()
            .rev()
            .enumerate()
            .map(|(i, f)| StackFrame {
                function: self.m.func(f.func).name.clone(),
                location: self.location(f.func, if i == 0 { f.pc } else { f.pc.saturating_sub(1) }),
            })
            .collect();
        let location = stack.first().and_then(|f| f.location.clone());
        Termination::Error { kind, message, location, stack }
    }

    /// The source position of instruction `pc` of `func`, from debug info.
    pub(super) fn location(&self, func: FuncId, pc: u32) -> Option<Location> {
        let body = self.m.func(func).body.as_ref()?;
        let l = body.locs.get(pc as usize).copied().flatten()?;
        Some(Location { file: self.m.files[l.file.index()].clone(), line: l.line, col: l.col })
    }

    /// A query the path needed failed. Past the run's deadline that is the
    /// budget's doing (the solver refuses to start), not the query's.
    pub(super) fn solver_error(&self, st: &ExecutionState, e: SolverError) -> Stop {
        if e == SolverError::Timeout && self.solver.past_deadline() {
            let reason =
                format!("max-time ({}s) reached", self.cfg.max_time.unwrap_or_default().as_secs_f64());
            return Stop::Halt(Box::new(Termination::Early { reason, cut: Some(ApproxKind::Budget) }));
        }
        self.error(st, ErrorKind::Solver, format!("query failed: {e}"))
    }

    /// Runs `st` until it halts, forks, or used its quantum.
    fn run_state(&mut self, st: &mut ExecutionState) -> Option<Termination> {
        let m = self.m;
        let mut n = 0u64;
        let mut out = None;
        while n < QUANTUM {
            if !st.merge.is_empty() && self.searcher.at_join(st) {
                break;
            }
            let f = st.stack.last().expect("running state has a frame");
            let body = m.funcs[f.func.index()].body.as_ref().expect("defined");
            let inst = &body.insts[f.pc as usize];
            n += 1;
            // Counted before it runs, so that states forked off by it (and
            // error paths) include it and what this quantum ran before it.
            st.instructions += 1;
            match self.exec(st, inst) {
                // A branch query's patience lasts until its instruction is
                // done: a switch asks one query per target.
                Ok(()) => st.patience = 0,
                Err(Stop::Restart) => break,
                Err(Stop::Halt(t)) => {
                    out = Some(*t);
                    break;
                }
            }
            if !self.forked.is_empty() {
                break;
            }
        }
        st.since_new_cover += n;
        self.stats.instructions += n;
        out
    }

    #[inline]
    pub(super) fn val(&self, st: &ExecutionState, op: Operand) -> Value {
        match op {
            Operand::Reg(r) => st.frame().regs[r as usize].clone(),
            Operand::Const(c) => self.consts[c.index()].clone(),
        }
    }

    #[inline(always)]
    pub(super) fn set(st: &mut ExecutionState, dst: Reg, v: Value) {
        if dst != NO_REG {
            st.frame_mut().regs[dst as usize] = v;
        }
    }

    /// The expression of a scalar value of `width` bits.
    pub(super) fn expr(&mut self, v: &Value, width: u32) -> ExprId {
        match v {
            Value::Int(c) => self.pool.constant(width, *c),
            Value::Sym(e) => *e,
            Value::Wide(b) => self.pool.constant(width.min(128), low_bits(b)),
            Value::Agg(_) => self.pool.constant(width, 0),
        }
    }

    /// A value from an expression: concrete if it folded to a constant.
    pub(super) fn value_of(&self, e: ExprId) -> Value {
        match self.pool.as_const(e) {
            Some(c) => Value::Int(c),
            None => Value::Sym(e),
        }
    }

    /// Decides a condition: `Some(b)` if it has one value on this path,
    /// `None` if both are feasible.
    pub(super) fn decide(&mut self, st: &mut ExecutionState, cond: ExprId) -> Res<Option<bool>> {
        let cond = self.split_revisions(st, cond)?;
        if let Some(c) = self.pool.as_const(cond) {
            return Ok(Some(c != 0));
        }
        match self.branch_query(st, |s, pool, constraints| s.evaluate(pool, constraints, cond))? {
            Validity::True => Ok(Some(true)),
            Validity::False => Ok(Some(false)),
            Validity::Unknown => Ok(None),
        }
    }

    /// Whether this path may fork once more; if not, the state ends early
    /// (`max_depth`) or follows one side (`max_forks`: `Ok(false)`).
    pub(super) fn may_fork(&mut self, st: &mut ExecutionState) -> Res<bool> {
        if let Some(d) = self.cfg.max_depth
            && st.depth >= d
        {
            return Err(Stop::Halt(Box::new(Termination::Early {
                reason: format!("max-depth ({d}) exceeded"),
                cut: Some(ApproxKind::Limit),
            })));
        }
        if let Some(n) = self.cfg.max_forks
            && self.stats.forks >= n
        {
            self.approximate(
                st,
                ApproxKind::Limit,
                format!("max-forks ({n}) reached: one side of a branch dropped"),
            );
            return Ok(false);
        }
        Ok(true)
    }

    /// Makes `cond` hold on this path where it may, and says whether it
    /// does. Where both sides are feasible, a copy of the state takes the
    /// other one and runs the current instruction again: for special
    /// functions that must decide before their side effects.
    pub(super) fn assume_or_fork(&mut self, st: &mut ExecutionState, cond: ExprId) -> Res<bool> {
        if let Some(b) = self.decide(st, cond)? {
            return Ok(b);
        }
        if self.may_fork(st)? {
            let mut other = st.clone();
            let not = self.pool.bool_not(cond);
            other.constraints.push(not);
            other.depth += 1;
            st.depth += 1;
            self.stats.forks += 1;
            self.forked.push(other);
        }
        st.constraints.push(cond);
        Ok(true)
    }

    pub(super) fn may(&mut self, st: &ExecutionState, cond: ExprId) -> Res<bool> {
        self.solver.may_be_true(&self.pool, &st.constraints, cond).map_err(|e| self.solver_error(st, e))
    }

    pub(super) fn must(&mut self, st: &ExecutionState, cond: ExprId) -> Res<bool> {
        self.solver.must_be_true(&self.pool, &st.constraints, cond).map_err(|e| self.solver_error(st, e))
    }
}

/// The low 128 bits of a wide value.
pub(super) fn low_bits(b: &num_bigint::BigUint) -> u128 {
    let d = b.to_u64_digits();
    u128::from(d.first().copied().unwrap_or(0)) | u128::from(d.get(1).copied().unwrap_or(0)) << 64
}

/// sizeof(FILE) in glibc.
const FILE_SIZE: u64 = 216;

/// A module constant as a register value.
fn const_value(m: &Module, c: &Const) -> Value {
    match c {
        Const::Int(v) => Value::Int(*v),
        Const::Big(limbs) => {
            let bytes: Vec<u8> = limbs.iter().flat_map(|l| l.to_le_bytes()).collect();
            Value::Wide(std::rc::Rc::new(num_bigint::BigUint::from_bytes_le(&bytes)))
        }
        Const::Agg(items) => Value::Agg(items.iter().map(|i| const_value(m, i)).collect()),
        Const::Bytes(b) => Value::Agg(b.iter().map(|&x| Value::Int(u128::from(x))).collect()),
        Const::Zero(ty) => zero_value(m, *ty),
    }
}

fn zero_value(m: &Module, ty: TyId) -> Value {
    match &m.ty(ty).kind {
        TypeKind::Struct { fields, .. } => Value::Agg(fields.iter().map(|&f| zero_value(m, f)).collect()),
        TypeKind::Array { elem, len } => Value::Agg((0..*len).map(|_| zero_value(m, *elem)).collect()),
        TypeKind::Vector { elem, len } => Value::Agg((0..*len).map(|_| zero_value(m, *elem)).collect()),
        _ => Value::Int(0),
    }
}

/// The process's resident memory in MiB (Linux).
fn resident_mb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = s.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096 / (1 << 20))
}
