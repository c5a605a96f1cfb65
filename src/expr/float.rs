//! IEEE-754 binary32 and binary64 as clang's x86-64 code computes them (SSE, round to nearest even),
//! on the bits of the values. One definition serves the interpreter's concrete values, constant
//! folding, evaluation under a model and (mirrored in `solver::float`) the Z3 lowering, so that a
//! value is the same whichever of them computes it.
//!
//! NaNs are bit-exact too, because printf shows a NaN's sign (`-nan`): an operation with a NaN
//! operand returns its first NaN operand made quiet (SSE's rule; at -O0 clang keeps the C
//! operand order), and an invalid operation on numbers (0/0, inf - inf, sqrt(-1)) returns the
//! "default NaN" whose sign bit is set.
//!
//! Conversions to integers are `cvttsd2si`'s, as clang uses it (checked
//! natively): to 32 bits and narrower through the 32-bit form (0x80000000 out of
//! range), unsigned 32 through the 64-bit one, unsigned 64 as
//! `a | (b & a >>s 63)` of the conversions of `x` and `x - 2^63`. `FloatOp` names
//! the operations of `Node::Float`, whose operands and result are bit-vectors
//! (floats' bits, or integers where it converts). Not modelled bit for bit:
//! where instruction selection folds a negation into an addition (`a + -b` is
//! `a - b`, in contracted `a - b * c` too) the NaN it returns keeps the other
//! sign, and which zero `fmin`/`fmax` return of +0 and -0 LLVM leaves open.

use super::fold::{mask, to_signed};

/// The two formats computed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FKind {
    F32,
    F64,
}

impl FKind {
    pub fn of_width(w: u32) -> FKind {
        if w == 32 { FKind::F32 } else { FKind::F64 }
    }

    pub fn width(self) -> u32 {
        match self {
            FKind::F32 => 32,
            FKind::F64 => 64,
        }
    }

    /// Exponent bits.
    pub fn ebits(self) -> u32 {
        match self {
            FKind::F32 => 8,
            FKind::F64 => 11,
        }
    }

    /// Significand bits, the hidden one included (Z3's convention).
    pub fn sbits(self) -> u32 {
        self.width() - self.ebits()
    }

    pub fn sign_bit(self) -> u128 {
        1 << (self.width() - 1)
    }

    pub fn quiet_bit(self) -> u128 {
        1 << (self.sbits() - 2)
    }

    /// Every bit of the exponent field.
    pub fn exp_mask(self) -> u128 {
        mask(self.ebits()) << (self.sbits() - 1)
    }

    /// The NaN SSE returns for an invalid operation: quiet, sign set.
    pub fn default_nan(self) -> u128 {
        self.sign_bit() | self.exp_mask() | self.quiet_bit()
    }

    pub fn is_nan(self, bits: u128) -> bool {
        bits & self.exp_mask() == self.exp_mask() && bits & mask(self.sbits() - 1) != 0
    }

    pub fn to_f64(self, bits: u128) -> f64 {
        match self {
            FKind::F32 => f64::from(f32::from_bits(bits as u32)),
            FKind::F64 => f64::from_bits(bits as u64),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FBinOp {
    Add,
    Sub,
    Mul,
    Div,
    /// C's `fmod` (LLVM's `frem`): truncated, exact, with the sign of the dividend.
    Rem,
}

/// LLVM's fcmp predicates, numbered as LLVM numbers them: bit 0 "equal", bit 1 "greater", bit 2
/// "less", bit 3 "unordered" (so 1 is `oeq`, 14 `une`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FPred(pub u8);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FUnary {
    Fabs,
    Sqrt,
    Floor,
    Ceil,
    Trunc,
    /// Halfway cases away from zero (C's `round`).
    Round,
    /// Halfway cases to even (`rint`, `nearbyint`).
    Rint,
}

/// An operation of the expression DAG's `Node::Float`. Operands and result are bit-vectors: the
/// bits of floats of the operation's kind, or integers where the operation converts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FloatOp {
    Bin(FBinOp, FKind),
    /// `fmin`/`fmax` (LLVM's minnum/maxnum): a NaN operand yields the other operand.
    MinMax {
        max: bool,
        kind: FKind,
    },
    Fma(FKind),
    /// Never `Fabs`, which is a bit operation.
    Unary(FUnary, FKind),
    /// Width 1.
    Cmp(FPred, FKind),
    /// fptosi/fptoui to an integer of `width` ≤ 64 bits, as clang's x86-64 code converts.
    ToInt {
        signed: bool,
        from: FKind,
        width: u8,
    },
    /// sitofp/uitofp from an integer of the operand's width.
    FromInt {
        signed: bool,
        to: FKind,
    },
    /// fpext/fptrunc: `from` is the other kind.
    Convert {
        to: FKind,
    },
}

impl FloatOp {
    pub fn arity(self) -> usize {
        match self {
            FloatOp::Bin(..) | FloatOp::MinMax { .. } | FloatOp::Cmp(..) => 2,
            FloatOp::Fma(_) => 3,
            _ => 1,
        }
    }

    /// The result's width.
    pub fn width(self) -> u32 {
        match self {
            FloatOp::Cmp(..) => 1,
            FloatOp::ToInt { width, .. } => u32::from(width),
            FloatOp::Bin(_, k)
            | FloatOp::MinMax { kind: k, .. }
            | FloatOp::Fma(k)
            | FloatOp::Unary(_, k)
            | FloatOp::FromInt { to: k, .. }
            | FloatOp::Convert { to: k } => k.width(),
        }
    }

    pub fn name(self) -> String {
        let k = |k: FKind| if k == FKind::F32 { "f32" } else { "f64" };
        match self {
            FloatOp::Bin(op, kind) => format!("f{}.{}", format!("{op:?}").to_lowercase(), k(kind)),
            FloatOp::MinMax { max, kind } => format!("f{}.{}", if max { "max" } else { "min" }, k(kind)),
            FloatOp::Fma(kind) => format!("fma.{}", k(kind)),
            FloatOp::Unary(op, kind) => format!("{}.{}", format!("{op:?}").to_lowercase(), k(kind)),
            FloatOp::Cmp(p, kind) => format!("fcmp{}.{}", p.0, k(kind)),
            FloatOp::ToInt { signed, from, width } => {
                format!("fpto{}i{width}.{}", if signed { "s" } else { "u" }, k(from))
            }
            FloatOp::FromInt { signed, to } => format!("{}itofp.{}", if signed { "s" } else { "u" }, k(to)),
            FloatOp::Convert { to } => format!("fpconv.{}", k(to)),
        }
    }

    /// The operation on concrete operands; `arg_width` is the first operand's width.
    pub fn eval(self, args: &[u128], arg_width: u32) -> u128 {
        match self {
            FloatOp::Bin(op, kind) => bin(op, kind, args[0], args[1]),
            FloatOp::MinMax { max, kind } => minmax(max, kind, args[0], args[1]),
            FloatOp::Fma(kind) => fma(kind, args[0], args[1], args[2]),
            FloatOp::Unary(op, kind) => unary(op, kind, args[0]),
            FloatOp::Cmp(p, kind) => cmp(p, kind, args[0], args[1]) as u128,
            FloatOp::ToInt { signed, from, width } => to_int(signed, from, u32::from(width), args[0]),
            FloatOp::FromInt { signed, to } => from_int(signed, arg_width, to, args[0]),
            FloatOp::Convert { to } => convert(FKind::of_width(arg_width), to, args[0]),
        }
    }
}

/// SSE's NaN rule: the first NaN operand made quiet, else the default NaN where `result` is one.
fn nan_rule(kind: FKind, args: &[u128], result: u128) -> u128 {
    match args.iter().find(|&&a| kind.is_nan(a)) {
        Some(a) => a | kind.quiet_bit(),
        None if kind.is_nan(result) => kind.default_nan(),
        None => result,
    }
}

/// Applies a float operation at the precision of `kind`.
fn fmap(kind: FKind, bits: &[u128], f32op: impl Fn(&[f32]) -> f32, f64op: impl Fn(&[f64]) -> f64) -> u128 {
    let r = match kind {
        // At most three operands, on the stack: concrete floats are the interpreter's hot path.
        FKind::F32 => {
            let mut xs = [0f32; 3];
            for (x, &b) in xs.iter_mut().zip(bits) {
                *x = f32::from_bits(b as u32);
            }
            u128::from(f32op(&xs[..bits.len()]).to_bits())
        }
        FKind::F64 => {
            let mut xs = [0f64; 3];
            for (x, &b) in xs.iter_mut().zip(bits) {
                *x = f64::from_bits(b as u64);
            }
            u128::from(f64op(&xs[..bits.len()]).to_bits())
        }
    };
    nan_rule(kind, bits, r)
}

pub fn bin(op: FBinOp, kind: FKind, a: u128, b: u128) -> u128 {
    macro_rules! apply {
        ($x:expr) => {
            match op {
                FBinOp::Add => $x[0] + $x[1],
                FBinOp::Sub => $x[0] - $x[1],
                FBinOp::Mul => $x[0] * $x[1],
                FBinOp::Div => $x[0] / $x[1],
                FBinOp::Rem => $x[0] % $x[1],
            }
        };
    }
    fmap(kind, &[a, b], |x| apply!(x), |x| apply!(x))
}

pub fn neg(kind: FKind, a: u128) -> u128 {
    a ^ kind.sign_bit()
}

pub fn copysign(kind: FKind, a: u128, b: u128) -> u128 {
    (a & !kind.sign_bit()) | (b & kind.sign_bit())
}

pub fn cmp(p: FPred, kind: FKind, a: u128, b: u128) -> bool {
    let (x, y) = (kind.to_f64(a), kind.to_f64(b));
    if x.is_nan() || y.is_nan() {
        return p.0 & 8 != 0;
    }
    (x == y && p.0 & 1 != 0) || (x > y && p.0 & 2 != 0) || (x < y && p.0 & 4 != 0)
}

pub fn unary(op: FUnary, kind: FKind, a: u128) -> u128 {
    if op == FUnary::Fabs {
        return a & !kind.sign_bit();
    }
    macro_rules! apply {
        ($x:expr) => {
            match op {
                FUnary::Fabs => $x[0].abs(),
                FUnary::Sqrt => $x[0].sqrt(),
                FUnary::Floor => $x[0].floor(),
                FUnary::Ceil => $x[0].ceil(),
                FUnary::Trunc => $x[0].trunc(),
                FUnary::Round => $x[0].round(),
                FUnary::Rint => $x[0].round_ties_even(),
            }
        };
    }
    fmap(kind, &[a], |x| apply!(x), |x| apply!(x))
}

pub fn fma(kind: FKind, a: u128, b: u128, c: u128) -> u128 {
    fmap(kind, &[a, b, c], |x| x[0].mul_add(x[1], x[2]), |x| x[0].mul_add(x[1], x[2]))
}

/// minnum/maxnum as LLVM lowers them for x86: a NaN operand yields the other one (unchanged), and
/// of two equal operands (±0 included) the first.
pub fn minmax(max: bool, kind: FKind, a: u128, b: u128) -> u128 {
    let (x, y) = (kind.to_f64(a), kind.to_f64(b));
    let first = if x.is_nan() {
        false
    } else if y.is_nan() {
        true
    } else if max {
        x >= y
    } else {
        x <= y
    };
    if first { a } else { b }
}

/// `cvttsd2si` to `bits` (32 or 64) bits: truncation, with the "integer indefinite" value (the
/// sign bit alone) for NaN and out-of-range inputs.
fn cvtt(x: f64, bits: u32) -> u128 {
    let lim = 2f64.powi(bits as i32 - 1);
    if x.is_nan() || x >= lim || x < -lim {
        1u128 << (bits - 1)
    } else {
        (x.trunc() as i128 as u128) & mask(bits)
    }
}

/// fptosi/fptoui as clang's x86-64 code performs them (checked natively at -O0 and -O2): to 32
/// bits signed and narrower (unsigned too) through the 32-bit instruction, to 32 bits unsigned
/// through the 64-bit one, then truncated; unsigned 64 as `a | (b & (a >>s 63))` of the conversions `a` of `x` and `b`
/// of `x - 2^63`.
pub fn to_int(signed: bool, from: FKind, to: u32, v: u128) -> u128 {
    let x = from.to_f64(v);
    let r = match (signed, to) {
        (true, 0..=32) | (false, 0..=31) => cvtt(x, 32),
        (true, 33..=64) | (false, 32) => cvtt(x, 64),
        (false, 33..=64) => {
            let a = cvtt(x, 64);
            let b = cvtt(x - 2f64.powi(63), 64);
            if a >> 63 == 1 { a | b } else { a }
        }
        (true, _) => x as i128 as u128,
        (false, _) => x as u128,
    };
    r & mask(to)
}

/// sitofp/uitofp, correctly rounded (as `cvtsi2sd` and clang's unsigned sequences are).
pub fn from_int(signed: bool, from: u32, to: FKind, v: u128) -> u128 {
    match (signed, to) {
        (true, FKind::F32) => u128::from((to_signed(v, from) as f32).to_bits()),
        (true, FKind::F64) => u128::from((to_signed(v, from) as f64).to_bits()),
        (false, FKind::F32) => u128::from((v as f32).to_bits()),
        (false, FKind::F64) => u128::from((v as f64).to_bits()),
    }
}

/// fpext and fptrunc (`cvtss2sd`, `cvtsd2ss`): a NaN keeps its sign and the top of its payload,
/// made quiet.
pub fn convert(from: FKind, to: FKind, v: u128) -> u128 {
    if from == to {
        return v;
    }
    if from.is_nan(v) {
        let sign = v & from.sign_bit() != 0;
        let payload = v & mask(from.sbits() - 1);
        let shift = FKind::F64.sbits() - FKind::F32.sbits();
        let payload = if to == FKind::F64 { payload << shift } else { payload >> shift };
        return if sign { to.sign_bit() } else { 0 } | to.exp_mask() | to.quiet_bit() | payload;
    }
    match to {
        FKind::F32 => u128::from((from.to_f64(v) as f32).to_bits()),
        FKind::F64 => u128::from(from.to_f64(v).to_bits()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nans_follow_sse() {
        let d = |x: f64| u128::from(x.to_bits());
        let default = FKind::F64.default_nan();
        assert_eq!(default as u64, 0xfff8_0000_0000_0000);
        assert_eq!(bin(FBinOp::Div, FKind::F64, d(0.0), d(0.0)), default);
        assert_eq!(unary(FUnary::Sqrt, FKind::F64, d(-1.0)), default);
        let snan = 0x7ff0_0000_0000_0001u128;
        let qnan = 0xfff0_0000_0000_0002u128 | FKind::F64.quiet_bit();
        assert_eq!(bin(FBinOp::Add, FKind::F64, d(1.0), snan), snan | FKind::F64.quiet_bit());
        assert_eq!(bin(FBinOp::Mul, FKind::F64, qnan, snan), qnan);
        assert_eq!(convert(FKind::F64, FKind::F32, default), FKind::F32.default_nan());
        assert_eq!(convert(FKind::F32, FKind::F64, FKind::F32.default_nan()), default);
        assert_eq!(to_int(true, FKind::F64, 32, d(f64::NAN)), 1 << 31);
        assert_eq!(to_int(true, FKind::F64, 16, d(3.3e12)), 0);
        assert_eq!(to_int(false, FKind::F64, 8, d(5.1e9)), 0);
        assert_eq!(to_int(false, FKind::F64, 32, d(3320009719825.9)), 17);
        assert_eq!(to_int(false, FKind::F64, 64, d(f64::NAN)), 1 << 63);
        assert_eq!(to_int(false, FKind::F64, 64, d(-1.0)), u128::from(u64::MAX));
        assert_eq!(to_int(true, FKind::F64, 64, d(1e300)), 1 << 63);
        assert_eq!(to_int(false, FKind::F64, 64, d(1.5e19)), 15_000_000_000_000_000_000);
    }
}
