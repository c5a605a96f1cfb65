//! Concrete evaluation under an [`Assignment`].
//!
//! Unassigned bytes read 0; shared subterms are memoised.

use rustc_hash::FxHashMap;

use super::fold::{self, mask};
use super::{Assignment, ExprId, ExprPool, Node};

/// Evaluates many expressions under one assignment, sharing the values of common subexpressions.
pub struct Evaluator<'a> {
    pool: &'a ExprPool,
    assignment: &'a Assignment,
    values: FxHashMap<ExprId, u128>,
}

impl<'a> Evaluator<'a> {
    pub fn new(pool: &'a ExprPool, assignment: &'a Assignment) -> Self {
        Evaluator { pool, assignment, values: FxHashMap::default() }
    }

    /// The value of bit-vector expression `e`. Unassigned bytes and an unassigned revision read as 0.
    pub fn eval(&mut self, e: ExprId) -> u128 {
        if let Some(&v) = self.values.get(&e) {
            return v;
        }
        let pending = self.pool.pending_below(e, |x| self.values.contains_key(&x));
        for x in pending {
            if let Some(v) = self.compute(x) {
                self.values.insert(x, v);
            }
        }
        self.values[&e]
    }

    /// One node's value from its children's; `None` for array-sorted nodes.
    fn compute(&self, e: ExprId) -> Option<u128> {
        let p = self.pool;
        let v = |x: ExprId| self.values[&x];
        let w = p.width(e);
        Some(match *p.node(e) {
            Node::Const { value, .. } => value,
            Node::Revision => self.assignment.revision().unwrap_or(0) as u128,
            Node::Input { array, index } => self.assignment.byte(array, index) as u128,
            Node::Not(a) => !v(a) & mask(w),
            Node::Bin { op, lhs, rhs } => fold::binary(op, v(lhs), v(rhs), w),
            Node::Cmp { op, lhs, rhs } => fold::compare(op, v(lhs), v(rhs), p.width(lhs)) as u128,
            Node::Ite { cond, then, els } => {
                if v(cond) == 1 {
                    v(then)
                } else {
                    v(els)
                }
            }
            Node::Concat { hi, lo } => (v(hi) << p.width(lo)) | v(lo),
            Node::Extract { arg, offset, width } => (v(arg) >> offset) & mask(width),
            Node::ZExt { arg, .. } => v(arg),
            Node::SExt { arg, width } => fold::sext(v(arg), p.width(arg), width),
            Node::Select { array, index } => self.read_array(array, v(index)) as u128,
            Node::Float { op, a, b, c } => op.eval(&[v(a), v(b), v(c)][..op.arity()], p.width(a)),
            Node::ConstArray(_) | Node::InputArray(_) | Node::Store { .. } => return None,
        })
    }

    /// Byte `index` of array-sorted `array`, whose stores' operands are already evaluated.
    fn read_array(&self, mut array: ExprId, index: u128) -> u8 {
        loop {
            match *self.pool.node(array) {
                Node::Store { array: inner, index: i, value } => {
                    if self.values[&i] == index {
                        return self.values[&value] as u8;
                    }
                    array = inner;
                }
                Node::ConstArray(c) => {
                    let bytes = self.pool.const_array_bytes(c);
                    return usize::try_from(index).ok().and_then(|k| bytes.get(k)).copied().unwrap_or(0);
                }
                Node::InputArray(a) => {
                    return if index < self.pool.array_info(a).size as u128 {
                        self.assignment.byte(a, index as u64)
                    } else {
                        0
                    };
                }
                ref other => unreachable!("array-sorted term expected, found {other:?}"),
            }
        }
    }
}

impl ExprPool {
    /// The value of bit-vector expression `e` under `assignment` (unassigned bytes read as 0).
    pub fn eval(&self, e: ExprId, assignment: &Assignment) -> u128 {
        Evaluator::new(self, assignment).eval(e)
    }
}
