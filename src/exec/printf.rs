//! A printf formatter that renders exactly as glibc does, for the
//! conversions `d i u x X o c s p f F e E g G %` with flags, width,
//! precision and length modifiers.
//!
//! The executor parses the format once, asks [`slots`] which arguments the
//! conversions consume, reads them (concrete or symbolic), and renders
//! concrete ones with [`render`]. A structured (symbolic) printf event is
//! rendered later from a model through the same function.

/// A parsed piece of a format string.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Lit(Vec<u8>),
    Conv(Spec),
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Spec {
    pub minus: bool,
    pub plus: bool,
    pub space: bool,
    pub hash: bool,
    pub zero: bool,
    /// `Some(None)` for `*` (taken from an argument).
    pub width: Option<Option<usize>>,
    pub precision: Option<Option<usize>>,
    /// Bits of the integer argument the length modifier names.
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

/// A concrete argument.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    Int(u128),
    /// `None` is the null pointer.
    Str(Option<Vec<u8>>),
    Double(f64),
}

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
                Some(b'l' | b'z' | b'j' | b't' | b'q' | b'L') => {
                    s.int_bits = 64;
                    i += 1;
                }
                _ => break,
            }
        }
        match fmt.get(i) {
            Some(&c) if b"diuxXocspfFeEgGn%".contains(&c) => {
                s.conv = c;
                i += 1;
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

/// The argument slots the format consumes, in order.
pub fn slots(pieces: &[Piece]) -> Vec<Slot> {
    let mut out = Vec::new();
    for p in pieces {
        let Piece::Conv(s) = p else { continue };
        if s.width == Some(None) {
            out.push(Slot::Int(32));
        }
        if s.precision == Some(None) {
            out.push(Slot::Int(32));
        }
        out.push(match s.conv {
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' => Slot::Int(s.int_bits),
            b'c' => Slot::Int(32),
            b'p' => Slot::Int(64),
            b's' => Slot::Str,
            b'n' => Slot::Ignored,
            _ => Slot::Double,
        });
    }
    out
}

/// Renders a parsed format with one argument per slot.
pub fn render(pieces: &[Piece], args: &[Arg]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut args = args.iter();
    let next_int = |args: &mut std::slice::Iter<Arg>| match args.next() {
        Some(Arg::Int(v)) => *v,
        _ => 0,
    };
    for p in pieces {
        let s = match p {
            Piece::Lit(l) => {
                out.extend_from_slice(l);
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
        let arg = args.next().cloned().unwrap_or(Arg::Int(0));
        let body = match (s.conv, arg) {
            (b'd' | b'i', Arg::Int(v)) => {
                let v = sign_extend(v, s.int_bits);
                int_body(sign(v < 0, s), "", v.unsigned_abs().to_string(), precision)
            }
            (b'u', Arg::Int(v)) => int_body("", "", truncate(v, s.int_bits).to_string(), precision),
            (b'x' | b'X' | b'o', Arg::Int(v)) => {
                let v = truncate(v, s.int_bits);
                let mut digits = match s.conv {
                    b'x' => format!("{v:x}"),
                    b'X' => format!("{v:X}"),
                    _ => format!("{v:o}"),
                };
                let mut prefix = "";
                let mut precision = precision;
                if precision == Some(0) && v == 0 {
                    digits.clear();
                }
                if s.hash {
                    match s.conv {
                        b'o' if !digits.starts_with('0') => {
                            precision = Some(precision.unwrap_or(0).max(digits.len() + 1));
                        }
                        b'x' if v != 0 => prefix = "0x",
                        b'X' if v != 0 => prefix = "0X",
                        _ => {}
                    }
                }
                int_body("", prefix, digits, precision)
            }
            (b'c', Arg::Int(v)) => {
                spec.zero = false;
                Body { sign: String::new(), digits: vec![v as u8], numeric: false }
            }
            (b'p', Arg::Int(v)) => {
                if v == 0 {
                    spec.zero = false;
                    Body { sign: String::new(), digits: b"(nil)".to_vec(), numeric: false }
                } else {
                    int_body(sign(false, s), "0x", format!("{:x}", v as u64), precision)
                }
            }
            (b's', Arg::Str(text)) => {
                spec.zero = false;
                let bytes = match text {
                    Some(t) => t[..precision.map_or(t.len(), |p| p.min(t.len()))].to_vec(),
                    None if precision.is_none_or(|p| p >= 6) => b"(null)".to_vec(),
                    None => Vec::new(),
                };
                Body { sign: String::new(), digits: bytes, numeric: false }
            }
            (b'f' | b'F' | b'e' | b'E' | b'g' | b'G', Arg::Double(d)) => float_body(&spec, d, precision),
            (b'n', _) => continue,
            _ => Body { sign: String::new(), digits: Vec::new(), numeric: false },
        };
        pad(&mut out, &spec, width, precision, body);
    }
    out
}

struct Body {
    /// Sign and prefix (`-`, `+`, `0x`), which zero padding goes after.
    sign: String,
    digits: Vec<u8>,
    /// Whether the `0` flag applies (numbers without a precision, floats).
    numeric: bool,
}

fn int_body(sign: &str, prefix: &str, digits: String, precision: Option<usize>) -> Body {
    let mut digits = digits;
    if precision == Some(0) && digits == "0" {
        digits.clear();
    }
    if let Some(p) = precision
        && digits.len() < p
    {
        digits = "0".repeat(p - digits.len()) + &digits;
    }
    Body { sign: format!("{sign}{prefix}"), digits: digits.into_bytes(), numeric: precision.is_none() }
}

fn pad(out: &mut Vec<u8>, s: &Spec, width: usize, _precision: Option<usize>, b: Body) {
    let len = b.sign.len() + b.digits.len();
    let fill = width.saturating_sub(len);
    if s.minus {
        out.extend_from_slice(b.sign.as_bytes());
        out.extend_from_slice(&b.digits);
        out.extend(std::iter::repeat_n(b' ', fill));
    } else if s.zero && b.numeric {
        out.extend_from_slice(b.sign.as_bytes());
        out.extend(std::iter::repeat_n(b'0', fill));
        out.extend_from_slice(&b.digits);
    } else {
        out.extend(std::iter::repeat_n(b' ', fill));
        out.extend_from_slice(b.sign.as_bytes());
        out.extend_from_slice(&b.digits);
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

fn float_body(s: &Spec, d: f64, precision: Option<usize>) -> Body {
    let upper = s.conv.is_ascii_uppercase();
    let sign = sign(d.is_sign_negative(), s);
    let x = d.abs();
    if !x.is_finite() {
        let t = if x.is_nan() { "nan" } else { "inf" };
        let t = if upper { t.to_uppercase() } else { t.to_string() };
        return Body { sign: sign.to_string(), digits: t.into_bytes(), numeric: false };
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
            } else {
                exponent(x, p - 1, s.hash, upper)
            };
            if !s.hash {
                t = strip_zeros(&t);
            }
            t
        }
    };
    Body { sign: sign.to_string(), digits: text.into_bytes(), numeric: true }
}

fn fixed(x: f64, p: usize, hash: bool) -> String {
    let mut t = format!("{x:.p$}");
    if hash && p == 0 {
        t.push('.');
    }
    t
}

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

/// `%g` without `#`: drop trailing zeros of the fraction, and a bare point.
fn strip_zeros(t: &str) -> String {
    let (mant, exp) = match t.find(['e', 'E']) {
        Some(i) => t.split_at(i),
        None => (t, ""),
    };
    let mant = if mant.contains('.') { mant.trim_end_matches('0').trim_end_matches('.') } else { mant };
    format!("{mant}{exp}")
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
