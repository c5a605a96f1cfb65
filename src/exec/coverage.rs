//! Approximation accounting: every place where the engine drops or narrows
//! behaviour is recorded on the path that met it, with its kind and source
//! location, and summed per revision over the run.
//!
//! This is what lets a report say "proved equivalent" only when it is true:
//! a revision whose paths were all explored exactly, and none cut, has no
//! behaviour the engine did not see. Anything else (a concretised value, a
//! model gap, a cut path, a solver timeout, the budget) leaves a record here.
//!
//! What records an `Approximation` (kind, what, location) on the state:
//! `concretize` (when the path does not already fix the value); path-ending
//! errors the engine makes rather than the program (`external`, `unhandled`,
//! `solver`, the libc model's `model`, internal errors); early terminations that
//! cut (`max-depth`, `max-forks`) or that the budget left (not when the observer
//! stopped the run because it knew enough); a malloc over the engine's limit; an
//! allocation size over `SYM_CAP` (concretised); bytes past a symbolic old size
//! that a realloc may expose without their unwritten marks; a read of
//! uninitialised memory (`Uninitialised`: the engine took it as 0). At the halt
//! the path carries them (`HaltedPath::approximations`) and `Coverage` counts,
//! per revision, exact paths and approximated ones by kind with the first
//! occurrence; it is `RunSummary::coverage`, and the report carries it as it is.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::halt::{ApproxKind, HaltedPath, Location};

/// Per revision: how many halted paths were exact, and how many were
/// approximated, by kind.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    pub revisions: Vec<RevisionCoverage>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RevisionCoverage {
    pub revision: u32,
    /// Paths that ended with nothing approximated.
    pub exact: u64,
    /// Paths with at least one approximation.
    pub approximated: u64,
    /// Paths per kind (a path with two kinds counts under both), with the
    /// first occurrence.
    pub kinds: BTreeMap<ApproxKind, KindCoverage>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KindCoverage {
    pub paths: u64,
    /// What the first one was.
    pub first: String,
    /// Where the first one was, when known.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub location: Option<Location>,
}

impl Coverage {
    pub fn new(revisions: u32) -> Coverage {
        Coverage {
            revisions: (0..revisions)
                .map(|revision| RevisionCoverage { revision, ..Default::default() })
                .collect(),
        }
    }

    /// Counts a halted path for each revision that follows it.
    pub fn record(&mut self, path: &HaltedPath) {
        for r in path.revisions.iter() {
            let Some(rc) = self.revisions.get_mut(r as usize) else { continue };
            if path.approximations.is_empty() {
                rc.exact += 1;
                continue;
            }
            rc.approximated += 1;
            let mut seen: Vec<ApproxKind> = Vec::new();
            for a in &path.approximations {
                if seen.contains(&a.kind) {
                    continue;
                }
                seen.push(a.kind);
                rc.kinds.entry(a.kind).and_modify(|k| k.paths += 1).or_insert_with(|| KindCoverage {
                    paths: 1,
                    first: a.what.clone(),
                    location: a.location.clone(),
                });
            }
        }
    }

    /// Moves each revision's first locations with `f(revision, location)`
    /// (from the meta program into the revision's own file).
    pub fn map_locations(&mut self, f: impl Fn(u32, &Location) -> Option<Location>) {
        for rc in &mut self.revisions {
            for k in rc.kinds.values_mut() {
                if let Some(l) = k.location.as_ref().and_then(|l| f(rc.revision, l)) {
                    k.location = Some(l);
                }
            }
        }
    }

    /// Every kind that occurred, in order, once.
    pub fn kinds(&self) -> impl Iterator<Item = ApproxKind> + '_ {
        let all: std::collections::BTreeSet<ApproxKind> =
            self.revisions.iter().flat_map(|r| r.kinds.keys().copied()).collect();
        all.into_iter()
    }

    /// Whether every path of revision `r` was exact.
    pub fn is_exact(&self, r: usize) -> bool {
        self.revisions.get(r).is_none_or(|rc| rc.approximated == 0)
    }

    /// One line per kind over the revisions in `revs` (all when `None`):
    /// "concretised: 3 paths of revisions 0, 2 (concretised a symbolic malloc
    /// size at prog.c:12:5)".
    pub fn reasons(&self, revs: Option<&[usize]>) -> Vec<String> {
        let mut by_kind: BTreeMap<ApproxKind, (u64, Vec<u32>, &KindCoverage)> = BTreeMap::new();
        for rc in &self.revisions {
            if revs.is_some_and(|revs| !revs.contains(&(rc.revision as usize))) {
                continue;
            }
            for (kind, k) in &rc.kinds {
                let e = by_kind.entry(*kind).or_insert((0, Vec::new(), k));
                e.0 += k.paths;
                e.1.push(rc.revision);
            }
        }
        by_kind
            .into_iter()
            .map(|(kind, (paths, revisions, first))| {
                let at = first.location.as_ref().map(|l| format!(" at {l}")).unwrap_or_default();
                format!(
                    "{kind}: {paths} path{} of {} ({}{at})",
                    if paths == 1 { "" } else { "s" },
                    super::revset::revisions_named(revisions),
                    first.first,
                )
            })
            .collect()
    }
}
