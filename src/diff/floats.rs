//! Floating-point conversions (`%f %e %g %a`) in the comparison of two
//! paths' outputs. A double is an expression of its 64 IEEE bits; what it
//! prints is glibc's rounding of it, which no bit-vector term states
//! cheaply. Two things are cheap and sound:
//! - equal bits print equal text under the same conversion, and so do two
//!   NaNs of one sign (glibc prints "nan" or "-nan", never the payload);
//! - the doubles of one sign that print a given text form an interval of
//!   magnitudes (rounding is monotone), found by binary search with the
//!   glibc-exact formatter, so "prints this text" is a range test on the
//!   bits, exact.
//!
//! Against a concrete text (bytes, or a constant double under the same spec)
//! the term is exact: the interval of magnitudes, plus infinity and the NaNs of
//! that sign; the conversion stands for the one length of the bytes'
//! float-like run (digits, point, sign, padding, exponent, `inf`, `nan`) that
//! the next byte allows and some double prints, else a difference everywhere.
//! Two symbolic doubles under the same spec differ unless their bits are equal
//! or both are NaNs of one sign: a may-differ term, since `%.2f` of 0.301 and
//! 0.302 agree. `sharpened` turns it, given a model, into a must-differ term
//! (one side keeps the text it has there, the other prints another), for a
//! better candidate, never for a proof.

use crate::exec::printf::{self, Arg, Piece, Spec};
use crate::expr::{ExprId, ExprPool};

/// The magnitude bits of infinity; NaNs lie above it.
const INF: u64 = 0x7ff0_0000_0000_0000;
const SIGN: u64 = 1 << 63;

pub(super) fn is_float_conv(conv: u8) -> bool {
    b"fFeEgGaA".contains(&conv)
}

/// A byte a float conversion's field may hold (digits, point, sign,
/// padding, exponent, "inf", "nan").
pub(super) fn may_print(c: u8) -> bool {
    c.is_ascii_digit() || b".+- eEinfaINFA".contains(&c)
}

/// The longest text a conversion is matched against: `%f` of DBL_MAX has
/// 309 digits before the point.
pub(super) const MAX_TEXT: usize = 400;

fn sign_and_magnitude(pool: &mut ExprPool, bits: ExprId) -> (ExprId, ExprId) {
    (pool.extract(bits, 63, 1), pool.extract(bits, 0, 63))
}

/// A condition under which the doubles `x` and `y` (64-bit IEEE bits) print
/// the same text under any one float conversion: the same bits, or both NaN
/// with one sign. It is not "print alike" itself (`%.2f` of 0.301 and 0.302
/// agree): its negation is a may-differ term, whose candidates native replay
/// settles.
pub(super) fn print_alike(pool: &mut ExprPool, x: ExprId, y: ExprId) -> ExprId {
    let same_bits = pool.eq(x, y);
    let ((sx, mx), (sy, my)) = (sign_and_magnitude(pool, x), sign_and_magnitude(pool, y));
    let inf = pool.constant(63, u128::from(INF));
    let (nan_x, nan_y) = (pool.ult(inf, mx), pool.ult(inf, my));
    let same_sign = pool.eq(sx, sy);
    let nans = pool.bool_and(nan_x, nan_y);
    let nans = pool.bool_and(nans, same_sign);
    pool.bool_or(same_bits, nans)
}

/// What a float conversion prints of the double with these bits.
pub(super) fn text_of(spec: &Spec, bits: u64) -> Vec<u8> {
    printf::render(&[Piece::Conv(*spec)], &[Arg::Double(f64::from_bits(bits))])
}

/// The condition under which the double `bits` prints exactly `text` under
/// `spec`, or `None` where this cannot say (a `*` width or precision, `%a`,
/// not 64 bits).
pub(super) fn prints(pool: &mut ExprPool, spec: &Spec, bits: ExprId, text: &[u8]) -> Option<ExprId> {
    if spec.width == Some(None) || spec.precision == Some(None) || !b"fFeEgG".contains(&spec.conv) {
        return None;
    }
    if pool.width(bits) != 64 {
        return None;
    }
    let (s, m) = sign_and_magnitude(pool, bits);
    let mut any = pool.false_();
    for &(sign, lo, hi) in intervals(spec, text).iter() {
        let sign_ok = {
            let c = pool.constant(1, u128::from(sign >> 63));
            pool.eq(s, c)
        };
        let (l, h) = (pool.constant(63, u128::from(lo)), pool.constant(63, u128::from(hi)));
        let above = pool.ule(l, m);
        let below = pool.ule(m, h);
        let within = pool.bool_and(above, below);
        let both = pool.bool_and(sign_ok, within);
        any = pool.bool_or(any, both);
    }
    Some(any)
}

/// The doubles that print `text` under `spec`, as (sign bit, least and
/// greatest magnitude). Memoised: a differential run compares the same
/// texts across many pairs of paths, and each search renders some 250
/// doubles (70 µs for `%.2f`, 800 µs for `%g` of 1e300, measured).
fn intervals(spec: &Spec, text: &[u8]) -> std::rc::Rc<[(u64, u64, u64)]> {
    type Memo = std::collections::HashMap<(Spec, Vec<u8>), std::rc::Rc<[(u64, u64, u64)]>>;
    thread_local! {
        static MEMO: std::cell::RefCell<Memo> = Default::default();
    }
    let key = (*spec, text.to_vec());
    if let Some(hit) = MEMO.with(|m| m.borrow().get(&key).cloned()) {
        return hit;
    }
    let render = |b: u64| text_of(spec, b);
    let target = decimal(text);
    let mut out = Vec::new();
    for sign in [0, SIGN] {
        if render(sign | INF) == text {
            out.push((sign, INF, INF));
        }
        if render(sign | INF | 1 << 51) == text {
            out.push((sign, INF + 1, SIGN - 1));
        }
        if let Some(target) = &target {
            // Magnitudes below INF print non-decreasing decimals.
            let key = |m: u64| decimal(&render(sign | m));
            let lo = first(0, INF, |m| key(m).as_ref() >= Some(target));
            if lo < INF && render(sign | lo) == text {
                let hi = first(lo, INF, |m| key(m).as_ref() > Some(target)) - 1;
                out.push((sign, lo, hi));
            }
        }
    }
    let out: std::rc::Rc<[(u64, u64, u64)]> = out.into();
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        // A bound on memory; the texts of one run repeat far below it.
        if m.len() >= 1 << 14 {
            m.clear();
        }
        m.insert(key, out.clone());
    });
    out
}

/// The least `m` in `[lo, hi)` where `p` holds, `p` being monotone; `hi` if
/// none.
fn first(mut lo: u64, mut hi: u64, p: impl Fn(u64) -> bool) -> u64 {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if p(mid) { hi = mid } else { lo = mid + 1 }
    }
    lo
}

/// The magnitude a float conversion's field spells, as its significant
/// digits (no leading or trailing zeros; empty for zero) and the power of
/// ten of the first, ordered as numbers; `None` if it spells no decimal
/// (padding, a sign character, digits with one point, an exponent).
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    zero: bool,
    exp: i64,
    digits: Vec<u8>,
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Decimal {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        // Zero first; then by the first digit's place, then digit by digit.
        o.zero.cmp(&self.zero).then(self.exp.cmp(&o.exp)).then_with(|| self.digits.cmp(&o.digits))
    }
}

fn decimal(text: &[u8]) -> Option<Decimal> {
    let t = text.trim_ascii();
    let t = t.strip_prefix(b"-").or_else(|| t.strip_prefix(b"+")).unwrap_or(t);
    let (mant, exp) = match t.iter().position(|&c| c == b'e' || c == b'E') {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let exp: i64 = match exp {
        Some(e) => {
            let digits = e.strip_prefix(b"-").or_else(|| e.strip_prefix(b"+"))?;
            if digits.is_empty() || digits.len() > 6 || !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let v: i64 = std::str::from_utf8(digits).ok()?.parse().ok()?;
            if e[0] == b'-' { -v } else { v }
        }
        None => 0,
    };
    let (int, frac) = match mant.iter().position(|&c| c == b'.') {
        Some(i) => (&mant[..i], &mant[i + 1..]),
        None => (mant, &[][..]),
    };
    if int.is_empty() && frac.is_empty() || !int.iter().chain(frac).all(u8::is_ascii_digit) {
        return None;
    }
    let all: Vec<u8> = int.iter().chain(frac).copied().collect();
    let Some(lead) = all.iter().position(|&c| c != b'0') else {
        return Some(Decimal { zero: true, exp: 0, digits: Vec::new() });
    };
    let end = all.iter().rposition(|&c| c != b'0').map_or(lead, |i| i + 1);
    Some(Decimal { zero: false, exp: exp + int.len() as i64 - lead as i64, digits: all[lead..end].to_vec() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Assignment;

    /// `prints` holds exactly where the formatter (checked against glibc in
    /// tests/printf_glibc.rs) prints the text, on hard doubles and on their
    /// neighbours; and `print_alike` never holds where the texts differ.
    #[test]
    fn prints_is_exact_and_print_alike_is_sound() {
        let mut pool = ExprPool::new();
        let arr = pool.array("x", 8, 0);
        let arr2 = pool.array("y", 8, 0);
        let bytes = |pool: &mut ExprPool, a| {
            let b: Vec<ExprId> = (0..8).map(|i| pool.read_input(a, i)).collect();
            b.into_iter().reduce(|lo, hi| pool.concat(hi, lo)).unwrap()
        };
        let (x, y) = (bytes(&mut pool, arr), bytes(&mut pool, arr2));
        let mut values: Vec<u64> = [
            0.0,
            -0.0,
            0.005,
            0.015,
            0.125,
            0.375,
            2.5,
            1.005,
            0.301,
            0.302,
            9.995,
            99.5,
            999999.5,
            1e-7,
            1e23,
            -1e-300,
            5e-324,
            f64::MAX,
            f64::INFINITY,
            -f64::INFINITY,
            f64::NAN,
            -f64::NAN,
            1.0 / 3.0,
        ]
        .iter()
        .map(|v: &f64| v.to_bits())
        .collect();
        values.extend([0x7ff0_0000_0000_0001, 0xfff0_0000_0000_0002]);
        let neighbours: Vec<u64> =
            values.iter().flat_map(|&b| [b.wrapping_sub(1), b, b.wrapping_add(1)]).collect();
        for format in ["%.2f", "%f", "%8.3f", "%-+9.1e", "%g", "%#.3g", "%.0f", "%E", "%07.2f"] {
            let pieces = printf::parse(format.as_bytes());
            let [Piece::Conv(spec)] = &pieces[..] else { panic!("one conversion") };
            let render = |b: u64| printf::render(&pieces, &[Arg::Double(f64::from_bits(b))]);
            for &shown in &neighbours {
                let text = render(shown);
                let cond = prints(&mut pool, spec, x, &text).unwrap();
                for &v in &neighbours {
                    let mut a = Assignment::new();
                    a.set_bytes(arr, &v.to_le_bytes());
                    assert_eq!(
                        pool.eval(cond, &a) == 1,
                        render(v) == text,
                        "{format} of {v:x} against {text:?}"
                    );
                }
            }
            let alike = print_alike(&mut pool, x, y);
            for &u in &neighbours {
                for &v in &neighbours {
                    let mut a = Assignment::new();
                    a.set_bytes(arr, &u.to_le_bytes());
                    a.set_bytes(arr2, &v.to_le_bytes());
                    if pool.eval(alike, &a) == 1 {
                        assert_eq!(render(u), render(v), "{format} of {u:x} and {v:x}");
                    }
                }
            }
        }
    }

    #[test]
    fn no_text_prints_when_none_can() {
        let mut pool = ExprPool::new();
        let arr = pool.array("x", 8, 0);
        let b: Vec<ExprId> = (0..8).map(|i| pool.read_input(arr, i)).collect();
        let x = b.into_iter().reduce(|lo, hi| pool.concat(hi, lo)).unwrap();
        let spec = |f: &str| match &printf::parse(f.as_bytes())[..] {
            [Piece::Conv(s)] => *s,
            _ => panic!("one conversion"),
        };
        for (f, text) in [("%.2f", "1.5"), ("%.2f", "abc"), ("%e", "1.0"), ("%f", "0x1p+0"), ("%.2f", "")] {
            let cond = prints(&mut pool, &spec(f), x, text.as_bytes()).unwrap();
            assert_eq!(pool.as_const(cond), Some(0), "{f} never prints {text:?}");
        }
        assert!(prints(&mut pool, &spec("%.*f"), x, b"1.5").is_none());
        assert!(prints(&mut pool, &spec("%a"), x, b"0x1p+0").is_none());
    }
}
