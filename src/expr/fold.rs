//! Constant folding on `u128` values at a given width (1..=128).
//!
//! Division by zero follows SMT-LIB (`bvudiv x 0` = all ones, `bvurem x 0` = x, and the signed forms as
//! SMT-LIB defines them through the unsigned ones), so that folding agrees with Z3 on every input.

use super::{BinOp, CmpOp};

/// All ones at `width`.
pub fn mask(width: u32) -> u128 {
    if width >= 128 { u128::MAX } else { (1u128 << width) - 1 }
}

/// `value` (already masked to `width`) read as a two's complement number.
pub fn to_signed(value: u128, width: u32) -> i128 {
    let shift = 128 - width;
    ((value << shift) as i128) >> shift
}

/// Whether the sign bit of `value` at `width` is set.
pub fn is_negative(value: u128, width: u32) -> bool {
    (value >> (width - 1)) & 1 == 1
}

/// The smallest signed value at `width`, as bits.
pub fn signed_min(width: u32) -> u128 {
    1u128 << (width - 1)
}

/// The largest signed value at `width`, as bits.
pub fn signed_max(width: u32) -> u128 {
    mask(width) >> 1
}

pub fn neg(value: u128, width: u32) -> u128 {
    value.wrapping_neg() & mask(width)
}

pub fn sext(value: u128, from: u32, to: u32) -> u128 {
    (to_signed(value, from) as u128) & mask(to)
}

pub fn binary(op: BinOp, a: u128, b: u128, width: u32) -> u128 {
    let m = mask(width);
    match op {
        BinOp::Add => a.wrapping_add(b) & m,
        BinOp::Sub => a.wrapping_sub(b) & m,
        BinOp::Mul => a.wrapping_mul(b) & m,
        BinOp::UDiv => a.checked_div(b).unwrap_or(m),
        BinOp::URem => a.checked_rem(b).unwrap_or(a),
        BinOp::SDiv => {
            let (na, nb) = (is_negative(a, width), is_negative(b, width));
            let ua = if na { neg(a, width) } else { a };
            let ub = if nb { neg(b, width) } else { b };
            let q = binary(BinOp::UDiv, ua, ub, width);
            if na != nb { neg(q, width) } else { q }
        }
        BinOp::SRem => {
            let (na, nb) = (is_negative(a, width), is_negative(b, width));
            let ua = if na { neg(a, width) } else { a };
            let ub = if nb { neg(b, width) } else { b };
            let r = binary(BinOp::URem, ua, ub, width);
            if na { neg(r, width) } else { r }
        }
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl => {
            if b >= width as u128 {
                0
            } else {
                (a << b) & m
            }
        }
        BinOp::LShr => {
            if b >= width as u128 {
                0
            } else {
                a >> b
            }
        }
        BinOp::AShr => {
            let shift = b.min(width as u128 - 1) as u32;
            (to_signed(a, width) >> shift) as u128 & m
        }
    }
}

pub fn compare(op: CmpOp, a: u128, b: u128, width: u32) -> bool {
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ult => a < b,
        CmpOp::Ule => a <= b,
        CmpOp::Slt => to_signed(a, width) < to_signed(b, width),
        CmpOp::Sle => to_signed(a, width) <= to_signed(b, width),
    }
}

/// `Some(k)` if `value` is `2^k`.
pub fn log2_exact(value: u128) -> Option<u32> {
    value.is_power_of_two().then(|| value.trailing_zeros())
}

/// The maximal runs of equal bits of `value` at `width`, from bit 0 up: `(offset, len, ones)`.
pub fn runs(value: u128, width: u32) -> Vec<(u32, u32, bool)> {
    let mut out = Vec::new();
    let mut offset = 0;
    while offset < width {
        let rest = value >> offset;
        let ones = rest & 1 == 1;
        let len = if ones { rest.trailing_ones() } else { rest.trailing_zeros() }.min(width - offset);
        out.push((offset, len, ones));
        offset += len;
    }
    out
}
