//! Lists of revisions in messages. A pool of 10,000 revisions makes lists of
//! thousands: a run of three or more consecutive revisions is a range
//! ("0 to 2620"), and a message names at most `LISTED` items, counting the
//! revisions past them, where the report's tables give every revision.

/// The most items (revisions or ranges) a message names.
pub const LISTED: usize = 12;

/// "0, 2, 5 to 9": every revision, runs of three or more as ranges.
pub fn ranges(revs: &[usize]) -> String {
    items(revs).iter().map(Item::to_string).collect::<Vec<_>>().join(", ")
}

/// `ranges`, but past `LISTED` items "and N more" (revisions).
pub fn listed(revs: &[usize]) -> String {
    let all = items(revs);
    let shown: Vec<String> = all.iter().take(LISTED).map(Item::to_string).collect();
    let more: usize = all.iter().skip(LISTED).map(|i| i.last - i.first + 1).sum();
    match more {
        0 => shown.join(", "),
        _ => format!("{} and {more} more", shown.join(", ")),
    }
}

/// "revision 3", "revisions 0, 2, 5 to 9" (`listed`).
pub fn named(revs: &[usize]) -> String {
    let noun = if revs.len() == 1 { "revision" } else { "revisions" };
    format!("{noun} {}", listed(revs))
}

struct Item {
    first: usize,
    last: usize,
}

impl std::fmt::Display for Item {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.last - self.first {
            0 => write!(f, "{}", self.first),
            1 => write!(f, "{}, {}", self.first, self.last),
            _ => write!(f, "{} to {}", self.first, self.last),
        }
    }
}

/// Runs of consecutive revisions, in the list's order; a run of two is one
/// item that names both.
fn items(revs: &[usize]) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    for &r in revs {
        match out.last_mut() {
            Some(i) if i.last + 1 == r => i.last = r,
            _ => out.push(Item { first: r, last: r }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_become_ranges_and_long_lists_are_counted() {
        assert_eq!(ranges(&[0, 2, 3, 5, 6, 7, 8, 9, 11]), "0, 2, 3, 5 to 9, 11");
        assert_eq!(named(&[4]), "revision 4");
        assert_eq!(named(&[1, 2]), "revisions 1, 2");
        let sparse: Vec<usize> = (0..20).map(|r| 2 * r).chain(100..200).collect();
        assert_eq!(listed(&sparse), "0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22 and 108 more");
        let dense: Vec<usize> = (0..2621).chain([2622]).collect();
        assert_eq!(named(&dense), "revisions 0 to 2620, 2622");
    }
}
