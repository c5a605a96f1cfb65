//! Independence: which constraints can influence a query, at the granularity of input bytes.
//!
//! Two constraints depend on each other when they read a common input byte, or when one reads an input
//! at a symbolic index (the whole array) and the other reads any byte of it; dependence is transitive.

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::Var;
use crate::expr::{ArrayId, ExprId, ExprPool, Node};

/// The variables each expression reads, memoised per root.
#[derive(Default)]
pub(super) struct VarIndex {
    vars: FxHashMap<ExprId, Rc<[Var]>>,
}

impl VarIndex {
    pub fn clear(&mut self) {
        self.vars.clear();
    }

    /// The variables `e` reads, sorted.
    pub fn vars(&mut self, pool: &ExprPool, e: ExprId) -> Rc<[Var]> {
        if let Some(v) = self.vars.get(&e) {
            return v.clone();
        }
        let mut out = Vec::new();
        let mut seen = FxHashSet::default();
        let mut stack = vec![e];
        while let Some(x) = stack.pop() {
            // Subtrees that read nothing need no walk.
            if (pool.arrays_of(x).is_empty() && !pool.mentions_revision(x)) || !seen.insert(x) {
                continue;
            }
            match *pool.node(x) {
                Node::Revision => out.push(Var::Revision),
                Node::Input { array, index } => out.push(Var::Byte(array, index)),
                Node::InputArray(array) => out.push(Var::Array(array)),
                ref node => stack.extend(node.children()),
            }
        }
        out.sort_unstable();
        out.dedup();
        let v: Rc<[Var]> = out.into();
        self.vars.insert(e, v.clone());
        v
    }
}

/// Union-find over item indices.
struct Components {
    parent: Vec<usize>,
}

impl Components {
    fn new(n: usize) -> Self {
        Components { parent: (0..n).collect() }
    }

    fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        // The smaller index wins, so that results do not depend on union order.
        if ra < rb {
            self.parent[rb] = ra;
        } else {
            self.parent[ra] = rb;
        }
    }
}

/// The component of every item: items sharing a variable, transitively, get the same number.
pub(super) fn components(items: &[Rc<[Var]>]) -> Vec<usize> {
    // An array read whole anywhere makes every byte of it one variable.
    let whole: FxHashSet<ArrayId> = items
        .iter()
        .flat_map(|vars| vars.iter())
        .filter_map(|v| match *v {
            Var::Array(a) => Some(a),
            _ => None,
        })
        .collect();
    let mut owner: FxHashMap<Var, usize> = FxHashMap::default();
    let mut comps = Components::new(items.len());
    for (i, vars) in items.iter().enumerate() {
        for &var in vars.iter() {
            let key = match var {
                Var::Byte(a, _) if whole.contains(&a) => Var::Array(a),
                other => other,
            };
            match owner.get(&key) {
                Some(&o) => comps.union(i, o),
                None => {
                    owner.insert(key, i);
                }
            }
        }
    }
    (0..items.len()).map(|i| comps.find(i)).collect()
}
