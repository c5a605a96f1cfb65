//! How one test splits the revisions, when some of them showed their outcome
//! only in part, and clusters that rest only on what was shown whole.
//!
//! A class per revision is a partition, but "could behave alike" is not
//! transitive: a revision that ran out of time printing `1\n` is alike to
//! one that printed `1\n2\n` and to one that printed `1\n3\n`, which are not
//! alike. Such a revision sits in one class and is noted as alike to the
//! others ([`Loose`]); the test does not tell it apart from them
//! ([`Partition::apart`]), and [`settle`] never lets a cluster stand apart
//! from another on such evidence alone.

use serde::{Deserialize, Serialize};

use super::{Classes, clusters};

/// Why a revision's outcome on a test is known only in part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Partial {
    /// It changed when replayed with other memory garbage: only what both
    /// runs agree on is known.
    Unstable,
    /// It ran out of time: it printed the start of what it would print.
    TimedOut,
    /// It ran out of the little time left to hanging runs: whether it would
    /// have exited is not known.
    CutShort,
    /// It printed more than is kept: only the start is known.
    Long,
}

impl Partial {
    pub fn describe(self) -> &'static str {
        match self {
            Partial::Unstable => "the outcome changes with memory garbage (memory read before it is written)",
            Partial::TimedOut => "the run ran out of time, so only the start of the output is known",
            Partial::CutShort => {
                "the run was cut short once hanging runs had used their allowance, so the outcome is not known"
            }
            Partial::Long => "the output is longer than psychic keeps, so only its start is known",
        }
    }
}

/// How one test splits the revisions: an outcome class per revision, and the
/// revisions whose class rests on a partial outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    /// Numbered in order of their first revision, as the report's outcomes.
    pub classes: Classes,
    /// In revision order.
    pub loose: Vec<Loose>,
}

/// A revision whose outcome is partial: it is in the class it is most
/// plainly alike to, and as alike to the classes `alike`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loose {
    pub revision: usize,
    pub why: Partial,
    pub alike: Vec<u32>,
}

impl Partition {
    /// A partition with nothing partial.
    pub fn whole(classes: Classes) -> Partition {
        Partition { classes, loose: Vec::new() }
    }

    /// `r`'s outcome is partial and as alike to `class` as to its own.
    fn alike(&self, r: usize, class: u32) -> bool {
        self.loose.iter().any(|l| l.revision == r && l.alike.contains(&class))
    }

    /// The test tells `a` and `b` apart by what both showed: their classes
    /// differ, and neither is as alike to the other's class as to its own.
    pub fn apart(&self, a: usize, b: usize) -> bool {
        let (ca, cb) = (self.classes[a], self.classes[b]);
        ca != cb && !self.alike(a, cb) && !self.alike(b, ca)
    }

    /// Moves the revisions `revs`, each loose and alike to `to`, into it.
    fn move_to(&mut self, revs: &[usize], to: u32) {
        for &r in revs {
            let from = std::mem::replace(&mut self.classes[r], to);
            let l = self.loose.iter_mut().find(|l| l.revision == r).expect("only loose revisions move");
            l.alike.retain(|&c| c != to);
            l.alike.push(from);
        }
        self.renumber();
    }

    /// Classes numbered in order of their first revision (as after a move,
    /// where a class may have lost its first revision or every revision).
    pub fn renumber(&mut self) {
        let mut order: Vec<u32> = Vec::new();
        for &c in &self.classes {
            if !order.contains(&c) {
                order.push(c);
            }
        }
        let new = |c: u32| order.iter().position(|&x| x == c).map(|i| i as u32);
        self.classes.iter_mut().for_each(|c| *c = new(*c).expect("a class of a revision"));
        for l in &mut self.loose {
            // A class it was alike to may be empty now.
            l.alike = l.alike.iter().filter_map(|&c| new(c)).collect();
            l.alike.sort_unstable();
            l.alike.dedup();
        }
    }
}

/// The clusters of the tests' partitions, where two clusters stand apart
/// only if some test tells them apart by what both showed. Where every test
/// that splits two clusters does so only through revisions as alike to the
/// other cluster's class as to their own, those revisions move to it and the
/// two are one cluster. A cluster never takes a revision on partial evidence
/// against a test that tells them apart.
pub fn settle(revisions: usize, tests: &mut [Partition]) -> Vec<Vec<usize>> {
    loop {
        let classes: Vec<Classes> = tests.iter().map(|t| t.classes.clone()).collect();
        let cl = clusters(revisions, &classes);
        let joinable = (0..cl.len())
            .flat_map(|i| (i + 1..cl.len()).map(move |j| (i, j)))
            .find_map(|(i, j)| moves_joining(tests, &cl[i], &cl[j]));
        let Some(moves) = joinable else { return cl };
        for (t, revs, to) in moves {
            tests[t].move_to(&revs, to);
        }
    }
}

/// The moves that make clusters `x` and `y` one, if no test tells them apart
/// by what both showed: per test that splits them, the revisions of one side
/// and the class they move to.
fn moves_joining(tests: &[Partition], x: &[usize], y: &[usize]) -> Option<Vec<(usize, Vec<usize>, u32)>> {
    let mut moves = Vec::new();
    for (t, p) in tests.iter().enumerate() {
        let (cx, cy) = (p.classes[x[0]], p.classes[y[0]]);
        if cx == cy {
            continue;
        }
        if x.iter().all(|&r| p.alike(r, cy)) {
            moves.push((t, x.to_vec(), cy));
        } else if y.iter().all(|&r| p.alike(r, cx)) {
            moves.push((t, y.to_vec(), cx));
        } else {
            return None;
        }
    }
    Some(moves)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loose(revision: usize, alike: &[u32]) -> Loose {
        Loose { revision, why: Partial::Unstable, alike: alike.to_vec() }
    }

    #[test]
    fn a_partial_outcome_alone_separates_nothing() {
        // Revision 2 is in class 1 by its plain run, but as alike to class 0.
        let mut tests = vec![Partition { classes: vec![0, 0, 1], loose: vec![loose(2, &[0])] }];
        assert!(!tests[0].apart(0, 2));
        assert_eq!(settle(3, &mut tests), [vec![0, 1, 2]]);
        assert_eq!(tests[0].classes, [0, 0, 0]);
    }

    #[test]
    fn what_another_test_tells_apart_stays_apart() {
        let mut tests = vec![
            Partition { classes: vec![0, 0, 1], loose: vec![loose(2, &[0])] },
            Partition::whole(vec![0, 0, 1]),
        ];
        assert_eq!(settle(3, &mut tests), [vec![0, 1], vec![2]]);
        assert_eq!(tests[0].classes, [0, 0, 1], "nothing moves where it would not join");
    }

    #[test]
    fn a_revision_alike_to_two_classes_does_not_split_either() {
        // 0 and 1 differ whole; 2 timed out alike to both and sits with 0.
        let mut tests = vec![Partition { classes: vec![0, 1, 0], loose: vec![loose(2, &[1])] }];
        assert!(tests[0].apart(0, 1));
        assert!(!tests[0].apart(1, 2) && !tests[0].apart(0, 2));
        assert_eq!(settle(3, &mut tests), [vec![0, 2], vec![1]]);
    }

    #[test]
    fn moves_renumber_by_first_revision() {
        // Revision 0 is loose in class 1, alike to class 0 (revision 1's).
        let mut tests = vec![Partition { classes: vec![0, 1, 1], loose: vec![loose(0, &[1])] }];
        assert_eq!(settle(3, &mut tests), [vec![0, 1, 2]]);
        assert_eq!(tests[0].classes, [0, 0, 0]);
        assert_eq!(tests[0].loose[0].alike, Vec::<u32>::new());
    }
}
