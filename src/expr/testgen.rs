//! Test support: random expression trees with an independent, unsimplified reference semantics.
//!
//! A [`Tree`] is built through the pool's builders (which simplify) and evaluated directly by
//! [`Tree::eval`], which knows nothing of the simplifier, so that the two can be compared.

use rand::Rng;

use super::{ArrayId, BinOp, CmpOp, ExprId, ExprPool};

#[derive(Clone, Debug)]
pub enum Tree {
    Byte(u64),
    Const(u32, u128),
    Not(Box<Tree>),
    Bin(BinOp, Box<Tree>, Box<Tree>),
    Cmp(CmpOp, bool, Box<Tree>, Box<Tree>),
    Ite(Box<Tree>, Box<Tree>, Box<Tree>),
    Concat(Box<Tree>, Box<Tree>),
    Extract(Box<Tree>, u32, u32),
    ZExt(Box<Tree>, u32),
    SExt(Box<Tree>, u32),
}

const BIN_OPS: [BinOp; 13] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::UDiv,
    BinOp::SDiv,
    BinOp::URem,
    BinOp::SRem,
    BinOp::And,
    BinOp::Or,
    BinOp::Xor,
    BinOp::Shl,
    BinOp::LShr,
    BinOp::AShr,
];
const CMP_OPS: [CmpOp; 5] = [CmpOp::Eq, CmpOp::Ult, CmpOp::Ule, CmpOp::Slt, CmpOp::Sle];

fn mask(w: u32) -> u128 {
    if w == 128 { u128::MAX } else { (1 << w) - 1 }
}

fn signed(v: u128, w: u32) -> i128 {
    if w == 128 {
        v as i128
    } else if v >> (w - 1) & 1 == 1 {
        (v as i128).wrapping_sub(1i128.wrapping_shl(w))
    } else {
        v as i128
    }
}

/// A constant that exercises edge cases more often than a uniform one would.
pub fn interesting(rng: &mut impl Rng, w: u32) -> u128 {
    let v = match rng.random_range(0..8) {
        0 => 0,
        1 => 1,
        2 => mask(w),
        3 => 1 << (w - 1),
        4 => mask(w) >> 1,
        5 => rng.random_range(0..16),
        6 => 1 << rng.random_range(0..w),
        _ => rng.random::<u128>(),
    };
    v & mask(w)
}

impl Tree {
    pub fn width(&self) -> u32 {
        match self {
            Tree::Byte(_) => 8,
            Tree::Const(w, _) => *w,
            Tree::Not(a) => a.width(),
            Tree::Bin(_, a, _) => a.width(),
            Tree::Cmp(..) => 1,
            Tree::Ite(_, t, _) => t.width(),
            Tree::Concat(h, l) => h.width() + l.width(),
            Tree::Extract(_, _, w) | Tree::ZExt(_, w) | Tree::SExt(_, w) => *w,
        }
    }

    /// A random tree of width `w` over input bytes `0..bytes`.
    pub fn random(rng: &mut impl Rng, w: u32, depth: u32, bytes: u64) -> Tree {
        if depth == 0 || rng.random_range(0..6) == 0 {
            return Tree::leaf(rng, w, bytes);
        }
        let d = depth - 1;
        let sub = |rng: &mut _, w| Box::new(Tree::random(rng, w, d, bytes));
        match rng.random_range(0..10) {
            0 => Tree::Not(sub(rng, w)),
            1 | 2 => {
                let op = BIN_OPS[rng.random_range(0..BIN_OPS.len())];
                let rhs = if matches!(op, BinOp::Shl | BinOp::LShr | BinOp::AShr) && rng.random_bool(0.6) {
                    Box::new(Tree::Const(w, rng.random_range(0..=w as u128)))
                } else {
                    sub(rng, w)
                };
                Tree::Bin(op, sub(rng, w), rhs)
            }
            3 if w == 1 => {
                let ow = [1, 8, 16, 32][rng.random_range(0..4)];
                let op = CMP_OPS[rng.random_range(0..CMP_OPS.len())];
                Tree::Cmp(op, rng.random_bool(0.5), sub(rng, ow), sub(rng, ow))
            }
            4 => Tree::Ite(sub(rng, 1), sub(rng, w), sub(rng, w)),
            5 if w > 1 => {
                let lw = rng.random_range(1..w);
                Tree::Concat(sub(rng, w - lw), sub(rng, lw))
            }
            6 if w < 64 => {
                let from = rng.random_range(w + 1..=64);
                let offset = rng.random_range(0..=from - w);
                Tree::Extract(sub(rng, from), offset, w)
            }
            7 if w > 1 => {
                let from = rng.random_range(1..w);
                if rng.random_bool(0.5) {
                    Tree::ZExt(sub(rng, from), w)
                } else {
                    Tree::SExt(sub(rng, from), w)
                }
            }
            _ => {
                let op = BIN_OPS[rng.random_range(0..10)];
                Tree::Bin(op, sub(rng, w), Box::new(Tree::leaf(rng, w, bytes)))
            }
        }
    }

    fn leaf(rng: &mut impl Rng, w: u32, bytes: u64) -> Tree {
        let byte = |rng: &mut _| Tree::Byte(Rng::random_range(rng, 0..bytes));
        match rng.random_range(0..3) {
            0 => Tree::Const(w, interesting(rng, w)),
            _ if w == 8 => byte(rng),
            _ if w < 8 => Tree::Extract(Box::new(byte(rng)), rng.random_range(0..=8 - w), w),
            // A little-endian word of consecutive bytes, as a load gives, or an extension of a byte.
            _ if w.is_multiple_of(8) && w / 8 <= bytes as u32 && rng.random_bool(0.5) => {
                let n = w / 8;
                let start = rng.random_range(0..=bytes - n as u64);
                let mut t = Tree::Byte(start);
                for k in 1..n as u64 {
                    t = Tree::Concat(Box::new(Tree::Byte(start + k)), Box::new(t));
                }
                t
            }
            _ if rng.random_bool(0.5) => Tree::ZExt(Box::new(byte(rng)), w),
            _ => Tree::SExt(Box::new(byte(rng)), w),
        }
    }

    /// Builds the tree through the simplifying builders.
    pub fn build(&self, pool: &mut ExprPool, input: ArrayId) -> ExprId {
        match self {
            Tree::Byte(i) => pool.read_input(input, *i),
            Tree::Const(w, v) => pool.constant(*w, *v),
            Tree::Not(a) => {
                let a = a.build(pool, input);
                pool.not(a)
            }
            Tree::Bin(op, a, b) => {
                let (a, b) = (a.build(pool, input), b.build(pool, input));
                pool.binary(*op, a, b)
            }
            Tree::Cmp(op, swapped, a, b) => {
                let (a, b) = (a.build(pool, input), b.build(pool, input));
                // `swapped` exercises the non-canonical builders: ugt, uge, sgt, sge, ne.
                match (op, swapped) {
                    (CmpOp::Eq, false) => pool.eq(a, b),
                    (CmpOp::Eq, true) => {
                        let ne = pool.ne(a, b);
                        pool.bool_not(ne)
                    }
                    (CmpOp::Ult, true) => pool.ugt(b, a),
                    (CmpOp::Ule, true) => pool.uge(b, a),
                    (CmpOp::Slt, true) => pool.sgt(b, a),
                    (CmpOp::Sle, true) => pool.sge(b, a),
                    (op, _) => pool.compare(*op, a, b),
                }
            }
            Tree::Ite(c, t, e) => {
                let (c, t, e) = (c.build(pool, input), t.build(pool, input), e.build(pool, input));
                pool.ite(c, t, e)
            }
            Tree::Concat(h, l) => {
                let (h, l) = (h.build(pool, input), l.build(pool, input));
                pool.concat(h, l)
            }
            Tree::Extract(a, o, w) => {
                let a = a.build(pool, input);
                pool.extract(a, *o, *w)
            }
            Tree::ZExt(a, w) => {
                let a = a.build(pool, input);
                pool.zext(a, *w)
            }
            Tree::SExt(a, w) => {
                let a = a.build(pool, input);
                pool.sext(a, *w)
            }
        }
    }

    /// Reference semantics: direct, unsimplified, written apart from `fold`.
    pub fn eval(&self, bytes: &[u8]) -> u128 {
        match self {
            Tree::Byte(i) => bytes[*i as usize] as u128,
            Tree::Const(_, v) => *v,
            Tree::Not(a) => !a.eval(bytes) & mask(a.width()),
            Tree::Bin(op, a, b) => {
                let w = a.width();
                let (x, y) = (a.eval(bytes), b.eval(bytes));
                let (sx, sy) = (signed(x, w), signed(y, w));
                let r = match op {
                    BinOp::Add => x.wrapping_add(y),
                    BinOp::Sub => x.wrapping_sub(y),
                    BinOp::Mul => x.wrapping_mul(y),
                    BinOp::UDiv if y == 0 => u128::MAX,
                    BinOp::UDiv => x / y,
                    BinOp::URem if y == 0 => x,
                    BinOp::URem => x % y,
                    // SMT-LIB: x / 0 is -1 for x ≥ 0 and 1 for x < 0; x % 0 is x.
                    BinOp::SDiv if y == 0 => {
                        if sx < 0 {
                            1
                        } else {
                            u128::MAX
                        }
                    }
                    BinOp::SDiv => sx.wrapping_div(sy) as u128,
                    BinOp::SRem if y == 0 => x,
                    BinOp::SRem => sx.wrapping_rem(sy) as u128,
                    BinOp::And => x & y,
                    BinOp::Or => x | y,
                    BinOp::Xor => x ^ y,
                    BinOp::Shl if y >= w as u128 => 0,
                    BinOp::Shl => x << y,
                    BinOp::LShr if y >= w as u128 => 0,
                    BinOp::LShr => x >> y,
                    BinOp::AShr if y >= w as u128 => (sx >> 127) as u128,
                    BinOp::AShr => (sx >> y) as u128,
                };
                r & mask(w)
            }
            Tree::Cmp(op, _, a, b) => {
                let w = a.width();
                let (x, y) = (a.eval(bytes), b.eval(bytes));
                (match op {
                    CmpOp::Eq => x == y,
                    CmpOp::Ult => x < y,
                    CmpOp::Ule => x <= y,
                    CmpOp::Slt => signed(x, w) < signed(y, w),
                    CmpOp::Sle => signed(x, w) <= signed(y, w),
                }) as u128
            }
            Tree::Ite(c, t, e) => {
                if c.eval(bytes) == 1 {
                    t.eval(bytes)
                } else {
                    e.eval(bytes)
                }
            }
            Tree::Concat(h, l) => (h.eval(bytes) << l.width()) | l.eval(bytes),
            Tree::Extract(a, o, w) => (a.eval(bytes) >> o) & mask(*w),
            Tree::ZExt(a, _) => a.eval(bytes),
            Tree::SExt(a, w) => signed(a.eval(bytes), a.width()) as u128 & mask(*w),
        }
    }
}
