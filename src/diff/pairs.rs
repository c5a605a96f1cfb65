//! What the run knows of each pair of revisions, kept per pair of texts.
//!
//! Revisions of one text are one program (`DiffConfig::same_as`): they are
//! never told apart, always equivalent, and every question about a pair is
//! one about the texts' first revisions. A repair tool's pool of 10,000
//! patches held 2,944 texts: 8.7 million pairs instead of 100 million, and
//! every test's partition, every candidate and every halted path's pairing
//! asks about all of them.

use crate::cluster::Partition;
use crate::exec::RevSet;

pub(super) struct Pairs {
    /// Per revision: its text.
    text: Vec<u32>,
    /// Per text: its first revision.
    firsts: Vec<usize>,
    /// Per text: how many revisions have it.
    sizes: Vec<u32>,
    /// `told_apart[x * k + y]`: some confirmed test separates texts x and y.
    told_apart: Vec<bool>,
    /// `proved[x * k + y]`: x and y behave alike on every input of the
    /// domain (enumeration's proof), or no state left when the run stopped
    /// could tell them apart (exploration's).
    proved: Vec<bool>,
    /// Pairs of texts neither told apart nor proved equivalent.
    left: usize,
}

impl Pairs {
    /// `same_as[r]`: the first revision of r's text (empty: every revision
    /// its own text).
    pub(super) fn new(revisions: usize, same_as: &[usize]) -> Pairs {
        let mut text = vec![0u32; revisions];
        let mut firsts = Vec::new();
        for r in 0..revisions {
            let first = same_as.get(r).copied().filter(|&f| f < r).unwrap_or(r);
            text[r] = if first == r {
                firsts.push(r);
                firsts.len() as u32 - 1
            } else {
                text[first]
            };
        }
        let k = firsts.len();
        let mut sizes = vec![0u32; k];
        for &t in &text {
            sizes[t as usize] += 1;
        }
        Pairs {
            text,
            firsts,
            sizes,
            told_apart: vec![false; k * k],
            proved: vec![false; k * k],
            left: k * k.saturating_sub(1) / 2,
        }
    }

    fn k(&self) -> usize {
        self.firsts.len()
    }

    fn at(&self, a: usize, b: usize) -> usize {
        self.text[a] as usize * self.k() + self.text[b] as usize
    }

    /// Each pair of texts `(x, y)`, `x < y`, by their first revisions.
    pub(super) fn text_pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let f = &self.firsts;
        (0..f.len()).flat_map(move |x| (x + 1..f.len()).map(move |y| (f[x], f[y])))
    }

    /// The first revision of each text.
    pub(super) fn firsts(&self) -> impl Iterator<Item = usize> + '_ {
        self.firsts.iter().copied()
    }

    /// The first revision of `r`'s text.
    pub(super) fn first(&self, r: usize) -> usize {
        self.firsts[self.text[r] as usize]
    }

    /// A confirmed test separates `a` and `b`.
    pub(super) fn apart(&self, a: usize, b: usize) -> bool {
        self.told_apart[self.at(a, b)]
    }

    /// `a` and `b` are proved equivalent, or are one text.
    pub(super) fn proved(&self, a: usize, b: usize) -> bool {
        self.text[a] == self.text[b] || self.proved[self.at(a, b)]
    }

    /// Every pair is told apart or proved equivalent.
    pub(super) fn done(&self) -> bool {
        self.left == 0
    }

    /// Per text: how many revisions of `revs` have it. Halted paths ask of
    /// their revisions, thousands each, at every halt: counted, not sorted.
    fn counts(&self, revs: &RevSet) -> Vec<u32> {
        let mut n = vec![0u32; self.k()];
        for r in revs.iter() {
            n[self.text[r as usize] as usize] += 1;
        }
        n
    }

    /// The texts of `revs`, each once, in order.
    fn texts_of(&self, revs: &RevSet) -> Vec<u32> {
        self.counts(revs).iter().enumerate().filter(|&(_, &c)| c > 0).map(|(t, _)| t as u32).collect()
    }

    /// Some revision of `x` is not told apart from some revision of `y`.
    pub(super) fn some_open(&self, x: &RevSet, y: &RevSet) -> bool {
        let (tx, ty) = (self.texts_of(x), self.texts_of(y));
        let k = self.k();
        tx.iter().any(|&a| ty.iter().any(|&b| !self.told_apart[a as usize * k + b as usize]))
    }

    /// Every revision of `revs` is told apart from every revision outside it.
    pub(super) fn settled(&self, revs: &RevSet) -> bool {
        let counts = self.counts(revs);
        let inside: Vec<usize> = (0..counts.len()).filter(|&t| counts[t] > 0).collect();
        let outside: Vec<usize> = (0..counts.len()).filter(|&t| counts[t] < self.sizes[t]).collect();
        let k = self.k();
        // A text inside and outside is a pair of one text: never apart.
        inside.iter().all(|&a| outside.iter().all(|&b| self.told_apart[a * k + b]))
    }

    /// The pairs `p` tells apart become told apart. Those of them that were
    /// proved equivalent, by first revisions: the caller voids their proofs.
    pub(super) fn record(&mut self, p: &Partition) -> Vec<(usize, usize)> {
        let mut voided = Vec::new();
        let k = self.k();
        for x in 0..k {
            for y in x + 1..k {
                let (a, b) = (self.firsts[x], self.firsts[y]);
                if p.apart(a, b) && !self.told_apart[x * k + y] {
                    self.told_apart[x * k + y] = true;
                    self.told_apart[y * k + x] = true;
                    if self.proved[x * k + y] {
                        voided.push((a, b));
                    } else {
                        self.left -= 1;
                    }
                }
            }
        }
        voided
    }

    /// `p` tells apart a pair no confirmed test has.
    pub(super) fn splits_new(&self, p: &Partition) -> bool {
        self.text_pairs().any(|(a, b)| p.apart(a, b) && !self.apart(a, b))
    }

    /// No proof of a pair with the text of a revision of `revs` stands:
    /// such pairs not told apart are open again.
    pub(super) fn void_proofs_of(&mut self, revs: &[usize]) {
        let k = self.k();
        for x in revs.iter().map(|&r| self.text[r] as usize) {
            for y in 0..k {
                if self.proved[x * k + y] {
                    self.proved[x * k + y] = false;
                    self.proved[y * k + x] = false;
                    self.left += usize::from(!self.told_apart[x * k + y]);
                }
            }
        }
    }

    /// `a` and `b` are proved equivalent.
    pub(super) fn prove(&mut self, a: usize, b: usize) -> bool {
        let (i, j) = (self.at(a, b), self.at(b, a));
        if self.text[a] == self.text[b] || self.proved[i] || self.told_apart[i] {
            return false;
        }
        self.proved[i] = true;
        self.proved[j] = true;
        self.left -= 1;
        true
    }

    /// The pairs of texts neither told apart nor proved, by their first
    /// revisions.
    pub(super) fn open(&self) -> Vec<(u32, u32)> {
        self.text_pairs()
            .filter(|&(a, b)| !self.apart(a, b) && !self.proved(a, b))
            .map(|(a, b)| (a as u32, b as u32))
            .collect()
    }

    /// The pairs of texts of a revision of `x` and one of `y`, by first
    /// revisions, `a < b`: where a comparison of their paths did not settle.
    pub(super) fn between(&self, x: &RevSet, y: &RevSet) -> Vec<(u32, u32)> {
        let (tx, ty) = (self.texts_of(x), self.texts_of(y));
        let f = |t: u32| self.firsts[t as usize] as u32;
        tx.iter()
            .flat_map(|&a| {
                ty.iter().filter(move |&&b| b != a).map(move |&b| (f(a).min(f(b)), f(a).max(f(b))))
            })
            .collect()
    }

    /// The key of the pair of `a`'s and `b`'s texts in `between`'s terms.
    pub(super) fn key(&self, a: u32, b: u32) -> (u32, u32) {
        let f = |r: u32| self.firsts[self.text[r as usize] as usize] as u32;
        (f(a).min(f(b)), f(a).max(f(b)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Revisions 0 and 2 are one text, 1 and 3 another, 4 a third: a test
    /// that tells 0 from 1 tells 2 from 3, and one text is proved by itself.
    #[test]
    fn revisions_of_one_text_share_their_pairs() {
        let mut p = Pairs::new(5, &[0, 1, 0, 1, 4]);
        assert_eq!((p.k(), p.left), (3, 3));
        assert!(p.proved(0, 2) && !p.apart(0, 2));
        let part = Partition { classes: vec![0, 1, 0, 1, 1], loose: Vec::new() };
        assert!(p.record(&part).is_empty());
        assert!(p.apart(2, 3) && p.apart(3, 0) && p.apart(4, 2) && !p.apart(1, 4));
        assert_eq!(p.open(), [(1, 4)]);
        assert!(p.prove(3, 4) && !p.prove(1, 4));
        assert!(p.done() && p.proved(1, 4));
        let all: RevSet = (0..5).collect();
        let evens: RevSet = [0, 2].into_iter().collect();
        assert!(p.settled(&evens) && !p.settled(&[0].into_iter().collect()) && p.settled(&all));
        assert_eq!(p.between(&evens, &[3, 4].into_iter().collect()), [(0, 1), (0, 4)]);
        assert_eq!(p.key(3, 2), (0, 1));
    }

    /// A test that tells apart a proved pair voids the proofs of its two
    /// texts, and no other.
    #[test]
    fn a_split_proved_pair_voids_the_proofs_of_its_texts() {
        let mut p = Pairs::new(4, &[]);
        assert!(p.prove(0, 1) && p.prove(2, 3) && p.prove(0, 2));
        let part = Partition { classes: vec![0, 1, 0, 0], loose: Vec::new() };
        let voided = p.record(&part);
        assert_eq!(voided, [(0, 1)]);
        p.void_proofs_of(&[0, 1]);
        assert_eq!(p.open(), [(0, 2), (0, 3)]);
        assert!(p.proved(2, 3) && !p.proved(0, 2) && p.apart(0, 1));
    }
}
