//! A printf formatter that renders exactly as glibc does, for the
//! conversions `d i u x X o c s p f F e E g G a A %` with flags, width,
//! precision and length modifiers.
//!
//! The executor parses the format once, asks [`slots`] which arguments the
//! conversions consume, reads them (concrete or symbolic), and renders
//! concrete ones with [`render`]. A structured (symbolic) printf event is
//! rendered later from a model through the same function. [`layout`] is the
//! one implementation of the layout: generic over the byte type, it also
//! renders `sprintf`'s symbolic text, with digits as expressions (stdio.rs).
//!
//! Checked against glibc's snprintf on 434,688 format and value combinations
//! (`tests/printf_glibc.rs`: every flag set, widths, precisions up to `.20`;
//! doubles passed by their bits: ties at each precision, subnormals, DBL_MAX,
//! 1e23, signed zeros, NaNs with signs and payloads, values from float). It
//! follows glibc 2.36 where glibc strays from C: `%#g` of 999999.5 is `1.e+06`.

use crate::expr::{ExprId, ExprPool};

/// A parsed piece of a format string.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Lit(Vec<u8>),
    Conv(Spec),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Spec {
    pub minus: bool,
    pub plus: bool,
    pub space: bool,
    pub hash: bool,
    pub zero: bool,
    /// `Some(None)` for `*` (taken from an argument).
    pub width: Option<Option<usize>>,
    /// As `width`; `%f %e %g` without one have their default, 6.
    pub precision: Option<Option<usize>>,
    /// Bits of the integer argument the length modifier names. A float
    /// conversion has 32, or 128 for a long double (`L`, `q`): `l` does
    /// nothing there, so `%lf` and `%f` are one spec and compare alike.
    pub int_bits: u32,
    pub conv: u8,
}

/// What one argument slot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// An integer of this many bits (`*` widths are 32).
    Int(u32),
    /// A `char *` for `%s`.
    Str,
    /// A double, passed as its 64 bits.
    Double,
    /// A pointer that is not read (`%n`: ignored).
    Ignored,
}

/// An argument as the layout sees it. Concrete arguments are `Int`, `Str`
/// and `Double`; the symbolic case of `sprintf` passes integers as their
/// `Digits` and characters as `Char`, in bytes of type `T`, once the length
/// of their text is known.
#[derive(Debug, Clone, PartialEq)]
pub enum Val<T> {
    Int(u128),
    /// An integer conversion's digits in its base (most significant first,
    /// `0` for zero), whether the value is negative, and whether it is zero.
    Digits {
        negative: bool,
        digits: Vec<T>,
        zero: bool,
    },
    Char(T),
    /// `None` is the null pointer.
    Str(Option<Vec<T>>),
    Double(f64),
}

/// A concrete argument.
pub type Arg = Val<u8>;

pub fn parse(fmt: &[u8]) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut lit = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            lit.push(fmt[i]);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let mut s = Spec { int_bits: 32, ..Spec::default() };
        while i < fmt.len() {
            match fmt[i] {
                b'-' => s.minus = true,
                b'+' => s.plus = true,
                b' ' => s.space = true,
                b'#' => s.hash = true,
                b'0' => s.zero = true,
                _ => break,
            }
            i += 1;
        }
        let number = |i: &mut usize| -> Option<Option<usize>> {
            if fmt.get(*i) == Some(&b'*') {
                *i += 1;
                return Some(None);
            }
            let st = *i;
            while *i < fmt.len() && fmt[*i].is_ascii_digit() {
                *i += 1;
            }
            (st < *i).then(|| std::str::from_utf8(&fmt[st..*i]).ok().and_then(|t| t.parse().ok()))
        };
        s.width = number(&mut i);
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            s.precision = Some(number(&mut i).unwrap_or(Some(0)));
        }
        let mut long_double = false;
        loop {
            match fmt.get(i) {
                Some(b'h') if fmt.get(i + 1) == Some(&b'h') => {
                    s.int_bits = 8;
                    i += 2;
                }
                Some(b'h') => {
                    s.int_bits = 16;
                    i += 1;
                }
                Some(&m @ (b'l' | b'z' | b'j' | b't' | b'q' | b'L')) => {
                    s.int_bits = 64;
                    long_double |= m == b'L' || m == b'q';
                    i += 1;
                }
                _ => break,
            }
        }
        match fmt.get(i) {
            Some(&c) if b"diuxXocspfFeEgGaAn%".contains(&c) => {
                s.conv = c;
                i += 1;
                if b"fFeEgGaA".contains(&c) {
                    s.int_bits = if long_double { 128 } else { 32 };
                }
                // The default precision, spelled out, so that `%f` and
                // `%.6f` are one spec (`%a`'s default is all digits).
                if b"fFeEgG".contains(&c) && s.precision.is_none() {
                    s.precision = Some(Some(6));
                }
                if c == b'%' {
                    lit.push(b'%');
                    continue;
                }
                if !lit.is_empty() {
                    out.push(Piece::Lit(std::mem::take(&mut lit)));
                }
                out.push(Piece::Conv(s));
            }
            _ => {
                // Not a conversion glibc knows: printed as written.
                lit.extend_from_slice(&fmt[start..i.min(fmt.len())]);
                if i < fmt.len() {
                    lit.push(fmt[i]);
                    i += 1;
                }
            }
        }
    }
    if !lit.is_empty() {
        out.push(Piece::Lit(lit));
    }
    out
}

/// The argument slots the format consumes, in order, each with the
/// conversion it is the argument of (`None` for a `*` width or precision).
pub fn slots(pieces: &[Piece]) -> Vec<(Slot, Option<Spec>)> {
    let mut out = Vec::new();
    for p in pieces {
        let Piece::Conv(s) = p else { continue };
        if s.width == Some(None) {
            out.push((Slot::Int(32), None));
        }
        if s.precision == Some(None) {
            out.push((Slot::Int(32), None));
        }
        let slot = match s.conv {
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' => Slot::Int(s.int_bits),
            b'c' => Slot::Int(32),
            b'p' => Slot::Int(64),
            b's' => Slot::Str,
            b'n' => Slot::Ignored,
            _ => Slot::Double,
        };
        out.push((slot, Some(*s)));
    }
    out
}

/// Renders a parsed format with one concrete argument per slot.
pub fn render(pieces: &[Piece], args: &[Arg]) -> Vec<u8> {
    layout(pieces, args)
}

/// Lays out a parsed format with one argument per slot: the literal text,
/// and each conversion's field padded to its width. Widths and precisions
/// taken from arguments (`*`) are concrete `Int`s.
pub fn layout<T: Clone + From<u8>>(pieces: &[Piece], args: &[Val<T>]) -> Vec<T> {
    let ascii = |t: &[u8]| t.iter().map(|&b| T::from(b)).collect::<Vec<T>>();
    let mut out = Vec::new();
    let mut args = args.iter();
    let next_int = |args: &mut std::slice::Iter<Val<T>>| match args.next() {
        Some(Val::Int(v)) => *v,
        _ => 0,
    };
    for p in pieces {
        let s = match p {
            Piece::Lit(l) => {
                out.extend(ascii(l));
                continue;
            }
            Piece::Conv(s) => s,
        };
        let mut spec = *s;
        let mut width = 0usize;
        match s.width {
            Some(Some(w)) => width = w,
            Some(None) => {
                let w = next_int(&mut args) as u32 as i32;
                if w < 0 {
                    spec.minus = true;
                }
                width = w.unsigned_abs() as usize;
            }
            None => {}
        }
        let precision = match s.precision {
            Some(Some(p)) => Some(p),
            Some(None) => {
                let p = next_int(&mut args) as u32 as i32;
                (p >= 0).then_some(p as usize)
            }
            None => None,
        };
        let arg = args.next().cloned().unwrap_or(Val::Int(0));
        let text = |t: &[u8]| Field { sign: Vec::new(), digits: ascii(t), numeric: false };
        let field = match (s.conv, arg) {
            (b'd' | b'i' | b'u' | b'x' | b'X' | b'o', Val::Int(v)) => {
                let (negative, digits) = int_digits(s, v);
                int_field(s, precision, negative, ascii(&digits), digits == b"0")
            }
            (b'd' | b'i' | b'u' | b'x' | b'X' | b'o', Val::Digits { negative, digits, zero }) => {
                int_field(s, precision, negative, digits, zero)
            }
            (b'c', Val::Int(v)) => text(&[v as u8]),
            (b'c', Val::Char(c)) => Field { sign: Vec::new(), digits: vec![c], numeric: false },
            (b'p', Val::Int(0)) => text(b"(nil)"),
            (b'p', Val::Int(v)) => {
                let digits = format!("{:x}", v as u64).into_bytes();
                let mut f = int_field(
                    &Spec { conv: b'x', hash: false, ..*s },
                    precision,
                    false,
                    ascii(&digits),
                    false,
                );
                f.sign = [sign(false, s).as_bytes(), b"0x"].concat();
                f
            }
            (b's', Val::Str(t)) => {
                let bytes = match t {
                    Some(t) => t[..precision.map_or(t.len(), |p| p.min(t.len()))].to_vec(),
                    None if precision.is_none_or(|p| p >= 6) => ascii(b"(null)"),
                    None => Vec::new(),
                };
                Field { sign: Vec::new(), digits: bytes, numeric: false }
            }
            (b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A', Val::Double(d)) => {
                let (sign, digits, numeric) = float_body(&spec, d, precision);
                Field { sign, digits: ascii(&digits), numeric }
            }
            (b'n', _) => continue,
            _ => text(b""),
        };
        pad(&mut out, &spec, width, field);
    }
    out
}

/// The sign and the digits of a concrete integer in the conversion's base.
fn int_digits(s: &Spec, v: u128) -> (bool, Vec<u8>) {
    match s.conv {
        b'd' | b'i' => {
            let v = sign_extend(v, s.int_bits);
            (v < 0, v.unsigned_abs().to_string().into_bytes())
        }
        b'x' => (false, format!("{:x}", truncate(v, s.int_bits)).into_bytes()),
        b'X' => (false, format!("{:X}", truncate(v, s.int_bits)).into_bytes()),
        b'o' => (false, format!("{:o}", truncate(v, s.int_bits)).into_bytes()),
        _ => (false, truncate(v, s.int_bits).to_string().into_bytes()),
    }
}

/// One conversion's text before padding.
struct Field<T> {
    /// Sign and prefix (`-`, `+`, `0x`), which zero padding goes after.
    sign: Vec<u8>,
    digits: Vec<T>,
    /// Whether the `0` flag applies (numbers without a precision, floats).
    numeric: bool,
}

/// An integer conversion's field from its digits: precision, the sign of
/// `d`/`i`, and what `#` adds to `o`, `x` and `X`.
fn int_field<T: Clone + From<u8>>(
    s: &Spec,
    precision: Option<usize>,
    negative: bool,
    mut digits: Vec<T>,
    zero: bool,
) -> Field<T> {
    let numeric = precision.is_none();
    let mut precision = precision;
    if precision == Some(0) && zero {
        digits.clear();
    }
    let mut prefix: &[u8] = b"";
    match s.conv {
        b'd' | b'i' => prefix = sign(negative, s).as_bytes(),
        // `#o` makes the first digit a 0.
        b'o' if s.hash && (digits.is_empty() || !zero) => {
            precision = Some(precision.unwrap_or(0).max(digits.len() + 1));
        }
        b'x' if s.hash && !zero => prefix = b"0x",
        b'X' if s.hash && !zero => prefix = b"0X",
        _ => {}
    }
    if let Some(p) = precision
        && digits.len() < p
    {
        let mut padded = vec![T::from(b'0'); p - digits.len()];
        padded.extend(digits);
        digits = padded;
    }
    Field { sign: prefix.to_vec(), digits, numeric }
}

fn pad<T: Clone + From<u8>>(out: &mut Vec<T>, s: &Spec, width: usize, f: Field<T>) {
    let fill = width.saturating_sub(f.sign.len() + f.digits.len());
    let sign = f.sign.iter().map(|&b| T::from(b));
    if s.minus {
        out.extend(sign);
        out.extend(f.digits);
        out.extend(std::iter::repeat_n(T::from(b' '), fill));
    } else if s.zero && f.numeric {
        out.extend(sign);
        out.extend(std::iter::repeat_n(T::from(b'0'), fill));
        out.extend(f.digits);
    } else {
        out.extend(std::iter::repeat_n(T::from(b' '), fill));
        out.extend(sign);
        out.extend(f.digits);
    }
}

/// The sign a signed conversion prints: `-`, or what `+` and ` ` ask for.
fn sign(negative: bool, s: &Spec) -> &'static str {
    if negative {
        "-"
    } else if s.plus {
        "+"
    } else if s.space {
        " "
    } else {
        ""
    }
}

fn sign_extend(v: u128, bits: u32) -> i128 {
    let s = 128 - bits;
    ((v << s) as i128) >> s
}

fn truncate(v: u128, bits: u32) -> u128 {
    if bits >= 128 { v } else { v & ((1u128 << bits) - 1) }
}

/// The sign, the text and whether zero padding applies, of a floating-point
/// conversion.
fn float_body(s: &Spec, d: f64, precision: Option<usize>) -> (Vec<u8>, Vec<u8>, bool) {
    let upper = s.conv.is_ascii_uppercase();
    let sign = sign(d.is_sign_negative(), s).as_bytes().to_vec();
    let x = d.abs();
    if !x.is_finite() {
        let t = if x.is_nan() { "nan" } else { "inf" };
        let t = if upper { t.to_uppercase() } else { t.to_string() };
        return (sign, t.into_bytes(), false);
    }
    if s.conv.eq_ignore_ascii_case(&b'a') {
        let (prefix, text) = hex_float(x, precision, s.hash, upper);
        return ([sign, prefix.to_vec()].concat(), text.into_bytes(), true);
    }
    let p = precision.unwrap_or(6);
    let text = match s.conv.to_ascii_lowercase() {
        b'f' => fixed(x, p, s.hash),
        b'e' => exponent(x, p, s.hash, upper),
        _ => {
            let p = if p == 0 { 1 } else { p };
            let e = exponent_of(x, p - 1);
            let mut t = if e < p as i32 && e >= -4 {
                fixed(x, (p as i32 - 1 - e) as usize, s.hash)
            } else if s.hash && e == p as i32 && exponent_of(x, EXACT_DIGITS) == e - 1 {
                // glibc (2.36) chose the fixed style by the exponent before
                // rounding, with no fraction digits, and keeps that count when
                // the carry moves it to the exponent style: `%#g` of 999999.5
                // is "1.e+06". Only `#` shows it; without it the zeros go.
                exponent(x, 0, true, upper)
            } else {
                exponent(x, p - 1, s.hash, upper)
            };
            if !s.hash {
                t = strip_zeros(&t);
            }
            t
        }
    };
    (sign, text.into_bytes(), true)
}

fn fixed(x: f64, p: usize, hash: bool) -> String {
    let mut t = format!("{x:.p$}");
    if hash && p == 0 {
        t.push('.');
    }
    t
}

/// Significant digits past the first that print any double exactly: no
/// rounding happens at `%.{EXACT_DIGITS}e`.
const EXACT_DIGITS: usize = 766;

/// The decimal exponent `x` has when printed with `%.{p}e`.
fn exponent_of(x: f64, p: usize) -> i32 {
    let t = format!("{x:.p$e}");
    t.rsplit('e').next().and_then(|e| e.parse().ok()).unwrap_or(0)
}

fn exponent(x: f64, p: usize, hash: bool, upper: bool) -> String {
    let t = format!("{x:.p$e}");
    let (mant, exp) = t.split_once('e').unwrap_or((&t, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut m = mant.to_string();
    if hash && p == 0 {
        m.push('.');
    }
    let e = if upper { 'E' } else { 'e' };
    format!("{m}{e}{}{:02}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs())
}

/// `%a`: the `0x` prefix (zero padding goes after it) and the rest, as
/// glibc writes it: the leading digit is the bit above the fraction (0 for
/// zero and subnormals, whose exponent is then -1022), never renormalised,
/// so a rounding carry makes it 2; a precision rounds the fraction to
/// nearest, ties to even; without one, trailing zeros go.
fn hex_float(x: f64, precision: Option<usize>, hash: bool, upper: bool) -> (&'static [u8], String) {
    let bits = x.to_bits();
    let (biased, mut frac) = (bits >> 52, bits & ((1 << 52) - 1));
    let mut lead = u64::from(biased != 0);
    let exp = if x == 0.0 { 0 } else { biased.max(1) as i64 - 1023 };
    let mut digits = 13;
    if let Some(p) = precision.filter(|&p| p < 13) {
        let drop = 4 * (13 - p) as u32;
        let (kept, rest) = (frac >> drop, frac & ((1 << drop) - 1));
        let half = 1 << (drop - 1);
        let last_odd = if p == 0 { lead & 1 } else { kept & 1 } == 1;
        let up = rest > half || (rest == half && last_odd);
        frac = kept + u64::from(up);
        if frac >> (4 * p) != 0 {
            lead += 1;
            frac &= (1 << (4 * p)) - 1;
        }
        digits = p;
    }
    let mut hex: String = (0..digits)
        .rev()
        .map(|i| char::from_digit((frac >> (4 * i) & 15) as u32, 16).unwrap_or('0'))
        .collect();
    match precision {
        Some(p) => hex.extend(std::iter::repeat_n('0', p.saturating_sub(13))),
        None => hex.truncate(hex.trim_end_matches('0').len()),
    }
    let point = if hex.is_empty() && !hash { "" } else { "." };
    let t = format!("{lead}{point}{hex}p{}{}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs());
    if upper { (b"0X", t.to_uppercase()) } else { (b"0x", t) }
}

/// `%g` without `#`: drop trailing zeros of the fraction, and a bare point.
fn strip_zeros(t: &str) -> String {
    let (mant, exp) = match t.find(['e', 'E']) {
        Some(i) => t.split_at(i),
        None => (t, ""),
    };
    let mant = if mant.contains('.') { mant.trim_end_matches('0').trim_end_matches('.') } else { mant };
    format!("{mant}{exp}")
}

/// The ASCII digit `j` places from the right of the magnitude `m` in `base`,
/// as `sprintf` writes it into memory; the differentiator rebuilds it to
/// recognise the number such bytes spell.
pub fn digit_byte(pool: &mut ExprPool, m: ExprId, base: u128, j: u32, upper: bool) -> ExprId {
    let w = pool.width(m);
    let d = if base == 10 {
        let q = if j == 0 {
            m
        } else {
            let p = pool.constant(w, 10u128.pow(j));
            pool.udiv(m, p)
        };
        let ten = pool.constant(w, 10);
        let r = pool.urem(q, ten);
        pool.extract(r, 0, 8)
    } else {
        let bits = if base == 16 { 4 } else { 3 };
        let d = pool.extract(m, bits * j, bits.min(w - bits * j));
        pool.zext(d, 8)
    };
    let zero = pool.constant(8, u128::from(b'0'));
    let dec = pool.add(d, zero);
    if base != 16 {
        return dec;
    }
    let letter = pool.constant(8, u128::from(if upper { b'A' } else { b'a' }) - 10);
    let hex = pool.add(d, letter);
    let ten = pool.constant(8, 10);
    let is_dec = pool.ult(d, ten);
    pool.ite(is_dec, dec, hex)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(f: &str, args: &[Arg]) -> String {
        String::from_utf8(render(&parse(f.as_bytes()), args)).unwrap()
    }

    #[test]
    fn integers_as_glibc() {
        let i = |v: i64| Arg::Int(v as u64 as u128);
        assert_eq!(
            fmt("%d|%5d|%-5d|%05d|%+d|% d", &[i(-42), i(42), i(42), i(-42), i(7), i(7)]),
            "-42|   42|42   |-0042|+7| 7"
        );
        assert_eq!(
            fmt("%.3d|%8.3d|%-8.3d|%08.3d", &[i(5), i(-5), i(5), i(5)]),
            "005|    -005|005     |     005"
        );
        assert_eq!(
            fmt("%.0d|%.0x|%#.0o|%#o|%#x|%#X", &[i(0), i(0), i(0), i(8), i(255), i(0)]),
            "||0|010|0xff|0"
        );
        assert_eq!(
            fmt("%u %x %hhd %hu %ld %lu", &[i(-1), i(-1), i(255), i(-1), i(-1), i(-1)]),
            "4294967295 ffffffff -1 65535 -1 18446744073709551615"
        );
        assert_eq!(fmt("%c%c|%3c|%-3c|", &[i(65), i(66), i(67), i(68)]), "AB|  C|D  |");
        assert_eq!(fmt("%p|%10p|%p", &[i(0), i(0), i(0x1234)]), "(nil)|     (nil)|0x1234");
        assert_eq!(fmt("%*d|%-*d|%.*d", &[i(4), i(1), i(4), i(2), i(3), i(3)]), "   1|2   |003");
        assert_eq!(fmt("%%|%y|%", &[]), "%|%y|%");
        assert_eq!(parse(b"%lf|%.2le|%g"), parse(b"%.6f|%.2e|%.6g"));
        assert_ne!(parse(b"%Lf"), parse(b"%f"));
    }

    #[test]
    fn strings_and_floats() {
        let s = |t: &str| Arg::Str(Some(t.as_bytes().to_vec()));
        assert_eq!(
            fmt(
                "%s|%6s|%-6s|%.2s|%s|%.3s",
                &[s("abc"), s("abc"), s("abc"), s("abc"), Arg::Str(None), Arg::Str(None)]
            ),
            "abc|   abc|abc   |ab|(null)|"
        );
        let d = Arg::Double;
        assert_eq!(
            fmt(
                "%f|%.2f|%8.3f|%-8.1f|%08.2f|%.0f|%#.0f",
                &[d(3.25159), d(2.675), d(-1.5), d(2.25), d(-3.5), d(2.5), d(3.0)]
            ),
            "3.251590|2.67|  -1.500|2.2     |-0003.50|2|3."
        );
        assert_eq!(
            fmt("%e|%.2E|%e", &[d(12345.678), d(0.000123), d(0.0)]),
            "1.234568e+04|1.23E-04|0.000000e+00"
        );
        assert_eq!(
            fmt("%g|%g|%g|%g|%G|%#g", &[d(100000.0), d(1e6), d(0.0001), d(0.00001), d(1.5e-7), d(1.0)]),
            "100000|1e+06|0.0001|1e-05|1.5E-07|1.00000"
        );
        assert_eq!(
            fmt("%f|%F|%5.1f", &[d(f64::INFINITY), d(f64::NAN), d(f64::NEG_INFINITY)]),
            "inf|NAN| -inf"
        );
    }
}
