//! Concrete confirmation: every candidate test runs natively on every revision
//! (the meta program's native build with `PSYCHIC_REVISION`), and only the
//! differences that replay count.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::posix::ReplayEnv;
use crate::replay::{self, Outcome};

/// Which parts of a run count as its behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct OutputSelection {
    pub stdout: bool,
    pub stderr: bool,
    /// The exit status, the terminating signal and a timeout.
    pub exit: bool,
    /// `psychic_output` records (function outputs are recorded the same way).
    pub annotations: bool,
}

impl Default for OutputSelection {
    fn default() -> Self {
        OutputSelection { stdout: true, stderr: false, exit: true, annotations: true }
    }
}

/// One native run: its outcome and the annotations it recorded.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Observation {
    pub outcome: Outcome,
    /// Lines of the `PSYCHIC_ANNOTATIONS` file, `NAME SIZE HEX` each.
    pub annotations: Vec<String>,
    /// What a second, perturbed run observed (`replay::Request::perturb`),
    /// when it differs from this one: the revision is nondeterministic on
    /// this input (it reads memory it never wrote).
    pub alternate: Option<Box<Observation>>,
}

impl Observation {
    /// The perturbed run saw other behaviour, as `sel` sees behaviour.
    pub fn nondeterministic_under(&self, sel: OutputSelection) -> bool {
        self.alternate.as_ref().is_some_and(|a| a.key(sel) != self.key(sel))
    }

    /// The same behaviour in every output but stderr (which carries ASan's
    /// addresses, different in every run).
    fn same_as(&self, other: &Observation) -> bool {
        let all = OutputSelection { stdout: true, stderr: false, exit: true, annotations: true };
        self.key(all) == other.key(all)
    }

    /// The behaviour as the selection sees it: equal keys, equal behaviour.
    pub fn key(&self, sel: OutputSelection) -> ObservedKey {
        let o = &self.outcome;
        ObservedKey {
            stdout: sel.stdout.then(|| o.stdout.clone()),
            stderr: sel.stderr.then(|| o.stderr.clone()),
            exit: sel.exit.then_some((o.exit_status, o.signal, o.timed_out)),
            annotations: sel.annotations.then(|| self.annotations.clone()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObservedKey {
    stdout: Option<Vec<u8>>,
    stderr: Option<Vec<u8>>,
    exit: Option<(Option<i32>, Option<i32>, bool)>,
    annotations: Option<Vec<String>>,
}

/// A test to replay: its ktest and the command line, stdin and files it feeds.
#[derive(Debug, Clone)]
pub struct TestInput {
    pub ktest: PathBuf,
    pub env: ReplayEnv,
}

/// Runs every test on every revision, on `jobs` threads, twice: plainly and
/// perturbed. Result: `[test][revision]`. `same_as[r]` is the revision whose
/// text is revision r's (itself for the first of each text): only those
/// run, and the others share their observations (empty: every revision runs).
pub fn replay_all(
    binary: &Path,
    revisions: usize,
    same_as: &[usize],
    tests: &[TestInput],
    timeout: Duration,
    jobs: usize,
) -> std::io::Result<Vec<Vec<Observation>>> {
    let scratch = tempfile::Builder::new().prefix("psychic-confirm-").tempdir()?;
    let rep = |r: usize| same_as.get(r).copied().unwrap_or(r);
    let work: Vec<(usize, usize)> = (0..tests.len())
        .flat_map(|t| (0..revisions).filter(move |&r| rep(r) == r).map(move |r| (t, r)))
        .collect();
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<Observation>> = vec![None; tests.len() * revisions];
    std::thread::scope(|s| -> std::io::Result<()> {
        let workers: Vec<_> = (0..jobs.max(1))
            .map(|_| {
                s.spawn(|| -> std::io::Result<Vec<(usize, Observation)>> {
                    let mut done = Vec::new();
                    while let Some(&(t, r)) = work.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let annotations = scratch.path().join(format!("{t}-{r}.annotations"));
                        let mut first = run_one(binary, &tests[t], r, timeout, &annotations, false)?;
                        let second = run_one(binary, &tests[t], r, timeout, &annotations, true)?;
                        if !second.same_as(&first) {
                            first.alternate = Some(Box::new(second));
                        }
                        done.push((t * revisions + r, first));
                    }
                    Ok(done)
                })
            })
            .collect();
        for w in workers {
            for (i, obs) in w.join().expect("replay workers do not panic")? {
                slots[i] = Some(obs);
            }
        }
        Ok(())
    })?;
    let out = slots
        .chunks(revisions.max(1))
        .map(|row| (0..revisions).map(|r| row[rep(r)].clone().expect("every run has a result")).collect())
        .collect();
    Ok(out)
}

fn run_one(
    binary: &Path,
    test: &TestInput,
    revision: usize,
    timeout: Duration,
    annotations: &Path,
    perturb: bool,
) -> std::io::Result<Observation> {
    let mut req = replay::Request::new(binary, Some(&test.ktest), revision);
    req.env = test.env.clone();
    req.timeout = timeout;
    req.annotations = Some(annotations.to_path_buf());
    req.perturb = perturb;
    let outcome = replay::run(&req)?;
    let lines = match std::fs::read_to_string(annotations) {
        Ok(text) => text.lines().map(str::to_string).collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    // The file is appended to: the next run of this pair starts afresh.
    let _ = std::fs::remove_file(annotations);
    Ok(Observation { outcome, annotations: lines, alternate: None })
}

/// The outcome class of each revision: revisions with equal keys share a class;
/// classes are numbered in order of their first revision. A nondeterministic
/// observation never separates by itself: it joins the class of a
/// deterministic revision that either of its runs agrees with.
pub fn classes(row: &[Observation], sel: OutputSelection) -> Vec<u32> {
    let steady = |o: &Observation| !o.nondeterministic_under(sel);
    let mut seen: Vec<ObservedKey> = Vec::new();
    let mut class = |k: ObservedKey| match seen.iter().position(|s| *s == k) {
        Some(i) => i as u32,
        None => {
            seen.push(k);
            (seen.len() - 1) as u32
        }
    };
    let mut out: Vec<Option<u32>> = row.iter().map(|o| steady(o).then(|| class(o.key(sel)))).collect();
    for (r, o) in row.iter().enumerate().filter(|(_, o)| !steady(o)) {
        let runs = [Some(o.key(sel)), o.alternate.as_ref().map(|a| a.key(sel))];
        let agrees = |q: usize| steady(&row[q]) && runs.iter().flatten().any(|k| *k == row[q].key(sel));
        out[r] = Some(match (0..row.len()).find(|&q| agrees(q)) {
            Some(q) => out[q].expect("steady revisions are classed"),
            None => class(o.key(sel)),
        });
    }
    // Renumbered by first revision, as the report's outcomes are.
    let mut order: Vec<u32> = Vec::new();
    out.into_iter()
        .map(|c| {
            let c = c.expect("every revision is classed");
            match order.iter().position(|&x| x == c) {
                Some(i) => i as u32,
                None => {
                    order.push(c);
                    (order.len() - 1) as u32
                }
            }
        })
        .collect()
}
