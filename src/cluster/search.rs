//! Exact searches with pruning: a minimum-height decision tree (iterative
//! deepening over cluster subsets, memoised, with a counting lower bound) and a
//! minimum separating test set (a hitting set: branch and bound on the
//! constraint the fewest tests satisfy).

use std::collections::HashMap;

use super::{Branch, Classes, Found, Tree};

/// How much work an exact search may do before it settles for its best so
/// far. A unit of work is one cluster split by one test (the tree) or one
/// constraint looked at (the separating set): a step over 420 clusters costs
/// a thousand times one over a dozen, and the budget bounds time, not steps.
#[derive(Debug, Clone, Copy)]
pub struct SearchBudget {
    pub max_work: u64,
}

impl Default for SearchBudget {
    fn default() -> Self {
        SearchBudget { max_work: 100_000_000 }
    }
}

/// A test's split of a cluster set: (outcome class, clusters with that class).
type Groups = Vec<(u32, Vec<usize>)>;

/// The problem seen from the clusters: `class[t][c]` is the outcome class of
/// cluster `c` under test `t` (well defined: a cluster's revisions agree on
/// every test). Tests that induce the same partition are merged; the first id is
/// kept.
struct Problem {
    /// (original test id, class of each cluster), one per distinct partition.
    tests: Vec<(usize, Vec<u32>)>,
}

impl Problem {
    fn new(clusters: &[Vec<usize>], tests: &[Classes]) -> Problem {
        let mut seen: HashMap<Vec<u32>, ()> = HashMap::new();
        let mut out = Vec::new();
        for (id, t) in tests.iter().enumerate() {
            let raw: Vec<u32> = clusters.iter().map(|c| t[c[0]]).collect();
            // Canonical form: classes renumbered by first appearance, so that
            // tests that split alike under other labels merge.
            let mut map: HashMap<u32, u32> = HashMap::new();
            let canon: Vec<u32> = raw
                .iter()
                .map(|&x| {
                    let n = map.len() as u32;
                    *map.entry(x).or_insert(n)
                })
                .collect();
            if map.len() > 1 && seen.insert(canon, ()).is_none() {
                out.push((id, raw));
            }
        }
        Problem { tests: out }
    }

    /// The groups `set` falls into under test `t`, as (class, members), ordered
    /// by class of first member; `None` if `t` does not split `set`.
    fn split(&self, t: usize, set: &[usize]) -> Option<Groups> {
        let classes = &self.tests[t].1;
        let mut groups: Groups = Vec::new();
        for &c in set {
            match groups.iter_mut().find(|g| g.0 == classes[c]) {
                Some(g) => g.1.push(c),
                None => groups.push((classes[c], vec![c])),
            }
        }
        (groups.len() > 1).then_some(groups)
    }
}

/// A decision tree of minimum height over `clusters` (as from [`super::clusters`]),
/// using `tests`. `None` when there is a single cluster: nothing to decide.
pub fn decision_tree(
    clusters: &[Vec<usize>],
    tests: &[Classes],
    budget: SearchBudget,
) -> Option<Found<Tree>> {
    if clusters.len() < 2 {
        return None;
    }
    let problem = Problem::new(clusters, tests);
    let all: Vec<usize> = (0..clusters.len()).collect();
    let greedy = greedy_tree(&problem, &all);
    let mut search = TreeSearch { problem: &problem, memo: HashMap::new(), work: 0, budget };
    let lower = search.lower_bound(&all);
    let mut best = Found { value: greedy.clone(), optimal: greedy.height() == lower };
    if !best.optimal {
        for bound in lower..greedy.height() {
            match search.solve(&all, bound) {
                Ok(Some(tree)) => {
                    best = Found { value: tree, optimal: true };
                    break;
                }
                Ok(None) => continue,
                Err(OutOfBudget) => break,
            }
        }
        // Every bound below the greedy height failed: the greedy tree is optimal.
        if !best.optimal && search.work <= budget.max_work {
            best.optimal = true;
        }
    }
    Some(best)
}

struct OutOfBudget;

struct TreeSearch<'a> {
    problem: &'a Problem,
    /// For a cluster set: the best height proved impossible below (a lower
    /// bound), and a tree if one was found.
    memo: HashMap<Vec<usize>, (usize, Option<Tree>)>,
    work: u64,
    budget: SearchBudget,
}

impl TreeSearch<'_> {
    /// A tree of height at most `bound` for `set`, or `None` if there is none.
    fn solve(&mut self, set: &[usize], bound: usize) -> Result<Option<Tree>, OutOfBudget> {
        if set.len() == 1 {
            return Ok(Some(Tree::Leaf { cluster: set[0] }));
        }
        self.work += (set.len() * self.problem.tests.len()) as u64;
        if self.work > self.budget.max_work {
            return Err(OutOfBudget);
        }
        let (known_lower, known_tree) = match self.memo.get(set) {
            Some((lb, tree)) => (*lb, tree.clone()),
            None => (self.lower_bound(set), None),
        };
        if let Some(tree) = known_tree.filter(|t| t.height() <= bound) {
            return Ok(Some(tree));
        }
        if known_lower > bound || bound == 0 {
            self.memo.insert(set.to_vec(), (known_lower.max(1), None));
            return Ok(None);
        }
        // Try the tests that split the set most evenly first: they tend to give
        // the lowest trees, which tightens nothing here but finds success sooner.
        let mut candidates: Vec<(usize, Groups)> = (0..self.problem.tests.len())
            .filter_map(|t| self.problem.split(t, set).map(|g| (t, g)))
            .collect();
        candidates.sort_by_key(|(t, g)| (g.iter().map(|x| x.1.len()).max().unwrap_or(0), *t));
        for (t, groups) in candidates {
            let mut branches = Vec::with_capacity(groups.len());
            let mut ok = true;
            for (outcome, members) in groups {
                match self.solve(&members, bound - 1)? {
                    Some(subtree) => branches.push(Branch { outcome, clusters: members, subtree }),
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                let tree = Tree::Node { test: self.problem.tests[t].0, branches };
                self.memo.insert(set.to_vec(), (known_lower, Some(tree.clone())));
                return Ok(Some(tree));
            }
        }
        self.memo.insert(set.to_vec(), (bound + 1, None));
        Ok(None)
    }

    /// Each node splits its set into at most `k` parts, `k` the most any test
    /// achieves on it, so a tree needs at least ceil(log_k |set|) levels.
    fn lower_bound(&self, set: &[usize]) -> usize {
        if set.len() <= 1 {
            return 0;
        }
        let k = (0..self.problem.tests.len())
            .filter_map(|t| self.problem.split(t, set).map(|g| g.len()))
            .max()
            .unwrap_or(1);
        if k < 2 {
            // No test splits the set; callers never build such a set from clusters.
            return usize::MAX;
        }
        let (mut levels, mut reach) = (0, 1usize);
        while reach < set.len() {
            reach = reach.saturating_mul(k);
            levels += 1;
        }
        levels
    }
}

/// The classic greedy tree: at each node the test whose largest group is smallest.
fn greedy_tree(problem: &Problem, set: &[usize]) -> Tree {
    if set.len() == 1 {
        return Tree::Leaf { cluster: set[0] };
    }
    let (t, groups) = (0..problem.tests.len())
        .filter_map(|t| problem.split(t, set).map(|g| (t, g)))
        .min_by_key(|(t, g)| (g.iter().map(|x| x.1.len()).max().unwrap_or(0), *t))
        .expect("clusters are separated by some test");
    let branches = groups
        .into_iter()
        .map(|(outcome, members)| Branch {
            subtree: greedy_tree(problem, &members),
            outcome,
            clusters: members,
        })
        .collect();
    Tree::Node { test: problem.tests[t].0, branches }
}

/// A smallest set of tests that separates every pair of clusters, sorted.
///
/// A hitting set: each pair of clusters is the set of tests that separate
/// it, and pairs with the same set are one constraint. Each step of the
/// search walks the constraints, not the pairs: 420 clusters make 87,990
/// pairs, and the search took 100 s over them, 36 ms over the constraints.
pub fn separating_set(clusters: &[Vec<usize>], tests: &[Classes], budget: SearchBudget) -> Found<Vec<usize>> {
    let problem = Problem::new(clusters, tests);
    let n = clusters.len();
    let words = problem.tests.len().div_ceil(64);
    let mut distinct = std::collections::BTreeSet::new();
    for a in 0..n {
        for b in a + 1..n {
            let mut mask = vec![0u64; words];
            for (t, (_, cls)) in problem.tests.iter().enumerate() {
                if cls[a] != cls[b] {
                    mask[t / 64] |= 1 << (t % 64);
                }
            }
            distinct.insert(mask);
        }
    }
    // hits[t]: the constraints test t satisfies; needs[c]: the tests that do.
    let mut hits: Vec<Vec<usize>> = vec![Vec::new(); problem.tests.len()];
    let needs: Vec<Vec<usize>> = distinct
        .into_iter()
        .enumerate()
        .map(|(c, mask)| {
            let ts: Vec<usize> =
                (0..problem.tests.len()).filter(|&t| mask[t / 64] >> (t % 64) & 1 == 1).collect();
            ts.iter().for_each(|&t| hits[t].push(c));
            ts
        })
        .collect();
    let greedy = greedy_cover(&hits, needs.len());
    let mut search =
        CoverSearch { hits: &hits, needs: &needs, best: greedy, work: 0, budget, complete: true };
    let mut covered = vec![0u32; needs.len()];
    let mut chosen = Vec::new();
    search.branch(&mut covered, &mut chosen);
    let mut ids: Vec<usize> = search.best.iter().map(|&t| problem.tests[t].0).collect();
    ids.sort_unstable();
    Found { value: ids, optimal: search.complete }
}

fn greedy_cover(hits: &[Vec<usize>], constraints: usize) -> Vec<usize> {
    let mut covered = vec![false; constraints];
    let mut chosen = Vec::new();
    while covered.iter().any(|c| !c) {
        let best = (0..hits.len())
            .max_by_key(|&t| (hits[t].iter().filter(|&&c| !covered[c]).count(), std::cmp::Reverse(t)))
            .expect("clusters are separated by some test");
        for &c in &hits[best] {
            covered[c] = true;
        }
        chosen.push(best);
    }
    chosen
}

struct CoverSearch<'a> {
    hits: &'a [Vec<usize>],
    needs: &'a [Vec<usize>],
    best: Vec<usize>,
    work: u64,
    budget: SearchBudget,
    complete: bool,
}

impl CoverSearch<'_> {
    /// `covered[c]` counts chosen tests satisfying constraint c.
    fn branch(&mut self, covered: &mut [u32], chosen: &mut Vec<usize>) {
        self.work += covered.len() as u64;
        if self.work > self.budget.max_work {
            self.complete = false;
            return;
        }
        let uncovered: Vec<usize> = (0..covered.len()).filter(|&c| covered[c] == 0).collect();
        if uncovered.is_empty() {
            if chosen.len() < self.best.len() {
                self.best = chosen.clone();
            }
            return;
        }
        // Lower bound: the best single test covers at most `most` new constraints.
        let gain = |t: usize| self.hits[t].iter().filter(|&&c| covered[c] == 0).count();
        let most = (0..self.hits.len()).map(gain).max().unwrap_or(0);
        if most == 0 || chosen.len() + uncovered.len().div_ceil(most) >= self.best.len() {
            return;
        }
        // Some chosen test must satisfy the constraint the fewest tests satisfy.
        let c = *uncovered.iter().min_by_key(|&&c| self.needs[c].len()).expect("uncovered is non-empty");
        let mut options = self.needs[c].clone();
        options.sort_by_key(|&t| std::cmp::Reverse(gain(t)));
        for t in options {
            for &c in &self.hits[t] {
                covered[c] += 1;
            }
            chosen.push(t);
            self.branch(covered, chosen);
            chosen.pop();
            for &c in &self.hits[t] {
                covered[c] -= 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::clusters;
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Reference: the minimum height by exhaustive recursion without memo or bounds.
    fn brute_height(tests: &[Vec<u32>], set: &[usize]) -> usize {
        if set.len() == 1 {
            return 0;
        }
        let mut best = usize::MAX;
        for t in tests {
            let mut groups: Vec<Vec<usize>> = Vec::new();
            for &c in set {
                match groups.iter_mut().find(|g| t[g[0]] == t[c]) {
                    Some(g) => g.push(c),
                    None => groups.push(vec![c]),
                }
            }
            if groups.len() > 1 {
                let h = 1 + groups.iter().map(|g| brute_height(tests, g)).max().unwrap();
                best = best.min(h);
            }
        }
        best
    }

    fn brute_cover(tests: &[Vec<u32>], n: usize) -> usize {
        (0u32..1 << tests.len())
            .filter(|mask| {
                (0..n).all(|a| {
                    (a + 1..n)
                        .all(|b| (0..tests.len()).any(|t| mask >> t & 1 == 1 && tests[t][a] != tests[t][b]))
                })
            })
            .map(|m| m.count_ones() as usize)
            .min()
            .unwrap()
    }

    /// Checks that the tree is well formed: every branch holds exactly the
    /// clusters of its parent with that outcome, and leaves are single clusters.
    fn check_tree(tree: &Tree, set: &[usize], by_cluster: &[Vec<u32>]) {
        match tree {
            Tree::Leaf { cluster } => assert_eq!(set, [*cluster]),
            Tree::Node { test, branches } => {
                let mut seen: Vec<usize> = Vec::new();
                for b in branches {
                    for &c in &b.clusters {
                        assert_eq!(by_cluster[*test][c], b.outcome);
                    }
                    seen.extend(&b.clusters);
                    check_tree(&b.subtree, &b.clusters, by_cluster);
                }
                seen.sort();
                assert_eq!(seen, set);
            }
        }
    }

    #[test]
    fn exact_on_random_instances() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for _ in 0..300 {
            let revisions = rng.random_range(2..9);
            let ntests = rng.random_range(1..7);
            let tests: Vec<Vec<u32>> = (0..ntests)
                .map(|_| {
                    let k = rng.random_range(1..4);
                    (0..revisions).map(|_| rng.random_range(0..k)).collect()
                })
                .collect();
            let cl = clusters(revisions, &tests);
            let by_cluster: Vec<Vec<u32>> =
                tests.iter().map(|t| cl.iter().map(|c| t[c[0]]).collect()).collect();
            let all: Vec<usize> = (0..cl.len()).collect();
            match decision_tree(&cl, &tests, SearchBudget::default()) {
                None => assert_eq!(cl.len(), 1),
                Some(found) => {
                    assert!(found.optimal);
                    check_tree(&found.value, &all, &by_cluster);
                    assert_eq!(found.value.height(), brute_height(&by_cluster, &all));
                }
            }
            if cl.len() > 1 {
                let set = separating_set(&cl, &tests, SearchBudget::default());
                assert!(set.optimal);
                assert_eq!(set.value.len(), brute_cover(&by_cluster, cl.len()));
                let sub: Vec<Vec<u32>> = set.value.iter().map(|&t| tests[t].clone()).collect();
                assert_eq!(clusters(revisions, &sub), cl, "the set separates all clusters");
            }
        }
    }

    #[test]
    fn budget_exhaustion_still_gives_a_valid_tree() {
        let revisions = 24;
        // One test per bit of the revision number, plus noise tests.
        let mut tests: Vec<Vec<u32>> =
            (0..5).map(|b| (0..revisions).map(|r| (r >> b & 1) as u32).collect()).collect();
        tests.extend((0..revisions).map(|k| (0..revisions).map(|r| (r == k) as u32).collect::<Vec<u32>>()));
        let cl = clusters(revisions, &tests);
        assert_eq!(cl.len(), revisions);
        let tiny = SearchBudget { max_work: 3 };
        let found = decision_tree(&cl, &tests, tiny).unwrap();
        let by_cluster: Vec<Vec<u32>> = tests.iter().map(|t| cl.iter().map(|c| t[c[0]]).collect()).collect();
        check_tree(&found.value, &(0..revisions).collect::<Vec<_>>(), &by_cluster);
        let full = decision_tree(&cl, &tests, SearchBudget::default()).unwrap();
        assert!(full.optimal);
        assert_eq!(full.value.height(), 5, "five bit tests separate 24 revisions in 5 levels");
        let set = separating_set(&cl, &tests, SearchBudget::default());
        assert_eq!(set.value.len(), 5);
    }
}
