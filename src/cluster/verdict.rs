//! What a cluster means: revisions no test told apart are **proved
//! equivalent** only when every path of each of them was explored exactly
//! (nothing concretised, cut or left to the budget) and every comparison of
//! their paths settled, or when enumeration ran them alike on every input of
//! the domain (`fuzz::sweep`); otherwise they are **not separated**, with
//! the reasons that keep it from being a proof.
//!
//! The session supplies the reasons: the cluster's revisions are not all the
//! same text, and their coverage has approximations or their pairs have gaps.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// One revision: nothing to prove.
    Alone,
    /// On the explored input domain, these revisions cannot differ.
    ProvedEquivalent,
    /// No test found tells them apart, but the search was not exhaustive.
    NotSeparated,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterVerdict {
    pub verdict: Verdict,
    /// Why a `not-separated` cluster is not proved equivalent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
}

impl ClusterVerdict {
    pub fn proved_equivalent(&self) -> bool {
        self.verdict == Verdict::ProvedEquivalent
    }

    /// `reasons` are what keeps the cluster `revisions` from being a proof
    /// (see [`verdicts`]).
    pub fn new(revisions: &[usize], reasons: Vec<String>) -> ClusterVerdict {
        let verdict = match (revisions.len(), reasons.is_empty()) {
            (0 | 1, _) => Verdict::Alone,
            (_, true) => Verdict::ProvedEquivalent,
            (_, false) => Verdict::NotSeparated,
        };
        let reasons = if verdict == Verdict::Alone { Vec::new() } else { reasons };
        ClusterVerdict { verdict, reasons }
    }
}

/// The verdict of each cluster. `reasons(cluster)` lists what keeps it from
/// being a proof: the approximations on its revisions' paths and the
/// comparisons between them that did not settle.
pub fn verdicts(
    clusters: &[Vec<usize>],
    mut reasons: impl FnMut(&[usize]) -> Vec<String>,
) -> Vec<ClusterVerdict> {
    clusters
        .iter()
        .map(|c| {
            let why = if c.len() > 1 { reasons(c) } else { Vec::new() };
            ClusterVerdict::new(c, why)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cluster_is_a_proof_only_without_reasons() {
        let clusters = vec![vec![0, 2], vec![1], vec![3, 4]];
        let v = verdicts(&clusters, |c| if c.contains(&3) { vec!["budget".into()] } else { Vec::new() });
        assert_eq!(v[0].verdict, Verdict::ProvedEquivalent);
        assert_eq!(v[1].verdict, Verdict::Alone);
        assert_eq!(v[2].verdict, Verdict::NotSeparated);
        assert_eq!(v[2].reasons, ["budget"]);
    }
}
