//! Builders of floating-point expressions. Sign operations (neg, abs, copysign) are bit operations
//! and need no float node; the rest fold when every operand is constant.

use super::float::{FBinOp, FKind, FloatOp};
use super::{ExprId, ExprPool, Node};

impl ExprPool {
    /// `op` over `args` (as many as its arity).
    pub fn float(&mut self, op: FloatOp, args: &[ExprId]) -> ExprId {
        assert_eq!(args.len(), op.arity(), "{} takes {} operands", op.name(), op.arity());
        let values: Option<Vec<u128>> = args.iter().map(|&a| self.as_const(a)).collect();
        if let Some(values) = values {
            let v = op.eval(&values, self.width(args[0]));
            return self.constant(op.width(), v);
        }
        let mut a = args[0];
        let (mut b, c) = (args.get(1).copied().unwrap_or(a), args.get(2).copied().unwrap_or(a));
        // A commutative operation with one constant operand that is not a NaN takes it first:
        // the operands' order decides only which of two NaNs is returned, so `c * 9` and `9 * c`
        // are one node (revisions that write them apart compare without a query).
        if let FloatOp::Bin(FBinOp::Add | FBinOp::Mul, kind) = op
            && let Some(k) = self.as_const(b)
            && !kind.is_nan(k)
        {
            std::mem::swap(&mut a, &mut b);
        }
        self.intern(Node::Float { op, a, b, c })
    }

    pub fn fneg(&mut self, kind: FKind, a: ExprId) -> ExprId {
        let sign = self.constant(kind.width(), kind.sign_bit());
        self.xor(a, sign)
    }

    pub fn fabs(&mut self, kind: FKind, a: ExprId) -> ExprId {
        let rest = self.constant(kind.width(), kind.sign_bit() - 1);
        self.and(a, rest)
    }

    pub fn copysign(&mut self, kind: FKind, a: ExprId, b: ExprId) -> ExprId {
        let magnitude = self.fabs(kind, a);
        let bit = self.constant(kind.width(), kind.sign_bit());
        let sign = self.and(b, bit);
        self.or(magnitude, sign)
    }
}
