//! The interpreter loop and the semantics of every instruction.

use std::collections::HashSet;
use std::time::Instant;

use crate::expr::fold::mask;
use crate::expr::{Assignment, Evaluator, ExprId, ExprPool};
use crate::ir::{
    BinOp, Callee, CastOp, Const, Edge, FuncId, Inst, Intrinsic, Module, NO_REG, Op, Operand, Reg, TyId,
    TypeKind,
};
use crate::ktest::KTest;
use crate::solver::{Solver, SolverConfig, SolverError, Validity};

use super::coverage::{ApproxKind, Approximation, Coverage};
use super::memory::{AddressSpace, NULL_PAGE, ObjId, ObjKind, byte_expr, to_byte};
use super::revset::RevSet;
use super::searcher::{ProcessTree, SearchView, Searcher, SeedsFirst, StateId};
use super::slab::Slab;
use super::special::Handler;
use super::state::{
    ErrorKind, ExecutionState, Frame, HaltedPath, Location, StackFrame, Termination, VarArgs, ktest_objects,
};
use super::value::{self, Byte, DivError, Value};
use super::{
    Control, ExecConfig, ExecError, ExecStats, HaltContext, HaltObserver, MAX_REVISIONS, PROGRESS_INTERVAL,
    Progress, RunSummary,
};

/// Instructions a state runs before the searcher chooses again.
const QUANTUM: u64 = 10_000;
/// Objects a symbolic pointer is resolved to at most.
const MAX_RESOLVE: usize = 64;

/// Why an instruction did not complete normally.
pub(super) enum Stop {
    /// The state forked for revisions (or pointer targets) before any side
    /// effect: every resulting state runs the instruction again.
    Restart,
    Halt(Box<Termination>),
}

pub(super) type Res<T> = Result<T, Stop>;

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
    states: Slab<Option<Box<ExecutionState>>>,
    searcher: Box<dyn Searcher>,
    ptree: ProcessTree,
    covered: Vec<Vec<bool>>,
    pub(super) stats: ExecStats,
    observer: Option<Box<dyn HaltObserver + 'm>>,
    paths: Vec<HaltedPath>,
    /// States forked off during the current step.
    pub(super) forked: Vec<ExecutionState>,
    warnings: Vec<String>,
    warned: HashSet<String>,
    stop: Option<String>,
    /// The stop came from the observer, which has learned what it wanted:
    /// the states it leaves are no gap in what it reports.
    observer_stopped: bool,
    /// Exact and approximated halted paths per revision.
    coverage: Coverage,
    num_revisions: u32,
    entry: FuncId,
    /// The `FILE` objects `stdin`, `stdout` and `stderr` point to, if the
    /// program uses them.
    pub(super) std_streams: [Option<u64>; 3],
    /// Set when building a value met something unsupported (symbolic bytes
    /// of an integer wider than 128 bits); the instruction then fails.
    unhandled: Option<String>,
    /// The seeds: the configured ones, then those of `cross_seed`.
    pub(super) seeds: Vec<KTest>,
    /// The input bytes of each seed, bound as the paths create the inputs.
    pub(super) seed_values: Vec<Assignment>,
}

impl<'m> Executor<'m> {
    pub fn new(m: &'m Module, cfg: ExecConfig) -> Result<Self, ExecError> {
        let entry = m.entry(&cfg.entry)?;
        let nparams = m.func(entry).params.len();
        if nparams > 3 {
            return Err(ExecError::EntrySignature(cfg.entry.clone()));
        }
        let num_revisions = cfg.revisions.or(m.revisions).unwrap_or(1).max(1);
        if num_revisions > MAX_REVISIONS {
            return Err(ExecError::TooManyRevisions(num_revisions));
        }
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
        if !cfg.seeds.is_empty() || cfg.cross_seed {
            searcher = Box::new(SeedsFirst::new(searcher));
        }
        let seeds = cfg.seeds.clone();
        let seed_values = vec![Assignment::new(); seeds.len()];
        Ok(Executor {
            m,
            pool: ExprPool::new(),
            solver,
            cfg,
            consts,
            handlers,
            states: Slab::default(),
            searcher,
            ptree: ProcessTree::default(),
            covered,
            stats,
            observer: None,
            paths: Vec::new(),
            forked: Vec::new(),
            warnings: Vec::new(),
            warned: HashSet::new(),
            observer_stopped: false,
            stop: None,
            coverage: Coverage::new(num_revisions),
            num_revisions,
            entry,
            std_streams: [None; 3],
            unhandled: None,
            seeds,
            seed_values,
        })
    }

    pub fn set_observer(&mut self, observer: Box<dyn HaltObserver + 'm>) {
        self.observer = Some(observer);
    }

    /// Replaces the searcher (the default comes from the config).
    pub fn set_searcher(&mut self, searcher: Box<dyn Searcher>) {
        self.searcher = searcher;
    }

    pub fn num_revisions(&self) -> u32 {
        self.num_revisions
    }

    /// Explores the program until every path halted or a limit stopped it.
    pub fn run(&mut self) -> RunSummary {
        let start = Instant::now();
        // No query may run past the budget: its end is the solver's deadline.
        let budget_start = self.cfg.budget_start.unwrap_or(start);
        self.solver.set_deadline(self.cfg.max_time.map(|t| budget_start + t));
        let init = self.initial_state();
        let id = self.insert_state(init);
        let leaf = self.ptree.root(id);
        self.state_mut(id).ptree_node = leaf;
        self.update_searcher(None, &[id], &[]);
        let mut steps = 0u64;
        let mut last_progress = start;
        while !self.searcher.is_empty() {
            if let Some(obs) = self.observer.as_mut()
                && last_progress.elapsed() >= PROGRESS_INTERVAL
            {
                last_progress = Instant::now();
                self.stats.elapsed = start.elapsed();
                let p = Progress {
                    stats: &self.stats,
                    solver: self.solver.stats(),
                    live_states: self.states.len(),
                };
                obs.on_progress(&p);
            }
            if let Some(reason) = self.limit_reached(start, steps) {
                self.stop = Some(reason.clone());
                self.end_all(&reason);
                break;
            }
            steps += 1;
            let sid = {
                let view = SearchView { states: &self.states, ptree: &self.ptree };
                self.searcher.select(&view)
            };
            let mut st = self.slot(sid).take().expect("searcher selected a live state");
            // A bug in the engine must not take the whole run down: the state
            // that hit it ends with an internal error, the others go on.
            let halted = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                self.run_state(&mut st)
            })) {
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
                    self.approximate(&mut st, ApproxKind::Internal, message.clone());
                    Some(self.error_termination(&st, ErrorKind::Exec, message))
                }
            };
            let mut added = Vec::new();
            let children = std::mem::take(&mut self.forked);
            for mut c in children {
                self.follow_seeds(&mut c);
                added.push(self.insert_state(c));
            }
            self.follow_seeds(&mut st);
            if !added.is_empty() {
                let leaves = self.ptree.split(st.ptree_node, sid, &added);
                st.ptree_node = leaves[0];
                for (&c, &l) in added.iter().zip(&leaves[1..]) {
                    self.state_mut(c).ptree_node = l;
                }
            }
            let mut removed = Vec::new();
            match halted {
                Some(t) => {
                    self.ptree.remove(st.ptree_node);
                    self.states.remove(sid);
                    removed.push(sid);
                    self.halt(*st, t);
                }
                None => *self.slot(sid) = Some(st),
            }
            self.update_searcher(Some(sid), &added, &removed);
            let live = self.states.len() as u64;
            self.stats.max_live_states = self.stats.max_live_states.max(live);
            if self.stop.is_some() {
                let reason = self.stop.clone().unwrap_or_default();
                self.end_all(&reason);
                break;
            }
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
        let ids: Vec<StateId> = self.states.keys().collect();
        let cut = (!self.observer_stopped).then_some(ApproxKind::Budget);
        for i in &ids {
            let st = self.states.remove(*i).flatten().expect("live");
            self.halt(*st, Termination::Early { reason: reason.to_string(), cut });
        }
        self.update_searcher(None, &[], &ids);
    }

    /// Keeps the seeds that satisfy the constraints added since the last
    /// check: evaluation under each seed's bytes, no solver.
    fn follow_seeds(&self, st: &mut ExecutionState) {
        if st.seeds.is_empty() {
            return;
        }
        let new = &st.constraints[st.seeds_checked.min(st.constraints.len())..];
        st.seeds.retain(|&s| {
            let mut eval = Evaluator::new(&self.pool, &self.seed_values[s as usize]);
            new.iter().all(|&c| eval.eval(c) != 0)
        });
        st.seeds_checked = st.constraints.len();
    }

    fn insert_state(&mut self, st: ExecutionState) -> StateId {
        self.stats.states_created += 1;
        self.states.insert(Some(Box::new(st)))
    }

    fn slot(&mut self, id: StateId) -> &mut Option<Box<ExecutionState>> {
        self.states.get_mut(id).expect("live state")
    }

    fn state_mut(&mut self, id: StateId) -> &mut ExecutionState {
        self.slot(id).as_deref_mut().expect("live state")
    }

    fn update_searcher(&mut self, current: Option<StateId>, added: &[StateId], removed: &[StateId]) {
        let view = SearchView { states: &self.states, ptree: &self.ptree };
        self.searcher.update(&view, current, added, removed);
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

    // The initial state.

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

    fn push_frame(&mut self, st: &mut ExecutionState, func: FuncId, args: Vec<Value>, ret_dst: Reg) {
        let body = self.m.func(func).body.as_ref().expect("defined function");
        let mut regs = vec![Value::Int(0); body.num_regs as usize];
        for (r, a) in regs.iter_mut().zip(args) {
            *r = a;
        }
        st.stack.push(Frame { func, pc: 0, regs, ret_dst, allocas: Vec::new(), varargs: None });
        self.cover(st, func, 0);
    }

    fn cover(&mut self, st: &mut ExecutionState, func: FuncId, block: usize) {
        let c = &mut self.covered[func.index()][block];
        if !*c {
            *c = true;
            self.stats.covered_blocks += 1;
            st.since_new_cover = 0;
        }
    }

    // Halting.

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
        let mut st = st;
        if let Some(mut a) = Approximation::of_termination(&t) {
            a.location = a.location.or_else(|| self.program_location(&st));
            st.approximate(a);
        }
        match &t {
            Termination::Exit { .. } => self.stats.paths_exited += 1,
            Termination::Error { .. } => self.stats.paths_errored += 1,
            Termination::Silent => self.stats.paths_silent += 1,
            Termination::Early { .. } => self.stats.paths_early += 1,
        }
        let path = HaltedPath {
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
    fn cross_seed(&mut self, st: &ExecutionState, values: &Assignment) {
        if st.symbolics.is_empty() {
            return;
        }
        // One evaluator for all states: their constraints share most subterms.
        let mut eval = Evaluator::new(&self.pool, values);
        let mut accepts = |s: &ExecutionState| {
            s.seeds.is_empty()
                && s.revisions.intersect(&st.revisions).is_empty()
                && st.symbolics.starts_with(&s.symbolics)
                // The newest constraints tell siblings apart: most states fail at once.
                && s.constraints.iter().rev().all(|&c| eval.eval(c) != 0)
        };
        let targets: Vec<StateId> = self
            .states
            .keys()
            .filter(|&k| self.states.get(k).and_then(|s| s.as_deref()).is_some_and(&mut accepts))
            .collect();
        if targets.is_empty() {
            return;
        }
        let id = self.seeds.len() as u32;
        let bytes = st.symbolics.iter().map(|o| values.bytes_padded(o.array, o.size));
        let objects = ktest_objects(&st.symbolics, bytes);
        self.seeds.push(KTest { args: Vec::new(), sym_argvs: 0, sym_argv_len: 0, objects });
        self.seed_values.push(values.clone());
        for t in targets {
            let s = self.state_mut(t);
            s.seeds.push(id);
            s.seeds_checked = s.constraints.len();
            self.stats.cross_seeded += 1;
            self.update_searcher(Some(t), &[], &[]);
        }
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
    fn location(&self, func: FuncId, pc: u32) -> Option<Location> {
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

    // The loop.

    /// Runs `st` until it halts, forks, or used its quantum.
    fn run_state(&mut self, st: &mut ExecutionState) -> Option<Termination> {
        let m = self.m;
        let mut n = 0u64;
        let mut out = None;
        while n < QUANTUM {
            let f = st.stack.last().expect("running state has a frame");
            let body = m.funcs[f.func.index()].body.as_ref().expect("defined");
            let inst = &body.insts[f.pc as usize];
            n += 1;
            // Counted before it runs, so that states forked off by it (and
            // error paths) include it and what this quantum ran before it.
            st.instructions += 1;
            match self.exec(st, inst) {
                Ok(()) => {}
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
    fn set(st: &mut ExecutionState, dst: Reg, v: Value) {
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

    fn exec(&mut self, st: &mut ExecutionState, inst: &Inst) -> Res<()> {
        let v = match &inst.op {
            Op::Bin { op, width, a, b } => {
                let (a, b) = (self.val(st, *a), self.val(st, *b));
                match (&a, &b) {
                    (Value::Agg(_), _) => {
                        self.lift2(st, &a, &b, &mut |ex, st, a, b| ex.binop(st, *op, *width, a, b))?
                    }
                    _ => self.binop(st, *op, *width, &a, &b)?,
                }
            }
            Op::ICmp { pred, width, a, b } if *width > 128 => {
                let (a, b) = (self.val(st, *a), self.val(st, *b));
                let (Some(x), Some(y)) = (value::to_big(&a), value::to_big(&b)) else {
                    return Err(self.wide_symbolic(st));
                };
                Value::Int(value::wide_icmp(*pred, *width, &x, &y) as u128)
            }
            Op::ICmp { pred, width, a, b } => {
                let (a, b) = (self.val(st, *a), self.val(st, *b));
                if let (Value::Int(x), Value::Int(y)) = (&a, &b) {
                    Self::set(st, inst.dst, Value::Int(value::icmp(*pred, *width, *x, *y) as u128));
                    st.frame_mut().pc += 1;
                    return Ok(());
                }
                self.lift2(st, &a, &b, &mut |ex, _, a, b| {
                    Ok(match (a, b) {
                        (Value::Int(x), Value::Int(y)) => {
                            Value::Int(value::icmp(*pred, *width, *x, *y) as u128)
                        }
                        _ => {
                            let (x, y) = (ex.expr(a, *width), ex.expr(b, *width));
                            let e = icmp_expr(&mut ex.pool, *pred, x, y);
                            ex.value_of(e)
                        }
                    })
                })?
            }
            Op::FBin { op, kind, a, b } => {
                let (a, b) = (self.val(st, *a), self.val(st, *b));
                self.lift2(st, &a, &b, &mut |ex, st, a, b| {
                    let (x, y) = (ex.concrete_float(st, a)?, ex.concrete_float(st, b)?);
                    Ok(Value::Int(value::fbin(*op, *kind, x, y)))
                })?
            }
            Op::FNeg { kind, a } => {
                let a = self.val(st, *a);
                self.lift1(st, &a, &mut |ex, st, a| {
                    Ok(Value::Int(value::fneg(*kind, ex.concrete_float(st, a)?)))
                })?
            }
            Op::FCmp { pred, kind, a, b } => {
                let (a, b) = (self.val(st, *a), self.val(st, *b));
                self.lift2(st, &a, &b, &mut |ex, st, a, b| {
                    let (x, y) = (ex.concrete_float(st, a)?, ex.concrete_float(st, b)?);
                    Ok(Value::Int(value::fcmp(*pred, *kind, x, y) as u128))
                })?
            }
            Op::Select { cond, t, f, width } => {
                let (c, t, f) = (self.val(st, *cond), self.val(st, *t), self.val(st, *f));
                self.select(st, &c, &t, &f, *width)?
            }
            Op::Cast { op, from, to, a } if *from > 128 || *to > 128 => {
                let a = self.val(st, *a);
                match value::to_big(&a).and_then(|x| value::wide_cast(*op, *from, *to, &x)) {
                    Some(v) => v,
                    None => return Err(self.wide_symbolic(st)),
                }
            }
            Op::Cast { op, from, to, a } => {
                let a = self.val(st, *a);
                self.lift1(st, &a, &mut |ex, st, a| ex.cast(st, *op, *from, *to, a))?
            }
            Op::Reshape { from, to, a } => {
                let a = self.val(st, *a);
                let bytes = self.image(&a, *from);
                let v = self.value_from_image(&bytes, *to);
                self.check_unhandled(st)?;
                v
            }
            Op::Copy { a } => self.val(st, *a),
            Op::Alloca { elem_size, count, count_width, align } => {
                let n = self.val(st, *count);
                let n = self.concretize(st, &n, *count_width, "alloca size")?;
                let size = elem_size.saturating_mul(n as u64);
                if size > MAX_ALLOC {
                    return Err(self.error(
                        st,
                        ErrorKind::Exec,
                        format!("alloca of {size} bytes is too large"),
                    ));
                }
                let id = st.memory.allocate(size, u64::from(*align), ObjKind::Stack);
                st.frame_mut().allocas.push(id);
                Value::Int(u128::from(st.memory.object(id).base))
            }
            Op::Load { ty, ptr } => {
                let p = self.val(st, *ptr);
                let size = self.m.ty(*ty).store_size;
                let place = self.resolve(st, &p, size, false)?;
                let v = self.load(st, place, *ty);
                self.check_unhandled(st)?;
                v
            }
            Op::Store { ty, val, ptr } => {
                let (v, p) = (self.val(st, *val), self.val(st, *ptr));
                let size = self.m.ty(*ty).store_size;
                let place = self.resolve(st, &p, size, true)?;
                self.store(st, place, *ty, &v);
                st.frame_mut().pc += 1;
                return Ok(());
            }
            Op::Gep { base, offset, indices } => self.gep(st, *base, *offset, indices),
            Op::ExtractValue { agg, path } => {
                let mut v = self.val(st, *agg);
                for &i in path.iter() {
                    v = match v {
                        Value::Agg(items) => items.get(i as usize).cloned().unwrap_or(Value::Int(0)),
                        other => other,
                    };
                }
                v
            }
            Op::InsertValue { agg, val, path } => {
                let (a, v) = (self.val(st, *agg), self.val(st, *val));
                insert_at(&a, path, v)
            }
            Op::ExtractElement { vec, idx } => {
                let (v, i) = (self.val(st, *vec), self.val(st, *idx));
                let i = self.concretize(st, &i, 64, "vector index")?;
                match v {
                    Value::Agg(items) => items.get(i as usize).cloned().unwrap_or(Value::Int(0)),
                    other => other,
                }
            }
            Op::InsertElement { vec, val, idx } => {
                let (v, x, i) = (self.val(st, *vec), self.val(st, *val), self.val(st, *idx));
                let i = self.concretize(st, &i, 64, "vector index")?;
                match v {
                    Value::Agg(items) => {
                        let mut items = items.to_vec();
                        if let Some(slot) = items.get_mut(i as usize) {
                            *slot = x;
                        }
                        Value::Agg(items.into())
                    }
                    other => other,
                }
            }
            Op::Shuffle { a, b, mask } => {
                let (a, b) = (self.val(st, *a), self.val(st, *b));
                let items = |v: &Value| match v {
                    Value::Agg(i) => i.to_vec(),
                    other => vec![other.clone()],
                };
                let all: Vec<Value> = items(&a).into_iter().chain(items(&b)).collect();
                let out: Vec<Value> = mask
                    .iter()
                    .map(|m| m.and_then(|i| all.get(i as usize).cloned()).unwrap_or(Value::Int(0)))
                    .collect();
                Value::Agg(out.into())
            }
            Op::Call { callee, args, ret, byval, vararg_tys } => {
                return self.call(st, inst.dst, callee, args, *ret, byval, vararg_tys);
            }
            Op::Br { edge } => {
                self.jump(st, edge);
                return Ok(());
            }
            Op::CondBr { cond, t, f } => {
                let c = self.val(st, *cond);
                return self.cond_br(st, &c, t, f);
            }
            Op::Switch { val, width, cases, default } => {
                let v = self.val(st, *val);
                return self.switch(st, &v, *width, cases, default);
            }
            Op::Ret { val } => {
                let v = val.map(|o| self.val(st, o));
                return self.ret(st, v);
            }
            Op::Unreachable => return Err(self.error(st, ErrorKind::Exec, "reached `unreachable`")),
            Op::Unsupported { text } => return Err(self.error(st, ErrorKind::Unhandled, text.to_string())),
        };
        Self::set(st, inst.dst, v);
        st.frame_mut().pc += 1;
        Ok(())
    }

    /// Applies a scalar operation elementwise to vectors.
    fn lift2(
        &mut self,
        st: &mut ExecutionState,
        a: &Value,
        b: &Value,
        f: &mut dyn FnMut(&mut Self, &mut ExecutionState, &Value, &Value) -> Res<Value>,
    ) -> Res<Value> {
        match (a, b) {
            (Value::Agg(xs), Value::Agg(ys)) => {
                let mut out = Vec::with_capacity(xs.len());
                for (x, y) in xs.iter().zip(ys.iter()) {
                    out.push(f(self, st, x, y)?);
                }
                Ok(Value::Agg(out.into()))
            }
            _ => f(self, st, a, b),
        }
    }

    fn lift1(
        &mut self,
        st: &mut ExecutionState,
        a: &Value,
        f: &mut dyn FnMut(&mut Self, &mut ExecutionState, &Value) -> Res<Value>,
    ) -> Res<Value> {
        match a {
            Value::Agg(xs) => {
                let mut out = Vec::with_capacity(xs.len());
                for x in xs.iter() {
                    out.push(f(self, st, x)?);
                }
                Ok(Value::Agg(out.into()))
            }
            _ => f(self, st, a),
        }
    }

    fn binop(&mut self, st: &mut ExecutionState, op: BinOp, w: u32, a: &Value, b: &Value) -> Res<Value> {
        if w > 128 {
            let (Some(x), Some(y)) = (value::to_big(a), value::to_big(b)) else {
                return Err(self.wide_symbolic(st));
            };
            return match value::wide_bin(op, w, &x, &y) {
                Ok(v) => Ok(v),
                Err(DivError::ByZero) => Err(self.error(st, ErrorKind::Div, "division by zero")),
                Err(DivError::Overflow) => Err(self.error(st, ErrorKind::Div, "division overflow")),
            };
        }
        let shift = matches!(op, BinOp::Shl | BinOp::LShr | BinOp::AShr);
        if let (Value::Int(x), Value::Int(y)) = (a, b) {
            let y = if shift {
                if *y >= u128::from(w) && self.cfg.check_overshift {
                    return Err(self.error(st, ErrorKind::Overshift, format!("shift by {y} of an i{w}")));
                }
                value::x86_shift_count(*y, w)
            } else {
                *y
            };
            return match value::bin(op, w, *x, y) {
                Ok(r) => Ok(Value::Int(r)),
                Err(DivError::ByZero) => Err(self.error(st, ErrorKind::Div, "division by zero")),
                Err(DivError::Overflow) => {
                    Err(self.error(st, ErrorKind::Div, "division overflow (INT_MIN / -1 traps on x86-64)"))
                }
            };
        }
        let (x, mut y) = (self.expr(a, w), self.expr(b, w));
        match op {
            BinOp::UDiv | BinOp::URem | BinOp::SDiv | BinOp::SRem => {
                let zero = self.pool.constant(w, 0);
                let is_zero = self.pool.eq(y, zero);
                self.check_error(st, is_zero, ErrorKind::Div, "division by zero")?;
                if matches!(op, BinOp::SDiv | BinOp::SRem) && w > 1 {
                    let min = self.pool.constant(w, crate::expr::fold::signed_min(w));
                    let m1 = self.pool.constant(w, mask(w));
                    let (c1, c2) = (self.pool.eq(x, min), self.pool.eq(y, m1));
                    let ovf = self.pool.bool_and(c1, c2);
                    self.check_error(
                        st,
                        ovf,
                        ErrorKind::Div,
                        "division overflow (INT_MIN / -1 traps on x86-64)",
                    )?;
                }
            }
            _ if shift => {
                if self.cfg.check_overshift {
                    let wc = self.pool.constant(w, u128::from(w));
                    let over = self.pool.uge(y, wc);
                    self.check_error(
                        st,
                        over,
                        ErrorKind::Overshift,
                        format!("shift of an i{w} by its width or more"),
                    )?;
                } else if w <= 64 {
                    let m = self.pool.constant(w, if w <= 32 { 31 } else { 63 });
                    y = self.pool.and(y, m);
                }
            }
            _ => {}
        }
        let e = self.pool.binary(value::ebin(op), x, y);
        Ok(self.value_of(e))
    }

    /// Fails if the last value construction met something unsupported.
    fn check_unhandled(&mut self, st: &ExecutionState) -> Res<()> {
        match self.unhandled.take() {
            Some(msg) => Err(self.error(st, ErrorKind::Unhandled, msg)),
            None => Ok(()),
        }
    }

    /// A symbolic value where only concrete integers wider than 128 bits work.
    pub(super) fn wide_symbolic(&self, st: &ExecutionState) -> Stop {
        self.error(st, ErrorKind::Unhandled, "symbolic integer wider than 128 bits")
    }

    /// Forks off an error path where `cond` may hold; the current path
    /// continues where it does not.
    pub(super) fn check_error(
        &mut self,
        st: &mut ExecutionState,
        cond: ExprId,
        kind: ErrorKind,
        msg: impl Into<String>,
    ) -> Res<()> {
        let cond = self.split_revisions(st, cond)?;
        match self.pool.as_const(cond) {
            Some(0) => return Ok(()),
            Some(_) => return Err(self.error(st, kind, msg)),
            None => {}
        }
        match self.solver.evaluate(&self.pool, &st.constraints, cond) {
            Ok(Validity::False) => Ok(()),
            Ok(Validity::True) => Err(self.error(st, kind, msg)),
            Ok(Validity::Unknown) => {
                let mut bad = st.clone();
                bad.constraints.push(cond);
                let not = self.pool.bool_not(cond);
                st.constraints.push(not);
                let t = self.error_termination(&bad, kind, msg.into());
                self.halt_forked(bad, t);
                Ok(())
            }
            Err(e) => Err(self.solver_error(st, e)),
        }
    }

    /// A float operand: symbolic floats are concretised (with a warning).
    pub(super) fn concrete_float(&mut self, st: &mut ExecutionState, v: &Value) -> Res<u128> {
        match v {
            Value::Int(x) => Ok(*x),
            Value::Sym(e) => {
                let w = self.pool.width(*e);
                self.concretize(st, v, w, "floating-point value")
            }
            Value::Agg(_) | Value::Wide(_) => Ok(0),
        }
    }

    /// One value of `v` on this path, which is constrained to it.
    pub(super) fn concretize(
        &mut self,
        st: &mut ExecutionState,
        v: &Value,
        width: u32,
        what: &str,
    ) -> Res<u128> {
        let e = match v {
            Value::Int(x) => return Ok(*x),
            Value::Sym(e) => *e,
            Value::Wide(b) => return Ok(low_bits(b)),
            Value::Agg(_) => return Ok(0),
        };
        let e = self.split_revisions(st, e)?;
        if let Some(c) = self.pool.as_const(e) {
            return Ok(c);
        }
        let c = self
            .solver
            .get_value(&self.pool, &st.constraints, e)
            .map_err(|err| self.solver_error(st, err))?;
        let k = self.pool.constant(width.max(self.pool.width(e)), c);
        let eq = self.pool.eq(e, k);
        // A value the path already fixes loses nothing.
        let other = self.pool.bool_not(eq);
        if self.may(st, other)? {
            let what = format!("concretised a symbolic {what}");
            self.warn(what.clone());
            self.approximate(st, ApproxKind::Concretised, what);
        }
        st.constraints.push(eq);
        Ok(c)
    }

    fn cast(&mut self, st: &mut ExecutionState, op: CastOp, from: u32, to: u32, a: &Value) -> Res<Value> {
        match a {
            Value::Int(x) => Ok(Value::Int(value::cast(op, from, to, *x))),
            Value::Sym(e) => {
                let e = *e;
                let r = match op {
                    CastOp::Trunc | CastOp::Bits if to < self.pool.width(e) => self.pool.extract(e, 0, to),
                    CastOp::Trunc | CastOp::Bits | CastOp::ZExt => self.pool.zext_or_trunc(e, to),
                    CastOp::SExt => self.pool.sext(e, to),
                    _ => {
                        let x = self.concrete_float(st, a)?;
                        return Ok(Value::Int(value::cast(op, from, to, x)));
                    }
                };
                Ok(self.value_of(r))
            }
            Value::Agg(_) | Value::Wide(_) => Ok(a.clone()),
        }
    }

    fn select(&mut self, st: &mut ExecutionState, c: &Value, t: &Value, f: &Value, width: u32) -> Res<Value> {
        match c {
            Value::Int(x) => Ok(if *x & 1 != 0 { t.clone() } else { f.clone() }),
            Value::Wide(_) => Ok(t.clone()),
            Value::Agg(cs) => {
                let (ts, fs) = match (t, f) {
                    (Value::Agg(ts), Value::Agg(fs)) => (ts.clone(), fs.clone()),
                    _ => return Ok(t.clone()),
                };
                let mut out = Vec::with_capacity(cs.len());
                for ((c, t), f) in cs.iter().zip(ts.iter()).zip(fs.iter()) {
                    out.push(self.select(st, c, t, f, width)?);
                }
                Ok(Value::Agg(out.into()))
            }
            Value::Sym(e) => {
                let e = self.split_revisions(st, *e)?;
                if let Some(x) = self.pool.as_const(e) {
                    return Ok(if x & 1 != 0 { t.clone() } else { f.clone() });
                }
                if matches!(t, Value::Wide(_)) || matches!(f, Value::Wide(_)) {
                    return Err(self.wide_symbolic(st));
                }
                self.ite(e, t, f, width)
            }
        }
    }

    /// `c ? t : f` as a value; `width` is that of two constant arms.
    fn ite(&mut self, c: ExprId, t: &Value, f: &Value, width: u32) -> Res<Value> {
        Ok(match (t, f) {
            (Value::Agg(ts), Value::Agg(fs)) => {
                let mut out = Vec::with_capacity(ts.len());
                for (x, y) in ts.iter().zip(fs.iter()) {
                    out.push(self.ite(c, x, y, width)?);
                }
                Value::Agg(out.into())
            }
            _ => {
                let w = match (t, f) {
                    (Value::Sym(e), _) | (_, Value::Sym(e)) => self.pool.width(*e),
                    _ if width > 0 => width,
                    _ => {
                        return Err(Stop::Halt(Box::new(Termination::Error {
                            kind: ErrorKind::Unhandled,
                            message: "a symbolic choice between two constant aggregates".into(),
                            location: None,
                            stack: Vec::new(),
                        })));
                    }
                };
                let (x, y) = (self.expr(t, w), self.expr(f, w));
                let e = self.pool.ite(c, x, y);
                self.value_of(e)
            }
        })
    }

    fn gep(
        &mut self,
        st: &mut ExecutionState,
        base: Operand,
        offset: i64,
        indices: &[(Operand, u32, i64)],
    ) -> Value {
        let b = self.val(st, base);
        let mut acc = match b {
            Value::Int(x) => Value::Int((x as u64).wrapping_add(offset as u64) as u128),
            other => {
                let e = self.expr(&other, 64);
                let k = self.pool.constant(64, offset as u64 as u128);
                Value::Sym(self.pool.add(e, k))
            }
        };
        for &(op, w, scale) in indices {
            let i = self.val(st, op);
            acc = match (&acc, &i) {
                (Value::Int(a), Value::Int(x)) => {
                    let x = value::to_signed(*x, w) as i64;
                    Value::Int(((*a as u64).wrapping_add(x.wrapping_mul(scale) as u64)) as u128)
                }
                _ => {
                    let ie = self.expr(&i, w);
                    let ie = if w < 64 { self.pool.sext(ie, 64) } else { self.pool.zext_or_trunc(ie, 64) };
                    let k = self.pool.constant(64, scale as u64 as u128);
                    let prod = self.pool.mul(ie, k);
                    let ae = self.expr(&acc, 64);
                    let e = self.pool.add(ae, prod);
                    self.value_of(e)
                }
            };
        }
        acc
    }

    // Control flow.

    pub(super) fn jump(&mut self, st: &mut ExecutionState, edge: &Edge) {
        if !edge.moves.is_empty() {
            let vals: Vec<Value> = edge.moves.iter().map(|&(_, op)| self.val(st, op)).collect();
            let regs = &mut st.frame_mut().regs;
            for (&(r, _), v) in edge.moves.iter().zip(vals) {
                regs[r as usize] = v;
            }
        }
        let f = st.frame().func;
        let body = self.m.func(f).body.as_ref().expect("defined");
        st.frame_mut().pc = body.blocks[edge.target.index()].first.0;
        self.cover(st, f, edge.target.index());
    }

    /// Decides a condition: `Some(b)` if it has one value on this path,
    /// `None` if both are feasible.
    pub(super) fn decide(&mut self, st: &mut ExecutionState, cond: ExprId) -> Res<Option<bool>> {
        let cond = self.split_revisions(st, cond)?;
        if let Some(c) = self.pool.as_const(cond) {
            return Ok(Some(c != 0));
        }
        match self.solver.evaluate(&self.pool, &st.constraints, cond) {
            Ok(Validity::True) => Ok(Some(true)),
            Ok(Validity::False) => Ok(Some(false)),
            Ok(Validity::Unknown) => Ok(None),
            Err(e) => Err(self.solver_error(st, e)),
        }
    }

    /// Whether this path may fork once more; if not, the state ends early
    /// (`max_depth`) or follows one side (`max_forks`: `Ok(false)`).
    fn may_fork(&mut self, st: &mut ExecutionState) -> Res<bool> {
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

    fn cond_br(&mut self, st: &mut ExecutionState, c: &Value, t: &Edge, f: &Edge) -> Res<()> {
        let e = match c {
            Value::Int(x) => {
                self.jump(st, if x & 1 != 0 { t } else { f });
                return Ok(());
            }
            Value::Sym(e) => *e,
            Value::Agg(_) | Value::Wide(_) => {
                return Err(self.error(st, ErrorKind::Exec, "branch on a vector"));
            }
        };
        if self.pool.mentions_revision(e) && st.revisions.len() > 1 {
            let mut choose = |ex: &mut Self, r: u32| {
                let c = ex.pool.substitute_revision(e, r);
                ex.pool.as_const(c).map(|c| if c & 1 != 0 { t } else { f })
            };
            if self.revision_jump(st, &mut choose) {
                return Ok(());
            }
        }
        let e = self.split_revisions(st, e)?;
        match self.decide(st, e)? {
            Some(b) => self.jump(st, if b { t } else { f }),
            None => {
                if !self.may_fork(st)? {
                    st.constraints.push(e);
                    self.jump(st, t);
                    return Ok(());
                }
                let mut child = st.clone();
                let not = self.pool.bool_not(e);
                child.constraints.push(not);
                st.constraints.push(e);
                st.depth += 1;
                child.depth += 1;
                self.stats.forks += 1;
                self.jump(&mut child, f);
                self.jump(st, t);
                self.forked.push(child);
            }
        }
        Ok(())
    }

    fn switch(
        &mut self,
        st: &mut ExecutionState,
        v: &Value,
        w: u32,
        cases: &[(u128, Edge)],
        default: &Edge,
    ) -> Res<()> {
        let e = match v {
            Value::Int(x) => {
                let edge = cases.iter().find(|(c, _)| c == x).map_or(default, |(_, e)| e);
                self.jump(st, edge);
                return Ok(());
            }
            _ => self.expr(v, w),
        };
        if self.pool.mentions_revision(e) && st.revisions.len() > 1 {
            let mut choose = |ex: &mut Self, r: u32| {
                let c = ex.pool.substitute_revision(e, r);
                let c = ex.pool.as_const(c)?;
                Some(cases.iter().find(|(k, _)| *k == c).map_or(default, |(_, e)| e))
            };
            if self.revision_jump(st, &mut choose) {
                return Ok(());
            }
        }
        let e = self.split_switch_revisions(st, e, cases, default)?;
        if let Some(x) = self.pool.as_const(e) {
            let edge = cases.iter().find(|(c, _)| *c == x).map_or(default, |(_, e)| e);
            self.jump(st, edge);
            return Ok(());
        }
        // One condition per distinct target block, in order of appearance.
        let mut targets: Vec<(&Edge, ExprId)> = Vec::new();
        let mut none = self.pool.true_();
        for (c, edge) in cases {
            let k = self.pool.constant(w, *c);
            let is = self.pool.eq(e, k);
            let isnt = self.pool.bool_not(is);
            none = self.pool.bool_and(none, isnt);
            match targets.iter_mut().find(|(t, _)| t.target == edge.target) {
                Some((_, cond)) => *cond = self.pool.bool_or(*cond, is),
                None => targets.push((edge, is)),
            }
        }
        targets.push((default, none));
        let mut feasible = Vec::new();
        for (edge, cond) in targets {
            match self.solver.may_be_true(&self.pool, &st.constraints, cond) {
                Ok(true) => feasible.push((edge, cond)),
                Ok(false) => {}
                Err(err) => return Err(self.solver_error(st, err)),
            }
        }
        if feasible.len() > 1 && !self.may_fork(st)? {
            feasible.truncate(1);
        }
        let Some(&(first, first_cond)) = feasible.first() else {
            return Err(self.error(st, ErrorKind::Exec, "switch with no feasible target"));
        };
        if feasible.len() > 1 {
            st.depth += 1;
            for &(edge, cond) in &feasible[1..] {
                let mut child = st.clone();
                child.constraints.push(cond);
                self.stats.forks += 1;
                self.jump(&mut child, edge);
                self.forked.push(child);
            }
            st.constraints.push(first_cond);
        }
        self.jump(st, first);
        Ok(())
    }

    fn ret(&mut self, st: &mut ExecutionState, v: Option<Value>) -> Res<()> {
        let frame = st.stack.pop().expect("frame");
        for a in frame.allocas {
            st.memory.remove(a);
        }
        if st.stack.is_empty() {
            let status = match v {
                Some(v) => {
                    let e = self.expr(&v, 32);
                    let w = self.pool.width(e);
                    if w > 32 { self.pool.extract(e, 0, 32) } else { self.pool.zext_or_trunc(e, 32) }
                }
                None => self.pool.constant(32, 0),
            };
            return Err(Stop::Halt(Box::new(Termination::Exit { status })));
        }
        if let Some(v) = v {
            Self::set(st, frame.ret_dst, v);
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn call(
        &mut self,
        st: &mut ExecutionState,
        dst: Reg,
        callee: &Callee,
        args: &[Operand],
        ret: TyId,
        byval: &[(u32, u64, u32)],
        vararg_tys: &[TyId],
    ) -> Res<()> {
        let fid = match callee {
            Callee::Direct(f) => *f,
            Callee::Indirect(op) => {
                let p = self.val(st, *op);
                let addr = self.function_pointer(st, &p)?;
                match self.m.func_at(addr) {
                    Some(f) => f,
                    None => {
                        return Err(self.error(
                            st,
                            ErrorKind::Exec,
                            format!("call through an invalid function pointer {addr:#x}"),
                        ));
                    }
                }
            }
            Callee::Intrinsic(k) => {
                let vals: Vec<Value> = args.iter().map(|&a| self.val(st, a)).collect();
                let r = self.intrinsic(st, *k, &vals, ret)?;
                if let Some(v) = r {
                    Self::set(st, dst, v);
                }
                st.frame_mut().pc += 1;
                return Ok(());
            }
        };
        let vals: Vec<Value> = args.iter().map(|&a| self.val(st, a)).collect();
        let func = self.m.func(fid);
        if func.body.is_none() {
            let h = self.handlers[fid.index()].expect("declarations have a handler");
            let r = self.call_special(st, fid, &h, &vals, ret)?;
            if let Some(v) = r {
                Self::set(st, dst, v);
            }
            st.frame_mut().pc += 1;
            return Ok(());
        }
        if vals.len() < func.params.len() {
            return Err(self.error(
                st,
                ErrorKind::Exec,
                format!(
                    "call of `{}` with {} arguments; it takes {}",
                    func.name,
                    vals.len(),
                    func.params.len()
                ),
            ));
        }
        if st.stack.len() >= self.cfg.max_stack_frames {
            return Err(self.error(
                st,
                ErrorKind::Exec,
                format!("stack overflow ({} nested calls)", st.stack.len()),
            ));
        }
        st.frame_mut().pc += 1;
        let fixed = func.params.len();
        let mut params: Vec<Value> = vals[..fixed].to_vec();
        let extra: Vec<Value> = vals[fixed..].to_vec();
        self.push_frame(st, fid, Vec::new(), dst);
        // By-value aggregates: the callee gets its own copy.
        let mut extra_byval = Vec::new();
        for &(k, size, align) in byval {
            let src = vals[k as usize].clone();
            if (k as usize) < fixed {
                let a = self.stack_copy(st, &src, size, align)?;
                params[k as usize] = Value::Int(u128::from(a));
            } else {
                extra_byval.push((k as usize - fixed, size, align));
            }
        }
        for (r, p) in st.frame_mut().regs.iter_mut().zip(params) {
            *r = p;
        }
        if func.vararg {
            self.setup_varargs(st, fid, &extra, vararg_tys, &extra_byval)?;
        }
        Ok(())
    }

    /// A fresh stack object of the callee holding a copy of `size` bytes at `src`.
    fn stack_copy(&mut self, st: &mut ExecutionState, src: &Value, size: u64, align: u32) -> Res<u64> {
        let id = st.memory.allocate(size, u64::from(align), ObjKind::Stack);
        st.frame_mut().allocas.push(id);
        let from = self.resolve(st, src, size, false)?;
        let bytes = self.read_bytes(st, from, size);
        self.write_bytes(st, Place::C { obj: id, off: 0 }, &bytes);
        Ok(st.memory.object(id).base)
    }

    /// The x86-64 SysV register save area and overflow area of a variadic
    /// callee, filled as the caller's registers and stack would be.
    fn setup_varargs(
        &mut self,
        st: &mut ExecutionState,
        fid: FuncId,
        extra: &[Value],
        tys: &[TyId],
        byval: &[(usize, u64, u32)],
    ) -> Res<()> {
        let m = self.m;
        let (mut gp, mut fp) = (0u64, 0u64);
        for &p in &m.func(fid).params {
            match m.ty(p).kind {
                TypeKind::Float | TypeKind::Double => fp += 1,
                _ => gp += 1,
            }
        }
        let (gp0, fp0) = (gp.min(6), fp.min(8));
        let mut reg_area: Vec<Byte> = vec![Byte::C(0); 176];
        let mut overflow: Vec<Byte> = Vec::new();
        let (mut gp, mut fp) = (gp0, fp0);
        for (i, v) in extra.iter().enumerate() {
            if let Some(&(_, size, align)) = byval.iter().find(|b| b.0 == i) {
                let from = self.resolve(st, v, size, false)?;
                let bytes = self.read_bytes(st, from, size);
                let at = overflow.len().next_multiple_of((align as usize).max(8));
                overflow.resize(at, Byte::C(0));
                overflow.extend(bytes);
                overflow.resize(overflow.len().next_multiple_of(8), Byte::C(0));
                continue;
            }
            let ty = tys.get(i).copied();
            let kind = ty.map(|t| m.ty(t).kind.clone()).unwrap_or(TypeKind::Int(64));
            let size = ty.map_or(8, |t| m.ty(t).store_size).max(1);
            let image = match ty {
                Some(t) => self.image(v, t),
                None => self.scalar_bytes(v, 8),
            };
            match kind {
                TypeKind::Float | TypeKind::Double if fp < 8 => {
                    let at = 48 + 16 * fp as usize;
                    reg_area[at..at + image.len()].copy_from_slice(&image);
                    fp += 1;
                }
                TypeKind::Int(w) if w <= 64 && gp < 6 => {
                    let at = 8 * gp as usize;
                    reg_area[at..at + image.len()].copy_from_slice(&image);
                    gp += 1;
                }
                TypeKind::Ptr if gp < 6 => {
                    let at = 8 * gp as usize;
                    reg_area[at..at + image.len()].copy_from_slice(&image);
                    gp += 1;
                }
                TypeKind::Int(128) if gp < 5 => {
                    let at = 8 * gp as usize;
                    reg_area[at..at + 16].copy_from_slice(&image);
                    gp += 2;
                }
                _ => {
                    let align = if size > 8 { 16 } else { 8 };
                    let at = overflow.len().next_multiple_of(align);
                    overflow.resize(at, Byte::C(0));
                    overflow.extend(image);
                    overflow.resize(overflow.len().next_multiple_of(8), Byte::C(0));
                }
            }
        }
        let regs = st.memory.allocate(176, 16, ObjKind::Stack);
        let over = st.memory.allocate(overflow.len() as u64, 16, ObjKind::Stack);
        self.write_bytes(st, Place::C { obj: regs, off: 0 }, &reg_area);
        self.write_bytes(st, Place::C { obj: over, off: 0 }, &overflow);
        let (reg_save_area, overflow_area) = (st.memory.object(regs).base, st.memory.object(over).base);
        let f = st.frame_mut();
        f.allocas.extend([regs, over]);
        f.varargs = Some(VarArgs {
            reg_save_area,
            overflow_area,
            gp_offset: 8 * gp0 as u32,
            fp_offset: 48 + 16 * fp0 as u32,
        });
        Ok(())
    }

    /// A concrete function address for an indirect call (forking over the
    /// feasible targets of a symbolic one).
    fn function_pointer(&mut self, st: &mut ExecutionState, p: &Value) -> Res<u64> {
        let e = match p {
            Value::Int(a) => return Ok(*a as u64),
            Value::Sym(e) => self.split_revisions(st, *e)?,
            Value::Agg(_) | Value::Wide(_) => {
                return Err(self.error(st, ErrorKind::Exec, "call through a vector"));
            }
        };
        if let Some(a) = self.pool.as_const(e) {
            return Ok(a as u64);
        }
        let v = self
            .solver
            .get_value(&self.pool, &st.constraints, e)
            .map_err(|err| self.solver_error(st, err))?;
        let k = self.pool.constant(64, v);
        let is = self.pool.eq(e, k);
        match self.decide(st, is)? {
            Some(_) => {}
            None => {
                let mut other = st.clone();
                let not = self.pool.bool_not(is);
                other.constraints.push(not);
                self.stats.forks += 1;
                self.forked.push(other);
                st.constraints.push(is);
            }
        }
        Ok(v as u64)
    }

    fn intrinsic(
        &mut self,
        st: &mut ExecutionState,
        k: Intrinsic,
        a: &[Value],
        ret: TyId,
    ) -> Res<Option<Value>> {
        let ints = |ex: &mut Self, st: &mut ExecutionState, w: u32| -> Res<Vec<u128>> {
            let mut out = Vec::new();
            for v in a {
                out.push(ex.concretize_scalar(st, v, w)?);
            }
            Ok(out)
        };
        Ok(match k {
            Intrinsic::Nop => None,
            Intrinsic::Identity => Some(a[0].clone()),
            Intrinsic::Memcpy | Intrinsic::Memmove => {
                let n = self.concretize(st, &a[2], 64, "memcpy length")? as u64;
                if n > 0 {
                    let src = self.resolve(st, &a[1], n, false)?;
                    let dst = self.resolve(st, &a[0], n, true)?;
                    let bytes = self.read_bytes(st, src, n);
                    self.write_bytes(st, dst, &bytes);
                }
                None
            }
            Intrinsic::Memset => {
                let n = self.concretize(st, &a[2], 64, "memset length")? as u64;
                if n > 0 {
                    let dst = self.resolve(st, &a[0], n, true)?;
                    let b = match &a[1] {
                        Value::Int(x) => Byte::C(*x as u8),
                        Value::Sym(e) => {
                            let e = self.pool.extract(*e, 0, 8);
                            to_byte(&self.pool, e)
                        }
                        Value::Agg(_) | Value::Wide(_) => Byte::C(0),
                    };
                    self.write_bytes(st, dst, &vec![b; n as usize]);
                }
                None
            }
            Intrinsic::Overflow(op, w) => {
                let (r, o) = self.lift_int2(st, &a[0], &a[1], w, |x, y| value::overflow(op, w, x, y))?;
                Some(Value::Agg(vec![r, o].into()))
            }
            Intrinsic::Sat(op, w) => {
                Some(self.lift_int2(st, &a[0], &a[1], w, |x, y| (value::saturating(op, w, x, y), false))?.0)
            }
            Intrinsic::MinMax(op, w) => {
                Some(self.lift_int2(st, &a[0], &a[1], w, |x, y| (value::minmax(op, w, x, y), false))?.0)
            }
            Intrinsic::Abs(w) => {
                let zero = Value::Int(0);
                Some(self.lift_int2(st, &a[0], &zero, w, |x, _| (value::abs(w, x), false))?.0)
            }
            Intrinsic::Bit(op, w) => {
                let zero = Value::Int(0);
                Some(self.lift_int2(st, &a[0], &zero, w, |x, _| (value::bitop(op, w, x), false))?.0)
            }
            Intrinsic::Fshl(w) | Intrinsic::Fshr(w) => {
                let left = matches!(k, Intrinsic::Fshl(_));
                let v = ints(self, st, w)?;
                Some(Value::Int(value::funnel(left, w, v[0], v[1], v[2])))
            }
            Intrinsic::FUnary(op, kind) => {
                let x = self.concrete_float(st, &a[0])?;
                Some(Value::Int(value::funary(op, kind, x)))
            }
            Intrinsic::CopySign(kind) => {
                let (x, y) = (self.concrete_float(st, &a[0])?, self.concrete_float(st, &a[1])?);
                Some(Value::Int(value::copysign(kind, x, y)))
            }
            Intrinsic::FMinMax { max, kind } => {
                let (x, y) = (self.concrete_float(st, &a[0])?, self.concrete_float(st, &a[1])?);
                Some(Value::Int(value::fminmax(max, kind, x, y)))
            }
            Intrinsic::Fma(kind) => {
                let x = self.concrete_float(st, &a[0])?;
                let y = self.concrete_float(st, &a[1])?;
                let z = self.concrete_float(st, &a[2])?;
                Some(Value::Int(value::fma(kind, x, y, z)))
            }
            Intrinsic::Reduce(op, w) => {
                let Value::Agg(items) = &a[0] else { return Ok(Some(a[0].clone())) };
                let mut acc = items[0].clone();
                for x in items.iter().skip(1) {
                    acc = match op {
                        crate::ir::Reduce::Add => self.binop(st, BinOp::Add, w, &acc, x)?,
                        crate::ir::Reduce::Mul => self.binop(st, BinOp::Mul, w, &acc, x)?,
                        crate::ir::Reduce::And => self.binop(st, BinOp::And, w, &acc, x)?,
                        crate::ir::Reduce::Or => self.binop(st, BinOp::Or, w, &acc, x)?,
                        crate::ir::Reduce::Xor => self.binop(st, BinOp::Xor, w, &acc, x)?,
                        crate::ir::Reduce::Min(mm) => {
                            self.lift_int2(st, &acc, x, w, |p, q| (value::minmax(mm, w, p, q), false))?.0
                        }
                    };
                }
                Some(acc)
            }
            Intrinsic::VaStart => {
                let Some(va) = st.frame().varargs.clone() else {
                    return Err(self.error(
                        st,
                        ErrorKind::Exec,
                        "va_start in a function that is not variadic",
                    ));
                };
                let place = self.resolve(st, &a[0], 24, true)?;
                let mut img = Vec::with_capacity(24);
                img.extend(u32::to_le_bytes(va.gp_offset).map(Byte::C));
                img.extend(u32::to_le_bytes(va.fp_offset).map(Byte::C));
                img.extend(u64::to_le_bytes(va.overflow_area).map(Byte::C));
                img.extend(u64::to_le_bytes(va.reg_save_area).map(Byte::C));
                self.write_bytes(st, place, &img);
                None
            }
            Intrinsic::VaCopy => {
                let src = self.resolve(st, &a[1], 24, false)?;
                let dst = self.resolve(st, &a[0], 24, true)?;
                let bytes = self.read_bytes(st, src, 24);
                self.write_bytes(st, dst, &bytes);
                None
            }
            Intrinsic::StackSave => Some(Value::Int(0)),
            Intrinsic::Trap => {
                return Err(self.error(st, ErrorKind::Abort, "llvm.trap (__builtin_trap) reached"));
            }
            Intrinsic::ObjectSize => {
                let min = matches!(a.get(1), Some(Value::Int(1)));
                let w = self.m.int_width(ret).unwrap_or(64);
                Some(Value::Int(if min { 0 } else { mask(w) }))
            }
            Intrinsic::LoadRelative => {
                let base = self.concretize_scalar(st, &a[0], 64)? as u64;
                let off = self.concretize_scalar(st, &a[1], 64)? as u64;
                let p = Value::Int(u128::from(base.wrapping_add(off)));
                let place = self.resolve(st, &p, 4, false)?;
                let rel = self.read_scalar(st, place, 4, 32);
                let rel = self.concretize_scalar(st, &rel, 32)?;
                Some(Value::Int(u128::from(base.wrapping_add(value::to_signed(rel, 32) as i64 as u64))))
            }
        })
    }

    fn concretize_scalar(&mut self, st: &mut ExecutionState, v: &Value, w: u32) -> Res<u128> {
        self.concretize(st, v, w, "intrinsic argument")
    }

    /// A two-operand integer intrinsic, elementwise on vectors; symbolic
    /// operands are concretised.
    fn lift_int2(
        &mut self,
        st: &mut ExecutionState,
        a: &Value,
        b: &Value,
        w: u32,
        f: impl Fn(u128, u128) -> (u128, bool) + Copy,
    ) -> Res<(Value, Value)> {
        match (a, b) {
            (Value::Agg(xs), Value::Agg(ys)) => {
                let (mut r, mut o) = (Vec::new(), Vec::new());
                for (x, y) in xs.iter().zip(ys.iter()) {
                    let (p, q) = self.lift_int2(st, x, y, w, f)?;
                    r.push(p);
                    o.push(q);
                }
                Ok((Value::Agg(r.into()), Value::Agg(o.into())))
            }
            (Value::Agg(xs), y) => {
                let ys: Vec<Value> = vec![y.clone(); xs.len()];
                self.lift_int2(st, a, &Value::Agg(ys.into()), w, f)
            }
            _ => {
                let x = self.concretize(st, a, w, "intrinsic argument")?;
                let y = self.concretize(st, b, w, "intrinsic argument")?;
                let (r, o) = f(x, y);
                Ok((Value::Int(r), Value::Int(o as u128)))
            }
        }
    }

    // Revisions.

    /// `e` with the revision substituted, if every revision of the state
    /// gives the same expression. Otherwise the state splits into one state
    /// per group of revisions that agree, and all of them run the current
    /// instruction again (where the expression no longer differs).
    pub(super) fn split_revisions(&mut self, st: &mut ExecutionState, e: ExprId) -> Res<ExprId> {
        if !self.pool.mentions_revision(e) {
            return Ok(e);
        }
        let mut groups: Vec<(ExprId, RevSet)> = Vec::new();
        for r in st.revisions.iter() {
            let s = self.pool.substitute_revision(e, r);
            match groups.iter_mut().find(|(x, _)| *x == s) {
                Some((_, set)) => set.insert(r),
                None => groups.push((s, RevSet::singleton(r))),
            }
        }
        if groups.len() == 1 {
            return Ok(groups[0].0);
        }
        self.stats.revision_splits += 1;
        for (_, set) in &groups[1..] {
            let mut child = st.clone();
            child.revisions = *set;
            self.forked.push(child);
        }
        st.revisions = groups[0].1;
        Err(Stop::Restart)
    }

    /// A branch decided by the revision alone: each revision follows its
    /// edge, and on through blocks that compute only on the revision (the
    /// `||` and `&&` chains of `__klee_meta(S) == r` tests), to the first
    /// block that does more. The state splits by that landing block (and
    /// the phi values its edge brings), so that revisions whose chains
    /// select the same variant stay one state. `false` if some revision's
    /// choice is not constant (the caller splits by value instead).
    fn revision_jump<'e>(
        &mut self,
        st: &mut ExecutionState,
        choose: &mut dyn FnMut(&mut Self, u32) -> Option<&'e Edge>,
    ) -> bool
    where
        'm: 'e,
    {
        let revs: Vec<u32> = st.revisions.iter().collect();
        let mut firsts = Vec::with_capacity(revs.len());
        for &r in &revs {
            match choose(self, r) {
                Some(e) => firsts.push(e),
                None => return false,
            }
        }
        // The chain's blocks run once, on a scratch copy, with values that
        // are generic in the revision (so right for every revision).
        let mut scratch = st.clone();
        let mut evaluated: Vec<u32> = Vec::new();
        let mut groups: Vec<(&Edge, Vec<Value>, RevSet)> = Vec::new();
        for (&r, &first) in revs.iter().zip(&firsts) {
            let land = self.landing(&mut scratch, &mut evaluated, first, r);
            let moves: Vec<Value> = land
                .moves
                .iter()
                .map(|&(_, op)| {
                    let v = self.val(&scratch, op);
                    self.substitute_value(&v, r)
                })
                .collect();
            match groups.iter_mut().find(|(e, mv, _)| e.target == land.target && *mv == moves) {
                Some((_, _, set)) => set.insert(r),
                None => groups.push((land, moves, RevSet::singleton(r))),
            }
        }
        let func = st.frame().func;
        let body = self.m.func(func).body.as_ref().expect("defined");
        let computed: Vec<(Reg, Value)> = evaluated
            .iter()
            .flat_map(|&b| block_insts(body, b))
            .filter(|&i| body.insts[i].dst != NO_REG)
            .map(|i| (body.insts[i].dst, scratch.frame().regs[body.insts[i].dst as usize].clone()))
            .collect();
        if groups.len() > 1 {
            self.stats.revision_splits += 1;
        }
        let mut parts: Vec<ExecutionState> = (1..groups.len()).map(|_| st.clone()).collect();
        for (k, (edge, moves, set)) in groups.into_iter().enumerate() {
            let part = if k == 0 { &mut *st } else { &mut parts[k - 1] };
            part.revisions = set;
            let regs = &mut part.frame_mut().regs;
            for (r, v) in &computed {
                regs[*r as usize] = v.clone();
            }
            for (&(r, _), v) in edge.moves.iter().zip(moves) {
                regs[r as usize] = v;
            }
            part.frame_mut().pc = body.blocks[edge.target.index()].first.0;
            self.cover(part, func, edge.target.index());
        }
        self.forked.extend(parts);
        true
    }

    /// Follows revision `r` from `edge` through revision-only blocks.
    fn landing<'e>(
        &mut self,
        scratch: &mut ExecutionState,
        evaluated: &mut Vec<u32>,
        mut edge: &'e Edge,
        r: u32,
    ) -> &'e Edge
    where
        'm: 'e,
    {
        let m: &'m Module = self.m;
        let func = scratch.frame().func;
        let body = m.func(func).body.as_ref().expect("defined");
        for _ in 0..LOOKAHEAD_BLOCKS {
            let b = edge.target.0;
            if !edge.moves.is_empty() || !self.revision_only(body, b) {
                break;
            }
            let insts: Vec<usize> = block_insts(body, b).collect();
            let (term, rest) = insts.split_last().expect("a block ends in a terminator");
            if !evaluated.contains(&b) {
                scratch.frame_mut().pc = body.blocks[b as usize].first.0;
                for &i in rest {
                    let inst = &body.insts[i];
                    if let Op::Select { cond, t, f, width } = &inst.op {
                        // A select on the revision is an ite here, right for
                        // every revision (`exec` would split the state).
                        let (c, t, f) =
                            (self.val(scratch, *cond), self.val(scratch, *t), self.val(scratch, *f));
                        if matches!(t, Value::Wide(_)) || matches!(f, Value::Wide(_)) {
                            return edge;
                        }
                        let c = self.expr(&c, 1);
                        let Ok(v) = self.ite(c, &t, &f, *width) else { return edge };
                        Self::set(scratch, inst.dst, v);
                        scratch.frame_mut().pc += 1;
                    } else if self.exec(scratch, inst).is_err() {
                        return edge;
                    }
                }
                evaluated.push(b);
            }
            let pick = |ex: &mut Self, v: Value| -> Option<u128> {
                match v {
                    Value::Int(x) => Some(x),
                    Value::Sym(e) => {
                        let c = ex.pool.substitute_revision(e, r);
                        ex.pool.as_const(c)
                    }
                    Value::Agg(_) | Value::Wide(_) => None,
                }
            };
            let next = match &body.insts[*term].op {
                Op::Br { edge } => Some(edge),
                Op::CondBr { cond, t, f } => {
                    let v = self.val(scratch, *cond);
                    pick(self, v).map(|c| if c & 1 != 0 { t } else { f })
                }
                Op::Switch { val, cases, default, .. } => {
                    let v = self.val(scratch, *val);
                    pick(self, v).map(|c| cases.iter().find(|(k, _)| *k == c).map_or(default, |(_, e)| e))
                }
                _ => None,
            };
            match next {
                Some(n) => edge = n,
                None => break,
            }
        }
        edge
    }

    /// Whether a block only computes on values (no memory, no calls but
    /// `__klee_meta`, no decisions but its terminator), so that running it
    /// ahead for the revisions is invisible.
    fn revision_only(&self, body: &crate::ir::Body, b: u32) -> bool {
        block_insts(body, b).all(|i| match &body.insts[i].op {
            Op::ICmp { .. }
            | Op::Copy { .. }
            | Op::Select { .. }
            | Op::Br { .. }
            | Op::CondBr { .. }
            | Op::Switch { .. } => true,
            Op::Cast { op, .. } => matches!(op, CastOp::Trunc | CastOp::ZExt | CastOp::SExt | CastOp::Bits),
            Op::Bin { op, .. } => matches!(op, BinOp::Add | BinOp::Sub | BinOp::And | BinOp::Or | BinOp::Xor),
            Op::Call { callee: Callee::Direct(f), .. } => self.handlers[f.index()] == Some(Handler::Meta),
            _ => false,
        })
    }

    /// A value with the revision made `r`.
    fn substitute_value(&mut self, v: &Value, r: u32) -> Value {
        match v {
            Value::Int(_) | Value::Wide(_) => v.clone(),
            Value::Sym(e) => {
                let s = self.pool.substitute_revision(*e, r);
                self.value_of(s)
            }
            Value::Agg(items) => Value::Agg(items.iter().map(|x| self.substitute_value(x, r)).collect()),
        }
    }

    /// For a switch: groups the revisions by the block they go to (not by
    /// value, so that `case 0: case 1:` keeps revisions 0 and 1 together).
    fn split_switch_revisions(
        &mut self,
        st: &mut ExecutionState,
        e: ExprId,
        cases: &[(u128, Edge)],
        default: &Edge,
    ) -> Res<ExprId> {
        if !self.pool.mentions_revision(e) {
            return Ok(e);
        }
        #[derive(PartialEq)]
        enum Key {
            Target(u32),
            Expr(ExprId),
        }
        let mut groups: Vec<(Key, ExprId, RevSet)> = Vec::new();
        for r in st.revisions.iter() {
            let s = self.pool.substitute_revision(e, r);
            let key = match self.pool.as_const(s) {
                Some(c) => {
                    Key::Target(cases.iter().find(|(k, _)| *k == c).map_or(default, |(_, e)| e).target.0)
                }
                None => Key::Expr(s),
            };
            match groups.iter_mut().find(|(k, _, _)| *k == key) {
                Some((_, _, set)) => set.insert(r),
                None => groups.push((key, s, RevSet::singleton(r))),
            }
        }
        if groups.len() == 1 {
            return Ok(groups[0].1);
        }
        self.stats.revision_splits += 1;
        for (_, _, set) in &groups[1..] {
            let mut child = st.clone();
            child.revisions = *set;
            self.forked.push(child);
        }
        st.revisions = groups[0].2;
        Err(Stop::Restart)
    }

    // Memory.

    /// Resolves a pointer for an access of `size` bytes.
    pub(super) fn resolve(
        &mut self,
        st: &mut ExecutionState,
        p: &Value,
        size: u64,
        write: bool,
    ) -> Res<Place> {
        let e = match p {
            Value::Int(a) => {
                let a = *a as u64;
                if let Some(id) = st.memory.find(a) {
                    let o = st.memory.object(id);
                    if o.contains(a, size) {
                        if write && o.readonly {
                            return Err(self.error(
                                st,
                                ErrorKind::ReadOnly,
                                format!("write to read-only memory at {a:#x}"),
                            ));
                        }
                        return Ok(Place::C { obj: id, off: a - o.base });
                    }
                }
                return Err(self.bad_pointer(st, a, size));
            }
            Value::Sym(e) => self.split_revisions(st, *e)?,
            Value::Agg(_) | Value::Wide(_) => {
                return Err(self.error(st, ErrorKind::Exec, "memory access through a vector"));
            }
        };
        if let Some(a) = self.pool.as_const(e) {
            return self.resolve(st, &Value::Int(a), size, write);
        }
        // Fast path: one object holds every feasible address.
        let v =
            self.solver.get_value(&self.pool, &st.constraints, e).map_err(|err| self.solver_error(st, err))?
                as u64;
        if let Some(id) = st.memory.find(v) {
            let (base, osize) = (st.memory.object(id).base, st.memory.object(id).size);
            let inb = self.in_bounds(e, base, osize, size);
            match self.solver.must_be_true(&self.pool, &st.constraints, inb) {
                Ok(true) => return self.place_in(st, e, id, write),
                Ok(false) => {}
                Err(err) => return Err(self.solver_error(st, err)),
            }
        }
        self.resolve_fork(st, e, size, write)
    }

    fn place_in(&mut self, st: &ExecutionState, e: ExprId, obj: ObjId, write: bool) -> Res<Place> {
        let o = st.memory.object(obj);
        if write && o.readonly {
            return Err(self.error(st, ErrorKind::ReadOnly, "write to read-only memory"));
        }
        let b = self.pool.constant(64, u128::from(o.base));
        let off = self.pool.sub(e, b);
        Ok(match self.pool.as_const(off) {
            Some(c) => Place::C { obj, off: c as u64 },
            None => Place::S { obj, off },
        })
    }

    /// `base <= e && e + size <= base + osize`, without wrap-around.
    fn in_bounds(&mut self, e: ExprId, base: u64, osize: u64, size: u64) -> ExprId {
        let lo = self.pool.constant(64, u128::from(base));
        let ge = self.pool.uge(e, lo);
        if size > osize {
            return self.pool.false_();
        }
        let hi = self.pool.constant(64, u128::from(base + osize - size));
        let le = self.pool.ule(e, hi);
        self.pool.bool_and(ge, le)
    }

    /// KLEE's resolve: from an example address, scans the objects below and
    /// above it for those the pointer may point into (stopping where it
    /// must lie above, or below, an object), forks one state per such
    /// object, and an error state where the access may overflow an object
    /// or miss them all.
    fn resolve_fork(&mut self, st: &mut ExecutionState, e: ExprId, size: u64, write: bool) -> Res<Place> {
        let v =
            self.solver.get_value(&self.pool, &st.constraints, e).map_err(|err| self.solver_error(st, err))?
                as u64;
        let mut candidates: Vec<(ObjId, u64, u64)> = Vec::new();
        let info = |id: ObjId| (id, st.memory.object(id).base, st.memory.object(id).size);
        let down: Vec<(ObjId, u64, u64)> = st.memory.below(v).map(info).collect();
        let up: Vec<(ObjId, u64, u64)> = st.memory.above(v).map(info).collect();
        for (id, base, osize) in down {
            if candidates.len() >= MAX_RESOLVE {
                break;
            }
            let in_range = self.in_range(e, base, osize);
            if self.may(st, in_range)? {
                candidates.push((id, base, osize));
            }
            let lo = self.pool.constant(64, u128::from(base));
            let above = self.pool.uge(e, lo);
            if self.must(st, above)? {
                break;
            }
        }
        for (id, base, osize) in up {
            if candidates.len() >= MAX_RESOLVE {
                break;
            }
            let lo = self.pool.constant(64, u128::from(base));
            let below = self.pool.ult(e, lo);
            if self.must(st, below)? {
                break;
            }
            let in_range = self.in_range(e, base, osize);
            if self.may(st, in_range)? {
                candidates.push((id, base, osize));
            }
        }
        let mut targets: Vec<(ObjId, ExprId)> = Vec::new();
        let mut errors: Vec<(ExprId, String)> = Vec::new();
        let mut outside = self.pool.true_();
        for &(id, base, osize) in &candidates {
            let inb = self.in_bounds(e, base, osize, size);
            if self.may(st, inb)? {
                targets.push((id, inb));
            }
            let in_range = self.in_range(e, base, osize);
            let not_inb = self.pool.bool_not(inb);
            let partial = self.pool.bool_and(in_range, not_inb);
            if self.may(st, partial)? {
                let msg = format!(
                    "out of bound pointer: an access of {size} bytes overflows an object of {osize} bytes"
                );
                errors.push((partial, msg));
            }
            let not_in = self.pool.bool_not(in_range);
            outside = self.pool.bool_and(outside, not_in);
        }
        if self.may(st, outside)? {
            errors.push((outside, "out of bound pointer: the address may lie outside every object".into()));
        }
        if targets.is_empty() {
            // Every feasible address is an error: this state takes the first.
            let Some((c, msg)) = errors.pop() else {
                return Err(self.error(st, ErrorKind::Ptr, "the pointer has no feasible value"));
            };
            self.fork_errors(st, errors);
            st.constraints.push(c);
            return Err(self.error(st, ErrorKind::Ptr, msg));
        }
        self.fork_errors(st, errors);
        let (base, cond) = targets[0];
        for &(_, c) in &targets[1..] {
            let mut child = st.clone();
            child.constraints.push(c);
            self.stats.forks += 1;
            self.forked.push(child);
        }
        st.constraints.push(cond);
        self.place_in(st, e, base, write)
    }

    fn fork_errors(&mut self, st: &ExecutionState, errors: Vec<(ExprId, String)>) {
        for (c, msg) in errors {
            let mut bad = st.clone();
            bad.constraints.push(c);
            let t = self.error_termination(&bad, ErrorKind::Ptr, msg);
            self.halt_forked(bad, t);
        }
    }

    fn may(&mut self, st: &ExecutionState, cond: ExprId) -> Res<bool> {
        self.solver.may_be_true(&self.pool, &st.constraints, cond).map_err(|e| self.solver_error(st, e))
    }

    fn must(&mut self, st: &ExecutionState, cond: ExprId) -> Res<bool> {
        self.solver.must_be_true(&self.pool, &st.constraints, cond).map_err(|e| self.solver_error(st, e))
    }

    /// `base <= e < base + osize`.
    fn in_range(&mut self, e: ExprId, base: u64, osize: u64) -> ExprId {
        let lo = self.pool.constant(64, u128::from(base));
        let hi = self.pool.constant(64, u128::from(base + osize.max(1)));
        let (ge, lt) = (self.pool.uge(e, lo), self.pool.ult(e, hi));
        self.pool.bool_and(ge, lt)
    }

    fn bad_pointer(&self, st: &ExecutionState, a: u64, size: u64) -> Stop {
        let msg = if a < NULL_PAGE {
            format!("null pointer dereference (address {a:#x})")
        } else if let Some((b, s)) = st.memory.freed_at(a) {
            format!(
                "use after free: address {a:#x} is in a heap object of {s} bytes at {b:#x} that was freed"
            )
        } else if let Some(o) = st.memory.find(a).map(|id| st.memory.object(id)) {
            format!(
                "out of bound pointer: an access of {size} bytes at offset {} of an object of {} bytes",
                a - o.base,
                o.size
            )
        } else if self.m.func_at(a).is_some() {
            format!("access to a function's address {a:#x}")
        } else {
            format!("out of bound pointer: address {a:#x} is in no object")
        };
        self.error(st, ErrorKind::Ptr, msg)
    }

    pub(super) fn read_bytes(&mut self, st: &ExecutionState, place: Place, n: u64) -> Vec<Byte> {
        let o = st.memory.object(place.obj());
        match place {
            Place::C { off, .. } => match o.concrete_bytes(off, n) {
                Some(b) => b.iter().map(|&x| Byte::C(x)).collect(),
                None => (0..n).map(|i| o.read_byte(&mut self.pool, off + i)).collect(),
            },
            Place::S { off, .. } => (0..n)
                .map(|i| {
                    let e = o.read_sym_byte(&mut self.pool, off, i);
                    to_byte(&self.pool, e)
                })
                .collect(),
        }
    }

    pub(super) fn write_bytes(&mut self, st: &mut ExecutionState, place: Place, bytes: &[Byte]) {
        let o = st.memory.object_mut(place.obj());
        match place {
            Place::C { off, .. } => {
                for (i, b) in bytes.iter().enumerate() {
                    o.write_byte(&mut self.pool, off + i as u64, *b);
                }
            }
            Place::S { off, .. } => o.write_sym_bytes(&mut self.pool, off, bytes),
        }
    }

    pub(super) fn read_scalar(&mut self, st: &ExecutionState, place: Place, n: u64, w: u32) -> Value {
        if let Place::C { obj, off } = place
            && n <= 16
            && let Some(v) = st.memory.object(obj).read_concrete(off, n)
        {
            return Value::Int(v & mask(w));
        }
        let bytes = self.read_bytes(st, place, n);
        self.scalar_from_bytes(&bytes, w)
    }

    fn load(&mut self, st: &ExecutionState, place: Place, ty: TyId) -> Value {
        let t = self.m.ty(ty);
        match t.kind {
            TypeKind::Int(w) => self.read_scalar(st, place, t.store_size, w),
            TypeKind::Ptr => self.read_scalar(st, place, 8, 64),
            TypeKind::Float => self.read_scalar(st, place, 4, 32),
            TypeKind::Double => self.read_scalar(st, place, 8, 64),
            _ => {
                let bytes = self.read_bytes(st, place, t.store_size);
                self.value_from_image(&bytes, ty)
            }
        }
    }

    fn store(&mut self, st: &mut ExecutionState, place: Place, ty: TyId, v: &Value) {
        if let (Place::C { obj, off }, Value::Int(x)) = (place, v) {
            let n = self.m.ty(ty).store_size;
            if n <= 16 {
                let o = st.memory.object_mut(obj);
                o.write_concrete(&mut self.pool, off, n, *x);
                return;
            }
        }
        let bytes = self.image(v, ty);
        self.write_bytes(st, place, &bytes);
    }

    /// A scalar of `w` bits from its little-endian bytes.
    pub(super) fn scalar_from_bytes(&mut self, bytes: &[Byte], w: u32) -> Value {
        if bytes.is_empty() {
            return Value::Int(0);
        }
        if w > 128 {
            let concrete: Option<Vec<u8>> =
                bytes.iter().map(|b| if let Byte::C(c) = b { Some(*c) } else { None }).collect();
            return match concrete {
                Some(c) => value::big_value(num_bigint::BigUint::from_bytes_le(&c), w),
                None => {
                    self.unhandled = Some("symbolic bytes read as an integer wider than 128 bits".into());
                    Value::Int(0)
                }
            };
        }
        if bytes.iter().all(|b| matches!(b, Byte::C(_))) && bytes.len() <= 16 {
            let mut buf = [0u8; 16];
            for (i, b) in bytes.iter().enumerate() {
                if let Byte::C(c) = b {
                    buf[i] = *c;
                }
            }
            return Value::Int(u128::from_le_bytes(buf) & mask(w));
        }
        let mut e = byte_expr(&mut self.pool, bytes[bytes.len() - 1]);
        for b in bytes[..bytes.len() - 1].iter().rev() {
            let lo = byte_expr(&mut self.pool, *b);
            e = self.pool.concat(e, lo);
        }
        if self.pool.width(e) > w {
            e = self.pool.extract(e, 0, w);
        }
        self.value_of(e)
    }

    /// The little-endian bytes of a scalar of `n` bytes.
    fn scalar_bytes(&mut self, v: &Value, n: u64) -> Vec<Byte> {
        match v {
            Value::Int(x) => {
                let mut b: Vec<Byte> = x.to_le_bytes().iter().take(n as usize).map(|&b| Byte::C(b)).collect();
                b.resize(n as usize, Byte::C(0));
                b
            }
            Value::Sym(e) => {
                let w = self.pool.width(*e);
                let full = if u64::from(w) < 8 * n { self.pool.zext(*e, 8 * n as u32) } else { *e };
                (0..n)
                    .map(|i| {
                        let b = self.pool.extract(full, 8 * i as u32, 8);
                        to_byte(&self.pool, b)
                    })
                    .collect()
            }
            Value::Wide(b) => value::big_bytes(b, n as usize).into_iter().map(Byte::C).collect(),
            Value::Agg(_) => vec![Byte::C(0); n as usize],
        }
    }

    /// A value's in-memory image as type `ty` (padding reads as zero).
    pub(super) fn image(&mut self, v: &Value, ty: TyId) -> Vec<Byte> {
        let m = self.m;
        let t = m.ty(ty);
        match (&t.kind, v) {
            (TypeKind::Struct { fields, offsets }, Value::Agg(items)) => {
                let mut out = vec![Byte::C(0); t.store_size as usize];
                for ((f, off), item) in fields.iter().zip(offsets.iter()).zip(items.iter()) {
                    let img = self.image(item, *f);
                    out[*off as usize..*off as usize + img.len()].copy_from_slice(&img);
                }
                out
            }
            (TypeKind::Array { elem, .. }, Value::Agg(items)) => {
                let step = m.ty(*elem).alloc_size as usize;
                let mut out = vec![Byte::C(0); t.store_size as usize];
                for (i, item) in items.iter().enumerate() {
                    let img = self.image(item, *elem);
                    out[i * step..i * step + img.len()].copy_from_slice(&img);
                }
                out
            }
            (TypeKind::Vector { elem, .. }, Value::Agg(items)) => match m.ty(*elem).kind {
                TypeKind::Int(w) if w % 8 != 0 => {
                    // Sub-byte elements are packed bits, element 0 lowest.
                    let packed = self.pack_bits(items, w);
                    self.scalar_bytes(&packed, t.store_size)
                }
                _ => items.iter().flat_map(|item| self.image(item, *elem)).collect(),
            },
            _ => self.scalar_bytes(v, t.store_size),
        }
    }

    fn pack_bits(&mut self, items: &[Value], w: u32) -> Value {
        if items.iter().all(|v| matches!(v, Value::Int(_))) && items.len() as u32 * w <= 128 {
            let mut acc = 0u128;
            for (i, v) in items.iter().enumerate() {
                acc |= (v.as_int().unwrap_or(0) & mask(w)) << (i as u32 * w);
            }
            return Value::Int(acc);
        }
        let mut e = self.expr(&items[items.len() - 1], w);
        for v in items[..items.len() - 1].iter().rev() {
            let lo = self.expr(v, w);
            e = self.pool.concat(e, lo);
        }
        self.value_of(e)
    }

    /// A value of type `ty` from its in-memory image.
    pub(super) fn value_from_image(&mut self, bytes: &[Byte], ty: TyId) -> Value {
        let m = self.m;
        let t = m.ty(ty);
        match &t.kind {
            TypeKind::Struct { fields, offsets } => Value::Agg(
                fields
                    .iter()
                    .zip(offsets.iter())
                    .map(|(f, off)| {
                        let n = m.ty(*f).store_size as usize;
                        self.value_from_image(&bytes[*off as usize..*off as usize + n], *f)
                    })
                    .collect(),
            ),
            TypeKind::Array { elem, len } => {
                let (step, n) = (m.ty(*elem).alloc_size as usize, m.ty(*elem).store_size as usize);
                Value::Agg(
                    (0..*len as usize)
                        .map(|i| self.value_from_image(&bytes[i * step..i * step + n], *elem))
                        .collect(),
                )
            }
            TypeKind::Vector { elem, len } => match m.ty(*elem).kind {
                TypeKind::Int(w) if w % 8 != 0 => {
                    let all = self.scalar_from_bytes(bytes, len * w);
                    Value::Agg(
                        (0..*len)
                            .map(|i| match &all {
                                Value::Int(x) => Value::Int((x >> (i * w)) & mask(w)),
                                other => {
                                    let e = self.expr(other, len * w);
                                    let x = self.pool.extract(e, i * w, w);
                                    self.value_of(x)
                                }
                            })
                            .collect(),
                    )
                }
                _ => {
                    let n = m.ty(*elem).store_size as usize;
                    Value::Agg(
                        (0..*len as usize)
                            .map(|i| self.value_from_image(&bytes[i * n..(i + 1) * n], *elem))
                            .collect(),
                    )
                }
            },
            TypeKind::Int(w) => self.scalar_from_bytes(bytes, *w),
            TypeKind::Float => self.scalar_from_bytes(bytes, 32),
            _ => self.scalar_from_bytes(bytes, (8 * bytes.len() as u32).clamp(8, 128)),
        }
    }
}

/// The low 128 bits of a wide value.
fn low_bits(b: &num_bigint::BigUint) -> u128 {
    let d = b.to_u64_digits();
    u128::from(d.first().copied().unwrap_or(0)) | u128::from(d.get(1).copied().unwrap_or(0)) << 64
}

/// Blocks a revision-decided branch looks through.
const LOOKAHEAD_BLOCKS: usize = 32;

/// The instructions of block `b`, terminator last.
fn block_insts(body: &crate::ir::Body, b: u32) -> impl Iterator<Item = usize> {
    let start = body.blocks[b as usize].first.index();
    let end = body.blocks.get(b as usize + 1).map_or(body.insts.len(), |n| n.first.index());
    start..end
}

/// sizeof(FILE) in glibc.
const FILE_SIZE: u64 = 216;

/// The largest allocation (alloca, malloc) the engine makes; a larger
/// malloc returns NULL, a larger alloca is an `exec` error.
pub(super) const MAX_ALLOC: u64 = 1 << 28;

fn icmp_expr(pool: &mut ExprPool, p: crate::ir::IPred, x: ExprId, y: ExprId) -> ExprId {
    use crate::ir::IPred::*;
    match p {
        Eq => pool.eq(x, y),
        Ne => pool.ne(x, y),
        Ugt => pool.ugt(x, y),
        Uge => pool.uge(x, y),
        Ult => pool.ult(x, y),
        Ule => pool.ule(x, y),
        Sgt => pool.sgt(x, y),
        Sge => pool.sge(x, y),
        Slt => pool.slt(x, y),
        Sle => pool.sle(x, y),
    }
}

fn insert_at(agg: &Value, path: &[u32], v: Value) -> Value {
    let Some((&i, rest)) = path.split_first() else { return v };
    match agg {
        Value::Agg(items) => {
            let mut items = items.to_vec();
            if let Some(slot) = items.get_mut(i as usize) {
                *slot = insert_at(slot, rest, v);
            }
            Value::Agg(items.into())
        }
        other => other.clone(),
    }
}

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

/// Splits a halted path by the revisions whose outputs differ: every output
/// expression that mentions the revision is made concrete per revision.
fn split_path_by_revision(pool: &mut ExprPool, path: HaltedPath) -> Vec<HaltedPath> {
    let exprs = path_exprs(&path);
    if !exprs.iter().any(|&e| pool.mentions_revision(e)) {
        return vec![path];
    }
    let mut groups: Vec<(Vec<ExprId>, RevSet)> = Vec::new();
    for r in path.revisions.iter() {
        let key: Vec<ExprId> = exprs.iter().map(|&e| pool.substitute_revision(e, r)).collect();
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, set)) => set.insert(r),
            None => groups.push((key, RevSet::singleton(r))),
        }
    }
    groups
        .into_iter()
        .map(|(key, set)| {
            let mut p = path.clone();
            p.revisions = set;
            let mut it = key.into_iter();
            map_path_exprs(&mut p, &mut |_| it.next().expect("same shape"));
            p
        })
        .collect()
}

fn path_exprs(p: &HaltedPath) -> Vec<ExprId> {
    let mut out = Vec::new();
    let mut q = p.clone();
    map_path_exprs(&mut q, &mut |e| {
        out.push(e);
        e
    });
    out
}

/// Applies `f` to every output expression of a path, in a fixed order.
fn map_path_exprs(p: &mut HaltedPath, f: &mut dyn FnMut(ExprId) -> ExprId) {
    if let Termination::Exit { status } = &mut p.termination {
        *status = f(*status);
    }
    for ev in &mut p.outputs {
        if let super::OutputEvent::Format { args, .. } = ev {
            for a in args {
                match a {
                    super::FmtArg::Scalar(e) => *e = f(*e),
                    super::FmtArg::Str(bytes) => bytes.iter_mut().for_each(|e| *e = f(*e)),
                }
            }
        }
    }
    for a in &mut p.annotations {
        a.bytes.iter_mut().for_each(|e| *e = f(*e));
    }
}

/// The process's resident memory in MiB (Linux).
fn resident_mb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = s.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096 / (1 << 20))
}
