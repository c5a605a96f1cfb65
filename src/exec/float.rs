//! Floating point in the executor. Concrete operands compute at once (`expr::float`, the one
//! definition of the semantics); a symbolic operand makes a `Node::Float` term, which the solver
//! decides in IEEE-754 theory, bit-exact with the native build. Sign operations (neg, fabs,
//! copysign) are bit operations on either.
//!
//! The operations of `Node::Float`: fadd..frem, fcmp, every conversion, sqrt,
//! floor/ceil/trunc/round/rint, fmin/fmax, fma, fmod. `llvm.fmuladd` (clang's
//! contraction of `a * b + c`) is a multiplication and an addition, each
//! rounded, as x86-64 without FMA computes it. libm functions without an exact
//! model (pow, exp, log, the trigonometric ones, cbrt, hypot...) concretise
//! their arguments (recorded) and call the host's glibc, which the native build
//! calls too. `long double` (x87) stays an unsupported type: a path that
//! computes on one ends, reported.

use crate::expr::float::{self, FBinOp, FKind, FUnary};
use crate::expr::{ExprId, FloatOp};

use super::executor::{Executor, Res};
use super::special::MathFn;
use super::state::ExecutionState;
use super::value::Value;

/// The operands' bits when every one is concrete: at most three, on the stack, since concrete
/// floats are the interpreter's hot path.
fn concrete_bits(args: &[Value]) -> Option<[u128; 3]> {
    let mut x = [0u128; 3];
    for (slot, v) in x.iter_mut().zip(args) {
        *slot = v.as_int()?;
    }
    Some(x)
}

impl Executor<'_> {
    /// `op` over scalar operands; `arg_width` is the first operand's width.
    pub(super) fn float_op(&mut self, op: FloatOp, arg_width: u32, args: &[Value]) -> Value {
        if let Some(x) = concrete_bits(args) {
            return Value::Int(op.eval(&x[..args.len()], arg_width));
        }
        let es: Vec<ExprId> = args.iter().map(|v| self.expr(v, arg_width)).collect();
        let e = self.pool.float(op, &es);
        self.value_of(e)
    }

    /// A sign operation: `concrete` on bits, `symbolic` on expressions.
    fn sign_op(
        &mut self,
        kind: FKind,
        args: &[Value],
        concrete: fn(FKind, &[u128]) -> u128,
        symbolic: fn(&mut crate::expr::ExprPool, FKind, &[ExprId]) -> ExprId,
    ) -> Value {
        if let Some(x) = concrete_bits(args) {
            return Value::Int(concrete(kind, &x[..args.len()]));
        }
        let es: Vec<ExprId> = args.iter().map(|v| self.expr(v, kind.width())).collect();
        let e = symbolic(&mut self.pool, kind, &es);
        self.value_of(e)
    }

    pub(super) fn fneg(&mut self, kind: FKind, a: &Value) -> Value {
        self.sign_op(kind, std::slice::from_ref(a), |k, x| float::neg(k, x[0]), |p, k, e| p.fneg(k, e[0]))
    }

    /// A libm function or the LLVM intrinsic of the same name.
    pub(super) fn math(
        &mut self,
        st: &mut ExecutionState,
        f: MathFn,
        kind: FKind,
        args: &[Value],
    ) -> Res<Value> {
        let w = kind.width();
        Ok(match f {
            MathFn::Unary(FUnary::Fabs) => self.sign_op(
                kind,
                &args[..1],
                |k, x| float::unary(FUnary::Fabs, k, x[0]),
                |p, k, e| p.fabs(k, e[0]),
            ),
            MathFn::CopySign => self.sign_op(
                kind,
                &args[..2],
                |k, x| float::copysign(k, x[0], x[1]),
                |p, k, e| p.copysign(k, e[0], e[1]),
            ),
            MathFn::Unary(op) => self.float_op(FloatOp::Unary(op, kind), w, &args[..1]),
            MathFn::Min => self.float_op(FloatOp::MinMax { max: false, kind }, w, &args[..2]),
            MathFn::Max => self.float_op(FloatOp::MinMax { max: true, kind }, w, &args[..2]),
            MathFn::Fma => self.float_op(FloatOp::Fma(kind), w, &args[..3]),
            MathFn::Rem => self.float_op(FloatOp::Bin(FBinOp::Rem, kind), w, &args[..2]),
            MathFn::Libm(g) => {
                let mut x = [0u128; 2];
                for (slot, v) in x.iter_mut().zip(&args[..g.arity()]) {
                    *slot = self.concretize(st, v, w, "argument of a libm function")?;
                }
                Value::Int(match kind {
                    FKind::F32 => {
                        u128::from(g.f32(f32::from_bits(x[0] as u32), f32::from_bits(x[1] as u32)).to_bits())
                    }
                    FKind::F64 => {
                        u128::from(g.f64(f64::from_bits(x[0] as u64), f64::from_bits(x[1] as u64)).to_bits())
                    }
                })
            }
        })
    }
}
