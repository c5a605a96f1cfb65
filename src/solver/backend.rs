//! The last layer: lowering to Z3 and checking.
//!
//! Lowering is memoised for the solver's lifetime (the thread-local Z3 context keeps the terms alive).
//! Width-1 comparisons and boolean connectives become Z3 `Bool`s; everything else is a bit-vector, and
//! the two convert only where the other is needed. Input bytes read at constant indices are plain 8-bit
//! constants named like `x[3]`; a symbolic-index read of an array-sorted term becomes an if-then-else chain
//! over those constants and the stores (see `select_chain`), so queries never need array theory.
//! A division or remainder by a constant becomes a fresh quotient and remainder with a linear
//! definition (see `division`), which every query that reaches it asserts.
//!
//! Every query is `QF_BV`, or `QF_FPBV` where floats are (`float.rs`; `z3-sys`
//! directly for the two conversions the `z3` crate does not wrap). The
//! division's definition is `x = q*c + r`, computed wide, with `r` within the
//! divisor and of the sign of `x`: Z3 bit-blasts `bvsdiv` into a full divider.
//! (`benches/README.md` has the figures behind the chains and the divisions.)

use std::time::{Duration, Instant};

use rustc_hash::{FxHashMap, FxHashSet};
use z3::ast::{BV, Bool};
use z3::{Params, SatResult};

use super::query_log::QueryLog;
use super::{Lit, SolverError, Var};
use crate::expr::fold::{is_negative, mask, to_signed};
use crate::expr::{ArrayId, Assignment, BinOp, CmpOp, ExprId, ExprPool, Node};

/// A lowered expression, in its natural sort.
#[derive(Clone)]
pub(super) enum Term {
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
    divisions: FxHashMap<DivKey, Division>,
    /// Lower divisions by constants as Z3's own operators: for proving the simplifier against
    /// a reference built from those, apart from the encoding (which has its own test).
    pub(super) plain_divisions: bool,
    /// Slow calls written out, to time other solvers on them apart from a run (`query_log`).
    pub(super) log: Option<QueryLog>,
}

/// A division by a constant: signed or not, the dividend, the divisor.
type DivKey = (bool, ExprId, u128);

/// The quotient and remainder of one division by a constant, and the constraint that defines them.
struct Division {
    quotient: BV,
    remainder: BV,
    definition: Bool,
}

/// Terms kept before the memo is dropped, to bound memory on long runs.
const MAX_TERMS: usize = 1 << 21;

impl Z3Backend {
    pub fn clear(&mut self) {
        *self = Self { plain_divisions: self.plain_divisions, log: self.log.take(), ..Self::default() };
    }

    /// Whether the conjunction of `lits` is satisfiable; with a model over `vars` if it is.
    pub fn check(&mut self, pool: &ExprPool, lits: &[Lit], vars: &[Var], timeout: Duration) -> Checked {
        if self.terms.len() > MAX_TERMS {
            self.terms.clear();
            self.divisions.clear();
        }
        let start = Instant::now();
        // Arrays become if-then-else chains, so every query is QF_BV (QF_FPBV with floats): Z3 goes
        // straight to bit-blasting.
        let floats = lits.iter().any(|lit| pool.mentions_float(lit.expr));
        let logic = if floats { "QF_FPBV" } else { "QF_BV" };
        let solver = z3::Solver::new_for_logic(logic).unwrap_or_default();
        let mut params = Params::new();
        params.set_u32("timeout", u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX).max(1));
        // Z3 takes SIGINT for itself while it checks (and cancels the query):
        // a Ctrl-C then never reached psychic's handler, and the run went on.
        params.set_bool("ctrl_c", false);
        solver.set_params(&params);
        for lit in lits {
            self.lower(pool, lit.expr);
            let b = self.boolean(lit.expr);
            solver.assert(if lit.negated { b.not() } else { b });
        }
        for definition in self.definitions(pool, lits.iter().map(|lit| lit.expr)) {
            solver.assert(definition);
        }
        let call = Instant::now();
        let result = solver.check();
        let took = call.elapsed();
        let reason = match result {
            SatResult::Unknown => solver.get_reason_unknown().unwrap_or_default(),
            _ => String::new(),
        };
        let timed_out = reason.contains("timeout") || reason.contains("canceled");
        if let Some(log) = &self.log
            && log.wants(took)
        {
            let answer = match result {
                SatResult::Sat => "sat",
                SatResult::Unsat => "unsat",
                SatResult::Unknown if timed_out => "timeout",
                SatResult::Unknown => "unknown",
            };
            log.write(logic, &solver.to_smt2(), answer, took, timeout);
        }
        let model = match result {
            SatResult::Unsat => Ok(None),
            SatResult::Sat => match solver.get_model() {
                Some(model) => Ok(Some(self.read_model(pool, &model, vars))),
                None => Err(SolverError::Unknown("Z3 gave no model for a satisfiable query".into())),
            },
            SatResult::Unknown if timed_out => Err(SolverError::Timeout),
            SatResult::Unknown => Err(SolverError::Unknown(reason)),
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

    /// The definitions of the divisions by constants below `roots` (lowered already).
    pub(super) fn definitions(&self, pool: &ExprPool, roots: impl IntoIterator<Item = ExprId>) -> Vec<Bool> {
        if self.divisions.is_empty() {
            return Vec::new();
        }
        let (mut seen, mut keys) = (FxHashSet::default(), FxHashSet::default());
        let mut out = Vec::new();
        for root in roots {
            for e in pool.pending_below(root, |e| seen.contains(&e)) {
                seen.insert(e);
                if let Some(key) = div_key(pool, e)
                    && keys.insert(key)
                {
                    out.push(self.divisions[&key].definition.clone());
                }
            }
        }
        out
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
            Node::Bin { op, .. }
                if !self.plain_divisions
                    && let Some(key) = div_key(pool, e) =>
            {
                let d = self.division(pool, key);
                Term::Bv(if matches!(op, BinOp::SDiv | BinOp::UDiv) {
                    d.quotient.clone()
                } else {
                    d.remainder.clone()
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
            Node::Float { op, a, b, c } => self.lower_float(pool, op, [a, b, c]),
            Node::ConstArray(_) | Node::InputArray(_) | Node::Store { .. } => {
                unreachable!("array-sorted terms are lowered only through their selects")
            }
        }
    }

    /// `x / c` and `x % c` as fresh constants `q` and `r` with `x = q * c + r`, computed wide enough
    /// not to wrap, and `r` between the divisor's bounds with the sign of `x` (C's truncation).
    /// Z3 4.8 bit-blasts `bvsdiv` into a full divider; a multiplication by a constant is a few adders.
    /// On the digits program's 43 slowest queries (chains of `/ 10` and `% 10`) Z3 took 5.4 s instead
    /// of 32 s; stating the quotient's sign too (redundant, but the SAT solver would have to derive
    /// it through the multiplication) halved the median query again. Exact, and satisfiable for
    /// every `x`: `tests::division_by_a_constant_is_defined_exactly` proves both at 8 bits and checks
    /// them on sampled dividends wider.
    fn division(&mut self, pool: &ExprPool, key: DivKey) -> &Division {
        if !self.divisions.contains_key(&key) {
            let (signed, lhs, c) = key;
            let w = pool.width(lhs);
            let magnitude = if signed { to_signed(c, w).unsigned_abs() } else { c };
            let k = 129 - magnitude.leading_zeros();
            let ext = |bv: &BV| if signed { bv.sign_ext(k) } else { bv.zero_ext(k) };
            let (quotient, remainder) = (BV::fresh_const("q", w), BV::fresh_const("r", w));
            let x = self.bv(lhs);
            let (wide_r, bound) = (ext(&remainder), bv_const(w + k, magnitude));
            let exact = ext(&x).eq(ext(&quotient).bvmul(ext(&bv_const(w, c))).bvadd(&wide_r));
            let in_range = if signed {
                let (zero, wide_zero) = (BV::from_u64(0, w), BV::from_u64(0, w + k));
                let (q_up, q_down) = (quotient.bvsge(&zero), quotient.bvsle(&zero));
                let (q_if_nonneg, q_if_neg) = if is_negative(c, w) { (q_down, q_up) } else { (q_up, q_down) };
                let nonneg = Bool::and(&[wide_r.bvsge(&wide_zero), wide_r.bvslt(&bound), q_if_nonneg]);
                let neg = Bool::and(&[wide_r.bvsle(&wide_zero), wide_r.bvsgt(bound.bvneg()), q_if_neg]);
                x.bvsge(&zero).ite(&nonneg, &neg)
            } else {
                wide_r.bvult(&bound)
            };
            let definition = Bool::and(&[exact, in_range]);
            self.divisions.insert(key, Division { quotient, remainder, definition });
        }
        &self.divisions[&key]
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

/// The key of a division or remainder by a constant that `division` encodes: not by 0, 1 or -1
/// (folded or left to Z3), nor unsigned by a power of two (already a shift or mask).
fn div_key(pool: &ExprPool, e: ExprId) -> Option<DivKey> {
    let Node::Bin { op, lhs, rhs } = *pool.node(e) else { return None };
    let signed = match op {
        BinOp::SDiv | BinOp::SRem => true,
        BinOp::UDiv | BinOp::URem => false,
        _ => return None,
    };
    let Node::Const { value: c, width } = *pool.node(rhs) else { return None };
    let trivial = c <= 1 || (signed && c == mask(width)) || (!signed && c.is_power_of_two());
    (!trivial).then_some((signed, lhs, c))
}

pub(super) fn bv_const(width: u32, value: u128) -> BV {
    if width <= 64 {
        BV::from_u64(value as u64, width)
    } else {
        BV::from_str(width, &value.to_string()).expect("a decimal numeral is a valid bit-vector constant")
    }
}
