//! The symbolic side of "these two paths behave differently": a width-1
//! expression over the inputs that holds exactly when some selected output of
//! one path differs from the other's (seed 000, DiffTest; Qi's
//! `symout_i != symout_j`).
//!
//! Streams are compared as the bytes and conversions they print, so that a
//! concrete `printf` on one path and a symbolic one on the other compare their
//! values. Where the structure itself differs (other text, another
//! conversion, another error kind), the difference holds on every input both
//! paths accept; native replay then settles the exact bytes.
//!
//! `difference(a, b, selection)` covers the exit status (or the error kind),
//! stdout, stderr, and annotations by name and bytes. A stream is a sequence of
//! atoms: concrete bytes (text, and the literal parts of symbolic formats),
//! symbolic bytes (a plain `%c`, the bytes of a symbolic `fwrite`, a plain `%s`
//! of a symbolic string) and the other conversions with their arguments. Two
//! streams align atom by atom: bytes against bytes compare as bytes; a
//! conversion against the same conversion compares its arguments (a `%c` by its
//! low byte; `%lf` and `%.6f` are `%f`: `l` does nothing to a float, and 6 is
//! the default precision); a plain integer conversion against a run of bytes
//! that could be its digits means "the bytes are digits, without a leading
//! zero, spelling the argument" (so `printf("3")` on one path and
//! `printf("%d", x)` on another differ exactly where `x != 3`). Digits that
//! `sprintf` wrote for a symbolic magnitude `m` (`printf::digit_byte`,
//! recognised by rebuilding them) spell `m` itself, so `printf("%d", x)` against
//! `sprintf` + `fputs` of `y` is `x != ±y`, one linear term instead of an
//! identity over a chain of divisions. Each term is false only where its two
//! pieces print the same bytes, so the disjunction never misses a difference.

use crate::exec::printf::{self, Piece, Spec};
use crate::exec::{FmtArg, HaltedPath, OutputEvent, Stream, Termination};
use crate::expr::fold::mask;
use crate::expr::{Assignment, BinOp, ExprId, ExprPool, Node};

use super::confirm::OutputSelection;
use super::floats;

/// The condition under which `a` and `b` differ in a selected output, or
/// `None` if either path has no comparable behaviour (a silent or unfinished
/// path).
pub fn difference(
    pool: &mut ExprPool,
    a: &HaltedPath,
    b: &HaltedPath,
    sel: OutputSelection,
) -> Option<ExprId> {
    difference_at(pool, a, b, sel, None)
}

/// A stronger condition than [`difference`], for a better candidate when a
/// model `at` of it may print alike: each pair of symbolic doubles that
/// `difference` compares by a may-differ term (their bits) must print
/// different text, one of them keeping the text it has under `at`. `None`
/// where there is no such pair. Never a proof: a pair of doubles that print
/// alike whatever `at` is would make it unsatisfiable.
pub fn sharpened(
    pool: &mut ExprPool,
    a: &HaltedPath,
    b: &HaltedPath,
    sel: OutputSelection,
    at: &Assignment,
) -> Option<ExprId> {
    let sharp = difference_at(pool, a, b, sel, Some(at))?;
    (Some(sharp) != difference(pool, a, b, sel)).then_some(sharp)
}

/// Whether the two paths behave alike, as far as `sel` looks, on the input `at`: their exit
/// statuses (or error kinds) and the text they print, rendered as glibc would. A candidate whose
/// doubles were compared by their bits can be one on which they print the same text: the engine's
/// own rendering tells, before any native replay.
pub fn alike_under(
    pool: &ExprPool,
    a: &HaltedPath,
    b: &HaltedPath,
    sel: OutputSelection,
    at: &Assignment,
) -> bool {
    let exit_alike = match (&a.termination, &b.termination) {
        (Termination::Exit { status: x }, Termination::Exit { status: y }) => {
            pool.eval(*x, at) == pool.eval(*y, at)
        }
        (Termination::Error { kind: x, .. }, Termination::Error { kind: y, .. }) => x == y,
        _ => false,
    };
    let text = |p: &HaltedPath, stream: Stream| -> Vec<u8> {
        p.outputs.iter().filter(|ev| ev.stream() == stream).flat_map(|ev| ev.render(pool, at)).collect()
    };
    let stream_alike = |on: bool, stream: Stream| !on || text(a, stream) == text(b, stream);
    (!sel.exit || exit_alike)
        && stream_alike(sel.stdout, Stream::Stdout)
        && stream_alike(sel.stderr, Stream::Stderr)
}

fn difference_at(
    pool: &mut ExprPool,
    a: &HaltedPath,
    b: &HaltedPath,
    sel: OutputSelection,
    at: Option<&Assignment>,
) -> Option<ExprId> {
    let mut terms = Vec::new();
    match (&a.termination, &b.termination) {
        (Termination::Silent | Termination::Early { .. }, _)
        | (_, Termination::Silent | Termination::Early { .. }) => {
            return None;
        }
        (Termination::Exit { status: x }, Termination::Exit { status: y }) => {
            if sel.exit {
                terms.push(pool.ne(*x, *y));
            }
        }
        (Termination::Error { kind: x, .. }, Termination::Error { kind: y, .. }) => {
            if sel.exit && x != y {
                terms.push(pool.true_());
            }
        }
        // An error against an exit: a crash natively, or a distinct status.
        _ => {
            if sel.exit {
                terms.push(pool.true_());
            }
        }
    }
    if sel.stdout {
        terms.push(stream_difference(pool, a, b, Stream::Stdout, at));
    }
    if sel.stderr {
        terms.push(stream_difference(pool, a, b, Stream::Stderr, at));
    }
    if sel.annotations {
        terms.push(annotation_difference(pool, a, b));
    }
    let mut any = pool.false_();
    for t in terms {
        any = pool.bool_or(any, t);
    }
    Some(any)
}

/// A stream as the bytes and conversions it prints, in order: a concrete
/// `printf` and the literal text of a symbolic one are bytes, and a `%c` is
/// one byte, symbolic or not, so that two ways of printing the same thing
/// line up.
enum Atom<'a> {
    Byte(u8),
    /// A byte that depends on the input (a `%c` of a symbolic value).
    Sym(ExprId),
    /// A conversion and the arguments it consumes (a `*` width or precision
    /// first).
    Conv(Spec, &'a [FmtArg]),
}

fn atoms<'a>(pool: &mut ExprPool, p: &'a HaltedPath, stream: Stream) -> Vec<Atom<'a>> {
    let mut out = Vec::new();
    for ev in &p.outputs {
        match ev {
            OutputEvent::Text { stream: s, bytes } if *s == stream => {
                out.extend(bytes.iter().map(|&b| Atom::Byte(b)))
            }
            OutputEvent::Format { stream: s, format, args } if *s == stream => {
                let pieces = printf::parse(format);
                let mut rest: &[FmtArg] = args;
                for piece in pieces {
                    match piece {
                        Piece::Lit(l) => out.extend(l.into_iter().map(Atom::Byte)),
                        Piece::Conv(spec) => {
                            let n = 1
                                + usize::from(spec.width == Some(None))
                                + usize::from(spec.precision == Some(None));
                            let (used, more) = rest.split_at(n.min(rest.len()));
                            rest = more;
                            // A plain `%c` prints the low byte of its argument (`%lc` a
                            // wide character, which may take several); a `%s` without
                            // width or precision its bytes as they are (a number that
                            // `sprintf` spelled lines up with a `%d` of it).
                            let plain_char = Spec { int_bits: 32, conv: b'c', ..Spec::default() };
                            let plain_str = Spec { int_bits: 32, conv: b's', ..Spec::default() };
                            match used {
                                [FmtArg::Scalar(e)] if spec == plain_char => {
                                    let b = pool.extract(*e, 0, 8);
                                    out.push(byte_atom(pool, b));
                                }
                                [FmtArg::Str(bytes)] if spec == plain_str => {
                                    out.extend(bytes.iter().map(|&b| byte_atom(pool, b)))
                                }
                                _ => out.push(Atom::Conv(spec, used)),
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn byte_atom<'a>(pool: &ExprPool, b: ExprId) -> Atom<'a> {
    match pool.as_const(b) {
        Some(c) => Atom::Byte(c as u8),
        None => Atom::Sym(b),
    }
}

/// The condition under which two streams print different bytes. Conversions
/// met by the same conversion compare their arguments; bytes met by bytes
/// compare as bytes; a conversion met by bytes (one path printed concretely,
/// or by `%c`, what the other prints by `%d`) compares its argument with the
/// number those bytes spell. Where neither fits, the streams count as
/// different on every input; native replay then settles the exact bytes.
fn stream_difference(
    pool: &mut ExprPool,
    a: &HaltedPath,
    b: &HaltedPath,
    stream: Stream,
    at: Option<&Assignment>,
) -> ExprId {
    let (x, y) = (atoms(pool, a, stream), atoms(pool, b, stream));
    match align(pool, &x, &y, at) {
        Some(terms) => {
            let mut any = pool.false_();
            for t in terms {
                any = pool.bool_or(any, t);
            }
            any
        }
        None => pool.true_(),
    }
}

/// Terms whose disjunction holds whenever `x` and `y` print different bytes
/// (each term is false only where its two pieces print the same), or `None`
/// when they differ on every input (or cannot be lined up).
fn align(pool: &mut ExprPool, x: &[Atom], y: &[Atom], at: Option<&Assignment>) -> Option<Vec<ExprId>> {
    let (mut i, mut j) = (0, 0);
    let mut terms = Vec::new();
    loop {
        match (x.get(i), y.get(j)) {
            (None, None) => return Some(terms),
            (Some(Atom::Byte(p)), Some(Atom::Byte(q))) => {
                if p != q {
                    return None;
                }
                (i, j) = (i + 1, j + 1);
            }
            (Some(p @ (Atom::Byte(_) | Atom::Sym(_))), Some(q @ (Atom::Byte(_) | Atom::Sym(_)))) => {
                let (p, q) = (byte_expr(pool, p), byte_expr(pool, q));
                terms.push(pool.ne(p, q));
                (i, j) = (i + 1, j + 1);
            }
            (Some(Atom::Conv(s, u)), Some(Atom::Conv(t, v))) => {
                if s != t || u.len() != v.len() {
                    return None;
                }
                // A `*` width or precision comes first; the value is last.
                for (k, (a, b)) in u.iter().zip(v.iter()).enumerate() {
                    let term = if k + 1 == u.len() {
                        value_difference(pool, s, a, b, at)
                    } else {
                        arg_difference(pool, a, b, b'd')
                    };
                    terms.push(term);
                }
                (i, j) = (i + 1, j + 1);
            }
            (Some(Atom::Conv(s, u)), Some(_)) => {
                let (t, n) = spelled(pool, s, u, x.get(i + 1), &y[j..])?;
                terms.push(t);
                (i, j) = (i + 1, j + n);
            }
            (Some(_), Some(Atom::Conv(s, u))) => {
                let (t, n) = spelled(pool, s, u, y.get(j + 1), &x[i..])?;
                terms.push(t);
                (i, j) = (i + n, j + 1);
            }
            // One stream goes on where the other ended.
            _ => return None,
        }
    }
}

/// A byte atom as an 8-bit expression.
fn byte_expr(pool: &mut ExprPool, a: &Atom) -> ExprId {
    match a {
        Atom::Byte(c) => pool.constant(8, u128::from(*c)),
        Atom::Sym(e) => *e,
        Atom::Conv(..) => unreachable!("a conversion is no byte"),
    }
}

/// A plain integer conversion (no flags, width or precision) against the
/// bytes `text` starts with: the condition under which it prints something
/// else, and how many atoms it stands for. Those are the longest run that
/// could be its digits (a concrete `-` first for `%d`, then digits or
/// symbolic bytes), so the match is exact only when what follows the
/// conversion (`next`) is a concrete byte that cannot continue that run;
/// otherwise `None`, as when the bytes can never be its output. A float
/// conversion, whatever its flags, is `float_spelled`.
fn spelled(
    pool: &mut ExprPool,
    spec: &Spec,
    args: &[FmtArg],
    next: Option<&Atom>,
    text: &[Atom],
) -> Option<(ExprId, usize)> {
    if floats::is_float_conv(spec.conv) {
        let [FmtArg::Scalar(e)] = args else { return None };
        return float_spelled(pool, spec, *e, next, text);
    }
    let plain = Spec { int_bits: spec.int_bits, conv: spec.conv, ..Spec::default() };
    let ([FmtArg::Scalar(e)], true) = (args, *spec == plain) else { return None };
    let e = *e;
    let (radix, signed, letters, max_digits): (u128, bool, Option<u8>, usize) = match spec.conv {
        b'd' | b'i' => (10, true, None, 38),
        b'u' => (10, false, None, 38),
        b'o' => (8, false, None, 42),
        b'x' => (16, false, Some(b'a'), 31),
        b'X' => (16, false, Some(b'A'), 31),
        _ => return None,
    };
    let is_digit = |c: u8| match letters {
        None => (c as char).is_digit(radix as u32),
        Some(l) => c.is_ascii_digit() || (l..l + 6).contains(&c),
    };
    if let Some(n) = next {
        let Atom::Byte(c) = n else { return None };
        if is_digit(*c) {
            return None;
        }
    }
    let sign = usize::from(signed && matches!(text.first(), Some(Atom::Byte(b'-'))));
    let len = sign
        + text[sign..]
            .iter()
            .take_while(|a| match a {
                Atom::Byte(c) => is_digit(*c),
                Atom::Sym(_) => true,
                Atom::Conv(..) => false,
            })
            .count();
    // The run must end in a concrete byte (or the stream), not at a conversion.
    if matches!(text.get(len), Some(Atom::Conv(..))) || len == sign || len - sign > max_digits {
        return None;
    }
    // Every byte of the run is a digit, the number they spell is the value,
    // and glibc prints no leading zeros and no `-0`.
    let (mut same, mut number) = match sprintf_digits(pool, &text[sign..len], radix) {
        Some(spelled) => spelled,
        None => {
            let mut same = pool.true_();
            let mut number = pool.constant(128, 0);
            let base = pool.constant(128, radix);
            for a in &text[sign..len] {
                let b = byte_expr(pool, a);
                let (ok, value) = digit(pool, b, radix, letters);
                same = pool.bool_and(same, ok);
                let shifted = pool.mul(number, base);
                number = pool.add(shifted, value);
            }
            (same, number)
        }
    };
    if sign == 1 || len - sign > 1 {
        let first = byte_expr(pool, &text[sign]);
        let zero = pool.constant(8, u128::from(b'0'));
        let nonzero = pool.ne(first, zero);
        same = pool.bool_and(same, nonzero);
    }
    if sign == 1 {
        number = pool.neg(number);
    }
    let wide = if pool.width(e) == 128 {
        e
    } else if signed {
        pool.sext(e, 128)
    } else {
        pool.zext(e, 128)
    };
    let equal = pool.eq(wide, number);
    same = pool.bool_and(same, equal);
    Some((pool.bool_not(same), len))
}

/// A float conversion of `bits` against the bytes `text` starts with: the
/// condition under which it prints something else, and how many atoms it
/// stands for. Its text lies within the run of concrete bytes a float field
/// may hold, which must end at a concrete byte or the stream's end; of the
/// lengths that `next` allows (the byte after the conversion, or the end),
/// exactly one may be printed by some double, else `None` (an ambiguity, or
/// no double prints the bytes: a difference everywhere).
fn float_spelled(
    pool: &mut ExprPool,
    spec: &Spec,
    bits: ExprId,
    next: Option<&Atom>,
    text: &[Atom],
) -> Option<(ExprId, usize)> {
    let run: Vec<u8> = text
        .iter()
        .map_while(|a| match a {
            Atom::Byte(c) if floats::may_print(*c) => Some(*c),
            _ => None,
        })
        .take(floats::MAX_TEXT + 1)
        .collect();
    if run.len() > floats::MAX_TEXT || !matches!(text.get(run.len()), None | Some(Atom::Byte(_))) {
        return None;
    }
    let mut found = None;
    for len in 1..=run.len() {
        let fits = match next {
            None => len == text.len(),
            Some(Atom::Byte(c)) => matches!(text.get(len), Some(Atom::Byte(d)) if d == c),
            Some(_) => true,
        };
        if !fits {
            continue;
        }
        let prints = floats::prints(pool, spec, bits, &run[..len])?;
        if pool.as_const(prints) == Some(0) {
            continue;
        }
        if found.is_some() {
            return None;
        }
        found = Some((pool.bool_not(prints), len));
    }
    found
}

/// Whether the last argument of two equal conversions prints differently.
/// A float conversion with a concrete value on either side is exact
/// (`floats::prints` of its text); of two symbolic values it is a may-differ
/// term (`floats::print_alike`), which native replay settles, or with a
/// model `at` (see [`sharpened`]) a must-differ term.
fn value_difference(
    pool: &mut ExprPool,
    spec: &Spec,
    u: &FmtArg,
    v: &FmtArg,
    at: Option<&Assignment>,
) -> ExprId {
    let (FmtArg::Scalar(x), FmtArg::Scalar(y)) = (u, v) else { return arg_difference(pool, u, v, spec.conv) };
    if !floats::is_float_conv(spec.conv) || pool.width(*x) != 64 || pool.width(*y) != 64 {
        return arg_difference(pool, u, v, spec.conv);
    }
    let exact = match (pool.as_const(*x), pool.as_const(*y)) {
        (Some(c), None) | (None, Some(c)) => {
            let symbolic = if pool.as_const(*x).is_none() { *x } else { *y };
            floats::prints(pool, spec, symbolic, &floats::text_of(spec, c as u64))
        }
        (Some(c), Some(d)) if spec.width != Some(None) && spec.precision != Some(None) => {
            let alike = floats::text_of(spec, c as u64) == floats::text_of(spec, d as u64);
            Some(pool.bool_const(alike))
        }
        _ => None,
    };
    if let Some(prints) = exact {
        return pool.bool_not(prints);
    }
    let sharp = at.and_then(|at| {
        // One side keeps its text under `at`, the other prints another.
        let mut either = pool.false_();
        for (keep, other) in [(*x, *y), (*y, *x)] {
            let text = floats::text_of(spec, pool.eval(keep, at) as u64);
            let kept = floats::prints(pool, spec, keep, &text)?;
            let moved = floats::prints(pool, spec, other, &text)?;
            let moved = pool.bool_not(moved);
            let both = pool.bool_and(kept, moved);
            either = pool.bool_or(either, both);
        }
        Some(either)
    });
    sharp.unwrap_or_else(|| {
        let alike = floats::print_alike(pool, *x, *y);
        pool.bool_not(alike)
    })
}

/// Decimal digits that `sprintf` wrote for a symbolic magnitude `m`
/// (`printf::digit_byte`): that they are digits, and the number they spell,
/// `m` itself, at 128 bits. Spelling the number back from its digits costs
/// the solver an identity over a chain of divisions (seconds per query, or
/// a timeout), where comparing `m` is one linear term.
fn sprintf_digits(pool: &mut ExprPool, run: &[Atom], radix: u128) -> Option<(ExprId, ExprId)> {
    let k = u32::try_from(run.len()).ok()?;
    let Some(Atom::Sym(units)) = run.last() else { return None };
    if radix != 10 {
        return None;
    }
    // The units digit is '0' + (m % 10): find the remainder, then check every
    // digit against the one `digit_byte` builds from its dividend.
    let mut todo = vec![*units];
    let mut found = None;
    for _ in 0..16 {
        let Some(e) = todo.pop() else { break };
        match *pool.node(e) {
            Node::Bin { op: BinOp::URem, lhs, rhs } if pool.as_const(rhs) == Some(10) => {
                found = Some(lhs);
                break;
            }
            ref n => todo.extend(n.children()),
        }
    }
    let m = found?;
    let w = pool.width(m);
    if w > 128 || 10u128.checked_pow(k).is_none() {
        return None;
    }
    for (i, a) in run.iter().enumerate() {
        let Atom::Sym(b) = a else { return None };
        if printf::digit_byte(pool, m, 10, k - 1 - i as u32, false) != *b {
            return None;
        }
    }
    // Exactly k digits: m below 10^k (at m's width: the magnitude is unsigned).
    let all_digits = match 10u128.checked_pow(k).filter(|&p| p <= mask(w)) {
        Some(p) => {
            let hi = pool.constant(w, p);
            pool.ult(m, hi)
        }
        None => pool.true_(),
    };
    Some((all_digits, if w == 128 { m } else { pool.zext(m, 128) }))
}

/// Whether the byte `b` is a digit in `radix` (hexadecimal letters from
/// `letters`, `a` or `A`), and its value, at 128 bits.
fn digit(pool: &mut ExprPool, b: ExprId, radix: u128, letters: Option<u8>) -> (ExprId, ExprId) {
    let range = |pool: &mut ExprPool, lo: u8, hi: u8| {
        let (l, h) = (pool.constant(8, u128::from(lo)), pool.constant(8, u128::from(hi)));
        let above = pool.ule(l, b);
        let below = pool.ule(b, h);
        pool.bool_and(above, below)
    };
    let wide = pool.zext(b, 128);
    let top = b'0' + radix.min(10) as u8 - 1;
    let decimal = range(pool, b'0', top);
    let zero = pool.constant(128, u128::from(b'0'));
    let as_decimal = pool.sub(wide, zero);
    let Some(l) = letters else { return (decimal, as_decimal) };
    let letter = range(pool, l, l + 5);
    let base = pool.constant(128, u128::from(l) - 10);
    let as_letter = pool.sub(wide, base);
    let ok = pool.bool_or(decimal, letter);
    (ok, pool.ite(decimal, as_decimal, as_letter))
}

/// Whether two arguments of conversion `conv` print differently: `%c`
/// prints only the low byte of its int.
fn arg_difference(pool: &mut ExprPool, u: &FmtArg, v: &FmtArg, conv: u8) -> ExprId {
    match (u, v) {
        (FmtArg::Scalar(x), FmtArg::Scalar(y)) if pool.width(*x) == pool.width(*y) => {
            if conv == b'c' && pool.width(*x) > 8 {
                let (x, y) = (pool.extract(*x, 0, 8), pool.extract(*y, 0, 8));
                pool.ne(x, y)
            } else {
                pool.ne(*x, *y)
            }
        }
        (FmtArg::Str(xs), FmtArg::Str(ys)) => bytes_difference(pool, xs, ys),
        _ => pool.true_(),
    }
}

fn bytes_difference(pool: &mut ExprPool, xs: &[ExprId], ys: &[ExprId]) -> ExprId {
    if xs.len() != ys.len() {
        return pool.true_();
    }
    let mut d = pool.false_();
    for (x, y) in xs.iter().zip(ys) {
        let t = pool.ne(*x, *y);
        d = pool.bool_or(d, t);
    }
    d
}

fn annotation_difference(pool: &mut ExprPool, a: &HaltedPath, b: &HaltedPath) -> ExprId {
    if a.annotations.len() != b.annotations.len() {
        return pool.true_();
    }
    let mut any = pool.false_();
    for (x, y) in a.annotations.iter().zip(&b.annotations) {
        let d = if x.name == y.name { bytes_difference(pool, &x.bytes, &y.bytes) } else { pool.true_() };
        any = pool.bool_or(any, d);
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::printf::Arg;

    /// Wherever `spelled` says a conversion prints the bytes it meets, glibc's
    /// rendering (our `printf::render`) prints exactly those bytes, for every
    /// value and every byte of interest; and where it does, `spelled` agrees,
    /// except for a sign that only a symbolic byte prints (taken as a
    /// difference, which replay settles).
    #[test]
    fn a_conversion_spelled_by_bytes_is_exact() {
        let mut pool = ExprPool::new();
        let x = pool.array("x", 3, 0);
        let e = pool.read_input(x, 0);
        let (s1, s2) = (pool.read_input(x, 1), pool.read_input(x, 2));
        let texts = [
            vec![Atom::Sym(s1), Atom::Sym(s2)],
            vec![Atom::Byte(b'-'), Atom::Sym(s1), Atom::Sym(s2)],
            vec![Atom::Sym(s1), Atom::Byte(b'7'), Atom::Byte(b' ')],
        ];
        let bytes = b"0179adfAF- x";
        for format in [&b"%hhd"[..], b"%hhu", b"%hhx", b"%hhX", b"%hho"] {
            let pieces = printf::parse(format);
            let [Piece::Conv(spec)] = &pieces[..] else { panic!("one conversion") };
            let args = [FmtArg::Scalar(e)];
            for text in &texts {
                // Only `%d` prints a sign.
                let Some((term, n)) = spelled(&mut pool, spec, &args, None, text) else {
                    assert!(matches!(text[0], Atom::Byte(b'-')) && format != b"%hhd");
                    continue;
                };
                let run: Vec<ExprId> = text[..n].iter().map(|t| byte_expr(&mut pool, t)).collect();
                for v in 0..=255u8 {
                    let printed = printf::render(&pieces, &[Arg::Int(u128::from(v))]);
                    for &p in bytes {
                        for &q in bytes {
                            let mut a = Assignment::new();
                            a.set_bytes(x, &[v, p, q]);
                            let met: Vec<u8> = run.iter().map(|&b| pool.eval(b, &a) as u8).collect();
                            let differs = pool.eval(term, &a) == 1;
                            let symbolic_sign = matches!(text[0], Atom::Sym(_)) && met[0] == b'-';
                            if !differs || !symbolic_sign {
                                assert_eq!(
                                    differs,
                                    printed != met,
                                    "{format:?} of {v}: {printed:?} against {met:?}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// Two constant doubles under one conversion differ exactly where their
    /// texts do (a symbolic printf may hold a constant beside its inputs).
    #[test]
    fn constant_doubles_compare_by_text() {
        let mut pool = ExprPool::new();
        let [Piece::Conv(spec)] = &printf::parse(b"%.2f")[..] else { panic!("one conversion") };
        let mut d = |a: f64, b: f64| {
            let (x, y) =
                (pool.constant(64, u128::from(a.to_bits())), pool.constant(64, u128::from(b.to_bits())));
            let t = value_difference(&mut pool, spec, &FmtArg::Scalar(x), &FmtArg::Scalar(y), None);
            pool.as_const(t)
        };
        assert_eq!(d(0.301, 0.302), Some(0));
        assert_eq!(d(0.301, 0.311), Some(1));
        assert_eq!(d(0.0, -0.0), Some(1));
        assert_eq!(d(f64::NAN, f64::from_bits(0x7ff0_0000_0000_0001)), Some(0));
    }
}
