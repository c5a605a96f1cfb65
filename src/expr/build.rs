//! Builders: every operation simplifies and constant-folds before interning.
//!
//! Canonical forms (so that more nodes hash-cons, and later rules see one shape):
//! - commutative operands: a constant on the left, otherwise the smaller id on the left;
//! - `x - c` is `(-c) + x`; constants float to the outermost `add`/`mul`/`and`/`or`/`xor`;
//! - `ne`, `ugt`, `uge`, `sgt`, `sge` are `not(eq)`, `ult`, `ule`, `slt`, `sle` with swapped operands,
//!   and a non-strict comparison with a constant is strict (`x >= 5` is `4 < x`, as `x > 4` is);
//! - shifts by a constant, and masks with one run of ones, become `extract`/`concat`/`zext`;
//! - `concat(0, x)` is `zext(x)`; concats nest to the right;
//! - at width 1, `add`/`sub` are `xor`, `mul` is `and`.
//!
//! Width errors are bugs in the caller (the IR is typed), so they panic with a message.
//!
//! More rules: `concat(zext a, b)` is `zext(concat(a, b))` and
//! `concat(sext a, b)` is `sext(concat(a, b))`; copies of `b`'s sign bit above
//! `b` are `sext b` (the bytes of a stored `long long` parameter reload as the
//! sign extension); adjacent extracts fuse (a 4-byte reload of stored bytes
//! gives back the stored value); truncation distributes over `add`/`sub`/`mul`
//! and the bitwise operations (`(char)((int)a + (int)b)` is an 8-bit add);
//! comparisons of extended values narrow, and so do `srem`/`urem` of sign- or
//! zero-extended operands (or constants that are extensions), since a remainder
//! fits the divisor's width and `x rem 0 = x` extends too (division does not:
//! `MIN / -1`, `x / 0`); a signed division or remainder by a nonzero constant
//! moves inside a negation, `(-x) / c = x == MIN ? MIN / c : -(x / c)` (code
//! that makes a number positive first then shares its quotients with code that
//! does not; the solver cannot prove two differently built quotients equal),
//! and inside an ite with a constant arm; a quotient by `d` equals no constant
//! beyond `2^(w-1) / |d|`. Each rule is checked against the independent
//! reference of `testgen.rs` on random trees, and exhaustively at small widths.

use super::fold::{self, mask};
use super::{ArrayId, BinOp, CmpOp, ConstArrayId, ExprId, ExprPool, INDEX_WIDTH, MAX_WIDTH, Node};

/// How deep `extract(op(a, b), 0, w)` may push the truncation into an arithmetic tree.
const NARROW_DEPTH: u32 = 4;

/// Masks with more runs of ones than this stay an `and`.
const MAX_MASK_RUNS: usize = 4;

impl ExprPool {
    // ---- leaves ----

    /// `value` masked to `width` bits.
    pub fn constant(&mut self, width: u32, value: u128) -> ExprId {
        assert!((1..=MAX_WIDTH).contains(&width), "expression width {width} is outside 1..=128");
        self.intern(Node::Const { width, value: value & mask(width) })
    }

    pub fn true_(&mut self) -> ExprId {
        self.constant(1, 1)
    }

    pub fn false_(&mut self) -> ExprId {
        self.constant(1, 0)
    }

    pub fn bool_const(&mut self, b: bool) -> ExprId {
        self.constant(1, b as u128)
    }

    /// The meta-revision of the executing state, width 32.
    pub fn revision(&mut self) -> ExprId {
        self.intern(Node::Revision)
    }

    /// Byte `index` of input `array`, width 8.
    pub fn read_input(&mut self, array: ArrayId, index: u64) -> ExprId {
        let size = self.array_info(array).size;
        assert!(index < size, "read_input: index {index} past the end of a {size}-byte input");
        self.intern(Node::Input { array, index })
    }

    // ---- arrays ----

    /// An array-sorted term with constant contents (reads past the end give 0).
    pub fn const_array(&mut self, bytes: &[u8]) -> ExprId {
        let id = match self.const_array_ids.get(bytes) {
            Some(&id) => id,
            None => {
                let id = ConstArrayId(self.const_arrays.len() as u32);
                let boxed: Box<[u8]> = bytes.into();
                self.const_arrays.push(boxed.clone());
                self.const_array_ids.insert(boxed, id);
                id
            }
        };
        self.intern(Node::ConstArray(id))
    }

    /// The array-sorted term of input `array`'s bytes.
    pub fn input_array(&mut self, array: ArrayId) -> ExprId {
        self.intern(Node::InputArray(array))
    }

    /// `array` with byte `index` (width 64) set to `value` (width 8).
    pub fn store(&mut self, array: ExprId, index: ExprId, value: ExprId) -> ExprId {
        assert!(self.is_array(array), "store into a non-array");
        assert_eq!(self.width(index), INDEX_WIDTH, "store index must have width 64");
        assert_eq!(self.width(value), 8, "store value must have width 8");
        // Overwriting the same index hides the older store.
        let array = match *self.node(array) {
            Node::Store { array: inner, index: i, .. } if i == index => inner,
            _ => array,
        };
        self.intern(Node::Store { array, index, value })
    }

    /// Byte `index` (width 64) of array-sorted `array`, width 8. Stores that provably miss are skipped,
    /// and a constant index into a constant or input array reads the byte itself.
    pub fn select(&mut self, array: ExprId, index: ExprId) -> ExprId {
        assert!(self.is_array(array), "select from a non-array");
        assert_eq!(self.width(index), INDEX_WIDTH, "select index must have width 64");
        let mut arr = array;
        loop {
            match *self.node(arr) {
                Node::Store { array: inner, index: i, value } => {
                    if i == index {
                        return value;
                    }
                    if self.provably_distinct(i, index) {
                        arr = inner;
                        continue;
                    }
                    break;
                }
                Node::ConstArray(c) => {
                    let bytes = self.const_array_bytes(c);
                    if let Some(k) = self.as_const(index) {
                        let b = usize::try_from(k).ok().and_then(|k| bytes.get(k)).copied().unwrap_or(0);
                        return self.constant(8, b as u128);
                    }
                    // Every byte, in bounds or past the end, is 0.
                    if bytes.iter().all(|&b| b == 0) {
                        return self.constant(8, 0);
                    }
                    break;
                }
                Node::InputArray(a) => {
                    if let Some(k) = self.as_const(index)
                        && k < self.array_info(a).size as u128
                    {
                        return self.read_input(a, k as u64);
                    }
                    break;
                }
                _ => break,
            }
        }
        self.intern(Node::Select { array: arr, index })
    }

    /// Whether `a != b` for every input: distinct constants, or `c1 + x` against `c2 + x`.
    fn provably_distinct(&self, a: ExprId, b: ExprId) -> bool {
        let split = |p: &Self, e: ExprId| match *p.node(e) {
            Node::Const { value, .. } => (value, None),
            Node::Bin { op: BinOp::Add, lhs, rhs } if p.is_const(lhs) => {
                (p.as_const(lhs).unwrap(), Some(rhs))
            }
            _ => (0, Some(e)),
        };
        let (ca, xa) = split(self, a);
        let (cb, xb) = split(self, b);
        xa == xb && ca != cb
    }

    // ---- arithmetic ----

    pub fn add(&mut self, a: ExprId, b: ExprId) -> ExprId {
        let w = self.same_width("add", a, b);
        if let Some(e) = self.fold_bin(BinOp::Add, a, b, w) {
            return e;
        }
        if w == 1 {
            return self.xor(a, b);
        }
        let (a, b) = self.commute(a, b);
        if let Some(ca) = self.as_const(a) {
            if ca == 0 {
                return b;
            }
            if let Some(e) = self.reassociate(BinOp::Add, ca, b) {
                return e;
            }
            match *self.node(b) {
                Node::Bin { op: BinOp::Sub, lhs, rhs } if self.is_const(lhs) => {
                    let c = self.constant(w, ca.wrapping_add(self.as_const(lhs).unwrap()));
                    return self.sub(c, rhs);
                }
                _ => {}
            }
        } else {
            if let Some((c, x)) = self.const_operand(BinOp::Add, a) {
                let inner = self.add(x, b);
                return self.add(c, inner);
            }
            if let Some((c, x)) = self.const_operand(BinOp::Add, b) {
                let inner = self.add(a, x);
                return self.add(c, inner);
            }
            if let Some(e) = self.disjoint_bits(a, b) {
                return e;
            }
        }
        self.intern(Node::Bin { op: BinOp::Add, lhs: a, rhs: b })
    }

    pub fn sub(&mut self, a: ExprId, b: ExprId) -> ExprId {
        let w = self.same_width("sub", a, b);
        if let Some(e) = self.fold_bin(BinOp::Sub, a, b, w) {
            return e;
        }
        if a == b {
            return self.constant(w, 0);
        }
        if w == 1 {
            return self.xor(a, b);
        }
        if let Some(cb) = self.as_const(b) {
            let c = self.constant(w, fold::neg(cb, w));
            return self.add(c, a);
        }
        if let Some(ca) = self.as_const(a) {
            match *self.node(b) {
                // c - (c2 + x) = (c - c2) - x
                Node::Bin { op: BinOp::Add, lhs, rhs } if self.is_const(lhs) => {
                    let c = self.constant(w, ca.wrapping_sub(self.as_const(lhs).unwrap()));
                    return self.sub(c, rhs);
                }
                // c - (c2 - x) = (c - c2) + x
                Node::Bin { op: BinOp::Sub, lhs, rhs } if self.is_const(lhs) => {
                    let c = self.constant(w, ca.wrapping_sub(self.as_const(lhs).unwrap()));
                    return self.add(c, rhs);
                }
                _ => {}
            }
        } else {
            // (c + x) - b = c + (x - b)
            if let Some((c, x)) = self.const_operand(BinOp::Add, a) {
                let inner = self.sub(x, b);
                return self.add(c, inner);
            }
            // a - (c + x) = -c + (a - x)
            if let Some((c, x)) = self.const_operand(BinOp::Add, b) {
                let inner = self.sub(a, x);
                let nc = self.constant(w, fold::neg(self.as_const(c).unwrap(), w));
                return self.add(nc, inner);
            }
        }
        self.intern(Node::Bin { op: BinOp::Sub, lhs: a, rhs: b })
    }

    /// Two's complement negation: `0 - a`.
    pub fn neg(&mut self, a: ExprId) -> ExprId {
        let zero = self.constant(self.width(a), 0);
        self.sub(zero, a)
    }

    pub fn mul(&mut self, a: ExprId, b: ExprId) -> ExprId {
        let w = self.same_width("mul", a, b);
        if let Some(e) = self.fold_bin(BinOp::Mul, a, b, w) {
            return e;
        }
        if w == 1 {
            return self.and(a, b);
        }
        let (a, b) = self.commute(a, b);
        if let Some(ca) = self.as_const(a) {
            if ca == 0 {
                return a;
            }
            if ca == 1 {
                return b;
            }
            if ca == mask(w) {
                return self.neg(b);
            }
            if let Some(e) = self.reassociate(BinOp::Mul, ca, b) {
                return e;
            }
        } else {
            if let Some((c, x)) = self.const_operand(BinOp::Mul, a) {
                let inner = self.mul(x, b);
                return self.mul(c, inner);
            }
            if let Some((c, x)) = self.const_operand(BinOp::Mul, b) {
                let inner = self.mul(a, x);
                return self.mul(c, inner);
            }
        }
        self.intern(Node::Bin { op: BinOp::Mul, lhs: a, rhs: b })
    }

    pub fn udiv(&mut self, a: ExprId, b: ExprId) -> ExprId {
        let w = self.same_width("udiv", a, b);
        if let Some(e) = self.fold_bin(BinOp::UDiv, a, b, w) {
            return e;
        }
        if let Some(k) = self.as_const(b).and_then(fold::log2_exact) {
            let k = self.constant(w, k as u128);
            return self.lshr(a, k);
        }
        self.intern(Node::Bin { op: BinOp::UDiv, lhs: a, rhs: b })
    }

    pub fn sdiv(&mut self, a: ExprId, b: ExprId) -> ExprId {
        let w = self.same_width("sdiv", a, b);
        if let Some(e) = self.fold_bin(BinOp::SDiv, a, b, w) {
            return e;
        }
        match self.as_const(b) {
            Some(1) => return a,
            Some(c) if c == mask(w) && w > 1 => return self.neg(a),
            _ => {}
        }
        if let Some(e) = self.signed_division_through(BinOp::SDiv, a, b) {
            return e;
        }
        self.intern(Node::Bin { op: BinOp::SDiv, lhs: a, rhs: b })
    }

    pub fn urem(&mut self, a: ExprId, b: ExprId) -> ExprId {
        let w = self.same_width("urem", a, b);
        if let Some(e) = self.fold_bin(BinOp::URem, a, b, w) {
            return e;
        }
        if let Some(cb) = self.as_const(b)
            && cb.is_power_of_two()
        {
            let m = self.constant(w, cb - 1);
            return self.and(m, a);
        }
        if let Some(e) = self.narrow_rem(BinOp::URem, a, b) {
            return e;
        }
        self.intern(Node::Bin { op: BinOp::URem, lhs: a, rhs: b })
    }

    pub fn srem(&mut self, a: ExprId, b: ExprId) -> ExprId {
        let w = self.same_width("srem", a, b);
        if let Some(e) = self.fold_bin(BinOp::SRem, a, b, w) {
            return e;
        }
        if matches!(self.as_const(b), Some(c) if c == 1 || c == mask(w)) {
            return self.constant(w, 0);
        }
        if let Some(e) = self.narrow_rem(BinOp::SRem, a, b) {
            return e;
        }
        if let Some(e) = self.signed_division_through(BinOp::SRem, a, b) {
            return e;
        }
        self.intern(Node::Bin { op: BinOp::SRem, lhs: a, rhs: b })
    }

    /// `sdiv` or `srem` (`op`) by a nonzero constant `b`, moved inside a negation or an ite with a
    /// constant arm. C truncates toward zero, so `(-x) / c = -(x / c)` and `(-x) % c = -(x % c)`
    /// for every `x` but `MIN`, whose negation is itself. Code that makes a number positive first
    /// (`if (n < 0) n = -n`) then divides the same `x` as code that does not, and the solver sees
    /// one quotient instead of proving two equal (a bit-blasted proof of that is out of reach).
    fn signed_division_through(&mut self, op: BinOp, a: ExprId, b: ExprId) -> Option<ExprId> {
        let c = self.as_const(b).filter(|&c| c != 0)?;
        let w = self.width(a);
        match *self.node(a) {
            Node::Bin { op: BinOp::Sub, lhs, rhs: x } if self.as_const(lhs) == Some(0) => {
                let min = self.constant(w, fold::signed_min(w));
                let is_min = self.eq(x, min);
                let at_min = self.constant(w, fold::binary(op, fold::signed_min(w), c, w));
                let inner = self.binary(op, x, b);
                let negated = self.neg(inner);
                Some(self.ite(is_min, at_min, negated))
            }
            Node::Ite { cond, then, els } if self.is_const(then) || self.is_const(els) => {
                let (t, e) = (self.binary(op, then, b), self.binary(op, els, b));
                Some(self.ite(cond, t, e))
            }
            _ => None,
        }
    }

    /// The remainder of sign-extended (`srem`) or zero-extended (`urem`) operands, done at the
    /// narrower width and extended: the remainder is smaller than the divisor, and SMT-LIB's `x rem 0
    /// = x` extends too. (Not so for division: `MIN / -1` and `x / 0` do not fit the narrow width.)
    /// A constant operand qualifies when it is the extension of its truncation.
    fn narrow_rem(&mut self, op: BinOp, a: ExprId, b: ExprId) -> Option<ExprId> {
        let signed = op == BinOp::SRem;
        let w = self.width(a);
        let n =
            self.extended_arg(a, signed).or_else(|| self.extended_arg(b, signed)).map(|x| self.width(x))?;
        let x = self.narrowed(a, signed, n)?;
        let y = self.narrowed(b, signed, n)?;
        Some(if signed {
            let r = self.srem(x, y);
            self.sext(r, w)
        } else {
            let r = self.urem(x, y);
            self.zext(r, w)
        })
    }

    /// The argument of a sign (`signed`) or zero extension.
    fn extended_arg(&self, e: ExprId, signed: bool) -> Option<ExprId> {
        match *self.node(e) {
            Node::SExt { arg, .. } if signed => Some(arg),
            Node::ZExt { arg, .. } if !signed => Some(arg),
            _ => None,
        }
    }

    /// `e` as a value of width `n` that extends back to it, if there is one.
    fn narrowed(&mut self, e: ExprId, signed: bool, n: u32) -> Option<ExprId> {
        if let Some(x) = self.extended_arg(e, signed) {
            return (self.width(x) == n).then_some(x);
        }
        let c = self.as_const(e)?;
        let t = c & mask(n);
        let back = if signed { fold::sext(t, n, self.width(e)) } else { t };
        (back == c).then(|| self.constant(n, t))
    }

    // ---- bitwise ----

    pub fn and(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.bitwise(BinOp::And, a, b)
    }

    pub fn or(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.bitwise(BinOp::Or, a, b)
    }

    pub fn xor(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.bitwise(BinOp::Xor, a, b)
    }

    /// `and`, `or` and `xor`, whose rules differ only in their results.
    fn bitwise(&mut self, op: BinOp, a: ExprId, b: ExprId) -> ExprId {
        let w = self.same_width(op.name(), a, b);
        if let Some(e) = self.fold_bin(op, a, b, w) {
            return e;
        }
        let (a, b) = self.commute(a, b);
        let ones = mask(w);
        if a == b {
            return if op == BinOp::Xor { self.constant(w, 0) } else { a };
        }
        if let Some(ca) = self.as_const(a) {
            match (op, ca) {
                (BinOp::And, 0) => return a,
                (BinOp::Or | BinOp::Xor, 0) => return b,
                (BinOp::And, c) if c == ones => return b,
                (BinOp::Or, c) if c == ones => return a,
                (BinOp::Xor, c) if c == ones => return self.not(b),
                _ => {}
            }
            if let Some(e) = self.reassociate(op, ca, b) {
                return e;
            }
            if op == BinOp::And
                && let Some(e) = self.keep_bits(b, ca)
            {
                return e;
            }
        } else if self.complements(a, b) {
            return self.constant(w, if op == BinOp::And { 0 } else { ones });
        }
        if op != BinOp::And
            && let Some(e) = self.disjoint_bits(a, b)
        {
            return e;
        }
        self.intern(Node::Bin { op, lhs: a, rhs: b })
    }

    /// Bitwise complement.
    pub fn not(&mut self, a: ExprId) -> ExprId {
        let w = self.width(a);
        assert!(w > 0, "not of an array");
        match *self.node(a) {
            Node::Const { value, .. } => self.constant(w, !value),
            Node::Not(x) => x,
            _ => self.intern(Node::Not(a)),
        }
    }

    pub fn shl(&mut self, a: ExprId, b: ExprId) -> ExprId {
        let w = self.same_width("shl", a, b);
        if let Some(e) = self.fold_bin(BinOp::Shl, a, b, w) {
            return e;
        }
        if let Some(k) = self.as_const(b) {
            if k >= w as u128 {
                return self.constant(w, 0);
            }
            // x << k = concat(low bits of x, 0_k)
            let k = k as u32;
            if k == 0 {
                return a;
            }
            let low = self.extract(a, 0, w - k);
            let zeros = self.constant(k, 0);
            return self.concat(low, zeros);
        }
        self.intern(Node::Bin { op: BinOp::Shl, lhs: a, rhs: b })
    }

    pub fn lshr(&mut self, a: ExprId, b: ExprId) -> ExprId {
        let w = self.same_width("lshr", a, b);
        if let Some(e) = self.fold_bin(BinOp::LShr, a, b, w) {
            return e;
        }
        if let Some(k) = self.as_const(b) {
            if k >= w as u128 {
                return self.constant(w, 0);
            }
            let k = k as u32;
            let high = self.extract(a, k, w - k);
            return self.zext(high, w);
        }
        self.intern(Node::Bin { op: BinOp::LShr, lhs: a, rhs: b })
    }

    pub fn ashr(&mut self, a: ExprId, b: ExprId) -> ExprId {
        let w = self.same_width("ashr", a, b);
        if let Some(e) = self.fold_bin(BinOp::AShr, a, b, w) {
            return e;
        }
        if let Some(k) = self.as_const(b) {
            let k = k.min(w as u128 - 1) as u32;
            let high = self.extract(a, k, w - k);
            return self.sext(high, w);
        }
        self.intern(Node::Bin { op: BinOp::AShr, lhs: a, rhs: b })
    }

    /// Any binary operation by name; what a translator from an IR opcode wants.
    pub fn binary(&mut self, op: BinOp, a: ExprId, b: ExprId) -> ExprId {
        match op {
            BinOp::Add => self.add(a, b),
            BinOp::Sub => self.sub(a, b),
            BinOp::Mul => self.mul(a, b),
            BinOp::UDiv => self.udiv(a, b),
            BinOp::SDiv => self.sdiv(a, b),
            BinOp::URem => self.urem(a, b),
            BinOp::SRem => self.srem(a, b),
            BinOp::And => self.and(a, b),
            BinOp::Or => self.or(a, b),
            BinOp::Xor => self.xor(a, b),
            BinOp::Shl => self.shl(a, b),
            BinOp::LShr => self.lshr(a, b),
            BinOp::AShr => self.ashr(a, b),
        }
    }

    // ---- booleans (width 1) ----

    pub fn bool_not(&mut self, a: ExprId) -> ExprId {
        assert_eq!(self.width(a), 1, "bool_not of a non-boolean");
        self.not(a)
    }

    pub fn bool_and(&mut self, a: ExprId, b: ExprId) -> ExprId {
        assert_eq!(self.width(a), 1, "bool_and of a non-boolean");
        self.and(a, b)
    }

    pub fn bool_or(&mut self, a: ExprId, b: ExprId) -> ExprId {
        assert_eq!(self.width(a), 1, "bool_or of a non-boolean");
        self.or(a, b)
    }

    // ---- comparisons ----

    /// Any comparison, canonical or not, by its LLVM `icmp` predicate name's meaning.
    pub fn compare(&mut self, op: CmpOp, a: ExprId, b: ExprId) -> ExprId {
        match op {
            CmpOp::Eq => self.eq(a, b),
            CmpOp::Ult => self.ult(a, b),
            CmpOp::Ule => self.ule(a, b),
            CmpOp::Slt => self.slt(a, b),
            CmpOp::Sle => self.sle(a, b),
        }
    }

    pub fn eq(&mut self, a: ExprId, b: ExprId) -> ExprId {
        let w = self.same_width("eq", a, b);
        if let Some(e) = self.fold_cmp(CmpOp::Eq, a, b, w) {
            return e;
        }
        if a == b {
            return self.true_();
        }
        let (a, b) = self.commute(a, b);
        if let Some(ca) = self.as_const(a) {
            if w == 1 {
                return if ca == 1 { b } else { self.not(b) };
            }
            if let Some(e) = self.eq_const(ca, b, w) {
                return e;
            }
        } else {
            if self.provably_distinct(a, b) {
                return self.false_();
            }
            match (*self.node(a), *self.node(b)) {
                (Node::ZExt { arg: x, .. }, Node::ZExt { arg: y, .. })
                | (Node::SExt { arg: x, .. }, Node::SExt { arg: y, .. })
                    if self.width(x) == self.width(y) =>
                {
                    return self.eq(x, y);
                }
                (Node::Concat { hi: h1, lo: l1 }, Node::Concat { hi: h2, lo: l2 })
                    if self.width(l1) == self.width(l2) =>
                {
                    let hi = self.eq(h1, h2);
                    let lo = self.eq(l1, l2);
                    return self.and(hi, lo);
                }
                _ => {}
            }
        }
        self.intern(Node::Cmp { op: CmpOp::Eq, lhs: a, rhs: b })
    }

    /// `c == b` for a constant `c` and a non-constant `b` of width > 1.
    fn eq_const(&mut self, c: u128, b: ExprId, w: u32) -> Option<ExprId> {
        Some(match *self.node(b) {
            Node::Bin { op: BinOp::Add, lhs, rhs } if self.is_const(lhs) => {
                let k = self.constant(w, c.wrapping_sub(self.as_const(lhs).unwrap()));
                self.eq(k, rhs)
            }
            Node::Bin { op: BinOp::Sub, lhs, rhs } if self.is_const(lhs) => {
                let k = self.constant(w, self.as_const(lhs).unwrap().wrapping_sub(c));
                self.eq(k, rhs)
            }
            Node::Bin { op: BinOp::Xor, lhs, rhs } if self.is_const(lhs) => {
                let k = self.constant(w, c ^ self.as_const(lhs).unwrap());
                self.eq(k, rhs)
            }
            // x - y = 0 and x ^ y = 0 are x = y.
            Node::Bin { op: BinOp::Sub | BinOp::Xor, lhs, rhs } if c == 0 => self.eq(lhs, rhs),
            // A quotient by d is at most 2^(w-1) / |d| in magnitude: never MIN when |d| >= 2, say.
            Node::Bin { op: BinOp::SDiv, rhs, .. }
                if self.as_const(rhs).is_some_and(|d| {
                    let d = fold::to_signed(d, w).unsigned_abs();
                    d >= 2 && fold::to_signed(c, w).unsigned_abs() > (1u128 << (w - 1)) / d
                }) =>
            {
                self.false_()
            }
            Node::Not(x) => {
                let k = self.constant(w, !c);
                self.eq(k, x)
            }
            Node::ZExt { arg, .. } => {
                let wx = self.width(arg);
                if c > mask(wx) {
                    return Some(self.false_());
                }
                let k = self.constant(wx, c);
                self.eq(k, arg)
            }
            Node::SExt { arg, .. } => {
                let wx = self.width(arg);
                let low = c & mask(wx);
                if fold::sext(low, wx, w) != c {
                    return Some(self.false_());
                }
                let k = self.constant(wx, low);
                self.eq(k, arg)
            }
            Node::Concat { hi, lo } => {
                let wl = self.width(lo);
                let ch = self.constant(w - wl, c >> wl);
                let cl = self.constant(wl, c);
                let h = self.eq(ch, hi);
                let l = self.eq(cl, lo);
                self.and(h, l)
            }
            Node::Ite { cond, then, els } => {
                let (t, e) = (self.as_const(then)?, self.as_const(els)?);
                match (c == t, c == e) {
                    (true, true) => self.true_(),
                    (true, false) => cond,
                    (false, true) => self.not(cond),
                    (false, false) => self.false_(),
                }
            }
            _ => return None,
        })
    }

    pub fn ne(&mut self, a: ExprId, b: ExprId) -> ExprId {
        let e = self.eq(a, b);
        self.not(e)
    }

    pub fn ult(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.ordered(CmpOp::Ult, a, b)
    }

    pub fn ule(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.ordered(CmpOp::Ule, a, b)
    }

    pub fn slt(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.ordered(CmpOp::Slt, a, b)
    }

    pub fn sle(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.ordered(CmpOp::Sle, a, b)
    }

    /// The order comparisons `ult`, `ule`, `slt`, `sle`.
    fn ordered(&mut self, op: CmpOp, a: ExprId, b: ExprId) -> ExprId {
        let w = self.same_width(op.name(), a, b);
        if let Some(e) = self.fold_cmp(op, a, b, w) {
            return e;
        }
        let strict = matches!(op, CmpOp::Ult | CmpOp::Slt);
        let signed = matches!(op, CmpOp::Slt | CmpOp::Sle);
        let (min, max) = if signed { (fold::signed_min(w), fold::signed_max(w)) } else { (0, mask(w)) };
        // a < a, a < min, max < a are false; a ≤ a, min ≤ a, a ≤ max are true.
        let (low, high) = if strict { (b, a) } else { (a, b) };
        if a == b || self.as_const(low) == Some(min) || self.as_const(high) == Some(max) {
            return self.bool_const(!strict);
        }
        if !strict && w > 1 {
            // a ≤ c is a < c + 1, and c ≤ b is c - 1 < b (c is not an extreme here): `x > 4` and
            // `x >= 5` become one expression.
            let strict_op = if signed { CmpOp::Slt } else { CmpOp::Ult };
            if let Some(c) = self.as_const(b) {
                let c1 = self.constant(w, c.wrapping_add(1));
                return self.ordered(strict_op, a, c1);
            }
            if let Some(c) = self.as_const(a) {
                let c1 = self.constant(w, c.wrapping_sub(1));
                return self.ordered(strict_op, c1, b);
            }
        }
        if w == 1 {
            // At width 1, unsigned 1 is the largest value and signed 1 (that is, -1) the smallest.
            let (small, big) = if signed { (b, a) } else { (a, b) };
            let not_small = self.not(small);
            return if strict { self.and(not_small, big) } else { self.or(not_small, big) };
        }
        if !signed {
            let zero = self.constant(w, 0);
            // 0 < b  ⇔  b ≠ 0;   a < 1  ⇔  a = 0;   a ≤ 0  ⇔  a = 0
            if strict && self.as_const(a) == Some(0) {
                return self.ne(zero, b);
            }
            if (strict && self.as_const(b) == Some(1)) || (!strict && self.as_const(b) == Some(0)) {
                return self.eq(zero, a);
            }
        }
        let narrowed =
            if signed { self.narrow_signed_cmp(op, a, b) } else { self.narrow_unsigned_cmp(op, a, b) };
        if let Some(e) = narrowed {
            return e;
        }
        self.intern(Node::Cmp { op, lhs: a, rhs: b })
    }

    pub fn ugt(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.ult(b, a)
    }

    pub fn uge(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.ule(b, a)
    }

    pub fn sgt(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.slt(b, a)
    }

    pub fn sge(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.sle(b, a)
    }

    /// Unsigned comparison of zero-extended operands, done at the narrower width.
    fn narrow_unsigned_cmp(&mut self, op: CmpOp, a: ExprId, b: ExprId) -> Option<ExprId> {
        let strict = op == CmpOp::Ult;
        match (*self.node(a), *self.node(b)) {
            (Node::ZExt { arg: x, .. }, Node::ZExt { arg: y, .. }) if self.width(x) == self.width(y) => {
                Some(self.compare(op, x, y))
            }
            (Node::ZExt { arg: x, .. }, Node::Const { value: c, .. }) => {
                let wx = self.width(x);
                // x ≤ max(x) < c, or x < c with c past x's range: always true.
                if c > mask(wx) || (!strict && c == mask(wx)) {
                    return Some(self.true_());
                }
                let k = self.constant(wx, c);
                Some(self.compare(op, x, k))
            }
            (Node::Const { value: c, .. }, Node::ZExt { arg: y, .. }) => {
                let wy = self.width(y);
                if c > mask(wy) || (strict && c == mask(wy)) {
                    return Some(self.false_());
                }
                let k = self.constant(wy, c);
                Some(self.compare(op, k, y))
            }
            _ => None,
        }
    }

    /// Signed comparison of sign- or zero-extended operands, done at the narrower width.
    fn narrow_signed_cmp(&mut self, op: CmpOp, a: ExprId, b: ExprId) -> Option<ExprId> {
        let w = self.width(a);
        let unsigned = if op == CmpOp::Slt { CmpOp::Ult } else { CmpOp::Ule };
        match (*self.node(a), *self.node(b)) {
            (Node::SExt { arg: x, .. }, Node::SExt { arg: y, .. }) if self.width(x) == self.width(y) => {
                Some(self.compare(op, x, y))
            }
            // Both zero-extended (strictly): both non-negative, so signed order is unsigned order.
            (Node::ZExt { arg: x, .. }, Node::ZExt { arg: y, .. }) if self.width(x) == self.width(y) => {
                Some(self.compare(unsigned, x, y))
            }
            (Node::SExt { arg: x, .. }, Node::Const { value: c, .. }) => {
                let wx = self.width(x);
                let sc = fold::to_signed(c, w);
                if sc > fold::to_signed(fold::signed_max(wx), wx) {
                    return Some(self.true_());
                }
                if sc < fold::to_signed(fold::signed_min(wx), wx) {
                    return Some(self.false_());
                }
                let k = self.constant(wx, c);
                Some(self.compare(op, x, k))
            }
            (Node::Const { value: c, .. }, Node::SExt { arg: y, .. }) => {
                let wy = self.width(y);
                let sc = fold::to_signed(c, w);
                if sc > fold::to_signed(fold::signed_max(wy), wy) {
                    return Some(self.false_());
                }
                if sc < fold::to_signed(fold::signed_min(wy), wy) {
                    return Some(self.true_());
                }
                let k = self.constant(wy, c);
                Some(self.compare(op, k, y))
            }
            (Node::ZExt { arg: x, .. }, Node::Const { value: c, .. }) => {
                // 0 ≤ x ≤ max(x): a negative c is below it, a c past max(x) above it.
                let wx = self.width(x);
                let sc = fold::to_signed(c, w);
                if sc < 0 || (op == CmpOp::Slt && sc == 0) {
                    return Some(self.false_());
                }
                if c > mask(wx) {
                    return Some(self.true_());
                }
                let k = self.constant(wx, c);
                Some(self.compare(unsigned, x, k))
            }
            (Node::Const { value: c, .. }, Node::ZExt { arg: y, .. }) => {
                let wy = self.width(y);
                let sc = fold::to_signed(c, w);
                if sc < 0 || (op == CmpOp::Sle && sc == 0) {
                    return Some(self.true_());
                }
                if c > mask(wy) {
                    return Some(self.false_());
                }
                let k = self.constant(wy, c);
                Some(self.compare(unsigned, k, y))
            }
            _ => None,
        }
    }

    // ---- if-then-else ----

    pub fn ite(&mut self, cond: ExprId, then: ExprId, els: ExprId) -> ExprId {
        assert_eq!(self.width(cond), 1, "ite condition must have width 1");
        let w = self.same_width("ite", then, els);
        if let Some(c) = self.as_const(cond) {
            return if c == 1 { then } else { els };
        }
        if then == els {
            return then;
        }
        if let Node::Not(c) = *self.node(cond) {
            return self.ite(c, els, then);
        }
        if w == 1 {
            match (self.as_const(then), self.as_const(els)) {
                (Some(1), _) => return self.or(cond, els),
                (Some(0), _) => {
                    let nc = self.not(cond);
                    return self.and(nc, els);
                }
                (_, Some(1)) => {
                    let nc = self.not(cond);
                    return self.or(nc, then);
                }
                (_, Some(0)) => return self.and(cond, then),
                _ => {}
            }
        }
        // A nested ite on the same condition takes the same side.
        let then = match *self.node(then) {
            Node::Ite { cond: c, then: t, .. } if c == cond => t,
            _ => then,
        };
        let els = match *self.node(els) {
            Node::Ite { cond: c, els: e, .. } if c == cond => e,
            _ => els,
        };
        if then == els {
            return then;
        }
        self.intern(Node::Ite { cond, then, els })
    }

    // ---- widths ----

    /// `hi` above `lo`; the result has width `width(hi) + width(lo)`.
    pub fn concat(&mut self, hi: ExprId, lo: ExprId) -> ExprId {
        let (wh, wl) = (self.width(hi), self.width(lo));
        assert!(wh > 0 && wl > 0, "concat of an array");
        let w = wh + wl;
        assert!(w <= MAX_WIDTH, "concat result of width {w} is wider than 128");
        match (self.as_const(hi), self.as_const(lo)) {
            (Some(h), Some(l)) => return self.constant(w, (h << wl) | l),
            (Some(0), None) => return self.zext(lo, w),
            _ => {}
        }
        if let Some(e) = self.fuse(hi, lo).or_else(|| self.concat_bitwise(hi, lo)) {
            return e;
        }
        // Copies of lo's sign bit above lo: the bytes of a sign-extended value reassemble.
        let sign_copies = match *self.node(hi) {
            Node::SExt { arg, .. } if self.width(arg) == 1 => Some(arg),
            _ if wh == 1 => Some(hi),
            _ => None,
        };
        if sign_copies.is_some_and(|s| s == self.extract(lo, wl - 1, 1)) {
            return self.sext(lo, w);
        }
        // concat(zext(a), lo) = zext(concat(a, lo)): zero (or sign) high bits stay outermost.
        match *self.node(hi) {
            Node::ZExt { arg, .. } => {
                let inner = self.concat(arg, lo);
                return self.zext(inner, w);
            }
            Node::SExt { arg, .. } => {
                let inner = self.concat(arg, lo);
                return self.sext(inner, w);
            }
            _ => {}
        }
        // concat(hi, concat(lh, ll)) where hi and lh fuse, or both are constants.
        if let Node::Concat { hi: lh, lo: ll } = *self.node(lo) {
            if let Some(f) = self.fuse(hi, lh) {
                return self.concat(f, ll);
            }
            if let (Some(h), Some(l)) = (self.as_const(hi), self.as_const(lh)) {
                let c = self.constant(wh + self.width(lh), (h << self.width(lh)) | l);
                return self.concat(c, ll);
            }
        }
        // Nest to the right.
        if let Node::Concat { hi: hh, lo: hl } = *self.node(hi) {
            let right = self.concat(hl, lo);
            return self.concat(hh, right);
        }
        self.intern(Node::Concat { hi, lo })
    }

    /// `concat(hi, lo)` as one extract, when they are adjacent bits of the same expression. One side
    /// must be an extract; the other is compared with the extract of the neighbouring bits, in its
    /// simplified form (a truncated sum, say, is a narrower sum rather than an extract).
    fn fuse(&mut self, hi: ExprId, lo: ExprId) -> Option<ExprId> {
        let (wh, wl) = (self.width(hi), self.width(lo));
        match (self.as_extract(hi), self.as_extract(lo)) {
            (Some((x, ho)), Some((y, lo_off))) => {
                (x == y && ho == lo_off + wl).then(|| self.extract(x, lo_off, wh + wl))
            }
            (Some((x, offset)), None) if offset >= wl && self.extract(x, offset - wl, wl) == lo => {
                Some(self.extract(x, offset - wl, wh + wl))
            }
            (None, Some((y, offset)))
                if offset + wl + wh <= self.width(y) && self.extract(y, offset + wl, wh) == hi =>
            {
                Some(self.extract(y, offset, wh + wl))
            }
            _ => None,
        }
    }

    /// `concat(op(c1, a), op(c2, b))` as `op(concat(c1, c2), concat(a, b))` for the bitwise operations,
    /// and `concat(not a, not b)` as `not(concat(a, b))`: the bytes of a masked value reassemble.
    fn concat_bitwise(&mut self, hi: ExprId, lo: ExprId) -> Option<ExprId> {
        match (*self.node(hi), *self.node(lo)) {
            (Node::Not(a), Node::Not(b)) => {
                let inner = self.concat(a, b);
                Some(self.not(inner))
            }
            (Node::Bin { op, lhs: c1, rhs: a }, Node::Bin { op: op2, lhs: c2, rhs: b })
                if op == op2
                    && matches!(op, BinOp::And | BinOp::Or | BinOp::Xor)
                    && self.is_const(c1)
                    && self.is_const(c2) =>
            {
                let c = self.concat(c1, c2);
                let x = self.concat(a, b);
                Some(self.binary(op, c, x))
            }
            _ => None,
        }
    }

    /// `e` as `(source, offset)` when it is an extract.
    fn as_extract(&self, e: ExprId) -> Option<(ExprId, u32)> {
        match *self.node(e) {
            Node::Extract { arg, offset, .. } => Some((arg, offset)),
            _ => None,
        }
    }

    /// Bits `offset .. offset + width` of `e`.
    pub fn extract(&mut self, e: ExprId, offset: u32, width: u32) -> ExprId {
        let we = self.width(e);
        assert!(we > 0, "extract from an array");
        assert!(width >= 1 && offset + width <= we, "extract of bits {offset}+{width} from width {we}");
        if width == we {
            return e;
        }
        match *self.node(e) {
            Node::Const { value, .. } => self.constant(width, value >> offset),
            Node::Extract { arg, offset: o, .. } => self.extract(arg, o + offset, width),
            Node::Concat { hi, lo } => {
                let wl = self.width(lo);
                if offset + width <= wl {
                    self.extract(lo, offset, width)
                } else if offset >= wl {
                    self.extract(hi, offset - wl, width)
                } else {
                    let h = self.extract(hi, 0, offset + width - wl);
                    let l = self.extract(lo, offset, wl - offset);
                    self.concat(h, l)
                }
            }
            Node::ZExt { arg, .. } => {
                let wx = self.width(arg);
                if offset + width <= wx {
                    self.extract(arg, offset, width)
                } else if offset >= wx {
                    self.constant(width, 0)
                } else {
                    let part = self.extract(arg, offset, wx - offset);
                    self.zext(part, width)
                }
            }
            Node::SExt { arg, .. } => {
                let wx = self.width(arg);
                if offset + width <= wx {
                    self.extract(arg, offset, width)
                } else {
                    let from = offset.min(wx - 1);
                    let part = self.extract(arg, from, wx - from);
                    self.sext(part, width)
                }
            }
            Node::Not(x) => {
                let part = self.extract(x, offset, width);
                self.not(part)
            }
            Node::Bin { op: op @ (BinOp::And | BinOp::Or | BinOp::Xor), lhs, rhs } if self.is_const(lhs) => {
                let c = self.extract(lhs, offset, width);
                let x = self.extract(rhs, offset, width);
                self.binary(op, c, x)
            }
            Node::Ite { cond, then, els } if self.is_const(then) && self.is_const(els) => {
                let t = self.extract(then, offset, width);
                let f = self.extract(els, offset, width);
                self.ite(cond, t, f)
            }
            _ if offset == 0 && self.can_narrow(e, NARROW_DEPTH) => self.narrow(e, width),
            _ => self.intern(Node::Extract { arg: e, offset, width }),
        }
    }

    /// Whether the low `width` bits of `e` can be computed from low bits of its operands alone, without
    /// growing: truncation distributes over add, sub, mul and the bitwise operations.
    fn can_narrow(&self, e: ExprId, depth: u32) -> bool {
        match *self.node(e) {
            Node::Const { .. } | Node::ZExt { .. } | Node::SExt { .. } => true,
            Node::Extract { .. } | Node::Concat { .. } => true,
            Node::Not(x) => depth > 0 && self.can_narrow(x, depth - 1),
            Node::Bin {
                op: BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor,
                lhs,
                rhs,
            } => depth > 0 && self.can_narrow(lhs, depth - 1) && self.can_narrow(rhs, depth - 1),
            _ => false,
        }
    }

    /// The low `width` bits of `e`, where `can_narrow(e, _)` holds.
    fn narrow(&mut self, e: ExprId, width: u32) -> ExprId {
        match *self.node(e) {
            Node::Not(x) => {
                let n = self.narrow(x, width);
                self.not(n)
            }
            Node::Bin { op, lhs, rhs } => {
                let l = self.narrow(lhs, width);
                let r = self.narrow(rhs, width);
                self.binary(op, l, r)
            }
            Node::ZExt { arg, .. } if self.width(arg) < width => self.zext(arg, width),
            Node::SExt { arg, .. } if self.width(arg) < width => self.sext(arg, width),
            _ => self.extract(e, 0, width),
        }
    }

    /// `e` zero-extended to `width` (≥ its own).
    pub fn zext(&mut self, e: ExprId, width: u32) -> ExprId {
        let we = self.width(e);
        assert!(we > 0 && width >= we && width <= MAX_WIDTH, "zext from width {we} to {width}");
        if width == we {
            return e;
        }
        match *self.node(e) {
            Node::Const { value, .. } => self.constant(width, value),
            Node::ZExt { arg, .. } => self.zext(arg, width),
            _ => self.intern(Node::ZExt { arg: e, width }),
        }
    }

    /// `e` sign-extended to `width` (≥ its own).
    pub fn sext(&mut self, e: ExprId, width: u32) -> ExprId {
        let we = self.width(e);
        assert!(we > 0 && width >= we && width <= MAX_WIDTH, "sext from width {we} to {width}");
        if width == we {
            return e;
        }
        match *self.node(e) {
            Node::Const { value, .. } => self.constant(width, fold::sext(value, we, width)),
            Node::SExt { arg, .. } => self.sext(arg, width),
            // A strict zext has a zero sign bit.
            Node::ZExt { arg, .. } => self.zext(arg, width),
            _ => self.intern(Node::SExt { arg: e, width }),
        }
    }

    /// `e` truncated or zero-extended to `width`.
    pub fn zext_or_trunc(&mut self, e: ExprId, width: u32) -> ExprId {
        if width <= self.width(e) { self.extract(e, 0, width) } else { self.zext(e, width) }
    }

    /// `e` truncated or sign-extended to `width`.
    pub fn sext_or_trunc(&mut self, e: ExprId, width: u32) -> ExprId {
        if width <= self.width(e) { self.extract(e, 0, width) } else { self.sext(e, width) }
    }

    // ---- helpers ----

    fn same_width(&self, what: &str, a: ExprId, b: ExprId) -> u32 {
        let (wa, wb) = (self.width(a), self.width(b));
        assert!(wa == wb && wa > 0, "{what}: operand widths {wa} and {wb} differ");
        wa
    }

    fn fold_bin(&mut self, op: BinOp, a: ExprId, b: ExprId, w: u32) -> Option<ExprId> {
        let (x, y) = (self.as_const(a)?, self.as_const(b)?);
        Some(self.constant(w, fold::binary(op, x, y, w)))
    }

    fn fold_cmp(&mut self, op: CmpOp, a: ExprId, b: ExprId, w: u32) -> Option<ExprId> {
        let (x, y) = (self.as_const(a)?, self.as_const(b)?);
        Some(self.bool_const(fold::compare(op, x, y, w)))
    }

    /// Canonical operand order of a commutative operation.
    fn commute(&self, a: ExprId, b: ExprId) -> (ExprId, ExprId) {
        match (self.is_const(a), self.is_const(b)) {
            (false, true) => (b, a),
            (true, _) => (a, b),
            (false, false) => (a.min(b), a.max(b)),
        }
    }

    /// `op(ca, op(c2, x))` as `op(ca op c2, x)`, for an associative `op`.
    fn reassociate(&mut self, op: BinOp, ca: u128, b: ExprId) -> Option<ExprId> {
        let (c2, x) = self.const_operand(op, b)?;
        let w = self.width(b);
        let c = self.constant(w, fold::binary(op, ca, self.as_const(c2)?, w));
        Some(self.binary(op, c, x))
    }

    /// `e` as `(constant, x)` when it is `op(constant, x)`.
    fn const_operand(&self, op: BinOp, e: ExprId) -> Option<(ExprId, ExprId)> {
        match *self.node(e) {
            Node::Bin { op: o, lhs, rhs } if o == op && self.is_const(lhs) => Some((lhs, rhs)),
            _ => None,
        }
    }

    fn complements(&self, a: ExprId, b: ExprId) -> bool {
        *self.node(a) == Node::Not(b) || *self.node(b) == Node::Not(a)
    }

    /// `mask & e` as a concat of extracts of `e` and zeros, when the mask has at most `MAX_MASK_RUNS`
    /// runs of ones: the form that storing and reloading the bytes of `mask & e` also gives.
    fn keep_bits(&mut self, e: ExprId, mask: u128) -> Option<ExprId> {
        let w = self.width(e);
        let runs = fold::runs(mask, w);
        if runs.len() > 2 * MAX_MASK_RUNS {
            return None;
        }
        let mut result: Option<ExprId> = None;
        for (offset, len, ones) in runs {
            let piece = if ones { self.extract(e, offset, len) } else { self.constant(len, 0) };
            result = Some(match result {
                None => piece,
                Some(low) => self.concat(piece, low),
            });
        }
        result
    }

    /// `a | b` (equally `a + b`, `a ^ b`) as a concat when the set bits of `a` and `b` cannot overlap:
    /// one has `k` known-zero low bits and the other known-zero bits above `k`.
    fn disjoint_bits(&mut self, a: ExprId, b: ExprId) -> Option<ExprId> {
        let w = self.width(a);
        for (x, y) in [(a, b), (b, a)] {
            let k = self.known_trailing_zeros(x, 2);
            if k > 0 && k < w && self.known_leading_zeros(y, 2) >= w - k {
                let hi = self.extract(x, k, w - k);
                let lo = self.extract(y, 0, k);
                return Some(self.concat(hi, lo));
            }
        }
        None
    }

    fn known_leading_zeros(&self, e: ExprId, depth: u32) -> u32 {
        let w = self.width(e);
        match *self.node(e) {
            Node::Const { value, .. } => value.leading_zeros() - (128 - w),
            Node::ZExt { arg, .. } => {
                let inner = if depth > 0 { self.known_leading_zeros(arg, depth - 1) } else { 0 };
                w - self.width(arg) + inner
            }
            Node::Concat { hi, lo } if depth > 0 => {
                let lz = self.known_leading_zeros(hi, depth - 1);
                if lz == self.width(hi) { lz + self.known_leading_zeros(lo, depth - 1) } else { lz }
            }
            _ => 0,
        }
    }

    fn known_trailing_zeros(&self, e: ExprId, depth: u32) -> u32 {
        let w = self.width(e);
        match *self.node(e) {
            Node::Const { value, .. } => value.trailing_zeros().min(w),
            Node::Concat { hi, lo } if depth > 0 => {
                let tz = self.known_trailing_zeros(lo, depth - 1);
                if tz == self.width(lo) { tz + self.known_trailing_zeros(hi, depth - 1) } else { tz }
            }
            Node::ZExt { arg, .. } if depth > 0 => {
                let tz = self.known_trailing_zeros(arg, depth - 1);
                if tz == self.width(arg) { w } else { tz }
            }
            _ => 0,
        }
    }
}
