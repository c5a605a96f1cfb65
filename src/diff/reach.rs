//! Whether the explored paths reached the code where revisions differ, and
//! where the others ended.
//!
//! A proof of equivalence says that no input makes two revisions behave
//! differently. It means something only if some path ran the code where they
//! differ: where every path ends before it (an error the engine stops at, an
//! exit, a cut), nothing compared ever ran the patch, and "equivalent" would
//! be vacuous. This ledger records, per revision, the meta-branch sites its
//! paths went through and, where they ended, what ended them; a pair whose
//! differing sites no path of both reached is not proved, and the reason
//! says where their paths ended.
//!
//! `Reach` holds, per revision, the differing sites reached, and for the paths
//! that reached none the error kind and location where they ended, with an
//! example ktest. For a memory error the judge asks whether the plain native
//! build (`meta.plain`, no ASan, built only then) goes on past it, and says so.

use std::collections::{BTreeMap, BTreeSet};

use crate::exec::{HaltedPath, Location, Termination};
use crate::ktest::KTest;

/// Distinct ends kept per revision; more are only counted.
const ENDS_KEPT: usize = 6;

/// Where some paths of a revision ended.
#[derive(Debug, Clone)]
pub struct End {
    /// "exit", "error ptr: out-of-bounds write ...", "cut: max-time".
    pub what: String,
    pub location: Option<Location>,
    pub paths: u64,
    /// An error of the program's (not of the engine's): a build without
    /// AddressSanitizer may go on past it.
    pub error: bool,
    /// The input of the first path that ended so, where it had one.
    pub example: Option<KTest>,
}

#[derive(Debug, Clone, Default)]
pub struct Reach {
    /// Per revision: the sites its paths went through.
    sites: BTreeMap<u32, BTreeSet<u32>>,
    /// Per revision: where its paths ended, first seen first.
    ends: BTreeMap<u32, Vec<End>>,
    /// Per revision: paths that ended elsewhere than the ends kept.
    other_ends: BTreeMap<u32, u64>,
}

impl Reach {
    /// Notes a halted path; `input` builds its ktest if one is wanted.
    pub fn record(&mut self, path: &HaltedPath, input: impl FnOnce() -> Option<KTest>) {
        let (what, location, error) = describe(path);
        let mut input = Some(input);
        for r in path.revisions.iter() {
            self.sites.entry(r).or_default().extend(path.sites.iter().copied());
            let ends = self.ends.entry(r).or_default();
            match ends.iter().position(|e| e.what == what && e.location == location) {
                Some(i) => ends[i].paths += 1,
                None if ends.len() < ENDS_KEPT => {
                    let example = if error { input.take().and_then(|f| f()) } else { None };
                    ends.push(End {
                        what: what.clone(),
                        location: location.clone(),
                        paths: 1,
                        error,
                        example,
                    })
                }
                None => *self.other_ends.entry(r).or_default() += 1,
            }
        }
    }

    /// Notes the sites native runs of revision `r` reached (enumeration's).
    pub fn record_native(&mut self, r: usize, sites: &[u32]) {
        self.sites.entry(r as u32).or_default().extend(sites.iter().copied());
    }

    /// Some path of `a` and some path of `b` went through one of `sites`.
    pub fn reached(&self, a: usize, b: usize, sites: &[u32]) -> bool {
        let of = |r: usize| self.sites.get(&(r as u32));
        match (of(a), of(b)) {
            (Some(x), Some(y)) => sites.iter().any(|s| x.contains(s) && y.contains(s)),
            _ => false,
        }
    }

    /// Where the paths of revision `r` ended, and how many ended elsewhere.
    pub fn ends(&self, r: usize) -> (&[End], u64) {
        let r = r as u32;
        (self.ends.get(&r).map_or(&[], Vec::as_slice), self.other_ends.get(&r).copied().unwrap_or(0))
    }
}

/// What ended a path, where, and whether it is an error of the program's.
fn describe(path: &HaltedPath) -> (String, Option<Location>, bool) {
    match &path.termination {
        Termination::Exit { .. } => ("exit".into(), path.end.clone(), false),
        Termination::Error { kind, message, location, .. } => {
            let program = crate::exec::ApproxKind::of_error(kind).is_none();
            // An error inside the libc model is the program's call's.
            (format!("error {}: {message}", kind.suffix()), path.end.clone().or(location.clone()), program)
        }
        Termination::Silent => ("a silent exit".into(), path.end.clone(), false),
        Termination::Early { reason, .. } => (format!("cut: {reason}"), path.end.clone(), false),
    }
}

/// What a build without AddressSanitizer does on an input: `run(ktest,
/// revision)` gives its outcome, `None` where it could not run.
pub type PlainRun<'a> = dyn FnMut(&KTest, usize) -> Option<crate::replay::Outcome> + 'a;

impl Reach {
    /// Why revisions `a` and `b`, which differ at `site` (described), are not
    /// proved equivalent when no path of both reached it: where their paths
    /// ended, and, for an error of the program's that a build without
    /// AddressSanitizer goes on past (`plain`), what that build does there.
    pub fn unreached(
        &self,
        a: usize,
        b: usize,
        site: &str,
        locate: &dyn Fn(&Location, usize) -> String,
        plain: &mut PlainRun<'_>,
    ) -> String {
        let mut parts = Vec::new();
        let mut survived = None;
        for r in [a, b] {
            let (ends, other) = self.ends(r);
            for e in ends {
                let at = e.location.as_ref().map(|l| format!(" at {}", locate(l, r))).unwrap_or_default();
                let part =
                    format!("{}{at} ({} path{})", e.what, e.paths, if e.paths == 1 { "" } else { "s" });
                if !parts.contains(&part) {
                    parts.push(part);
                }
                if survived.is_none()
                    && let Some(k) = e.example.as_ref().filter(|_| e.error)
                {
                    survived = plain_survives(k, a, b, plain).map(|s| (s, at));
                }
            }
            if other > 0 {
                parts.push(format!("{other} more elsewhere"));
            }
        }
        let ends = if parts.is_empty() { "no path of theirs ended".to_string() } else { parts.join(", ") };
        let mut why = format!(
            "no explored path reaches the code where revisions {a} and {b} differ ({site}): their paths end in {ends}"
        );
        if let Some((s, at)) = survived {
            why.push_str(&format!("; a build without AddressSanitizer goes on past the error{at}: {s}"));
        }
        why
    }
}

/// What the plain build does on the input of an error path, if it survives
/// the error on either revision: "revision 0 exits 0 there, revision 1
/// exits 0 with other output (compare the plain builds with --no-asan)".
fn plain_survives(k: &KTest, a: usize, b: usize, plain: &mut PlainRun<'_>) -> Option<String> {
    let (x, y) = (plain(k, a)?, plain(k, b)?);
    let goes_on = |o: &crate::replay::Outcome| o.signal.is_none() && !o.timed_out;
    if !goes_on(&x) && !goes_on(&y) {
        return None;
    }
    let mut s = format!(
        "natively revision {a} ends with {} and revision {b} with {}",
        x.status_text(),
        y.status_text()
    );
    if (x.exit_status, &x.stdout, x.signal) != (y.exit_status, &y.stdout, y.signal) {
        s.push_str(" and they differ there (the plain builds are compared with --no-asan)");
    } else {
        s.push_str(" (the plain builds are compared with --no-asan)");
    }
    Some(s)
}
