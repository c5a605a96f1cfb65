//! The set of revisions that follow a state: a bitset as wide as its
//! highest revision, with no cap. Up to 256 revisions it lives inline and a
//! copy allocates nothing: a run of few patches pays as it did when the set
//! was a fixed array; a repair tool's pool of thousands pays per word.

use std::fmt;

use smallvec::SmallVec;

/// Words held without allocating: revisions 0..256.
const INLINE: usize = 4;

/// No trailing zero word, so that equal sets are equal values (the derived
/// `Eq`, `Hash` and `Ord` compare words).
#[derive(Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct RevSet(SmallVec<[u64; INLINE]>);

impl RevSet {
    pub fn empty() -> RevSet {
        RevSet::default()
    }

    /// `{0, .., n-1}`.
    pub fn all(n: u32) -> RevSet {
        let mut words: SmallVec<[u64; INLINE]> = SmallVec::from_elem(u64::MAX, (n / 64) as usize);
        if !n.is_multiple_of(64) {
            words.push((1 << (n % 64)) - 1);
        }
        RevSet(words)
    }

    pub fn singleton(r: u32) -> RevSet {
        let mut s = RevSet::empty();
        s.insert(r);
        s
    }

    pub fn insert(&mut self, r: u32) {
        let w = (r / 64) as usize;
        if w >= self.0.len() {
            self.0.resize(w + 1, 0);
        }
        self.0[w] |= 1 << (r % 64);
    }

    pub fn contains(&self, r: u32) -> bool {
        self.0.get((r / 64) as usize).is_some_and(|w| w & (1 << (r % 64)) != 0)
    }

    pub fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The revision, if the set has exactly one.
    pub fn single(&self) -> Option<u32> {
        (self.len() == 1).then(|| self.iter().next()).flatten()
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &w)| {
            let mut rest = w;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = rest.trailing_zeros();
                    rest &= rest - 1;
                    i as u32 * 64 + bit
                })
            })
        })
    }

    pub fn union(&self, o: &RevSet) -> RevSet {
        let (long, short) = if self.0.len() >= o.0.len() { (self, o) } else { (o, self) };
        let mut words = long.0.clone();
        words.iter_mut().zip(&short.0).for_each(|(w, s)| *w |= s);
        RevSet(words)
    }

    /// No revision in both: `intersect(o).is_empty()` without building it.
    pub fn disjoint(&self, o: &RevSet) -> bool {
        self.0.iter().zip(&o.0).all(|(a, b)| a & b == 0)
    }

    pub fn intersect(&self, o: &RevSet) -> RevSet {
        let mut words: SmallVec<[u64; INLINE]> = self.0.iter().zip(&o.0).map(|(a, b)| a & b).collect();
        while words.last() == Some(&0) {
            words.pop();
        }
        RevSet(words)
    }
}

/// "revision 3", "revisions 3, 7": for messages.
pub(super) fn revisions_named(revisions: impl IntoIterator<Item = u32>) -> String {
    let list: Vec<usize> = revisions.into_iter().map(|r| r as usize).collect();
    crate::cluster::names::named(&list)
}

impl FromIterator<u32> for RevSet {
    fn from_iter<I: IntoIterator<Item = u32>>(it: I) -> RevSet {
        let mut s = RevSet::empty();
        for r in it {
            s.insert(r);
        }
        s
    }
}

impl fmt::Debug for RevSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

impl fmt::Display for RevSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{")?;
        for (i, r) in self.iter().enumerate() {
            if i > 0 {
                write!(f, ",")?;
            }
            write!(f, "{r}")?;
        }
        write!(f, "}}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_operations() {
        let a = RevSet::all(5);
        assert_eq!(a.len(), 5);
        assert_eq!(a.to_string(), "{0,1,2,3,4}");
        let b: RevSet = [3, 200].into_iter().collect();
        assert_eq!(a.intersect(&b), RevSet::singleton(3));
        assert_eq!(a.union(&b).len(), 6);
        assert!(b.contains(200) && !b.contains(201) && !b.contains(100_000));
        assert_eq!(RevSet::singleton(130).single(), Some(130));
        assert_eq!(a.single(), None);
        assert!(RevSet::empty().is_empty());
        // Past 256, and equal sets are equal values whatever built them.
        let wide = RevSet::all(10_000);
        assert_eq!(wide.len(), 10_000);
        assert!(wide.contains(9_999) && !wide.contains(10_000));
        assert_eq!(wide.iter().last(), Some(9_999));
        let far = RevSet::singleton(9_000);
        assert_eq!(wide.intersect(&far), far);
        assert_eq!(far.intersect(&b), RevSet::empty());
        assert!(far.disjoint(&b) && !wide.disjoint(&far));
        assert_eq!(b.union(&far).iter().collect::<Vec<_>>(), [3, 200, 9_000]);
        assert_eq!(RevSet::all(64), (0..64).collect());
    }
}
