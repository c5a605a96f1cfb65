//! Register values and the concrete semantics of LLVM's operations.
//!
//! A concrete value stays a plain integer: no expression is built for it.
//! Floats are carried as their IEEE bits. Only symbolic values are
//! [`ExprId`]s. Concrete arithmetic follows what x86-64 code compiled by
//! clang does, so that the engine agrees with the native binary.
//!
//! `Value` is `Int(u128)` (concrete), `Sym(ExprId)` (symbolic), `Agg` for
//! structs, arrays and vectors, and `Wide` for concrete integers wider than 128
//! bits, which packed bit-fields produce. Shift counts are masked and
//! INT_MIN / -1 traps, as on x86-64; float semantics are `expr::float`'s.

use std::rc::Rc;

use num_bigint::{BigInt, BigUint};

use crate::expr::float::{self, FKind};
use crate::expr::fold::{self, mask};
use crate::expr::{BinOp as EBin, ExprId};
use crate::ir::{BinOp, BitOp, CastOp, IPred, MinMax, OverflowOp, SatOp};

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A concrete integer, pointer or float (bits), masked to its width.
    Int(u128),
    /// A symbolic bit-vector.
    Sym(ExprId),
    /// A concrete integer wider than 128 bits (masked to its width).
    Wide(Rc<BigUint>),
    /// A struct, array or vector, element by element.
    Agg(Rc<[Value]>),
}

impl Value {
    pub fn as_int(&self) -> Option<u128> {
        match self {
            Value::Int(v) => Some(*v),
            _ => None,
        }
    }

    pub fn is_symbolic(&self) -> bool {
        match self {
            Value::Int(_) | Value::Wide(_) => false,
            Value::Sym(_) => true,
            Value::Agg(v) => v.iter().any(Value::is_symbolic),
        }
    }
}

/// One byte of memory or of a value's in-memory image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Byte {
    C(u8),
    S(ExprId),
}

impl From<u8> for Byte {
    fn from(b: u8) -> Byte {
        Byte::C(b)
    }
}

pub fn to_signed(v: u128, w: u32) -> i128 {
    fold::to_signed(v, w)
}

pub fn ebin(op: BinOp) -> EBin {
    match op {
        BinOp::Add => EBin::Add,
        BinOp::Sub => EBin::Sub,
        BinOp::Mul => EBin::Mul,
        BinOp::UDiv => EBin::UDiv,
        BinOp::SDiv => EBin::SDiv,
        BinOp::URem => EBin::URem,
        BinOp::SRem => EBin::SRem,
        BinOp::Shl => EBin::Shl,
        BinOp::LShr => EBin::LShr,
        BinOp::AShr => EBin::AShr,
        BinOp::And => EBin::And,
        BinOp::Or => EBin::Or,
        BinOp::Xor => EBin::Xor,
    }
}

/// What x86-64 does with a shift count: the hardware masks it to 5 bits
/// for 8..32-bit operands and 6 bits for 64-bit ones (LLVM says poison).
pub fn x86_shift_count(amount: u128, w: u32) -> u128 {
    match w {
        0..=32 => amount & 31,
        33..=64 => amount & 63,
        _ => amount & 127,
    }
}

/// Why a concrete division cannot proceed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DivError {
    ByZero,
    /// INT_MIN / -1, which traps (SIGFPE) on x86-64.
    Overflow,
}

/// A concrete integer binop; shifts take the count as is (already masked or
/// checked by the caller); a shift by the width or more gives 0 (or the sign).
pub fn bin(op: BinOp, w: u32, a: u128, b: u128) -> Result<u128, DivError> {
    match op {
        BinOp::UDiv | BinOp::URem | BinOp::SDiv | BinOp::SRem if b == 0 => Err(DivError::ByZero),
        BinOp::SDiv | BinOp::SRem if a == fold::signed_min(w) && b == mask(w) && w > 1 => {
            Err(DivError::Overflow)
        }
        BinOp::Shl | BinOp::LShr | BinOp::AShr if b >= u128::from(w) => Ok(match op {
            BinOp::AShr if fold::is_negative(a, w) => mask(w),
            _ => 0,
        }),
        _ => Ok(fold::binary(ebin(op), a, b, w)),
    }
}

pub fn icmp(p: IPred, w: u32, a: u128, b: u128) -> bool {
    holds(p, &a, &b, &to_signed(a, w), &to_signed(b, w))
}

/// Whether `a p b`, given the operands read unsigned and signed.
fn holds<U: Ord, S: Ord>(p: IPred, a: &U, b: &U, sa: &S, sb: &S) -> bool {
    match p {
        IPred::Eq => a == b,
        IPred::Ne => a != b,
        IPred::Ugt => a > b,
        IPred::Uge => a >= b,
        IPred::Ult => a < b,
        IPred::Ule => a <= b,
        IPred::Sgt => sa > sb,
        IPred::Sge => sa >= sb,
        IPred::Slt => sa < sb,
        IPred::Sle => sa <= sb,
    }
}

// Integers wider than 128 bits: concrete only.

/// A concrete integer of any width as a big number.
pub fn to_big(v: &Value) -> Option<BigUint> {
    match v {
        Value::Int(x) => Some(BigUint::from(*x)),
        Value::Wide(b) => Some((**b).clone()),
        _ => None,
    }
}

fn big_mask(w: u32) -> BigUint {
    (BigUint::from(1u8) << w) - 1u8
}

fn big_signed(a: &BigUint, w: u32) -> BigInt {
    if a.bit(u64::from(w) - 1) {
        BigInt::from(a.clone()) - (BigInt::from(1u8) << w)
    } else {
        BigInt::from(a.clone())
    }
}

fn big_unsigned(a: BigInt, w: u32) -> BigUint {
    let m = BigInt::from(1u8) << w;
    (((a % &m) + &m) % &m).to_biguint().unwrap_or_default()
}

/// A value of `w` bits: `Int` up to 128 bits, `Wide` above.
pub fn big_value(b: BigUint, w: u32) -> Value {
    let b = b & big_mask(w);
    if w <= 128 {
        let d = b.to_u64_digits();
        Value::Int(
            u128::from(d.first().copied().unwrap_or(0)) | u128::from(d.get(1).copied().unwrap_or(0)) << 64,
        )
    } else {
        Value::Wide(Rc::new(b))
    }
}

pub fn wide_bin(op: BinOp, w: u32, a: &BigUint, b: &BigUint) -> Result<Value, DivError> {
    let zero = BigUint::ZERO;
    let width = BigUint::from(w);
    let r = match op {
        BinOp::Add => a + b,
        BinOp::Sub => (a + (BigUint::from(1u8) << w)) - b,
        BinOp::Mul => a * b,
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl if *b >= width => zero,
        BinOp::Shl => a << u32::try_from(b).unwrap_or(0),
        BinOp::LShr if *b >= width => zero,
        BinOp::LShr => a >> u32::try_from(b).unwrap_or(0),
        BinOp::AShr => {
            let s = big_signed(a, w) >> u32::try_from(b).unwrap_or(w).min(w);
            big_unsigned(s, w)
        }
        BinOp::UDiv | BinOp::URem | BinOp::SDiv | BinOp::SRem if *b == zero => return Err(DivError::ByZero),
        BinOp::UDiv => a / b,
        BinOp::URem => a % b,
        BinOp::SDiv | BinOp::SRem => {
            let (x, y) = (big_signed(a, w), big_signed(b, w));
            if x == -(BigInt::from(1u8) << (w - 1)) && y == BigInt::from(-1) {
                return Err(DivError::Overflow);
            }
            big_unsigned(if op == BinOp::SDiv { x / y } else { x % y }, w)
        }
    };
    Ok(big_value(r, w))
}

pub fn wide_icmp(p: IPred, w: u32, a: &BigUint, b: &BigUint) -> bool {
    holds(p, a, b, &big_signed(a, w), &big_signed(b, w))
}

/// trunc, zext, sext and bit casts where a side is wider than 128 bits.
pub fn wide_cast(op: CastOp, from: u32, to: u32, a: &BigUint) -> Option<Value> {
    Some(match op {
        CastOp::Trunc | CastOp::ZExt | CastOp::Bits => big_value(a.clone(), to),
        CastOp::SExt => big_value(big_unsigned(big_signed(a, from), to), to),
        _ => return None,
    })
}

/// The little-endian bytes of a wide value, `n` of them.
pub fn big_bytes(b: &BigUint, n: usize) -> Vec<u8> {
    let mut out = b.to_bytes_le();
    out.resize(n, 0);
    out
}

/// Integer and float casts as clang's x86-64 code performs them.
pub fn cast(op: CastOp, from: u32, to: u32, v: u128) -> u128 {
    match op {
        CastOp::Trunc | CastOp::Bits => v & mask(to),
        CastOp::ZExt => v,
        CastOp::SExt => fold::sext(v, from, to),
        CastOp::FpToSi | CastOp::FpToUi => float::to_int(op == CastOp::FpToSi, FKind::of_width(from), to, v),
        CastOp::SiToFp | CastOp::UiToFp => {
            float::from_int(op == CastOp::SiToFp, from, FKind::of_width(to), v)
        }
        CastOp::FpTrunc | CastOp::FpExt => float::convert(FKind::of_width(from), FKind::of_width(to), v),
    }
}

// Integer intrinsics.

/// `*.with.overflow`: the result and whether it overflowed.
pub fn overflow(op: OverflowOp, w: u32, a: u128, b: u128) -> (u128, bool) {
    let (sa, sb) = (to_signed(a, w), to_signed(b, w));
    let m = mask(w);
    let fits =
        |r: Option<i128>| r.is_some_and(|r| w == 128 || (r >= -(1i128 << (w - 1)) && r < (1i128 << (w - 1))));
    match op {
        OverflowOp::UAdd => {
            let r = a.wrapping_add(b) & m;
            (r, r < a)
        }
        OverflowOp::USub => (a.wrapping_sub(b) & m, b > a),
        OverflowOp::UMul => (a.wrapping_mul(b) & m, a.checked_mul(b).is_none_or(|r| r > m)),
        OverflowOp::SAdd => (a.wrapping_add(b) & m, !fits(sa.checked_add(sb))),
        OverflowOp::SSub => (a.wrapping_sub(b) & m, !fits(sa.checked_sub(sb))),
        OverflowOp::SMul => (a.wrapping_mul(b) & m, !fits(sa.checked_mul(sb))),
    }
}

/// `*.sat`; a shift count of the width or more (poison in LLVM) saturates.
pub fn saturating(op: SatOp, w: u32, a: u128, b: u128) -> u128 {
    let m = mask(w);
    let saturate_signed =
        |a: u128| if fold::is_negative(a, w) { fold::signed_min(w) } else { fold::signed_max(w) };
    match op {
        SatOp::UAdd => {
            let (r, o) = overflow(OverflowOp::UAdd, w, a, b);
            if o { m } else { r }
        }
        SatOp::USub => a.saturating_sub(b),
        SatOp::SAdd | SatOp::SSub => {
            let o = if op == SatOp::SAdd { OverflowOp::SAdd } else { OverflowOp::SSub };
            let (r, ov) = overflow(o, w, a, b);
            if ov { saturate_signed(a) } else { r }
        }
        SatOp::UShl => {
            let r = if b < u128::from(w) { (a << b) & m } else { 0 };
            if b < u128::from(w) && r >> b == a {
                r
            } else if a == 0 {
                0
            } else {
                m
            }
        }
        SatOp::SShl => {
            let r = if b < u128::from(w) { (a << b) & m } else { 0 };
            let back = if b < u128::from(w) { fold::sext(r >> b, w - b as u32, w) } else { !a };
            if back == a { r } else { saturate_signed(a) }
        }
    }
}

pub fn minmax(op: MinMax, w: u32, a: u128, b: u128) -> u128 {
    let pick_a = match op {
        MinMax::UMin => a <= b,
        MinMax::UMax => a >= b,
        MinMax::SMin => to_signed(a, w) <= to_signed(b, w),
        MinMax::SMax => to_signed(a, w) >= to_signed(b, w),
    };
    if pick_a { a } else { b }
}

pub fn abs(w: u32, a: u128) -> u128 {
    if fold::is_negative(a, w) { fold::neg(a, w) } else { a }
}

pub fn bitop(op: BitOp, w: u32, a: u128) -> u128 {
    let pad = 128 - w;
    match op {
        BitOp::Ctpop => u128::from(a.count_ones()),
        BitOp::Ctlz => u128::from((a << pad).leading_zeros().min(w)),
        BitOp::Cttz => u128::from(a.trailing_zeros().min(w)),
        BitOp::Bswap => a.swap_bytes() >> pad,
        BitOp::Bitreverse => a.reverse_bits() >> pad,
    }
}

/// Funnel shifts: `fshl(a, b, c)` is the high half of `(a:b) << (c % w)`.
pub fn funnel(left: bool, w: u32, a: u128, b: u128, c: u128) -> u128 {
    let m = mask(w);
    let s = (c % u128::from(w)) as u32;
    if s == 0 {
        return if left { a } else { b };
    }
    if left { ((a << s) | (b >> (w - s))) & m } else { ((a << (w - s)) | (b >> s)) & m }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x86_conversions() {
        let d = |x: f64| u128::from(x.to_bits());
        assert_eq!(cast(CastOp::FpToSi, 64, 32, d(-2.7)), mask(32) - 1);
        assert_eq!(cast(CastOp::FpToSi, 64, 32, d(4e9)), 1 << 31);
        assert_eq!(cast(CastOp::FpToSi, 64, 32, d(1e20)), 1 << 31);
        assert_eq!(cast(CastOp::FpToSi, 64, 64, d(f64::NAN)), 1 << 63);
        assert_eq!(cast(CastOp::FpToUi, 64, 64, d(1.5e19)), 15_000_000_000_000_000_000);
        assert_eq!(cast(CastOp::FpToUi, 64, 32, d(4e9)), 4_000_000_000);
        assert_eq!(cast(CastOp::SiToFp, 8, 64, 0xff), d(-1.0));
        assert_eq!(cast(CastOp::FpTrunc, 64, 32, d(0.1)), u128::from(0.1f32.to_bits()));
    }

    #[test]
    fn division_and_shift_edges() {
        assert_eq!(bin(BinOp::SDiv, 32, 0x8000_0000, mask(32)), Err(DivError::Overflow));
        assert_eq!(bin(BinOp::URem, 8, 7, 0), Err(DivError::ByZero));
        assert_eq!(bin(BinOp::SRem, 32, mask(32) - 6, 3), Ok(mask(32))); // -7 % 3 == -1
        assert_eq!(bin(BinOp::AShr, 8, 0x80, 9), Ok(0xff));
        assert_eq!(x86_shift_count(33, 32), 1);
    }

    #[test]
    fn overflow_and_saturation() {
        assert_eq!(overflow(OverflowOp::SAdd, 32, 0x7fff_ffff, 1), (0x8000_0000, true));
        assert_eq!(overflow(OverflowOp::UMul, 8, 16, 16), (0, true));
        assert_eq!(overflow(OverflowOp::SMul, 8, 0xff, 0xff), (1, false));
        assert!(overflow(OverflowOp::SSub, 128, 1u128 << 127, 1).1);
        assert_eq!(saturating(SatOp::SAdd, 8, 100, 100), 127);
        assert_eq!(saturating(SatOp::USub, 8, 1, 2), 0);
        assert_eq!(saturating(SatOp::SShl, 8, 0xf0, 2), 0xc0);
        assert_eq!(saturating(SatOp::SShl, 8, 0x40, 1), 0x7f);
        assert_eq!(saturating(SatOp::UShl, 8, 0x40, 2), 0xff);
    }

    #[test]
    fn bit_intrinsics() {
        assert_eq!(bitop(BitOp::Ctlz, 32, 1), 31);
        assert_eq!(bitop(BitOp::Ctlz, 32, 0), 32);
        assert_eq!(bitop(BitOp::Cttz, 16, 0), 16);
        assert_eq!(bitop(BitOp::Bswap, 32, 0x11223344), 0x44332211);
        assert_eq!(bitop(BitOp::Bitreverse, 8, 1), 0x80);
        assert_eq!(funnel(true, 8, 0x12, 0x34, 4), 0x23);
        assert_eq!(funnel(false, 8, 0x12, 0x34, 4), 0x23);
        assert_eq!(abs(8, 0x80), 0x80);
    }
}
