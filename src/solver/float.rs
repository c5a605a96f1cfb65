//! Lowering of `Node::Float` to Z3's floating-point theory, mirroring `expr::float` (the
//! semantics' one definition) case by case; `tests::float_lowering_matches_evaluation` checks the
//! two against each other on boundary values.
//!
//! Terms stay bit-vectors between operations: an operand is read as a float (`to_fp` of its
//! bits), and a result is written back as bits. Z3 leaves the bits of a NaN unspecified, so every
//! result that can be a NaN is chosen explicitly by SSE's rule (first NaN operand made quiet, else
//! the default NaN), never by `to_ieee_bv`.

use z3::ast::{Ast, BV, Bool, Float, RoundingMode};
use z3::{Context, Sort};

use super::backend::{Term, Z3Backend, bv_const};
use crate::expr::float::{FBinOp, FKind, FUnary, FloatOp};
use crate::expr::{ExprId, ExprPool};

fn sort(kind: FKind) -> Sort {
    Sort::float(kind.ebits(), kind.sbits())
}

/// The float whose IEEE bits are `bits`.
fn from_bits(bits: &BV, kind: FKind) -> Float {
    let ctx = Context::thread_local();
    // SAFETY: both handles come from the thread-local context that `wrap` is given.
    unsafe {
        let ast =
            z3_sys::Z3_mk_fpa_to_fp_bv(ctx.get_z3_context(), bits.get_z3_ast(), sort(kind).get_z3_sort())
                .expect("Z3 makes a float of a bit-vector of the format's width");
        Float::wrap(&ctx, ast)
    }
}

/// The integer `bits` (signed or not) rounded to nearest even.
fn from_int(bits: &BV, signed: bool, kind: FKind) -> Float {
    let ctx = Context::thread_local();
    let rne = RoundingMode::round_nearest_ties_to_even();
    let f = if signed { z3_sys::Z3_mk_fpa_to_fp_signed } else { z3_sys::Z3_mk_fpa_to_fp_unsigned };
    // SAFETY: as in `from_bits`.
    unsafe {
        let ast = f(ctx.get_z3_context(), rne.get_z3_ast(), bits.get_z3_ast(), sort(kind).get_z3_sort())
            .expect("Z3 converts a bit-vector integer to a float");
        Float::wrap(&ctx, ast)
    }
}

fn constant(x: f64, kind: FKind) -> Float {
    from_bits(
        &bv_const(kind.width(), crate::expr::float::convert(FKind::F64, kind, u128::from(x.to_bits()))),
        kind,
    )
}

fn rne() -> RoundingMode {
    RoundingMode::round_nearest_ties_to_even()
}

/// `r` as bits, by SSE's NaN rule over the operands `args`.
fn nan_rule(kind: FKind, args: &[BV], r: &Float) -> BV {
    let default = bv_const(kind.width(), kind.default_nan());
    let mut out = r.is_nan().ite(&default, &r.to_ieee_bv());
    for a in args.iter().rev() {
        let quiet = a.bvor(bv_const(kind.width(), kind.quiet_bit()));
        out = from_bits(a, kind).is_nan().ite(&quiet, &out);
    }
    out
}

/// `cvttsd2si` to `bits` bits (see `expr::float::to_int`); `x` is a double.
fn cvtt(x: &Float, bits: u32) -> BV {
    let lim = constant(2f64.powi(bits as i32 - 1), FKind::F64);
    let out = Bool::or(&[x.is_nan(), x.ge(&lim), x.lt(lim.unary_neg())]);
    out.ite(
        &bv_const(bits, 1 << (bits - 1)),
        &x.to_sbv_with_rounding_mode(&RoundingMode::round_towards_zero(), bits),
    )
}

impl Z3Backend {
    pub(super) fn lower_float(&mut self, pool: &ExprPool, op: FloatOp, args: [ExprId; 3]) -> Term {
        let bvs: Vec<BV> = args[..op.arity()].iter().map(|&a| self.bv(a)).collect();
        let arg_kind = FKind::of_width(pool.width(args[0]));
        let xs: Vec<Float> = bvs.iter().map(|b| from_bits(b, arg_kind)).collect();
        Term::Bv(match op {
            FloatOp::Bin(FBinOp::Rem, kind) => {
                // fmod from IEEE's remainder: where that has the other sign than the dividend,
                // one divisor (with the dividend's sign) more is exact, as fmod is.
                let (x, y) = (&xs[0], &xs[1]);
                let r = x.rem(y);
                let y_signed = from_bits(&copysign_bits(kind, &bvs[1], &bvs[0]), kind);
                let adjusted = r.add_with_rounding_mode(&y_signed, &rne());
                let keep = Bool::or(&[r.is_zero(), r.is_negative().eq(x.is_negative())]);
                let zero = from_bits(&copysign_bits(kind, &bv_const(kind.width(), 0), &bvs[0]), kind);
                let f = r.is_zero().ite(&zero, &keep.ite(&r, &adjusted));
                nan_rule(kind, &bvs, &f)
            }
            FloatOp::Bin(bin, kind) => {
                let (x, y) = (&xs[0], &xs[1]);
                let r = match bin {
                    FBinOp::Add => x.add_with_rounding_mode(y, &rne()),
                    FBinOp::Sub => x.sub_with_rounding_mode(y, &rne()),
                    FBinOp::Mul => x.mul_with_rounding_mode(y, &rne()),
                    FBinOp::Div | FBinOp::Rem => x.div_with_rounding_mode(y, &rne()),
                };
                nan_rule(kind, &bvs, &r)
            }
            FloatOp::MinMax { max, .. } => {
                let (x, y) = (&xs[0], &xs[1]);
                let first = if max { x.ge(y) } else { x.le(y) };
                let pick = first.ite(&bvs[0], &bvs[1]);
                x.is_nan().ite(&bvs[1], &y.is_nan().ite(&bvs[0], &pick))
            }
            FloatOp::Fma(kind) => nan_rule(kind, &bvs, &xs[0].fma_with_rounding_mode(&xs[1], &xs[2], &rne())),
            FloatOp::Unary(u, kind) => {
                let x = &xs[0];
                let r = match u {
                    FUnary::Fabs => x.unary_abs(),
                    FUnary::Sqrt => x.sqrt_with_rounding_mode(&rne()),
                    FUnary::Floor => {
                        x.round_to_integral_with_rounding_mode(&RoundingMode::round_towards_negative())
                    }
                    FUnary::Ceil => {
                        x.round_to_integral_with_rounding_mode(&RoundingMode::round_towards_positive())
                    }
                    FUnary::Trunc => {
                        x.round_to_integral_with_rounding_mode(&RoundingMode::round_towards_zero())
                    }
                    FUnary::Round => {
                        x.round_to_integral_with_rounding_mode(&RoundingMode::round_nearest_ties_to_away())
                    }
                    FUnary::Rint => x.round_to_integral_with_rounding_mode(&rne()),
                };
                nan_rule(kind, &bvs, &r)
            }
            FloatOp::Cmp(p, _) => {
                let (x, y) = (&xs[0], &xs[1]);
                let unordered = Bool::or(&[x.is_nan(), y.is_nan()]);
                let mut ordered = Vec::new();
                for (bit, holds) in [(1, x.eq_fpa(y)), (2, x.gt(y)), (4, x.lt(y))] {
                    if p.0 & bit != 0 {
                        ordered.push(holds);
                    }
                }
                let ordered = Bool::and(&[unordered.not(), Bool::or(&ordered)]);
                let b = if p.0 & 8 != 0 { Bool::or(&[unordered, ordered]) } else { ordered };
                return Term::Bool(b);
            }
            FloatOp::ToInt { signed, width, .. } => {
                let x = match arg_kind {
                    FKind::F64 => xs[0].clone(),
                    FKind::F32 => xs[0].to_fp_with_rounding_mode(&rne(), &sort(FKind::F64)),
                };
                let v = match (signed, width) {
                    (true, 0..=32) | (false, 0..=31) => cvtt(&x, 32),
                    (true, _) | (false, 32) => cvtt(&x, 64),
                    (false, _) => {
                        let a = cvtt(&x, 64);
                        let two63 = constant(2f64.powi(63), FKind::F64);
                        let b = cvtt(&x.sub_with_rounding_mode(&two63, &rne()), 64);
                        let negative = a.extract(63, 63).eq(bv_const(1, 1));
                        negative.ite(&a.bvor(&b), &a)
                    }
                };
                v.extract(u32::from(width) - 1, 0)
            }
            FloatOp::FromInt { signed, to } => from_int(&bvs[0], signed, to).to_ieee_bv(),
            FloatOp::Convert { to } => {
                let from = arg_kind;
                let a = &bvs[0];
                let sign = a.extract(from.width() - 1, from.width() - 1);
                let top = from.sbits() - 2;
                let nan = match to {
                    FKind::F64 => {
                        sign.concat(bv_const(12, 0xfff)).concat(a.extract(top - 1, 0)).concat(bv_const(29, 0))
                    }
                    FKind::F32 => sign.concat(bv_const(9, 0x1ff)).concat(a.extract(top - 1, 29)),
                };
                let r = xs[0].to_fp_with_rounding_mode(&rne(), &sort(to)).to_ieee_bv();
                xs[0].is_nan().ite(&nan, &r)
            }
        })
    }
}

/// `a` with the sign of `b`, on bits.
fn copysign_bits(kind: FKind, a: &BV, b: &BV) -> BV {
    let sign = bv_const(kind.width(), kind.sign_bit());
    a.bvand(sign.bvnot()).bvor(b.bvand(&sign))
}
