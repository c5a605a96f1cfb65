//! The set of revisions that follow a state: a fixed-size bitset, `Copy`.
//!
//! At most `MAX_REVISIONS` (256) revisions.

use std::fmt;

/// Revisions a meta program may have (0..MAX_REVISIONS).
pub const MAX_REVISIONS: u32 = 256;

const WORDS: usize = (MAX_REVISIONS / 64) as usize;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct RevSet([u64; WORDS]);

impl RevSet {
    pub fn empty() -> RevSet {
        RevSet::default()
    }

    /// `{0, .., n-1}`.
    pub fn all(n: u32) -> RevSet {
        let mut s = RevSet::empty();
        for r in 0..n.min(MAX_REVISIONS) {
            s.insert(r);
        }
        s
    }

    pub fn singleton(r: u32) -> RevSet {
        let mut s = RevSet::empty();
        s.insert(r);
        s
    }

    pub fn insert(&mut self, r: u32) {
        self.0[(r / 64) as usize] |= 1 << (r % 64);
    }

    pub fn contains(&self, r: u32) -> bool {
        r < MAX_REVISIONS && self.0[(r / 64) as usize] & (1 << (r % 64)) != 0
    }

    pub fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// The revision, if the set has exactly one.
    pub fn single(&self) -> Option<u32> {
        (self.len() == 1).then(|| self.iter().next()).flatten()
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..MAX_REVISIONS).filter(move |&r| self.contains(r))
    }

    pub fn union(&self, o: &RevSet) -> RevSet {
        RevSet(std::array::from_fn(|i| self.0[i] | o.0[i]))
    }

    pub fn intersect(&self, o: &RevSet) -> RevSet {
        RevSet(std::array::from_fn(|i| self.0[i] & o.0[i]))
    }
}

/// "revision 3", "revisions 3, 7": for messages.
pub(super) fn revisions_named(revisions: impl IntoIterator<Item = u32>) -> String {
    let list: Vec<String> = revisions.into_iter().map(|r| r.to_string()).collect();
    format!("revision{} {}", if list.len() == 1 { "" } else { "s" }, list.join(", "))
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
        assert!(b.contains(200) && !b.contains(201) && !b.contains(MAX_REVISIONS));
        assert_eq!(RevSet::singleton(130).single(), Some(130));
        assert_eq!(a.single(), None);
        assert!(RevSet::empty().is_empty());
    }
}
