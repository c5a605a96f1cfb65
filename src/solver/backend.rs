//! The last layer: lowering to Z3 and checking.
//!
//! Lowering is memoised for the solver's lifetime (the thread-local Z3 context keeps the terms alive).
//! Width-1 comparisons and boolean connectives become Z3 `Bool`s; everything else is a bit-vector, and
//! the two convert only where the other is needed. Input bytes read at constant indices are plain 8-bit
//! constants named like `x[3]`; a symbolic-index read of an array-sorted term becomes an if-then-else chain
//! over those constants and the stores (see `select_chain`), so queries never need array theory.

use std::time::{Duration, Instant};

use rustc_hash::{FxHashMap, FxHashSet};
use z3::ast::{BV, Bool};
use z3::{Params, SatResult};

use super::{Lit, SolverError, Var};
use crate::expr::{ArrayId, Assignment, BinOp, CmpOp, ExprId, ExprPool, Node};

/// A lowered expression, in its natural sort.
#[derive(Clone)]
enum Term {
    Bv(BV),
    Bool(Bool),
}

/// Z3's answer to one check, with the time it took.
pub(super) struct Checked {
    pub model: Result<Option<Assignment>, SolverError>,
    pub elapsed: Duration,
}

#[derive(Default)]
pub(super) struct Z3Backend {
    terms: FxHashMap<ExprId, Term>,
    bytes: FxHashMap<(ArrayId, u64), BV>,
    byte_names: FxHashSet<String>,
    revision: Option<BV>,
}

/// Terms kept before the memo is dropped, to bound memory on long runs.
const MAX_TERMS: usize = 1 << 21;

impl Z3Backend {
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// Whether the conjunction of `lits` is satisfiable; with a model over `vars` if it is.
    pub fn check(&mut self, pool: &ExprPool, lits: &[Lit], vars: &[Var], timeout: Duration) -> Checked {
        if self.terms.len() > MAX_TERMS {
            self.terms.clear();
        }
        let start = Instant::now();
        // Arrays become if-then-else chains, so every query is QF_BV: Z3 goes straight to bit-blasting.
        let solver = z3::Solver::new_for_logic("QF_BV").unwrap_or_default();
        let mut params = Params::new();
        params.set_u32("timeout", u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX).max(1));
        solver.set_params(&params);
        for lit in lits {
            self.lower(pool, lit.expr);
            let b = self.boolean(lit.expr);
            solver.assert(if lit.negated { b.not() } else { b });
        }
        let model = match solver.check() {
            SatResult::Unsat => Ok(None),
            SatResult::Sat => match solver.get_model() {
                Some(model) => Ok(Some(self.read_model(pool, &model, vars))),
                None => Err(SolverError::Unknown("Z3 gave no model for a satisfiable query".into())),
            },
            SatResult::Unknown => {
                let reason = solver.get_reason_unknown().unwrap_or_default();
                if reason.contains("timeout") || reason.contains("canceled") {
                    Err(SolverError::Timeout)
                } else {
                    Err(SolverError::Unknown(reason))
                }
            }
        };
        Checked { model, elapsed: start.elapsed() }
    }

    fn read_model(&mut self, pool: &ExprPool, model: &z3::Model, vars: &[Var]) -> Assignment {
        let mut out = Assignment::new();
        let value = |bv: &BV| model.eval(bv, true).and_then(|v| v.as_u64()).unwrap_or(0);
        for &var in vars {
            match var {
                Var::Revision => {
                    let rev = self.revision_const();
                    out.set_revision(value(&rev) as u32);
                }
                Var::Byte(array, index) => {
                    let byte = self.byte_const(pool, array, index);
                    out.set_byte(array, index, value(&byte) as u8);
                }
                Var::Array(array) => {
                    for index in 0..pool.array_info(array).size {
                        let byte = self.byte_const(pool, array, index);
                        out.set_byte(array, index, value(&byte) as u8);
                    }
                }
            }
        }
        out
    }

    fn revision_const(&mut self) -> BV {
        self.revision.get_or_insert_with(|| BV::new_const("rev", crate::expr::REVISION_WIDTH)).clone()
    }

    pub(super) fn byte_const(&mut self, pool: &ExprPool, array: ArrayId, index: u64) -> BV {
        if let Some(bv) = self.bytes.get(&(array, index)) {
            return bv.clone();
        }
        let mut name = format!("{}[{index}]", pool.array_label(array));
        if self.byte_names.contains(&name) {
            name = format!("{name}#{}", array.index());
        }
        self.byte_names.insert(name.clone());
        let bv = BV::new_const(name, 8);
        self.bytes.insert((array, index), bv.clone());
        bv
    }

    /// Lowers `root` and everything below it that is not lowered yet, children first.
    pub(super) fn lower(&mut self, pool: &ExprPool, root: ExprId) {
        if self.terms.contains_key(&root) {
            return;
        }
        let pending = pool.pending_below(root, |e| self.terms.contains_key(&e) || pool.is_array(e));
        for e in pending {
            let term = self.lower_node(pool, e);
            self.terms.insert(e, term);
        }
    }

    pub(super) fn bv(&self, e: ExprId) -> BV {
        match &self.terms[&e] {
            Term::Bv(bv) => bv.clone(),
            Term::Bool(b) => b.ite(&BV::from_u64(1, 1), &BV::from_u64(0, 1)),
        }
    }

    fn boolean(&self, e: ExprId) -> Bool {
        match &self.terms[&e] {
            Term::Bool(b) => b.clone(),
            Term::Bv(bv) => bv.eq(BV::from_u64(1, 1)),
        }
    }

    fn lower_node(&mut self, pool: &ExprPool, e: ExprId) -> Term {
        let w = pool.width(e);
        match *pool.node(e) {
            Node::Const { width: 1, value } => Term::Bool(Bool::from_bool(value == 1)),
            Node::Const { width, value } => Term::Bv(bv_const(width, value)),
            Node::Revision => Term::Bv(self.revision_const()),
            Node::Input { array, index } => Term::Bv(self.byte_const(pool, array, index)),
            Node::Not(a) if w == 1 => Term::Bool(self.boolean(a).not()),
            Node::Not(a) => Term::Bv(self.bv(a).bvnot()),
            Node::Bin { op: op @ (BinOp::And | BinOp::Or | BinOp::Xor), lhs, rhs } if w == 1 => {
                let (a, b) = (self.boolean(lhs), self.boolean(rhs));
                Term::Bool(match op {
                    BinOp::And => Bool::and(&[a, b]),
                    BinOp::Or => Bool::or(&[a, b]),
                    _ => a.xor(&b),
                })
            }
            Node::Bin { op, lhs, rhs } => {
                let (a, b) = (self.bv(lhs), self.bv(rhs));
                Term::Bv(match op {
                    BinOp::Add => a.bvadd(&b),
                    BinOp::Sub => a.bvsub(&b),
                    BinOp::Mul => a.bvmul(&b),
                    BinOp::UDiv => a.bvudiv(&b),
                    BinOp::SDiv => a.bvsdiv(&b),
                    BinOp::URem => a.bvurem(&b),
                    BinOp::SRem => a.bvsrem(&b),
                    BinOp::And => a.bvand(&b),
                    BinOp::Or => a.bvor(&b),
                    BinOp::Xor => a.bvxor(&b),
                    BinOp::Shl => a.bvshl(&b),
                    BinOp::LShr => a.bvlshr(&b),
                    BinOp::AShr => a.bvashr(&b),
                })
            }
            Node::Cmp { op: CmpOp::Eq, lhs, rhs } if pool.width(lhs) == 1 => {
                Term::Bool(self.boolean(lhs).eq(self.boolean(rhs)))
            }
            Node::Cmp { op, lhs, rhs } => {
                let (a, b) = (self.bv(lhs), self.bv(rhs));
                Term::Bool(match op {
                    CmpOp::Eq => a.eq(&b),
                    CmpOp::Ult => a.bvult(&b),
                    CmpOp::Ule => a.bvule(&b),
                    CmpOp::Slt => a.bvslt(&b),
                    CmpOp::Sle => a.bvsle(&b),
                })
            }
            Node::Ite { cond, then, els } => {
                let c = self.boolean(cond);
                if w == 1 {
                    Term::Bool(c.ite(&self.boolean(then), &self.boolean(els)))
                } else {
                    Term::Bv(c.ite(&self.bv(then), &self.bv(els)))
                }
            }
            Node::Concat { hi, lo } => Term::Bv(self.bv(hi).concat(self.bv(lo))),
            Node::Extract { arg, offset, width } => {
                Term::Bv(self.bv(arg).extract(offset + width - 1, offset))
            }
            Node::ZExt { arg, width } => Term::Bv(self.bv(arg).zero_ext(width - pool.width(arg))),
            Node::SExt { arg, width } => Term::Bv(self.bv(arg).sign_ext(width - pool.width(arg))),
            Node::Select { array, index } => Term::Bv(self.select_chain(pool, array, index)),
            Node::ConstArray(_) | Node::InputArray(_) | Node::Store { .. } => {
                unreachable!("array-sorted terms are lowered only through their selects")
            }
        }
    }

    /// `select(array, index)` as an if-then-else chain over the stores and the base array's bytes.
    /// Measured against Z3's array theory (`benches/expr_solver.rs`, table `arrays`): Z3 4.8's QF_ABV
    /// tactic answers "incomplete" on table lookups with a symbolic store, and its general solver is two
    /// orders of magnitude slower than bit-blasting the chain.
    fn select_chain(&mut self, pool: &ExprPool, array: ExprId, index: ExprId) -> BV {
        let idx = self.bv(index);
        let is = |k: u64| idx.eq(BV::from_u64(k, 64));
        let mut stores = Vec::new();
        let mut base = array;
        while let Node::Store { array: inner, index: i, value: v } = *pool.node(base) {
            stores.push((i, v));
            base = inner;
        }
        // Past the end, arrays read 0.
        let mut byte = BV::from_u64(0, 8);
        match *pool.node(base) {
            Node::ConstArray(c) => {
                for (k, &b) in pool.const_array_bytes(c).iter().enumerate().rev() {
                    if b != 0 {
                        byte = is(k as u64).ite(&BV::from_u64(b as u64, 8), &byte);
                    }
                }
            }
            Node::InputArray(a) => {
                for k in (0..pool.array_info(a).size).rev() {
                    byte = is(k).ite(&self.byte_const(pool, a, k), &byte);
                }
            }
            ref other => unreachable!("array-sorted term expected, found {other:?}"),
        }
        // The innermost store first, so that the newest store is tested first.
        for (i, v) in stores.into_iter().rev() {
            self.lower(pool, i);
            self.lower(pool, v);
            byte = idx.eq(self.bv(i)).ite(&self.bv(v), &byte);
        }
        byte
    }
}

fn bv_const(width: u32, value: u128) -> BV {
    if width <= 64 {
        BV::from_u64(value as u64, width)
    } else {
        BV::from_str(width, &value.to_string()).expect("a decimal numeral is a valid bit-vector constant")
    }
}
