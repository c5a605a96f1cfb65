//! Float sampling: before Z3 bit-blasts a floating-point query (seconds for a few double
//! multiplications), try cheap candidate models by evaluation. The candidates give every input
//! object of a float's size (4 or 8 bytes, read whole) a value from the query's own float
//! constants and their neighbours (the thresholds its comparisons test), all objects at once and
//! one at a time, on top of the counterexample cache's recent models. A model that satisfies
//! every literal is a proof of satisfiability; a miss costs microseconds and goes on to Z3.
//! Unsatisfiable queries still need Z3.

use rustc_hash::FxHashSet;

use super::{Lit, Var};
use crate::expr::float::FKind;
use crate::expr::{ArrayId, Assignment, Evaluator, ExprPool, Node};

/// Evaluations tried per query.
const MAX_CANDIDATES: usize = 256;

/// A model of `lits` among the candidates, if one is.
pub(super) fn sample(
    pool: &ExprPool,
    lits: &[Lit],
    vars: &[Var],
    bases: &[&Assignment],
) -> Option<Assignment> {
    let objects = float_objects(pool, vars);
    if objects.is_empty() {
        return None;
    }
    let values = constants(pool, lits);
    let (objects, values) = (&objects, &values);
    let zero = Assignment::new();
    let bases: Vec<&Assignment> = if bases.is_empty() { vec![&zero] } else { bases.to_vec() };
    // Every object the same value first (thresholds over sums and averages of the inputs), then
    // one object at a time.
    let together = bases.iter().flat_map(|&base| {
        values.iter().map(move |&v| {
            let mut m = base.clone();
            for &(a, kind) in objects {
                set(&mut m, a, kind, v);
            }
            m
        })
    });
    let alone = bases.iter().filter(|_| objects.len() > 1).flat_map(|&base| {
        objects.iter().flat_map(move |&(a, kind)| {
            values.iter().map(move |&v| {
                let mut m = base.clone();
                set(&mut m, a, kind, v);
                m
            })
        })
    });
    together.chain(alone).take(MAX_CANDIDATES).find(|m| {
        let mut ev = Evaluator::new(pool, m);
        lits.iter().rev().all(|lit| (ev.eval(lit.expr) == 1) != lit.negated)
    })
}

fn set(m: &mut Assignment, a: ArrayId, kind: FKind, v: f64) {
    match kind {
        FKind::F32 => m.set_bytes(a, &(v as f32).to_le_bytes()),
        FKind::F64 => m.set_bytes(a, &v.to_le_bytes()),
    }
}

/// The query's objects of a float's size whose every byte it reads, with that size's kind.
fn float_objects(pool: &ExprPool, vars: &[Var]) -> Vec<(ArrayId, FKind)> {
    let mut read: Vec<(ArrayId, u64)> = Vec::new();
    for &var in vars {
        match var {
            Var::Byte(a, i) => read.push((a, i)),
            Var::Array(a) => read.extend((0..pool.array_info(a).size).map(|i| (a, i))),
            Var::Revision => {}
        }
    }
    let read: FxHashSet<(ArrayId, u64)> = read.into_iter().collect();
    let arrays: FxHashSet<ArrayId> = read.iter().map(|&(a, _)| a).collect();
    let mut out: Vec<(ArrayId, FKind)> = arrays
        .into_iter()
        .filter_map(|a| {
            let size = pool.array_info(a).size;
            let whole = (0..size).all(|i| read.contains(&(a, i)));
            match size {
                4 if whole => Some((a, FKind::F32)),
                8 if whole => Some((a, FKind::F64)),
                _ => None,
            }
        })
        .collect();
    out.sort_unstable_by_key(|&(a, _)| a);
    out
}

/// The float constants the query computes with, their neighbours, and a few small values.
fn constants(pool: &ExprPool, lits: &[Lit]) -> Vec<f64> {
    let mut seen = FxHashSet::default();
    let mut out = Vec::new();
    let mut push = |x: f64| {
        if seen.insert(x.to_bits()) {
            out.push(x);
        }
    };
    for &x in &[0.0, 1.0, -1.0] {
        push(x);
    }
    // One walk over the literals' shared DAG: a node below two literals is visited once.
    let mut visited = FxHashSet::default();
    for lit in lits {
        let below = pool.pending_below(lit.expr, |e| visited.contains(&e));
        visited.extend(below.iter().copied());
        for e in below {
            let Node::Float { a, b, c, .. } = *pool.node(e) else { continue };
            for operand in [a, b, c] {
                let w = pool.width(operand);
                let Some(bits) = pool.as_const(operand) else { continue };
                if w != 32 && w != 64 {
                    continue;
                }
                let x = FKind::of_width(w).to_f64(bits);
                if x.is_finite() {
                    push(x);
                    push(x.next_up());
                    push(x.next_down());
                }
            }
        }
    }
    out
}
