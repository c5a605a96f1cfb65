//! Meta-branch handling: where an expression mentions the revision, the
//! state splits by what each revision makes of it (`split_revisions`), a
//! branch decided by the revision alone follows each revision through the
//! `__klee_meta(S) == r` chains `unify` writes to where they land, switches
//! split by target, `__klee_meta_in` splits by set membership (`meta_in`),
//! and a halted path's outputs split per revision group.
//! This is psychic's own concern (KLEE has none), so it lives apart from
//! the instruction semantics it hooks into.
//!
//! Every split notes where it happened (`Executor::split_at`), for the report's
//! reach. A split is a split of the state's `RevSet`: each part re-runs the
//! instruction, before any side effect, so path constraints never mention the
//! revision and the solver never sees it.

use crate::expr::{ExprId, ExprPool};
use crate::ir::cfg::block_insts;
use crate::ir::{BinOp, Callee, CastOp, Edge, Module, NO_REG, Op, Reg};

use std::rc::Rc;

use super::halt::{ErrorKind, HaltedPath, Termination};
use super::revset::RevSet;
use super::special::Handler;
use super::state::ExecutionState;
use super::value::Value;

use super::executor::{Executor, Place, Res, Stop};

impl<'m> Executor<'m> {
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
        self.note_split(st);
        for (_, set) in &groups[1..] {
            let mut child = st.clone();
            child.revisions = set.clone();
            self.forked.push(child);
        }
        st.revisions = groups[0].1.clone();
        Err(Stop::Restart)
    }

    /// A branch decided by the revision alone: each revision follows its
    /// edge, and on through blocks that compute only on the revision (the
    /// `||` and `&&` chains of `__klee_meta(S) == r` tests), to the first
    /// block that does more. The state splits by that landing block (and
    /// the phi values its edge brings), so that revisions whose chains
    /// select the same variant stay one state. `false` if some revision's
    /// choice is not constant (the caller splits by value instead).
    pub(super) fn revision_jump<'e>(
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
            .flat_map(|&b| block_insts(body, b as usize))
            .filter(|&i| body.insts[i].dst != NO_REG)
            .map(|i| (body.insts[i].dst, scratch.frame().regs[body.insts[i].dst as usize].clone()))
            .collect();
        if groups.len() > 1 {
            self.note_split(st);
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

    /// A split of `st`'s revisions at its current instruction: the
    /// resulting states may meet again where the variants join (`merge`).
    pub(super) fn note_split(&mut self, st: &ExecutionState) {
        self.stats.revision_splits += 1;
        let f = st.frame();
        self.split_at = Some((f.func, f.pc));
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
            let insts: Vec<usize> = block_insts(body, b as usize).collect();
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
        block_insts(body, b as usize).all(|i| match &body.insts[i].op {
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
    pub(super) fn split_switch_revisions(
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
        self.note_split(st);
        for (_, _, set) in &groups[1..] {
            let mut child = st.clone();
            child.revisions = set.clone();
            self.forked.push(child);
        }
        st.revisions = groups[0].2.clone();
        Err(Stop::Restart)
    }
}

impl Executor<'_> {
    /// `__klee_meta_in`'s set at `p`, a nibble per hex digit. A set in a
    /// read-only object (unify's string literals) is parsed once: every
    /// state calls the same few at every site, and each split re-runs the
    /// call.
    pub(super) fn meta_set(&mut self, st: &mut ExecutionState, p: &Value) -> Res<Rc<[u8]>> {
        let key = match (p.as_int(), self.resolve(st, p, 1, false)?) {
            (Some(addr), Place::C { obj, .. }) if st.memory.object(obj).readonly => Some(addr as u64),
            _ => None,
        };
        if let Some(set) = key.and_then(|k| self.meta_sets.get(&k)) {
            return Ok(Rc::clone(set));
        }
        let digits = self.concrete_string(st, p, "meta-branch revision set")?;
        let set: Rc<[u8]> =
            nibbles(&digits).map_err(|why| self.error(st, ErrorKind::User("user".into()), why))?.into();
        if let Some(k) = key {
            self.meta_sets.insert(k, Rc::clone(&set));
        }
        Ok(set)
    }
}

/// The hex digits of a `__klee_meta_in` set, as numbers.
fn nibbles(digits: &[u8]) -> Result<Vec<u8>, String> {
    digits
        .iter()
        .map(|&d| match (d as char).to_digit(16) {
            Some(n) => Ok(n as u8),
            None => Err(format!(
                "__klee_meta_in: the revision set \"{}\" has `{}`, which is not a hex digit",
                String::from_utf8_lossy(digits),
                d.escape_ascii()
            )),
        })
        .collect()
}

/// The revisions of `revs` in a `__klee_meta_in` set (`nibbles`), and
/// those not: bit `r % 4` of digit `r / 4` is revision `r`; revisions past
/// the last digit are not in the set.
pub(super) fn meta_in(set: &[u8], revs: &RevSet) -> (RevSet, RevSet) {
    let (mut inside, mut outside) = (RevSet::empty(), RevSet::empty());
    for r in revs.iter() {
        let held = set.get(r as usize / 4).is_some_and(|n| n >> (r % 4) & 1 != 0);
        if held { inside.insert(r) } else { outside.insert(r) }
    }
    (inside, outside)
}

/// Blocks a revision-decided branch looks through.
const LOOKAHEAD_BLOCKS: usize = 32;

/// Splits a halted path by the revisions whose outputs differ: every output
/// expression that mentions the revision is made concrete per revision.
pub(super) fn split_path_by_revision(pool: &mut ExprPool, mut path: HaltedPath) -> Vec<HaltedPath> {
    let mut mentions = false;
    map_path_exprs(&mut path, &mut |e| {
        mentions |= pool.mentions_revision(e);
        e
    });
    if !mentions {
        return vec![path];
    }
    let exprs = path_exprs(&mut path);
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

/// The output expressions of a path, in `map_path_exprs`' order. (The
/// identity map leaves the path as it is; a copy of it would cost as much as
/// the rest of a halt, as the budget's end halts tens of thousands at once.)
fn path_exprs(p: &mut HaltedPath) -> Vec<ExprId> {
    let mut out = Vec::new();
    map_path_exprs(p, &mut |e| {
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
