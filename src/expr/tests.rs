use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::testgen::{Tree, interesting};

const BYTES: u64 = 4;
use super::*;

fn pool_with_input(size: u64) -> (ExprPool, ArrayId) {
    let mut pool = ExprPool::new();
    let x = pool.array("x", size, 0);
    (pool, x)
}

/// A little-endian word of input bytes `start..start + n`, as a load of `n` bytes gives.
fn load(pool: &mut ExprPool, x: ArrayId, start: u64, n: u64) -> ExprId {
    let mut word = pool.read_input(x, start);
    for i in 1..n {
        let b = pool.read_input(x, start + i);
        word = pool.concat(b, word);
    }
    word
}

/// The bytes of `e` as a store of `n` bytes gives them.
fn store_bytes(pool: &mut ExprPool, e: ExprId, n: u32) -> Vec<ExprId> {
    (0..n).map(|i| pool.extract(e, 8 * i, 8)).collect()
}

fn assignment(x: ArrayId, bytes: &[u8]) -> Assignment {
    let mut a = Assignment::new();
    a.set_bytes(x, bytes);
    a
}

// ---- constant folding against Rust's arithmetic ----

macro_rules! check_width {
    ($u:ty, $i:ty, $w:expr, $rng:expr) => {{
        let w: u32 = $w;
        let mut pool = ExprPool::new();
        for _ in 0..2000 {
            let a = interesting($rng, w) as $u;
            let b = interesting($rng, w) as $u;
            let (sa, sb) = (a as $i, b as $i);
            let (ca, cb) = (pool.constant(w, a as u128), pool.constant(w, b as u128));
            let got = |pool: &mut ExprPool, op: BinOp| {
                let e = pool.binary(op, ca, cb);
                pool.as_const(e).expect("constants fold") as $u
            };
            assert_eq!(got(&mut pool, BinOp::Add), a.wrapping_add(b), "{a} + {b}");
            assert_eq!(got(&mut pool, BinOp::Sub), a.wrapping_sub(b), "{a} - {b}");
            assert_eq!(got(&mut pool, BinOp::Mul), a.wrapping_mul(b), "{a} * {b}");
            assert_eq!(got(&mut pool, BinOp::UDiv), a.checked_div(b).unwrap_or(<$u>::MAX), "{a} / {b}");
            assert_eq!(got(&mut pool, BinOp::URem), a.checked_rem(b).unwrap_or(a), "{a} % {b}");
            let sdiv = if sb == 0 { if sa < 0 { 1 } else { -1 } } else { sa.wrapping_div(sb) };
            assert_eq!(got(&mut pool, BinOp::SDiv) as $i, sdiv, "{sa} s/ {sb}");
            let srem = if sb == 0 { sa } else { sa.wrapping_rem(sb) };
            assert_eq!(got(&mut pool, BinOp::SRem) as $i, srem, "{sa} s% {sb}");
            assert_eq!(got(&mut pool, BinOp::And), a & b);
            assert_eq!(got(&mut pool, BinOp::Or), a | b);
            assert_eq!(got(&mut pool, BinOp::Xor), a ^ b);
            let sh = (b % (w as $u + 2)) as u32;
            let shc = pool.constant(w, sh as u128);
            let shift = |pool: &mut ExprPool, op: BinOp| {
                let e = pool.binary(op, ca, shc);
                pool.as_const(e).unwrap() as $u
            };
            assert_eq!(shift(&mut pool, BinOp::Shl), a.checked_shl(sh).unwrap_or(0), "{a} << {sh}");
            assert_eq!(shift(&mut pool, BinOp::LShr), a.checked_shr(sh).unwrap_or(0), "{a} >> {sh}");
            let ashr = sa.checked_shr(sh).unwrap_or(if sa < 0 { -1 } else { 0 });
            assert_eq!(shift(&mut pool, BinOp::AShr) as $i, ashr, "{sa} >>s {sh}");
            let cmp = |pool: &mut ExprPool, e: fn(&mut ExprPool, ExprId, ExprId) -> ExprId| {
                let r = e(pool, ca, cb);
                pool.as_const(r).unwrap() == 1
            };
            assert_eq!(cmp(&mut pool, ExprPool::eq), a == b);
            assert_eq!(cmp(&mut pool, ExprPool::ne), a != b);
            assert_eq!(cmp(&mut pool, ExprPool::ult), a < b);
            assert_eq!(cmp(&mut pool, ExprPool::ule), a <= b);
            assert_eq!(cmp(&mut pool, ExprPool::ugt), a > b);
            assert_eq!(cmp(&mut pool, ExprPool::uge), a >= b);
            assert_eq!(cmp(&mut pool, ExprPool::slt), sa < sb);
            assert_eq!(cmp(&mut pool, ExprPool::sle), sa <= sb);
            assert_eq!(cmp(&mut pool, ExprPool::sgt), sa > sb);
            assert_eq!(cmp(&mut pool, ExprPool::sge), sa >= sb);
            let n = pool.not(ca);
            assert_eq!(pool.as_const(n).unwrap() as $u, !a);
            let n = pool.neg(ca);
            assert_eq!(pool.as_const(n).unwrap() as $u, a.wrapping_neg());
        }
    }};
}

#[test]
fn fold_matches_rust_arithmetic() {
    let rng = &mut ChaCha8Rng::seed_from_u64(1);
    check_width!(u8, i8, 8, rng);
    check_width!(u16, i16, 16, rng);
    check_width!(u32, i32, 32, rng);
    check_width!(u64, i64, 64, rng);
    check_width!(u128, i128, 128, rng);
}

#[test]
fn fold_width_1_is_boolean_logic() {
    let mut pool = ExprPool::new();
    for a in [false, true] {
        for b in [false, true] {
            let (ca, cb) = (pool.bool_const(a), pool.bool_const(b));
            let v = |pool: &ExprPool, e| pool.as_const(e).unwrap() == 1;
            let e = pool.bool_and(ca, cb);
            assert_eq!(v(&pool, e), a & b);
            let e = pool.bool_or(ca, cb);
            assert_eq!(v(&pool, e), a | b);
            let e = pool.xor(ca, cb);
            assert_eq!(v(&pool, e), a ^ b);
            let e = pool.add(ca, cb);
            assert_eq!(v(&pool, e), a ^ b);
            let e = pool.mul(ca, cb);
            assert_eq!(v(&pool, e), a & b);
            let e = pool.bool_not(ca);
            assert_eq!(v(&pool, e), !a);
            let e = pool.ult(ca, cb);
            assert_eq!(v(&pool, e), !a & b);
            // At width 1, true is -1.
            let e = pool.slt(ca, cb);
            assert_eq!(v(&pool, e), a & !b);
            let e = pool.sext(ca, 8);
            assert_eq!(pool.as_const(e), Some(if a { 0xff } else { 0 }));
        }
    }
}

#[test]
fn fold_extensions_and_extracts() {
    let mut pool = ExprPool::new();
    let c = pool.constant(8, 0x80);
    let z = pool.zext(c, 32);
    assert_eq!(pool.as_const(z), Some(0x80));
    let s = pool.sext(c, 32);
    assert_eq!(pool.as_const(s), Some(0xffff_ff80));
    let s = pool.sext(c, 128);
    assert_eq!(pool.as_const(s), Some((-128i128) as u128));
    let e = pool.extract(s, 60, 8);
    assert_eq!(pool.as_const(e), Some(0xff));
    let big = pool.constant(128, u128::MAX - 5);
    let lo = pool.constant(64, 7);
    let cat = pool.concat(lo, pool.as_const(lo).map(|_| c).unwrap());
    assert_eq!(pool.as_const(cat), Some(0x780));
    assert_eq!(pool.as_const(big), Some(u128::MAX - 5));
    let masked = pool.constant(4, 0x1f);
    assert_eq!(pool.as_const(masked), Some(0xf));
}

// ---- hash-consing and simplification rules ----

#[test]
fn hash_consing_gives_structural_equality() {
    let (mut pool, x) = pool_with_input(4);
    let a = pool.read_input(x, 0);
    let b = pool.read_input(x, 1);
    let s1 = pool.add(a, b);
    let s2 = pool.add(b, a);
    assert_eq!(s1, s2, "commutative operands are ordered");
    let n = pool.len();
    let s3 = pool.add(a, b);
    assert_eq!(s3, s1);
    assert_eq!(pool.len(), n, "no new node for an existing expression");
    // The same input object in two states is the same array.
    assert_eq!(pool.array("x", 4, 0), x);
    assert_ne!(pool.array("x", 4, 1), x);
}

#[test]
fn identities() {
    let (mut pool, x) = pool_with_input(4);
    let v = load(&mut pool, x, 0, 4);
    let zero = pool.constant(32, 0);
    let one = pool.constant(32, 1);
    let ones = pool.constant(32, u32::MAX as u128);
    assert_eq!(pool.add(v, zero), v);
    assert_eq!(pool.mul(v, one), v);
    assert_eq!(pool.mul(v, zero), zero);
    assert_eq!(pool.and(v, v), v);
    assert_eq!(pool.or(v, v), v);
    assert_eq!(pool.xor(v, v), zero);
    assert_eq!(pool.and(v, zero), zero);
    assert_eq!(pool.or(v, ones), ones);
    assert_eq!(pool.and(ones, v), v);
    assert_eq!(pool.sub(v, v), zero);
    let t = pool.eq(v, v);
    assert_eq!(pool.as_const(t), Some(1));
    let nv = pool.not(v);
    assert_eq!(pool.not(nv), v);
    assert_eq!(pool.and(v, nv), zero);
    assert_eq!(pool.or(v, nv), ones);
    let c = pool.ult(v, one);
    let (tr, fa) = (pool.true_(), pool.false_());
    assert_eq!(pool.ite(tr, v, zero), v);
    assert_eq!(pool.ite(fa, v, zero), zero);
    assert_eq!(pool.ite(c, v, v), v);
    assert_eq!(pool.ite(c, tr, fa), c);
    let nc = pool.bool_not(c);
    assert_eq!(pool.ite(c, fa, tr), nc);
    // Constants gather on the left: (x + 3) + 4 = 7 + x, and (x - 3) = -3 + x.
    let three = pool.constant(32, 3);
    let four = pool.constant(32, 4);
    let a = pool.add(v, three);
    let b = pool.add(a, four);
    let seven = pool.constant(32, 7);
    assert_eq!(b, pool.add(seven, v));
    let d = pool.sub(b, seven);
    assert_eq!(d, v);
    // Comparisons of x + c against a constant move the constant.
    let e = pool.eq(b, seven);
    assert_eq!(e, pool.eq(zero, v));
}

#[test]
fn load_of_stored_bytes_gives_back_the_value() {
    let (mut pool, x) = pool_with_input(8);
    let v = load(&mut pool, x, 0, 4);
    let y = pool.constant(32, 0x1234_5678);
    let sum = pool.add(v, y);
    let low_zero = pool.constant(32, 0x100);
    let sum2 = pool.add(v, low_zero);
    let mask = pool.constant(32, 0x00f0_ff0f);
    let masked = pool.and(v, mask);
    let flipped = pool.not(v);
    for value in [v, sum, sum2, masked, flipped] {
        let bytes = store_bytes(&mut pool, value, 4);
        // Little-endian reload, nested to the right and to the left.
        let mut right = bytes[0];
        for &b in &bytes[1..] {
            right = pool.concat(b, right);
        }
        assert_eq!(right, value, "{}", pool.display(right));
        let hi = pool.concat(bytes[3], bytes[2]);
        let lo = pool.concat(bytes[1], bytes[0]);
        let left = pool.concat(hi, lo);
        assert_eq!(left, value);
        // A 2-byte load from the middle is an extract.
        let mid = pool.concat(bytes[2], bytes[1]);
        assert_eq!(mid, pool.extract(value, 8, 16));
    }
    // An 8-byte value stored and reloaded.
    let w = load(&mut pool, x, 0, 8);
    let bytes = store_bytes(&mut pool, w, 8);
    let mut r = bytes[0];
    for &b in &bytes[1..] {
        r = pool.concat(b, r);
    }
    assert_eq!(r, w);
}

#[test]
fn extracts_resolve_through_extensions_and_concats() {
    let (mut pool, x) = pool_with_input(4);
    let b = pool.read_input(x, 0);
    let z = pool.zext(b, 32);
    assert_eq!(pool.extract(z, 0, 8), b);
    let zero = pool.constant(8, 0);
    assert_eq!(pool.extract(z, 8, 8), zero);
    let s = pool.sext(b, 32);
    assert_eq!(pool.extract(s, 0, 8), b);
    let top = pool.extract(s, 24, 8);
    let sign = pool.extract(b, 7, 1);
    assert_eq!(top, pool.sext(sign, 8));
    let w = load(&mut pool, x, 0, 4);
    assert_eq!(pool.extract(w, 16, 8), pool.read_input(x, 2));
    // (x >> 8) & 0xff is byte 1; (b0 | b1 << 8) is the 2-byte load.
    let eight = pool.constant(32, 8);
    let sh = pool.lshr(w, eight);
    let m = pool.constant(32, 0xff);
    let byte1 = pool.and(sh, m);
    let b1 = pool.read_input(x, 1);
    assert_eq!(byte1, pool.zext(b1, 32));
    let z0 = pool.zext(b, 32);
    let z1 = pool.zext(b1, 32);
    let s1 = pool.shl(z1, eight);
    let assembled = pool.or(z0, s1);
    let half = load(&mut pool, x, 0, 2);
    assert_eq!(assembled, pool.zext(half, 32));
    // Truncating char arithmetic done at int width gives the char arithmetic.
    let sum32 = pool.add(z0, z1);
    let sum8 = pool.add(b, b1);
    assert_eq!(pool.extract(sum32, 0, 8), sum8);
    // zext/sext of constants fold, and extensions compose.
    let z16 = pool.zext(b, 16);
    assert_eq!(pool.zext(z16, 64), pool.zext(b, 64));
    let s16 = pool.sext(b, 16);
    assert_eq!(pool.sext(s16, 64), pool.sext(b, 64));
}

#[test]
fn comparisons_narrow_to_the_extended_width() {
    let (mut pool, x) = pool_with_input(4);
    let b = pool.read_input(x, 0);
    let s = pool.sext(b, 32);
    let c = pool.constant(32, 97);
    let gt = pool.sgt(s, c);
    let c8 = pool.constant(8, 97);
    assert_eq!(gt, pool.sgt(b, c8));
    let z = pool.zext(b, 32);
    let big = pool.constant(32, 300);
    let lt = pool.ult(z, big);
    assert_eq!(pool.as_const(lt), Some(1));
    let e = pool.eq(z, big);
    assert_eq!(pool.as_const(e), Some(0));
    // Equivalent patches give one expression: x > 4 and x >= 5, x <= 9 and x < 10, a - b == 0 and a == b.
    let w = load(&mut pool, x, 0, 4);
    let (four, five) = (pool.constant(32, 4), pool.constant(32, 5));
    assert_eq!(pool.sgt(w, four), pool.sge(w, five));
    assert_eq!(pool.ugt(w, four), pool.uge(w, five));
    let (nine, ten) = (pool.constant(32, 9), pool.constant(32, 10));
    assert_eq!(pool.sle(w, nine), pool.slt(w, ten));
    let d = pool.sub(w, z);
    let zero32 = pool.constant(32, 0);
    assert_eq!(pool.eq(d, zero32), pool.eq(w, z));
    // C's `if (cond)` on a zero-extended comparison result comes back to the comparison.
    let cmp = pool.ult(b, c8);
    let widened = pool.zext(cmp, 32);
    let zero = pool.constant(32, 0);
    let test = pool.ne(widened, zero);
    assert_eq!(test, cmp);
}

#[test]
fn sign_extended_bytes_reassemble() {
    // A `long long` parameter at -O0: sext(x) stored to the stack, reloaded byte by byte.
    let (mut pool, x) = pool_with_input(4);
    let v = load(&mut pool, x, 0, 4);
    let wide = pool.sext(v, 64);
    let bytes = store_bytes(&mut pool, wide, 8);
    let mut right = bytes[0];
    for &b in &bytes[1..] {
        right = pool.concat(b, right);
    }
    assert_eq!(right, wide, "{}", pool.display(right));
    let mut left = bytes[7];
    for &b in bytes[..7].iter().rev() {
        left = pool.concat(left, b);
    }
    assert_eq!(left, wide, "{}", pool.display(left));
    // A sign byte above a byte that does not carry that sign is no extension of that byte.
    let b0 = pool.read_input(x, 0);
    let other_sign = pool.extract(b0, 7, 1);
    let s = pool.sext(other_sign, 8);
    let b1 = pool.read_input(x, 1);
    let c = pool.concat(s, b1);
    assert_ne!(c, pool.sext(b1, 16), "{}", pool.display(c));
}

#[test]
fn remainders_of_extended_values_narrow() {
    let (mut pool, x) = pool_with_input(8);
    let a = load(&mut pool, x, 0, 4);
    let b = load(&mut pool, x, 4, 4);
    let (sa, sb) = (pool.sext(a, 64), pool.sext(b, 64));
    let srem = pool.srem(sa, sb);
    let narrow = pool.srem(a, b);
    assert_eq!(srem, pool.sext(narrow, 64));
    let (za, zb) = (pool.zext(a, 64), pool.zext(b, 64));
    let urem = pool.urem(za, zb);
    let narrow_u = pool.urem(a, b);
    assert_eq!(urem, pool.zext(narrow_u, 64));
    // A constant narrows when it is the extension of its truncation.
    let m7 = pool.constant(64, (-7i64) as u64 as u128);
    let by_const = pool.srem(sa, m7);
    assert!(matches!(pool.node(by_const), Node::SExt { .. }));
    let big = pool.constant(64, 1 << 40);
    let wide = pool.srem(sa, big);
    assert!(matches!(pool.node(wide), Node::Bin { op: BinOp::SRem, .. }));
    // Division does not narrow: INT_MIN / -1 and x / 0 leave the narrow width.
    let sdiv = pool.sdiv(sa, sb);
    assert!(matches!(pool.node(sdiv), Node::Bin { op: BinOp::SDiv, .. }));
    // Edge values agree with the 64-bit semantics.
    for (p, q) in [(i32::MIN, -1), (i32::MIN, 0), (7, 0), (-7, 3), (7, -3), (i32::MAX, i32::MIN), (-1, 0)] {
        let mut bytes = p.to_le_bytes().to_vec();
        bytes.extend_from_slice(&q.to_le_bytes());
        let asg = assignment(x, &bytes);
        let want = if q == 0 { i64::from(p) } else { i64::from(p) % i64::from(q) };
        assert_eq!(pool.eval(srem, &asg) as u64 as i64, want, "{p} srem {q}");
        let want_u = if q == 0 { u64::from(p as u32) } else { u64::from(p as u32) % u64::from(q as u32) };
        assert_eq!(pool.eval(urem, &asg) as u64, want_u, "{p} urem {q}");
    }
}

#[test]
fn select_skips_stores_that_miss() {
    let (mut pool, x) = pool_with_input(4);
    let y = pool.array("y", 1, 1);
    let arr = pool.const_array(&[1, 2, 3, 4]);
    let i = load(&mut pool, x, 0, 4);
    let i64_ = pool.zext(i, 64);
    let v = pool.read_input(y, 0);
    let k = |pool: &mut ExprPool, k: u64| pool.constant(64, k as u128);
    let k2 = k(&mut pool, 2);
    let stored = pool.store(arr, k2, v);
    // A constant index that misses a constant store reads the constant array.
    let k1 = k(&mut pool, 1);
    let r = pool.select(stored, k1);
    assert_eq!(pool.as_const(r), Some(2));
    assert_eq!(pool.select(stored, k2), v);
    // A symbolic store blocks the shortcut, unless the indices differ by a constant.
    let sym = pool.store(stored, i64_, v);
    let r = pool.select(sym, k1);
    assert!(matches!(pool.node(r), Node::Select { .. }));
    let one = k(&mut pool, 1);
    let next = pool.add(i64_, one);
    let r = pool.select(sym, next);
    assert_eq!(*pool.node(r), Node::Select { array: stored, index: next });
    assert_eq!(pool.select(sym, i64_), v);
    // Constant index into an input array is the input byte.
    let ia = pool.input_array(x);
    let r = pool.select(ia, k2);
    assert_eq!(r, pool.read_input(x, 2));
    // Evaluation follows the store chain.
    let mut a = assignment(x, &[1, 0, 0, 0]);
    a.set_byte(y, 0, 9);
    let r = pool.select(sym, k1);
    assert_eq!(pool.eval(r, &a), 9);
    let r = pool.select(sym, k2);
    assert_eq!(pool.eval(r, &a), 9);
    let k3 = k(&mut pool, 3);
    let r = pool.select(sym, k3);
    assert_eq!(pool.eval(r, &a), 4);
}

#[test]
fn metadata_and_revision_substitution() {
    let (mut pool, x) = pool_with_input(4);
    let y = pool.array("y", 2, 1);
    let rev = pool.revision();
    let b = pool.read_input(x, 0);
    let yb = pool.read_input(y, 1);
    let z = pool.zext(b, 32);
    let sum = pool.add(z, rev);
    let yz = pool.zext(yb, 32);
    let both = pool.mul(sum, yz);
    assert!(pool.mentions_revision(both));
    assert!(!pool.mentions_revision(z));
    assert_eq!(pool.arrays_of(both), &[x, y]);
    assert_eq!(pool.arrays_of(z), &[x]);
    assert_eq!(pool.width(both), 32);
    let one = pool.constant(32, 1);
    let cond = pool.eq(rev, one);
    let pick = pool.ite(cond, z, yz);
    assert_eq!(pool.substitute_revision(pick, 1), z);
    assert_eq!(pool.substitute_revision(pick, 2), yz);
    let s = pool.substitute_revision(both, 5);
    let five = pool.constant(32, 5);
    let sum5 = pool.add(five, z);
    assert_eq!(s, pool.mul(sum5, yz));
    assert!(!pool.mentions_revision(s));
    let mut a = assignment(x, &[3]);
    a.set_byte(y, 1, 2);
    a.set_revision(5);
    assert_eq!(pool.eval(both, &a), 16);
    assert_eq!(pool.eval(s, &a), 16);
}

#[test]
fn printer_is_readable() {
    let (mut pool, x) = pool_with_input(4);
    let w = load(&mut pool, x, 0, 4);
    let three = pool.constant(32, 3);
    let sum = pool.add(w, three);
    let sq = pool.mul(sum, sum);
    let big = pool.constant(32, 0xdead_beef);
    let c = pool.ult(sq, big);
    assert_eq!(pool.display(c).to_string(), "(ult (mul N0:(add 3:w32 x[3:0]) N0) 0xdeadbeef:w32)");
    let b = pool.read_input(x, 1);
    let z = pool.sext(b, 16);
    assert_eq!(pool.display(z).to_string(), "(sext w16 x[1])");
    let rev = pool.revision();
    let e = pool.eq(rev, three);
    assert_eq!(pool.display(e).to_string(), "(eq 3:w32 rev)");
}

// ---- soundness of the simplifier against the reference semantics ----

#[test]
fn simplifier_is_sound_on_random_trees() {
    let rng = &mut ChaCha8Rng::seed_from_u64(7);
    let (mut pool, x) = pool_with_input(BYTES);
    let mut checked = 0;
    for round in 0..4000 {
        let w = [1, 8, 16, 32, 64, 128, 3, 24][round % 8];
        let tree = Tree::random(rng, w, 5, BYTES);
        let e = tree.build(&mut pool, x);
        assert_eq!(pool.width(e), w);
        for _ in 0..16 {
            let bytes: Vec<u8> = (0..BYTES).map(|_| interesting(rng, 8) as u8).collect();
            let a = assignment(x, &bytes);
            let (got, want) = (pool.eval(e, &a), tree.eval(&bytes));
            assert_eq!(got, want, "tree {tree:?}\nsimplified {}\ninputs {bytes:?}", pool.display(e));
            checked += 1;
        }
    }
    assert_eq!(checked, 4000 * 16);
}

#[test]
fn substitution_is_sound_on_random_trees() {
    let rng = &mut ChaCha8Rng::seed_from_u64(11);
    let (mut pool, x) = pool_with_input(BYTES);
    let rev = pool.revision();
    for _ in 0..500 {
        let tree = Tree::random(rng, 32, 4, BYTES);
        let e = tree.build(&mut pool, x);
        let mixed = pool.add(e, rev);
        let r: u32 = rng.random_range(0..4);
        let s = pool.substitute_revision(mixed, r);
        assert!(!pool.mentions_revision(s));
        let bytes: Vec<u8> = (0..BYTES).map(|_| rng.random()).collect();
        let mut a = assignment(x, &bytes);
        a.set_revision(r);
        assert_eq!(pool.eval(s, &a), pool.eval(mixed, &a));
    }
}

#[test]
fn select_simplification_is_sound_on_random_store_chains() {
    // Reference: a byte vector updated store by store, read at the end.
    let rng = &mut ChaCha8Rng::seed_from_u64(13);
    let (mut pool, x) = pool_with_input(2);
    for _ in 0..2000 {
        let base: Vec<u8> = (0..6).map(|_| rng.random_range(0..3)).collect();
        let input_base = rng.random_bool(0.3);
        let mut arr = if input_base { pool.input_array(x) } else { pool.const_array(&base) };
        // Index shapes: constants, x0, x0 + k, x1 (zero-extended to 64 bits).
        let shapes: Vec<(u8, u64)> =
            (0..rng.random_range(1..6)).map(|_| (rng.random_range(0..4), rng.random_range(0..6))).collect();
        let index = |pool: &mut ExprPool, (shape, k): (u8, u64)| {
            let byte = |pool: &mut ExprPool, i| {
                let b = pool.read_input(x, i);
                pool.zext(b, 64)
            };
            match shape {
                0 => pool.constant(64, k as u128),
                1 => byte(pool, 0),
                2 => {
                    let b = byte(pool, 0);
                    let c = pool.constant(64, k as u128);
                    pool.add(b, c)
                }
                _ => byte(pool, 1),
            }
        };
        let concrete = |(shape, k): (u8, u64), bytes: &[u8]| match shape {
            0 => k,
            1 => bytes[0] as u64,
            2 => bytes[0] as u64 + k,
            _ => bytes[1] as u64,
        };
        let mut stores = Vec::new();
        for &shape in &shapes[1..] {
            let value: u8 = rng.random();
            let i = index(&mut pool, shape);
            let v = pool.constant(8, value as u128);
            arr = pool.store(arr, i, v);
            stores.push((shape, value));
        }
        let read = index(&mut pool, shapes[0]);
        let e = pool.select(arr, read);
        for _ in 0..8 {
            let bytes = [rng.random_range(0..7), rng.random_range(0..7)];
            let mut memory: Vec<u8> = if input_base { bytes.to_vec() } else { base.clone() };
            memory.resize(16, 0);
            for &(shape, value) in &stores {
                memory[concrete(shape, &bytes) as usize] = value;
            }
            let want = memory[concrete(shapes[0], &bytes) as usize];
            let got = pool.eval(e, &assignment(x, &bytes));
            assert_eq!(got, want as u128, "{} on {bytes:?}", pool.display(e));
        }
    }
}

// ---- exhaustive soundness of the extension rules at small widths ----

/// Checks `tree` against its reference on every value of input bytes 0 and 1 (low `bits` bits each).
fn check_exhaustively(pool: &mut ExprPool, x: ArrayId, tree: &Tree, bits: u32) {
    let e = tree.build(pool, x);
    for p in 0..1u16 << bits {
        for q in 0..1u16 << bits {
            let bytes = [p as u8, q as u8];
            let a = assignment(x, &bytes);
            assert_eq!(
                pool.eval(e, &a),
                tree.eval(&bytes),
                "tree {tree:?}\nsimplified {}\ninputs {bytes:?}",
                pool.display(e)
            );
        }
    }
}

#[test]
fn remainder_narrowing_is_sound_exhaustively() {
    let (mut pool, x) = pool_with_input(2);
    let narrow = |i: u64, n: u32| Tree::Extract(Box::new(Tree::Byte(i)), 0, n);
    for n in 1..=4 {
        for m in [n + 1, n + 3, 8, 16] {
            let ext = |signed: bool, t: Tree| {
                if signed { Tree::SExt(Box::new(t), m) } else { Tree::ZExt(Box::new(t), m) }
            };
            // Every constant that fits m bits when m is small, else the boundary values.
            let consts: Vec<u128> = if m <= 6 {
                (0..1u128 << m).collect()
            } else {
                vec![
                    0,
                    1,
                    2,
                    3,
                    7,
                    (1 << (n - 1)) - 1,
                    1 << (n - 1),
                    (1 << n) - 1,
                    1 << n,
                    fold::mask(m) - 1,
                    fold::mask(m),
                ]
            };
            for op in [BinOp::SRem, BinOp::URem] {
                for (sa, sb) in [(true, true), (false, false), (true, false), (false, true)] {
                    let t = Tree::Bin(op, Box::new(ext(sa, narrow(0, n))), Box::new(ext(sb, narrow(1, n))));
                    check_exhaustively(&mut pool, x, &t, n);
                }
                for signed in [true, false] {
                    for &c in &consts {
                        let k = || Box::new(Tree::Const(m, c & fold::mask(m)));
                        let v = || Box::new(ext(signed, narrow(0, n)));
                        check_exhaustively(&mut pool, x, &Tree::Bin(op, v(), k()), n);
                        check_exhaustively(&mut pool, x, &Tree::Bin(op, k(), v()), n);
                    }
                }
            }
        }
    }
}

#[test]
fn sign_extension_reassembly_is_sound_exhaustively() {
    let (mut pool, x) = pool_with_input(2);
    for n in 1..=8 {
        for m in [n + 1, 12, 16] {
            let wide = Tree::SExt(Box::new(Tree::Extract(Box::new(Tree::Byte(0)), 0, n)), m);
            for k in 1..m {
                // Pieces of k bits (the top one narrower), reassembled nested either way.
                let cuts: Vec<(u32, u32)> = (0..m).step_by(k as usize).map(|o| (o, k.min(m - o))).collect();
                let piece = |&(o, w): &(u32, u32)| Tree::Extract(Box::new(wide.clone()), o, w);
                let right = cuts
                    .iter()
                    .skip(1)
                    .fold(piece(&cuts[0]), |lo, c| Tree::Concat(Box::new(piece(c)), Box::new(lo)));
                check_exhaustively(&mut pool, x, &right, 8);
                let left = cuts.iter().rev().skip(1).fold(piece(cuts.last().unwrap()), |hi, c| {
                    Tree::Concat(Box::new(hi), Box::new(piece(c)))
                });
                check_exhaustively(&mut pool, x, &left, 8);
            }
            // Sign copies of some other bit above a value: not a sign extension of it.
            for bit in 0..8 {
                let s = Tree::Extract(Box::new(Tree::Byte(1)), bit, 1);
                let lo = Tree::Extract(Box::new(Tree::Byte(0)), 0, n);
                let copies = Tree::SExt(Box::new(s.clone()), m - n);
                check_exhaustively(&mut pool, x, &Tree::Concat(Box::new(copies), Box::new(lo.clone())), 8);
                check_exhaustively(&mut pool, x, &Tree::Concat(Box::new(s), Box::new(lo)), 8);
            }
        }
    }
}

#[test]
fn signed_division_through_negation_and_ite_is_sound_exhaustively() {
    let (mut pool, x) = pool_with_input(2);
    // Every dividend (byte 0), with the ite condition (the sign of byte 1) either way.
    let mut check = |t: Tree| {
        let e = t.build(&mut pool, x);
        for v in 0..=255u8 {
            for s in [0, 0x80] {
                assert_eq!(pool.eval(e, &assignment(x, &[v, s])), t.eval(&[v, s]), "{t:?} at {v}, {s}");
            }
        }
    };
    let b = |i: u64| Box::new(Tree::Byte(i));
    let k = |c: u128| Box::new(Tree::Const(8, c));
    let neg = |t: Box<Tree>| Box::new(Tree::Bin(BinOp::Sub, k(0), t));
    let cond = || Box::new(Tree::Cmp(CmpOp::Slt, false, b(1), k(0)));
    // Divisors around every boundary: zero and the units (left alone), small ones, MIN and MAX.
    for c in [0u128, 1, 2, 3, 7, 10, 0x7f, 0x80, 0x81, 0xf6, 0xfd, 0xfe, 0xff] {
        for op in [BinOp::SDiv, BinOp::SRem] {
            check(Tree::Bin(op, neg(b(0)), k(c)));
            // Nested, as digit loops do: a negated quotient divided again.
            check(Tree::Bin(op, Box::new(Tree::Bin(BinOp::SDiv, neg(b(0)), k(10))), k(c)));
            for arm in [0, 1, 0x80, 0xff] {
                check(Tree::Bin(op, Box::new(Tree::Ite(cond(), k(arm), b(0))), k(c)));
                check(Tree::Bin(op, Box::new(Tree::Ite(cond(), b(0), k(arm))), k(c)));
            }
        }
        // A quotient against every constant: the range rule.
        for m in 0..=255u128 {
            check(Tree::Cmp(CmpOp::Eq, false, Box::new(Tree::Bin(BinOp::SDiv, b(0), k(c))), k(m)));
        }
    }
}
