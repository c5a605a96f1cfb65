//! From confirmed tests to clusters and a decision tree.
//!
//! Input: for each confirmed test, the outcome class of every revision (revisions
//! with equal outcomes share a class). Output:
//! - the clusters: revisions that no test tells apart (the common refinement of
//!   every test's partition);
//! - a decision tree of minimum height: each node a test, each edge an outcome
//!   class, each leaf a cluster;
//! - a smallest set of tests that separates every pair of clusters.
//!
//! Both searches are exact with pruning, under an effort budget; past the budget
//! they return the best found so far and say it may not be optimal.

pub mod names;
mod partition;
mod search;
mod verdict;

pub use partition::{Loose, Partial, Partition, settle};
pub use search::{SearchBudget, decision_tree, separating_set};
pub use verdict::{ClusterVerdict, Verdict, verdicts};

/// The outcome class of each revision under one test: `classes[r]` is a small
/// number, equal for revisions that behaved alike.
pub type Classes = Vec<u32>;

/// Revisions that no test tells apart, each sorted, ordered by smallest member.
pub fn clusters(revisions: usize, tests: &[Classes]) -> Vec<Vec<usize>> {
    let mut groups: std::collections::BTreeMap<Vec<u32>, Vec<usize>> = Default::default();
    for r in 0..revisions {
        let key: Vec<u32> = tests.iter().map(|t| t[r]).collect();
        groups.entry(key).or_default().push(r);
    }
    let mut out: Vec<Vec<usize>> = groups.into_values().collect();
    out.sort_by_key(|c| c[0]);
    out
}

/// A decision tree over clusters. Leaves name a cluster by its index in the
/// `clusters` list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tree {
    Leaf { cluster: usize },
    Node { test: usize, branches: Vec<Branch> },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Branch {
    /// The outcome class of `test` along this edge.
    pub outcome: u32,
    /// The clusters that reach this edge, in order.
    pub clusters: Vec<usize>,
    pub subtree: Tree,
}

impl Tree {
    pub fn height(&self) -> usize {
        match self {
            Tree::Leaf { .. } => 0,
            Tree::Node { branches, .. } => 1 + branches.iter().map(|b| b.subtree.height()).max().unwrap_or(0),
        }
    }

    /// The tests the tree uses, in first-use order.
    pub fn tests(&self) -> Vec<usize> {
        let mut out = Vec::new();
        self.collect_tests(&mut out);
        out
    }

    fn collect_tests(&self, out: &mut Vec<usize>) {
        if let Tree::Node { test, branches } = self {
            if !out.contains(test) {
                out.push(*test);
            }
            for b in branches {
                b.subtree.collect_tests(out);
            }
        }
    }
}

/// A search result and whether the search proved it optimal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found<T> {
    pub value: T,
    pub optimal: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clusters_refine_every_test() {
        // 5 revisions; test 0 splits {0,1,2} | {3,4}; test 1 splits {0,3} | {1,2,4}.
        let tests = vec![vec![0, 0, 0, 1, 1], vec![0, 1, 1, 0, 1]];
        assert_eq!(clusters(5, &tests), vec![vec![0], vec![1, 2], vec![3], vec![4]]);
        assert_eq!(clusters(3, &[]), vec![vec![0, 1, 2]]);
    }
}
