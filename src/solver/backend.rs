//! The last layer: lowering to Z3 and checking.
//!
//! Lowering is memoised for the solver's lifetime (the thread-local Z3 context keeps the terms alive).
//! Width-1 comparisons and boolean connectives become Z3 `Bool`s; everything else is a bit-vector, and
//! the two convert only where the other is needed. Input bytes read at constant indices are plain 8-bit
//! constants named like `x[3]`; array theory appears only for array-sorted terms (symbolic indices).

use std::time::{Duration, Instant};

use rustc_hash::{FxHashMap, FxHashSet};
use z3::ast::{Array, BV, Bool};
use z3::{Params, SatResult, Sort};

use super::{Lit, SolverError, Var};
use crate::expr::{ArrayId, Assignment, BinOp, CmpOp, ExprId, ExprPool, Node};

/// A lowered expression, in its natural sort.
#[derive(Clone)]
enum Term {
    Bv(BV),
    Bool(Bool),
    Array(Array),
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
        // A fixed logic lets Z3 pick its bit-blasting tactic at once; arrays need the array theory.
        let logic = if lits.iter().any(|l| pool.has_array_terms(l.expr)) { "QF_ABV" } else { "QF_BV" };
        let solver = z3::Solver::new_for_logic(logic).unwrap_or_default();
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
        let pending = pool.pending_below(root, |e| self.terms.contains_key(&e));
        for e in pending {
            let term = self.lower_node(pool, e);
            self.terms.insert(e, term);
        }
    }

    pub(super) fn bv(&self, e: ExprId) -> BV {
        match &self.terms[&e] {
            Term::Bv(bv) => bv.clone(),
            Term::Bool(b) => b.ite(&BV::from_u64(1, 1), &BV::from_u64(0, 1)),
            Term::Array(_) => unreachable!("array term used as a bit-vector"),
        }
    }

    fn boolean(&self, e: ExprId) -> Bool {
        match &self.terms[&e] {
            Term::Bool(b) => b.clone(),
            Term::Bv(bv) => bv.eq(BV::from_u64(1, 1)),
            Term::Array(_) => unreachable!("array term used as a boolean"),
        }
    }

    fn array(&self, e: ExprId) -> Array {
        match &self.terms[&e] {
            Term::Array(a) => a.clone(),
            _ => unreachable!("bit-vector term used as an array"),
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
            Node::ConstArray(c) => {
                let bytes = pool.const_array_bytes(c);
                // The most common byte is the default; the others are stores.
                let mut counts = [0usize; 256];
                for &b in bytes {
                    counts[b as usize] += 1;
                }
                let default = (0..256).max_by_key(|&b| (counts[b], std::cmp::Reverse(b))).unwrap_or(0);
                let mut arr = Array::const_array(&Sort::bitvector(64), &BV::from_u64(default as u64, 8));
                for (i, &b) in bytes.iter().enumerate() {
                    if b as usize != default {
                        arr = arr.store(&BV::from_u64(i as u64, 64), &BV::from_u64(b as u64, 8));
                    }
                }
                Term::Array(arr)
            }
            Node::InputArray(array) => {
                // The input's bytes are the same 8-bit constants that constant-index reads use.
                let mut arr = Array::const_array(&Sort::bitvector(64), &BV::from_u64(0, 8));
                for index in 0..pool.array_info(array).size {
                    let byte = self.byte_const(pool, array, index);
                    arr = arr.store(&BV::from_u64(index, 64), &byte);
                }
                Term::Array(arr)
            }
            Node::Store { array, index, value } => {
                Term::Array(self.array(array).store(&self.bv(index), &self.bv(value)))
            }
            Node::Select { array, index } => {
                let byte = self.array(array).select(&self.bv(index));
                Term::Bv(byte.as_bv().expect("arrays hold bytes"))
            }
        }
    }
}

fn bv_const(width: u32, value: u128) -> BV {
    if width <= 64 {
        BV::from_u64(value as u64, width)
    } else {
        BV::from_str(width, &value.to_string()).expect("a decimal numeral is a valid bit-vector constant")
    }
}
