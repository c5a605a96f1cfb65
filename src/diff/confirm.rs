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
}

impl Observation {
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

/// Runs every test on every revision, on `jobs` threads. Result: `[test][revision]`.
pub fn replay_all(
    binary: &Path,
    revisions: usize,
    tests: &[TestInput],
    timeout: Duration,
    jobs: usize,
) -> std::io::Result<Vec<Vec<Observation>>> {
    let scratch = tempfile::Builder::new().prefix("psychic-confirm-").tempdir()?;
    let work: Vec<(usize, usize)> =
        (0..tests.len()).flat_map(|t| (0..revisions).map(move |r| (t, r))).collect();
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<Observation>> = vec![None; work.len()];
    std::thread::scope(|s| -> std::io::Result<()> {
        let workers: Vec<_> = (0..jobs.max(1))
            .map(|_| {
                s.spawn(|| -> std::io::Result<Vec<(usize, Observation)>> {
                    let mut done = Vec::new();
                    while let Some(&(t, r)) = work.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let annotations = scratch.path().join(format!("{t}-{r}.annotations"));
                        done.push((t * revisions + r, run_one(binary, &tests[t], r, timeout, annotations)?));
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
    let mut flat = slots.into_iter().map(|o| o.expect("every run has a result"));
    let out = (0..tests.len()).map(|_| flat.by_ref().take(revisions).collect()).collect();
    Ok(out)
}

fn run_one(
    binary: &Path,
    test: &TestInput,
    revision: usize,
    timeout: Duration,
    annotations: PathBuf,
) -> std::io::Result<Observation> {
    let mut req = replay::Request::new(binary, Some(&test.ktest), revision);
    req.env = test.env.clone();
    req.timeout = timeout;
    req.annotations = Some(annotations.clone());
    let outcome = replay::run(&req)?;
    let annotations = match std::fs::read_to_string(&annotations) {
        Ok(text) => text.lines().map(str::to_string).collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    Ok(Observation { outcome, annotations })
}

/// The outcome class of each revision: revisions with equal keys share a class;
/// classes are numbered in order of their first revision.
pub fn classes(row: &[Observation], sel: OutputSelection) -> Vec<u32> {
    let mut seen: Vec<ObservedKey> = Vec::new();
    row.iter()
        .map(|o| {
            let k = o.key(sel);
            match seen.iter().position(|s| *s == k) {
                Some(i) => i as u32,
                None => {
                    seen.push(k);
                    (seen.len() - 1) as u32
                }
            }
        })
        .collect()
}
