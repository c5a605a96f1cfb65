//! The symbolic side of "these two paths behave differently": a width-1
//! expression over the inputs that holds exactly when some selected output of
//! one path differs from the other's (seed 000, DiffTest; Qi's
//! `symout_i != symout_j`).
//!
//! Outputs are compared at the event level. Where the structure itself differs
//! (a different number of events, another format string, another error kind),
//! the difference holds on every input both paths accept; native replay then
//! settles the exact bytes.

use crate::exec::memory::byte_expr;
use crate::exec::value::Byte;
use crate::exec::{FmtArg, HaltedPath, OutputEvent, Stream, Termination, printf};
use crate::expr::{ExprId, ExprPool};

use super::confirm::OutputSelection;

/// The condition under which `a` and `b` differ in a selected output, or
/// `None` if either path has no comparable behaviour (a silent or unfinished
/// path).
pub fn difference(
    pool: &mut ExprPool,
    a: &HaltedPath,
    b: &HaltedPath,
    sel: OutputSelection,
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
        terms.push(stream_difference(pool, a, b, Stream::Stdout));
    }
    if sel.stderr {
        terms.push(stream_difference(pool, a, b, Stream::Stderr));
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

/// One stream's events, with adjacent text merged so that two ways of writing
/// the same concrete bytes compare equal.
fn events(p: &HaltedPath, stream: Stream) -> Vec<Event<'_>> {
    let mut out: Vec<Event> = Vec::new();
    for ev in &p.outputs {
        match ev {
            OutputEvent::Text { stream: s, bytes } if *s == stream => match out.last_mut() {
                Some(Event::Text(t)) => t.extend_from_slice(bytes),
                _ => out.push(Event::Text(bytes.clone())),
            },
            OutputEvent::Format { stream: s, format, args } if *s == stream => {
                out.push(Event::Format(format, args))
            }
            _ => {}
        }
    }
    out
}

enum Event<'a> {
    Text(Vec<u8>),
    Format(&'a [u8], &'a [FmtArg]),
}

fn stream_difference(pool: &mut ExprPool, a: &HaltedPath, b: &HaltedPath, stream: Stream) -> ExprId {
    let (ea, eb) = (events(a, stream), events(b, stream));
    let same_shape = ea.len() == eb.len()
        && ea.iter().zip(&eb).all(|(x, y)| match (x, y) {
            (Event::Text(_), Event::Text(_)) => true,
            (Event::Format(f, xs), Event::Format(g, ys)) => f == g && xs.len() == ys.len(),
            _ => false,
        });
    if !same_shape {
        // Other events may still print the same bytes (printf("%c") and
        // putchar): compare the bytes where their number is fixed.
        return match (fixed_bytes(pool, a, stream), fixed_bytes(pool, b, stream)) {
            (Some(x), Some(y)) if x.len() == y.len() => {
                let (x, y): (Vec<ExprId>, Vec<ExprId>) =
                    x.into_iter().zip(y).map(|(u, v)| (byte_expr(pool, u), byte_expr(pool, v))).unzip();
                bytes_difference(pool, &x, &y)
            }
            _ => pool.true_(),
        };
    }
    let mut any = pool.false_();
    for (x, y) in ea.iter().zip(&eb) {
        let d = match (x, y) {
            (Event::Text(s), Event::Text(t)) => pool.bool_const(s != t),
            (Event::Format(f, xs), Event::Format(g, ys)) if f == g && xs.len() == ys.len() => {
                let slots = printf::slots(&printf::parse(f));
                let mut d = pool.false_();
                for (i, (u, v)) in xs.iter().zip(ys.iter()).enumerate() {
                    let conv = slots.get(i).and_then(|(_, s)| s.map(|s| s.conv));
                    let t = arg_difference(pool, u, v, conv);
                    d = pool.bool_or(d, t);
                }
                d
            }
            _ => pool.true_(),
        };
        any = pool.bool_or(any, d);
    }
    any
}

/// Whether two arguments of conversion `conv` print differently: `%c`
/// prints only the low byte of its int.
/// A path's bytes on `stream`, when their number is fixed.
fn fixed_bytes(pool: &mut ExprPool, p: &HaltedPath, stream: Stream) -> Option<Vec<Byte>> {
    let mut out = Vec::new();
    for ev in p.outputs.iter().filter(|e| e.stream() == stream) {
        out.extend(ev.fixed_bytes(pool)?);
    }
    Some(out)
}

fn arg_difference(pool: &mut ExprPool, u: &FmtArg, v: &FmtArg, conv: Option<u8>) -> ExprId {
    match (u, v) {
        (FmtArg::Scalar(x), FmtArg::Scalar(y)) if pool.width(*x) == pool.width(*y) => {
            if conv == Some(b'c') && pool.width(*x) > 8 {
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
