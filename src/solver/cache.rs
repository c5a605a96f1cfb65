//! The two caches in front of Z3.
//!
//! - [`QueryCache`]: exact results, keyed by the sorted set of literals of an (independent) query.
//! - [`CexCache`]: KLEE's counterexample cache. A query is unsatisfiable if a stored unsatisfiable set
//!   is a subset of it; it is satisfiable if one of the recent models satisfies all its literals, which
//!   is checked by evaluation (a model of a superset always passes).

use std::rc::Rc;

use rustc_hash::FxHashMap;

use super::Lit;
use crate::expr::{Assignment, Evaluator, ExprId, ExprPool};

/// A query's answer: a model if satisfiable, `None` if not.
pub(super) type Answer = Option<Rc<Assignment>>;

/// Entries kept before the cache starts over, to bound memory.
const MAX_QUERIES: usize = 1 << 18;

#[derive(Default)]
pub(super) struct QueryCache {
    results: FxHashMap<Box<[Lit]>, Answer>,
}

impl QueryCache {
    pub fn clear(&mut self) {
        self.results.clear();
    }

    pub fn get(&self, lits: &[Lit]) -> Option<Answer> {
        self.results.get(lits).cloned()
    }

    pub fn insert(&mut self, lits: &[Lit], answer: Answer) {
        if self.results.len() >= MAX_QUERIES {
            self.results.clear();
        }
        self.results.insert(lits.into(), answer);
    }
}

/// Models tried per query, newest first.
const MAX_MODELS: usize = 64;
/// Unsatisfiable sets kept for the subset test.
const MAX_UNSAT: usize = 256;
/// Memoised evaluations kept before the memo starts over.
const MAX_EVALS: usize = 1 << 20;

#[derive(Default)]
pub(super) struct CexCache {
    /// Recent models, oldest first, each with a serial number for the evaluation memo.
    models: Vec<(u64, Rc<Assignment>)>,
    next_serial: u64,
    /// Recent unsatisfiable literal sets, oldest first.
    unsat: Vec<Box<[Lit]>>,
    /// Value of an expression under a stored model.
    evals: FxHashMap<(u64, ExprId), bool>,
}

impl CexCache {
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    pub fn lookup(&mut self, pool: &ExprPool, lits: &[Lit]) -> Option<Answer> {
        if self.unsat.iter().rev().any(|u| is_subset(u, lits)) {
            return Some(None);
        }
        if self.evals.len() > MAX_EVALS {
            self.evals.clear();
        }
        for (serial, model) in self.models.iter().rev() {
            let mut evaluator: Option<Evaluator> = None;
            // Newest constraints (highest ids) first: they are the likeliest to fail.
            let holds = lits.iter().rev().all(|lit| {
                let value = *self.evals.entry((*serial, lit.expr)).or_insert_with(|| {
                    evaluator.get_or_insert_with(|| Evaluator::new(pool, model)).eval(lit.expr) == 1
                });
                value != lit.negated
            });
            if holds {
                return Some(Some(model.clone()));
            }
        }
        None
    }

    /// The `n` newest models, newest first.
    pub fn recent(&self, n: usize) -> Vec<Rc<Assignment>> {
        self.models.iter().rev().take(n).map(|(_, m)| m.clone()).collect()
    }

    pub fn insert(&mut self, lits: &[Lit], answer: &Answer) {
        match answer {
            Some(model) => {
                if self.models.len() == MAX_MODELS {
                    self.models.remove(0);
                }
                self.models.push((self.next_serial, model.clone()));
                self.next_serial += 1;
            }
            None => {
                if self.unsat.len() == MAX_UNSAT {
                    self.unsat.remove(0);
                }
                self.unsat.push(lits.into());
            }
        }
    }
}

/// Whether sorted `small` is a subset of sorted `big`.
fn is_subset(small: &[Lit], big: &[Lit]) -> bool {
    if small.len() > big.len() {
        return false;
    }
    let mut rest = big.iter();
    small.iter().all(|s| rest.by_ref().any(|b| b == s))
}
