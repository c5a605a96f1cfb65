//! State merging where the variants of a meta branch meet again.
//!
//! A revision split (`meta.rs`) sends each group of revisions down its own
//! variant. Where the variants compute the same thing in other words (an
//! expression site `x * 2` against `x + x`, a block that assigns in another
//! order), the states reach the variants' meeting point, the immediate
//! post-dominator of the split's block, with the same path condition and
//! equal effects. There they become one state again, so that the rest of
//! the program runs once for all of them and the differentiator has no
//! pair of paths to compare. KLEE's `klee_open_merge`/`klee_close_merge`
//! with its merging searcher is the model; here the meeting points come
//! from the CFG instead of the program.
//!
//! The states of one split form a group. A member that reaches the group's
//! meeting point (in the split's frame) waits there; states forked off by
//! members on an input are members too. When no member is running any
//! more, the waiting ones with the same constraints are compared: the
//! frames (registers live at the meeting point), memory, outputs. Where
//! they differ only in symbolic values, one query asks whether those may
//! differ under the path condition; if not, the states merge (the union of
//! their revisions, one's values). While a member waits, the other members
//! run first. A group whose members run longer than `WINDOW` instructions
//! (or fork more than `WINDOW_FORKS` states) ends: what waits resumes
//! (merged where it can), and the rest runs on without it. Not merging is
//! always exact; merging states that are equal on every input of the path
//! is too.
//!
//! The meeting point is the immediate post-dominator of the split's block in the
//! split's frame (`ir::cfg`). A waiting member is out of the searcher and the
//! process tree's walk, and while someone waits the other members run first
//! (the `Merging` layer over the searcher: KLEE's merging searcher). When none
//! runs, the waiting states are compared: frames (the caller frames equal, the
//! registers live at the meeting point), inputs, outputs, memory (object by
//! object; an object shared since the split is equal without a look). A state
//! whose path condition the states of other revisions split (their variant
//! branched on an input, its own did not) absorbs them if they cover it and each
//! is equal to it on its part (one query). A merge query first gets 2 s
//! (proving float rewrites equal takes about a second, and saves every
//! differential query after it), and 100 ms at a meeting point where one timed
//! out before; a timeout keeps the states apart. A group gives up at `WINDOW`
//! (20,000) instructions or `WINDOW_FORKS` (8) forks: a variant with a loop over
//! an input would hold the others back, and their paths halting in one burst
//! lose what cross seeding gains from halting one by one. `--no-merge` turns
//! merging off; `report.json`'s `stats.merging` and `query_kinds.merge` count
//! it. (`benches/README.md`, hard: the figures behind the timeouts.)

use std::collections::HashSet;
use std::rc::Rc;
use std::time::{Duration, Instant};

use crate::expr::{ExprId, ExprPool};
use crate::ir::FuncId;
use crate::ir::cfg::{self, Analysis, RegSet};

use super::defer::Deferring;
use super::executor::Executor;
use super::halt::{FmtArg, OutputEvent};
use super::memory::byte_expr;
use super::searcher::{SearchView, Searcher, StateId, forward_update};
use super::slab::Slab;
use super::state::ExecutionState;
use super::value::Value;

/// Instructions the members of a group may run after its split, and states
/// they may fork off, before the group gives up on meeting: a variant that
/// loops over an input would keep the others waiting for good.
const WINDOW: u64 = 20_000;
const WINDOW_FORKS: usize = 8;
/// The timeout of the first merge query at a meeting point: a proof that
/// float variants are equal may take a second (1.1 s in
/// `fixtures/honesty/float-scanf`), and it saves the differential queries of
/// every path after it, which are harder. The solver's own timeout (10 s)
/// would stall the search instead: on 64-bit money arithmetic
/// (`fixtures/hard/exchange`) four merge queries took 19 of 20 s.
const FIRST_TIMEOUT: Duration = Duration::from_secs(2);
/// The timeout of a merge query at a meeting point where one timed out
/// before: a merge saves work, it never decides an answer, so a hard one is
/// given up.
const RETRY_TIMEOUT: Duration = Duration::from_millis(100);

/// The layer over the searcher that holds the open merge groups of a run
/// (KLEE's merging searcher): states waiting at a meeting point are out of
/// the searcher below it and out of the process tree's walk, and while one
/// waits, the other members of its group run first.
pub(super) struct Merging {
    inner: Deferring,
    groups: Slab<Group>,
    /// Open groups, oldest first.
    order: Vec<u32>,
    /// States waiting at a meeting point (in the executor's table, out of
    /// the searcher's and the process tree's walk).
    waiting: HashSet<StateId>,
    /// Meeting points (function, block) where a merge query timed out.
    hard: HashSet<(FuncId, usize)>,
    /// Began to wait, and resumed, since the searcher below last heard: it
    /// hears of them in the update of the step that made them, the resumed
    /// ones in an update of their own after it.
    left: Vec<StateId>,
    resumed: Vec<StateId>,
}

struct Group {
    func: FuncId,
    /// The split's frame: its stack depth, and the meeting point's first
    /// instruction and block.
    depth: usize,
    join_pc: u32,
    join_block: usize,
    cfg: Rc<Analysis>,
    /// Members that run (or wait in a group nested in this one).
    active: Vec<StateId>,
    waiting: Vec<StateId>,
    started: u64,
    forks: usize,
}

impl Merging {
    pub(super) fn new(inner: Deferring) -> Self {
        Merging {
            inner,
            groups: Slab::default(),
            order: Vec::new(),
            waiting: HashSet::new(),
            hard: HashSet::new(),
            left: Vec::new(),
            resumed: Vec::new(),
        }
    }

    pub(super) fn deferring(&mut self) -> &mut Deferring {
        &mut self.inner
    }

    /// Whether some state is held: to run, or put aside (one waiting at a
    /// meeting point resumes when its group's last member leaves).
    pub(super) fn holds_states(&self) -> bool {
        !self.is_empty() || self.inner.holds_any()
    }

    /// Whether `s` is out of the search: waiting at a meeting point, or put
    /// aside for a query (`defer`).
    pub(super) fn holds_out(&self, s: StateId) -> bool {
        self.waiting.contains(&s) || self.inner.contains(s)
    }

    /// A member of the newest group someone waits in, to run before
    /// anything else: the waiting states resume as soon as it arrives.
    /// States put aside for a query are not running either.
    fn urgent(&self) -> Option<StateId> {
        self.order.iter().rev().find_map(|&g| {
            let g = self.groups.get(g as usize).expect("open group");
            if g.waiting.is_empty() {
                return None;
            }
            g.active.iter().rev().copied().find(|&s| !self.waiting.contains(&s) && !self.inner.contains(s))
        })
    }

    /// Whether `st` stands at the meeting point of its innermost group.
    #[inline]
    pub(super) fn at_join(&self, st: &ExecutionState) -> bool {
        let Some(&g) = st.merge.last() else { return false };
        let g = self.groups.get(g as usize).expect("open group");
        st.stack.len() == g.depth && st.frame().pc == g.join_pc && st.frame().func == g.func
    }
}

impl Searcher for Merging {
    fn select(&mut self, view: &SearchView) -> StateId {
        self.urgent().unwrap_or_else(|| self.inner.select(view))
    }

    fn update(
        &mut self,
        view: &SearchView,
        current: Option<StateId>,
        added: &[StateId],
        removed: &[StateId],
    ) {
        forward_update(&mut self.inner, view, current, added, removed, &mut self.left);
        if !self.resumed.is_empty() {
            let resumed = std::mem::take(&mut self.resumed);
            self.inner.update(view, None, &resumed, &[]);
        }
    }

    fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    fn name(&self) -> &'static str {
        "merging"
    }
}

impl Executor<'_> {
    /// After a step that split `sid`'s revisions at `split` (its function and
    /// instruction) into `sid` and `added`: a group, if the variants meet
    /// again in that frame.
    pub(super) fn open_group(
        &mut self,
        split: (FuncId, u32),
        st: &mut ExecutionState,
        sid: StateId,
        added: &[StateId],
    ) {
        let (func, pc) = split;
        if !self.cfg.merge || st.frame().func != func {
            return;
        }
        let m = self.m;
        let body = m.func(func).body.as_ref().expect("defined");
        let analysis = self.analysis(func);
        let Some(join) = analysis.ipdom[cfg::block_of(body, pc)] else { return };
        let join_block = join as usize;
        let group = Group {
            func,
            depth: st.stack.len(),
            join_pc: body.blocks[join_block].first.0,
            join_block,
            cfg: analysis,
            active: std::iter::once(sid).chain(added.iter().copied()).collect(),
            waiting: Vec::new(),
            started: self.stats.instructions,
            forks: 0,
        };
        let g = self.searcher.groups.insert(group) as u32;
        self.searcher.order.push(g);
        self.stats.merge_groups += 1;
        st.merge.push(g);
        for &a in added {
            self.live_state_mut(a).merge.push(g);
        }
    }

    /// States forked off `sid` in a step belong to its groups too.
    pub(super) fn join_groups(&mut self, groups: &[u32], added: &[StateId]) {
        for &g in groups {
            let group = self.group_mut(g);
            group.active.extend_from_slice(added);
            group.forks += added.len();
        }
    }

    /// `sid` halted (or its frame returned past its groups' meeting points):
    /// it leaves `groups`, and the states it held back resume.
    pub(super) fn leave_groups(&mut self, sid: StateId, groups: &[u32]) {
        for &g in groups.iter().rev() {
            self.group_mut(g).active.retain(|&s| s != sid);
            self.settle(g);
        }
    }

    /// After a step of a live state (back in its slot): it waits if it
    /// reached its innermost meeting point, and leaves the groups whose
    /// frame it returned from.
    pub(super) fn after_step(&mut self, sid: StateId) {
        loop {
            let st = self.live_state_mut(sid);
            let Some(&g) = st.merge.last() else { break };
            let depth = st.stack.len();
            if self.searcher.groups.get(g as usize).expect("open").depth <= depth {
                break;
            }
            self.live_state_mut(sid).merge.pop();
            self.leave_groups(sid, &[g]);
        }
        let st = self.states.get(sid).and_then(|s| s.as_deref()).expect("live");
        if !self.searcher.at_join(st) {
            return;
        }
        let g = *st.merge.last().expect("at a meeting point");
        let leaf = st.ptree_node;
        self.ptree.park(leaf);
        self.searcher.waiting.insert(sid);
        self.searcher.left.push(sid);
        let group = self.group_mut(g);
        group.active.retain(|&s| s != sid);
        group.waiting.push(sid);
        self.settle(g);
    }

    /// Ends the groups whose members ran past `WINDOW`: their waiting states
    /// resume, merged where they can, and the running ones go on without them.
    pub(super) fn expire_groups(&mut self) {
        let now = self.stats.instructions;
        let old: Vec<u32> = self
            .searcher
            .order
            .iter()
            .copied()
            .filter(|&g| {
                let g = self.searcher.groups.get(g as usize).expect("open");
                now - g.started > WINDOW || g.forks > WINDOW_FORKS
            })
            .collect();
        for g in old.into_iter().rev() {
            self.stats.merge_groups_expired += 1;
            for s in std::mem::take(&mut self.group_mut(g).active) {
                self.live_state_mut(s).merge.retain(|&x| x != g);
            }
            self.settle(g);
        }
    }

    /// Once no member of `g` runs: merges what waits and resumes it.
    fn settle(&mut self, g: u32) {
        if !self.group_mut(g).active.is_empty() {
            return;
        }
        let group = self.searcher.groups.remove(g as usize).expect("open group");
        self.searcher.order.retain(|&x| x != g);
        let live = &group.cfg.live_in[group.join_block];
        let join = (group.func, group.join_block);
        let mut survivors = group.waiting;
        for s in &survivors {
            self.searcher.waiting.remove(s);
        }
        // States with one path condition: equal effects make them one.
        let mut i = 0;
        while i < survivors.len() {
            let b = survivors[i];
            match survivors[..i].iter().copied().find(|&a| self.merge_equal(a, b, live, join)) {
                Some(_) => {
                    survivors.remove(i);
                    self.merged_away(b);
                }
                None => i += 1,
            }
        }
        // A state whose path condition the states of other revisions split
        // (their variant branched on an input, its own computed without a
        // branch) stands for them all where each is equal to it.
        let mut i = 0;
        while i < survivors.len() {
            let b = survivors[i];
            let st = self.live_state(b);
            let mut parts: Vec<(super::RevSet, Vec<StateId>)> = Vec::new();
            for &a in &survivors {
                let sa = self.live_state(a);
                if a == b
                    || !sa.revisions.disjoint(&st.revisions)
                    || sa.constraints.len() <= st.constraints.len()
                    || !sa.constraints.starts_with(&st.constraints)
                {
                    continue;
                }
                match parts.iter_mut().find(|(r, _)| *r == sa.revisions) {
                    Some((_, ids)) => ids.push(a),
                    None => parts.push((sa.revisions.clone(), vec![a])),
                }
            }
            for (_, ids) in parts {
                if self.absorb(b, &ids, live, join) {
                    survivors.retain(|s| !ids.contains(s));
                    for a in ids {
                        self.merged_away(a);
                    }
                }
            }
            i = survivors.iter().position(|&s| s == b).expect("kept") + 1;
        }
        for &s in &survivors {
            let st = self.live_state_mut(s);
            st.merge.pop();
            let leaf = st.ptree_node;
            self.ptree.unpark(leaf, s);
        }
        self.searcher.resumed.extend(survivors);
    }

    /// `s` was merged into another state: it leaves the run (no path), and
    /// the groups that still count it.
    fn merged_away(&mut self, s: StateId) {
        self.stats.merged_states += 1;
        let st = self.states.remove(s).flatten().expect("live");
        self.ptree.remove(st.ptree_node);
        for &g in &st.merge[..st.merge.len() - 1] {
            self.group_mut(g).active.retain(|&x| x != s);
        }
        if st.domain_open() {
            self.count_stretches(0, 1);
        }
    }

    /// Merges state `b` into state `a` if they have one path condition and
    /// are one state on every input of it.
    fn merge_equal(&mut self, a: StateId, b: StateId, live: &RegSet, join: (FuncId, usize)) -> bool {
        let (sa, sb) = (live_in(&self.states, a), live_in(&self.states, b));
        if sa.constraints != sb.constraints {
            return false;
        }
        let Some(pairs) = differences(&mut self.pool, sa, sb, live) else { return false };
        if !pairs.is_empty() {
            let constraints = sa.constraints.clone();
            let Some(differ) = self.any_differs(&pairs) else { return false };
            if !self.never(&constraints, differ, join) {
                return false;
            }
        }
        self.fold_into(a, b);
        true
    }

    /// Merges the states `parts` of other revisions into `b`, if their path
    /// conditions extend `b`'s, together cover it, and each is equal to `b`
    /// on every input of its own: one query for all of it.
    fn absorb(&mut self, b: StateId, parts: &[StateId], live: &RegSet, join: (FuncId, usize)) -> bool {
        let prefix = self.live_state(b).constraints.clone();
        let mut covered = self.pool.constant(1, 0);
        let mut differ = self.pool.constant(1, 0);
        for &a in parts {
            let (sa, sb) = (live_in(&self.states, a), live_in(&self.states, b));
            let extra = sa.constraints[prefix.len()..].to_vec();
            let Some(pairs) = differences(&mut self.pool, sb, sa, live) else { return false };
            let mut on_a = self.pool.constant(1, 1);
            for c in extra {
                on_a = self.pool.bool_and(on_a, c);
            }
            covered = self.pool.bool_or(covered, on_a);
            if let Some(d) = self.any_differs(&pairs) {
                let here = self.pool.bool_and(on_a, d);
                differ = self.pool.bool_or(differ, here);
            } else if !pairs.is_empty() {
                return false;
            }
        }
        let uncovered = self.pool.bool_not(covered);
        let wrong = self.pool.bool_or(uncovered, differ);
        if !self.never(&prefix, wrong, join) {
            return false;
        }
        for &a in parts {
            self.fold_into(b, a);
        }
        true
    }

    /// `into` stands for `from`'s revisions too; `from` is left for
    /// `merged_away`.
    fn fold_into(&mut self, into: StateId, from: StateId) {
        let sb = self.slot(from).take().expect("live");
        let before = usize::from(self.live_state(into).domain_open());
        let sa = self.live_state_mut(into);
        sa.revisions = sa.revisions.union(&sb.revisions);
        for &site in &sb.sites {
            if !sa.sites.contains(&site) {
                sa.sites.push(site);
            }
        }
        for x in sb.approximations.iter().cloned() {
            sa.approximate(x);
        }
        // Each side's seeds agree with the merged path condition: equal
        // constraints, or `into`'s prefix of `from`'s.
        for &s in &sb.seeds {
            if !sa.seeds.contains(&s) {
                sa.seeds.push(s);
            }
        }
        sa.since_new_cover = sa.since_new_cover.min(sb.since_new_cover);
        sa.memory.absorb_allocator(&sb.memory);
        let after = usize::from(sa.domain_open());
        *self.slot(from) = Some(sb);
        self.count_stretches(after, before);
    }

    /// The condition that some pair differs, unless a value mentions the
    /// revision (never sent to the solver).
    fn any_differs(&mut self, pairs: &[(ExprId, ExprId)]) -> Option<ExprId> {
        if pairs.iter().any(|&(x, y)| self.pool.mentions_revision(x) || self.pool.mentions_revision(y)) {
            return None;
        }
        let mut any = self.pool.constant(1, 0);
        for &(x, y) in pairs {
            let ne = self.pool.ne(x, y);
            any = self.pool.bool_or(any, ne);
        }
        Some(any)
    }

    /// Whether `cond` holds on no solution of `constraints`: one merge
    /// query, counted apart from the engine's branches.
    fn never(&mut self, constraints: &[ExprId], cond: ExprId, join: (FuncId, usize)) -> bool {
        let hard = self.searcher.hard.contains(&join);
        let timeout = self.solver.timeout();
        self.solver.set_timeout(if hard { RETRY_TIMEOUT } else { FIRST_TIMEOUT }.min(timeout));
        let started = Instant::now();
        let feasible = self.solver.may_be_true(&self.pool, constraints, cond);
        self.solver.set_timeout(timeout);
        self.stats.merge_queries += 1;
        self.stats.merge_time += started.elapsed();
        if feasible.is_err() {
            self.searcher.hard.insert(join);
        }
        feasible == Ok(false)
    }

    fn live_state(&self, s: StateId) -> &ExecutionState {
        live_in(&self.states, s)
    }

    fn group_mut(&mut self, g: u32) -> &mut Group {
        self.searcher.groups.get_mut(g as usize).expect("open group")
    }

    fn live_state_mut(&mut self, s: StateId) -> &mut ExecutionState {
        self.slot(s).as_deref_mut().expect("live state")
    }
}

/// A live state of the executor's table (a borrow of the table alone, so
/// that the expression pool stays free).
fn live_in(states: &Slab<Option<Box<ExecutionState>>>, s: StateId) -> &ExecutionState {
    states.get(s).and_then(|s| s.as_deref()).expect("live state")
}

/// The symbolic values that must be equal for `a` and `b` to be one state
/// (path conditions aside), as expression pairs; `None` if they cannot be
/// (other inputs, frames, objects, or a concrete value against another).
fn differences(
    pool: &mut ExprPool,
    a: &ExecutionState,
    b: &ExecutionState,
    live: &RegSet,
) -> Option<Vec<(ExprId, ExprId)>> {
    if a.symbolics != b.symbolics || a.stack.len() != b.stack.len() || a.outputs.len() != b.outputs.len() {
        return None;
    }
    let mut pairs = Vec::new();
    let top = a.stack.len() - 1;
    for (i, (fa, fb)) in a.stack.iter().zip(&b.stack).enumerate() {
        if fa.func != fb.func
            || fa.pc != fb.pc
            || fa.ret_dst != fb.ret_dst
            || fa.allocas != fb.allocas
            || fa.varargs != fb.varargs
        {
            return None;
        }
        if i < top {
            // A caller's registers do not change while its callee runs.
            if fa.regs != fb.regs {
                return None;
            }
            continue;
        }
        for r in live.iter() {
            values(pool, &fa.regs[r as usize], &fb.regs[r as usize], &mut pairs)?;
        }
    }
    for (ea, eb) in a.outputs.iter().zip(&b.outputs) {
        match (ea, eb) {
            (x, y) if x == y => {}
            (
                OutputEvent::Format { stream: sa, format: fa, args: aa },
                OutputEvent::Format { stream: sb, format: fb, args: ab },
            ) if sa == sb && fa == fb && aa.len() == ab.len() => {
                for (x, y) in aa.iter().zip(ab) {
                    match (x, y) {
                        (FmtArg::Scalar(x), FmtArg::Scalar(y)) if pool.width(*x) == pool.width(*y) => {
                            pairs.push((*x, *y))
                        }
                        (FmtArg::Str(x), FmtArg::Str(y)) if x.len() == y.len() => {
                            pairs.extend(x.iter().copied().zip(y.iter().copied()))
                        }
                        _ => return None,
                    }
                }
            }
            _ => return None,
        }
    }
    if a.annotations != b.annotations {
        return None;
    }
    let mut bytes = Vec::new();
    if !a.memory.differences(&b.memory, &mut bytes) {
        return None;
    }
    for (x, y) in bytes {
        pairs.push((byte_expr(pool, x), byte_expr(pool, y)));
    }
    Some(pairs)
}

/// Pairs of a register's values in two states; `None` where they differ
/// concretely or in shape.
fn values(pool: &mut ExprPool, a: &Value, b: &Value, pairs: &mut Vec<(ExprId, ExprId)>) -> Option<()> {
    match (a, b) {
        _ if a == b => {}
        (Value::Sym(x), Value::Sym(y)) if pool.width(*x) == pool.width(*y) => pairs.push((*x, *y)),
        (Value::Sym(x), Value::Int(c)) | (Value::Int(c), Value::Sym(x)) => {
            let c = pool.constant(pool.width(*x), *c);
            pairs.push((*x, c))
        }
        (Value::Agg(x), Value::Agg(y)) if x.len() == y.len() => {
            return x.iter().zip(y.iter()).try_for_each(|(x, y)| values(pool, x, y, pairs));
        }
        _ => return None,
    }
    Some(())
}
